package ai

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/tttbot/ttt-bot/game"
)

// DefaultPerfectBudget is the thinking time per move of a Perfect player
// whose Options.Budget is 0, chosen so that moves come back within a
// second.
const DefaultPerfectBudget = 800 * time.Millisecond

// perfectNoise is the prior probability, in Perfect's opponent model, that
// the opponent plays uniformly at random rather than by the "easy" policy
// (win if possible, else block, else any move that does not lose at once).
// The model updates it from the opponent's moves as the game goes on. It
// was tuned on 3x3, where it gets within a few games in a thousand of the
// best possible results against both easy and random.
const perfectNoise = 0.5

// perfectValueOnlyLoad is the Options.Load from which a Perfect player
// plays the move the value solve found, without valuing every move.
const perfectValueOnlyLoad = 0.5

// Perfect plays exactly: it never gives up the game-theoretic value of the
// position, found by a Solver whose table it keeps between moves. Among
// the moves that keep the value it plays to win against a fallible
// opponent: it prefers the move with the best expected result against a
// model of a fallible opponent (expectimax, searched ever deeper within the
// time budget), then the fastest win or slowest loss, and picks among
// equals at random. The model opponent is either a random mover or one
// that wins when it can, blocks when it must and otherwise moves at
// random; which of the two it is, the model infers from the moves it sees,
// starting from even odds.
//
// The solve gets about 70% of the budget. Where the value of every move
// is out of reach in that time but the value of the position is not (as
// on the empty 6x6 board), it plays the move that the solver found keeps
// the value, still exactly but without the preferences above. Where even
// the value is out of reach (boards larger than 5x5, mostly) it falls back
// to a Minimax search for the rest of the time, and is then no longer
// guaranteed to be exact.
//
// Under load (Options.Load above 0) it skips the opponent model and plays
// the fastest win or slowest loss among the moves that keep the value, at
// random among equals. From perfectValueOnlyLoad (0.5) it also skips
// valuing every move: once the value is found it plays a move that the
// solver shows keeps it, with no preference at all. The solve keeps its
// whole share of the budget at any load, so load never makes it less
// exact, only less cunning: its floor is the guarantee above, a move that
// keeps the value whenever the value is found in time.
type Perfect struct {
	rng    *rand.Rand
	budget time.Duration
	load   float64
	now    func() time.Time
	solver *Solver
	mm     *Minimax
	noise  float64 // the prior probability that the opponent moves at random
	// memo is the opponent model's table of scores, and values its table
	// of the solver's values (exact, so kept between moves, for
	// valuesRules only); both are kept to spare their allocation.
	memo        map[expKey]float64
	values      map[game.Key]int8
	valuesRules game.Rules
	// partial counts the moves played from the solved value alone, with
	// no time left to value every move; light those played from the
	// value alone because the load asked for it; inexact those for which
	// even the value was out of reach and the move came from the fallback
	// search.
	partial, light, inexact int
	// held counts the moves the hold search proved keep at least a draw
	// where the solver ran out of time (k=5 boards); won those the win
	// search proved win.
	held, won int
}

// NewPerfect returns a perfect player. It reads Options.Budget (time per
// move; 0 means DefaultPerfectBudget), Options.Load (which preferences
// among the moves that keep the value it skips; see Perfect) and
// Options.Seed or Options.Rand, which choose among equally good moves.
func NewPerfect(o Options) (*Perfect, error) {
	if err := o.check(); err != nil {
		return nil, fmt.Errorf("ai: perfect: %w", err)
	}
	b := o.Budget
	if b == 0 {
		b = DefaultPerfectBudget
	}
	rng := o.rng()
	mm, err := NewMinimax(Options{Rand: rng, Budget: b})
	if err != nil {
		return nil, err
	}
	return &Perfect{rng: rng, budget: b, load: o.Load, now: time.Now, solver: NewSolver(), mm: mm, noise: perfectNoise}, nil
}

// newPerfectPlayer is NewPerfect for the registry: a nil Player, not a nil
// *Perfect, on error.
func newPerfectPlayer(o Options) (Player, error) {
	pf, err := NewPerfect(o)
	if err != nil {
		return nil, err
	}
	return pf, nil
}

// Move returns a move that keeps the game-theoretic value of p, chosen to
// give the opponent the most chances to go wrong (under no load). It fails
// with ErrNoMoves in a finished game and with ctx's error if ctx is done
// before it starts.
func (pf *Perfect) Move(ctx context.Context, p game.Position) (game.Cell, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("ai: perfect: %w", err)
	}
	if p.Moves() == 0 {
		return 0, ErrNoMoves
	}
	start := pf.now()
	deadline := start.Add(pf.budget)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	total := deadline.Sub(start)
	sctx, cancel := context.WithTimeout(ctx, total*7/10)
	// The value alone is often much cheaper than every move's value, and
	// leaves a move that keeps it in the table.
	v, err := pf.solver.Value(sctx, p)
	var a Analysis
	if err == nil {
		if pf.load >= perfectValueOnlyLoad {
			if keep, ok := pf.solver.keepingMove(p, v); ok {
				cancel()
				pf.light++
				return keep, nil
			}
		}
		keep, ok := pf.solver.rootMove(p)
		a, err = pf.solver.Solve(sctx, p)
		if err != nil && ok {
			cancel()
			pf.partial++
			return keep, nil
		}
	}
	cancel()
	if err != nil {
		if errors.Is(ctx.Err(), context.Canceled) {
			return 0, fmt.Errorf("ai: perfect: %w", ctx.Err())
		}
		// Out of time for an exact answer. The win search may still
		// prove a win (half of what is left), and on k=5 boards the hold
		// search a move that keeps at least a draw.
		wctx, wcancel := context.WithDeadline(ctx, pf.now().Add(deadline.Sub(pf.now())/2))
		c, ok := pf.solver.winMove(wctx, p)
		wcancel()
		if ok {
			pf.won++
			return c, nil
		}
		hctx, hcancel := context.WithDeadline(ctx, deadline)
		c, ok = pf.solver.holdMove(hctx, p)
		hcancel()
		if ok {
			pf.held++
			return c, nil
		}
		// Else search for the rest.
		pf.inexact++
		r, err := pf.mm.search(context.WithoutCancel(ctx), p, deadline)
		if err != nil {
			return 0, fmt.Errorf("ai: perfect: %w", err)
		}
		return r.Move, nil
	}
	var best []game.Cell
	if pf.load > 0 {
		best = fastest(p, a)
	} else {
		best = pf.choose(ctx, p, a, deadline)
	}
	return best[pf.rng.IntN(len(best))], nil
}

// keepingMove returns a move that keeps the value v of p, which the last
// call to Value must have found: rootMove's, or else searchKeeping's (the
// table holds no move for positions it proved statically, such as draws
// by a pairing strategy). It is much cheaper than Solve, which values
// every move. It reports false if the solver's context ends first.
func (s *Solver) keepingMove(p game.Position, v game.Result) (game.Cell, bool) {
	if c, ok := s.rootMove(p); ok {
		return c, true
	}
	return s.searchKeeping(p, v)
}

// searchKeeping returns the first candidate move of p, most promising
// first, that a null-window search shows keeps v, which must be p's value.
// It reports false if the solver's context ends first.
func (s *Solver) searchKeeping(p game.Position, v game.Result) (game.Cell, bool) {
	s.prepare(p.Rules())
	if p.Over() {
		return 0, false
	}
	g := s.geom
	x, o, xtm := p.X(), p.O(), p.ToMove() == game.X
	t := g.scan(x, o, xtm)
	cand := t.answers &^ t.poison
	switch {
	case t.win != 0:
		return t.win.First(), true
	case cand == 0 || t.doomed:
		return p.Moves().First(), true // lost whatever
	case v == winOf(!xtm):
		return cand.First(), true // every move loses in the end
	}
	want := int8(0) // the value for the side to move
	if v == winOf(xtm) {
		want = 1
	}
	var buf [64]game.Cell
	for _, c := range g.order(x, o, cand, xtm, nil, buf[:0]) {
		switch r := g.result(x, o, xtm, c); {
		case r == game.Draw && want == 0: // the last cell
			return c, true
		case r != game.Ongoing:
			continue // a draw that gives up a win
		}
		// c keeps the value if the opponent cannot do better than -want.
		nx, no := play(x, o, xtm, c)
		r := s.search(nx, no, !xtm, -want, -want+1)
		if s.stop.stopped {
			return 0, false
		}
		if r <= -want {
			return c, true
		}
	}
	return 0, false
}

// choose returns the moves of a.Best with the best expectimax score
// against the opponent model, searched as deep as time allows, and among
// those the fastest win or slowest loss. Move picks one at random.
func (pf *Perfect) choose(ctx context.Context, p game.Position, a Analysis, deadline time.Time) []game.Cell {
	if len(a.Best) == 1 {
		return a.Best
	}
	me := p.ToMove()
	// The opponent model only matters if the opponent can still go wrong
	// (a won game stays won whatever it does) and if the moves can score
	// differently: moves that are images of each other under a symmetry
	// of the board score alike (and share their length), so when all of
	// a.Best are, the model would keep them all. Either way the choice is
	// the fastest win or slowest loss, with no search.
	if a.Value == winOf(me == game.X) || symmetricMoves(p, a.Best) {
		return fastest(p, a)
	}
	var plies [64]int
	for _, mv := range a.Moves {
		plies[mv.Cell] = mv.Plies
	}
	var scores, next [64]float64
	// It gets half the time left, so that moves come back promptly.
	now := pf.now()
	deadline = now.Add(deadline.Sub(now) / 2)
	if pf.values == nil || !pf.valuesRules.Equal(p.Rules()) || len(pf.values) >= perfectMaxValues {
		pf.values, pf.valuesRules = map[game.Key]int8{}, p.Rules()
	}
	ex := expectimax{solver: pf.solver, me: me, noise: pf.noise, now: pf.now, deadline: deadline, values: pf.values}
	ectx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	pf.solver.stop = newStopper(ectx)
	empties := p.Empty().Count()
	defer func() {
		if len(pf.memo) > perfectMaxMemo {
			pf.memo = nil // not kept: its memory would stay with the player
		}
	}()
	for depth := 1; depth < empties; depth += 2 {
		if pf.memo == nil || len(pf.memo) > perfectMaxMemo {
			pf.memo = map[expKey]float64{}
		} else {
			clear(pf.memo)
		}
		ex.memo, ex.exhausted = pf.memo, true
		for i, c := range a.Best {
			next[i] = ex.score(p.Apply(c), depth, 1-pf.noise)
		}
		if ex.stopped {
			break
		}
		scores = next
		if ex.exhausted {
			break // the search already reached the end of every line
		}
	}
	// Keep the moves with the best score, then the best length.
	best := []game.Cell{}
	bestScore, bestLen := -1.0, 0
	for i, c := range a.Best {
		s, n := scores[i], lengthRank(plies[c], a.Value, me)
		switch {
		case s > bestScore+1e-9 || s > bestScore-1e-9 && n > bestLen:
			best, bestScore, bestLen = []game.Cell{c}, max(s, bestScore), n
		case s > bestScore-1e-9 && n == bestLen:
			best = append(best, c)
		}
	}
	return best
}

// perfectMaxMemo is the largest table of scores a Perfect player clears
// and reuses; a bigger one is dropped, so that the memory of a long
// search is not kept.
const perfectMaxMemo = 1 << 14

// perfectMaxValues caps the solver values a Perfect player keeps (about
// 30 bytes each in the map, so about 1 MB): a search adds none past it, and the next move starts
// the table afresh.
const perfectMaxValues = 1 << 15

// symmetricMoves reports whether every move of cells leads to an image,
// under the board's symmetries, of the position the first one leads to.
func symmetricMoves(p game.Position, cells []game.Cell) bool {
	first, _ := p.Apply(cells[0]).Canonical()
	for _, c := range cells[1:] {
		if k, _ := p.Apply(c).Canonical(); k != first {
			return false
		}
	}
	return true
}

// lengthRank ranks game lengths for side me when the value is v: shorter
// wins and longer losses rank higher; unknown lengths (0) rank lowest.
func lengthRank(plies int, v game.Result, me game.Mark) int {
	switch {
	case plies == 0 || v == game.Draw:
		return 0
	case v == winOf(me == game.X):
		return 1000 - plies
	}
	return plies
}

// expectimax scores positions for the player me, who keeps the
// game-theoretic value, against a model of a fallible opponent: a win
// scores 1, a draw 1/2, a loss 0, and a position at the search horizon
// scores its game-theoretic value.
type expectimax struct {
	solver   *Solver
	me       game.Mark
	noise    float64
	memo     map[expKey]float64
	values   map[game.Key]int8 // the solver's values found so far
	nodes    int64
	now      func() time.Time
	deadline time.Time
	stopped  bool
	// exhausted stays true while no line was cut at the horizon.
	exhausted bool
}

// expKey names a canonical position searched to some depth with some
// belief that the opponent is the easy kind.
type expKey struct {
	k      game.Key
	depth  int
	belief float64
}

// outcomeScore scores a result for me.
func (e *expectimax) outcomeScore(r game.Result) float64 {
	switch r {
	case game.Draw:
		return 0.5
	case winOf(e.me == game.X):
		return 1
	}
	return 0
}

// value returns the game-theoretic value of an unfinished position for
// the side to move, or false if the solver was stopped.
func (e *expectimax) value(p game.Position) (int8, bool) {
	if v, ok := e.values[p.Key()]; ok {
		return v, true
	}
	v := e.solver.value(p.X(), p.O(), p.ToMove() == game.X)
	if e.solver.stop.stopped {
		e.stopped = true
		return 0, false
	}
	if e.values != nil && len(e.values) < perfectMaxValues {
		e.values[p.Key()] = v
	}
	return v, true
}

// score returns the expected score of p for me, looking depth plies ahead,
// when the opponent plays the easy policy with probability belief and at
// random otherwise.
func (e *expectimax) score(p game.Position, depth int, belief float64) float64 {
	if p.Over() {
		return e.outcomeScore(p.Outcome().Result)
	}
	e.nodes++
	if e.nodes&255 == 0 && !e.now().Before(e.deadline) {
		e.stopped = true
	}
	if e.stopped {
		return 0
	}
	if depth == 0 {
		e.exhausted = false
		v, _ := e.value(p)
		return e.outcomeScore(resultOf(v, p.ToMove() == game.X))
	}
	k, _ := p.Canonical()
	key := expKey{k, depth, belief}
	if s, ok := e.memo[key]; ok {
		return s
	}
	var s float64
	if p.ToMove() == e.me {
		s = e.mine(p, depth, belief)
	} else {
		s = e.theirs(p, depth, belief)
	}
	if !e.stopped {
		e.memo[key] = s
	}
	return s
}

// mine is the best score among the moves that keep the value.
func (e *expectimax) mine(p game.Position, depth int, belief float64) float64 {
	v, ok := e.value(p)
	if !ok {
		return 0
	}
	best := -1.0
	for m := p.Moves(); m != 0; m &= m - 1 {
		q := p.Apply(m.First())
		if !q.Over() {
			cv, ok := e.value(q)
			if !ok {
				return 0
			}
			if -cv != v {
				continue
			}
		} else if e.outcomeScore(q.Outcome().Result) < e.outcomeScore(resultOf(v, p.ToMove() == game.X)) {
			continue
		}
		best = max(best, e.score(q, depth-1, belief))
	}
	return best
}

// theirs is the expected score over the opponent model's moves: the easy
// policy's choice (a random winning move, else a random block, else a
// random move that does not lose at once) with probability belief, else a
// uniformly random move. Each move updates the belief by Bayes' rule.
func (e *expectimax) theirs(p game.Position, depth int, belief float64) float64 {
	moves := p.Moves()
	easy := p.Threats(p.ToMove())
	if easy == 0 {
		safe := safeMoves(p, moves)
		if easy = p.Threats(p.ToMove().Other()) & safe; easy == 0 {
			easy = safe
		}
	}
	pe := 1 / float64(easy.Count())
	pr := 1 / float64(moves.Count())
	var s float64
	for m := moves; m != 0; m &= m - 1 {
		c := m.First()
		var w, b float64 // probability of the move, and the belief after it
		if easy.Has(c) {
			w = belief*pe + (1-belief)*pr
			b = belief * pe / w
		} else {
			w = (1 - belief) * pr
		}
		if w > 0 {
			s += w * e.score(p.Apply(c), depth-1, b)
		}
	}
	return s
}
