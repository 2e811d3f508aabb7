package review

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/game"
)

// Thresholds on the drop of the mover's expected score by which an
// estimated move is judged (see the package comment).
const (
	blunderDrop    = 0.75
	mistakeDrop    = 0.25
	inaccuracyDrop = 0.1
	wonScore       = 0.75 // a mover's score before that counts as winning, for MissedWin
)

// mctsBudget is the time budget handed to MCTS: long enough that the
// iteration cap, not the clock, always ends an estimate, which keeps
// reviews reproducible.
const mctsBudget = 24 * time.Hour

// gameReview is the state of one review.
type gameReview struct {
	r     *Reviewer
	pos   []game.Position // the positions of the game: the start, then after each move
	moves []game.Cell
	info  []posInfo        // one per position
	mcts  *ai.MCTS         // the estimates' search, built on first use
	traps map[game.Key]int // measured traps by the canonical key of the position after the move
}

// posInfo is what the review knows of one position.
type posInfo struct {
	a     *ai.Analysis // the exact analysis, when the position was solved
	val   Value
	best  []game.Cell       // the moves judged Best here, row-major
	kept  []game.Cell       // the value-keeping moves, when solved
	optim int               // won or lost and solved: the optimal plies of a kept move, 0 if unknown
	traps map[game.Cell]int // drawn and solved: the measured traps of drawing moves
}

// run solves, estimates and judges every position.
func (g *gameReview) run(ctx context.Context) error {
	r := g.r
	r.solver.Reset()
	g.info = make([]posInfo, len(g.pos))
	g.traps = map[game.Key]int{}
	for j, p := range g.pos {
		if p.Over() {
			g.info[j].val = exactValue(p.Outcome().Result, 0)
			continue
		}
		a, ok, err := g.solve(ctx, p)
		if err != nil {
			return g.fail(ctx, err)
		}
		if ok {
			g.info[j].a = &a
		}
	}
	for j := range g.pos {
		if err := g.value(ctx, j); err != nil {
			return err
		}
	}
	for j := range g.moves {
		if g.info[j].a == nil {
			continue
		}
		if err := g.judgeable(ctx, j); err != nil {
			return err
		}
	}
	return nil
}

// solve values every move of p with the solver and the prover, each
// within its budget: the prover first on boards with k of 5 or more and
// more than 25 cells, where it settles in milliseconds what the solver's
// search does not finish in its budget (a 10-move 6x6k5 game: 12 s with
// the solver first, 0.07 s with the prover first), the solver first
// elsewhere (it measures the plies of wins and losses, which the prover
// does not).
func (g *gameReview) solve(ctx context.Context, p game.Position) (ai.Analysis, bool, error) {
	r := g.r
	prove := func() (ai.Analysis, bool, error) {
		if r.opts.ProofNodes <= 0 {
			return ai.Analysis{}, false, nil
		}
		return r.solver.ProveWithin(ctx, p, r.opts.ProofNodes)
	}
	rules := p.Rules()
	if rules.K() >= 5 && rules.Size() > bigBoard {
		if a, ok, err := prove(); ok || err != nil {
			return a, ok, err
		}
		return r.solver.SolveWithin(ctx, p, r.opts.MaxNodes)
	}
	if a, ok, err := r.solver.SolveWithin(ctx, p, r.opts.MaxNodes); ok || err != nil {
		return a, ok, err
	}
	return prove()
}

// bigBoard is the most cells of a board whose positions the solver is
// asked before the prover.
const bigBoard = 25

// fail returns ctx's error when ctx has ended, else err, marked as the
// review's.
func (g *gameReview) fail(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("review: %w", context.Cause(ctx))
	}
	return fmt.Errorf("review: %w", err)
}

// value sets the value of position j, and its best moves when it is
// estimated.
func (g *gameReview) value(ctx context.Context, j int) error {
	in := &g.info[j]
	p := g.pos[j]
	if p.Over() {
		return nil
	}
	var parent *ai.Analysis
	if j > 0 {
		parent = g.info[j-1].a
	}
	if in.a != nil {
		in.val = exactValue(in.a.Value, 0)
		in.kept = in.a.Best
		in.optim = optimum(p, in.a)
		in.val.Plies = in.optim
		if in.a.Value == game.Draw {
			in.val.Plies = p.Empty().Count()
		}
	}
	if parent != nil {
		// The parent's analysis knows this position's result, and maybe
		// its plies when this one's own analysis does not.
		mv := moveValue(parent, g.moves[j-1])
		if in.a == nil {
			in.val = exactValue(mv.Value, 0)
		}
		if in.val.Plies == 0 && mv.Plies > 0 {
			in.val.Plies = mv.Plies - 1
		}
	}
	if in.a != nil {
		return nil
	}
	v, best, err := g.estimate(ctx, p)
	if err != nil {
		return err
	}
	in.best = best
	if !in.val.Exact {
		in.val = v
	}
	return nil
}

// optimum returns the plies of the fastest win or slowest loss among the
// value-keeping moves of a won or lost position, or 0 when the position is
// drawn or some of them were not measured.
func optimum(p game.Position, a *ai.Analysis) int {
	if a.Value == game.Draw {
		return 0
	}
	win := a.Value == winFor(p.ToMove())
	best := 0
	for _, mv := range a.Moves {
		if mv.Value != a.Value {
			continue
		}
		if mv.Plies == 0 {
			return 0
		}
		if best == 0 || win && mv.Plies < best || !win && mv.Plies > best {
			best = mv.Plies
		}
	}
	return best
}

// winFor returns the result of a win for m.
func winFor(m game.Mark) game.Result {
	if m == game.X {
		return game.XWins
	}
	return game.OWins
}

// moveValue returns the value a's analysis gives move c.
func moveValue(a *ai.Analysis, c game.Cell) ai.MoveValue {
	for _, mv := range a.Moves {
		if mv.Cell == c {
			return mv
		}
	}
	return ai.MoveValue{Cell: c} // not reached: c is a legal move of a's position
}

// judgeable finds the best moves of solved position j: the fastest wins
// or slowest losses, or in a draw the drawing moves leaving most traps.
func (g *gameReview) judgeable(ctx context.Context, j int) error {
	in := &g.info[j]
	a := in.a
	if a.Value != game.Draw {
		for _, c := range a.Best {
			if in.optim == 0 || moveValue(a, c).Plies == in.optim {
				in.best = append(in.best, c)
			}
		}
		return nil
	}
	if err := g.measure(ctx, j); err != nil {
		return err
	}
	top := -1
	for _, n := range in.traps {
		top = max(top, n)
	}
	for _, c := range a.Best {
		if n, ok := in.traps[c]; !ok || n == top {
			in.best = append(in.best, c)
		}
	}
	return nil
}

// measure counts the traps of the drawing moves of drawn position j (a
// position a move was played from): the move played first (its position
// is solved already), then the others in row-major order, while the
// budget lasts on a large board. A large board's position that took more
// than the whole budget to solve is skipped: its moves' positions are
// likely as dear.
func (g *gameReview) measure(ctx context.Context, j int) error {
	in := &g.info[j]
	p, a := g.pos[j], in.a
	in.traps = make(map[game.Cell]int, len(a.Best))
	budget := int64(-1) // no limit
	if p.Rules().Size() > smallBoard {
		if g.r.opts.TrapNodes < 0 {
			return nil
		}
		budget = g.r.opts.TrapNodes
		if a.Nodes > budget {
			return nil
		}
	}
	played := g.moves[j]
	order := make([]game.Cell, 0, len(a.Best))
	if slices.Contains(a.Best, played) {
		order = append(order, played)
	}
	for _, c := range a.Best {
		if c != played {
			order = append(order, c)
		}
	}
	for _, c := range order {
		q := p.Apply(c)
		if q.Over() {
			in.traps[c] = 0
			continue
		}
		k, _ := q.Canonical()
		if n, ok := g.traps[k]; ok {
			in.traps[c] = n
			continue
		}
		var qa *ai.Analysis
		if c == played {
			if qa = g.info[j+1].a; qa == nil {
				continue // the played move's position did not fit the budget
			}
		}
		if qa == nil {
			if budget == 0 {
				continue
			}
			limit := g.r.opts.MaxNodes
			if budget > 0 && (limit < 0 || budget < limit) {
				limit = budget
			}
			an, ok, err := g.r.solver.ValuesWithin(ctx, q, limit)
			if err != nil {
				return g.fail(ctx, err)
			}
			if budget > 0 {
				budget = max(0, budget-an.Nodes)
				if !ok {
					budget = 0 // spent, or too little left for the others
				}
			}
			if !ok {
				continue
			}
			qa = &an
		}
		n := 0
		for _, mv := range qa.Moves {
			if mv.Value == winFor(p.ToMove()) {
				n++
			}
		}
		g.traps[k] = n
		in.traps[c] = n
	}
	return nil
}

// estimate returns an estimate of p's value and its best moves: from the
// value function when it answers for p and every position after a move,
// else from MCTS.
func (g *gameReview) estimate(ctx context.Context, p game.Position) (Value, []game.Cell, error) {
	if v, best, ok := g.valueFunc(p); ok {
		return v, best, nil
	}
	if g.mcts == nil {
		m, err := ai.NewMCTS(ai.Options{Seed: g.r.opts.Seed, Iterations: g.r.opts.Iterations, Budget: mctsBudget})
		if err != nil {
			return Value{}, nil, fmt.Errorf("review: estimate: %w", err)
		}
		g.mcts = m
	}
	c, err := g.mcts.Move(noDeadline{ctx}, p)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return Value{}, nil, g.fail(ctx, err)
	}
	score := g.mcts.Stats().Value
	if p.ToMove() == game.O {
		score = 1 - score
	}
	return Value{Score: score}, []game.Cell{c}, nil
}

// valueFunc estimates p and finds its best moves with Options.Value, and
// reports false when there is none or it does not answer.
func (g *gameReview) valueFunc(p game.Position) (Value, []game.Cell, bool) {
	f := g.r.opts.Value
	if f == nil {
		return Value{}, nil, false
	}
	v, ok := f(p)
	if !ok {
		return Value{}, nil, false
	}
	me := p.ToMove()
	var best []game.Cell
	top := -1.0
	for m := p.Moves(); m != 0; m &= m - 1 {
		c := m.First()
		q := p.Apply(c)
		var s float64
		if q.Over() {
			s = exactValue(q.Outcome().Result, 0).Score
		} else if s, ok = f(q); !ok {
			return Value{}, nil, false
		}
		s = clamp(s)
		if me == game.O {
			s = 1 - s
		}
		switch {
		case s > top:
			best, top = []game.Cell{c}, s
		case s == top:
			best = append(best, c)
		}
	}
	return Value{Score: clamp(v)}, best, true
}

// clamp keeps an estimated score within [0, 1].
func clamp(s float64) float64 {
	switch {
	case s > 1:
		return 1
	case s >= 0:
		return s
	}
	return 0 // also a NaN
}

// noDeadline hides its context's deadline from MCTS, which would
// otherwise stop early to answer in time and so make estimates depend on
// the clock; cancellation still reaches it.
type noDeadline struct{ context.Context }

// Deadline reports no deadline.
func (noDeadline) Deadline() (time.Time, bool) { return time.Time{}, false }

// result assembles the review.
func (g *gameReview) result() *Review {
	start := g.pos[0]
	rv := &Review{
		Rules:        start.Rules(),
		Start:        start,
		Moves:        make([]Move, len(g.moves)),
		Values:       make([]Value, len(g.pos)),
		Exact:        true,
		TurningPoint: -1,
		Decided:      -1,
	}
	for j := range g.pos {
		rv.Values[j] = g.info[j].val
		rv.Exact = rv.Exact && g.info[j].val.Exact
	}
	for j := range g.moves {
		m := g.judge(j)
		rv.Moves[j] = m
		rv.Exact = rv.Exact && m.Exact
		s := &rv.Players[0]
		if m.Mover == game.O {
			s = &rv.Players[1]
		}
		s.Moves++
		s.Count[m.Verdict]++
		if m.Verdict.KeepsValue() {
			s.Kept++
		}
		if rv.TurningPoint < 0 && m.Verdict >= Mistake {
			rv.TurningPoint = j
		}
	}
	for i := range rv.Players {
		s := &rv.Players[i]
		s.Accuracy = 1
		if s.Moves > 0 {
			s.Accuracy = float64(s.Kept) / float64(s.Moves)
		}
	}
	if last := rv.Values[len(rv.Values)-1]; last.Exact && (last.Result == game.XWins || last.Result == game.OWins) {
		j := len(rv.Values) - 1
		for j > 0 && rv.Values[j-1].Exact && rv.Values[j-1].Result == last.Result {
			j--
		}
		// Values[j:] hold the win: the move before j decided it, or the
		// first move when the start was won already.
		if len(g.moves) > 0 {
			rv.Decided = max(j-1, 0)
		}
	}
	return rv
}

// judge reviews move j.
func (g *gameReview) judge(j int) Move {
	p, c := g.pos[j], g.moves[j]
	in := &g.info[j]
	m := Move{
		Ply:    p.Ply() + 1,
		Cell:   c,
		Mover:  p.ToMove(),
		Before: in.val,
		After:  g.info[j+1].val,
		Best:   slices.Clone(in.best),
		Traps:  -1,
		Exact:  in.a != nil,
	}
	if m.Exact {
		m.Kept = slices.Clone(in.kept)
	}
	switch {
	case p.Moves().Count() == 1:
		m.Verdict = Best
		if n, ok := in.traps[c]; ok {
			m.Traps = n
		}
	case m.Exact:
		m.Verdict, m.Traps = g.exactVerdict(j)
	default:
		m.Verdict = estimatedVerdict(m.Mover, m.Before, m.After, slices.Contains(in.best, c))
	}
	return m
}

// exactVerdict judges move j of a solved position, and returns its traps
// (-1 unless it kept a draw and they were measured).
func (g *gameReview) exactVerdict(j int) (Verdict, int) {
	p, c := g.pos[j], g.moves[j]
	in := &g.info[j]
	me := p.ToMove()
	before, after := in.val.For(me), exactValue(moveValue(in.a, c).Value, 0).For(me)
	switch {
	case before == Win && after == Draw:
		return MissedWin, -1
	case before == Win && after == Loss:
		return Blunder, -1
	case before == Draw && after == Loss:
		return Mistake, -1
	case before != Draw:
		if in.optim == 0 || moveValue(in.a, c).Plies == in.optim {
			return Best, -1
		}
		return Good, -1
	}
	n, ok := in.traps[c]
	if !ok {
		return Best, -1
	}
	for _, t := range in.traps {
		if t > n {
			return Inaccuracy, n
		}
	}
	return Best, n
}

// estimatedVerdict judges a move by the drop of the mover's expected
// score, with the thresholds of the package comment.
func estimatedVerdict(me game.Mark, before, after Value, best bool) Verdict {
	b := before.scoreFor(me)
	d := b - after.scoreFor(me)
	switch {
	case d >= blunderDrop:
		return Blunder
	case d >= mistakeDrop && b >= wonScore:
		return MissedWin
	case d >= mistakeDrop:
		return Mistake
	case d >= inaccuracyDrop:
		return Inaccuracy
	case d <= -inaccuracyDrop:
		return Unjudged
	case best:
		return Best
	}
	return Good
}
