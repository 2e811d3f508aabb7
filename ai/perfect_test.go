package ai

import (
	"context"
	"errors"
	"math"
	"sort"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
)

func newTestPerfect(t testing.TB, o Options) *Perfect {
	t.Helper()
	p, err := NewPerfect(o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// perfectRecord plays n games of perfect (as side) against the opponent
// built by opp on r and counts perfect's wins and losses.
func perfectRecord(t testing.TB, r game.Rules, side game.Mark, n int, opp func(seed uint64) Player) (wins, losses int) {
	t.Helper()
	for i := range uint64(n) {
		pf := newTestPerfect(t, Options{Seed: i, Budget: time.Minute})
		x, o := Player(pf), opp(i+1_000_000)
		if side == game.O {
			x, o = o, x
		}
		switch searchGame(t, game.NewPosition(r), x, o) {
		case winOf(side == game.X):
			wins++
		case winOf(side != game.X):
			losses++
		}
	}
	return wins, losses
}

// perfectOpponent returns the probability of each reply of the named
// opponent ("easy" or "random") in p.
func perfectOpponent(p game.Position, name string) (game.Bitboard, float64) {
	moves := p.Moves()
	if name == "easy" {
		// As Easy.Move: a win, else a safe block, else a safe move.
		if w := p.Threats(p.ToMove()); w != 0 {
			moves = w
		} else {
			safe := safeMoves(p, moves)
			if moves = p.Threats(p.ToMove().Other()) & safe; moves == 0 {
				moves = safe
			}
		}
	}
	return moves, 1 / float64(moves.Count())
}

// perfectExact returns perfect's exact probabilities of winning and of
// losing from p against the named opponent, averaging over perfect's own
// random choice among its preferred moves.
func perfectExact(t *testing.T, pf *Perfect, p game.Position, me game.Mark, opp string, memo map[game.Key][2]float64) (win, loss float64) {
	if p.Over() {
		switch p.Outcome().Winner() {
		case me:
			return 1, 0
		case me.Other():
			return 0, 1
		}
		return 0, 0
	}
	if v, ok := memo[p.Key()]; ok {
		return v[0], v[1]
	}
	if p.ToMove() == me {
		a, err := pf.solver.Solve(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		best := pf.choose(context.Background(), p, a, time.Now().Add(time.Hour))
		for _, c := range best {
			w, l := perfectExact(t, pf, p.Apply(c), me, opp, memo)
			win, loss = win+w/float64(len(best)), loss+l/float64(len(best))
		}
	} else {
		moves, pr := perfectOpponent(p, opp)
		for m := moves; m != 0; m &= m - 1 {
			w, l := perfectExact(t, pf, p.Apply(m.First()), me, opp, memo)
			win, loss = win+w*pr, loss+l*pr
		}
	}
	memo[p.Key()] = [2]float64{win, loss}
	return win, loss
}

func TestPerfectExactRatesClassic(t *testing.T) {
	// Exact expectations over every game, not a sample. As X the best any
	// never-losing player can do is 89/96 against easy and 191/192 against
	// random, but not both at once: see TestPerfectParetoClassic. The
	// opponent model's even prior gets the best against easy and 98.7%
	// against random.
	tests := []struct {
		side     game.Mark
		opp      string
		min, max float64
	}{
		{game.X, "easy", 89.0 / 96, 89.0 / 96},
		{game.X, "random", 0.986, 191.0 / 192},
		{game.O, "easy", 0.2, 1},
		{game.O, "random", 0.8, 1},
	}
	for _, tt := range tests {
		t.Run(tt.side.String()+" vs "+tt.opp, func(t *testing.T) {
			pf := newTestPerfect(t, Options{Budget: time.Hour})
			win, loss := perfectExact(t, pf, game.NewPosition(game.Classic()), tt.side, tt.opp, map[game.Key][2]float64{})
			t.Logf("wins %.4f, losses %.4f", win, loss)
			if loss != 0 {
				t.Errorf("perfect loses with probability %g", loss)
			}
			if win < tt.min-1e-9 || win > tt.max+1e-9 {
				t.Errorf("wins with probability %.4f, want %.4f to %.4f", win, tt.min, tt.max)
			}
		})
	}
}

// perfectPoint is what a policy of X achieves: its probabilities of
// winning against easy and against random.
type perfectPoint struct{ easy, random float64 }

// perfectPareto keeps the points not dominated by another.
func perfectPareto(ps []perfectPoint) []perfectPoint {
	sort.Slice(ps, func(i, j int) bool {
		return ps[i].easy > ps[j].easy || ps[i].easy == ps[j].easy && ps[i].random > ps[j].random
	})
	var out []perfectPoint
	for _, p := range ps {
		if len(out) == 0 || p.random > out[len(out)-1].random+1e-12 {
			out = append(out, p)
		}
	}
	return out
}

// perfectFrontier returns the Pareto frontier of what deterministic
// policies of me that never give up the value achieve from p.
func perfectFrontier(t *testing.T, s *Solver, p game.Position, me game.Mark, memo map[game.Key][]perfectPoint) []perfectPoint {
	if p.Over() {
		if p.Outcome().Winner() == me {
			return []perfectPoint{{1, 1}}
		}
		return []perfectPoint{{0, 0}}
	}
	if v, ok := memo[p.Key()]; ok {
		return v
	}
	var out []perfectPoint
	if p.ToMove() == me {
		a, err := s.Solve(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range a.Best {
			out = append(out, perfectFrontier(t, s, p.Apply(c), me, memo)...)
		}
	} else {
		easy, pe := perfectOpponent(p, "easy")
		moves, pr := perfectOpponent(p, "random")
		out = []perfectPoint{{0, 0}}
		for m := moves; m != 0; m &= m - 1 {
			c := m.First()
			we := 0.0
			if easy.Has(c) {
				we = pe
			}
			var next []perfectPoint
			for _, a := range out {
				for _, b := range perfectFrontier(t, s, p.Apply(c), me, memo) {
					next = append(next, perfectPoint{a.easy + we*b.easy, a.random + pr*b.random})
				}
			}
			out = perfectPareto(next)
		}
	}
	out = perfectPareto(out)
	memo[p.Key()] = out
	return out
}

// TestPerfectParetoClassic pins why perfect cannot meet both 3x3 targets
// (90% of wins against easy and 99% against random, as X): no
// deterministic never-losing policy does. The frontier's top points are
// 89/96 against easy with 98.70% against random, 91.67% with 98.96%, and
// 87.5% with the best possible 191/192.
func TestPerfectParetoClassic(t *testing.T) {
	f := perfectFrontier(t, NewSolver(), game.NewPosition(game.Classic()), game.X, map[game.Key][]perfectPoint{})
	for _, p := range f {
		if p.easy >= 0.85 {
			t.Logf("easy %.4f, random %.4f", p.easy, p.random)
		}
		if p.easy >= 0.90 && p.random >= 0.99 {
			t.Errorf("a policy gets %.4f against easy and %.4f against random", p.easy, p.random)
		}
	}
	if top := f[0]; math.Abs(top.easy-89.0/96) > 1e-9 {
		t.Errorf("best against easy = %.4f, want 89/96", top.easy)
	}
	if last := f[len(f)-1]; math.Abs(last.random-191.0/192) > 1e-9 {
		t.Errorf("best against random = %.4f, want 191/192", last.random)
	}
}

func TestPerfectWinRatesClassic(t *testing.T) {
	// Seeded games, as the bot plays them. 300 games a row keep the test
	// fast; the exact rates are 92.7% against easy and 98.7% against
	// random (TestPerfectExactRatesClassic), and the floors sit about
	// three standard errors of a 300-game sample below them.
	r := game.Classic()
	easy := func(seed uint64) Player { return NewEasy(Options{Seed: seed}) }
	random := func(seed uint64) Player { return NewRandom(Options{Seed: seed}) }
	tests := []struct {
		name    string
		side    game.Mark
		opp     func(uint64) Player
		minWins float64
	}{
		{"X vs easy", game.X, easy, 0.88},
		{"X vs random", game.X, random, 0.965},
		{"O vs easy", game.O, easy, 0.2},
		{"O vs random", game.O, random, 0.75},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const n = 300
			wins, losses := perfectRecord(t, r, tt.side, n, tt.opp)
			t.Logf("%d wins, %d losses in %d games", wins, losses, n)
			if losses != 0 {
				t.Errorf("perfect lost %d games", losses)
			}
			if rate := float64(wins) / n; rate < tt.minWins {
				t.Errorf("win rate %.3f, want at least %.3f", rate, tt.minWins)
			}
		})
	}
}

func TestPerfectKeepsTheValue(t *testing.T) {
	// On every reachable position of the small boards, perfect's move is
	// one of the solver's best.
	for _, rules := range []string{"3x3k3", "4x3xox"} {
		t.Run(rules, func(t *testing.T) {
			r := searchRules(t, rules)
			s := NewSolver()
			pf := newTestPerfect(t, Options{Seed: 7, Budget: time.Minute})
			seen := map[game.Key]bool{}
			checked := 0
			var walk func(p game.Position)
			walk = func(p game.Position) {
				if seen[p.Key()] || p.Over() || checked >= 600 {
					return
				}
				seen[p.Key()] = true
				checked++
				a, err := s.Solve(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				c, err := pf.Move(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				ok := false
				for _, b := range a.Best {
					ok = ok || b == c
				}
				if !ok {
					t.Fatalf("%s: perfect plays %s; best are %v", p, c, a.Best)
				}
				for m := p.Moves(); m != 0; m &= m - 1 {
					walk(p.Apply(m.First()))
				}
			}
			walk(game.NewPosition(r))
			if checked < 600 {
				t.Errorf("checked only %d positions", checked)
			}
		})
	}
}

func TestPerfectMovesWithinASecond(t *testing.T) {
	if testing.Short() {
		t.Skip("plays whole games with the default budget")
	}
	// Every Discord preset, perfect against itself with the default
	// budget: no move may take a second.
	for _, rules := range []string{"3x3k3", "4x4k3", "4x4k4", "5x5k4", "5x5k5", "4x3xox", "6x6k4"} {
		t.Run(rules, func(t *testing.T) {
			r := searchRules(t, rules)
			x, o := newTestPerfect(t, Options{Seed: 1}), newTestPerfect(t, Options{Seed: 2})
			p := game.NewPosition(r)
			slowest := time.Duration(0)
			for !p.Over() {
				pl := x
				if p.ToMove() == game.O {
					pl = o
				}
				start := time.Now()
				c, err := pl.Move(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				slowest = max(slowest, time.Since(start))
				p = p.Apply(c)
			}
			t.Logf("%s, slowest move %s, %d moves from the value alone, %d not solved in time",
				p.Outcome().Result, slowest.Round(time.Millisecond), x.partial+o.partial, x.inexact+o.inexact)
			if slowest > time.Second {
				t.Errorf("slowest move took %s", slowest)
			}
		})
	}
}

func TestNewPerfectRejectsBadOptions(t *testing.T) {
	if _, err := NewPerfect(Options{Budget: -time.Second}); !errors.Is(err, ErrBadOption) {
		t.Errorf("NewPerfect(negative budget) err = %v, want ErrBadOption", err)
	}
}

// BenchmarkPerfectMove times a first or second move with the default
// budget, a fresh player each time. Beyond the smallest boards the
// opponent-model search deepens until its share of the budget is spent,
// so there this measures the budget, not the search.
func BenchmarkPerfectMove(b *testing.B) {
	for _, tt := range []struct{ rules, pos string }{
		{"3x3k3", "---/---/---"},
		{"4x4k4", "----/----/----/----"},
		{"5x5k4", "-----/-----/--X--/-----/-----"},
	} {
		b.Run(tt.rules, func(b *testing.B) {
			p := searchPosition(b, tt.rules, tt.pos)
			for b.Loop() {
				pf := newTestPerfect(b, Options{Seed: 1})
				if _, err := pf.Move(context.Background(), p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
