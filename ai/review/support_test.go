package review_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/game"
)

// TestSolveWithin checks the solver calls the reviewer is built on
// (ai.Solver.SolveWithin and ValuesWithin, in ai/review_support.go)
// against Solve.
func TestSolveWithin(t *testing.T) {
	var positions []game.Position
	positions = append(positions, reachable(rules(t, "3x3k3"))...)
	rng := rand.New(rand.NewPCG(4, 4))
	for _, rs := range []string{"4x4k4", "4x3xox", "4x4k3"} {
		r := rules(t, rs)
		for range 40 {
			p := game.NewPosition(r)
			for _, c := range randomGame(p, rng, 1+rng.IntN(r.Size()-1)) {
				p = p.Apply(c)
			}
			positions = append(positions, p)
		}
	}
	ctx := context.Background()
	s := ai.NewSolver()
	for _, p := range positions {
		want, err := ai.NewSolver().Solve(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		got, ok, err := s.SolveWithin(ctx, p, -1)
		if !ok || err != nil {
			t.Fatalf("%s: SolveWithin %v, %v", p, ok, err)
		}
		vals, ok, err := s.ValuesWithin(ctx, p, -1)
		if !ok || err != nil {
			t.Fatalf("%s: ValuesWithin %v, %v", p, ok, err)
		}
		if got.Value != want.Value || !slices.Equal(got.Best, want.Best) || vals.Value != want.Value || !slices.Equal(vals.Best, want.Best) {
			t.Fatalf("%s: values %s %v and %s %v, want %s %v", p, got.Value, got.Best, vals.Value, vals.Best, want.Value, want.Best)
		}
		if len(got.Moves) != len(want.Moves) || len(vals.Moves) != len(want.Moves) {
			t.Fatalf("%s: %d and %d moves, want %d", p, len(got.Moves), len(vals.Moves), len(want.Moves))
		}
		wantMove := map[game.Cell]ai.MoveValue{}
		for _, mv := range want.Moves {
			wantMove[mv.Cell] = mv
		}
		for i, mv := range got.Moves {
			w := wantMove[mv.Cell]
			if mv.Value != w.Value || mv.Value == want.Value && mv.Plies != w.Plies {
				t.Errorf("%s: SolveWithin move %+v, want %+v", p, mv, w)
			}
			if i > 0 && got.Moves[i-1].Value != want.Value && mv.Value == want.Value {
				t.Errorf("%s: SolveWithin's moves are not best first: %+v", p, got.Moves)
			}
		}
		for i, mv := range vals.Moves {
			w := wantMove[mv.Cell]
			plies := 0
			if p.Apply(mv.Cell).Over() || w.Value == game.Draw {
				plies = w.Plies
			}
			if mv.Value != w.Value || mv.Plies != plies || i > 0 && mv.Cell < vals.Moves[i-1].Cell {
				t.Errorf("%s: ValuesWithin move %d %+v, want %+v in %d", p, i, mv, w, plies)
			}
		}
	}
}

// TestSolveWithinBudget checks that a budget too small refuses without an
// error, and that a cancelled context is an error.
func TestSolveWithinBudget(t *testing.T) {
	p := game.NewPosition(rules(t, "5x5k4"))
	s := ai.NewSolver()
	for _, n := range []int64{1, 1000, 50_000} {
		if a, ok, err := s.SolveWithin(context.Background(), p, n); ok || err != nil || a.Moves != nil {
			t.Errorf("budget %d: %v, %v", n, ok, err)
		}
		s.Reset()
		if _, ok, err := s.ValuesWithin(context.Background(), p, n); ok || err != nil {
			t.Errorf("budget %d: %v, %v", n, ok, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, ok, err := s.SolveWithin(ctx, p, 1000); ok || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, %v", ok, err)
	}
	// A small position fits a small budget.
	q, err := game.ParsePosition(rules(t, "5x5k4"), "XXO--/OOX--/XXO--/OXOXO/XOXOX")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.SolveWithin(context.Background(), q, 5000); !ok || err != nil {
		t.Errorf("small position: %v, %v", ok, err)
	}
}
