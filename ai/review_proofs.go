package ai

import (
	"context"
	"fmt"

	"github.com/tttbot/ttt-bot/game"
)

// ProveWithin is SolveWithin by the prover's searches instead of the
// solver's, for the boards where the solver does not finish (6x6k5,
// 7x7k5, 8x8k4: the prover settles in milliseconds what the solver's
// full-width search does not finish in minutes). The value of every move
// of p is proved by the win search (either side wins) or, for k of 5 and
// more, by two hold searches (neither side can win: a draw), within
// maxNodes nodes in all (0 or less means no limit). It reports false, with
// no error, when the value of some move is not proved within them. The
// plies of won and lost moves are not searched: Plies is 0 except for the
// moves that end the game and drawn moves (the free cells). The result
// depends only on p and maxNodes. X-O-X rules report false. It fails with
// ctx's error if ctx ends the search.
func (s *Solver) ProveWithin(ctx context.Context, p game.Position, maxNodes int64) (Analysis, bool, error) {
	if err := s.begin(ctx, p); err != nil {
		return Analysis{}, false, err
	}
	defer func() { s.stop.limit = 0 }()
	if s.geom.xox || p.Over() {
		return Analysis{}, false, nil
	}
	pv := &provers{s: s, budget: maxNodes, left: maxNodes}
	me := p.ToMove()
	a := Analysis{Value: winOf(me != game.X)} // the worst, until a move does better
	for m := p.Moves(); m != 0; m &= m - 1 {
		c := m.First()
		q := p.Apply(c)
		mv := MoveValue{Cell: c}
		switch {
		case q.Over():
			mv.Value, mv.Plies = q.Outcome().Result, 1
		default:
			v, ok := pv.value(q)
			if isDone(s.stop.done) {
				return Analysis{}, false, fmt.Errorf("ai: proving %s: %w", p, context.Cause(ctx))
			}
			if !ok {
				return Analysis{}, false, nil
			}
			mv.Value = v
			if v == game.Draw {
				mv.Plies = q.Empty().Count() + 1
			}
		}
		a.Moves = append(a.Moves, mv)
		if moveRank(mv, me) > moveRank(MoveValue{Value: a.Value}, me) {
			a.Value = mv.Value
		}
	}
	for _, mv := range a.Moves {
		if mv.Value == a.Value {
			a.Best = append(a.Best, mv.Cell)
		}
	}
	sortMoves(a.Moves, me)
	a.Nodes = pv.nodes()
	return a, true, nil
}

// provers holds the win and hold searches of one ProveWithin call, one per
// attacking side, so that what one move's search proves serves the next.
type provers struct {
	s      *Solver
	budget int64          // nodes for the whole call, 0 or less for no limit
	left   int64          // nodes left of the budget
	hold   [2]*holdSearch // by index(attacker is X)
	win    [2]*winSearch
}

// value proves the value of q, a position still going: a win for the side
// to move, a draw, or a win for the other side, in the order the searches
// are most likely to succeed.
func (pv *provers) value(q game.Position) (game.Result, bool) {
	x, o, xtm := q.X(), q.O(), q.ToMove() == game.X
	if q.Rules().K() >= 5 {
		// Draws are the rule on these boards: first that the opponent
		// cannot win.
		if pv.holds(!xtm, x, o) {
			if pv.holds(xtm, x, o) {
				return game.Draw, true
			}
			if pv.wins(xtm, x, o) {
				return winOf(xtm), true
			}
			return game.Ongoing, false
		}
		if pv.wins(!xtm, x, o) {
			return winOf(!xtm), true
		}
		return game.Ongoing, false
	}
	if pv.wins(xtm, x, o) {
		return winOf(xtm), true
	}
	if pv.wins(!xtm, x, o) {
		return winOf(!xtm), true
	}
	return game.Ongoing, false
}

// limit gives the next search, which has counted nodes so far, what is
// left of the budget, and reports false if nothing is.
func (pv *provers) limit(nodes int64) bool {
	pv.s.stop.stopped = false
	pv.s.stop.limit = 0
	if pv.budget > 0 {
		if pv.left <= 0 {
			return false
		}
		pv.s.stop.limit = nodes + pv.left
	}
	return true
}

// spent takes from the budget the nodes a search counted since it had
// counted from.
func (pv *provers) spent(from, to int64) {
	pv.left -= to - from
}

// holds reports whether the hold search proves that the attacker (X if
// atkX) cannot win from X on x, O on o.
func (pv *provers) holds(atkX bool, x, o game.Bitboard) bool {
	h := pv.hold[index(atkX)]
	if h == nil {
		h = newHoldSearch(pv.s.geom, atkX, &pv.s.stop, nil)
		pv.hold[index(atkX)] = h
	}
	h.next = 0 // the depths the last root failed below are its own
	from := h.nodes
	if !pv.limit(from) {
		return false
	}
	ok, _ := h.prove(x, o)
	pv.spent(from, h.nodes)
	return ok && !pv.s.stop.stopped
}

// wins reports whether the win search proves that the attacker (X if atkX)
// wins from X on x, O on o.
func (pv *provers) wins(atkX bool, x, o game.Bitboard) bool {
	w := pv.win[index(atkX)]
	if w == nil {
		w = newWinSearch(pv.s.geom, atkX, &pv.s.stop)
		pv.win[index(atkX)] = w
	}
	w.next = 0
	from := w.nodes
	if !pv.limit(from) {
		return false
	}
	ok, _ := w.prove(x, o)
	pv.spent(from, w.nodes)
	return ok
}

// nodes counts the nodes of every search.
func (pv *provers) nodes() int64 {
	var n int64
	for i := range 2 {
		if pv.hold[i] != nil {
			n += pv.hold[i].nodes
		}
		if pv.win[i] != nil {
			n += pv.win[i].nodes
		}
	}
	return n
}
