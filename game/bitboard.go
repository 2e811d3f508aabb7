package game

import "math/bits"

// Bitboard is a set of cells, one bit per cell at index row*8 + col.
type Bitboard uint64

// Has reports whether c is in the set.
func (b Bitboard) Has(c Cell) bool { return b&(1<<c) != 0 }

// With returns the set with c added.
func (b Bitboard) With(c Cell) Bitboard { return b | 1<<c }

// Without returns the set with c removed.
func (b Bitboard) Without(c Cell) Bitboard { return b &^ (1 << c) }

// Count returns the number of cells in the set.
func (b Bitboard) Count() int { return bits.OnesCount64(uint64(b)) }

// First returns the lowest-numbered cell in the set. It is only meaningful
// for a non-empty set.
func (b Bitboard) First() Cell { return Cell(bits.TrailingZeros64(uint64(b))) }

// Cells returns the cells of the set in row-major order.
func (b Bitboard) Cells() []Cell {
	out := make([]Cell, 0, b.Count())
	for ; b != 0; b &= b - 1 {
		out = append(out, b.First())
	}
	return out
}
