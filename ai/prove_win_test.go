package ai

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/ai/proof"
	"github.com/tttbot/ttt-bot/game"
)

// TestProveFourInARowWins: 7x7k4 and 8x8k4 are wins for X (the solver
// alone did not settle 8x8k4 in 400 s); the win search proves them
// with certificates proof.Verify accepts, and a certificate with any of its
// moves removed, or X's first move changed, is refused.
func TestProveFourInARowWins(t *testing.T) {
	for _, rs := range []string{"7x7k4", "8x8k4"} {
		t.Run(rs, func(t *testing.T) {
			c := proveAndVerify(t, game.NewPosition(searchRules(t, rs)))
			if c.Value != game.XWins {
				t.Fatalf("%s: %s, want X wins", rs, c.Value)
			}
			if rs != "8x8k4" {
				return
			}
			pr := c.Proofs[0]
			keys := make([]game.Key, 0, len(pr.Moves))
			for k := range pr.Moves {
				keys = append(keys, k)
			}
			slices.SortFunc(keys, func(a, b game.Key) int {
				return cmp.Or(cmp.Compare(a.X, b.X), cmp.Compare(a.O, b.O))
			})
			// Every entry is on a line of play the checker follows:
			// without any of them the proof fails.
			for i := 0; i < len(keys); i += len(keys)/15 + 1 {
				k := keys[i]
				m := pr.Moves[k]
				delete(pr.Moves, k)
				if _, err := proof.Verify(context.Background(), c); !errors.Is(err, proof.ErrInvalid) {
					t.Errorf("without the move %s at %x %x: err = %v, want it refused", m, uint64(k.X), uint64(k.O), err)
				}
				pr.Moves[k] = m
			}
			root := game.Key{}
			first := pr.Moves[root]
			pr.Moves[root] = game.NewCell(0, 0)
			if _, err := proof.Verify(context.Background(), c); !errors.Is(err, proof.ErrInvalid) {
				t.Errorf("X's first move a1 instead of %s: err = %v, want it refused", first, err)
			}
		})
	}
}

// TestWinSearchAgreesWithSolver: along seeded random games on boards the
// solver settles (4x4k3, 5x5k4, 6x6k4), every win the win search proves for the side to move is
// a win by the solver, and its certificate is accepted; and the win search
// finds, within 200,000 nodes, at least 9 in 10 of the wins the solver
// finds (its moves are restricted to cells near the marks).
func TestWinSearchAgreesWithSolver(t *testing.T) {
	var solverWins, found int
	for _, rs := range []string{"4x4k3", "5x5k4", "6x6k4"} {
		r := searchRules(t, rs)
		g := newSearchGeom(r)
		for seed := range 2 {
			p := game.NewPosition(r)
			for ply := 0; !p.Over() && ply < 10; ply++ {
				s := NewSolver()
				v, err := s.Value(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				xtm := p.ToMove() == game.X
				wins := v == game.XWins && xtm || v == game.OWins && !xtm
				if wins {
					solverWins++
				}
				w := newWinSearch(g, xtm, &stopper{limit: 200_000})
				won, exhausted := w.prove(p.X(), p.O())
				switch {
				case won && !wins:
					t.Fatalf("%s %s: the win search proved a win, the solver says %s", rs, p, v)
				case exhausted && wins:
					t.Errorf("%s %s: the win search failed at every depth, the solver says %s", rs, p, v)
				case won:
					found++
					pr := proof.NewProof(proof.Win, p.ToMove())
					s.prepare(r)
					if err := s.extractWin(pr, p.X(), p.O(), w.oracle()); err != nil {
						t.Fatalf("%s %s: %v", rs, p, err)
					}
					c := &proof.Certificate{Position: p, Value: v, Proofs: []*proof.Proof{pr}}
					if _, err := proof.Verify(context.Background(), c); err != nil {
						t.Fatalf("%s %s: certificate refused: %v", rs, p, err)
					}
				}
				free := p.Moves().Cells()
				p = p.Apply(free[(seed*11+ply*7+3)%len(free)])
			}
		}
	}
	t.Logf("the win search proved %d of the solver's %d wins", found, solverWins)
	if found*10 < solverWins*9 {
		t.Errorf("the win search proved %d of the solver's %d wins, want 9 in 10", found, solverWins)
	}
}

// TestWinMove: on 7x7k4 and 8x8k4, where the solver does not settle the
// value in a move's time, winMove wins every game as X from the empty
// board against minimax and random opponents, each of its moves proved.
func TestWinMove(t *testing.T) {
	for _, rs := range []string{"7x7k4", "8x8k4"} {
		r := searchRules(t, rs)
		for seed := range uint64(2) {
			var opp Player = NewRandom(Options{Seed: seed})
			if seed > 0 {
				mm, err := NewMinimax(Options{Seed: seed, Budget: 20 * time.Millisecond})
				if err != nil {
					t.Fatal(err)
				}
				opp = mm
			}
			p := game.NewPosition(r)
			s := NewSolver()
			for !p.Over() {
				if p.ToMove() == game.X {
					c, ok := s.winMove(context.Background(), p)
					if !ok {
						t.Fatalf("%s seed %d: no win proved at %s", rs, seed, p)
					}
					p = p.Apply(c)
					continue
				}
				c, err := opp.Move(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				p = p.Apply(c)
			}
			if got := p.Outcome().Result; got != game.XWins {
				t.Errorf("%s seed %d: %s at %s", rs, seed, got, p)
			}
		}
	}
	if _, ok := NewSolver().winMove(context.Background(), game.NewPosition(searchRules(t, "5x5k4"))); ok {
		t.Error("winMove on 5x5k4 (a draw): want no move")
	}
}
