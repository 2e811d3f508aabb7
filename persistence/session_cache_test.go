package persistence_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

// TestSessionCacheNeverDecides plays one game through two Stores (two bot
// processes): each caches the versions it wrote, and the other moves the
// game on behind its back. A click at a version a Store has cached but that
// is no longer current always gets ErrConflict, whatever the cached board
// would have said, and a click at the current version works after it.
func TestSessionCacheNeverDecides(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	a := e.store
	b := persistence.New(redistest.Client(t, e.srv), persistence.Options{Now: e.clk.Now})
	ctx := sessCtx(t)
	g, err := a.CreateGame(ctx, "c1", sessHumanGame("x", "o"))
	if err != nil {
		t.Fatal(err)
	}
	if g, err = a.Play(ctx, g.ID, 1, "x", sessCell(0, 0)); err != nil { // a caches version 2
		t.Fatal(err)
	}
	if _, err = b.Play(ctx, g.ID, 2, "o", sessCell(1, 1)); err != nil { // now at 3, behind a's back
		t.Fatal(err)
	}
	steps := []struct {
		name    string
		version int64
		by      string
		cell    [2]int
		want    error
	}{
		// On a's cached version 2 this move is legal; the compare-and-set refuses it.
		{"legal on the stale board", 2, "o", [2]int{2, 2}, persistence.ErrConflict},
		// On version 2 x is not to move; the stored game is at 3, so the answer is a conflict.
		{"refused on the stale board", 2, "x", [2]int{2, 2}, persistence.ErrConflict},
		{"taken cell on the stale board", 2, "o", [2]int{0, 0}, persistence.ErrConflict},
		{"at the current version", 3, "x", [2]int{0, 1}, nil},
		{"not your turn, current", 4, "x", [2]int{0, 2}, persistence.ErrNotYourTurn},
		{"cell taken, current", 4, "o", [2]int{0, 1}, persistence.ErrInvalid},
		{"from the other store at its stale version", 3, "o", [2]int{2, 2}, persistence.ErrConflict},
		{"from the other store, current", 4, "o", [2]int{2, 2}, nil},
	}
	for _, st := range steps {
		s := a
		if st.name == "from the other store at its stale version" || st.name == "from the other store, current" {
			s = b
		}
		_, err := s.Play(ctx, g.ID, st.version, st.by, sessCell(st.cell[0], st.cell[1]))
		if st.want == nil && err != nil || st.want != nil && !errors.Is(err, st.want) {
			t.Fatalf("%s: %v, want %v", st.name, err, st.want)
		}
	}
	got, err := a.Game(ctx, g.ID)
	if err != nil || got.Version != 5 || len(got.Moves) != 4 {
		t.Fatalf("reloaded %+v, %v; want version 5 with 4 moves", got, err)
	}
}

// TestSessionCacheTimeout checks that a move after the clock ran out loses
// on time also when the Store has the game cached (no load).
func TestSessionCacheTimeout(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	ng := sessHumanGame("x", "o")
	ng.TurnTime = 30 * time.Second
	g, err := e.store.CreateGame(ctx, "c1", ng)
	if err != nil {
		t.Fatal(err)
	}
	e.clk.Advance(31 * time.Second)
	got, err := e.store.Play(ctx, g.ID, 1, "x", sessCell(0, 0))
	if !errors.Is(err, persistence.ErrTimedOut) || got == nil || got.Status != persistence.StatusFinished || got.End != persistence.ByTimeout {
		t.Fatalf("late move: %+v, %v; want the game lost on time", got, err)
	}
	if _, err := e.store.Play(ctx, g.ID, got.Version, "o", sessCell(1, 1)); !errors.Is(err, persistence.ErrNotLive) {
		t.Fatalf("move in the finished game: %v, want ErrNotLive", err)
	}
}

// TestMovesAfterScriptFlush checks that moves sent together in a pipeline
// survive Redis forgetting the script (a restart, a failover): every one
// falls back to EVAL and is applied once.
func TestMovesAfterScriptFlush(t *testing.T) {
	e := newSessEnv(t, persistence.Options{MaxPipelines: 1})
	ctx := sessCtx(t)
	const games = 64
	ids := make([]persistence.GameID, games)
	for i := range ids {
		g, err := e.store.CreateGame(ctx, fmt.Sprintf("c%d", i), sessHumanGame(fmt.Sprintf("x%d", i), fmt.Sprintf("o%d", i)))
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = g.ID
	}
	for round := range 2 {
		if err := e.rdb.ScriptFlush(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, games)
		for i := range games {
			wg.Go(func() {
				by := fmt.Sprintf("x%d", i)
				if round == 1 {
					by = fmt.Sprintf("o%d", i)
				}
				_, errs[i] = e.store.Play(ctx, ids[i], int64(round+1), by, sessCell(round, 0))
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, game %d: %v", round, i, err)
			}
		}
	}
	for i, id := range ids {
		if g, err := e.store.Game(ctx, id); err != nil || g.Version != 3 || len(g.Moves) != 2 {
			t.Fatalf("game %d: %+v, %v", i, g, err)
		}
	}
	t.Logf("%d pipelines", persistence.PipelinesForTest(e.store))
}

// TestSessionCacheOffAndOn runs the same short game with the cache on and
// off and gets the same sessions back.
func TestSessionCacheOffAndOn(t *testing.T) {
	for _, size := range []int{-1, 0, 1} {
		t.Run(fmt.Sprintf("SessionCache=%d", size), func(t *testing.T) {
			e := newSessEnv(t, persistence.Options{SessionCache: size})
			ctx := sessCtx(t)
			g, err := e.store.CreateGame(ctx, "c1", sessHumanGame("x", "o"))
			if err != nil {
				t.Fatal(err)
			}
			other, err := e.store.CreateGame(ctx, "c2", sessHumanGame("x", "o"))
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range [][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2}} {
				by := [2]string{"x", "o"}[i%2]
				// Interleave the two games so a one-entry cache keeps evicting.
				if other, err = e.store.Play(ctx, other.ID, other.Version, by, sessCell(c[0], c[1])); err != nil {
					t.Fatal(err)
				}
				if g, err = e.store.Play(ctx, g.ID, g.Version, by, sessCell(c[0], c[1])); err != nil {
					t.Fatal(err)
				}
			}
			for _, id := range []persistence.GameID{g.ID, other.ID} {
				got, err := e.store.Game(ctx, id)
				if err != nil || got.Status != persistence.StatusFinished || got.End != persistence.ByWin || got.Version != 6 {
					t.Fatalf("%s: %+v, %v", id, got, err)
				}
			}
		})
	}
}
