package game

import "math/bits"

// Symmetry is a reflection or rotation of the board. Rectangular boards have
// four (identity, mirror left-right, flip top-bottom, half turn); square
// boards have eight, adding the four that swap rows and columns.
type Symmetry uint8

// The generators; a Symmetry applies Mirror, then Flip, then Transpose.
const (
	Identity  Symmetry = 0
	Mirror    Symmetry = 1 // column c goes to cols-1-c
	Flip      Symmetry = 2 // row r goes to rows-1-r
	Transpose Symmetry = 4 // (r, c) goes to (c, r); square boards only
)

func symmetriesOf(rows, cols int) []Symmetry {
	if rows == cols {
		return []Symmetry{0, 1, 2, 3, 4, 5, 6, 7}
	}
	return []Symmetry{0, 1, 2, 3}
}

// Symmetries returns the symmetries of the board shape, Identity first.
// The slice is shared; callers must not modify it.
func (r Rules) Symmetries() []Symmetry {
	if r.geo == nil {
		return nil
	}
	return r.geo.syms
}

// Inverse returns the symmetry that undoes s.
func (s Symmetry) Inverse() Symmetry {
	if s&Transpose != 0 && s&(Mirror|Flip) != Mirror|Flip && s&(Mirror|Flip) != 0 {
		return s ^ (Mirror | Flip)
	}
	return s
}

// Transform applies s to a set of cells on r's board.
func (r Rules) Transform(s Symmetry, b Bitboard) Bitboard {
	if s&Mirror != 0 {
		b = Bitboard(bits.ReverseBytes64(bits.Reverse64(uint64(b)))) >> (8 - r.cols)
	}
	if s&Flip != 0 {
		b = Bitboard(bits.ReverseBytes64(uint64(b))) >> (8 * (8 - uint(r.rows)))
	}
	if s&Transpose != 0 {
		b = transpose(b)
	}
	return b
}

// TransformCell applies s to one cell of r's board.
func (r Rules) TransformCell(s Symmetry, c Cell) Cell {
	row, col := c.Row(), c.Col()
	if s&Mirror != 0 {
		col = r.Cols() - 1 - col
	}
	if s&Flip != 0 {
		row = r.Rows() - 1 - row
	}
	if s&Transpose != 0 {
		row, col = col, row
	}
	return NewCell(row, col)
}

// transpose swaps rows and columns of an 8x8 bitboard (the "flip about the
// a1-h8 diagonal" of chess programming); a square board in the top-left
// corner stays there.
func transpose(b Bitboard) Bitboard {
	const (
		k1 = 0x5500550055005500
		k2 = 0x3333000033330000
		k4 = 0x0f0f0f0f00000000
	)
	x := uint64(b)
	t := k4 & (x ^ (x << 28))
	x ^= t ^ (t >> 28)
	t = k2 & (x ^ (x << 14))
	x ^= t ^ (t >> 14)
	t = k1 & (x ^ (x << 7))
	x ^= t ^ (t >> 7)
	return Bitboard(x)
}

// Transform returns the position with s applied to the board.
func (p Position) Transform(s Symmetry) Position {
	r := p.rules
	p.x, p.o = r.Transform(s, p.x), r.Transform(s, p.o)
	p.outcome.Cells = r.Transform(s, p.outcome.Cells)
	return p
}

// Canonical returns the smallest key among the position's symmetric images,
// so every symmetric position maps to the same key, and the symmetry that
// takes p to it.
func (p Position) Canonical() (Key, Symmetry) {
	r := p.rules
	best, bs := Key{p.x, p.o}, Identity
	for _, s := range r.Symmetries()[1:] {
		k := Key{r.Transform(s, p.x), r.Transform(s, p.o)}
		if k.X < best.X || k.X == best.X && k.O < best.O {
			best, bs = k, s
		}
	}
	return best, bs
}
