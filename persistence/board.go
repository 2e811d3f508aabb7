package persistence

import (
	"fmt"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/game/wide"
)

// Board is a session's position, replayed: a game.Position on the boards
// game plays (up to 8x8, and X-O-X), a wide.Position past them (up to
// 15x15, and the "exactly k" rules, notation "15x15k5e"). Which one a
// session has follows from its rules notation alone (see ParseBoardRules),
// so a game never changes engine.
type Board struct {
	small  game.Position
	wide   wide.Position
	isWide bool
}

// BoardRules are the rules of either engine, read from rules notation.
type BoardRules struct {
	// Small are game's rules; valid when Wide is not.
	Small game.Rules
	// Wide are wide's rules, for notations game refuses.
	Wide wide.Rules
}

// IsWide reports whether the rules are wide's.
func (r BoardRules) IsWide() bool { return r.Wide.Valid() }

// String returns the rules notation.
func (r BoardRules) String() string {
	if r.IsWide() {
		return r.Wide.String()
	}
	return r.Small.String()
}

// ParseBoardRules reads rules notation: game's when game reads it ("7x7k5",
// "4x3xox"), else wide's ("15x15k5", "9x9k5e"). An error says what both
// allow.
func ParseBoardRules(s string) (BoardRules, error) {
	if r, err := game.ParseRules(s); err == nil {
		return BoardRules{Small: r}, nil
	}
	r, err := wide.ParseRules(s)
	if err != nil {
		return BoardRules{}, err
	}
	return BoardRules{Wide: r}, nil
}

// IsWideRules reports whether rules notation names a wide board: one
// game refuses and game/wide reads (past 8x8, or exactly k).
func IsWideRules(rules string) bool {
	br, err := ParseBoardRules(rules)
	return err == nil && br.IsWide()
}

// NewBoard returns the empty board of r.
func NewBoard(r BoardRules) Board {
	if r.IsWide() {
		return Board{wide: wide.NewPosition(r.Wide), isWide: true}
	}
	return Board{small: game.NewPosition(r.Small)}
}

// IsWide reports whether the board is wide's.
func (b Board) IsWide() bool { return b.isWide }

// Small returns game's position (the zero Position on a wide board).
func (b Board) Small() game.Position { return b.small }

// Wide returns wide's position (the zero Position on a small board).
func (b Board) Wide() wide.Position { return b.wide }

// ToMove returns the side to move.
func (b Board) ToMove() game.Mark {
	if b.isWide {
		return b.wide.ToMove()
	}
	return b.small.ToMove()
}

// Over reports whether the game is decided.
func (b Board) Over() bool {
	if b.isWide {
		return b.wide.Over()
	}
	return b.small.Over()
}

// Result returns the outcome's result (game.Ongoing before the end).
func (b Board) Result() game.Result {
	if b.isWide {
		return b.wide.Outcome().Result
	}
	return b.small.Outcome().Result
}

// Ply returns the number of marks on the board.
func (b Board) Ply() int {
	if b.isWide {
		return b.wide.Ply()
	}
	return b.small.Ply()
}

// Rows and Cols return the board's size.
func (b Board) Rows() int {
	if b.isWide {
		return b.wide.Rules().Rows()
	}
	return b.small.Rules().Rows()
}

// Cols returns the number of columns.
func (b Board) Cols() int {
	if b.isWide {
		return b.wide.Rules().Cols()
	}
	return b.small.Rules().Cols()
}

// At returns the mark at the 0-based row and column (game.Empty off the
// board).
func (b Board) At(row, col int) game.Mark {
	if row < 0 || col < 0 || row >= b.Rows() || col >= b.Cols() {
		return game.Empty
	}
	if b.isWide {
		return b.wide.At(wide.NewCell(row, col))
	}
	return b.small.At(game.NewCell(row, col))
}

// ParseCell reads a cell as its engine's rules read one: a name ("h8",
// any case) or 0-based "row col", on the board. It returns the 0-based row
// and column, or an error wrapping game.ErrBadCell that says what is
// allowed.
func (b Board) ParseCell(s string) (row, col int, err error) {
	if b.isWide {
		c, err := b.wide.Rules().ParseCell(s)
		return c.Row(), c.Col(), err
	}
	c, err := b.small.Rules().ParseCell(s)
	return c.Row(), c.Col(), err
}

// WinCells returns the cells of the winning line as (row, col) pairs, none
// before the end or after a draw.
func (b Board) WinCells() [][2]int {
	var out [][2]int
	if b.isWide {
		for _, c := range b.wide.Outcome().Cells.Cells() {
			out = append(out, [2]int{c.Row(), c.Col()})
		}
		return out
	}
	for _, c := range b.small.Outcome().Cells.Cells() {
		out = append(out, [2]int{c.Row(), c.Col()})
	}
	return out
}

// play returns the board after the side to move marks the cell at row and
// col, the move as the session stores it, or an error wrapping game's
// sentinels that says what is wrong.
func (b Board) play(row, col int) (Board, int, error) {
	if row < 0 || col < 0 || row >= b.Rows() || col >= b.Cols() {
		return b, 0, fmt.Errorf("%w: row %d, column %d is off the %dx%d board", game.ErrBadCell, row, col, b.Rows(), b.Cols())
	}
	if b.isWide {
		c := wide.NewCell(row, col)
		p, err := b.wide.Play(c)
		return Board{wide: p, isWide: true}, int(c), err
	}
	c := game.NewCell(row, col)
	p, err := b.small.Play(c)
	return Board{small: p}, int(c), err
}
