package ai

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/tttbot/ttt-bot/game"
)

// DefaultMinimaxBudget is the thinking time per move of a Minimax player
// whose Options.Budget is 0. With the allocation of its table on the first
// move and the clock being polled every 1024 nodes, moves come back well
// within a second.
const DefaultMinimaxBudget = 600 * time.Millisecond

// Scores of the minimax search, for the side to move. A win in n plies
// from the scored position is mmMate-n and a loss in n plies -(mmMate-n),
// so the fastest win and the slowest loss score best; evaluate keeps
// everything else well inside ±mmProven.
const (
	mmMate   int32 = 1 << 30
	mmProven int32 = mmMate - 1000
	mmInf    int32 = mmMate + 1
)

// Minimax plays by negamax search with alpha-beta pruning, iterative
// deepening and a transposition table keyed on the canonical form of the
// position (so symmetric positions share entries), which it keeps between
// moves. It orders moves by the table's best move, then by the cells on
// most open lines, and prunes with forced moves (win at once; meet the
// opponent's threat; two threats lose). Past its depth horizon it scores a
// position with evaluate. It deepens until the depth limit, the end of the
// game, or its time budget or ctx's deadline, and plays the best move of
// the deepest search it completed. With no depth limit and enough time it
// searches to the end and plays perfectly, fastest win first.
//
// Under load (Options.Load) its budget shrinks in a straight line to a
// quarter at Load 1. Whatever its budget, it completes the first
// mmFloorDepth plies of the deepening (fewer only under a smaller depth
// limit, or if ctx ends first): it always takes a win in one and meets a
// single threat.
type Minimax struct {
	rng    *rand.Rand
	depth  int
	budget time.Duration
	now    func() time.Time

	geom  *searchGeom
	table mmTable
	stop  stopper
	nodes int64
	// horizon is set when the search below the current node cut off at
	// the depth limit, so its score is an estimate.
	horizon bool
	// noTable turns the transposition table off. Only a benchmark sets it,
	// to compare with the original report's uncached search.
	noTable bool
}

// mmFloorDepth is the depth the deepening always completes, however short
// the budget: two plies see every win in one and every threat to meet.
const mmFloorDepth = 2

// NewMinimax returns a minimax player. It reads Options.Depth (plies; 0
// means no limit), Options.Budget (time per move; 0 means
// DefaultMinimaxBudget), Options.Load (which scales the budget by
// loadScale, down to a quarter) and Options.Seed or Options.Rand, which
// break ties between equally good moves.
func NewMinimax(o Options) (*Minimax, error) {
	if err := o.check(); err != nil {
		return nil, fmt.Errorf("ai: minimax: %w", err)
	}
	b := o.Budget
	if b == 0 {
		b = DefaultMinimaxBudget
	}
	return &Minimax{rng: o.rng(), depth: o.Depth, budget: scaleBudget(b, o.Load), now: time.Now}, nil
}

// newMinimaxPlayer is NewMinimax for the registry: a nil Player, not a nil
// *Minimax, on error.
func newMinimaxPlayer(o Options) (Player, error) {
	m, err := NewMinimax(o)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// SearchResult is the outcome of one Minimax.Search.
type SearchResult struct {
	// Move is the move chosen.
	Move game.Cell
	// Score is its score for the side to move: above 1<<29 a proven win,
	// below -(1<<29) a proven loss, otherwise a heuristic estimate (0 is
	// also a proven draw when Exact is set).
	Score int32
	// Depth is the depth of the deepest completed iteration, in plies; 0 if
	// not even the first finished and Move is only the best-ordered move.
	Depth int
	// Exact reports that the search reached the end of the game on every
	// line it looked at, so Score is the game-theoretic value.
	Exact bool
	// Nodes is the number of positions searched.
	Nodes int64
}

// Move returns the best move found within the depth limit and the time
// budget. It fails with ErrNoMoves in a finished game and with ctx's error
// if ctx is done before it starts.
func (m *Minimax) Move(ctx context.Context, p game.Position) (game.Cell, error) {
	r, err := m.Search(ctx, p)
	return r.Move, err
}

// Search is Move with the details of the search.
func (m *Minimax) Search(ctx context.Context, p game.Position) (SearchResult, error) {
	return m.search(ctx, p, m.now().Add(m.budget))
}

// search runs iterative deepening until deadline, ctx's deadline, the depth
// limit or a proven result. Deadline does not stop the first mmFloorDepth
// iterations; ctx does.
func (m *Minimax) search(ctx context.Context, p game.Position, deadline time.Time) (SearchResult, error) {
	if err := ctx.Err(); err != nil {
		return SearchResult{}, fmt.Errorf("ai: minimax: %w", err)
	}
	if p.Moves() == 0 {
		return SearchResult{}, ErrNoMoves
	}
	if m.geom == nil || !m.geom.rules.Equal(p.Rules()) {
		m.geom = newSearchGeom(p.Rules())
		m.table = newMMTable(tableBits(p.Rules().Size()))
	}
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	m.stop = newStopper(ctx)
	m.stop.now = m.now
	start := m.nodes
	x, o, xtm := p.X(), p.O(), p.ToMove() == game.X
	g := m.geom

	// Random tie-break ranks, so that equally good moves vary from game to
	// game, and a fallback in case not even depth 1 completes.
	var rank [64]uint8
	for i, c := range m.rng.Perm(64) {
		rank[i] = uint8(c)
	}
	t := g.scan(x, o, xtm)
	cand := t.answers &^ t.poison
	switch {
	case t.win != 0:
		cand = t.win
	case cand == 0:
		cand = p.Moves() // every move loses: play on
	}
	var buf [64]game.Cell
	moves := append([]game.Cell(nil), g.order(x, o, cand, xtm, &rank, buf[:0])...)
	res := SearchResult{Move: moves[0]}
	limit := p.Empty().Count()
	if m.depth > 0 {
		limit = min(limit, m.depth)
	}
	for d := 1; d <= limit; d++ {
		if d > mmFloorDepth {
			m.stop.deadline = deadline
		}
		m.horizon = false
		score, move := m.root(x, o, xtm, moves, d)
		if m.stop.stopped {
			break
		}
		res = SearchResult{Move: move, Score: score, Depth: d, Exact: !m.horizon}
		// Keep the best move first for the next iteration.
		for i, c := range moves {
			if c == move {
				copy(moves[1:i+1], moves[:i])
				moves[0] = c
				break
			}
		}
		if res.Exact || score > mmProven || score < -mmProven {
			break
		}
	}
	res.Nodes = m.nodes - start
	return res, nil
}

// root searches the root moves to depth d with a full window and returns
// the best score and move.
func (m *Minimax) root(x, o game.Bitboard, xToMove bool, moves []game.Cell, d int) (int32, game.Cell) {
	best, bestMove := -mmInf, moves[0]
	for _, c := range moves {
		v := m.child(x, o, xToMove, c, d, best, mmInf)
		if m.stop.stopped {
			return 0, bestMove
		}
		if v > best {
			best, bestMove = v, c
		}
	}
	return best, bestMove
}

// child plays c and returns its score for the side that played it, searched
// to depth d-1 inside the window (alpha, beta) of the parent.
func (m *Minimax) child(x, o game.Bitboard, xToMove bool, c game.Cell, d int, alpha, beta int32) int32 {
	switch r := m.geom.result(x, o, xToMove, c); r {
	case game.Ongoing:
	case game.Draw:
		return 0
	case winOf(xToMove):
		return mmMate - 1
	default:
		return -(mmMate - 1) // X-O-X: the move loses at once
	}
	nx, no := play(x, o, xToMove, c)
	return parentScore(-m.negamax(nx, no, !xToMove, d-1, childBound(-beta), childBound(-alpha)))
}

// parentScore turns a child's negated score into the parent's: a proven
// result is one ply further away.
func parentScore(v int32) int32 {
	switch {
	case v > mmProven:
		return v - 1
	case v < -mmProven:
		return v + 1
	}
	return v
}

// childBound turns a negated bound of the parent into the child's, the
// inverse of parentScore.
func childBound(v int32) int32 {
	switch {
	case v > mmProven && v < mmInf:
		return v + 1
	case v < -mmProven && v > -mmInf:
		return v - 1
	}
	return v
}

// Table entry kinds.
const (
	mmExact uint8 = iota + 1
	mmLower
	mmUpper
)

// mmExactDepth marks a table entry whose score is exact whatever the
// depth asked, because nothing below it was cut off at the horizon.
const mmExactDepth = 127

// negamax returns the score of a position (the game still going) for the
// side to move, searched d plies deep, fail-soft within (alpha, beta).
func (m *Minimax) negamax(x, o game.Bitboard, xToMove bool, d int, alpha, beta int32) int32 {
	m.nodes++
	if m.stop.poll(m.nodes) {
		return 0
	}
	g := m.geom
	empty := g.board &^ (x | o)
	if empty == 0 {
		return 0
	}
	t := g.scan(x, o, xToMove)
	if t.win != 0 {
		return mmMate - 1
	}
	cand := t.answers &^ t.poison
	if t.doomed || cand == 0 {
		if empty&^t.poison == 0 {
			return -(mmMate - 1)
		}
		return -(mmMate - 2)
	}
	if !t.meLive && !t.oppLive {
		return 0
	}
	if d <= 0 {
		m.horizon = true
		return g.evaluate(x, o, xToMove)
	}
	k, sym := g.canonical(x, o)
	ttMove := game.Cell(255)
	if e := m.probe(k); e != nil {
		if int(e.depth) >= d {
			switch {
			case e.kind == mmExact,
				e.kind == mmLower && e.score >= beta,
				e.kind == mmUpper && e.score <= alpha:
				if e.depth != mmExactDepth {
					m.horizon = true
				}
				return e.score
			}
		}
		if e.move != 0 {
			ttMove = g.rules.TransformCell(sym.Inverse(), game.Cell(e.move-1))
		}
	}
	var buf [64]game.Cell
	moves := g.order(x, o, cand, xToMove, nil, buf[:0])
	if cand.Has(ttMove) {
		moveToFront(moves, ttMove)
	}
	outer := m.horizon
	m.horizon = false
	a := alpha
	best, bestMove := -mmInf, moves[0]
	for _, c := range moves {
		nx, no := play(x, o, xToMove, c)
		var v int32
		if (nx|no)&g.board == g.board {
			v = 0 // the last cell, and not a win
		} else {
			v = parentScore(-m.negamax(nx, no, !xToMove, d-1, childBound(-beta), childBound(-a)))
		}
		if m.stop.stopped {
			return 0
		}
		if v > best {
			best, bestMove = v, c
			a = max(a, v)
			if a >= beta {
				break
			}
		}
	}
	depth := int8(d)
	if !m.horizon {
		depth = mmExactDepth
	}
	m.horizon = m.horizon || outer
	kind := mmExact
	switch {
	case best >= beta:
		kind = mmLower
	case best <= alpha:
		kind = mmUpper
	}
	if !m.noTable {
		m.table.store(k, best, depth, kind, uint8(g.rules.TransformCell(sym, bestMove))+1)
	}
	return best
}

// mmEntry is one slot of the minimax table: a score of a canonical
// position for the side to move, the kind of bound it is, the depth it was
// searched to and the best move in the canonical frame plus one.
type mmEntry struct {
	key   game.Key
	score int32
	depth int8
	kind  uint8 // mmExact, mmLower or mmUpper; 0 marks a free slot
	move  uint8
}

// mmTable is a two-way set-associative table that prefers deeper entries.
type mmTable struct {
	slots []mmEntry
	mask  uint64
}

func newMMTable(bits int) mmTable {
	return mmTable{slots: make([]mmEntry, 1<<bits), mask: 1<<bits - 2}
}

// tableBits sizes a transposition table for a board of n cells.
func tableBits(n int) int {
	switch {
	case n <= 12:
		return 12
	case n <= 16:
		return 16
	case n <= 25:
		return 18
	}
	return 20
}

// probe returns the entry for k, or nil.
// probe looks k up in the table, unless the table is off.
func (m *Minimax) probe(k game.Key) *mmEntry {
	if m.noTable {
		return nil
	}
	return m.table.probe(k)
}

func (t *mmTable) probe(k game.Key) *mmEntry {
	i := hashKey(k) & t.mask
	for j := range uint64(2) {
		if e := &t.slots[i+j]; e.kind != 0 && e.key == k {
			return e
		}
	}
	return nil
}

// store records an entry for k, replacing the entry for k or else the
// shallower of the two in its set.
func (t *mmTable) store(k game.Key, score int32, depth int8, kind, move uint8) {
	i := hashKey(k) & t.mask
	victim := &t.slots[i]
	for j := range uint64(2) {
		e := &t.slots[i+j]
		if e.kind == 0 || e.key == k {
			victim = e
			break
		}
		if e.depth < victim.depth {
			victim = e
		}
	}
	*victim = mmEntry{key: k, score: score, depth: depth, kind: kind, move: move}
}
