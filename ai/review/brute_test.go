package review_test

import (
	"slices"

	"github.com/tttbot/ttt-bot/game"
)

// brute is a plain negamax over whole game trees, with a memo: the
// independent reference the reviewer is checked against on small boards.
type brute struct {
	memo map[game.Key]bruteValue
}

// bruteValue is a position's result with perfect play and its plies to the
// end (fastest win, slowest loss; a draw fills the board).
type bruteValue struct {
	res   game.Result
	plies int
}

func newBrute() *brute { return &brute{memo: map[game.Key]bruteValue{}} }

// winOf returns the result of a win for m.
func winOf(m game.Mark) game.Result {
	if m == game.X {
		return game.XWins
	}
	return game.OWins
}

// rank orders values for the side me: wins (fastest first) over draws over
// losses (slowest first).
func rank(v bruteValue, me game.Mark) int {
	switch v.res {
	case winOf(me):
		return 300 - v.plies
	case game.Draw:
		return 200
	}
	return 100 + v.plies
}

// value returns p's value.
func (b *brute) value(p game.Position) bruteValue {
	if p.Over() {
		return bruteValue{res: p.Outcome().Result}
	}
	if v, ok := b.memo[p.Key()]; ok {
		return v
	}
	me := p.ToMove()
	best, top := bruteValue{}, -1
	for _, c := range p.Moves().Cells() {
		v := b.move(p, c)
		if r := rank(v, me); r > top {
			best, top = v, r
		}
	}
	b.memo[p.Key()] = best
	return best
}

// move returns the value of playing c in p, counting the move in plies.
func (b *brute) move(p game.Position, c game.Cell) bruteValue {
	v := b.value(p.Apply(c))
	v.plies++
	return v
}

// traps counts the replies to p+c that lose for the side that replies.
func (b *brute) traps(p game.Position, c game.Cell) int {
	q := p.Apply(c)
	n := 0
	for _, r := range q.Moves().Cells() {
		if b.value(q.Apply(r)).res == winOf(p.ToMove()) {
			n++
		}
	}
	return n
}

// judgement is what the reference expects of one move.
type judgement struct {
	verdict string
	best    []game.Cell
	kept    []game.Cell
	traps   int
}

// judge classifies move c of p from the brute-force values.
func (b *brute) judge(p game.Position, c game.Cell) judgement {
	me := p.ToMove()
	root := b.value(p)
	moves := p.Moves().Cells()
	var j judgement
	j.traps = -1
	for _, m := range moves {
		if b.move(p, m).res == root.res {
			j.kept = append(j.kept, m)
		}
	}
	mine := b.move(p, c)
	if root.res == game.Draw {
		trap := map[game.Cell]int{}
		top := -1
		for _, m := range j.kept {
			trap[m] = b.traps(p, m)
			top = max(top, trap[m])
		}
		for _, m := range j.kept {
			if trap[m] == top {
				j.best = append(j.best, m)
			}
		}
		if n, ok := trap[c]; ok {
			j.traps = n
		}
	} else {
		opt := 0
		for _, m := range j.kept {
			n := b.move(p, m).plies
			if opt == 0 || root.res == winOf(me) && n < opt || root.res != winOf(me) && n > opt {
				opt = n
			}
		}
		for _, m := range j.kept {
			if b.move(p, m).plies == opt {
				j.best = append(j.best, m)
			}
		}
	}
	j.verdict = expectedVerdict(me, root.res, mine.res, len(moves) == 1, slices.Contains(j.best, c), root.res != game.Draw)
	return j
}

// expectedVerdict is the verdict of a move from its position's result,
// its own result, whether it was forced, whether it is among the best and
// whether a kept-but-not-best move is Good (won or lost) or an
// Inaccuracy (drawn).
func expectedVerdict(me game.Mark, before, after game.Result, forced, best, decisive bool) string {
	outcome := func(r game.Result) int {
		switch r {
		case winOf(me):
			return 1
		case game.Draw:
			return 0
		}
		return -1
	}
	switch b, a := outcome(before), outcome(after); {
	case forced:
		return "best"
	case b == 1 && a == 0:
		return "missed-win"
	case b == 1 && a == -1:
		return "blunder"
	case b == 0 && a == -1:
		return "mistake"
	case best:
		return "best"
	case decisive:
		return "good"
	}
	return "inaccuracy"
}
