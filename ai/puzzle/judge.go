package puzzle

import (
	"context"
	"fmt"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/game"
)

// Status is where someone playing a puzzle out stands after a move.
type Status uint8

// The statuses.
const (
	// Playing means the player still has a forced win and the game goes on.
	Playing Status = iota
	// Solved means the player has won.
	Solved
	// Failed means the move gave the forced win away: the game can now
	// be held to a draw, or is lost, or ended without the player winning.
	Failed
)

// String returns "playing", "solved" or "failed".
func (s Status) String() string {
	switch s {
	case Solved:
		return "solved"
	case Failed:
		return "failed"
	}
	return "playing"
}

// Judge judges a move of someone playing a puzzle out as side against the
// perfect AI: after is the position after that move. It returns Solved if
// side has won, Failed if side no longer has a forced win (including a game
// that ended in a draw or that side lost), and Playing otherwise. s is the
// solver to use, so that its table carries over between the moves of one
// puzzle; nil means a fresh one. It fails with ErrBadSide for a side that
// is neither X nor O, with game.ErrBadRules for a position without rules,
// and with ctx's error if ctx ends the solve.
func Judge(ctx context.Context, s *ai.Solver, side game.Mark, after game.Position) (Status, error) {
	switch {
	case side != game.X && side != game.O:
		return Playing, fmt.Errorf("%w: %q; the side is X or O", ErrBadSide, side)
	case !after.Rules().Valid():
		return Playing, fmt.Errorf("puzzle: judge: %w: position has no rules", game.ErrBadRules)
	case after.Over():
		if after.Outcome().Winner() == side {
			return Solved, nil
		}
		return Failed, nil
	}
	if s == nil {
		s = ai.NewSolver()
	}
	v, err := s.Value(ctx, after)
	if err != nil {
		return Playing, fmt.Errorf("puzzle: judge: %w", err)
	}
	if v == winOf(side) {
		return Playing, nil
	}
	return Failed, nil
}
