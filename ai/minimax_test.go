package ai

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
)

// searchGame plays one game between x and o from p and returns its result.
func searchGame(t testing.TB, p game.Position, x, o Player) game.Result {
	t.Helper()
	for !p.Over() {
		pl := x
		if p.ToMove() == game.O {
			pl = o
		}
		c, err := pl.Move(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if p, err = p.Play(c); err != nil {
			t.Fatal(err)
		}
	}
	return p.Outcome().Result
}

func newTestMinimax(t testing.TB, o Options) *Minimax {
	t.Helper()
	m, err := NewMinimax(o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMinimaxNeverLosesClassic(t *testing.T) {
	r := game.Classic()
	for seed := range uint64(40) {
		for _, side := range []game.Mark{game.X, game.O} {
			m := newTestMinimax(t, Options{Seed: seed})
			var opp Player = NewRandom(Options{Seed: seed + 1000})
			if seed%2 == 0 {
				opp = NewEasy(Options{Seed: seed + 1000})
			}
			x, o := Player(m), opp
			if side == game.O {
				x, o = opp, m
			}
			res := searchGame(t, game.NewPosition(r), x, o)
			if res == winOf(side == game.O) {
				t.Fatalf("seed %d: minimax as %s lost", seed, side)
			}
		}
	}
}

// TestMinimaxIsExactWithoutLimit checks the unlimited search against the
// solver on every reachable 3x3 position: the move it picks must keep the
// game-theoretic value, and its score must say so.
func TestMinimaxIsExactWithoutLimit(t *testing.T) {
	s := NewSolver()
	m := newTestMinimax(t, Options{Seed: 1, Budget: time.Minute})
	seen := map[game.Key]bool{}
	var walk func(p game.Position)
	walk = func(p game.Position) {
		if seen[p.Key()] || p.Over() {
			return
		}
		seen[p.Key()] = true
		a, err := s.Solve(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		r, err := m.Search(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		ok := false
		for _, c := range a.Best {
			ok = ok || c == r.Move
		}
		if !ok || !(r.Exact || r.Score > mmProven || r.Score < -mmProven) {
			t.Fatalf("%s: minimax plays %s (%+v); best are %v", p, r.Move, r, a.Best)
		}
		for m := p.Moves(); m != 0; m &= m - 1 {
			walk(p.Apply(m.First()))
		}
	}
	walk(game.NewPosition(game.Classic()))
}

func TestMinimaxDepthLimit(t *testing.T) {
	p := game.NewPosition(searchRules(t, "5x5k4"))
	for _, d := range []int{1, 2, 3} {
		m := newTestMinimax(t, Options{Depth: d, Budget: time.Minute})
		r, err := m.Search(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if r.Depth != d || r.Exact {
			t.Errorf("depth %d: searched %+v", d, r)
		}
	}
	if _, err := NewMinimax(Options{Depth: -1}); !errors.Is(err, ErrBadOption) {
		t.Errorf("NewMinimax(depth -1) err = %v, want ErrBadOption", err)
	}
}

func TestMinimaxTakesWinsAndBlocks(t *testing.T) {
	tests := []struct{ rules, pos, want string }{
		{"3x3k3", "XX-/OO-/---", "c1"},
		{"3x3k3", "XX-/O--/---", "c1"},
		{"3x3k3", "X--/OO-/X--", "c2"},
		{"4x4k4", "XXX-/OOO-/----/----", "d1"},
		{"4x3xox", "X--/O--/---/---", "a3"},
	}
	for _, tt := range tests {
		t.Run(tt.rules+"/"+tt.pos, func(t *testing.T) {
			m := newTestMinimax(t, Options{Depth: 2})
			c, err := m.Move(context.Background(), searchPosition(t, tt.rules, tt.pos))
			if err != nil {
				t.Fatal(err)
			}
			if c.String() != tt.want {
				t.Errorf("Move = %s, want %s", c, tt.want)
			}
		})
	}
}

func TestMinimaxDefaultBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("plays with the full default budget")
	}
	for _, rules := range []string{"5x5k4", "6x6k4", "8x8k5"} {
		t.Run(rules, func(t *testing.T) {
			m := newTestMinimax(t, Options{Seed: 3})
			p := game.NewPosition(searchRules(t, rules))
			for i := 0; i < 3 && !p.Over(); i++ {
				start := time.Now()
				c, err := m.Move(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				if d := time.Since(start); d > time.Second {
					t.Errorf("move %d took %s", i, d)
				}
				p = p.Apply(c)
			}
		})
	}
}

// BenchmarkMinimaxSelfPlay plays one whole game per op, minimax against
// itself at a fixed depth with no time limit, as in the original
// project's table of 4x4 search depths.
// BenchmarkMinimaxSelfPlay times a whole game of minimax against itself on
// 4x4 boards at depths 2 to 16, as the original project's report did; the
// table=off runs switch the transposition table off (depths up to 8, as in
// that report's uncached row).
func BenchmarkMinimaxSelfPlay(b *testing.B) {
	for _, table := range []bool{true, false} {
		for _, rules := range []string{"4x4k4", "4x4k3"} {
			for _, d := range []int{2, 4, 6, 8, 10, 12, 14, 16} {
				if !table && d > 8 {
					continue
				}
				b.Run(fmt.Sprintf("table=%s/rules=%s/depth=%d", onOff(table), rules, d), func(b *testing.B) {
					benchSelfPlay(b, searchRules(b, rules), d, !table)
				})
			}
		}
	}
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func benchSelfPlay(b *testing.B, r game.Rules, d int, noTable bool) {
	var nodes int64
	var res game.Result
	for b.Loop() {
		x := newTestMinimax(b, Options{Seed: 1, Depth: d, Budget: time.Hour})
		o := newTestMinimax(b, Options{Seed: 2, Depth: d, Budget: time.Hour})
		x.noTable, o.noTable = noTable, noTable
		res = searchGame(b, game.NewPosition(r), x, o)
		nodes = x.nodes + o.nodes
	}
	b.ReportMetric(float64(nodes), "nodes/game")
	b.Logf("result %s", res)
}

func BenchmarkMinimaxMove(b *testing.B) {
	for _, rules := range []string{"5x5k4", "8x8k5"} {
		b.Run(rules, func(b *testing.B) {
			p := game.NewPosition(searchRules(b, rules))
			for b.Loop() {
				m := newTestMinimax(b, Options{Seed: 1, Depth: 4, Budget: time.Hour})
				if _, err := m.Move(context.Background(), p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
