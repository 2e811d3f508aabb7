package game

import (
	"fmt"
	"strconv"
	"strings"
)

// Board size limits accepted by the engine.
const (
	MinSize = 3 // fewest rows or columns
	MaxSize = 8 // most rows or columns
	MinK    = 3 // shortest winning line
)

// Variant selects how a game is won.
type Variant uint8

const (
	// KInARow is the m,n,k game: k marks of one side in a row, column or
	// diagonal win.
	KInARow Variant = iota
	// XOX is the X-O-X game: a line of three reading X-O-X wins for X,
	// otherwise one reading O-X-O wins for O, whoever made it.
	XOX
)

// Rules describe a game: board size, line length and variant. Build them
// with NewRules, NewXOX or ParseRules; the zero value is not valid. Rules
// are cheap to copy; compare them with Equal.
type Rules struct {
	rows, cols, k uint8
	variant       Variant
	geo           *geometry
}

// window is a line of three cells for the X-O-X variant: its two ends and
// its middle.
type window struct{ ends, mid Bitboard }

// geometry is what Rules precompute once: the board mask, the winning lines
// and, for each cell, the lines through it.
type geometry struct {
	board   Bitboard
	lines   []Bitboard     // every winning line (k cells, or the 3 cells of an X-O-X window)
	through [64][]Bitboard // k-in-a-row lines through each cell
	windows [64][]window   // X-O-X windows through each cell
	syms    []Symmetry     // symmetries of the board shape
}

// Classic returns the rules of tic-tac-toe: 3x3, three in a row.
func Classic() Rules {
	r, _ := NewRules(3, 3, 3)
	return r
}

// NewRules returns k-in-a-row rules for a rows x cols board. Sizes run from
// MinSize to MaxSize and k from MinK to max(rows, cols).
func NewRules(rows, cols, k int) (Rules, error) {
	if err := checkSize(rows, cols); err != nil {
		return Rules{}, err
	}
	if k < MinK || k > max(rows, cols) {
		return Rules{}, fmt.Errorf("%w: k=%d on a %dx%d board; k must be from %d to %d", ErrBadRules, k, rows, cols, MinK, max(rows, cols))
	}
	return build(rows, cols, k, KInARow), nil
}

// NewXOX returns X-O-X rules for a rows x cols board (the original game is
// 4 rows by 3 columns).
func NewXOX(rows, cols int) (Rules, error) {
	if err := checkSize(rows, cols); err != nil {
		return Rules{}, err
	}
	return build(rows, cols, 3, XOX), nil
}

func checkSize(rows, cols int) error {
	if rows < MinSize || rows > MaxSize || cols < MinSize || cols > MaxSize {
		return fmt.Errorf("%w: %dx%d board; rows and columns must each be from %d to %d", ErrBadRules, rows, cols, MinSize, MaxSize)
	}
	return nil
}

// ParseRules reads rules notation: rows "x" cols, then "k" and the line
// length ("3x3k3", "5x5k4") or "xox" for the X-O-X variant ("4x3xox").
// Case and surrounding space are ignored.
func ParseRules(s string) (Rules, error) {
	const allowed = `write rows x cols then k and the line length, like "3x3k3" or "5x5k4", or "xox" for the variant, like "4x3xox"`
	t := strings.ToLower(strings.TrimSpace(s))
	rows, rest, ok := strings.Cut(t, "x")
	if !ok || rows == "" {
		return Rules{}, fmt.Errorf("%w: %q: %s", ErrBadRules, s, allowed)
	}
	var cols, tail string
	var variant Variant
	switch {
	case strings.HasSuffix(rest, "xox"):
		cols, variant = strings.TrimSuffix(rest, "xox"), XOX
	case strings.Contains(rest, "k"):
		cols, tail, _ = strings.Cut(rest, "k")
	default:
		return Rules{}, fmt.Errorf("%w: %q has no line length: %s", ErrBadRules, s, allowed)
	}
	nr, err1 := strconv.Atoi(rows)
	nc, err2 := strconv.Atoi(cols)
	if err1 != nil || err2 != nil || !digits(rows) || !digits(cols) {
		return Rules{}, fmt.Errorf("%w: %q: %s", ErrBadRules, s, allowed)
	}
	if variant == XOX {
		return NewXOX(nr, nc)
	}
	k, err := strconv.Atoi(tail)
	if err != nil || !digits(tail) {
		return Rules{}, fmt.Errorf("%w: %q: %s", ErrBadRules, s, allowed)
	}
	return NewRules(nr, nc, k)
}

// digits reports whether s is a non-empty run of ASCII digits (Atoi also
// takes signs, which rules notation does not).
func digits(s string) bool {
	if s == "" || len(s) > 3 {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// String returns the rules notation, as ParseRules reads it.
func (r Rules) String() string {
	if r.geo == nil {
		return "invalid"
	}
	if r.variant == XOX {
		return fmt.Sprintf("%dx%dxox", r.rows, r.cols)
	}
	return fmt.Sprintf("%dx%dk%d", r.rows, r.cols, r.k)
}

// Valid reports whether r was built by a constructor (the zero Rules is not).
func (r Rules) Valid() bool { return r.geo != nil }

// Equal reports whether r and s describe the same game.
func (r Rules) Equal(s Rules) bool {
	return r.rows == s.rows && r.cols == s.cols && r.k == s.k && r.variant == s.variant
}

// Rows returns the number of rows.
func (r Rules) Rows() int { return int(r.rows) }

// Cols returns the number of columns.
func (r Rules) Cols() int { return int(r.cols) }

// K returns the winning line length (3 for the X-O-X variant).
func (r Rules) K() int { return int(r.k) }

// Variant returns how the game is won.
func (r Rules) Variant() Variant { return r.variant }

// Size returns the number of cells.
func (r Rules) Size() int { return int(r.rows) * int(r.cols) }

// Board returns the set of all cells on the board.
func (r Rules) Board() Bitboard {
	if r.geo == nil {
		return 0
	}
	return r.geo.board
}

// Contains reports whether c is on the board.
func (r Rules) Contains(c Cell) bool { return c < 64 && r.Board().Has(c) }

// Lines returns every line that can decide the game: the k-cell lines of a
// k-in-a-row game, or the 3-cell windows of the X-O-X variant. The slice is
// shared; callers must not modify it.
func (r Rules) Lines() []Bitboard {
	if r.geo == nil {
		return nil
	}
	return r.geo.lines
}

// LinesThrough returns the lines of Lines that contain c. The slice is
// shared; callers must not modify it.
func (r Rules) LinesThrough(c Cell) []Bitboard {
	if r.geo == nil || c >= 64 {
		return nil
	}
	if r.variant == XOX {
		out := make([]Bitboard, len(r.geo.windows[c]))
		for i, w := range r.geo.windows[c] {
			out[i] = w.ends | w.mid
		}
		return out
	}
	return r.geo.through[c]
}

// build precomputes the geometry; the arguments are already checked.
func build(rows, cols, k int, v Variant) Rules {
	g := &geometry{}
	for row := range rows {
		for col := range cols {
			g.board = g.board.With(NewCell(row, col))
		}
	}
	dirs := [4][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}}
	for row := range rows {
		for col := range cols {
			for _, d := range dirs {
				er, ec := row+(k-1)*d[0], col+(k-1)*d[1]
				if er < 0 || er >= rows || ec < 0 || ec >= cols {
					continue
				}
				var line Bitboard
				for i := range k {
					line = line.With(NewCell(row+i*d[0], col+i*d[1]))
				}
				g.lines = append(g.lines, line)
				if v == XOX {
					mid := Bitboard(0).With(NewCell(row+d[0], col+d[1]))
					w := window{ends: line &^ mid, mid: mid}
					for c := line; c != 0; c &= c - 1 {
						g.windows[c.First()] = append(g.windows[c.First()], w)
					}
				} else {
					for c := line; c != 0; c &= c - 1 {
						g.through[c.First()] = append(g.through[c.First()], line)
					}
				}
			}
		}
	}
	g.syms = symmetriesOf(rows, cols)
	return Rules{rows: uint8(rows), cols: uint8(cols), k: uint8(k), variant: v, geo: g}
}
