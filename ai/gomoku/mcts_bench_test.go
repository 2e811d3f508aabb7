package gomoku

import (
	"context"
	"flag"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/game/wide"
)

var mctsGames = flag.Int("gomoku.games", 20, "BenchmarkAgainstMCTS: games per board (half with each colour)")

// BenchmarkAgainstMCTS plays the wide-board player against the bot's own
// mcts level on the boards both play (up to 8x8), each with the same time
// a move, half the games with each colour, from the empty board (mcts
// chooses among equal moves by its seed, so games differ), and reports the
// wide player's score, wins, draws and losses. One iteration is the whole match:
//
//	go test -run '^$' -bench AgainstMCTS -benchtime 1x -gomoku.games 40 ./ai/gomoku/
func BenchmarkAgainstMCTS(b *testing.B) {
	for _, rs := range []string{"7x7k5", "8x8k5", "8x8k4"} {
		b.Run(rs, func(b *testing.B) {
			gr, err := game.ParseRules(rs)
			if err != nil {
				b.Fatal(err)
			}
			wr, err := wide.NewRules(gr.Rows(), gr.Cols(), gr.K(), false)
			if err != nil {
				b.Fatal(err)
			}
			const budget = 200 * time.Millisecond
			for b.Loop() {
				var score float64
				var wins, draws, losses int
				for g := range *mctsGames {
					m, err := ai.NewMCTS(ai.Options{Seed: uint64(g + 1), Budget: budget})
					if err != nil {
						b.Fatal(err)
					}
					pl := New(Options{Budget: budget})
					us := game.X
					if g%2 == 1 {
						us = game.O
					}
					gp, wp := game.NewPosition(gr), wide.NewPosition(wr)
					for !gp.Over() {
						var row, col int
						if gp.ToMove() == us {
							c, err := pl.Move(context.Background(), wp)
							if err != nil {
								b.Fatal(err)
							}
							row, col = c.Row(), c.Col()
						} else {
							c, err := m.Move(context.Background(), gp)
							if err != nil {
								b.Fatal(err)
							}
							row, col = c.Row(), c.Col()
						}
						gp = gp.Apply(game.NewCell(row, col))
						wp = wp.Apply(wide.NewCell(row, col))
					}
					switch gp.Outcome().Winner() {
					case us:
						score++
						wins++
					case game.Empty:
						score += 0.5
						draws++
					default:
						losses++
					}
				}
				b.ReportMetric(100*score/float64(*mctsGames), "%score")
				b.ReportMetric(float64(wins), "wins")
				b.ReportMetric(float64(draws), "draws")
				b.ReportMetric(float64(losses), "losses")
			}
		})
	}
}
