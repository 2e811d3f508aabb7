package game

import (
	"fmt"
	"strings"
)

// ParsePosition reads position notation for r: the cells in row-major order
// as X, O or - (x, o and . are accepted too), rows optionally separated by
// "/". "----X---O" and "---/-X-/--O" are the same 3x3 position. The side
// to move follows from the counts. It fails with ErrBadPosition, saying what
// was wrong, for a bad character, a wrong length, impossible counts, or a
// position in which the game was over before the last move.
func ParsePosition(r Rules, s string) (Position, error) {
	if !r.Valid() {
		return Position{}, fmt.Errorf("%w: no rules given", ErrBadRules)
	}
	t := strings.TrimSpace(s)
	shape := fmt.Sprintf("a %dx%d board takes %d cells of X, O or -, optionally as %d rows of %d separated by /",
		r.Rows(), r.Cols(), r.Size(), r.Rows(), r.Cols())
	var x, o Bitboard
	rows := strings.Split(t, "/")
	slashed := len(rows) > 1
	if slashed && len(rows) != r.Rows() {
		return Position{}, fmt.Errorf("%w: %q has %d rows; %s", ErrBadPosition, s, len(rows), shape)
	}
	i := 0 // cell index in row-major order
	for ri, row := range rows {
		if slashed && len(row) != r.Cols() {
			return Position{}, fmt.Errorf("%w: %q: row %d has %d cells; %s", ErrBadPosition, s, ri+1, len(row), shape)
		}
		for j := range len(row) {
			if i >= r.Size() {
				return Position{}, fmt.Errorf("%w: %q has more than %d cells; %s", ErrBadPosition, s, r.Size(), shape)
			}
			c := NewCell(i/r.Cols(), i%r.Cols())
			switch row[j] {
			case 'X', 'x':
				x = x.With(c)
			case 'O', 'o':
				o = o.With(c)
			case '-', '.':
			default:
				return Position{}, fmt.Errorf("%w: %q: bad character %q at cell %d; cells are X, O or - (and / between rows)",
					ErrBadPosition, s, row[j], i+1)
			}
			i++
		}
	}
	if i != r.Size() {
		return Position{}, fmt.Errorf("%w: %q has %d cells; %s", ErrBadPosition, s, i, shape)
	}
	return FromMarks(r, x, o)
}

// FromMarks builds the position with X on x and O on o, checking that it
// can arise in a game: marks on the board and on distinct cells, X level
// with O or one ahead, and the game not already over before the last move.
func FromMarks(r Rules, x, o Bitboard) (Position, error) {
	if !r.Valid() {
		return Position{}, fmt.Errorf("%w: no rules given", ErrBadRules)
	}
	if (x|o)&^r.Board() != 0 || x&o != 0 {
		return Position{}, fmt.Errorf("%w: marks off the %s board or two marks on one cell", ErrBadPosition, r)
	}
	nx, no := x.Count(), o.Count()
	switch {
	case no > nx:
		return Position{}, fmt.Errorf("%w: O has %d marks and X %d; X moves first, so X has as many marks as O or one more", ErrBadPosition, no, nx)
	case nx > no+1:
		return Position{}, fmt.Errorf("%w: X has %d marks and O %d; X can be at most one mark ahead", ErrBadPosition, nx, no)
	}
	p := Position{rules: r, x: x, o: o, outcome: r.outcomeOf(x, o)}
	if p.outcome.Result == XWins || p.outcome.Result == OWins {
		// Some mark of the side that moved last must be the one that
		// decided the game: without it, the game must still be going.
		last, own := X, x
		if nx == no {
			last, own = O, o
		}
		ok := false
		for c := own; c != 0 && !ok; c &= c - 1 {
			px, po := x, o
			if last == X {
				px = px.Without(c.First())
			} else {
				po = po.Without(c.First())
			}
			ok = !r.outcomeOf(px, po).Over()
		}
		if !ok {
			return Position{}, fmt.Errorf("%w: the game was already over before %s's last move; a position must be reachable by legal play", ErrBadPosition, last)
		}
	}
	return p, nil
}

// String returns the position notation with rows separated by "/", as in
// "---/-X-/--O". ParsePosition reads it back.
func (p Position) String() string {
	var b strings.Builder
	for row := range p.rules.Rows() {
		if row > 0 {
			b.WriteByte('/')
		}
		for col := range p.rules.Cols() {
			b.WriteString(p.At(NewCell(row, col)).String())
		}
	}
	return b.String()
}

// Diagram draws the board for a terminal: column letters across the top,
// row numbers from 1 down the side, and "." for a free cell.
func (p Position) Diagram() string {
	var b strings.Builder
	b.WriteString("  ")
	for col := range p.rules.Cols() {
		b.WriteByte(' ')
		b.WriteByte(byte('a' + col))
	}
	b.WriteByte('\n')
	for row := range p.rules.Rows() {
		fmt.Fprintf(&b, "%2d", row+1)
		for col := range p.rules.Cols() {
			b.WriteByte(' ')
			if m := p.At(NewCell(row, col)); m == Empty {
				b.WriteByte('.')
			} else {
				b.WriteString(m.String())
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}
