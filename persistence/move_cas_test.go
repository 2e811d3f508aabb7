package persistence

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tttbot/ttt-bot/game"
)

// sessionInternalServer starts a private redis-server for the tests inside the
// package (which cannot import redistest: it imports this package). Like
// redistest, it skips locally and fails under CI=true without Redis.
func sessionInternalServer(t *testing.T) *redis.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	srv, err := StartServer(ctx, ServerOptions{Dir: t.TempDir(), AppendOnly: true})
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and redis-server cannot be started: %v", err)
		}
		t.Skipf("redis-server cannot be started: %v", err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	c := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestCommitScriptCompareAndSet drives the race past the Go-side version
// check: two writers load the same version and both reach the script; the
// script applies the first and refuses the second, leaving the first's
// record whole.
func TestCommitScriptCompareAndSet(t *testing.T) {
	ctx := context.Background()
	s := New(sessionInternalServer(t), Options{})
	g, err := s.CreateGame(ctx, "c1", Session{Rules: "3x3k3", Players: [2]Seat{{User: "a"}, {User: "b"}}})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := s.Game(ctx, g.ID)
	b, _ := s.Game(ctx, g.ID)
	na, nb := a.clone(), b.clone()
	na.Moves = append(na.Moves, game.NewCell(0, 0))
	nb.Moves = append(nb.Moves, game.NewCell(2, 2))
	if err := s.commit(ctx, a, na); err != nil {
		t.Fatal(err)
	}
	if err := s.commit(ctx, b, nb); !errors.Is(err, ErrConflict) {
		t.Fatalf("second commit of version 1: %v, want ErrConflict", err)
	}
	got, err := s.Game(ctx, g.ID)
	if err != nil || got.Version != 2 || len(got.Moves) != 1 || got.Moves[0] != game.NewCell(0, 0) {
		t.Fatalf("after the race: %+v, %v", got, err)
	}
}

// TestActiveMapHealsExpiredGames checks that a place held by a game Redis
// has since dropped (its key expired without a sweeper) does not block the
// player.
func TestActiveMapHealsExpiredGames(t *testing.T) {
	ctx := context.Background()
	rdb := sessionInternalServer(t)
	s := New(rdb, Options{})
	g, err := s.CreateGame(ctx, "c1", Session{Rules: "3x3k3", Players: [2]Seat{{User: "a"}, {User: "b"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateGame(ctx, "c1", Session{Rules: "3x3k3", Players: [2]Seat{{User: "a"}, {User: "c"}}}); !errors.Is(err, ErrBusy) {
		t.Fatalf("second game for a: %v, want ErrBusy", err)
	}
	ch, suf, _ := g.ID.split()
	if err := rdb.Del(ctx, s.keys.game(ch, suf)).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateGame(ctx, "c1", Session{Rules: "3x3k3", Players: [2]Seat{{User: "a"}, {User: "c"}}}); err != nil {
		t.Fatalf("after the first game vanished: %v", err)
	}
}
