package ai

import (
	"context"
	"slices"
	"testing"

	"github.com/tttbot/ttt-bot/game"
)

// TestProveWithinAgreesWithSolver: along seeded games on boards the solver
// settles, ProveWithin's value, every move's value and its best moves are
// the solver's wherever it proves them (within 50,000 nodes), and it
// proves at least a third of the positions.
func TestProveWithinAgreesWithSolver(t *testing.T) {
	var tried, proved int
	for _, rs := range []string{"4x4k3", "5x5k4", "6x5k5", "6x6k4"} {
		r := searchRules(t, rs)
		for seed := range 2 {
			p := game.NewPosition(r)
			for ply := 0; !p.Over() && ply < 6; ply++ {
				got, ok, err := NewSolver().ProveWithin(context.Background(), p, 50_000)
				if err != nil {
					t.Fatal(err)
				}
				tried++
				if ok {
					proved++
					want, err := NewSolver().Solve(context.Background(), p)
					if err != nil {
						t.Fatal(err)
					}
					if got.Value != want.Value || !slices.Equal(got.Best, want.Best) {
						t.Fatalf("%s %s: proved %s best %v, solver %s best %v", rs, p, got.Value, got.Best, want.Value, want.Best)
					}
					for _, mv := range got.Moves {
						if w := moveOf(want, mv.Cell); w.Value != mv.Value {
							t.Fatalf("%s %s: %s proved %s, solver %s", rs, p, mv.Cell, mv.Value, w.Value)
						}
					}
				}
				free := p.Moves().Cells()
				p = p.Apply(free[(seed*5+ply*11+1)%len(free)])
			}
		}
	}
	t.Logf("proved %d of %d positions", proved, tried)
	if proved*3 < tried {
		t.Errorf("proved %d of %d positions, want at least a third", proved, tried)
	}
}

func moveOf(a Analysis, c game.Cell) MoveValue {
	for _, mv := range a.Moves {
		if mv.Cell == c {
			return mv
		}
	}
	return MoveValue{}
}

// TestProveWithinBigBoards: on 6x6k5 and 7x6k5, where the solver does not
// finish, ProveWithin values every first move of X (each keeps the draw),
// with the same result twice.
func TestProveWithinBigBoards(t *testing.T) {
	for _, tc := range []struct {
		rules string
		want  game.Result
	}{{"6x6k5", game.Draw}, {"7x6k5", game.Draw}} {
		p := game.NewPosition(searchRules(t, tc.rules))
		a, ok, err := NewSolver().ProveWithin(context.Background(), p, 2_000_000)
		if err != nil || !ok {
			t.Fatalf("%s: ok %v, err %v", tc.rules, ok, err)
		}
		if a.Value != tc.want || len(a.Moves) != p.Moves().Count() || len(a.Best) == 0 {
			t.Errorf("%s: %s, %d moves, best %v", tc.rules, a.Value, len(a.Moves), a.Best)
		}
		b, _, _ := NewSolver().ProveWithin(context.Background(), p, 2_000_000)
		if !slices.Equal(a.Moves, b.Moves) || a.Nodes != b.Nodes {
			t.Errorf("%s: two calls differ", tc.rules)
		}
		t.Logf("%s: %s, best %v, %d nodes", tc.rules, a.Value, a.Best, a.Nodes)
	}
}
