package ai

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
)

// reachable returns every position reachable from the empty board of r,
// in a fixed order.
func reachable(r game.Rules) []game.Position {
	seen := map[game.Key]bool{}
	var out []game.Position
	var walk func(p game.Position)
	walk = func(p game.Position) {
		if seen[p.Key()] {
			return
		}
		seen[p.Key()] = true
		out = append(out, p)
		for m := p.Moves(); m != 0; m &= m - 1 {
			walk(p.Apply(m.First()))
		}
	}
	walk(game.NewPosition(r))
	return out
}

func TestPerfectChoicesMatchPerfect(t *testing.T) {
	for _, rs := range []string{"3x3k3", "4x3xox"} {
		t.Run(rs, func(t *testing.T) {
			r := rules(t, rs)
			// Every 3x3 position; a spread sample of the slower X-O-X ones.
			all, step := reachable(r), 1
			if rs == "4x3xox" {
				step = 10
			}
			if testing.Short() {
				step *= 4
			}
			var ps []game.Position
			for i := 0; i < len(all); i += step {
				ps = append(ps, all[i])
			}
			ctx := context.Background()
			s := NewSolver()
			pf := newTestPerfect(t, Options{Budget: time.Hour})
			for _, p := range ps {
				if p.Over() {
					continue
				}
				a, got, err := s.PerfectChoices(ctx, p, 0)
				if err != nil {
					t.Fatal(err)
				}
				pa, err := pf.solver.Solve(ctx, p)
				if err != nil {
					t.Fatal(err)
				}
				want := pf.choose(ctx, p, pa, time.Now().Add(time.Hour))
				if !slices.Equal(got, want) {
					t.Fatalf("%s: choices %v, perfect chooses among %v", p, got, want)
				}
				if !slices.Equal(a.Best, pa.Best) || a.Value != pa.Value {
					t.Fatalf("%s: analysis %v %v, want %v %v", p, a.Value, a.Best, pa.Value, pa.Best)
				}
				for _, c := range got {
					if !slices.Contains(a.Best, c) {
						t.Fatalf("%s: choice %s does not keep the value %s", p, c, a.Value)
					}
				}
			}
		})
	}
}

func TestPerfectChoicesNodeBudget(t *testing.T) {
	// A small budget cuts the opponent-model search short, but the same
	// budget gives the same answer whatever the solver's table holds.
	r := rules(t, "4x4k4")
	p := game.NewPosition(r)
	for _, c := range []game.Cell{game.NewCell(1, 1), game.NewCell(2, 2)} {
		p = p.Apply(c)
	}
	ctx := context.Background()
	warm := NewSolver()
	if _, err := warm.Solve(ctx, game.NewPosition(r)); err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int64{256, 5000, 50_000} {
		_, a, err := NewSolver().PerfectChoices(ctx, p, budget)
		if err != nil {
			t.Fatal(err)
		}
		_, b, err := warm.PerfectChoices(ctx, p, budget)
		if err != nil {
			t.Fatal(err)
		}
		if len(a) == 0 || !slices.Equal(a, b) {
			t.Errorf("budget %d: fresh solver chooses among %v, warm one among %v", budget, a, b)
		}
	}
}

func TestPerfectChoicesWithoutModel(t *testing.T) {
	// A negative budget keeps the fastest wins, or every drawing move.
	tests := []struct {
		rules, pos string
		want       []game.Cell
	}{
		// X wins at once on c1; other moves that still win are slower.
		{"3x3k3", "XX./OO./...", []game.Cell{game.NewCell(0, 2)}},
		// A drawn position: every move that keeps the draw.
		{"3x3k3", "X../.O./...", nil},
	}
	for _, tt := range tests {
		p := mustPosition(t, tt.rules, tt.pos)
		a, got, err := NewSolver().PerfectChoices(context.Background(), p, -1)
		if err != nil {
			t.Fatal(err)
		}
		want := tt.want
		if want == nil {
			want = a.Best
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: choices %v, want %v", tt.pos, got, want)
		}
	}
}

func TestPerfectChoicesContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := NewSolver().PerfectChoices(ctx, game.NewPosition(game.Classic()), 0); err == nil {
		t.Error("no error with a cancelled context")
	}
	// A finished game has no choices.
	p := mustPosition(t, "3x3k3", "XXX/OO./...")
	a, c, err := NewSolver().PerfectChoices(context.Background(), p, 0)
	if err != nil || len(c) != 0 || a.Value != game.XWins {
		t.Errorf("finished game: %v %v %v", a.Value, c, err)
	}
}

func TestMCTSRoot(t *testing.T) {
	m := newTestMCTS(t, Options{Iterations: 2000, Budget: time.Hour, Seed: 3})
	if m.Root() != nil {
		t.Error("Root before any search is not nil")
	}
	p := game.NewPosition(rules(t, "5x5k4"))
	c, err := m.Move(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	root := m.Root()
	if len(root) != p.Moves().Count() {
		t.Fatalf("%d root moves, want %d", len(root), p.Moves().Count())
	}
	sum, most := 0, root[0]
	var cells game.Bitboard
	for _, mv := range root {
		sum += mv.Visits
		cells = cells.With(mv.Cell)
		if mv.Visits > most.Visits {
			most = mv
		}
		if mv.Value < 0 || mv.Value > 1 {
			t.Errorf("%s: value %g", mv.Cell, mv.Value)
		}
	}
	if cells != p.Moves() || sum > m.Stats().Visits || sum < m.Stats().Iterations-1 {
		t.Errorf("root cells %v, visits %d of %d", cells.Cells(), sum, m.Stats().Visits)
	}
	if most.Cell != c {
		t.Errorf("played %s, most visited %s", c, most.Cell)
	}

	// A win in one is proven.
	p = mustPosition(t, "3x3k3", "XX./OO./...")
	if _, err := m.Move(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	for _, mv := range m.Root() {
		if mv.Cell == game.NewCell(0, 2) && (mv.Result != game.XWins || mv.Value != 1) {
			t.Errorf("winning move: %+v", mv)
		}
	}
}
