package ai

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/tttbot/ttt-bot/game"
)

// Errors returned by players and the registry.
var (
	// ErrNoMoves reports a request for a move in a finished game.
	ErrNoMoves = errors.New("ai: no legal moves")
	// ErrUnknownLevel reports a level name the registry does not know.
	ErrUnknownLevel = errors.New("ai: unknown level")
	// ErrBadOption reports a level option outside its allowed range.
	ErrBadOption = errors.New("ai: bad option")
)

// Player chooses a move for the side to move in p. It must return before
// ctx's deadline (with its best move so far, or ctx's error if it has none)
// and fails with ErrNoMoves if the game is over. A Player may keep state
// between calls (a search tree, a table), so one Player serves one game at
// a time; players are not safe for concurrent use.
type Player interface {
	Move(ctx context.Context, p game.Position) (game.Cell, error)
}

// Options are the settings a level may use; each level reads the ones it
// knows and ignores the rest. The zero value asks for every default.
type Options struct {
	// Seed makes a player's random choices reproducible (when Rand is nil).
	Seed uint64
	// Rand, if set, is the random source; it takes precedence over Seed.
	Rand *rand.Rand
	// Depth limits minimax search, in plies; 0 means no limit.
	Depth int
	// Budget is the time a player may think per move; 0 means the level's
	// default.
	Budget time.Duration
	// Iterations caps MCTS iterations per move; 0 means the level's default.
	Iterations int
	// Exploration is the UCT exploration constant; 0 means the default
	// (sqrt 2, for rewards in [0, 1]).
	Exploration float64
	// Load, from 0 to 1, asks the level to think less because the machine
	// is busy: 0 is the full budget, 1 the level's floor. Each level gives
	// up only what its floor allows (see Level.Floor); levels without a
	// budget ignore it.
	Load float64
}

// rng returns the random source the options ask for.
func (o Options) rng() *rand.Rand {
	if o.Rand != nil {
		return o.Rand
	}
	return rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))
}

// check validates the options every level shares.
func (o Options) check() error {
	switch {
	case o.Depth < 0:
		return fmt.Errorf("%w: depth %d; depth is a number of plies, 0 (no limit) or more", ErrBadOption, o.Depth)
	case o.Budget < 0:
		return fmt.Errorf("%w: time budget %s; it must be 0 (the level's default) or more", ErrBadOption, o.Budget)
	case o.Iterations < 0:
		return fmt.Errorf("%w: iterations %d; they must be 0 (the level's default) or more", ErrBadOption, o.Iterations)
	case o.Exploration < 0:
		return fmt.Errorf("%w: exploration %g; it must be 0 (the default, sqrt 2) or more", ErrBadOption, o.Exploration)
	case !(o.Load >= 0 && o.Load <= 1):
		return fmt.Errorf("%w: load %g; it must be from 0 (full budget) to 1 (the level's floor)", ErrBadOption, o.Load)
	}
	return nil
}

// pick returns a uniformly random cell of a non-empty set.
func pick(rng *rand.Rand, b game.Bitboard) game.Cell {
	for n := rng.IntN(b.Count()); n > 0; n-- {
		b &= b - 1
	}
	return b.First()
}
