package ai

import (
	"context"
	"time"

	"github.com/tttbot/ttt-bot/game"
)

// PerfectChoices returns the analysis of p and the moves a Perfect player
// chooses among there: the moves that keep the game-theoretic value, cut
// down as Perfect cuts them (the best expected result against its model
// of a fallible opponent, then the fastest win or slowest loss). A Perfect
// player plays one of them at random; a network trained to imitate it
// learns them as its policy target.
//
// Unlike Perfect.Move it uses no clock: the solve runs until it is done or
// ctx is, and the opponent-model search stops after about maxNodes nodes
// (0 means no limit), keeping the deepest search it finished. A negative
// maxNodes skips that search, which is costly on large boards (every node
// needs the solved value of a position), and keeps the fastest wins or
// slowest losses among the moves that keep the value. The answer depends
// only on p and maxNodes, which is what reproducible training needs. It
// fails with ctx's error if ctx ends the solve. The solver's table is
// kept, as with Solve.
func (s *Solver) PerfectChoices(ctx context.Context, p game.Position, maxNodes int64) (Analysis, []game.Cell, error) {
	a, err := s.Solve(ctx, p)
	if err != nil || p.Over() || len(a.Best) < 2 {
		return a, a.Best, err
	}
	if maxNodes < 0 {
		return a, fastest(p, a), nil
	}
	// choose stops its search by a clock, read once per 256 nodes. A
	// counting clock, one nanosecond per reading, turns that into a node
	// budget. It starts far in the future so that the context choose
	// derives from the same deadline never expires in real time.
	if maxNodes <= 0 {
		maxNodes = 1 << 50
	}
	base := time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)
	var ticks int64
	clock := func() time.Time {
		ticks++
		return base.Add(time.Duration(ticks))
	}
	pf := &Perfect{solver: s, noise: perfectNoise, now: clock}
	// choose gives the search half the time left after its first reading.
	deadline := base.Add(time.Duration(1 + 2*(maxNodes/256+1)))
	best := pf.choose(ctx, p, a, deadline)
	if err := ctx.Err(); err != nil {
		return Analysis{}, nil, err
	}
	return a, best, nil
}

// fastest returns the moves of a.Best that win fastest or lose slowest
// (all of them for a draw), in row-major order.
func fastest(p game.Position, a Analysis) []game.Cell {
	me := p.ToMove()
	plies := map[game.Cell]int{}
	for _, mv := range a.Moves {
		plies[mv.Cell] = mv.Plies
	}
	var out []game.Cell
	top := -1
	for _, c := range a.Best {
		switch n := lengthRank(plies[c], a.Value, me); {
		case n > top:
			out, top = []game.Cell{c}, n
		case n == top:
			out = append(out, c)
		}
	}
	return out
}

// MCTSMove is one move at the root of an MCTS player's last search.
type MCTSMove struct {
	// Cell is the move.
	Cell game.Cell
	// Visits is the number of iterations that went through the move.
	Visits int
	// Value is the move's mean reward for the side to move at the root,
	// in [0, 1] (win 1, draw 0.5, loss 0), or its proven value.
	Value float64
	// Result is the proven result of the game after the move (XWins,
	// OWins or Draw), or Ongoing when the search proved nothing.
	Result game.Result
}

// Root returns the moves at the root of the last search, with their visit
// counts, in the tree's order; nil before the first search. A training
// target for a policy is the share of visits of each move.
func (m *MCTS) Root() []MCTSMove {
	if !m.tree || len(m.nodes) == 0 {
		return nil
	}
	r := m.nodes[0]
	side := m.root.ToMove()
	out := make([]MCTSMove, 0, r.n)
	for _, k := range m.nodes[r.first : r.first+int32(r.n)] {
		mv := MCTSMove{Cell: k.move, Visits: int(k.visits), Result: mctsResult(k.proof, side.Other())}
		switch {
		case mv.Result == game.Draw:
			mv.Value = 0.5
		case mv.Result != game.Ongoing:
			if mv.Result == winOf(side == game.X) {
				mv.Value = 1
			}
		case k.visits > 0:
			mv.Value = float64(k.score) / (2 * float64(k.visits))
		default:
			mv.Value = 0.5
		}
		out = append(out, mv)
	}
	return out
}
