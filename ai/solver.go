package ai

import (
	"context"
	"fmt"
	"math/bits"
	"sort"

	"github.com/tttbot/ttt-bot/game"
)

// Solver finds game-theoretic values; its table persists across calls. Not safe for concurrent use.
//
// The search is a negamax over the three values loss, draw and win, run as
// null-window tests ("can the side to move win?", then "can it avoid
// losing?") with alpha-beta pruning. It cuts the tree with forced moves
// (win at once; with one enemy threat the only move is the block; with two
// it is lost), dead-line bounds (a side with no line left open to it, or
// none it has the moves left to fill, cannot win; if neither has one, it
// is a draw), pairing strategies as static proofs that a side cannot win
// (k in a row only), and a transposition table keyed on the canonical form
// of the position, so all symmetric positions share one entry. Moves are
// tried most promising first: the table's best move, then cells on many
// open lines, weighted by how full the lines are.
//
// The table is kept for one set of rules at a time; solving a position of
// other rules clears it.
type Solver struct {
	geom  *searchGeom
	table solverTable
	nodes int64
	stop  stopper
}

// Analysis is what Solver.Solve finds out about a position.
type Analysis struct {
	Value game.Result // XWins, OWins or Draw with perfect play from p (p's own result if p is over)
	Moves []MoveValue // every legal move with its value, best first for the side to move
	Best  []game.Cell // the moves that keep Value, in row-major order
	Nodes int64       // nodes searched by this call
}

// MoveValue is the value of one move of an Analysis.
type MoveValue struct {
	Cell  game.Cell
	Value game.Result // the game's value after this move
	// Plies is the number of plies until the end under best play (fastest
	// win / slowest loss), counting the move itself, when known, else 0.
	// A move that wins at once has 1; a drawn move has the number of free
	// cells, as a drawn game ends only when the board is full. For wins and
	// losses it is searched within a node budget, so on large boards it may
	// be 0.
	Plies int
}

// NewSolver returns a solver with an empty table. The table is allocated on
// the first call, sized for the board: 96 KB for boards of up to 12 cells,
// 3 MB up to 16, 6 MB up to 25 and 24 MB beyond.
func NewSolver() *Solver { return &Solver{} }

// distanceBudget caps the nodes spent finding how many plies a won or lost
// move takes, per Solve call.
const distanceBudget = 100_000

// prepare makes the solver ready for positions of r.
func (s *Solver) prepare(r game.Rules) {
	if s.geom != nil && s.geom.rules.Equal(r) {
		return
	}
	s.geom = newSearchGeom(r)
	var bits int
	switch n := r.Size(); {
	case n <= 12:
		bits = 12
	case n <= 16:
		bits = 17
	case n <= 25:
		bits = 18
	default:
		bits = 20
	}
	s.table = newSolverTable(bits)
}

// Value returns the value of p with perfect play, without the per-move
// values that Solve adds. It honours ctx.
func (s *Solver) Value(ctx context.Context, p game.Position) (game.Result, error) {
	if err := s.begin(ctx, p); err != nil {
		return game.Ongoing, err
	}
	if p.Over() {
		return p.Outcome().Result, nil
	}
	xtm := p.ToMove() == game.X
	v := s.value(p.X(), p.O(), xtm)
	if s.stop.stopped {
		return game.Ongoing, fmt.Errorf("ai: solving %s: %w", p, context.Cause(ctx))
	}
	return resultOf(v, xtm), nil
}

// begin checks p and ctx and prepares a call.
func (s *Solver) begin(ctx context.Context, p game.Position) error {
	if !p.Rules().Valid() {
		return fmt.Errorf("ai: solve: %w: position has no rules", game.ErrBadRules)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("ai: solving %s: %w", p, err)
	}
	s.prepare(p.Rules())
	s.stop = newStopper(ctx)
	return nil
}

// Solve returns the value of p with perfect play and the value of every legal move. It honours ctx.
func (s *Solver) Solve(ctx context.Context, p game.Position) (Analysis, error) {
	if err := s.begin(ctx, p); err != nil {
		return Analysis{}, err
	}
	if p.Over() {
		return Analysis{Value: p.Outcome().Result}, nil
	}
	start := s.nodes
	xtm := p.ToMove() == game.X
	root := s.value(p.X(), p.O(), xtm)
	moves := s.moveValues(p, root, true, func() bool { return s.stop.stopped })
	if s.stop.stopped {
		return Analysis{}, fmt.Errorf("ai: solving %s: %w", p, context.Cause(ctx))
	}
	a := Analysis{Value: resultOf(root, xtm), Moves: moves, Nodes: s.nodes - start}
	a.Best = bestMoves(a.Moves, a.Value)
	sortMoves(a.Moves, p.ToMove())
	return a, nil
}

// moveValues returns the value of every legal move of p, in row-major
// order, given root, the value of p for the side to move (1, 0 or -1); it
// stops before the first move left when over reports true. A move that
// ends the game has Plies 1 and a drawn move the number of free cells.
// With plies, a won or lost move also gets its plies from a search within
// distanceBudget (0 if that search does not find them), and a move to a
// position symmetric to an earlier move's takes that move's value and
// plies without a search; without plies, every move is searched and won
// and lost moves have Plies 0. It adds the nodes of every search to s's
// count.
func (s *Solver) moveValues(p game.Position, root int8, plies bool, over func() bool) []MoveValue {
	g := s.geom
	x, o, xtm := p.X(), p.O(), p.ToMove() == game.X
	empties := p.Empty().Count()
	var dist *distSearch
	var seen map[game.Key]MoveValue
	if plies {
		dist = s.newDistSearch()
		seen = map[game.Key]MoveValue{}
	}
	var moves []MoveValue
	for m := p.Moves(); m != 0 && !over(); m &= m - 1 {
		c := m.First()
		mv := MoveValue{Cell: c}
		switch r := g.result(x, o, xtm, c); r {
		case game.Ongoing:
			nx, no := play(x, o, xtm, c)
			var k game.Key
			if seen != nil {
				k, _ = g.canonical(nx, no)
				if prev, ok := seen[k]; ok {
					mv.Value, mv.Plies = prev.Value, prev.Plies
					break
				}
			}
			v := s.childValue(nx, no, xtm, root)
			mv.Value = resultOf(v, xtm)
			switch {
			case v == 0:
				mv.Plies = empties
			case dist != nil:
				mv.Plies = dist.movePlies(nx, no, xtm, v > 0, empties)
			}
			if seen != nil {
				seen[k] = mv
			}
		default:
			mv.Value, mv.Plies = r, 1
		}
		moves = append(moves, mv)
	}
	if dist != nil {
		s.nodes += dist.nodes
	}
	return moves
}

// childValue returns the value, for the side that moved (X if xToMove),
// of nx, no, the position after a move that does not end the game, in a
// position whose value for that side is root: -1 for every move of a lost
// position, one test of whether the move loses in a drawn one, else its
// exact value.
func (s *Solver) childValue(nx, no game.Bitboard, xToMove bool, root int8) int8 {
	switch root {
	case -1: // every move loses
		return -1
	case 0: // no move wins; does this one lose?
		if s.search(nx, no, !xToMove, 0, 1) >= 1 {
			return -1
		}
		return 0
	}
	return -s.value(nx, no, !xToMove)
}

// bestMoves returns the cells of the moves that have the value v, in the
// order of moves.
func bestMoves(moves []MoveValue, v game.Result) []game.Cell {
	var best []game.Cell
	for _, mv := range moves {
		if mv.Value == v {
			best = append(best, mv.Cell)
		}
	}
	return best
}

// sortMoves orders moves best first for the side me (see moveRank),
// keeping row-major order among equals.
func sortMoves(moves []MoveValue, me game.Mark) {
	sort.SliceStable(moves, func(i, j int) bool {
		return moveRank(moves[i], me) > moveRank(moves[j], me)
	})
}

// rootMove returns a move that keeps the value of p, which the last call
// to Value or Solve must have solved: the best move the table holds for
// it, or its forced move. It reports false if the table has lost it.
func (s *Solver) rootMove(p game.Position) (game.Cell, bool) {
	g := s.geom
	if g == nil || !g.rules.Equal(p.Rules()) || p.Over() {
		return 0, false
	}
	x, o, xtm := p.X(), p.O(), p.ToMove() == game.X
	t := g.scan(x, o, xtm)
	cand := t.answers &^ t.poison
	switch {
	case t.win != 0:
		return t.win.First(), true
	case t.doomed || cand == 0:
		return p.Moves().First(), true // lost whatever
	case cand&(cand-1) == 0:
		return cand.First(), true
	}
	k, sym := g.canonical(x, o)
	if e := s.table.probe(k); e != nil && e.move != 0 {
		if c := g.rules.TransformCell(sym.Inverse(), game.Cell(e.move-1)); cand.Has(c) {
			return c, true
		}
	}
	return 0, false
}

// moveRank orders move values for the side me: wins before draws before
// losses, fast wins and slow losses first, unknown lengths after known.
func moveRank(mv MoveValue, me game.Mark) int {
	plies := mv.Plies
	switch mv.Value {
	case winOf(me == game.X):
		if plies == 0 {
			plies = 100
		}
		return 3000 - plies
	case game.Draw:
		return 2000
	}
	if plies == 0 {
		return 1000
	}
	return 1000 + plies
}

// resultOf turns a value for the side to move (1 win, 0 draw, -1 loss)
// into a result.
func resultOf(v int8, xToMove bool) game.Result {
	switch {
	case v > 0:
		return winOf(xToMove)
	case v < 0:
		return winOf(!xToMove)
	}
	return game.Draw
}

// value returns the exact value of a position for the side to move, by two
// null-window searches.
func (s *Solver) value(x, o game.Bitboard, xToMove bool) int8 {
	if s.search(x, o, xToMove, 0, 1) >= 1 {
		return 1
	}
	if s.search(x, o, xToMove, -1, 0) >= 0 {
		return 0
	}
	return -1
}

// search is a fail-soft alpha-beta negamax over the values -1 (loss), 0
// (draw) and 1 (win) for the side to move. The game must still be going.
// When the context stops the search it returns 0, and callers must check
// s.stop.stopped before trusting any value.
func (s *Solver) search(x, o game.Bitboard, xToMove bool, alpha, beta int8) int8 {
	s.nodes++
	if s.stop.poll(s.nodes) {
		return 0
	}
	g := s.geom
	empty := g.board &^ (x | o)
	if empty == 0 {
		return 0
	}
	t := g.scan(x, o, xToMove)
	if t.win != 0 {
		return 1
	}
	if t.doomed {
		return -1
	}
	cand := t.answers &^ t.poison
	if cand == 0 {
		return -1
	}
	lo, hi := int8(-1), int8(1)
	if !t.meLive {
		hi = 0
	}
	if !t.oppLive {
		lo = 0
	}
	if lo >= hi || lo >= beta {
		return lo
	}
	if hi <= alpha {
		return hi
	}
	if cand&(cand-1) == 0 {
		// A forced move: not worth a table entry.
		nx, no := play(x, o, xToMove, cand.First())
		v := -s.search(nx, no, !xToMove, -beta, -alpha)
		return min(max(v, lo), hi)
	}
	k, sym := g.canonical(x, o)
	ttMove, ttRaw := game.Cell(255), uint8(0)
	if e := s.table.probe(k); e != nil {
		ttRaw = e.move
		lo, hi = max(lo, e.lo), min(hi, e.hi)
		if lo >= hi || lo >= beta {
			return lo
		}
		if hi <= alpha {
			return hi
		}
		if e.move != 0 {
			ttMove = g.rules.TransformCell(sym.Inverse(), game.Cell(e.move-1))
		}
	}
	if !g.xox {
		// A pairing strategy is a static proof that a side cannot win.
		n := bits.OnesCount64(uint64(empty))
		if hi > 0 && alpha >= 0 && g.paired(x, o, empty, xToMove, (n+1)/2) {
			hi = 0
		}
		if lo < 0 && beta <= 0 && g.paired(x, o, empty, !xToMove, n/2) {
			lo = 0
		}
		if lo >= beta || hi <= alpha {
			s.table.store(k, lo, hi, ttRaw, 1)
			if lo >= beta {
				return lo
			}
			return hi
		}
	}
	a, b := max(alpha, lo), min(beta, hi)
	var buf [64]game.Cell
	moves := g.order(x, o, cand, xToMove, nil, buf[:0])
	if cand.Has(ttMove) {
		moveToFront(moves, ttMove)
	}
	before := s.nodes
	best, bestMove := int8(-2), moves[0]
	for _, c := range moves {
		nx, no := play(x, o, xToMove, c)
		v := -s.search(nx, no, !xToMove, -b, -max(a, best))
		if s.stop.stopped {
			return 0
		}
		if v > best {
			best, bestMove = v, c
			if best >= b {
				break
			}
		}
	}
	nlo, nhi := lo, hi
	switch {
	case best >= b:
		nlo = max(lo, best)
	case best <= a:
		best = max(best, lo)
		nhi = best
	default:
		nlo, nhi = best, best
	}
	s.table.store(k, nlo, nhi, uint8(g.rules.TransformCell(sym, bestMove))+1, s.nodes-before)
	return best
}

// solverEntry is one slot of the solver's transposition table: bounds on
// the exact value of a canonical position for the side to move.
type solverEntry struct {
	key    game.Key
	lo, hi int8
	move   uint8 // best move in the canonical frame, plus one; 0 if none
	work   uint8 // bit length of the nodes searched below it; 0 marks a free slot
}

// solverTable is a two-way set-associative transposition table that keeps
// the entry with more work behind it when a slot is contested.
type solverTable struct {
	slots []solverEntry
	mask  uint64
}

func newSolverTable(bits int) solverTable {
	return solverTable{slots: make([]solverEntry, 1<<bits), mask: 1<<bits - 2}
}

// probe returns the entry for k, or nil.
func (t *solverTable) probe(k game.Key) *solverEntry {
	i := hashKey(k) & t.mask
	for j := range uint64(2) {
		if e := &t.slots[i+j]; e.work != 0 && e.key == k {
			return e
		}
	}
	return nil
}

// store records bounds and a best move (in the canonical frame, plus one;
// 0 for none) for k.
func (t *solverTable) store(k game.Key, lo, hi int8, move uint8, nodes int64) {
	i := hashKey(k) & t.mask
	w := uint8(bits.Len64(uint64(nodes))) + 1
	victim := &t.slots[i]
	for j := range uint64(2) {
		e := &t.slots[i+j]
		if e.work != 0 && e.key == k {
			victim = e
			w = max(w, e.work)
			break
		}
		if e.work < victim.work {
			victim = e
		}
	}
	*victim = solverEntry{key: k, lo: lo, hi: hi, move: move, work: w}
}

// distSearch finds how fast a won position can be won, by depth-bounded
// searches of increasing depth ("can the winner force a win within d
// plies?"), within a node budget.
type distSearch struct {
	g      *searchGeom
	memo   map[distKey]distEntry
	nodes  int64
	budget int64
	stop   *stopper
}

// distKey names a canonical position and the side trying to win it.
type distKey struct {
	k    game.Key
	xWin bool
}

// distEntry holds the largest depth at which a win was refuted and the
// smallest at which one was proved (0 if none yet).
type distEntry struct{ fail, win int8 }

// newDistSearch returns a distance search within distanceBudget that
// stops with s.
func (s *Solver) newDistSearch() *distSearch {
	return &distSearch{g: s.geom, memo: map[distKey]distEntry{}, budget: distanceBudget, stop: &s.stop}
}

// movePlies returns the plies until the end of a won or lost move (won if
// wins) of the side xToMove, counting the move, under best play: nx, no is
// the position after it and empties the free cells before it. It returns 0
// if the search does not find them.
func (d *distSearch) movePlies(nx, no game.Bitboard, xToMove, wins bool, empties int) int {
	if n := d.fastest(nx, no, !xToMove, !wins, empties-1); n > 0 {
		return 1 + n
	}
	return 0
}

// fastest returns the fewest plies in which the side that wins the
// position (the side to move if toMoveWins) forces the win against the
// slowest defence, or 0 if that is not found within the node budget or
// maxPlies.
func (d *distSearch) fastest(x, o game.Bitboard, xToMove, toMoveWins bool, maxPlies int) int {
	xWin := xToMove == toMoveWins
	for n := 1; n <= maxPlies && d.nodes < d.budget; n++ {
		if d.within(x, o, xToMove, xWin, int8(n)) && d.nodes < d.budget {
			return n
		}
	}
	return 0
}

// within reports whether the side xWin names can force a win within n
// plies. Past the budget it returns false.
func (d *distSearch) within(x, o game.Bitboard, xToMove, xWin bool, n int8) bool {
	d.nodes++
	if d.nodes >= d.budget || d.stop.poll(d.nodes) {
		d.budget = 0 // out of nodes or time: give up the whole search
		return false
	}
	g := d.g
	empty := g.board &^ (x | o)
	if empty == 0 || n < 1 {
		return false
	}
	attack := xToMove == xWin
	t := g.scan(x, o, xToMove)
	if t.win != 0 {
		return attack
	}
	cand := t.answers &^ t.poison
	if t.doomed || cand == 0 {
		// Every move loses: at once if all are poison, else a ply later.
		return !attack && (n >= 2 || empty&^t.poison == 0)
	}
	if n < 2 {
		return false
	}
	k, _ := g.canonical(x, o)
	dk := distKey{k, xWin}
	e := d.memo[dk]
	if e.win != 0 && n >= e.win {
		return true
	}
	if n <= e.fail {
		return false
	}
	var buf [64]game.Cell
	won := !attack
	for _, c := range g.order(x, o, cand, xToMove, nil, buf[:0]) {
		nx, no := play(x, o, xToMove, c)
		if d.within(nx, no, !xToMove, xWin, n-1) == attack {
			won = attack
			break
		}
	}
	if d.nodes >= d.budget {
		return false
	}
	e = d.memo[dk]
	if won {
		if e.win == 0 || n < e.win {
			e.win = n
		}
	} else {
		e.fail = max(e.fail, n)
	}
	d.memo[dk] = e
	return won
}
