package persistence_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

// TestOwedBoards walks the debt of one game: owed, claimed once while
// leased, a later version kept owed over an earlier delivery, cleared by
// the delivery of the version owed.
func TestOwedBoards(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	g, err := e.store.CreateGame(ctx, "c1", testClocked(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	now := e.clk.Now()
	if err := e.store.Owe(ctx, g.ID, g.Version, now.Add(5*time.Second)); err != nil {
		t.Fatal(err)
	}
	if n, err := e.store.OwedCount(ctx); err != nil || n != 1 {
		t.Fatalf("backlog %d, %v; want 1", n, err)
	}
	if got, err := e.store.ClaimOwed(ctx, now, 10); err != nil || len(got) != 0 {
		t.Fatalf("claimed before its time: %v, %v", got, err)
	}
	// An earlier retry wins; a lower version does not lower the debt.
	if err := e.store.Owe(ctx, g.ID, g.Version-1, now.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	got, err := e.store.ClaimOwed(ctx, now.Add(time.Second), 10)
	if err != nil || len(got) != 1 || got[0].Game != g.ID || got[0].Version != g.Version {
		t.Fatalf("claim: %v, %v; want %s at version %d", got, err, g.ID, g.Version)
	}
	if again, err := e.store.ClaimOwed(ctx, now.Add(2*time.Second), 10); err != nil || len(again) != 0 {
		t.Fatalf("claimed twice within its lease: %v, %v", again, err)
	}
	// A later version is owed meanwhile: the delivery of the earlier one
	// does not clear it.
	if err := e.store.Owe(ctx, g.ID, g.Version+1, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if cleared, err := e.store.Delivered(ctx, g.ID, g.Version); err != nil || cleared {
		t.Fatalf("delivery of an older version cleared the debt: %v, %v", cleared, err)
	}
	if v, owed, err := e.store.OwedVersion(ctx, g.ID); err != nil || !owed || v != g.Version+1 {
		t.Fatalf("owed %d %v %v; want %d", v, owed, err, g.Version+1)
	}
	// The lease ends: another sweeper claims it.
	if got, err := e.store.ClaimOwed(ctx, now.Add(2*time.Minute), 10); err != nil || len(got) != 1 {
		t.Fatalf("claim after the lease: %v, %v", got, err)
	}
	if err := e.store.RetryOwed(ctx, persistence.Owed{Game: g.ID}, now.Add(3*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if cleared, err := e.store.Delivered(ctx, g.ID, g.Version+1); err != nil || !cleared {
		t.Fatalf("delivery of the owed version: %v, %v", cleared, err)
	}
	if n, err := e.store.OwedCount(ctx); err != nil || n != 0 {
		t.Fatalf("backlog %d, %v after delivery; want 0", n, err)
	}
	// RetryOwed does not bring back a debt that was paid.
	if err := e.store.RetryOwed(ctx, persistence.Owed{Game: g.ID}, now); err != nil {
		t.Fatal(err)
	}
	if n, _ := e.store.OwedCount(ctx); n != 0 {
		t.Fatalf("RetryOwed brought a paid debt back")
	}
	if err := e.store.Owe(ctx, g.ID, 1, now); err != nil {
		t.Fatal(err)
	}
	if err := e.store.DropOwed(ctx, persistence.Owed{Game: g.ID}); err != nil {
		t.Fatal(err)
	}
	if _, owed, _ := e.store.OwedVersion(ctx, g.ID); owed {
		t.Fatal("dropped debt still owed")
	}
}

// TestOwedClaimedOnce has many sweepers on two Stores claim 100 owed
// games: each is claimed exactly once within a lease.
func TestOwedClaimedOnce(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	other := persistence.New(redistest.Client(t, e.srv), persistence.Options{Now: e.clk.Now})
	ctx := sessCtx(t)
	now := e.clk.Now()
	for i := range 100 {
		g, err := e.store.CreateGame(ctx, "c"+string(rune('a'+i%26))+string(rune('a'+i/26)), testClocked(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if err := e.store.Owe(ctx, g.ID, g.Version, now); err != nil {
			t.Fatal(err)
		}
	}
	var claims atomic.Int64
	seen := sync.Map{}
	var wg sync.WaitGroup
	for i := range 8 {
		st := e.store
		if i%2 == 1 {
			st = other
		}
		wg.Go(func() {
			for range 10 {
				got, err := st.ClaimOwed(ctx, now, 7)
				if err != nil {
					t.Error(err)
					return
				}
				for _, o := range got {
					claims.Add(1)
					if _, dup := seen.LoadOrStore(o.Game, true); dup {
						t.Errorf("game %s claimed twice", o.Game)
					}
				}
			}
		})
	}
	wg.Wait()
	if claims.Load() != 100 {
		t.Fatalf("%d claims, want 100", claims.Load())
	}
}

// TestOwedBoardKeepsTheClock: a player whose board is owed does not lose
// on time; their turn gets its whole time again, and RestartClock starts
// it from the moment the board is shown.
func TestOwedBoardKeepsTheClock(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	g, err := e.store.CreateGame(ctx, "c1", testClocked(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.Owe(ctx, g.ID, g.Version, e.clk.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	e.clk.Advance(31 * time.Second)
	if got, err := e.store.Sweep(ctx, 10); err != nil || len(got) != 0 {
		t.Fatalf("sweep with the board owed: %v, %v; want nothing to act on", got, err)
	}
	back, err := e.store.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if back.Status != persistence.StatusActive || !back.Deadline.Equal(e.clk.Now().Add(30*time.Second)) {
		t.Fatalf("status %v deadline %v; want active, the whole turn again (%v)", back.Status, back.Deadline, e.clk.Now().Add(30*time.Second))
	}
	// Shown 10 s later: the turn counts from then.
	e.clk.Advance(10 * time.Second)
	shownAt := e.clk.Now()
	next, err := e.store.RestartClock(ctx, g.ID, back.Version, shownAt)
	if err != nil {
		t.Fatal(err)
	}
	if !next.Deadline.Equal(shownAt.Add(30 * time.Second)) {
		t.Fatalf("deadline %v after RestartClock, want %v", next.Deadline, shownAt.Add(30*time.Second))
	}
	if _, err := e.store.Delivered(ctx, g.ID, next.Version); err != nil {
		t.Fatal(err)
	}
	// Now the deadline applies: the early index entry is rescheduled and
	// the timeout comes at the restarted deadline.
	e.clk.Advance(25 * time.Second)
	if got, err := e.store.Sweep(ctx, 10); err != nil || len(got) != 0 {
		t.Fatalf("sweep before the restarted deadline: %v, %v", got, err)
	}
	e.clk.Advance(6 * time.Second)
	got, err := e.store.Sweep(ctx, 10)
	if err != nil || len(got) != 1 || got[0].End != persistence.ByTimeout || got[0].Result != game.OWins {
		t.Fatalf("sweep after the restarted deadline: %v, %v; want X lost on time", got, err)
	}
	// A finished game's clock is not restarted.
	if s, err := e.store.RestartClock(ctx, g.ID, 0, e.clk.Now()); err != nil || s.Status != persistence.StatusFinished || !s.Deadline.IsZero() {
		t.Fatalf("RestartClock on a finished game: %+v, %v", s, err)
	}
}

// TestOwedTournament: a tournament's sign-up is owed beside the games'
// boards, claimed as a tournament, and cleared when shown.
func TestOwedTournament(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	now := e.clk.Now()
	if err := e.store.OweTournament(ctx, "t42", now); err != nil {
		t.Fatal(err)
	}
	got, err := e.store.ClaimOwed(ctx, now, 10)
	if err != nil || len(got) != 1 || got[0].Tournament != "t42" || got[0].Game != "" {
		t.Fatalf("claim: %+v, %v; want tournament t42", got, err)
	}
	if err := e.store.RetryOwed(ctx, got[0], now); err != nil {
		t.Fatal(err)
	}
	if again, _ := e.store.ClaimOwed(ctx, now, 10); len(again) != 1 {
		t.Fatalf("RetryOwed did not bring the sign-up back: %+v", again)
	}
	if err := e.store.TournamentShown(ctx, "t42"); err != nil {
		t.Fatal(err)
	}
	if n, _ := e.store.OwedCount(ctx); n != 0 {
		t.Fatalf("backlog %d after the sign-up was shown", n)
	}
}
