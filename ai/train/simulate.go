package train

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/game"
)

// Style is how a simulated player plays.
type Style struct {
	// Opening is the cell the player always takes when it moves first on
	// an empty board.
	Opening game.Cell
	// Blunder is the chance, at every other move, of a uniformly random
	// legal move; otherwise the player plays its good move, the first
	// move in row-major order that keeps the game-theoretic value.
	Blunder float64
}

// simulatedEpoch is when the first simulated game finished; the games
// follow a minute apart.
var simulatedEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Simulate returns a synthetic corpus of games between simulated people
// of style s (both sides are human), for the tests and benchmarks of
// learning from people. The games are determined by seed. The players use
// the exact solver, so Simulate is for boards it solves quickly (up to
// 4x4). An opening off the board, or Blunder outside [0, 1], behaves as
// the nearest sensible style: no preferred opening, or clamped.
func Simulate(r game.Rules, games int, s Style, seed uint64) []Game {
	rng := rand.New(rand.NewPCG(seed, 0x73696d))
	solver := ai.NewSolver()
	good := map[game.Key]game.Cell{}
	goodMove := func(p game.Position) game.Cell {
		if c, ok := good[p.Key()]; ok {
			return c
		}
		c := p.Moves().First()
		if a, err := solver.Solve(context.Background(), p); err == nil && len(a.Best) > 0 {
			c = a.Best[0]
		}
		good[p.Key()] = c
		return c
	}
	out := make([]Game, 0, max(games, 0))
	for i := range games {
		p := game.NewPosition(r)
		g := Game{Human: [2]bool{true, true}, Time: simulatedEpoch.Add(time.Duration(i) * time.Minute)}
		for !p.Over() {
			var c game.Cell
			switch {
			case p.Ply() == 0 && r.Contains(s.Opening):
				c = s.Opening
			case rng.Float64() < s.Blunder:
				c = pick(rng, p.Moves())
			default:
				c = goodMove(p)
			}
			g.Moves = append(g.Moves, c)
			p = p.Apply(c)
		}
		out = append(out, g)
	}
	return out
}
