package ai

import (
	"math/bits"

	"github.com/tttbot/ttt-bot/game"
)

// heuristicWeight is the value of a line still open to one side by how
// many of its cells that side already holds (for X-O-X, how many of the
// window's three cells read right for it): each mark multiplies it by 8.
var heuristicWeight = [9]int32{1, 8, 64, 512, 4096, 32768, 262144, 2097152, 16777216}

// evaluate scores a position that search does not look past, for the side
// to move: the sum of the weights of its open lines minus the opponent's.
// A line is open to a side while it holds no enemy mark (for X-O-X: ends
// free of the enemy's marks and middle free of its own); the fuller it
// is, the more it weighs. It stays well inside ±mmMate so that it never
// looks like a proven result.
func (g *searchGeom) evaluate(x, o game.Bitboard, xToMove bool) int32 {
	var xs, os int32
	if g.xox {
		for i, l := range g.lines {
			m := g.mids[i]
			e := l &^ m
			if e&o == 0 && m&x == 0 {
				xs += heuristicWeight[bits.OnesCount64(uint64(e&x|m&o))]
			}
			if e&x == 0 && m&o == 0 {
				os += heuristicWeight[bits.OnesCount64(uint64(e&o|m&x))]
			}
		}
	} else {
		for _, l := range g.lines {
			switch {
			case l&o == 0:
				xs += heuristicWeight[bits.OnesCount64(uint64(l&x))]
				if l&x == 0 {
					os++ // an empty line is open to both
				}
			case l&x == 0:
				os += heuristicWeight[bits.OnesCount64(uint64(l&o))]
			}
		}
	}
	if xToMove {
		return xs - os
	}
	return os - xs
}
