// Package proof reads, writes and checks certificates of solved k-in-a-row
// positions: what `bot solve -proof FILE` writes and `bot verify-proof FILE`
// checks.
//
// A certificate states the value of a position (X wins, O wins or draw) and
// carries the proofs that imply it: a win proof for the winner, or two hold
// proofs for a draw (X cannot win, and O cannot win). The checker in this
// package shares nothing with the search that wrote the certificate: it
// imports only game and the standard library, applies the rules itself,
// enumerates every move of the side that is not proving, and checks every
// pairing strategy from scratch.
//
// # Proofs
//
// Every position is looked at in its canonical frame: of its images under
// the board's symmetries (game.Rules.Symmetries, applied with
// game.Rules.Transform), the one whose X bitboard is smallest, then whose
// O bitboard is. Entries are keyed by that image and their cells are cells
// of that image; the checker computes the image itself, so a certificate
// never asserts that two positions are symmetric.
//
// A win proof for side S ("win X") holds at a position where
//   - S is to move and can complete a line at once (the checker finds it), or
//   - S is to move and the certificate names S's move (a "move" entry),
//     which is legal and either wins or leads to a position where the proof
//     holds, or
//   - the other side is to move, the board is not full, and every free cell
//     the other side may take neither wins for it nor leads to a position
//     where the proof fails.
//
// A hold proof for the defender D against the attacker A ("hold O": X
// cannot win) holds at a position where
//   - the board is full, or A has no live line: a line with no mark of D and
//     no more free cells than A has moves left (A moves ceil(n/2) of the n
//     free cells if A is to move, floor(n/2) if not), or
//   - A is to move and the certificate gives a pairing (a "pairs" entry):
//     disjoint pairs of free cells such that every live line of A contains
//     both cells of some pair. D answers A's move in a pair with the other
//     cell of the pair, and plays anywhere otherwise, so A never completes a
//     live line; or
//   - A is to move, and every move of A neither wins nor leads to a
//     position where the proof fails, or
//   - D is to move and can complete a line at once, or the certificate names
//     D's move, which is legal and leads to a position where the proof holds.
//
// # Format
//
// A certificate is UTF-8 text, one item per line; blank lines and lines
// starting with # are ignored, and fields are separated by spaces:
//
//	ttt-proof 1
//	rules 6x6k5
//	position ------/------/------/------/------/------
//	value draw
//	proof hold O
//	move 0 1000000 c3
//	pairs 1 8000000 a1 a2 b1 c1
//	proof hold X
//	move 0 0 c3
//	end
//
// The first line names the format and its version (1). Then come the rules
// (game notation), the position proved (position notation, the side to move
// following from the counts), the value claimed ("X wins", "O wins" or
// "draw", written Xwins, Owins or draw), and one section per proof: "proof
// win X", "proof win O", "proof hold O" (X cannot win) or "proof hold X" (O
// cannot win). A value of X wins needs exactly the proof "win X", O wins
// "win O", and a draw both hold proofs. Each entry names a canonical
// position by its X and O bitboards in hexadecimal (bit row*8+col, as in
// game), then either the one cell the proving side plays there ("move") or
// the cells of a pairing two by two ("pairs"). Cells are written as in
// game's notation (a1 is the top-left corner). The file ends with "end", so
// a truncated file is refused.
package proof
