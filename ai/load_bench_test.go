package ai

import (
	"context"
	"strconv"
	"testing"

	"github.com/tttbot/ttt-bot/game"
)

// BenchmarkLoad times the moves of each built-in level at no load, half
// load and full load (Options.Load), with a fresh player for every move as
// the bot builds them. An op is one move from each of four 5x5k4 openings,
// after one and two moves (the third is a proven win in five plies, which
// the searches see at once); ms/move is the mean of the four. The levels
// with a time budget mostly spend it, so this measures what load saves,
// not search speed.
func BenchmarkLoad(b *testing.B) {
	var ps []game.Position
	for _, pos := range []string{
		"-----/-----/--X--/-----/-----",
		"X----/-----/-----/-----/-----",
		"-----/-----/--X--/--O--/-----",
		"-X---/-----/-----/---O-/-----",
	} {
		ps = append(ps, searchPosition(b, "5x5k4", pos))
	}
	reg := NewRegistry()
	ctx := context.Background()
	for _, level := range reg.Names() {
		for _, load := range []float64{0, 0.5, 1} {
			b.Run(level+"/load="+strconv.FormatFloat(load, 'g', -1, 64), func(b *testing.B) {
				seed := uint64(0)
				for b.Loop() {
					for _, p := range ps {
						seed++
						pl, err := reg.New(level, Options{Seed: seed, Load: load})
						if err != nil {
							b.Fatal(err)
						}
						if _, err := pl.Move(ctx, p); err != nil {
							b.Fatal(err)
						}
					}
				}
				moves := float64(b.N * len(ps))
				b.ReportMetric(b.Elapsed().Seconds()*1000/moves, "ms/move")
			})
		}
	}
}
