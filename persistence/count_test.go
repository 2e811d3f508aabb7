package persistence_test

import (
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// TestLiveGames follows the count of live games as games start, end, are
// claimed by a sweeper and expire.
func TestLiveGames(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	want := func(step string, n int64) {
		t.Helper()
		got, err := e.store.LiveGames(ctx)
		if err != nil || got != n {
			t.Fatalf("%s: LiveGames = %d, %v; want %d", step, got, err, n)
		}
	}
	want("empty store", 0)
	challenge := persistence.Session{Rules: "3x3k3", Status: persistence.StatusOpen, Challenger: game.X,
		Players: [2]persistence.Seat{{User: "ux"}, {}}}
	if _, err := e.store.CreateGame(ctx, "c1", challenge); err != nil {
		t.Fatal(err)
	}
	g2, err := e.store.CreateGame(ctx, "c1", sessHumanGame("ua", "ub"))
	if err != nil {
		t.Fatal(err)
	}
	g3, err := e.store.CreateGame(ctx, "c2", sessHumanGame("ua", "ub"))
	if err != nil {
		t.Fatal(err)
	}
	want("three games started", 3)
	p, _ := g3.Position()
	if _, err := e.store.PlayOn(ctx, g3, "ua", p.Empty().First()); err != nil {
		t.Fatal(err)
	}
	want("after a move", 3)
	if _, err := e.store.Resign(ctx, g2.ID, 0, "ub"); err != nil {
		t.Fatal(err)
	}
	want("one resigned", 2)
	// The challenge expires after 5 minutes: once a sweeper claims it, it
	// is still live (and counted) until the sweeper applies it.
	e.clk.Advance(5*time.Minute + time.Second)
	due, err := e.store.ClaimDueDeadlines(ctx, e.clk.Now(), 10)
	if err != nil || len(due) != 1 {
		t.Fatalf("claim: %v, %v; want the challenge", due, err)
	}
	want("challenge claimed", 2)
	if _, changed, err := e.store.ApplyDue(ctx, due[0]); err != nil || !changed {
		t.Fatalf("apply: %v, %v", changed, err)
	}
	want("challenge expired", 1)
}
