package ai

import (
	"context"
	"testing"

	"github.com/tttbot/ttt-bot/game"
)

// TestScanMatchesRules compares the search's one-pass tactics with the
// game package on positions from seeded random play: winning and losing
// cells, the opponent's threats, and which sides still have a line open.
func TestScanMatchesRules(t *testing.T) {
	for _, rules := range []string{"3x3k3", "4x4k3", "5x5k4", "6x6k4", "8x8k5", "7x5k4", "4x3xox", "5x5xox", "8x8xox"} {
		t.Run(rules, func(t *testing.T) {
			r := searchRules(t, rules)
			g := newSearchGeom(r)
			rnd := NewRandom(Options{Seed: 9})
			for range 300 {
				p := game.NewPosition(r)
				for !p.Over() {
					checkScan(t, g, p)
					c, err := rnd.Move(context.Background(), p)
					if err != nil {
						t.Fatal(err)
					}
					p = p.Apply(c)
				}
			}
		})
	}
}

func checkScan(t *testing.T, g *searchGeom, p game.Position) {
	t.Helper()
	me := p.ToMove()
	xtm := me == game.X
	tc := g.scan(p.X(), p.O(), xtm)
	var win, poison game.Bitboard
	for m := p.Moves(); m != 0; m &= m - 1 {
		switch p.Apply(m.First()).Outcome().Winner() {
		case me:
			win = win.With(m.First())
		case me.Other():
			poison = poison.With(m.First())
		}
	}
	threat := p.Threats(me.Other())
	if tc.win != win || tc.poison != poison || tc.threat != threat {
		t.Fatalf("%s: scan gives win %v poison %v threat %v, want %v %v %v",
			p, tc.win.Cells(), tc.poison.Cells(), tc.threat.Cells(), win.Cells(), poison.Cells(), threat.Cells())
	}
	if a := tc.answers; tc.threat != 0 && a&tc.threat != tc.threat {
		t.Fatalf("%s: answers %v miss threats %v", p, a.Cells(), tc.threat.Cells())
	}
	// Unless the side to move wins at once (the search stops there), every
	// move the forced-move pruning drops must lose at once or let the
	// opponent win at once.
	for m := p.Moves(); m != 0 && tc.win == 0; m &= m - 1 {
		c := m.First()
		if tc.answers.Has(c) && !tc.doomed {
			continue
		}
		q := p.Apply(c)
		if q.Outcome().Winner() == me || !q.Over() && q.Threats(me.Other()) == 0 {
			t.Fatalf("%s: %s is pruned (answers %v, doomed %v) but does not lose at once",
				p, c, tc.answers.Cells(), tc.doomed)
		}
	}
	// A side has a line open if some line can still end up reading right
	// for it; for k in a row, with no more free cells than it has moves.
	n := p.Empty().Count()
	open := func(side game.Mark, left int) bool {
		own, op := p.X(), p.O()
		if side == game.O {
			own, op = op, own
		}
		for i, l := range g.lines {
			if g.xox {
				mid := g.mids[i]
				if l&^mid&op == 0 && mid&own == 0 {
					return true
				}
				continue
			}
			if l&op == 0 && (l&^own).Count() <= left {
				return true
			}
		}
		return false
	}
	if got, want := tc.meLive, open(me, (n+1)/2); got != want {
		t.Fatalf("%s: meLive = %v, want %v", p, got, want)
	}
	if got, want := tc.oppLive, open(me.Other(), n/2); got != want {
		t.Fatalf("%s: oppLive = %v, want %v", p, got, want)
	}
}

// TestPairedProofs checks pairing proofs against the solver: whenever
// paired says a side cannot win, the exact value agrees.
func TestPairedProofs(t *testing.T) {
	for _, rules := range []string{"4x4k4", "5x5k5", "5x4k4", "4x4k3"} {
		t.Run(rules, func(t *testing.T) {
			r := searchRules(t, rules)
			g := newSearchGeom(r)
			s := NewSolver()
			rnd := NewRandom(Options{Seed: 5})
			proofs := 0
			for range 200 {
				p := game.NewPosition(r)
				for !p.Over() {
					n := p.Empty().Count()
					xtm := p.ToMove() == game.X
					for _, side := range []bool{true, false} {
						left := n / 2
						if side == xtm {
							left = (n + 1) / 2
						}
						if !g.paired(p.X(), p.O(), p.Empty(), side, left) {
							continue
						}
						proofs++
						v, err := s.Value(context.Background(), p)
						if err != nil {
							t.Fatal(err)
						}
						if v == winOf(side) {
							t.Fatalf("%s: paired says %v cannot win, but the value is %s", p, side, v)
						}
					}
					c, _ := rnd.Move(context.Background(), p)
					p = p.Apply(c)
				}
			}
			if proofs == 0 && rules != "4x4k3" {
				t.Error("no pairing proof found")
			}
		})
	}
}

func BenchmarkScan(b *testing.B) {
	p := searchPosition(b, "6x6k4", "X-----/-O----/--X---/---O--/----X-/------")
	g := newSearchGeom(p.Rules())
	for b.Loop() {
		g.scan(p.X(), p.O(), false)
	}
}

func BenchmarkCanonical(b *testing.B) {
	p := searchPosition(b, "5x5k4", "X----/-O---/--X--/-----/-----")
	g := newSearchGeom(p.Rules())
	for b.Loop() {
		g.canonical(p.X(), p.O())
	}
}
