package ai

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"time"

	"github.com/tttbot/ttt-bot/game"
)

// Defaults of the mcts level, used when the matching Options are zero.
const (
	// DefaultMCTSIterations caps the iterations of one move. On 3x3 the
	// solver usually proves the root well before this; on larger boards
	// the time budget usually ends the search first.
	DefaultMCTSIterations = 200_000
	// DefaultMCTSBudget caps the thinking time of one move, leaving room
	// under a one-second reply for the rest of the bot's work.
	DefaultMCTSBudget = 500 * time.Millisecond
)

// mctsMaxNodes caps the tree: 28 bytes a node, so 28 MiB for the arena
// (and at most as much again for the spare arena used when keeping a
// subtree). When the tree is full the search goes on with rollouts from
// its leaves.
const mctsMaxNodes = 1 << 20

// mctsMaxVisits stops a search before a node's counters could overflow.
const mctsMaxVisits = 1 << 30

// mctsTable is the number of visit counts whose exploration term
// (c * sqrt(ln n)) is tabled: math.Log is the dearest step of choosing.
const mctsTable = 4096

// mctsCheckEvery is how many iterations run between looks at the clock and
// the context.
const mctsCheckEvery = 16

// MCTS is the mcts level: Monte Carlo tree search with UCT selection and
// an MCTS-Solver (Winands et al. 2008) that proves wins, losses and draws
// and propagates them up the tree, so a win in one or a forced block is
// never missed and a proven root ends the search early. On k in a row
// boards it also uses what it knows of the game:
//
//   - threat-aware playouts: each side takes a win at once, else blocks
//     the other's only one (two are a loss), else moves at random;
//   - proofs at expansion: a move that leaves the opponent a win at once
//     is lost, one that makes two threats against none is won;
//   - a prior from the open lines through each move (mctsScan), as a
//     progressive bias that fades with the visits, with untried moves
//     taken as worth mctsFPU, so that weak moves are not all tried first.
//
// The tree is kept between moves: when the next position is a
// descendant of the last one searched, its subtree and statistics carry
// over. Build one with NewMCTS; like every Player it serves one game at a
// time and is not safe for concurrent use.
//
// Under load (Options.Load) its time budget and iteration cap shrink in a
// straight line to a quarter at Load 1. The solver's tactics do not shrink
// with them: the root and its children are expanded before the first
// iteration, so even a single iteration takes a win in one and makes a
// forced block.
type MCTS struct {
	iterations  int
	budget      time.Duration
	exploration float64
	seed        uint64           // state of the rollout generator
	now         func() time.Time // the clock, injected for tests

	nodes   []mctsNode    // the tree; nodes[0] is the root when it is not empty
	spare   []mctsNode    // where a kept subtree is copied, then swapped in
	path    []int32       // the nodes of the current iteration, root first
	root    game.Position // the position at nodes[0]
	tree    bool          // whether nodes holds a tree for root
	stats   MCTSStats     // what the last search did
	cells   [64]game.Cell // scratch for expansion
	limit   int           // node cap, mctsMaxNodes except in tests
	explore []float32     // c * sqrt(ln n) for n < mctsTable (0 for n = 0)
	bias    float32       // mctsBias, or 0 for no prior
	fpu     float32       // mctsFPU while the children have a prior, else -1: untried first
}

// MCTSStats describes the last search an MCTS player ran.
type MCTSStats struct {
	// Iterations is the number of iterations run for the move.
	Iterations int
	// Reused is the number of root visits carried over from the tree of
	// the previous move (0 when the search started afresh).
	Reused int
	// Visits is the number of root visits once the search ended.
	Visits int
	// Nodes is the size of the tree once the search ended.
	Nodes int
	// Result is what the solver proved for the root position (XWins,
	// OWins or Draw), or Ongoing when it proved nothing.
	Result game.Result
	// Plies is, when Result is proven, the number of plies to the end of
	// the game under the proven line: the fastest win found (wins in one
	// always, shorter wins within a bounded search), the slowest loss.
	Plies int
	// Value is the chosen move's mean reward for the side to move, in
	// [0, 1] (win 1, draw 0.5, loss 0), or its proven value.
	Value float64
	// Elapsed is the time the move took.
	Elapsed time.Duration
}

// mctsProof is what the solver knows of a node, for the side to move there.
type mctsProof uint8

const (
	mctsUnknown mctsProof = iota
	mctsWin               // the side to move wins with best play
	mctsLoss              // the side to move loses with best play
	mctsDraw              // best play draws
)

// mctsNode is one position in the tree, reached from its parent by move.
// Children sit side by side in the arena from first, n of them; n is 0
// until the node is expanded. Scores count half-points (win 2, draw 1) for
// the side that played move, so mean reward is score / (2 * visits); q
// caches that mean (0.5 once proven drawn) and isq 1/sqrt(visits), so that
// choosing a child costs no division or square root.
type mctsNode struct {
	first  int32
	visits uint32
	score  uint32
	q      float32
	isq    float32
	bias   float32 // the progressive bias: mctsBias times the prior, in [0, mctsBias]
	move   game.Cell
	n      uint8
	proof  mctsProof
	depth  uint8 // plies to the end when proven
}

// mctsBias weighs the prior in choosing a child (progressive bias, as in
// Chaslot et al. 2008): a child's score gains bias * prior / visits, which
// fades as the visits grow and the mean takes over. Measured against
// plain UCT at 1,000 iterations on 6x6k5, 4 and 8 beat 0.5 to 2 clearly,
// and 8 and 16 play alike (BENCHMARKS.md, "MCTS strength").
const mctsBias = 8.0

// mctsFPU is the mean a child with a prior is taken to have before its
// first visit ("first-play urgency"): it is chosen as if visited once
// with that mean, its bias at full weight. Untried children of little
// promise can so wait while the mean of a good sibling stays high,
// rather than every child being tried once before any twice.
const mctsFPU = 0.5

// mctsLineWeight is the prior's weight of a line by how many marks of one
// side it holds.
var mctsLineWeight = [9]float32{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536}

// mctsScan reads q (k in a row) in one pass over its lines, for the side
// to move: wins are the cells where it wins at once, threats those where
// the opponent would, and doubles the moves that would make two new
// threats (two lines through the move, each then one mark short, short at
// different cells). If prior is not nil it also gets how good each free
// cell looks by the open lines through it, as a share of the best cell's:
// a line still open to the side to move adds twice its weight, one open
// to the opponent only (a line to spoil) once.
func mctsScan(q game.Position, prior *[64]float32) (wins, threats, doubles game.Bitboard) {
	me, op := q.X(), q.O()
	if q.ToMove() == game.O {
		me, op = op, me
	}
	free := q.Empty()
	k := q.Rules().K()
	var seen game.Bitboard // cells with a threat target
	var target [64]game.Cell
	for _, l := range q.Rules().Lines() {
		lm, lo := l&me, l&op
		if l&free == 0 {
			continue
		}
		var w float32
		switch {
		case lo == 0:
			nm := bits.OnesCount64(uint64(lm))
			e := l &^ lm
			switch nm {
			case k - 1:
				wins |= e
			case k - 2:
				a, b := e.First(), (e & (e - 1)).First()
				for _, ab := range [2][2]game.Cell{{a, b}, {b, a}} {
					switch c := ab[0]; {
					case !seen.Has(c):
						seen, target[c] = seen.With(c), ab[1]
					case target[c] != ab[1]:
						doubles = doubles.With(c)
					}
				}
			}
			w = 2 * mctsLineWeight[nm]
		case lm == 0:
			no := bits.OnesCount64(uint64(lo))
			if no == k-1 {
				threats |= l &^ lo
			}
			w = mctsLineWeight[no]
		default:
			continue
		}
		if prior != nil {
			for f := l & free; f != 0; f &= f - 1 {
				prior[f.First()] += w
			}
		}
	}
	if prior == nil {
		return wins, threats, doubles
	}
	var top float32
	for f := free; f != 0; f &= f - 1 {
		top = max(top, prior[f.First()])
	}
	if top > 0 {
		for f := free; f != 0; f &= f - 1 {
			prior[f.First()] /= top
		}
	}
	return wins, threats, doubles
}

// NewMCTS returns an mcts player. It reads Options.Iterations (default
// DefaultMCTSIterations), Options.Budget (default DefaultMCTSBudget),
// Options.Load (which scales both by loadScale, down to a quarter),
// Options.Exploration (default sqrt 2) and Options.Seed or Options.Rand for
// the rollouts: with the same seed and an iteration cap that ends the
// search before the time budget does, games are reproducible. It fails
// with ErrBadOption for settings out of range.
func NewMCTS(o Options) (*MCTS, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	m := &MCTS{
		iterations:  o.Iterations,
		budget:      o.Budget,
		exploration: o.Exploration,
		seed:        o.rng().Uint64(),
		now:         time.Now,
		limit:       mctsMaxNodes,
		bias:        mctsBias,
	}
	if m.iterations == 0 {
		m.iterations = DefaultMCTSIterations
	}
	if m.budget == 0 {
		m.budget = DefaultMCTSBudget
	}
	m.iterations = scaleIterations(m.iterations, o.Load)
	m.budget = scaleBudget(m.budget, o.Load)
	if m.exploration == 0 {
		m.exploration = math.Sqrt2
	}
	m.explore = make([]float32, mctsTable)
	for n := 1; n < mctsTable; n++ {
		m.explore[n] = float32(m.exploration * math.Sqrt(math.Log(float64(n))))
	}
	return m, nil
}

// newMCTSPlayer builds the mcts level for the registry.
func newMCTSPlayer(o Options) (Player, error) {
	m, err := NewMCTS(o)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Stats returns what the last search did.
func (m *MCTS) Stats() MCTSStats { return m.stats }

// Move searches p and returns the most visited move, or the proven best
// one once the solver has decided the position: the fastest win, else a
// move that does not lose, else the slowest loss. The search ends at the
// iteration cap, the time budget, shortly before ctx's deadline, on
// cancellation or once the root is proven, whichever comes first. It
// fails with ErrNoMoves for a finished game and with ctx's error if ctx is
// done before it starts.
func (m *MCTS) Move(ctx context.Context, p game.Position) (game.Cell, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("ai: mcts: %w", err)
	}
	if p.Moves() == 0 {
		return 0, ErrNoMoves
	}
	start := m.now()
	stop := start.Add(m.budget)
	if d, ok := ctx.Deadline(); ok {
		// Keep an eighth of the time left (at most 50 ms) to answer.
		left := d.Sub(start)
		d = d.Add(-min(left/8, 50*time.Millisecond))
		if d.Before(stop) {
			stop = d
		}
	}
	m.stats = MCTSStats{Reused: m.reroot(p)}
	m.prepare()
	it := m.search(ctx, stop, m.iterations)
	cell, value := m.best()
	r := &m.nodes[0]
	m.stats.Iterations = it
	m.stats.Visits = int(r.visits)
	m.stats.Nodes = len(m.nodes)
	m.stats.Result = mctsResult(r.proof, p.ToMove())
	if r.proof != mctsUnknown {
		m.stats.Plies = int(r.depth)
	}
	if r.proof == mctsWin && r.depth >= 5 {
		// The solver stops at the first win it proves, which need not
		// be the fastest; a bounded search looks for a quicker one.
		if c, n, ok := mctsQuicker(p, int(r.depth)); ok {
			cell, m.stats.Plies = c, n
		}
	}
	m.stats.Value = value
	m.stats.Elapsed = m.now().Sub(start)
	return cell, nil
}

// mctsResult turns a proof for side into a game result.
func mctsResult(pr mctsProof, side game.Mark) game.Result {
	switch pr {
	case mctsDraw:
		return game.Draw
	case mctsWin, mctsLoss:
		winner := side
		if pr == mctsLoss {
			winner = side.Other()
		}
		if winner == game.X {
			return game.XWins
		}
		return game.OWins
	}
	return game.Ongoing
}

// search runs iterations until limit, stop, ctx's end or a proven root, and
// returns how many it ran.
func (m *MCTS) search(ctx context.Context, stop time.Time, limit int) int {
	it := 0
	for it < limit {
		if r := &m.nodes[0]; r.proof != mctsUnknown || r.visits >= mctsMaxVisits {
			break
		}
		m.iterate()
		it++
		if it%mctsCheckEvery == 0 && (ctx.Err() != nil || !m.now().Before(stop)) {
			break
		}
	}
	return it
}

// reroot makes nodes[0] the node for p: the matching node of the last
// tree, with its subtree, when p descends from the last root, or else a
// fresh root. It returns the visits carried over.
func (m *MCTS) reroot(p game.Position) int {
	if v := m.find(p); v >= 0 {
		if v > 0 {
			m.keep(v)
		}
		m.root = p
		return int(m.nodes[0].visits)
	}
	m.nodes = append(m.nodes[:0], mctsNode{})
	m.root, m.tree = p, true
	return 0
}

// find returns the node of the current tree that holds p, or -1.
func (m *MCTS) find(p game.Position) int32 {
	if !m.tree || !m.root.Rules().Equal(p.Rules()) {
		return -1
	}
	rx, ro := m.root.X(), m.root.O()
	if rx&^p.X() != 0 || ro&^p.O() != 0 {
		return -1
	}
	addX, addO := p.X()&^rx, p.O()&^ro
	v, q := int32(0), m.root
	for addX|addO != 0 {
		want := addX
		if q.ToMove() == game.O {
			want = addO
		}
		nd := m.nodes[v]
		next := int32(-1)
		for i := nd.first; i < nd.first+int32(nd.n); i++ {
			if want.Has(m.nodes[i].move) {
				next = i
				break
			}
		}
		if next < 0 {
			return -1
		}
		c := m.nodes[next].move
		if q.ToMove() == game.X {
			addX = addX.Without(c)
		} else {
			addO = addO.Without(c)
		}
		v, q = next, q.Apply(c)
	}
	if q.Key() != p.Key() || q.Over() != p.Over() {
		return -1
	}
	return v
}

// keep copies the subtree under v into the spare arena, breadth first so
// that children stay contiguous, and makes it the tree.
func (m *MCTS) keep(v int32) {
	dst := append(m.spare[:0], m.nodes[v])
	for i := 0; i < len(dst); i++ {
		if dst[i].n == 0 {
			continue
		}
		f, n := dst[i].first, int32(dst[i].n)
		dst[i].first = int32(len(dst))
		dst = append(dst, m.nodes[f:f+n]...)
	}
	m.nodes, m.spare = dst, m.nodes[:0]
}

// prepare expands the root and its children, so that every win in one and
// every reply that loses at once is proven before the first rollout: the
// search then never misses a win or a forced block, however short.
func (m *MCTS) prepare() {
	m.fpu = -1
	if m.bias > 0 && m.root.Rules().Variant() == game.KInARow {
		m.fpu = mctsFPU
	}
	// A kept node may be proven (won in one, say) but not expanded: best
	// needs its children either way.
	if m.nodes[0].n == 0 && !m.expand(0, m.root) {
		return
	}
	if m.nodes[0].proof != mctsUnknown {
		return
	}
	r := m.nodes[0]
	for i := r.first; i < r.first+int32(r.n); i++ {
		if c := m.nodes[i]; c.n == 0 && c.proof == mctsUnknown {
			m.expand(i, m.root.Apply(c.move))
		}
	}
	m.settle(0)
}

// iterate runs one iteration: select, expand, roll out, back up.
func (m *MCTS) iterate() {
	path := append(m.path[:0], 0)
	v, q := int32(0), m.root
	for {
		nd := &m.nodes[v]
		if nd.proof != mctsUnknown {
			break
		}
		if nd.n == 0 {
			// A leaf is expanded once it has been rolled out from, or
			// on wide boards a few times, to keep the tree small.
			if nd.visits < max(1, uint32(q.Moves().Count())/16) || !m.expand(v, q) || m.nodes[v].proof != mctsUnknown {
				break
			}
		}
		v = m.choose(v)
		q = q.Apply(m.nodes[v].move)
		path = append(path, v)
	}
	var winner game.Mark
	switch m.nodes[v].proof {
	case mctsUnknown:
		winner = m.rollout(q)
	case mctsWin:
		winner = q.ToMove()
	case mctsLoss:
		winner = q.ToMove().Other()
	}
	m.path = path
	m.backup(path, winner)
}

// choose returns the child of v to descend to: an unvisited one if any,
// else the best by UCT. Children proven won for the side to move there are
// never chosen; v is unproven, so some other child remains.
func (m *MCTS) choose(v int32) int32 {
	nd := &m.nodes[v]
	kids := m.nodes[nd.first : nd.first+int32(nd.n)]
	var explore float32
	if nd.visits < mctsTable {
		explore = m.explore[nd.visits]
	} else {
		explore = float32(m.exploration * math.Sqrt(math.Log(float64(nd.visits))))
	}
	best, bestU := 0, float32(math.Inf(-1))
	for i := range kids {
		k := &kids[i]
		if k.proof == mctsWin {
			continue
		}
		if k.visits == 0 {
			if m.fpu < 0 {
				return nd.first + int32(i)
			}
			if u := m.fpu + explore + k.bias; u > bestU { // as if one visit
				best, bestU = i, u
			}
			continue
		}
		if u := k.q + (explore+k.bias*k.isq)*k.isq; u > bestU {
			best, bestU = i, u
		}
	}
	return nd.first + int32(best)
}

// expand adds the children of leaf v, which holds q, in random order, and
// proves those that end the game and v if they decide it. It reports
// false when the tree is full.
func (m *MCTS) expand(v int32, q game.Position) bool {
	moves := q.Moves()
	n := moves.Count()
	first := len(m.nodes)
	if first+n > m.limit {
		return false
	}
	cells := m.cells[:n]
	for i := range cells {
		cells[i] = moves.First()
		moves &= moves - 1
	}
	for i := n - 1; i > 0; i-- {
		j := m.rand(i + 1)
		cells[i], cells[j] = cells[j], cells[i]
	}
	// On k in a row boards one pass over the lines tells which moves win
	// at once, which leave the opponent a win at once (lost in one more
	// ply: proving them now spares expanding them) and which make two
	// threats, and gives the prior: the open-lines score of each move, as
	// a share of the best one. The children go best first (ties in random
	// order), so that the untried ones are tried in that order.
	var prior [64]float32
	var wins, threats, doubles game.Bitboard
	kInARow := q.Rules().Variant() == game.KInARow
	if kInARow {
		var pp *[64]float32
		if m.bias > 0 {
			pp = &prior
		}
		wins, threats, doubles = mctsScan(q, pp)
		for i := 1; pp != nil && i < len(cells); i++ {
			c, j := cells[i], i
			for ; j > 0 && prior[c] > prior[cells[j-1]]; j-- {
				cells[j] = cells[j-1]
			}
			cells[j] = c
		}
	}
	if first+n > cap(m.nodes) {
		// Double, rather than append's gentler growth for big slices:
		// fewer copies of a big arena, and its memory is kept anyway.
		m.nodes = slices.Grow(m.nodes, min(max(2*cap(m.nodes), 1024), m.limit)-first)
	}
	m.nodes = m.nodes[:first+n]
	me := q.ToMove()
	for i, c := range cells {
		k := mctsNode{move: c, bias: m.bias * prior[c]}
		switch {
		case !kInARow:
			if r := q.Apply(c); r.Over() {
				switch r.Outcome().Winner() {
				case me:
					k.proof = mctsLoss
				case game.Empty:
					k.proof = mctsDraw
				default:
					k.proof = mctsWin
				}
			}
		case wins.Has(c):
			k.proof = mctsLoss // for the opponent, to move after it
		case n == 1:
			k.proof = mctsDraw // the last cell
		case threats.Without(c) != 0:
			k.proof, k.depth = mctsWin, 1
		case threats == 0 && doubles.Has(c):
			// Two wins at once for me and none for the opponent: it
			// blocks one and I take the other.
			k.proof, k.depth = mctsLoss, 2
		}
		m.nodes[first+i] = k
	}
	m.nodes[v].first, m.nodes[v].n = int32(first), uint8(n)
	m.settle(v)
	return true
}

// settle proves v from its children when they decide it: a child lost for
// its side to move makes v won (by the fastest such child known), and
// when every child is proven v takes the best of them. It reports whether
// v is proven.
func (m *MCTS) settle(v int32) bool {
	nd := &m.nodes[v]
	if nd.proof != mctsUnknown {
		return true
	}
	if nd.n == 0 {
		return false
	}
	kids := m.nodes[nd.first : nd.first+int32(nd.n)]
	win, loss, draw := uint8(255), uint8(0), uint8(255)
	all := true
	for i := range kids {
		switch d := kids[i].depth; kids[i].proof {
		case mctsLoss:
			win = min(win, d)
		case mctsWin:
			loss = max(loss, d)
		case mctsDraw:
			draw = min(draw, d)
		default:
			all = false
		}
	}
	switch {
	case win != 255:
		nd.proof, nd.depth = mctsWin, win+1
	case !all:
		return false
	case draw != 255:
		nd.proof, nd.depth = mctsDraw, draw+1
	default:
		nd.proof, nd.depth = mctsLoss, loss+1
	}
	return true
}

// backup adds the result to every node of path and re-proves the parents
// of proven nodes.
func (m *MCTS) backup(path []int32, winner game.Mark) {
	// The side that moved into path[i] is the root's side to move for odd
	// i and the other side for even i.
	side := m.root.ToMove()
	var odd, even uint32 = 1, 1 // half-points for a draw
	switch winner {
	case side:
		odd, even = 2, 0
	case side.Other():
		odd, even = 0, 2
	}
	proven := false
	for i := len(path) - 1; i >= 0; i-- {
		nd := &m.nodes[path[i]]
		if proven {
			proven = m.settle(path[i])
		} else {
			proven = nd.proof != mctsUnknown
		}
		nd.visits++
		if i&1 == 1 {
			nd.score += odd
		} else {
			nd.score += even
		}
		n := float32(nd.visits)
		nd.q = float32(nd.score) / (2 * n)
		if nd.proof == mctsDraw {
			nd.q = 0.5
		}
		nd.isq = 1 / float32(math.Sqrt(float64(n)))
	}
}

// rollout plays q out and returns the winner (Empty for a draw). On k in a
// row boards the playout is threat-aware: each side wins at once when it
// can and otherwise blocks the other's only immediate win (and has lost
// when there are two); every other move is uniformly random. Elsewhere
// (X-O-X, where a block can lose) every move is random.
func (m *MCTS) rollout(q game.Position) game.Mark {
	if q.Over() {
		return q.Outcome().Winner()
	}
	if q.Rules().Variant() != game.KInARow {
		return m.randomRollout(q)
	}
	r := q.Rules()
	me := q.ToMove()
	own, other := q.X(), q.O()
	if me == game.O {
		own, other = other, own
	}
	free := q.Empty()
	// The cells each side would win at once by marking. A side's threats
	// only grow through the lines of its own moves and only shrink by the
	// cells taken, so they are kept up to date without rescanning.
	tMe, tOther := q.Threats(me), q.Threats(me.Other())
	var cells [64]game.Cell
	var at [64]uint8 // the index of each free cell in cells
	n := 0
	for b := free; b != 0; b &= b - 1 {
		cells[n], at[b.First()] = b.First(), uint8(n)
		n++
	}
	for {
		switch {
		case tMe != 0:
			return me
		case n == 0:
			return game.Empty
		case tOther&(tOther-1) != 0:
			return me.Other() // two threats: one block cannot meet both
		}
		c := tOther.First() // the block, if there is a threat
		if tOther == 0 {
			c = cells[m.rand(n)]
		}
		n--
		i, last := at[c], cells[n]
		cells[i], at[last] = last, i
		own, free, tOther = own.With(c), free.Without(c), tOther.Without(c)
		for _, l := range r.LinesThrough(c) {
			// A line holding none of other's marks and all but one of
			// own's cells is a threat at that cell.
			if rest := l &^ own; rest&(rest-1) == 0 && rest&free != 0 {
				tMe |= rest
			}
		}
		me, own, other, tMe, tOther = me.Other(), other, own, tOther, tMe
	}
}

// randomRollout plays q out uniformly at random and returns the winner
// (Empty for a draw).
func (m *MCTS) randomRollout(q game.Position) game.Mark {
	var cells [64]game.Cell
	n := 0
	for b := q.Moves(); b != 0; b &= b - 1 {
		cells[n] = b.First()
		n++
	}
	for !q.Over() && n > 0 {
		i := m.rand(n)
		c := cells[i]
		n--
		cells[i] = cells[n]
		q = q.Apply(c)
	}
	return q.Outcome().Winner()
}

// rand returns a pseudo-random int in [0, n), by wyrand: the rollouts
// need a fast generator more than math/rand/v2's interface call.
func (m *MCTS) rand(n int) int {
	m.seed += 0xa0761d6478bd642f
	hi, lo := bits.Mul64(m.seed, m.seed^0xe7037ed1a0b428db)
	r, _ := bits.Mul64(hi^lo, uint64(n))
	return int(r)
}

// best returns the move to play and its value for the side to move.
func (m *MCTS) best() (game.Cell, float64) {
	r := m.nodes[0]
	kids := m.nodes[r.first : r.first+int32(r.n)]
	if len(kids) == 0 {
		// Only when a kept root could not be expanded, the tree being
		// full: take a win, else block, else any move.
		me, c := m.root.ToMove(), m.root.Moves().First()
		if w := m.root.Threats(me); w != 0 {
			c = w.First()
		} else if b := m.root.Threats(me.Other()); b != 0 {
			c = b.First()
		}
		return c, 0.5
	}
	bi := -1
	better := func(i int) bool {
		a, b := &kids[i], &kids[bi]
		if a.visits != b.visits {
			return a.visits > b.visits
		}
		return uint64(a.score)*uint64(b.visits) > uint64(b.score)*uint64(a.visits)
	}
	for i := range kids {
		k := &kids[i]
		switch r.proof {
		case mctsWin:
			if k.proof == mctsLoss && (bi < 0 || k.depth < kids[bi].depth || k.depth == kids[bi].depth && better(i)) {
				bi = i
			}
		case mctsLoss:
			if bi < 0 || k.depth > kids[bi].depth || k.depth == kids[bi].depth && better(i) {
				bi = i
			}
		default:
			if k.proof != mctsWin && (bi < 0 || better(i)) {
				bi = i
			}
		}
	}
	k := kids[bi]
	switch {
	case r.proof == mctsWin:
		return k.move, 1
	case r.proof == mctsLoss:
		return k.move, 0
	case k.proof == mctsDraw:
		return k.move, 0.5
	case k.visits == 0:
		return k.move, 0.5
	}
	return k.move, float64(k.score) / (2 * float64(k.visits))
}

// mctsWinBudget caps the positions mctsQuicker visits, about 10 ms.
const mctsWinBudget = 20_000

// mctsQuicker looks for a win for the side to move in p faster than the
// known one of the given plies, shortest first, within mctsWinBudget
// positions. It returns the first move of the fastest win it proves and
// its length.
func mctsQuicker(p game.Position, plies int) (game.Cell, int, bool) {
	budget, me := mctsWinBudget, p.ToMove()
	for n := 3; n < plies; n += 2 {
		for b := p.Moves(); b != 0; b &= b - 1 {
			if mctsForced(p.Apply(b.First()), me, n-1, &budget) {
				return b.First(), n, true
			}
			if budget <= 0 {
				return 0, 0, false
			}
		}
	}
	return 0, 0, false
}

// mctsForced reports whether me, who just moved to q, wins within n more
// plies whatever the other side does. It answers false when the budget
// runs out, so a true answer is always proven.
func mctsForced(q game.Position, me game.Mark, n int, budget *int) bool {
	*budget--
	if q.Over() {
		return q.Outcome().Winner() == me
	}
	if n < 2 || *budget <= 0 {
		return false
	}
	for b := q.Moves(); b != 0; b &= b - 1 {
		if !mctsCanWin(q.Apply(b.First()), me, n-1, budget) {
			return false
		}
	}
	return true
}

// mctsCanWin reports whether me, to move in q, can win within n plies; like
// mctsForced it only answers true for a proven win.
func mctsCanWin(q game.Position, me game.Mark, n int, budget *int) bool {
	*budget--
	if q.Over() {
		return q.Outcome().Winner() == me
	}
	if n < 1 || *budget <= 0 {
		return false
	}
	if q.Threats(me) != 0 {
		return true
	}
	for b := q.Moves(); n >= 3 && b != 0; b &= b - 1 {
		if mctsForced(q.Apply(b.First()), me, n-1, budget) {
			return true
		}
	}
	return false
}
