package wide

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/tttbot/ttt-bot/game"
)

// Set is a set of cells: bit c of the 256.
type Set [4]uint64

// Has reports whether c is in the set.
func (s Set) Has(c Cell) bool { return s[c>>6]&(1<<(c&63)) != 0 }

// Add puts c in the set.
func (s *Set) Add(c Cell) { s[c>>6] |= 1 << (c & 63) }

// Count returns the number of cells in the set.
func (s Set) Count() int {
	return bits.OnesCount64(s[0]) + bits.OnesCount64(s[1]) + bits.OnesCount64(s[2]) + bits.OnesCount64(s[3])
}

// Cells returns the cells of the set in increasing order (row-major).
func (s Set) Cells() []Cell {
	out := make([]Cell, 0, s.Count())
	for w, word := range s {
		for ; word != 0; word &= word - 1 {
			out = append(out, Cell(w*64+bits.TrailingZeros64(word)))
		}
	}
	return out
}

// Outcome is the result of a position and, for a win, the cells of every
// winning line the deciding move made, for drawing.
type Outcome struct {
	Result game.Result
	Cells  Set
}

// Over reports whether the game is decided.
func (o Outcome) Over() bool { return o.Result != game.Ongoing }

// Winner returns X or O for a win and game.Empty otherwise.
func (o Outcome) Winner() game.Mark {
	switch o.Result {
	case game.XWins:
		return game.X
	case game.OWins:
		return game.O
	}
	return game.Empty
}

// Position is a board with its marks, the side to move and the outcome.
// It is a value (about 300 bytes): Apply returns a new one. The zero value
// is not valid; start from NewPosition.
type Position struct {
	rules   Rules
	cells   [stride * MaxSize]game.Mark
	ply     int16
	last    Cell
	outcome Outcome
}

// NewPosition returns the empty board of r, X to move.
func NewPosition(r Rules) Position { return Position{rules: r, last: noCell} }

// Rules returns the position's rules.
func (p Position) Rules() Rules { return p.rules }

// At returns the mark on c (game.Empty off the board).
func (p Position) At(c Cell) game.Mark {
	if !p.rules.Contains(c) {
		return game.Empty
	}
	return p.cells[c]
}

// Ply returns the number of marks on the board.
func (p Position) Ply() int { return int(p.ply) }

// ToMove returns the side to move: X when the counts are level.
func (p Position) ToMove() game.Mark {
	if p.ply%2 == 0 {
		return game.X
	}
	return game.O
}

// Last returns the last move played, if any. A position read from
// notation has none.
func (p Position) Last() (Cell, bool) { return p.last, p.last != noCell }

// noCell marks a position without a last move (its row is past the board).
const noCell = Cell(255)

// Outcome returns the outcome.
func (p Position) Outcome() Outcome { return p.outcome }

// Over reports whether the game is decided.
func (p Position) Over() bool { return p.outcome.Over() }

// Moves returns the free cells, none when the game is over.
func (p Position) Moves() Set {
	var s Set
	if p.Over() {
		return s
	}
	for row := range int(p.rules.rows) {
		for col := range int(p.rules.cols) {
			if c := NewCell(row, col); p.cells[c] == game.Empty {
				s.Add(c)
			}
		}
	}
	return s
}

// Play returns the position after the side to move marks c. It fails with
// game.ErrBadCell off the board, game.ErrCellTaken on a marked cell and
// game.ErrGameOver once the game is decided.
func (p Position) Play(c Cell) (Position, error) {
	switch {
	case !p.rules.Valid():
		return p, fmt.Errorf("%w: no rules given", game.ErrBadRules)
	case !p.rules.Contains(c):
		return p, fmt.Errorf("%w: %s is off the %dx%d board", game.ErrBadCell, c, p.rules.rows, p.rules.cols)
	case p.Over():
		return p, fmt.Errorf("%w: %s; no move can be played", game.ErrGameOver, p.outcome.Result)
	case p.cells[c] != game.Empty:
		return p, fmt.Errorf("%w: %s holds %s", game.ErrCellTaken, c, p.cells[c])
	}
	return p.Apply(c), nil
}

// Apply is Play for a move known to be legal; it panics otherwise.
func (p Position) Apply(c Cell) Position {
	if !p.rules.Contains(c) || p.cells[c] != game.Empty || p.Over() {
		panic(fmt.Sprintf("wide: illegal move %s in %s", c, &p))
	}
	m := p.ToMove()
	p.cells[c] = m
	p.ply++
	p.last = c
	if line, ok := p.wins(c, m); ok {
		p.outcome = Outcome{Result: winFor(m), Cells: line}
	} else if int(p.ply) == p.rules.Size() {
		p.outcome = Outcome{Result: game.Draw}
	}
	return p
}

// WinsAt reports whether the side to move wins by marking the free cell c.
func (p Position) WinsAt(c Cell) bool {
	if !p.rules.Contains(c) || p.cells[c] != game.Empty || p.Over() {
		return false
	}
	q := p
	q.cells[c] = p.ToMove()
	_, ok := q.wins(c, p.ToMove())
	return ok
}

// dirs are the four line directions as (row, col) steps.
var dirs = [4][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}}

// wins reports whether m's mark on c is part of a winning run, and returns
// the cells of every such run.
func (p *Position) wins(c Cell, m game.Mark) (Set, bool) {
	var line Set
	won := false
	for _, d := range dirs {
		lo, hi := p.run(c, m, -d[0], -d[1]), p.run(c, m, d[0], d[1])
		n := lo + hi + 1
		if n < int(p.rules.k) || p.rules.exact && n != int(p.rules.k) {
			continue
		}
		won = true
		r, col := c.Row()-lo*d[0], c.Col()-lo*d[1]
		for range n {
			line.Add(NewCell(r, col))
			r, col = r+d[0], col+d[1]
		}
	}
	return line, won
}

// run counts m's marks next to c in the direction (dr, dc), c excluded.
func (p *Position) run(c Cell, m game.Mark, dr, dc int) int {
	n := 0
	r, col := c.Row()+dr, c.Col()+dc
	for r >= 0 && col >= 0 && r < int(p.rules.rows) && col < int(p.rules.cols) && p.cells[NewCell(r, col)] == m {
		n++
		r, col = r+dr, col+dc
	}
	return n
}

func winFor(m game.Mark) game.Result {
	if m == game.X {
		return game.XWins
	}
	return game.OWins
}

// String returns position notation: the rows top to bottom, separated by
// "/", each cell X, O or -.
func (p Position) String() string {
	var b strings.Builder
	for row := range int(p.rules.rows) {
		if row > 0 {
			b.WriteByte('/')
		}
		for col := range int(p.rules.cols) {
			b.WriteString(p.cells[NewCell(row, col)].String())
		}
	}
	return b.String()
}

// ParsePosition reads position notation for r: rows separated by "/", each
// cell X, O or - (x, o and . too). The side to move follows from the
// counts. It fails with game.ErrBadPosition, saying what was wrong, for a
// bad character, a wrong shape, impossible counts, or a position in which
// both sides have won or the side that moved last has not but the other
// has.
func ParsePosition(r Rules, s string) (Position, error) {
	if !r.Valid() {
		return Position{}, fmt.Errorf("%w: no rules given", game.ErrBadRules)
	}
	shape := fmt.Sprintf("a %dx%d board takes %d rows of %d cells (X, O or -) separated by /", r.rows, r.cols, r.rows, r.cols)
	rows := strings.Split(strings.TrimSpace(s), "/")
	if len(rows) != int(r.rows) {
		return Position{}, fmt.Errorf("%w: %d rows; %s", game.ErrBadPosition, len(rows), shape)
	}
	p := Position{rules: r, last: noCell}
	var nx, no int
	for i, row := range rows {
		if len(row) != int(r.cols) {
			return Position{}, fmt.Errorf("%w: row %d has %d cells; %s", game.ErrBadPosition, i+1, len(row), shape)
		}
		for j := range len(row) {
			c := NewCell(i, j)
			switch row[j] {
			case 'X', 'x':
				p.cells[c] = game.X
				nx++
			case 'O', 'o':
				p.cells[c] = game.O
				no++
			case '-', '.':
			default:
				return Position{}, fmt.Errorf("%w: bad character %q in row %d; cells are X, O or -", game.ErrBadPosition, row[j], i+1)
			}
		}
	}
	switch {
	case no > nx:
		return Position{}, fmt.Errorf("%w: O has %d marks and X %d; X moves first, so X has as many marks as O or one more", game.ErrBadPosition, no, nx)
	case nx > no+1:
		return Position{}, fmt.Errorf("%w: X has %d marks and O %d; X can be at most one mark ahead", game.ErrBadPosition, nx, no)
	}
	p.ply = int16(nx + no)
	var won [3]Set
	var has [3]bool
	for _, c := range r.Cells() {
		if m := p.cells[c]; m != game.Empty {
			if line, ok := p.wins(c, m); ok {
				has[m] = true
				for w := range line {
					won[m][w] |= line[w]
				}
			}
		}
	}
	lastMover := game.O
	if nx > no {
		lastMover = game.X
	}
	switch {
	case has[game.X] && has[game.O]:
		return Position{}, fmt.Errorf("%w: both X and O have a winning line; the game ends at the first", game.ErrBadPosition)
	case has[lastMover.Other()]:
		return Position{}, fmt.Errorf("%w: %s has a winning line but %s moved after it; the game ends at the win", game.ErrBadPosition, lastMover.Other(), lastMover)
	case has[lastMover]:
		p.outcome = Outcome{Result: winFor(lastMover), Cells: won[lastMover]}
	case int(p.ply) == r.Size():
		p.outcome = Outcome{Result: game.Draw}
	}
	return p, nil
}
