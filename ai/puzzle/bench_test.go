package puzzle

import (
	"context"
	"testing"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/game"
)

// BenchmarkGenerate times one puzzle from self-play (no corpus), a new
// seed each time: the cost of a server's first /ttt puzzle of the day on
// a board. The seeds run from 1 up, so every run times the same puzzles.
func BenchmarkGenerate(b *testing.B) {
	for _, name := range []string{"3x3k3", "4x4k4", "5x5k4", "5x5k5", "4x3xox"} {
		b.Run(name, func(b *testing.B) {
			r := mustRules(b, name)
			ctx := context.Background()
			seed := uint64(0)
			for b.Loop() {
				seed++
				if _, err := Generate(ctx, r, seed, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkJudge times judging one move of a 5x5k4 puzzle: the cost added
// to each of the user's moves, with the solver kept for the puzzle (its
// table already holds the answer) and with a fresh one each time (a 6 MB
// table to allocate, and a search).
func BenchmarkJudge(b *testing.B) {
	p := mustPosition(b, "5x5k4", "-----/--O--/---X-/----O/----X") // X wins in 7 with c3 only
	after := p.Apply(game.NewCell(2, 2))
	ctx := context.Background()
	b.Run("kept", func(b *testing.B) {
		s := ai.NewSolver()
		for b.Loop() {
			if st, err := Judge(ctx, s, game.X, after); err != nil || st != Playing {
				b.Fatal(st, err)
			}
		}
	})
	b.Run("fresh", func(b *testing.B) {
		for b.Loop() {
			if st, err := Judge(ctx, ai.NewSolver(), game.X, after); err != nil || st != Playing {
				b.Fatal(st, err)
			}
		}
	})
}

// BenchmarkCheck times checking that 5x5k4 puzzle from scratch.
func BenchmarkCheck(b *testing.B) {
	r := mustRules(b, "5x5k4")
	p := Puzzle{
		Rules: r, Position: mustPosition(b, "5x5k4", "-----/--O--/---X-/----O/----X"), Side: game.X,
		Winning: mustCells(b, r, "c3"), Plies: 7, OnlyMove: true, Source: SourceSelfPlay,
	}
	ctx := context.Background()
	for b.Loop() {
		if err := Check(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
}
