// Package game holds the pure rules of m,n,k games (k in a row on a rows x
// cols board) and of the X-O-X variant: boards, moves, outcomes,
// symmetries and the text notation for rules, cells and positions.
//
// Values are small and immutable: applying a move returns a new Position.
// The package does no I/O, keeps no clocks and uses no randomness; callers
// that need chance (random openings, AI players) bring their own.
//
// Cells are stored on a fixed 8-column grid (cell = row*8 + col), so a
// position is two 64-bit bitboards and the eight board symmetries are a few
// bit operations. Boards from 3x3 up to 8x8 are supported.
package game
