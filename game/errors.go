package game

import "errors"

// Sentinel errors. Every error returned by this package wraps one of them,
// with a message that says what was wrong and what is allowed.
var (
	// ErrBadRules reports rules notation or parameters outside what the engine plays.
	ErrBadRules = errors.New("game: bad rules")
	// ErrBadCell reports a cell name that does not parse or lies off the board.
	ErrBadCell = errors.New("game: bad cell")
	// ErrBadPosition reports position notation that does not describe a reachable position.
	ErrBadPosition = errors.New("game: bad position")
	// ErrCellTaken reports a move onto a cell that already holds a mark.
	ErrCellTaken = errors.New("game: cell taken")
	// ErrGameOver reports a move in a position that is already decided.
	ErrGameOver = errors.New("game: game over")
)
