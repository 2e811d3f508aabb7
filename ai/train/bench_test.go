package train

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/game"
)

// BenchmarkHumanAccuracy measures how the human head's top-1 accuracy on
// 1,000 held-out games grows with the size of the synthetic corpus it
// learns from (people who open on b1 and blunder 20% of the time), with
// Run at its defaults on 3x3k3. Run it once:
//
//	go test -run '^$' -bench HumanAccuracy -benchtime 1x ./ai/train/
func BenchmarkHumanAccuracy(b *testing.B) {
	r := mustRules(b, "3x3k3")
	style := Style{Opening: game.NewCell(0, 1), Blunder: 0.2}
	held := Simulate(r, 1000, style, 99)
	// The ceiling: the share of held-out moves that are the players' own
	// choice rather than a blunder, which is what a perfect model of them
	// predicts.
	var ceiling Ratio
	solver := ai.NewSolver()
	for _, g := range held {
		p := game.NewPosition(r)
		for _, c := range g.Moves {
			want := style.Opening
			if p.Ply() > 0 {
				a, err := solver.Solve(context.Background(), p)
				if err != nil {
					b.Fatal(err)
				}
				want = a.Best[0]
			}
			ceiling.Den++
			if c == want {
				ceiling.Num++
			}
			p = p.Apply(c)
		}
	}
	b.Logf("held-out moves a perfect model of the players predicts: %v", ceiling)
	for _, n := range []int{50, 100, 250, 500, 1000, 2000, 5000} {
		b.Run(fmt.Sprintf("games=%d", n), func(b *testing.B) {
			corpus := Simulate(r, n, style, 5)
			for b.Loop() {
				res, err := Run(context.Background(), Config{Rules: r, Seed: 1, EvalGames: -1}, corpus, nil)
				if err != nil {
					b.Fatal(err)
				}
				acc := HumanAccuracy(res.Net, held)
				b.ReportMetric(100*acc.Float(), "top1-%")
				b.ReportMetric(float64(res.Report.HumanMoves), "human-moves")
				b.ReportMetric(100*ceiling.Float(), "ceiling-%")
			}
		})
	}
}

// BenchmarkRun trains each shipped rules key with Run at its defaults
// (evaluation included) and reports the wall time, the stages and the
// evaluation. Run it once per board, on an otherwise idle machine:
//
//	go test -run '^$' -bench 'Run/5x5k4' -benchtime 1x -timeout 30m -v ./ai/train/
func BenchmarkRun(b *testing.B) {
	for _, rs := range []string{"3x3k3", "4x3xox", "4x4k3", "4x4k4", "5x5k4", "5x5k5"} {
		b.Run(rs, func(b *testing.B) {
			r := mustRules(b, rs)
			for b.Loop() {
				start := time.Now()
				res, err := Run(context.Background(), Config{Rules: r, Seed: 1}, nil, nil)
				if err != nil {
					b.Fatal(err)
				}
				rep := res.Report
				b.ReportMetric(time.Since(start).Seconds(), "s")
				b.ReportMetric(float64(rep.Positions), "positions")
				b.Logf("%s: %v in all; stages %v; %d positions (%d solved, %d MCTS), %d samples, %d params, last epoch %+v",
					rs, rep.Duration.Round(time.Second), rep.Stages, rep.Positions, rep.SolvedPositions, rep.MCTSPositions, rep.Samples, rep.Params, rep.Epochs[len(rep.Epochs)-1])
				if om := rep.Eval.OptimalMoves; om != nil {
					b.Logf("%s: optimal moves %v", rs, om)
					b.ReportMetric(100*om.Float(), "optimal-%")
				}
				for _, m := range rep.Eval.Arena {
					b.Logf("%s vs %s: as X %+v, as O %+v, score %.3f", rs, m.Opponent, m.AsX, m.AsO, m.Score)
					b.ReportMetric(100*m.Score, "score-%-"+m.Opponent)
				}
			}
		})
	}
}
