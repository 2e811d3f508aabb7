package review_test

import (
	"context"
	"testing"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/ai/review"
	"github.com/tttbot/ttt-bot/game"
)

// mctsGame plays a whole game of two seeded MCTS players with the given
// iterations per move from the empty board of r.
func mctsGame(tb testing.TB, r game.Rules, seed uint64, iterations int) []game.Cell {
	tb.Helper()
	var players [2]*ai.MCTS
	for i := range players {
		m, err := ai.NewMCTS(ai.Options{Seed: seed*2 + uint64(i), Iterations: iterations, Budget: 1 << 40})
		if err != nil {
			tb.Fatal(err)
		}
		players[i] = m
	}
	var moves []game.Cell
	for p := game.NewPosition(r); !p.Over(); {
		c, err := players[p.Ply()%2].Move(context.Background(), p)
		if err != nil {
			tb.Fatal(err)
		}
		moves = append(moves, c)
		p = p.Apply(c)
	}
	return moves
}

// longGame returns the first MCTS game (seeds from 1) that lasts at least
// plies moves, or the longest of the first 20.
func longGame(tb testing.TB, r game.Rules, iterations, plies int) []game.Cell {
	tb.Helper()
	var best []game.Cell
	for seed := uint64(1); seed <= 20; seed++ {
		g := mctsGame(tb, r, seed, iterations)
		if len(g) > len(best) {
			best = g
		}
		if len(best) >= plies {
			break
		}
	}
	return best
}

// BenchmarkReview reviews a whole game of MCTS players (the first one of
// at least the given length) with the default options. 5x5k4-edge is a
// harder game: it opens on an edge, and the positions after one or two
// marks off the centre are the dearest of 5x5k4 to solve.
func BenchmarkReview(b *testing.B) {
	benches := []struct {
		name       string
		rules      string
		iterations int
		plies      int
	}{
		{"3x3k3", "3x3k3", 200, 9},
		{"4x4k4", "4x4k4", 300, 16},
		{"5x5k4", "5x5k4", 3000, 25},
		{"5x5k4-edge", "5x5k4", 300, 25},
		{"5x5k5", "5x5k5", 300, 25},
		{"4x3xox", "4x3xox", 200, 12},
	}
	for _, bb := range benches {
		b.Run(bb.name, func(b *testing.B) {
			r, err := game.ParseRules(bb.rules)
			if err != nil {
				b.Fatal(err)
			}
			moves := longGame(b, r, bb.iterations, bb.plies)
			rv := review.New(review.Options{})
			start := game.NewPosition(r)
			var last *review.Review
			for b.Loop() {
				last, err = rv.Review(context.Background(), start, moves)
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(moves)), "moves")
			if !last.Exact {
				b.Errorf("%s review not exact", bb.name)
			}
		})
	}
}
