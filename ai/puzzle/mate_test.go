package puzzle

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
)

// TestMateMatchesBruteForce checks the search for the length of a win
// against brute force: on every reachable position of 3x3k3 and 4x3xox,
// and on sampled positions of the larger presets, wherever the side to
// move wins, it must find the fastest win among the winning moves, and
// no win within one ply less.
func TestMateMatchesBruteForce(t *testing.T) {
	tests := []struct {
		rules   string
		samples int // 0: every reachable position, else random ones
		marks   int // marks on a sampled position, by random play
	}{
		{rules: "3x3k3"},
		{rules: "4x3xox"},
		{rules: "4x4k3", samples: 300, marks: 7},
		{rules: "4x4k4", samples: 300, marks: 8},
		{rules: "5x5k4", samples: 300, marks: 16},
		{rules: "5x5k5", samples: 300, marks: 16},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.rules, func(t *testing.T) {
			r := mustRules(t, tt.rules)
			b := brute{}
			checked := 0
			check := func(p game.Position) {
				if p.Over() {
					return
				}
				if v, _ := b.solve(p); v != 1 {
					return
				}
				winning, want := b.winning(p)
				m := newMate(r, p.ToMove(), 0)
				got, err := m.fastest(ctx, p, winning, p.Empty().Count())
				if err != nil || got != want {
					t.Fatalf("%s: fastest win %d, %v; brute force says %d", p, got, err, want)
				}
				// A fresh search capped one ply short finds nothing.
				if got, err := newMate(r, p.ToMove(), 0).fastest(ctx, p, winning, want-1); err != nil || got != 0 {
					t.Fatalf("%s: found a win in %d within %d plies; brute force says %d", p, got, want-1, want)
				}
				checked++
			}
			if tt.samples == 0 {
				reachable(game.NewPosition(r), map[game.Key]bool{}, check)
			} else {
				rng := rand.New(rand.NewPCG(uint64(len(tt.rules)), 7))
				for range tt.samples {
					p := game.NewPosition(r)
					for p.Ply() < tt.marks && !p.Over() {
						p = p.Apply(p.Moves().Cells()[rng.IntN(p.Moves().Count())])
					}
					check(p)
				}
			}
			if checked == 0 {
				t.Fatal("no won position checked")
			}
			t.Logf("%d won positions checked", checked)
		})
	}
}

// TestMateBudget checks that a search out of nodes says so and never
// answers with a guess, and that a larger budget gives the same answer as
// none.
func TestMateBudget(t *testing.T) {
	ctx := context.Background()
	p := mustPosition(t, "5x5k4", "-----/--O--/---X-/----O/----X") // X wins in 7 with c3 only
	winning := mustCells(t, p.Rules(), "c3")
	if _, err := newMate(p.Rules(), game.X, 10).fastest(ctx, p, winning, 25); !errors.Is(err, errBudget) {
		t.Fatalf("10 nodes: error %v, want errBudget", err)
	}
	free := newMate(p.Rules(), game.X, 0)
	want, err := free.fastest(ctx, p, winning, 25)
	if err != nil || want != 7 {
		t.Fatalf("no budget: %d, %v; want 7", want, err)
	}
	if got, err := newMate(p.Rules(), game.X, free.nodes).fastest(ctx, p, winning, 25); err != nil || got != want {
		t.Fatalf("budget of %d nodes: %d, %v; want %d", free.nodes, got, err, want)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	m := newMate(p.Rules(), game.X, 0)
	if _, err := m.fastest(cancelled, p, winning, 25); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: error %v", err)
	}
	// A deadline in the middle of a long search: every first move on an
	// empty 8x8 board, up to 40 plies deep.
	open := game.NewPosition(mustRules(t, "8x8k5"))
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	m = newMate(open.Rules(), game.X, 0)
	if got, err := m.fastest(short, open, open.Moves().Cells(), 40); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("deadline: %d, %v after %d nodes", got, err, m.nodes)
	}
}
