package persistence_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/persistence"
)

// TestRedisStopsAndComesBack stops Redis in the middle of a stream of
// moves and starts it again on the same append-only file. While it is
// down every call fails with an error within its context deadline (no
// hang, no panic); every move acknowledged before the stop is there
// afterwards; and the same Store carries on by itself once Redis is back.
func TestRedisStopsAndComesBack(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	const games = 40
	ids := make([]persistence.GameID, games)
	for i := range ids {
		g := sessHumanGame("x", "o")
		g.Rules = "8x8k5" // long games: clicks are still coming when Redis stops
		created, err := e.store.CreateGame(ctx, fmt.Sprintf("c%d", i), g)
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = created.ID
	}

	// Players keep clicking through the outage; each remembers the last
	// version Redis acknowledged.
	acked := make([]int64, games)
	stop := make(chan struct{})
	// moves counts the moves acknowledged; once Redis is down, each player
	// marks through[i] when a call of theirs has failed (or their game is
	// over), so that the test sees clicks through the outage without
	// guessing how long they take.
	var moves atomic.Int64
	var down atomic.Bool
	through := make([]atomic.Bool, games)
	var wg sync.WaitGroup
	for i := range games {
		wg.Go(func() {
			v := int64(1)
			for {
				select {
				case <-stop:
					acked[i] = v
					return
				default:
				}
				cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
				g, err := e.store.Game(cctx, ids[i])
				if err == nil {
					p, _ := g.Position()
					if p.Over() {
						cancel()
						acked[i] = g.Version
						through[i].Store(true)
						<-stop
						return
					}
					by := g.Seat(p.ToMove()).User
					if g, err = e.store.Play(cctx, ids[i], g.Version, by, p.Empty().First()); err == nil {
						v = g.Version
						moves.Add(1)
					}
				}
				cancel()
				if err != nil {
					if down.Load() {
						through[i].Store(true)
					}
					time.Sleep(5 * time.Millisecond) // a player's pause before clicking again
				}
			}
		})
	}

	// Redis stops with the clicks under way: a move acknowledged for every
	// game on average.
	waitUntil(t, 10*time.Second, "a move acknowledged per game", func() bool { return moves.Load() >= games })
	if err := e.srv.Stop(); err != nil {
		t.Fatal(err)
	}
	down.Store(true)
	// Every kind of call fails cleanly and in time while Redis is down.
	calls := map[string]func(context.Context) error{
		"Game": func(c context.Context) error { _, err := e.store.Game(c, ids[0]); return err },
		"Play": func(c context.Context) error { _, err := e.store.Play(c, ids[0], 1, "x", sessCell(2, 2)); return err },
		"CreateGame": func(c context.Context) error {
			_, err := e.store.CreateGame(c, "down", sessHumanGame("a", "b"))
			return err
		},
		"Sweep":         func(c context.Context) error { _, err := e.store.Sweep(c, 10); return err },
		"ActiveGame":    func(c context.Context) error { _, err := e.store.ActiveGame(c, "c1", "x"); return err },
		"FirstDelivery": func(c context.Context) error { _, err := e.store.FirstDelivery(c, "i1", 0); return err },
		"AcquireLock": func(c context.Context) error {
			_, err := e.store.AcquireLock(c, "train", "me", time.Second)
			return err
		},
		"Blocked": func(c context.Context) error { _, err := e.store.Blocked(c, "x", "o"); return err },
		"UpdateTournament": func(c context.Context) error {
			_, err := e.store.UpdateTournament(c, "t1", func(*persistence.Tournament) error { return nil })
			return err
		},
		"Ping": func(c context.Context) error { return e.store.Ping(c) },
	}
	for name, call := range calls {
		cctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		start := time.Now()
		err := call(cctx)
		cancel()
		if err == nil {
			t.Errorf("%s succeeded with Redis down", name)
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("%s took %v with Redis down; the deadline was 500ms", name, took)
		}
		if errors.Is(err, persistence.ErrNotFound) || errors.Is(err, persistence.ErrCorrupt) {
			t.Errorf("%s: a connection failure reads as %v", name, err)
		}
		// The bot tells the user the store cannot be reached (not "something
		// went wrong") by this sentinel.
		if err != nil && !errors.Is(err, persistence.ErrUnavailable) {
			t.Errorf("%s: a connection failure (%v) is not ErrUnavailable", name, err)
		}
	}
	// Every player has clicked into the outage before it ends.
	waitUntil(t, 10*time.Second, "every player clicking into the outage", func() bool {
		for i := range through {
			if !through[i].Load() {
				return false
			}
		}
		return true
	})
	close(stop)
	wg.Wait()
	if err := e.srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	// go-redis notices the server is back by itself: after repeated dial
	// failures its pool re-dials in the background, about once a second.
	back := time.Now()
	for e.store.Ping(ctx) != nil {
		if time.Since(back) > 5*time.Second {
			t.Fatal("the Store did not reconnect within 5s of Redis coming back")
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("reconnected %v after Redis came back", time.Since(back).Round(time.Millisecond))

	// Everything acknowledged is there; the Store recovers on its own.
	var total int64
	for _, v := range acked {
		total += v - 1
	}
	t.Logf("%d moves acknowledged before the stop", total)
	if total == 0 {
		t.Fatal("no move was acknowledged before the stop; the test proves nothing")
	}
	for i, id := range ids {
		g, err := e.store.Game(ctx, id)
		if err != nil {
			t.Fatalf("game %d after restart: %v", i, err)
		}
		if g.Version < acked[i] {
			t.Errorf("game %d: version %d after restart, but %d was acknowledged", i, g.Version, acked[i])
		}
		if p, err := g.Position(); err == nil && !p.Over() {
			if _, err := e.store.Play(ctx, id, g.Version, g.Seat(p.ToMove()).User, p.Empty().First()); err != nil {
				t.Errorf("game %d: move after restart: %v", i, err)
			}
		}
	}
}

// TestCorruptRecord: a game whose stored record does not decode is
// ErrCorrupt, for loads and for moves, never a panic.
func TestCorruptRecord(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	tests := []struct {
		name   string
		fields []any
	}{
		{"garbage data", []any{"d", "\x00\xffnot json"}},
		{"bad version", []any{"v", "seven"}},
		{"moves that do not replay", []any{"d", `{"r":"3x3k3","p":[{"u":"x"},{"u":"o"}],"m":[9,9],"c":1,"u":1}`}},
		{"unknown status", []any{"s", "42"}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := e.store.CreateGame(ctx, fmt.Sprintf("c%d", i), sessHumanGame("x", "o"))
			if err != nil {
				t.Fatal(err)
			}
			if err := e.rdb.HSet(ctx, persistence.GameKeyForTest(e.store, g.ID), tt.fields...).Err(); err != nil {
				t.Fatal(err)
			}
			if _, err := e.store.Game(ctx, g.ID); !errors.Is(err, persistence.ErrCorrupt) {
				t.Errorf("Game: %v, want ErrCorrupt", err)
			}
			if _, err := e.store.Play(ctx, g.ID, 0, "x", sessCell(0, 0)); !errors.Is(err, persistence.ErrCorrupt) {
				t.Errorf("Play: %v, want ErrCorrupt", err)
			}
		})
	}
	// A key of the wrong type is corrupt too, not a leaked WRONGTYPE.
	g, err := e.store.CreateGame(ctx, "cw", sessHumanGame("x", "o"))
	if err != nil {
		t.Fatal(err)
	}
	key := persistence.GameKeyForTest(e.store, g.ID)
	e.rdb.Del(ctx, key)
	e.rdb.Set(ctx, key, "x", 0)
	if _, err := e.store.Game(ctx, g.ID); err == nil {
		t.Errorf("Game on a string key succeeded")
	}
}
