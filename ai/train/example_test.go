package train_test

import (
	"context"
	"fmt"

	"github.com/tttbot/ttt-bot/ai/train"
	"github.com/tttbot/ttt-bot/game"
)

func ExampleSimulate() {
	// People who always open on the top edge and blunder one move in five.
	games := train.Simulate(game.Classic(), 3, train.Style{Opening: game.NewCell(0, 1), Blunder: 0.2}, 1)
	for _, g := range games {
		fmt.Println(g.Moves, g.Human)
	}
	// Output:
	// [b1 a1 a2 b2 b3 c1 c2 a3] [true true]
	// [b1 a1 a2 b2 b3 c1 c2 a3] [true true]
	// [b1 a1 a2 b2 c3 c1 a3 b3 c2] [true true]
}

func ExampleRun() {
	// A quick run: one epoch, no arena. Every reachable 3x3 position is
	// searched and learnt in all its symmetric images; the corpus's
	// human moves train the human head.
	corpus := train.Simulate(game.Classic(), 100, train.Style{Opening: game.NewCell(1, 1), Blunder: 0.2}, 1)
	cfg := train.Config{Rules: game.Classic(), Epochs: 1, Seed: 1, EvalGames: -1}
	res, err := train.Run(context.Background(), cfg, corpus, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	rep := res.Report
	fmt.Printf("%d positions up to symmetry, all solved: %v\n", rep.Positions, rep.SolvedPositions == rep.Positions)
	fmt.Printf("%d samples, %d human moves from %d games\n", rep.Samples, rep.HumanMoves, rep.CorpusGames)
	fmt.Printf("optimal moves counted over %d positions\n", rep.Eval.OptimalMoves.Den)
	// Output:
	// 627 positions up to symmetry, all solved: true
	// 4520 samples, 817 human moves from 100 games
	// optimal moves counted over 4520 positions
}
