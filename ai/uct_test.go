package ai

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

func newTestUCT(t testing.TB, o Options) *UCT {
	t.Helper()
	u, err := NewUCT(o)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestUCTIsTextbook checks the yardstick's settings and that the bot never
// offers it.
func TestUCTIsTextbook(t *testing.T) {
	u := newTestUCT(t, Options{Exploration: 0.1, Load: 1, Iterations: 1000})
	if u.c != 1.4142135623730951 || u.iterations != 1000 {
		t.Errorf("c = %g, iterations %d; want sqrt 2 and 1000 whatever the options", u.c, u.iterations)
	}
	if slices.Contains(NewRegistry().Names(), "uct") {
		t.Error("uct is a built-in level; it must only be registered for measurements")
	}
	if _, err := NewUCT(Options{Iterations: -1}); !errors.Is(err, ErrBadOption) {
		t.Errorf("negative iterations: error = %v, want ErrBadOption", err)
	}
}

// TestUCTPlays checks legal, seeded games and a tree of one node a
// iteration plus the children of the expanded ones.
func TestUCTPlays(t *testing.T) {
	play := func(seed uint64) string {
		x := newTestUCT(t, Options{Seed: seed, Iterations: 300, Budget: time.Hour})
		o := newTestUCT(t, Options{Seed: seed + 1, Iterations: 300, Budget: time.Hour})
		return selfPlay(t, mctsPosition(t, "5x5k4", ""), x, o, func(pl Player) {
			if r := pl.(*UCT).nodes[0]; r.visits != 300 {
				t.Fatalf("root visits %d after 300 iterations", r.visits)
			}
		})
	}
	if a, b := play(1), play(1); a != b {
		t.Errorf("seed 1 gave two games:\n%s\n%s", a, b)
	}
	u := newTestUCT(t, Options{Seed: 1})
	if _, err := u.Move(context.Background(), mctsPosition(t, "3x3k3", "XXX/OO-/---")); !errors.Is(err, ErrNoMoves) {
		t.Errorf("finished game: error = %v, want ErrNoMoves", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	u = newTestUCT(t, Options{Seed: 1, Iterations: 1 << 30, Budget: time.Hour})
	start := time.Now()
	if _, err := u.Move(ctx, mctsPosition(t, "8x8k5", "")); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 200*time.Millisecond {
		t.Errorf("a 20ms deadline took %s", took)
	}
}
