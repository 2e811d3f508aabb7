package review_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/ai/review"
	"github.com/tttbot/ttt-bot/game"
)

// rules parses rules notation or fails the test.
func rules(tb testing.TB, s string) game.Rules {
	tb.Helper()
	r, err := game.ParseRules(s)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// cells parses space-separated cell names or fails the test.
func cells(tb testing.TB, r game.Rules, s string) []game.Cell {
	tb.Helper()
	var out []game.Cell
	for _, f := range strings.Fields(s) {
		c, err := r.ParseCell(f)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// exactValue is the exact Value the reviewer should give result res in
// plies.
func exactValue(res game.Result, plies int) review.Value {
	v := review.Value{Result: res, Plies: plies, Exact: true, Score: 0.5}
	switch res {
	case game.XWins:
		v.Score = 1
	case game.OWins:
		v.Score = 0
	}
	return v
}

// randomGame plays uniformly random legal moves from p, at most n of them
// (n < 0: to the end).
func randomGame(p game.Position, rng *rand.Rand, n int) []game.Cell {
	var moves []game.Cell
	for !p.Over() && n != 0 {
		cs := p.Moves().Cells()
		c := cs[rng.IntN(len(cs))]
		moves = append(moves, c)
		p = p.Apply(c)
		n--
	}
	return moves
}

// reviewOK reviews moves from start or fails the test.
func reviewOK(tb testing.TB, rv *review.Reviewer, start game.Position, moves []game.Cell) *review.Review {
	tb.Helper()
	out, err := rv.Review(context.Background(), start, moves)
	if err != nil {
		tb.Fatalf("Review(%s, %v): %v", start, moves, err)
	}
	return out
}

// checkShape checks what every review must satisfy: values before and
// after each move line up, and the summaries count the verdicts.
func checkShape(t *testing.T, rv *review.Review, start game.Position, moves []game.Cell) {
	t.Helper()
	if len(rv.Moves) != len(moves) || len(rv.Values) != len(moves)+1 {
		t.Fatalf("%d moves and %d values for %d moves", len(rv.Moves), len(rv.Values), len(moves))
	}
	exact := true
	var players [2]review.Summary
	p := start
	for i, m := range rv.Moves {
		if m.Cell != moves[i] || m.Mover != p.ToMove() || m.Ply != p.Ply()+1 {
			t.Errorf("move %d: cell %s mover %s ply %d", i, m.Cell, m.Mover, m.Ply)
		}
		if m.Before != rv.Values[i] || m.After != rv.Values[i+1] {
			t.Errorf("move %d: before %+v after %+v, values %+v %+v", i, m.Before, m.After, rv.Values[i], rv.Values[i+1])
		}
		if m.Exact && (!m.Before.Exact || !m.After.Exact) {
			t.Errorf("move %d: exact with an estimated value", i)
		}
		exact = exact && m.Exact
		s := &players[0]
		if m.Mover == game.O {
			s = &players[1]
		}
		s.Moves++
		s.Count[m.Verdict]++
		if m.Verdict.KeepsValue() {
			s.Kept++
		}
		p = p.Apply(m.Cell)
	}
	for _, v := range rv.Values {
		exact = exact && v.Exact
		if v.Exact != (v.Result != game.Ongoing) {
			t.Errorf("value %+v: Exact and Result disagree", v)
		}
	}
	for i := range players {
		players[i].Accuracy = 1
		if players[i].Moves > 0 {
			players[i].Accuracy = float64(players[i].Kept) / float64(players[i].Moves)
		}
	}
	if players != rv.Players {
		t.Errorf("Players = %+v, want %+v", rv.Players, players)
	}
	if rv.Exact != exact {
		t.Errorf("Exact = %v, want %v", rv.Exact, exact)
	}
}

// reachable returns every reachable unfinished position of r, in the order
// a depth-first walk finds them.
func reachable(r game.Rules) []game.Position {
	seen := map[game.Key]bool{}
	var out []game.Position
	var walk func(p game.Position)
	walk = func(p game.Position) {
		if seen[p.Key()] || p.Over() {
			return
		}
		seen[p.Key()] = true
		out = append(out, p)
		for _, c := range p.Moves().Cells() {
			walk(p.Apply(c))
		}
	}
	walk(game.NewPosition(r))
	return out
}

// TestExhaustive3x3 reviews every legal move of every reachable unfinished
// 3x3 position (a game of one move from that position) and checks the
// verdict, values, best and kept moves and traps against brute force.
func TestExhaustive3x3(t *testing.T) {
	r := rules(t, "3x3k3")
	b := newBrute()
	rv := review.New(review.Options{})
	positions := reachable(r)
	if len(positions) != 4520 {
		t.Fatalf("%d unfinished reachable positions, want 4520", len(positions))
	}
	moves, verdicts := 0, map[string]int{}
	for _, p := range positions {
		for _, c := range p.Moves().Cells() {
			got := reviewOK(t, rv, p, []game.Cell{c})
			m := got.Moves[0]
			want := b.judge(p, c)
			before, after := b.value(p), b.value(p.Apply(c))
			if m.Verdict.String() != want.verdict || !slices.Equal(m.Best, want.best) || !slices.Equal(m.Kept, want.kept) || m.Traps != want.traps || !m.Exact {
				t.Errorf("%s %s: verdict %s best %v kept %v traps %d exact %v; want %s best %v kept %v traps %d",
					p, c, m.Verdict, m.Best, m.Kept, m.Traps, m.Exact, want.verdict, want.best, want.kept, want.traps)
			}
			if m.Before != exactValue(before.res, before.plies) || m.After != exactValue(after.res, after.plies) {
				t.Errorf("%s %s: before %+v after %+v; want %+v and %+v", p, c, m.Before, m.After, before, after)
			}
			moves++
			verdicts[want.verdict]++
		}
	}
	t.Logf("%d positions, %d moves: %v", len(positions), moves, verdicts)
	for _, v := range []string{"best", "good", "inaccuracy", "mistake", "missed-win", "blunder"} {
		if verdicts[v] == 0 {
			t.Errorf("no %s move among them", v)
		}
	}
}

// TestWholeGames3x3 reviews seeded random whole 3x3 games, so that every
// move is judged after the earlier ones have warmed the solver, and
// checks every move against brute force.
func TestWholeGames3x3(t *testing.T) {
	r := rules(t, "3x3k3")
	b := newBrute()
	rv := review.New(review.Options{})
	rng := rand.New(rand.NewPCG(3, 3))
	start := game.NewPosition(r)
	for range 300 {
		moves := randomGame(start, rng, -1)
		got := reviewOK(t, rv, start, moves)
		checkShape(t, got, start, moves)
		if !got.Exact {
			t.Errorf("%v: not exact", moves)
		}
		p := start
		for i, c := range moves {
			want := b.judge(p, c)
			v := b.value(p)
			if m := got.Moves[i]; m.Verdict.String() != want.verdict || !slices.Equal(m.Best, want.best) || m.Traps != want.traps {
				t.Errorf("%v move %d: verdict %s best %v traps %d, want %s %v %d", moves, i, m.Verdict, m.Best, m.Traps, want.verdict, want.best, want.traps)
			}
			if got.Values[i] != exactValue(v.res, v.plies) {
				t.Errorf("%v value %d = %+v, want %+v", moves, i, got.Values[i], v)
			}
			p = p.Apply(c)
		}
		if last := got.Values[len(moves)]; last != exactValue(p.Outcome().Result, 0) {
			t.Errorf("%v: final value %+v", moves, last)
		}
	}
}

// solved is the reference for one position from a direct ai.Solver Solve.
type solved struct {
	a     ai.Analysis
	move  map[game.Cell]ai.MoveValue
	optim int // optimal plies of a kept move in a won or lost position, 0 if unknown
}

// solve solves p with a fresh solver.
func solve(t *testing.T, p game.Position) solved {
	t.Helper()
	a, err := ai.NewSolver().Solve(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	s := solved{a: a, move: map[game.Cell]ai.MoveValue{}}
	for _, mv := range a.Moves {
		s.move[mv.Cell] = mv
	}
	if a.Value == game.Draw {
		return s
	}
	for _, c := range a.Best {
		n := s.move[c].Plies
		if n == 0 {
			s.optim = 0
			break
		}
		if s.optim == 0 || a.Value == winOf(p.ToMove()) && n < s.optim || a.Value != winOf(p.ToMove()) && n > s.optim {
			s.optim = n
		}
	}
	return s
}

// checkAgainstSolver checks an exact review against direct Solve calls on
// each position. With traps set, the traps of every drawing move are
// counted from Solve calls too and must all have been measured; without,
// none may have been.
func checkAgainstSolver(t *testing.T, got *review.Review, start game.Position, moves []game.Cell, traps bool) {
	t.Helper()
	checkShape(t, got, start, moves)
	if !got.Exact {
		t.Fatalf("%s %v: review not exact", start, moves)
	}
	p := start
	for i, c := range moves {
		s := solve(t, p)
		me := p.ToMove()
		// Solve spends its plies budget on every move, the reviewer only
		// on the best ones: where Solve does not know the plies of every
		// best move, the reviewer may know more.
		unsure := s.a.Value != game.Draw && s.optim == 0
		plies := s.optim
		if s.a.Value == game.Draw {
			plies = p.Empty().Count()
		}
		if v := got.Values[i]; v != exactValue(s.a.Value, plies) && (!unsure || v.Result != s.a.Value || !v.Exact) {
			t.Errorf("move %d: before %+v, want %s in %d", i, got.Values[i], s.a.Value, plies)
		}
		m := got.Moves[i]
		if !slices.Equal(m.Kept, s.a.Best) {
			t.Errorf("move %d: kept %v, want %v", i, m.Kept, s.a.Best)
		}
		var best []game.Cell
		wantTraps := -1
		if s.a.Value == game.Draw {
			trap := map[game.Cell]int{}
			top := -1
			for _, k := range s.a.Best {
				if !traps {
					best = append(best, k)
					continue
				}
				q := p.Apply(k)
				n := 0
				if !q.Over() {
					for _, mv := range solve(t, q).a.Moves {
						if mv.Value == winOf(me) {
							n++
						}
					}
				}
				trap[k] = n
				top = max(top, n)
			}
			for _, k := range s.a.Best {
				if n, ok := trap[k]; ok && n == top {
					best = append(best, k)
				}
			}
			if n, ok := trap[c]; ok {
				wantTraps = n
			}
		} else {
			for _, k := range s.a.Best {
				if s.optim == 0 || s.move[k].Plies == s.optim {
					best = append(best, k)
				}
			}
		}
		verdict := expectedVerdict(me, s.a.Value, s.move[c].Value, len(s.a.Moves) == 1, slices.Contains(best, c), s.a.Value != game.Draw)
		if unsure && m.Verdict.String() == "good" && verdict == "best" {
			verdict, best = "good", m.Best
		} else if unsure {
			best = m.Best
		}
		for _, k := range m.Best {
			if !slices.Contains(s.a.Best, k) {
				t.Errorf("move %d: best move %s does not keep the value", i, k)
			}
		}
		if m.Verdict.String() != verdict || !slices.Equal(m.Best, best) || m.Traps != wantTraps {
			t.Errorf("move %d (%s at %s): verdict %s best %v traps %d, want %s %v %d", i, c, p, m.Verdict, m.Best, m.Traps, verdict, best, wantTraps)
		}
		p = p.Apply(c)
	}
	if p.Over() {
		if v := got.Values[len(moves)]; v != exactValue(p.Outcome().Result, 0) {
			t.Errorf("final value %+v", v)
		}
	} else if v := got.Values[len(moves)]; v.Result != solve(t, p).a.Value {
		t.Errorf("final value %+v", v)
	}
}

// TestAgainstSolver reviews seeded random games on larger boards and
// checks them against direct Solve calls. The 5x5 games start from a
// random position a few moves in, where the solver is quick.
func TestAgainstSolver(t *testing.T) {
	tests := []struct {
		rules  string
		games  int
		opened int // random moves played before the reviewed ones
		traps  bool
		opts   review.Options
	}{
		{"4x4k4", 4, 0, true, review.Options{}},
		{"4x4k3", 4, 0, true, review.Options{}},
		{"4x3xox", 4, 0, true, review.Options{}},
		{"5x5k4", 3, 5, false, review.Options{TrapNodes: -1}},
		{"5x5k4", 2, 7, true, review.Options{TrapNodes: 1 << 40}},
		{"5x5k5", 2, 3, false, review.Options{TrapNodes: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.rules, func(t *testing.T) {
			r := rules(t, tt.rules)
			rng := rand.New(rand.NewPCG(uint64(tt.games), uint64(tt.opened)))
			rv := review.New(tt.opts)
			positions := 0
			for range tt.games {
				start := game.NewPosition(r)
				for _, c := range randomGame(start, rng, tt.opened) {
					start = start.Apply(c)
				}
				moves := randomGame(start, rng, -1)
				got := reviewOK(t, rv, start, moves)
				checkAgainstSolver(t, got, start, moves, tt.traps)
				positions += len(moves)
			}
			t.Logf("%d positions", positions)
		})
	}
}

// TestGames checks the summaries, turning point and decisive move of
// hand-written 3x3 games.
func TestGames(t *testing.T) {
	// summary builds a Summary from the counts of best, good, inaccuracy,
	// mistake, missed-win and blunder.
	summary := func(counts ...int) review.Summary {
		var s review.Summary
		for i, n := range counts {
			v := review.Best + review.Verdict(i)
			s.Count[v] = n
			s.Moves += n
			if v.KeepsValue() {
				s.Kept += n
			}
		}
		s.Accuracy = 1
		if s.Moves > 0 {
			s.Accuracy = float64(s.Kept) / float64(s.Moves)
		}
		return s
	}
	tests := []struct {
		name     string
		start    string // "" for the empty board
		moves    string
		verdicts string
		x, o     review.Summary
		turning  int
		decided  int
	}{
		{
			// O's a3 hands X the win (a1 c3 c1 would make two threats);
			// X's a2 lets O's diagonal through instead.
			name:     "blunder",
			moves:    "a1 b2 c3 a3 a2 c1",
			verdicts: "best best inaccuracy mistake blunder best",
			x:        summary(1, 0, 1, 0, 0, 1),
			o:        summary(2, 0, 0, 1),
			turning:  3,
			decided:  4,
		},
		{
			// O's b1 loses to a1 c3 or b2; X's c1 lets it go. Two swings,
			// and the draw holds to the end.
			name:     "missed win",
			moves:    "a1 b1 c1 b2 b3 a2 c2 c3 a3",
			verdicts: "best mistake missed-win best best best best best best",
			x:        summary(4, 0, 0, 0, 1),
			o:        summary(3, 0, 0, 1),
			turning:  1,
			decided:  -1,
		},
		{
			// Opposite corners keep the draw but set fewer traps than
			// the adjacent corner or an edge.
			name:     "draw held",
			moves:    "a1 b2 c3 b1 b3 a3 c1 c2 a2",
			verdicts: "best best inaccuracy best best best best best best",
			x:        summary(4, 0, 1),
			o:        summary(4),
			turning:  -1,
			decided:  -1,
		},
		{
			// Draw, X winning, draw again, and X forgets to block b3.
			name:     "swings twice",
			moves:    "a1 b1 c1 b2 a2 b3",
			verdicts: "best mistake missed-win best mistake best",
			x:        summary(1, 0, 0, 1, 1),
			o:        summary(2, 0, 0, 1),
			turning:  1,
			decided:  4,
		},
		{
			// The centre opening is an inaccuracy; O's edge reply loses.
			name:     "decided early",
			moves:    "b2 a2 a1 c3 b1 c1 b3",
			verdicts: "inaccuracy mistake best best best best best",
			x:        summary(3, 0, 1),
			o:        summary(2, 0, 0, 1),
			turning:  1,
			decided:  1,
		},
		{
			name:     "won from the start",
			start:    "X-X/OO-/---",
			moves:    "b1",
			verdicts: "best",
			x:        summary(1),
			o:        summary(),
			turning:  -1,
			decided:  0,
		},
		{
			name:    "no moves",
			x:       summary(),
			o:       summary(),
			turning: -1,
			decided: -1,
		},
	}
	r := rules(t, "3x3k3")
	rv := review.New(review.Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := game.NewPosition(r)
			if tt.start != "" {
				var err error
				if start, err = game.ParsePosition(r, tt.start); err != nil {
					t.Fatal(err)
				}
			}
			moves := cells(t, r, tt.moves)
			got := reviewOK(t, rv, start, moves)
			checkShape(t, got, start, moves)
			var vs []string
			for _, m := range got.Moves {
				vs = append(vs, m.Verdict.String())
			}
			if v := strings.Join(vs, " "); v != tt.verdicts {
				t.Errorf("verdicts %q, want %q", v, tt.verdicts)
			}
			if got.Players[0] != tt.x || got.Players[1] != tt.o {
				t.Errorf("players %+v, want %+v and %+v", got.Players, tt.x, tt.o)
			}
			if got.TurningPoint != tt.turning || got.Decided != tt.decided {
				t.Errorf("turning point %d decided %d, want %d %d", got.TurningPoint, got.Decided, tt.turning, tt.decided)
			}
			if !got.Exact {
				t.Error("not exact")
			}
		})
	}
}

// TestOpening pins the example of the traps rule: on 3x3 a corner opening
// leaves 7 of O's 8 replies losing, the centre only 4.
func TestOpening(t *testing.T) {
	r := rules(t, "3x3k3")
	rv := review.New(review.Options{})
	corners := cells(t, r, "a1 c1 a3 c3")
	for _, tt := range []struct {
		move    string
		verdict review.Verdict
		traps   int
	}{
		{"a1", review.Best, 7},
		{"b2", review.Inaccuracy, 4},
		{"b1", review.Inaccuracy, 4},
	} {
		m := reviewOK(t, rv, game.NewPosition(r), cells(t, r, tt.move)).Moves[0]
		if m.Verdict != tt.verdict || m.Traps != tt.traps || !slices.Equal(m.Best, corners) || len(m.Kept) != 9 {
			t.Errorf("%s: %s with %d traps, best %v, %d kept; want %s with %d traps, best the corners",
				tt.move, m.Verdict, m.Traps, m.Best, len(m.Kept), tt.verdict, tt.traps)
		}
	}
}

// TestEstimates reviews with a budget too small for the solver, so that
// every value is estimated, and checks that nothing claims exactness and
// that the review is reproducible.
func TestEstimates(t *testing.T) {
	tests := []struct {
		rules string
		moves int
	}{
		{"5x5k4", 10},
		{"7x7k5", 14},
	}
	for _, tt := range tests {
		t.Run(tt.rules, func(t *testing.T) {
			r := rules(t, tt.rules)
			start := game.NewPosition(r)
			moves := randomGame(start, rand.New(rand.NewPCG(5, 5)), tt.moves)
			if len(moves) != tt.moves {
				t.Fatalf("the game ended after %d moves", len(moves))
			}
			opts := review.Options{MaxNodes: 1, ProofNodes: -1, Iterations: 2000, Seed: 9}
			rv := review.New(opts)
			got := reviewOK(t, rv, start, moves)
			checkShape(t, got, start, moves)
			if got.Exact {
				t.Error("review claims exactness")
			}
			for i, v := range got.Values {
				if v.Exact || v.Result != game.Ongoing || v.Plies != 0 || v.Score < 0 || v.Score > 1 {
					t.Errorf("value %d = %+v", i, v)
				}
			}
			for i, m := range got.Moves {
				if m.Exact || m.Kept != nil || m.Traps != -1 || len(m.Best) != 1 {
					t.Errorf("move %d = %+v", i, m)
				}
			}
			// Reproducible with the same reviewer (after reviewing another
			// game) and with a fresh one.
			reviewOK(t, rv, start, moves[:3])
			if again := reviewOK(t, rv, start, moves); !reflect.DeepEqual(again, got) {
				t.Error("a second review by the same reviewer differs")
			}
			if fresh := reviewOK(t, review.New(opts), start, moves); !reflect.DeepEqual(fresh, got) {
				t.Error("a fresh reviewer's review differs")
			}
			opts.Seed++
			if other := reviewOK(t, review.New(opts), start, moves); reflect.DeepEqual(other.Values, got.Values) {
				t.Error("another seed gives the same estimates")
			}
		})
	}
}

// TestBudgetReproducible checks that a budget some positions exceed cuts
// at the same place whatever the reviewer reviewed before.
func TestBudgetReproducible(t *testing.T) {
	r := rules(t, "5x5k4")
	start := game.NewPosition(r)
	rng := rand.New(rand.NewPCG(8, 8))
	moves := randomGame(start, rng, 12)
	opts := review.Options{MaxNodes: 20_000, ProofNodes: -1, Iterations: 500, Seed: 1}
	rv := review.New(opts)
	got := reviewOK(t, rv, start, moves)
	exact := 0
	for _, v := range got.Values {
		if v.Exact {
			exact++
		}
	}
	if exact == 0 || exact == len(got.Values) {
		t.Fatalf("%d of %d values exact; the test wants a mix", exact, len(got.Values))
	}
	reviewOK(t, rv, start, randomGame(start, rng, 14))
	if again := reviewOK(t, rv, start, moves); !reflect.DeepEqual(again, got) {
		t.Error("the same reviewer's second review differs")
	}
}

// TestValueFunc checks that a value function replaces MCTS for estimates.
func TestValueFunc(t *testing.T) {
	r := rules(t, "5x5k4")
	start := game.NewPosition(r)
	moves := randomGame(start, rand.New(rand.NewPCG(6, 6)), 6)
	calls := 0
	f := func(p game.Position) (float64, bool) {
		calls++
		// X likes the centre.
		if p.X().Has(game.NewCell(2, 2)) {
			return 0.7, true
		}
		return 0.4, true
	}
	got := reviewOK(t, review.New(review.Options{MaxNodes: 1, ProofNodes: -1, Value: f}), start, moves)
	checkShape(t, got, start, moves)
	if calls == 0 {
		t.Fatal("value function never called")
	}
	p := start
	for i, m := range got.Moves {
		want := 0.4
		if p.X().Has(game.NewCell(2, 2)) {
			want = 0.7
		}
		if m.Before.Score != want || m.Before.Exact {
			t.Errorf("move %d: before %+v, want score %g", i, m.Before, want)
		}
		if p.ToMove() == game.X && !p.X().Has(game.NewCell(2, 2)) && !slices.Equal(m.Best, []game.Cell{game.NewCell(2, 2)}) {
			t.Errorf("move %d: best %v, want the centre", i, m.Best)
		}
		p = p.Apply(m.Cell)
	}
	// A function that does not answer leaves the estimates to MCTS.
	none := func(game.Position) (float64, bool) { return 0, false }
	a := reviewOK(t, review.New(review.Options{MaxNodes: 1, ProofNodes: -1, Iterations: 500, Value: none}), start, moves)
	b := reviewOK(t, review.New(review.Options{MaxNodes: 1, ProofNodes: -1, Iterations: 500}), start, moves)
	if !reflect.DeepEqual(a, b) {
		t.Error("a silent value function changed the review")
	}
}

// TestIllegal checks the errors for bad move lists and contexts.
func TestIllegal(t *testing.T) {
	r := rules(t, "3x3k3")
	start := game.NewPosition(r)
	tests := []struct {
		name  string
		moves []game.Cell
		want  error
		msg   string
	}{
		{"occupied", cells(t, r, "b2 a1 b2"), game.ErrCellTaken, "review: move 3 (b2) is illegal: "},
		{"off board", []game.Cell{game.NewCell(0, 0), game.NewCell(0, 3)}, game.ErrBadCell, "review: move 2 (d1) is illegal: "},
		{"after the end", cells(t, r, "a1 a2 b1 b2 c1 c3"), game.ErrGameOver, "review: move 6 (c3) is illegal: "},
	}
	rv := review.New(review.Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := rv.Review(context.Background(), start, tt.moves)
			if got != nil || !errors.Is(err, review.ErrIllegal) || !errors.Is(err, tt.want) || !strings.HasPrefix(err.Error(), tt.msg) {
				t.Errorf("Review = %v, %v; want %v wrapping %v", got, err, review.ErrIllegal, tt.want)
			}
		})
	}
	if _, err := rv.Review(context.Background(), game.Position{}, nil); !errors.Is(err, review.ErrNoRules) {
		t.Errorf("zero start: %v", err)
	}
}

// TestContext checks that a review stops with its context's error.
func TestContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := rules(t, "3x3k3")
	if _, err := review.New(review.Options{}).Review(ctx, game.NewPosition(r), cells(t, r, "b2 a1")); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	// A deadline that ends a long solve on the way.
	r = rules(t, "5x5k4")
	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := review.New(review.Options{}).Review(ctx, game.NewPosition(r), cells(t, r, "a1 e5 a5"))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("deadline: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s after a 20ms deadline", d)
	}
	// And one that ends an estimate.
	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = review.New(review.Options{MaxNodes: 1, ProofNodes: -1, Iterations: 1 << 30}).Review(ctx, game.NewPosition(r), cells(t, r, "a1 e5 a5"))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("deadline in an estimate: %v", err)
	}
}

// TestXOX reviews a whole game of the X-O-X variant.
func TestXOX(t *testing.T) {
	r := rules(t, "4x3xox")
	start := game.NewPosition(r)
	moves := mctsGame(t, r, 1, 300)
	got := reviewOK(t, review.New(review.Options{}), start, moves)
	checkAgainstSolver(t, got, start, moves, true)
	if got.Values[0].Result != game.XWins {
		t.Errorf("start value %+v, want an X win", got.Values[0])
	}
}

func TestVerdict(t *testing.T) {
	tests := []struct {
		v    review.Verdict
		name string
		keep bool
	}{
		{review.Unjudged, "unjudged", false},
		{review.Best, "best", true},
		{review.Good, "good", true},
		{review.Inaccuracy, "inaccuracy", true},
		{review.Mistake, "mistake", false},
		{review.MissedWin, "missed-win", false},
		{review.Blunder, "blunder", false},
		{review.Blunder + 1, "verdict(7)", false},
	}
	for _, tt := range tests {
		if tt.v.String() != tt.name || tt.v.KeepsValue() != tt.keep {
			t.Errorf("%d: %q %v, want %q %v", tt.v, tt.v, tt.v.KeepsValue(), tt.name, tt.keep)
		}
	}
}

func TestValueFor(t *testing.T) {
	tests := []struct {
		v    review.Value
		x, o review.Outcome
	}{
		{exactValue(game.XWins, 3), review.Win, review.Loss},
		{exactValue(game.OWins, 2), review.Loss, review.Win},
		{exactValue(game.Draw, 5), review.Draw, review.Draw},
		{review.Value{Score: 0.9}, review.Unknown, review.Unknown},
	}
	for _, tt := range tests {
		if x, o := tt.v.For(game.X), tt.v.For(game.O); x != tt.x || o != tt.o {
			t.Errorf("%+v: %s %s, want %s %s", tt.v, x, o, tt.x, tt.o)
		}
		if e := tt.v.For(game.Empty); e != review.Unknown {
			t.Errorf("%+v for nobody: %s", tt.v, e)
		}
	}
}

// TestProvedReview: on 6x6k5, where the solver does not finish the first
// positions within its budget, the prover's searches make the review
// exact; without them it is not, and the values the prover gives are the
// ones the solver gives where it finishes.
func TestProvedReview(t *testing.T) {
	r := rules(t, "6x6k5")
	start := game.NewPosition(r)
	moves := cells(t, r, "c3 d4 c4 c5 d3 b3 e2 f1 b5 e3")
	got := reviewOK(t, review.New(review.Options{}), start, moves)
	checkShape(t, got, start, moves)
	if !got.Exact {
		t.Fatal("the review is not exact")
	}
	want := []game.Result{game.Draw, game.Draw, game.Draw, game.Draw, game.Draw, game.Draw, game.Draw, game.Draw, game.Draw, game.Draw, game.XWins}
	for i, v := range got.Values {
		if v.Result != want[i] {
			t.Errorf("value %d = %s, want %s", i, v.Result, want[i])
		}
	}
	if m := got.Moves[9]; m.Verdict != review.Mistake {
		t.Errorf("O e3 (draw to loss): %s", m.Verdict)
	}
	without := reviewOK(t, review.New(review.Options{MaxNodes: 100_000, ProofNodes: -1, Iterations: 500}), start, moves)
	if without.Exact {
		t.Error("without the prover, and with a 100,000-node solver budget, the review is exact")
	}
	for i, v := range without.Values {
		if v.Exact && v.Result != want[i] {
			t.Errorf("solver: value %d = %s, prover %s", i, v.Result, want[i])
		}
	}
}
