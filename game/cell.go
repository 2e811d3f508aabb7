package game

import (
	"fmt"
	"strconv"
	"strings"
)

// Cell names one square of the board: row*8 + col, both 0-based from the
// top-left corner. A Cell is only meaningful together with Rules that say
// how big the board is.
type Cell uint8

// NewCell returns the cell at the 0-based row and column. It does not check
// the range; Rules.Contains does.
func NewCell(row, col int) Cell { return Cell(row<<3 | col) }

// Row returns the 0-based row.
func (c Cell) Row() int { return int(c >> 3) }

// Col returns the 0-based column.
func (c Cell) Col() int { return int(c & 7) }

// String returns the letter-number name: the column as a letter from "a",
// then the row counted from 1 at the top. NewCell(1, 2) is "c2".
func (c Cell) String() string {
	return string(rune('a'+c.Col())) + strconv.Itoa(c.Row()+1)
}

// RowCol returns the 0-based "row col" form, as in "1 2".
func (c Cell) RowCol() string {
	return strconv.Itoa(c.Row()) + " " + strconv.Itoa(c.Col())
}

// ParseCell reads a cell in either form: 0-based "row col" ("1 2", also
// "1,2") or the letter-number name ("c2", any case). It fails with
// ErrBadCell when the text is neither or the cell is off the board.
func (r Rules) ParseCell(s string) (Cell, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("%w: empty; write a cell as \"row col\" (0-based, like \"1 2\") or as a name like \"c2\"", ErrBadCell)
	}
	var row, col int
	if l := t[0] | 0x20; l >= 'a' && l <= 'z' {
		n, err := strconv.Atoi(t[1:])
		if err != nil || t[1:] == "" || t[1] == '+' || t[1] == '-' {
			return 0, fmt.Errorf("%w: %q is not a cell name; a name is a column letter and a row number, like \"c2\"", ErrBadCell, s)
		}
		col, row = int(l-'a'), n-1
	} else {
		f := strings.FieldsFunc(t, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' })
		if len(f) != 2 {
			return 0, fmt.Errorf("%w: %q is not a cell; write \"row col\" (two 0-based numbers, like \"1 2\") or a name like \"c2\"", ErrBadCell, s)
		}
		var err1, err2 error
		row, err1 = strconv.Atoi(f[0])
		col, err2 = strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			return 0, fmt.Errorf("%w: %q is not a cell; row and column must be whole numbers, like \"1 2\"", ErrBadCell, s)
		}
	}
	if row < 0 || row >= r.Rows() || col < 0 || col >= r.Cols() {
		last := NewCell(r.Rows()-1, r.Cols()-1)
		return 0, fmt.Errorf("%w: %q is off the %dx%d board; rows are 0-%d and columns 0-%d (names a1 to %s)",
			ErrBadCell, s, r.Rows(), r.Cols(), r.Rows()-1, r.Cols()-1, last)
	}
	return NewCell(row, col), nil
}
