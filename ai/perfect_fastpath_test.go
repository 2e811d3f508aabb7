package ai

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
)

// chooseReference is Perfect.choose as it was before the fast path (a
// fresh table for every depth, no table of solver values, the opponent
// model run even where it cannot change the choice), kept to show that
// the fast path changes only the speed.
func chooseReference(pf *Perfect, ctx context.Context, p game.Position, a Analysis, deadline time.Time) []game.Cell {
	if len(a.Best) == 1 {
		return a.Best
	}
	me := p.ToMove()
	plies := map[game.Cell]int{}
	for _, mv := range a.Moves {
		plies[mv.Cell] = mv.Plies
	}
	scores := make([]float64, len(a.Best))
	now := pf.now()
	deadline = now.Add(deadline.Sub(now) / 2)
	ex := expectimax{solver: pf.solver, me: me, noise: pf.noise, now: pf.now, deadline: deadline}
	ectx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	pf.solver.stop = newStopper(ectx)
	empties := p.Empty().Count()
	if a.Value == winOf(me == game.X) {
		empties = 0
	}
	for depth := 1; depth < empties; depth += 2 {
		ex.memo, ex.exhausted = map[expKey]float64{}, true
		next := make([]float64, len(a.Best))
		for i, c := range a.Best {
			next[i] = ex.score(p.Apply(c), depth, 1-pf.noise)
		}
		if ex.stopped {
			break
		}
		scores = next
		if ex.exhausted {
			break
		}
	}
	best := []game.Cell{}
	bestScore, bestLen := -1.0, 0
	for i, c := range a.Best {
		s, n := scores[i], lengthRank(plies[c], a.Value, me)
		switch {
		case s > bestScore+1e-9 || s > bestScore-1e-9 && n > bestLen:
			best, bestScore, bestLen = []game.Cell{c}, max(s, bestScore), n
		case s > bestScore-1e-9 && n == bestLen:
			best = append(best, c)
		}
	}
	return best
}

// countingClock returns a clock that moves a nanosecond at each reading,
// from far in the future, and the deadline after which choose has read it
// about nodes/256 times: PerfectChoices' node budget.
func countingClock(nodes int64) (func() time.Time, time.Time) {
	base := time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)
	var ticks int64
	return func() time.Time {
		ticks++
		return base.Add(time.Duration(ticks))
	}, base.Add(time.Duration(1 + 2*(nodes/256+1)))
}

// TestPerfectFastPathSameChoices checks that the fast path chooses among
// exactly the moves the reference chooses among: on every reachable 3x3
// position, on a spread of 4x3xox ones, and on positions of 4x4k4 and
// 5x5k4 where the opponent model is cut short, by the same node budget
// (the clock counts its readings, so both stop at the same node).
func TestPerfectFastPathSameChoices(t *testing.T) {
	ctx := context.Background()
	type pos struct {
		p      game.Position
		budget int64
	}
	var ps []pos
	for _, p := range reachable(game.Classic()) {
		ps = append(ps, pos{p, 1 << 40})
	}
	xox := reachable(rules(t, "4x3xox"))
	step := 10
	if testing.Short() {
		step = 40
	}
	for i := 0; i < len(xox); i += step {
		ps = append(ps, pos{xox[i], 1 << 40})
	}
	for _, rec := range []string{"4x4k4", "4x4k4 b2", "4x4k4 b2 c3", "4x4k4 b2 c3 c2 b3", "4x4k4 a1 b2 c3",
		"5x5k4 c3 b2 d4 b4 c2 c4 b3 d3 a4 e2", "5x5k4 c3 b2 d4 b4 c2 c4 b3 d3 a4 e2 d2 e1 a2 d1"} {
		r, err := game.ParseRecord(rec)
		if err != nil {
			t.Fatal(err)
		}
		for _, budget := range []int64{2000, 20_000} {
			ps = append(ps, pos{r.Position(), budget})
		}
	}
	fast := &Perfect{solver: NewSolver(), noise: perfectNoise}
	ref := &Perfect{solver: NewSolver(), noise: perfectNoise}
	skipped := 0
	for _, tt := range ps {
		if tt.p.Over() {
			continue
		}
		a, err := fast.solver.Solve(ctx, tt.p)
		if err != nil {
			t.Fatal(err)
		}
		ra, err := ref.solver.Solve(ctx, tt.p)
		if err != nil {
			t.Fatal(err)
		}
		var deadline time.Time
		fast.now, deadline = countingClock(tt.budget)
		got := fast.choose(ctx, tt.p, a, deadline)
		ref.now, deadline = countingClock(tt.budget)
		want := chooseReference(ref, ctx, tt.p, ra, deadline)
		if !slices.Equal(got, want) {
			t.Fatalf("%s %s (budget %d): fast path chooses among %v, the reference among %v", tt.p.Rules(), tt.p, tt.budget, got, want)
		}
		if len(a.Best) > 1 && (a.Value == winOf(tt.p.ToMove() == game.X) || symmetricMoves(tt.p, a.Best)) {
			skipped++
		}
	}
	t.Logf("%d positions, the opponent model skipped on %d", len(ps), skipped)
}

func TestSymmetricMoves(t *testing.T) {
	tests := []struct {
		rules, pos string
		cells      string
		want       bool
	}{
		{"3x3k3", "---/-X-/---", "a1 c1 a3 c3", true},
		{"3x3k3", "---/-X-/---", "a1 b1", false},
		{"3x3k3", "---/---/---", "a1 c3", true},
		{"4x4k4", "----/-X--/----/----", "a1 c3", false},
	}
	for _, tt := range tests {
		p := mustPosition(t, tt.rules, tt.pos)
		var cells []game.Cell
		for _, s := range strings.Fields(tt.cells) {
			c, err := p.Rules().ParseCell(s)
			if err != nil {
				t.Fatal(err)
			}
			cells = append(cells, c)
		}
		if got := symmetricMoves(p, cells); got != tt.want {
			t.Errorf("%s %s %s: symmetric %v, want %v", tt.rules, tt.pos, tt.cells, got, tt.want)
		}
	}
}

// TestHoldMove: on k=5 boards the solver does not finish, holdMove finds
// a move after which the opponent cannot win, which the prover confirms
// (a certificate proof.Verify accepts says the value is a draw or the
// mover's win); it wins at once when it can, and declines k below 5.
func TestHoldMove(t *testing.T) {
	for _, tc := range []struct{ rules, pos string }{
		{"6x6k5", ""}, {"7x6k5", ""}, {"7x5k5", ""},
		{"6x6k5", "------/-X----/--O---/---X--/------/------"},
	} {
		r := searchRules(t, tc.rules)
		p := game.NewPosition(r)
		if tc.pos != "" {
			var err error
			if p, err = game.ParsePosition(r, tc.pos); err != nil {
				t.Fatal(err)
			}
		}
		c, ok := NewSolver().holdMove(context.Background(), p)
		if !ok {
			t.Fatalf("%s %s: no move proved", tc.rules, p)
		}
		after := p.Apply(c)
		cert := proveAndVerify(t, after)
		opp := game.XWins
		if after.ToMove() == game.O {
			opp = game.OWins
		}
		if cert.Value == opp {
			t.Errorf("%s %s: after %s the opponent wins", tc.rules, p, c)
		}
	}
	win, err := game.ParsePosition(searchRules(t, "6x6k5"), "XXXX--/OOOO--/------/------/------/------")
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := NewSolver().holdMove(context.Background(), win); !ok || !win.Apply(c).Over() {
		t.Errorf("holdMove(%s) = %s, %v; want the win at once", win, c, ok)
	}
	if _, ok := NewSolver().holdMove(context.Background(), game.NewPosition(searchRules(t, "5x5k4"))); ok {
		t.Error("holdMove on 5x5k4 (k 4): want no move")
	}
}
