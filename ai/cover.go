package ai

import (
	"math/bits"
	"slices"

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
	for _, l := range g.lines {
		if l&op != 0 || bits.OnesCount64(uint64(l&^own)) > left {
			continue
		}
		f := l & empty
		if f&(f-1) == 0 {
			return nil, false // a threat: no pairing answers it
		}
		cv.lines = append(cv.lines, f)
	}
	open := make([]int, len(cv.lines))
	for i := range open {
		open[i] = i
	}
	if !cv.solve(open) {
		return nil, false
	}
	return cv.pairs, true
}

// coverer is the state of coverPairs's search.
type coverer struct {
	lines []game.Bitboard // the free cells of each line to cover
	used  game.Bitboard   // the cells of the pairs so far
	pairs []game.Cell     // the pairs so far, two cells each
	steps int
}

// coverPair is a candidate pair and how many open lines it serves.
type coverPair struct {
	a, b  game.Cell
	serve int
}

// solve covers the open lines (indices into lines) with pairs of unused
// cells, reporting whether it did within the step bound.
func (cv *coverer) solve(open []int) bool {
	if len(open) == 0 {
		return true
	}
	cv.steps++
	if cv.steps > coverSteps {
		return false
	}
	best, bestFree := -1, 65
	for _, i := range open {
		n := bits.OnesCount64(uint64(cv.lines[i] &^ cv.used))
		if n < 2 {
			return false
		}
		if n < bestFree {
			best, bestFree = i, n
		}
	}
	var cands []coverPair
	free := cv.lines[best] &^ cv.used
	for fa := free; fa != 0; fa &= fa - 1 {
		a := fa.First()
		for fb := fa & (fa - 1); fb != 0; fb &= fb - 1 {
			b := fb.First()
			both := game.Bitboard(0).With(a).With(b)
			serve := 0
			for _, j := range open {
				if cv.lines[j]&both == both {
					serve++
				}
			}
			cands = append(cands, coverPair{a, b, serve})
		}
	}
	slices.SortStableFunc(cands, func(p, q coverPair) int { return q.serve - p.serve })
	rest := make([]int, 0, len(open))
	for _, c := range cands {
		both := game.Bitboard(0).With(c.a).With(c.b)
		rest = rest[:0]
		for _, j := range open {
			if cv.lines[j]&both != both {
				rest = append(rest, j)
			}
		}
		cv.used |= both
		cv.pairs = append(cv.pairs, c.a, c.b)
		if cv.solve(slices.Clone(rest)) {
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
