package ai

import (
	"context"

	"github.com/tttbot/ttt-bot/game"
)

// holdMove returns a move of p after which the opponent cannot win, proved
// by the prover's hold search (pairing strategies and relevance zones),
// trying the most promising moves first; a move that wins at once comes
// first of all. It is what perfect plays on k=5 boards where the solver
// runs out of time (7x6k5, 7x7k5: the hold search proves in milliseconds
// what the solver does not finish): at least a draw, where the value of p
// is a draw or better. It reports false when k is below 5, for X-O-X, or
// when ctx ends before a move is proved.
func (s *Solver) holdMove(ctx context.Context, p game.Position) (game.Cell, bool) {
	r := p.Rules()
	if r.K() < 5 || r.Variant() == game.XOX || p.Over() {
		return 0, false
	}
	if err := s.begin(ctx, p); err != nil {
		return 0, false
	}
	g := s.geom
	x, o, xtm := p.X(), p.O(), p.ToMove() == game.X
	t := g.scan(x, o, xtm)
	if t.win != 0 {
		return t.win.First(), true
	}
	// One hold search for every candidate: the opponent attacks, we hold;
	// what one candidate's search proves or refutes serves the next.
	h := newHoldSearch(g, !xtm, &s.stop, nil)
	var buf [64]game.Cell
	for _, c := range g.order(x, o, t.answers&^t.poison, xtm, nil, buf[:0]) {
		nx, no := play(x, o, xtm, c)
		if (nx|no)&g.board == g.board {
			return c, true // the last cell: a draw
		}
		h.next = 0 // the depths the last root failed below are its own
		if ok, _ := h.prove(nx, no); ok {
			return c, true
		}
		if s.stop.stopped {
			return 0, false
		}
	}
	return 0, false
}
