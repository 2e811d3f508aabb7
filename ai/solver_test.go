package ai

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
)

// searchRules parses rules notation or fails the test.
func searchRules(t testing.TB, s string) game.Rules {
	t.Helper()
	r, err := game.ParseRules(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// searchPosition parses a position or fails the test.
func searchPosition(t testing.TB, rules, pos string) game.Position {
	t.Helper()
	p, err := game.ParsePosition(searchRules(t, rules), pos)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSolverKnownValues(t *testing.T) {
	tests := []struct {
		rules string
		want  game.Result
	}{
		{"3x3k3", game.Draw},
		{"4x3k3", game.XWins},
		{"3x4k3", game.XWins},
		{"4x4k3", game.XWins},
		{"4x4k4", game.Draw},
		{"5x4k4", game.Draw},
		{"5x5k4", game.Draw},
		{"5x5k5", game.Draw},
		{"4x3xox", game.XWins},
		{"3x3xox", game.Draw},
	}
	for _, tt := range tests {
		t.Run(tt.rules, func(t *testing.T) {
			s := NewSolver()
			p := game.NewPosition(searchRules(t, tt.rules))
			v, err := s.Value(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if v != tt.want {
				t.Errorf("Value = %s, want %s", v, tt.want)
			}
			if p.Rules().Size() <= 12 {
				// Small enough to confirm the table with brute force.
				bv, _ := bruteValue(p, map[game.Key][2]int{})
				if b := bruteResult(bv, game.X); b != tt.want {
					t.Errorf("brute force gives %s, the table says %s", b, tt.want)
				}
			}
		})
	}
}

// bruteValue is a plain negamax over game.Position with no pruning beyond
// memoisation: the value for the side to move (1 win, 0 draw, -1 loss) and
// the plies to the end under best play (fastest win, slowest loss).
func bruteValue(p game.Position, memo map[game.Key][2]int) (int, int) {
	if v, ok := memo[p.Key()]; ok {
		return v[0], v[1]
	}
	if p.Over() {
		switch p.Outcome().Winner() {
		case game.Empty:
			return 0, 0
		case p.ToMove():
			return 1, 0 // X-O-X: the side that just moved lost
		}
		return -1, 0
	}
	best, plies := -2, 0
	for m := p.Moves(); m != 0; m &= m - 1 {
		v, n := bruteValue(p.Apply(m.First()), memo)
		v, n = -v, n+1
		better := v > best ||
			v == best && v > 0 && n < plies ||
			v == best && v < 0 && n > plies
		if better {
			best, plies = v, n
		}
	}
	memo[p.Key()] = [2]int{best, plies}
	return best, plies
}

// bruteResult turns a brute-force value for the side to move into a result.
func bruteResult(v int, toMove game.Mark) game.Result {
	switch {
	case v > 0:
		return winOf(toMove == game.X)
	case v < 0:
		return winOf(toMove != game.X)
	}
	return game.Draw
}

// checkAgainstBrute solves p and compares every figure with brute force.
func checkAgainstBrute(t *testing.T, s *Solver, p game.Position, memo map[game.Key][2]int) {
	t.Helper()
	a, err := s.Solve(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := bruteValue(p, memo)
	if p.Over() {
		if a.Value != p.Outcome().Result || len(a.Moves) != 0 || len(a.Best) != 0 {
			t.Errorf("%s (over): got %+v", p, a)
		}
		return
	}
	if want := bruteResult(v, p.ToMove()); a.Value != want {
		t.Fatalf("%s: Value = %s, want %s", p, a.Value, want)
	}
	if len(a.Moves) != p.Moves().Count() {
		t.Fatalf("%s: %d move values for %d moves", p, len(a.Moves), p.Moves().Count())
	}
	var best game.Bitboard
	for _, mv := range a.Moves {
		q := p.Apply(mv.Cell)
		cv, n := bruteValue(q, memo)
		want := bruteResult(cv, q.ToMove())
		if q.Over() {
			want = q.Outcome().Result
		}
		if mv.Value != want {
			t.Fatalf("%s: move %s: Value = %s, want %s", p, mv.Cell, mv.Value, want)
		}
		if mv.Plies != n+1 {
			t.Fatalf("%s: move %s: Plies = %d, want %d", p, mv.Cell, mv.Plies, n+1)
		}
		if mv.Value == a.Value {
			best = best.With(mv.Cell)
		}
	}
	if got := fmt.Sprint(a.Best); got != fmt.Sprint(best.Cells()) {
		t.Fatalf("%s: Best = %s, want %s", p, got, fmt.Sprint(best.Cells()))
	}
	if first := a.Moves[0].Value; first != a.Value {
		t.Fatalf("%s: first move has value %s, not the position's %s", p, first, a.Value)
	}
}

func TestSolverMatchesBruteForce3x3(t *testing.T) {
	r := game.Classic()
	s := NewSolver()
	memo := map[game.Key][2]int{}
	seen := map[game.Key]bool{}
	var walk func(p game.Position)
	walk = func(p game.Position) {
		if seen[p.Key()] {
			return
		}
		seen[p.Key()] = true
		checkAgainstBrute(t, s, p, memo)
		for m := p.Moves(); m != 0; m &= m - 1 {
			walk(p.Apply(m.First()))
		}
	}
	walk(game.NewPosition(r))
	if len(seen) != 5478 {
		t.Errorf("checked %d positions, want all 5478", len(seen))
	}
}

func TestSolverMatchesBruteForceXOX(t *testing.T) {
	r := searchRules(t, "4x3xox")
	s := NewSolver()
	memo := map[game.Key][2]int{}
	// A deterministic sample: every position reached by a fixed stride
	// through the game tree's move lists, fresh solver every few so that
	// cold and warm tables are both exercised.
	seen := map[game.Key]bool{}
	var walk func(p game.Position, path int)
	n := 0
	walk = func(p game.Position, path int) {
		if seen[p.Key()] {
			return
		}
		seen[p.Key()] = true
		if path%7 == 0 || p.Ply() <= 3 {
			n++
			if n%50 == 0 {
				s = NewSolver()
			}
			checkAgainstBrute(t, s, p, memo)
		}
		for i, c := range p.Moves().Cells() {
			if p.Ply() < 4 || (path+i)%3 == 0 {
				walk(p.Apply(c), path*3+i+1)
			}
		}
	}
	walk(game.NewPosition(r), 0)
	if n < 500 {
		t.Errorf("checked only %d positions", n)
	}
	t.Logf("checked %d positions", n)
}

func TestSolverHonoursContext(t *testing.T) {
	s := NewSolver()
	p := game.NewPosition(searchRules(t, "7x7k5"))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := s.Solve(ctx, p)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Solve err = %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("Solve took %s after a 20ms deadline", d)
	}
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	if _, err := s.Solve(ctx, p); !errors.Is(err, context.Canceled) {
		t.Errorf("Solve with a cancelled context: err = %v, want context.Canceled", err)
	}
	// The table must survive an interrupted search: a later solve is right.
	q := game.NewPosition(game.Classic())
	if v, err := s.Value(context.Background(), q); err != nil || v != game.Draw {
		t.Errorf("Value after cancel = %s, %v; want draw", v, err)
	}
}

func TestSolverFinishedAndBadPositions(t *testing.T) {
	s := NewSolver()
	p := searchPosition(t, "3x3k3", "XXX/OO-/---")
	a, err := s.Solve(context.Background(), p)
	if err != nil || a.Value != game.XWins || a.Moves != nil || a.Best != nil {
		t.Errorf("Solve(finished) = %+v, %v", a, err)
	}
	if _, err := s.Solve(context.Background(), game.Position{}); !errors.Is(err, game.ErrBadRules) {
		t.Errorf("Solve(zero position) err = %v, want ErrBadRules", err)
	}
}

func ExampleSolver_Solve() {
	r, _ := game.ParseRules("3x3k3")
	p, _ := game.ParsePosition(r, "X-O/-X-/---") // O must block at c3
	a, err := NewSolver().Solve(context.Background(), p)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("value:", a.Value, "best:", a.Best)
	for _, mv := range a.Moves[:3] {
		fmt.Println(mv.Cell, mv.Value, mv.Plies)
	}
	// Output:
	// value: draw best: [c3]
	// c3 draw 6
	// b1 X wins 2
	// a2 X wins 2
}

func BenchmarkSolve(b *testing.B) {
	for _, rules := range []string{"3x3k3", "4x4k3", "4x4k4", "5x4k4", "5x5k4", "4x3xox", "6x6k4"} {
		b.Run(rules, func(b *testing.B) {
			p := game.NewPosition(searchRules(b, rules))
			var nodes int64
			for b.Loop() {
				s := NewSolver()
				if _, err := s.Value(context.Background(), p); err != nil {
					b.Fatal(err)
				}
				nodes = s.nodes
			}
			b.ReportMetric(float64(nodes), "nodes")
		})
	}
}

func BenchmarkSolveAllMoves(b *testing.B) {
	for _, rules := range []string{"3x3k3", "4x4k3", "4x4k4", "5x5k4", "5x5k5", "4x3xox"} {
		b.Run(rules, func(b *testing.B) {
			p := game.NewPosition(searchRules(b, rules))
			var nodes int64
			for b.Loop() {
				a, err := NewSolver().Solve(context.Background(), p)
				if err != nil {
					b.Fatal(err)
				}
				nodes = a.Nodes
			}
			b.ReportMetric(float64(nodes), "nodes")
		})
	}
}

// TestSolverMatchesBruteForceSampled checks the solver, pairing proofs and
// all, against brute force on positions of larger boards reached by seeded
// random play, late enough for brute force to be quick.
func TestSolverMatchesBruteForceSampled(t *testing.T) {
	tests := []struct {
		rules   string
		empties int // free cells left in the sampled positions
		n       int
	}{
		{"4x3k3", 8, 40},
		{"4x4k3", 9, 40},
		{"4x4k4", 10, 40},
		{"5x4k4", 10, 30},
		{"5x5k4", 10, 20},
		{"5x5k5", 10, 20},
		{"6x6k4", 9, 10},
		{"5x4xox", 9, 30},
	}
	for _, tt := range tests {
		t.Run(tt.rules, func(t *testing.T) {
			r := searchRules(t, tt.rules)
			rnd := NewRandom(Options{Seed: 42})
			s := NewSolver()
			memo := map[game.Key][2]int{}
			for found := 0; found < tt.n; {
				p := game.NewPosition(r)
				for !p.Over() && p.Empty().Count() > tt.empties {
					c, err := rnd.Move(context.Background(), p)
					if err != nil {
						t.Fatal(err)
					}
					p = p.Apply(c)
				}
				if p.Over() {
					continue
				}
				found++
				checkAgainstBrute(t, s, p, memo)
			}
		})
	}
}

// TestSolverRootMoveKeepsTheValue checks the move Perfect plays when only
// the value of a position was solved in time.
func TestSolverRootMoveKeepsTheValue(t *testing.T) {
	for _, tt := range []struct {
		rules string
		games int
	}{{"3x3k3", 40}, {"4x4k4", 20}, {"5x5k4", 2}, {"4x3xox", 40}} {
		t.Run(tt.rules, func(t *testing.T) {
			r := searchRules(t, tt.rules)
			rnd := NewRandom(Options{Seed: 11})
			found := 0
			// Persistent tables, as Perfect keeps its solver.
			s, check := NewSolver(), NewSolver()
			for range tt.games {
				p := game.NewPosition(r)
				for !p.Over() {
					if _, err := s.Value(context.Background(), p); err != nil {
						t.Fatal(err)
					}
					if c, ok := s.rootMove(p); ok {
						found++
						a, err := check.Solve(context.Background(), p)
						if err != nil {
							t.Fatal(err)
						}
						keeps := false
						for _, b := range a.Best {
							keeps = keeps || b == c
						}
						if !keeps {
							t.Fatalf("%s: rootMove %s, best are %v", p, c, a.Best)
						}
					}
					c, _ := rnd.Move(context.Background(), p)
					p = p.Apply(c)
				}
			}
			if found == 0 {
				t.Error("rootMove never found a move")
			}
		})
	}
}
