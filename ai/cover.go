package ai

import (
	"math/bits"

	"github.com/tttbot/ttt-bot/game"
)

// coverSteps bounds the search of one coverPairs call: a pairing is worth
// looking for where it is easy to find, not at any price.
const coverSteps = 64

// coverPairs finds a pairing strategy of the opponent of side (X if
// xSide) in which one pair may serve several lines: disjoint pairs of free
// cells such that every line side could still complete (no enemy mark, no
// more free cells than side's moves left) holds a whole pair. Windows of
// one row overlap in up to k-1 cells, so two cells next to each other in
// the middle of a row serve every window of the row that holds both; the
// matching of paired, which gives each line two cells of its own, misses
// those. It returns the pairs as cells two by two. The search tries the
// line with the fewest free cells first, and for it the pairs that serve
// the most lines, within coverSteps steps.
func (g *searchGeom) coverPairs(x, o, empty game.Bitboard, xSide bool, left int) ([]game.Cell, bool) {
	own, op := x, o
	if !xSide {
		own, op = o, x
	}
	var cv coverer
	var open lineSet
	for _, l := range g.lines {
		if l&op != 0 || bits.OnesCount64(uint64(l&^own)) > left {
			continue
		}
		f := l & empty
		if f&(f-1) == 0 || cv.n == len(cv.lines) {
			return nil, false // a threat (no pairing answers it), or too many lines
		}
		cv.lines[cv.n] = f
		for c := f; c != 0; c &= c - 1 {
			cv.through[c.First()].add(cv.n)
		}
		open.add(cv.n)
		cv.n++
	}
	if !cv.solve(open) {
		return nil, false
	}
	return cv.pairs, true
}

// lineSet is a set of line indices, up to 192 (the lines of any board up
// to 8x8 with k of 3 or more).
type lineSet [3]uint64

func (s *lineSet) add(i int) { s[i>>6] |= 1 << (i & 63) }
func (s lineSet) and(t lineSet) lineSet {
	return lineSet{s[0] & t[0], s[1] & t[1], s[2] & t[2]}
}
func (s lineSet) andNot(t lineSet) lineSet {
	return lineSet{s[0] &^ t[0], s[1] &^ t[1], s[2] &^ t[2]}
}
func (s lineSet) count() int {
	return bits.OnesCount64(s[0]) + bits.OnesCount64(s[1]) + bits.OnesCount64(s[2])
}
func (s lineSet) empty() bool { return s[0]|s[1]|s[2] == 0 }

// coverer is the state of coverPairs's search.
type coverer struct {
	lines   [192]game.Bitboard // the free cells of each line to cover
	n       int                // lines in use
	through [64]lineSet        // the lines through each cell
	used    game.Bitboard      // the cells of the pairs so far
	pairs   []game.Cell        // the pairs so far, two cells each
	steps   int
}

// coverPair is a candidate pair and the open lines it serves.
type coverPair struct {
	a, b  game.Cell
	serve lineSet
	n     int
}

// solve covers the open lines with pairs of unused cells, reporting
// whether it did within the step bound.
func (cv *coverer) solve(open lineSet) bool {
	if open.empty() {
		return true
	}
	cv.steps++
	if cv.steps > coverSteps {
		return false
	}
	best, bestFree := -1, 65
	for w := range open {
		for f := open[w]; f != 0; f &= f - 1 {
			i := w<<6 | bits.TrailingZeros64(f)
			n := bits.OnesCount64(uint64(cv.lines[i] &^ cv.used))
			if n < 2 {
				return false
			}
			if n < bestFree {
				best, bestFree = i, n
			}
		}
	}
	// At most C(8, 2) pairs in a line of eight free cells.
	var buf [28]coverPair
	cands := buf[:0]
	free := cv.lines[best] &^ cv.used
	for fa := free; fa != 0; fa &= fa - 1 {
		a := fa.First()
		for fb := fa & (fa - 1); fb != 0; fb &= fb - 1 {
			b := fb.First()
			s := open.and(cv.through[a]).and(cv.through[b])
			p := coverPair{a: a, b: b, serve: s, n: s.count()}
			// Insert in order, the pairs serving more lines first.
			j := len(cands)
			cands = append(cands, p)
			for ; j > 0 && cands[j-1].n < p.n; j-- {
				cands[j] = cands[j-1]
			}
			cands[j] = p
		}
	}
	for _, c := range cands {
		both := game.Bitboard(0).With(c.a).With(c.b)
		cv.used |= both
		cv.pairs = append(cv.pairs, c.a, c.b)
		if cv.solve(open.andNot(c.serve)) {
			return true
		}
		cv.used &^= both
		cv.pairs = cv.pairs[:len(cv.pairs)-2]
		if cv.steps > coverSteps {
			return false
		}
	}
	return false
}
