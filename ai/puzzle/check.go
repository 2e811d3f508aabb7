package puzzle

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/game"
)

// examine reports whether p is a puzzle and, if it is, returns it without
// its Source. Positions whose wins the search cannot measure within
// maxNodes are not puzzles.
//
// The order keeps the dear part, the value of every move, for the few
// positions that need it: after the value of p, a bounded search finds
// the moves that force a win in fewer than minPlies plies. Two or more
// such moves make p neither deep nor an only-move win; one makes it a
// puzzle only if no other move wins; none makes it deep.
func examine(ctx context.Context, s *ai.Solver, p game.Position, minPlies int, maxNodes int64) (Puzzle, bool, error) {
	me := p.ToMove()
	if p.Over() || p.Threats(me) != 0 {
		return Puzzle{}, false, nil
	}
	v, err := s.Value(ctx, p)
	if err != nil || v != winOf(me) {
		return Puzzle{}, false, err
	}
	m := newMate(p.Rules(), me, maxNodes)
	var quick []game.Cell
	if minPlies > 2 {
		quick, err = m.quick(ctx, p, minPlies-1)
		if errors.Is(err, errBudget) || len(quick) > 1 {
			return Puzzle{}, false, nil
		}
		if err != nil {
			return Puzzle{}, false, err
		}
	}
	var winning []game.Cell
	if len(quick) == 1 {
		// The only move, unless another move wins more slowly.
		for c := p.Moves().Without(quick[0]); c != 0; c &= c - 1 {
			win, err := wins(ctx, s, p, c.First())
			if err != nil || win {
				return Puzzle{}, false, err
			}
		}
		winning = quick
	} else if winning, err = winningMoves(ctx, s, p); err != nil {
		return Puzzle{}, false, err
	}
	if len(winning) == p.Moves().Count() {
		// Any move wins: the first move is no puzzle.
		return Puzzle{}, false, nil
	}
	plies, err := m.fastest(ctx, p, winning, p.Empty().Count())
	switch {
	case errors.Is(err, errBudget):
		return Puzzle{}, false, nil
	case err != nil:
		return Puzzle{}, false, err
	case plies == 0:
		return Puzzle{}, false, fmt.Errorf("puzzle: %s %s: the solver finds a win for %s that the search for its length does not", p.Rules(), p, me)
	}
	only := len(winning) == 1
	if !only && plies < minPlies {
		return Puzzle{}, false, nil // not reached: such a win is found quick above
	}
	return Puzzle{Rules: p.Rules(), Position: p, Side: me, Winning: winning, Plies: plies, OnlyMove: only}, true, nil
}

// wins reports whether the side to move in p keeps a forced win by
// playing c.
func wins(ctx context.Context, s *ai.Solver, p game.Position, c game.Cell) (bool, error) {
	me, q := p.ToMove(), p.Apply(c)
	if q.Over() {
		return q.Outcome().Winner() == me, nil
	}
	v, err := s.Value(ctx, q)
	return v == winOf(me), err
}

// winningMoves returns the moves of p after which the side to move still
// has a forced win, in row-major order.
func winningMoves(ctx context.Context, s *ai.Solver, p game.Position) ([]game.Cell, error) {
	var out []game.Cell
	for m := p.Moves(); m != 0; m &= m - 1 {
		win, err := wins(ctx, s, p, m.First())
		if err != nil {
			return nil, err
		}
		if win {
			out = append(out, m.First())
		}
	}
	return out, nil
}

// Check re-derives what p claims with a fresh solver and a fresh search:
// the position is under p.Rules and not over, Side is to move and has a
// forced win, no move wins at once, Winning is exactly the set of winning
// moves in row-major order, OnlyMove says whether there is one, and the
// fastest win takes Plies plies. It returns nil if all of that holds, an
// error wrapping ErrNotPuzzle that names the first claim that fails, or
// ctx's error. Whether the win is deep enough (Options.MinPlies) is a
// setting of Generate that a puzzle does not record, so it is not checked;
// nor is Source.
func Check(ctx context.Context, p Puzzle) error {
	pos := p.Position
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s (%s): %s", ErrNotPuzzle, p, pos, fmt.Sprintf(format, args...))
	}
	switch {
	case !p.Rules.Valid():
		return fmt.Errorf("%w: no rules given", ErrNotPuzzle)
	case !pos.Rules().Valid() || !pos.Rules().Equal(p.Rules):
		return fail("the position is played under %s, not %s", pos.Rules(), p.Rules)
	case pos.Over():
		return fail("the game is over (%s)", pos.Outcome().Result)
	case p.Side != pos.ToMove():
		return fail("%s is to move, not %s", pos.ToMove(), p.Side)
	}
	if t := pos.Threats(p.Side); t != 0 {
		return fail("%s wins at once at %s", p.Side, cells(t.Cells()))
	}
	s := ai.NewSolver()
	v, err := s.Value(ctx, pos)
	if err != nil {
		return fmt.Errorf("puzzle: check: %w", err)
	}
	if v != winOf(p.Side) {
		return fail("%s has no forced win; with best play the game is %s", p.Side, v)
	}
	winning, err := winningMoves(ctx, s, pos)
	if err != nil {
		return fmt.Errorf("puzzle: check: %w", err)
	}
	if !slices.Equal(winning, p.Winning) {
		return fail("the winning moves are %s, not %s", cells(winning), cells(p.Winning))
	}
	if p.OnlyMove != (len(winning) == 1) {
		if p.OnlyMove {
			return fail("OnlyMove is claimed, but %d moves win", len(winning))
		}
		return fail("OnlyMove is not claimed, but only %s wins", winning[0])
	}
	// Search only as deep as the claim: a wrong claim fails at once.
	limit := min(p.Plies, pos.Empty().Count())
	plies, err := newMate(pos.Rules(), p.Side, 0).fastest(ctx, pos, winning, limit)
	switch {
	case err != nil:
		return err
	case plies == 0:
		return fail("%s cannot force a win within %d plies", p.Side, p.Plies)
	case plies != p.Plies:
		return fail("the fastest win takes %d plies, not %d", plies, p.Plies)
	}
	return nil
}

// cells names a list of cells, as in "[b2 c3]".
func cells(cs []game.Cell) string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.String()
	}
	return fmt.Sprint(out)
}

// winOf returns the result in which side wins.
func winOf(side game.Mark) game.Result {
	if side == game.X {
		return game.XWins
	}
	return game.OWins
}
