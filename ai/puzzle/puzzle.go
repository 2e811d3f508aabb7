package puzzle

import (
	"errors"
	"fmt"

	"github.com/tttbot/ttt-bot/game"
)

// Sentinel errors. Errors returned by this package wrap one of them, or
// the context's error, or game.ErrBadRules for rules that are not valid.
var (
	// ErrNone reports that no puzzle was found for the rules: no position
	// of the corpus or of the self-play games qualified.
	ErrNone = errors.New("puzzle: no puzzle found")
	// ErrNotPuzzle reports a puzzle whose claims do not hold; the message
	// says which claim fails.
	ErrNotPuzzle = errors.New("puzzle: not a puzzle")
	// ErrBadSide reports a side that is neither X nor O.
	ErrBadSide = errors.New("puzzle: bad side")
)

// The sources a puzzle can come from, for Puzzle.Source.
const (
	// SourceCorpus marks a puzzle taken from a position of a real game.
	SourceCorpus = "corpus"
	// SourceSelfPlay marks a puzzle taken from a self-play game.
	SourceSelfPlay = "self-play"
)

// Game is a game to draw puzzle positions from: a start and the moves
// played. Every position along it is a candidate; play stops at the first
// move that is not legal.
type Game struct {
	Start game.Position
	Moves []game.Cell
}

// Puzzle is a position in which the side to move has a forced win that is
// not obvious, with what the solver says about it.
type Puzzle struct {
	// Rules are the rules the puzzle is played under.
	Rules game.Rules
	// Position is the puzzle: Side is to move and has a forced win.
	Position game.Position
	// Side is the side to move, who wins.
	Side game.Mark
	// Winning holds every move that keeps the forced win, row-major.
	Winning []game.Cell
	// Plies is the length of the fastest win from Position against the
	// slowest defence, in plies, counting Side's first move.
	Plies int
	// OnlyMove reports that exactly one move wins.
	OnlyMove bool
	// Source tells where the position comes from: SourceCorpus or
	// SourceSelfPlay.
	Source string
}

// String describes the puzzle in one line for logs and the command line,
// as in "5x5k4 X to move, wins in 7 (only move)".
func (p Puzzle) String() string {
	s := fmt.Sprintf("%s %s to move, wins in %d", p.Rules, p.Side, p.Plies)
	if p.OnlyMove {
		return s + " (only move)"
	}
	return fmt.Sprintf("%s (%d winning moves)", s, len(p.Winning))
}
