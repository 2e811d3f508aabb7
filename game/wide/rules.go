// Package wide is the rules engine for boards past game's 8x8: m x n boards
// up to 15x15 with k from 3 to 6 in a row, where k or more in a row wins
// (freestyle) or exactly k does (an overline does not win), gomoku's
// 15x15k5 among them. It keeps a position as an array of marks, one byte a
// cell, which costs the small boards nothing: game, with its 64-bit
// bitboards, stays the engine of boards up to 8x8, and the two agree on
// every board both play (TestAgreesWithGame).
//
// It shares game's marks, results and errors: every error wraps one of
// game's sentinels (game.ErrBadRules, game.ErrBadCell, game.ErrBadPosition,
// game.ErrCellTaken, game.ErrGameOver) with a message that says what was
// wrong and what is allowed. Cells are named as in game: the column as a
// letter from "a", the row counted from 1 at the top ("h8" is the centre
// of 15x15).
package wide

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tttbot/ttt-bot/game"
)

// Limits of the rules.
const (
	MinSize = 3  // fewest rows or columns
	MaxSize = 15 // most rows or columns
	MinK    = 3  // shortest winning line
	MaxK    = 6  // longest winning line
)

// stride is the distance between rows in cell numbers: a Cell is
// row*stride + col.
const stride = 16

// Rules describe a game: the board, the line length and whether a line
// longer than k wins. The zero value is not valid; compare with ==.
type Rules struct {
	rows, cols, k uint8
	exact         bool
}

// NewRules returns the rules of a rows x cols board with k in a row: k or
// more wins, or with exact exactly k.
func NewRules(rows, cols, k int, exact bool) (Rules, error) {
	if rows < MinSize || rows > MaxSize || cols < MinSize || cols > MaxSize {
		return Rules{}, fmt.Errorf("%w: %dx%d board; rows and columns must each be from %d to %d", game.ErrBadRules, rows, cols, MinSize, MaxSize)
	}
	if hi := min(MaxK, max(rows, cols)); k < MinK || k > hi {
		return Rules{}, fmt.Errorf("%w: k=%d on a %dx%d board; k must be from %d to %d", game.ErrBadRules, k, rows, cols, MinK, hi)
	}
	return Rules{rows: uint8(rows), cols: uint8(cols), k: uint8(k), exact: exact}, nil
}

// Gomoku returns 15x15, five in a row, freestyle (five or more wins).
func Gomoku() Rules { return Rules{rows: 15, cols: 15, k: 5} }

// StandardGomoku returns 15x15, exactly five in a row (an overline does
// not win).
func StandardGomoku() Rules { return Rules{rows: 15, cols: 15, k: 5, exact: true} }

// names are the presets ParseRules accepts by name.
var names = map[string]Rules{
	"gomoku":          Gomoku(),
	"freestyle":       Gomoku(),
	"standard-gomoku": StandardGomoku(),
	"standard":        StandardGomoku(),
}

// ParseRules reads rules notation: rows "x" cols "k" and the line length,
// then "e" for exactly k ("15x15k5", "15x15k5e", "9x9k5"), or a preset's
// name: "gomoku" (15x15k5) or "standard-gomoku" (15x15k5e). Case and
// surrounding space are ignored.
func ParseRules(s string) (Rules, error) {
	const allowed = `write rows x cols then k and the line length, and "e" if exactly k wins (an overline does not), like "15x15k5", "15x15k5e" or "9x9k5", or a preset: "gomoku", "standard-gomoku"`
	t := strings.ToLower(strings.TrimSpace(s))
	if r, ok := names[t]; ok {
		return r, nil
	}
	rows, rest, ok1 := strings.Cut(t, "x")
	cols, tail, ok2 := strings.Cut(rest, "k")
	if !ok1 || !ok2 {
		return Rules{}, fmt.Errorf("%w: %q: %s", game.ErrBadRules, s, allowed)
	}
	exact := strings.HasSuffix(tail, "e")
	tail = strings.TrimSuffix(tail, "e")
	nr, err1 := number(rows)
	nc, err2 := number(cols)
	k, err3 := number(tail)
	if err1 != nil || err2 != nil || err3 != nil {
		return Rules{}, fmt.Errorf("%w: %q: %s", game.ErrBadRules, s, allowed)
	}
	return NewRules(nr, nc, k, exact)
}

// number reads a short run of ASCII digits.
func number(s string) (int, error) {
	if s == "" || len(s) > 3 {
		return 0, strconv.ErrSyntax
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return 0, strconv.ErrSyntax
		}
	}
	return strconv.Atoi(s)
}

// String returns the notation ParseRules reads: "15x15k5", "15x15k5e".
func (r Rules) String() string {
	s := fmt.Sprintf("%dx%dk%d", r.rows, r.cols, r.k)
	if r.exact {
		s += "e"
	}
	return s
}

// Name returns the preset's name ("gomoku", "standard gomoku"), or the
// notation for other rules.
func (r Rules) Name() string {
	switch r {
	case Gomoku():
		return "gomoku"
	case StandardGomoku():
		return "standard gomoku"
	}
	return r.String()
}

// Valid reports whether r came from NewRules, ParseRules or a preset.
func (r Rules) Valid() bool { return r.k != 0 }

// Rows returns the number of rows.
func (r Rules) Rows() int { return int(r.rows) }

// Cols returns the number of columns.
func (r Rules) Cols() int { return int(r.cols) }

// K returns the length of a winning line.
func (r Rules) K() int { return int(r.k) }

// Exact reports whether only exactly K in a row wins.
func (r Rules) Exact() bool { return r.exact }

// Size returns the number of cells.
func (r Rules) Size() int { return int(r.rows) * int(r.cols) }

// Contains reports whether c is on the board.
func (r Rules) Contains(c Cell) bool { return c.Row() < int(r.rows) && c.Col() < int(r.cols) }

// Cells returns every cell of the board in row-major order.
func (r Rules) Cells() []Cell {
	out := make([]Cell, 0, r.Size())
	for row := range int(r.rows) {
		for col := range int(r.cols) {
			out = append(out, NewCell(row, col))
		}
	}
	return out
}

// Center returns the centre cell (the upper-left of the middle four on an
// even side).
func (r Rules) Center() Cell { return NewCell((int(r.rows)-1)/2, (int(r.cols)-1)/2) }

// Cell names one square of a board: row*16 + col, both 0-based from the
// top-left corner.
type Cell uint8

// NewCell returns the cell at the 0-based row and column. It does not check
// the range; Rules.Contains does.
func NewCell(row, col int) Cell { return Cell(row*stride + col) }

// Row returns the 0-based row.
func (c Cell) Row() int { return int(c) / stride }

// Col returns the 0-based column.
func (c Cell) Col() int { return int(c) % stride }

// String returns the letter-number name: "a1" is the top-left corner, "h8"
// the centre of 15x15.
func (c Cell) String() string { return string(rune('a'+c.Col())) + strconv.Itoa(c.Row()+1) }

// ParseCell reads a cell name ("h8", any case) or 0-based "row col" ("7 7",
// also "7,7"), and checks that it is on the board.
func (r Rules) ParseCell(s string) (Cell, error) {
	last := string(rune('a'+r.cols-1)) + strconv.Itoa(int(r.rows))
	t := strings.ToLower(strings.TrimSpace(s))
	var row, col int
	switch {
	case t == "":
		return 0, fmt.Errorf("%w: empty; write a cell as a column letter and a row number, like \"h8\" (a1 to %s)", game.ErrBadCell, last)
	case t[0] >= 'a' && t[0] <= 'z':
		n, err := number(t[1:])
		if err != nil {
			return 0, fmt.Errorf("%w: %q is not a cell; a cell is a column letter and a row number, like \"h8\" (a1 to %s)", game.ErrBadCell, s, last)
		}
		row, col = n-1, int(t[0]-'a')
	default:
		f := strings.FieldsFunc(t, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' })
		var err1, err2 error
		if len(f) == 2 {
			row, err1 = number(f[0])
			col, err2 = number(f[1])
		}
		if len(f) != 2 || err1 != nil || err2 != nil {
			return 0, fmt.Errorf("%w: %q is not a cell; write a name like \"h8\" (a1 to %s) or 0-based \"row col\" like \"7 7\"", game.ErrBadCell, s, last)
		}
	}
	if row < 0 || col < 0 || row >= int(r.rows) || col >= int(r.cols) {
		return 0, fmt.Errorf("%w: %q is off the %dx%d board; cells run from a1 to %s", game.ErrBadCell, s, r.rows, r.cols, last)
	}
	return NewCell(row, col), nil
}
