package ai

import (
	"context"
	"errors"
	"fmt"
	"math/bits"

	"github.com/tttbot/ttt-bot/ai/proof"
	"github.com/tttbot/ttt-bot/game"
)

// ErrNoProof is returned by Prove for rules it cannot write certificates
// for (the X-O-X variant).
var ErrNoProof = errors.New("ai: no certificate for these rules")

// ProveStats is what a Prove call counted.
type ProveStats struct {
	Nodes     int64 // nodes searched, by the hold search and the solver
	HoldDepth []int // per hold proof: the defender choices the deepest iteration allowed
}

// Prove solves p and returns a certificate of its value that
// proof.Verify accepts. It honours ctx.
//
// For k of 5 and more it first runs a hold search for the side not to
// move: an AND/OR search in which the defender's choices are bounded by an
// iteratively deepened count, every move of the attacker is answered, and
// a position is proved as soon as the defender has a pairing strategy
// against every line the attacker can still complete. If it proves that
// the side to move cannot win it runs the same search the other way; two
// holds make a draw. Where a hold fails (the attacker wins), the value
// comes from the Solver. For k up to 4 the Solver and a win search for the
// side to move (threat-first, see winSearch) run in turns, and the first
// to settle the value gives it. The certificate is read off the table of
// whichever settled it: the winner's moves and every reply of the loser,
// or the defender's moves and the pairings the solver's static proofs
// rest on.
func (s *Solver) Prove(ctx context.Context, p game.Position) (*proof.Certificate, ProveStats, error) {
	return s.ProveWith(ctx, p, ProveOptions{})
}

// ProveOptions are the optional settings of ProveWith, for long proofs.
type ProveOptions struct {
	// Progress, if set, is called every 65536 nodes of a hold search.
	Progress func(ProveProgress)
	// Tables, if set, holds the positions the hold searches proved: filled
	// in by the call, and read at its start, so that a run stopped by its
	// context can be saved (HoldTables.WriteTo) and resumed
	// (ReadHoldTables) without proving those positions again.
	Tables *HoldTables
}

// ProveProgress is a snapshot of a running hold search.
type ProveProgress struct {
	Proof     string // the proof being searched, like "hold O" (X cannot win)
	Depth     int    // the defender choices the current iteration allows
	Nodes     int64  // nodes of this hold search so far, resumed runs' not counted
	RootDone  int    // the attacker's moves at the root proved in this iteration
	RootTotal int    // of so many
	Proved    int    // canonical positions proved so far
}

// ProveWith is Prove with options.
func (s *Solver) ProveWith(ctx context.Context, p game.Position, o ProveOptions) (*proof.Certificate, ProveStats, error) {
	var st ProveStats
	if err := s.begin(ctx, p); err != nil {
		return nil, st, err
	}
	if o.Tables != nil {
		if err := o.Tables.adopt(p); err != nil {
			return nil, st, err
		}
	}
	start := s.nodes
	c, err := s.prove(ctx, p, o, &st)
	st.Nodes += s.nodes - start
	return c, st, err
}

// prove is Prove once the solver is ready.
func (s *Solver) prove(ctx context.Context, p game.Position, opt ProveOptions, st *ProveStats) (*proof.Certificate, error) {
	if s.geom.xox {
		return nil, fmt.Errorf("%w: %s", ErrNoProof, p.Rules())
	}
	c := &proof.Certificate{Position: p}
	if p.Over() {
		c.Value = p.Outcome().Result
		return c, nil
	}
	mover := p.ToMove()
	x, o := p.X(), p.O()
	xtm := mover == game.X
	stopped := func() error { return fmt.Errorf("ai: proving %s: %w", p, context.Cause(ctx)) }
	known := false // whether v holds the value for the side to move
	var v int8
	newHold := func(atkX bool) *holdSearch {
		var proved map[game.Key]int8
		if opt.Tables != nil {
			proved = opt.Tables.table(atkX)
		}
		h := newHoldSearch(s.geom, atkX, &s.stop, proved)
		if opt.Tables != nil {
			h.next = opt.Tables.next[index(atkX)]
		}
		if opt.Progress != nil {
			name := "hold O"
			if !atkX {
				name = "hold X"
			}
			h.tick = func() {
				opt.Progress(ProveProgress{Proof: name, Depth: h.depth, Nodes: h.nodes,
					RootDone: h.rootDone, RootTotal: h.rootTotal, Proved: len(h.proved)})
			}
		}
		return h
	}
	if p.Rules().K() >= 5 {
		h := newHold(xtm)
		held, sv, ok := s.holdOrSolve(h, x, o, xtm)
		keepNext(opt, h)
		st.Nodes += h.nodes
		if ctx.Err() != nil {
			return nil, stopped()
		}
		known, v = ok, sv
		if held {
			st.HoldDepth = append(st.HoldDepth, h.depth)
			pr := proof.NewProof(proof.Hold, mover.Other())
			if err := extractHold(s.geom, pr, x, o, h.oracle()); err != nil {
				if ctx.Err() != nil {
					return nil, stopped() // the oracle was stopped, not refuted
				}
				return nil, err
			}
			h2 := newHold(!xtm)
			held2, sv2, ok2 := s.holdOrSolve(h2, x, o, xtm)
			keepNext(opt, h2)
			st.Nodes += h2.nodes
			if ctx.Err() != nil {
				return nil, stopped()
			}
			known, v = ok2, sv2
			if held2 {
				st.HoldDepth = append(st.HoldDepth, h2.depth)
				pr2 := proof.NewProof(proof.Hold, mover)
				if err := extractHold(s.geom, pr2, x, o, h2.oracle()); err != nil {
					if ctx.Err() != nil {
						return nil, stopped()
					}
					return nil, err
				}
				c.Value = game.Draw
				c.Proofs = sortProofs(pr, pr2)
				return c, nil
			}
		}
	}
	// The winner's moves come from the win search where it proved the
	// win, from the solver's table otherwise.
	var winMoves func(x, o game.Bitboard) (game.Cell, bool)
	if !known {
		w := newWinSearch(s.geom, xtm, &s.stop)
		if opt.Progress != nil {
			name := "win " + mover.String()
			w.tick = func() {
				opt.Progress(ProveProgress{Proof: name, Depth: w.depth, Nodes: w.nodes, Proved: len(w.proved)})
			}
		}
		won, sv, ok := s.winOrSolve(w, x, o, xtm)
		st.Nodes += w.nodes
		if !ok {
			return nil, stopped()
		}
		v = sv
		if won {
			winMoves = w.oracle()
		}
	}
	if s.stop.stopped {
		return nil, stopped()
	}
	c.Value = resultOf(v, mover == game.X)
	var err error
	switch c.Value {
	case game.XWins, game.OWins:
		winner := game.X
		if c.Value == game.OWins {
			winner = game.O
		}
		pr := proof.NewProof(proof.Win, winner)
		err = s.extractWin(pr, x, o, winMoves)
		c.Proofs = []*proof.Proof{pr}
	default:
		prO := proof.NewProof(proof.Hold, game.O)
		if err = extractHold(s.geom, prO, x, o, s.holdOracle(false)); err == nil {
			prX := proof.NewProof(proof.Hold, game.X)
			err = extractHold(s.geom, prX, x, o, s.holdOracle(true))
			c.Proofs = []*proof.Proof{prO, prX}
		}
	}
	if s.stop.stopped {
		return nil, stopped()
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// keepNext records in the tables, if any, the depth from which h's root
// has not failed, so that a resumed run starts there.
func keepNext(opt ProveOptions, h *holdSearch) {
	if opt.Tables != nil {
		opt.Tables.next[index(h.atkX)] = h.next
	}
}

// holdOrSolve runs the hold search h from the position and the solver in
// turns, with node budgets doubling from 16384 (the solver gets an eighth
// of each), until the hold is proved
// (held), the hold search shows that the attacker wins, or the solver
// finds the value of the position for the side to move (X if xtm), which
// it then returns with ok. A hold search alone would take for ever to see
// that the attacker wins where the solver sees it at once. The context
// stops it too; the caller checks.
func (s *Solver) holdOrSolve(h *holdSearch, x, o game.Bitboard, xtm bool) (held bool, v int8, ok bool) {
	defer func() { s.stop.limit = 0 }()
	for budget := int64(1 << 14); ; budget *= 2 {
		s.stop.limit = h.nodes + budget
		proved, conclusive := h.prove(x, o)
		if proved {
			return true, 0, false
		}
		if isDone(s.stop.done) {
			return false, 0, false
		}
		s.stop.stopped = false
		if conclusive {
			// The attacker wins: the value is the attacker's win.
			if h.atkX == xtm {
				return false, 1, true
			}
			return false, -1, true
		}
		// The solver gets an eighth of the hold search's budget: on the
		// boards this is for, the hold search is the one that finishes.
		s.stop.limit = s.nodes + budget/8
		sv := s.value(x, o, xtm)
		if !s.stop.stopped {
			return false, sv, true
		}
		if isDone(s.stop.done) {
			return false, 0, false
		}
		s.stop.stopped = false
	}
}

// isDone reports whether the channel is closed; nil never is.
func isDone(done <-chan struct{}) bool {
	if done == nil {
		return false
	}
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// sortProofs puts "hold O" before "hold X".
func sortProofs(a, b *proof.Proof) []*proof.Proof {
	if a.Side == game.X {
		a, b = b, a
	}
	return []*proof.Proof{a, b}
}

// holdOracle returns the defender's move at a canonical position where the
// defender (X if defX) is to move, from the solver: a move after which the
// attacker cannot win.
func (s *Solver) holdOracle(defX bool) func(x, o game.Bitboard) (game.Cell, bool) {
	return func(x, o game.Bitboard) (game.Cell, bool) {
		g := s.geom
		t := g.scan(x, o, defX)
		var buf [64]game.Cell
		for _, c := range g.order(x, o, t.answers, defX, nil, buf[:0]) {
			nx, no := play(x, o, defX, c)
			if g.result(x, o, defX, c) != game.Ongoing {
				return c, true // a win, or the last cell
			}
			if s.search(nx, no, !defX, 0, 1) < 1 && !s.stop.stopped {
				return c, true
			}
		}
		return 0, false
	}
}

// extractWin writes into pr the winner's moves from the canonical form of
// the position X on x, O on o, and every reply of the loser after them.
// The winner's moves come from oracle (the win search's table) if it is
// not nil, else from the solver's table, which must show the position won
// for pr.Side.
func (s *Solver) extractWin(pr *proof.Proof, x, o game.Bitboard, oracle func(x, o game.Bitboard) (game.Cell, bool)) error {
	seen := map[game.Key]bool{}
	winX := pr.Side == game.X
	g := s.geom
	var walk func(x, o game.Bitboard) error
	walk = func(x, o game.Bitboard) error {
		if s.stop.stopped {
			return nil
		}
		k, _ := g.canonical(x, o)
		x, o = k.X, k.O
		if seen[k] {
			return nil
		}
		seen[k] = true
		empty := g.board &^ (x | o)
		xtm := bits.OnesCount64(uint64(x)) == bits.OnesCount64(uint64(o))
		if xtm == winX {
			t := g.scan(x, o, xtm)
			if t.win != 0 {
				return nil
			}
			if oracle != nil {
				c, ok := oracle(x, o)
				if !ok || !empty.Has(c) {
					return fmt.Errorf("ai: proving: no winning move for %s at %x %x", pr.Side, uint64(x), uint64(o))
				}
				pr.Moves[k] = c
				nx, no := play(x, o, xtm, c)
				return walk(nx, no)
			}
			var buf [64]game.Cell
			moves := g.order(x, o, t.answers, xtm, nil, buf[:0])
			if e := s.table.probe(k); e != nil && e.move != 0 {
				moveToFront(moves, game.Cell(e.move-1))
			}
			for _, c := range moves {
				nx, no := play(x, o, xtm, c)
				if g.result(x, o, xtm, c) == game.Draw {
					continue
				}
				if s.value(nx, no, !xtm) == -1 {
					pr.Moves[k] = c
					return walk(nx, no)
				}
				if s.stop.stopped {
					return nil
				}
			}
			return fmt.Errorf("ai: proving: no winning move for %s at %x %x", pr.Side, uint64(x), uint64(o))
		}
		for f := empty; f != 0; f &= f - 1 {
			c := f.First()
			if r := g.result(x, o, xtm, c); r != game.Ongoing {
				return fmt.Errorf("ai: proving: the loser's move %s at %x %x ends the game (%s)", c, uint64(x), uint64(o), r)
			}
			nx, no := play(x, o, xtm, c)
			if err := walk(nx, no); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(x, o)
}

// extractHold writes into pr (a hold proof: pr.Side defends) the
// defender's moves, chosen by oracle at canonical positions, and the
// pairings that end each line of play, from the position X on x, O on o.
// It follows the checker's rules: the attacker's every move is followed,
// a position where the attacker has no live line needs nothing, and a
// pairing is written wherever one exists with the attacker to move.
func extractHold(g *searchGeom, pr *proof.Proof, x, o game.Bitboard, oracle func(x, o game.Bitboard) (game.Cell, bool)) error {
	seen := map[game.Key]bool{}
	defX := pr.Side == game.X
	var walk func(x, o game.Bitboard) error
	walk = func(x, o game.Bitboard) error {
		k, _ := g.canonical(x, o)
		x, o = k.X, k.O
		if seen[k] {
			return nil
		}
		seen[k] = true
		empty := g.board &^ (x | o)
		if empty == 0 {
			return nil
		}
		xtm := bits.OnesCount64(uint64(x)) == bits.OnesCount64(uint64(o))
		t := g.scan(x, o, xtm)
		if xtm != defX { // the attacker moves
			if !t.meLive {
				return nil
			}
			if t.win != 0 {
				return fmt.Errorf("ai: proving: the attacker wins at %x %x", uint64(x), uint64(o))
			}
			n := bits.OnesCount64(uint64(empty))
			if pairs, ok := g.pairs(x, o, empty, !defX, (n+1)/2); ok {
				pr.Pairs[k] = pairs
				return nil
			}
			for f := empty; f != 0; f &= f - 1 {
				nx, no := play(x, o, xtm, f.First())
				if err := walk(nx, no); err != nil {
					return err
				}
			}
			return nil
		}
		if !t.oppLive || t.win != 0 {
			return nil
		}
		c, ok := oracle(x, o)
		if !ok {
			return fmt.Errorf("ai: proving: no defence for %s at %x %x", pr.Side, uint64(x), uint64(o))
		}
		pr.Moves[k] = c
		if g.result(x, o, xtm, c) != game.Ongoing {
			return nil
		}
		nx, no := play(x, o, xtm, c)
		return walk(nx, no)
	}
	return walk(x, o)
}

// pairs is paired returning the pairing it found, as cells two by two,
// or else coverPairs's.
func (g *searchGeom) pairs(x, o, empty game.Bitboard, xSide bool, left int) ([]game.Cell, bool) {
	var pr pairing
	n, ok := pr.match(g, x, o, empty, xSide, left)
	if !ok {
		return g.coverPairs(x, o, empty, xSide, left)
	}
	out := make([]game.Cell, 2*n)
	for c := range pr.owner {
		if s := pr.owner[c]; s != 0 {
			out[s-1] = game.Cell(c)
		}
	}
	return out, true
}

// holdSearch proves that the attacker cannot win: an AND/OR search over
// every attacker move and the defender's replies, the defender's free
// choices (not forced blocks) bounded by a depth that prove deepens one at
// a time, with pairing strategies as leaves. With rz (the default) an
// attacker's move outside the relevance zone of a move proved at the same
// node is proved with it, not searched (see attacker). Proved canonical positions
// are kept for ever in a map (the certificate is read off it, and a
// stopped run can save it and resume); failures at a depth go to a
// fixed-size table, overwritten as it fills, so memory stays bounded.
type holdSearch struct {
	g      *searchGeom
	atkX   bool              // the attacker is X
	proved map[game.Key]int8 // the defender's proving move (canonical frame), -1 for none
	failTable
	nodes int64
	depth int // the depth of the last iteration prove ran
	next  int // the first depth prove has not seen fail from the root
	stop  *stopper
	// level is the recursion depth; rootDone and rootTotal count the
	// attacker's moves at the root proved in the current iteration.
	level               int
	rootDone, rootTotal int
	tick                func() // called every 1<<16 nodes, or nil
	// zones caches, per proved canonical position, its relevance zone (see
	// attacker), in a table of fixed size that forgets: a proved position
	// whose zone is gone has its pairing's zone, or the whole board.
	zones      []zoneEntry
	zoneStores int // zones stored since zones was made
	// rz says whether attacker moves outside a proved sibling's zone are
	// taken as proved (the relevance-zone search).
	rz bool
}

// holdFail records that the hold failed at a canonical position with at
// most depth1-1 defender choices; depth1 0 marks a free slot.
type holdFail struct {
	key    game.Key
	depth1 int8
}

// holdFailBits bounds the failure table: at most 1<<22 slots of 24 bytes,
// 96 MB. It starts at 1<<12 slots and doubles (forgetting what it held)
// whenever it has taken four times as many stores as it has slots.
const holdFailBits = 22

func newHoldSearch(g *searchGeom, atkX bool, stop *stopper, proved map[game.Key]int8) *holdSearch {
	if proved == nil {
		proved = map[game.Key]int8{}
	}
	return &holdSearch{g: g, atkX: atkX, proved: proved, stop: stop, rz: true}
}

func (h *holdSearch) store(k game.Key, proved bool, d int8, move int8) {
	if proved {
		h.proved[k] = move
		return
	}
	h.fail(k, d)
}

// failTable records failures at a depth, keyed by canonical position, in a
// fixed-size table that forgets (see holdFailBits): a hold search's and a
// win search's.
type failTable struct {
	fails  []holdFail // indexed by hashKey
	stores int        // failures stored since fails was made
}

// failed reports whether the search is known to fail at k within depth d.
func (f *failTable) failed(k game.Key, d int8) bool {
	if f.fails == nil {
		return false
	}
	e := &f.fails[hashKey(k)&uint64(len(f.fails)-1)]
	return e.depth1 != 0 && e.key == k && e.depth1-1 >= d
}

// fail records that the search failed at k within depth d.
func (f *failTable) fail(k game.Key, d int8) {
	f.stores++
	if f.fails == nil || f.stores > 4*len(f.fails) && len(f.fails) < 1<<holdFailBits {
		f.fails = make([]holdFail, max(1<<12, 2*len(f.fails)))
		f.stores = 0
	}
	e := &f.fails[hashKey(k)&uint64(len(f.fails)-1)]
	if e.depth1 != 0 && e.key == k {
		e.depth1 = max(e.depth1, d+1)
		return
	}
	*e = holdFail{key: k, depth1: d + 1}
}

// prove runs the search from the position X on x, O on o, deepening until
// it proves the hold (true) or shows that the attacker wins (conclusive),
// or is stopped; it keeps in h.depth the depth it reached.
func (h *holdSearch) prove(x, o game.Bitboard) (proved, conclusive bool) {
	n := bits.OnesCount64(uint64(h.g.board &^ (x | o)))
	xtm := bits.OnesCount64(uint64(x)) == bits.OnesCount64(uint64(o))
	// Depths below h.next failed in full before: a round stopped by its
	// budget resumes at the depth it was on.
	for d := h.next; d <= n/2+1; d++ {
		h.depth = d
		var ok bool
		if xtm == h.atkX {
			ok, _ = h.attacker(x, o, int8(d))
		} else {
			ok, _ = h.defender(x, o, int8(d))
		}
		if h.stop.stopped {
			return false, false
		}
		if ok {
			return true, true
		}
		h.next = d + 1
	}
	return false, true
}

// oracle returns the defender's proven moves for extractHold.
func (h *holdSearch) oracle() func(x, o game.Bitboard) (game.Cell, bool) {
	return func(x, o game.Bitboard) (game.Cell, bool) {
		k := game.Key{X: x, O: o}
		if m, ok := h.proved[k]; ok && m >= 0 {
			return game.Cell(m), true
		}
		// Not in the table (proved statically on the way, or a forced
		// move): prove it again from here.
		h.next = 0
		if ok, _ := h.prove(x, o); !ok {
			return 0, false
		}
		m, ok := h.proved[k]
		return game.Cell(m), ok && m >= 0
	}
}

// visit counts a node of the search, ticks the progress now and then and
// polls the stop; it returns the canonical position of (x, o), the
// symmetry that takes (x, o) there, its empty cells, and whether the
// search is to stop.
func (h *holdSearch) visit(x, o game.Bitboard) (game.Key, game.Symmetry, game.Bitboard, bool) {
	h.nodes++
	if h.tick != nil && h.nodes&(1<<16-1) == 0 {
		h.tick()
	}
	if h.stop.poll(h.nodes) {
		return game.Key{}, game.Identity, 0, true
	}
	k, sym := h.g.canonical(x, o)
	return k, sym, h.g.board &^ (k.X | k.O), false
}

// blockWeight weights an attacker's line by the marks it holds. Nearly flat
// up to three marks: a block is good for the pairing that follows when it
// kills many lines, whether or not they hold marks yet (on 6x6k5 this
// proves with a fifth of the entries that steeper weights need).
var blockWeight = [9]int32{8, 9, 10, 12, 16, 64, 256, 1024, 4096}

// blocks orders the defender's candidate moves, best blocks first: cells
// on many of the attacker's open lines, the fuller lines weighing more.
func (h *holdSearch) blocks(x, o, cand game.Bitboard, buf []game.Cell) []game.Cell {
	atk, def := x, o
	if !h.atkX {
		atk, def = o, x
	}
	var score [64]int32
	for _, l := range h.g.lines {
		if l&def != 0 {
			continue
		}
		w := blockWeight[bits.OnesCount64(uint64(l&atk))]
		for f := l & cand; f != 0; f &= f - 1 {
			score[f.First()] += w
		}
	}
	buf = buf[:0]
	for c := cand; c != 0; c &= c - 1 {
		buf = append(buf, c.First())
	}
	for i := 1; i < len(buf); i++ {
		c := buf[i]
		j := i
		for ; j > 0 && (score[c] > score[buf[j-1]] || score[c] == score[buf[j-1]] && c < buf[j-1]); j-- {
			buf[j] = buf[j-1]
		}
		buf[j] = c
	}
	return buf
}

// The relevance-zone search. A proved position's zone is a set of cells
// such that the proof still holds with the attacker's marks moved around
// outside it: an attacker's mark on a cell outside the zone, or one taken
// off a cell, does not change the outcome (with as many free cells). So at
// an attacker's node, once a move m is proved with zone Z, every other
// move outside Z is proved too: the defender plays on as after m. Zones
// are built from the leaves up:
//   - a pairing: the paired cells, and every free cell of a line of the
//     attacker's that the pairing leaves out (one the attacker cannot
//     finish in the moves left, which a mark more could bring back);
//   - the defender completing a line: that cell;
//   - the attacker without a live line, or doomed: every free cell of a
//     line without a defender's mark (and the defender's winning cells);
//   - the defender's move: the move and its child's zone;
//   - the attacker's moves: the moves searched, their zones, and the
//     defender's threats when they forced the attacker's choice.

// tx maps a zone from the canonical frame of a position back to the frame
// its caller sees (sym took the caller's frame to the canonical one).
func (h *holdSearch) tx(sym game.Symmetry, z game.Bitboard) game.Bitboard {
	if sym == game.Identity {
		return z
	}
	return h.g.rules.Transform(sym.Inverse(), z)
}

// openLines returns the free cells of the lines with no mark of def.
func (h *holdSearch) openLines(def, empty game.Bitboard) game.Bitboard {
	var z game.Bitboard
	for _, l := range h.g.lines {
		if l&def == 0 {
			z |= l & empty
		}
	}
	return z
}

// pairZone returns the zone of a pairing found at a position with the
// attacker to move: the paired cells and the free cells of the attacker's
// lines left out as unreachable; ok is false when there is no pairing.
func (h *holdSearch) pairZone(x, o, empty game.Bitboard, left int) (game.Bitboard, bool) {
	var z game.Bitboard
	var pr pairing
	if _, ok := pr.match(h.g, x, o, empty, h.atkX, left); ok {
		for c := range pr.owner {
			if pr.owner[c] != 0 {
				z = z.With(game.Cell(c))
			}
		}
	} else if pairs, ok := h.g.coverPairs(x, o, empty, h.atkX, left); ok {
		for _, c := range pairs {
			z = z.With(c)
		}
	} else {
		return 0, false
	}
	own, def := x, o
	if !h.atkX {
		own, def = o, x
	}
	for _, l := range h.g.lines {
		if l&def == 0 && bits.OnesCount64(uint64(l&^own)) > left {
			z |= l & empty
		}
	}
	return z, true
}

// zoneEntry is a proved position's zone in the zones cache.
type zoneEntry struct {
	key  game.Key
	zone game.Bitboard
	set  bool
}

// zoneBits bounds the zones cache: at most 1<<21 entries of 32 bytes,
// 64 MB. It starts at 1<<12 and doubles (forgetting what it held) whenever
// it has taken four times as many stores as it has entries.
const zoneBits = 21

// provedZone is the zone of a proved canonical position: the cached one,
// else its pairing's (recomputed), else the whole board.
func (h *holdSearch) provedZone(k game.Key) game.Bitboard {
	if h.zones != nil {
		if e := &h.zones[hashKey(k)&uint64(len(h.zones)-1)]; e.set && e.key == k {
			return e.zone
		}
	}
	if xtm := bits.OnesCount64(uint64(k.X)) == bits.OnesCount64(uint64(k.O)); xtm == h.atkX {
		empty := h.g.board &^ (k.X | k.O)
		n := bits.OnesCount64(uint64(empty))
		if z, ok := h.pairZone(k.X, k.O, empty, (n+1)/2); ok {
			return z
		}
	}
	return h.g.board
}

// keep stores a proved position with its defender's move and zone.
func (h *holdSearch) keep(k game.Key, d int8, move int8, z game.Bitboard) {
	h.store(k, true, d, move)
	h.zoneStores++
	if h.zones == nil || h.zoneStores > 4*len(h.zones) && len(h.zones) < 1<<zoneBits {
		h.zones = make([]zoneEntry, max(1<<12, 2*len(h.zones)))
		h.zoneStores = 0
	}
	h.zones[hashKey(k)&uint64(len(h.zones)-1)] = zoneEntry{key: k, zone: z, set: true}
}

// attacker reports whether the hold is proved with the attacker to move
// and d defender choices left, and if so the proof's zone in the frame of
// (x, o).
func (h *holdSearch) attacker(x, o game.Bitboard, d int8) (bool, game.Bitboard) {
	k, sym, empty, stop := h.visit(x, o)
	if stop {
		return false, 0
	}
	x, o = k.X, k.O
	if empty == 0 {
		return true, 0
	}
	g := h.g
	def := o
	if !h.atkX {
		def = x
	}
	t := g.scan(x, o, h.atkX)
	switch {
	case t.win != 0:
		return false, 0
	case !t.meLive:
		return true, h.tx(sym, h.openLines(def, empty))
	case t.doomed:
		return true, h.tx(sym, h.openLines(def, empty)|t.threat)
	}
	if _, ok := h.proved[k]; ok {
		return true, h.tx(sym, h.provedZone(k))
	}
	if h.failed(k, d) {
		return false, 0
	}
	n := bits.OnesCount64(uint64(empty))
	if z, ok := h.pairZone(x, o, empty, (n+1)/2); ok {
		h.keep(k, d, -1, z)
		return true, h.tx(sym, z)
	}
	if d <= 0 {
		h.store(k, false, d, -1)
		return false, 0
	}
	var buf [64]game.Cell
	moves := g.order(x, o, t.answers, h.atkX, nil, buf[:0])
	root := h.level == 0
	if root {
		h.rootDone, h.rootTotal = 0, len(moves)
	}
	h.level++
	defer func() { h.level-- }()
	var zone game.Bitboard
	if t.answers != empty {
		zone = t.threat // the defender's threats forced the choice
	}
	cover := g.board // the cells inside every proved move's zone
	for _, c := range moves {
		if h.rz && !cover.Has(c) {
			if root {
				h.rootDone++
			}
			continue // proved as the move whose zone leaves c out
		}
		nx, no := play(x, o, h.atkX, c)
		ok, z := h.defender(nx, no, d)
		if !ok {
			if !h.stop.stopped {
				h.store(k, false, d, -1)
			}
			return false, 0
		}
		zone |= z.With(c)
		cover &= z
		if root {
			h.rootDone++
		}
	}
	if h.stop.stopped {
		return false, 0
	}
	h.keep(k, d, -1, zone)
	return true, h.tx(sym, zone)
}

// defender reports whether the hold is proved with the defender to move
// and d defender choices left (a forced block does not use one), and if
// so the proof's zone in the frame of (x, o).
func (h *holdSearch) defender(x, o game.Bitboard, d int8) (bool, game.Bitboard) {
	k, sym, empty, stop := h.visit(x, o)
	if stop {
		return false, 0
	}
	x, o = k.X, k.O
	if empty == 0 {
		return true, 0
	}
	g := h.g
	defX := !h.atkX
	def := o
	if defX {
		def = x
	}
	t := g.scan(x, o, defX)
	switch {
	case t.win != 0:
		return true, h.tx(sym, game.Bitboard(0).With(t.win.First()))
	case !t.oppLive:
		return true, h.tx(sym, h.openLines(def, empty))
	case t.doomed:
		return false, 0
	}
	if _, ok := h.proved[k]; ok {
		return true, h.tx(sym, h.provedZone(k))
	}
	if h.failed(k, d) {
		return false, 0
	}
	h.level++
	defer func() { h.level-- }()
	cand := t.answers
	if cand&(cand-1) == 0 {
		c := cand.First()
		nx, no := play(x, o, defX, c)
		if (nx|no)&g.board == g.board {
			h.keep(k, d, int8(c), game.Bitboard(0).With(c))
			return true, h.tx(sym, game.Bitboard(0).With(c))
		}
		if ok, z := h.attacker(nx, no, d); ok {
			z = z.With(c)
			h.keep(k, d, int8(c), z)
			return true, h.tx(sym, z)
		}
		if !h.stop.stopped {
			h.store(k, false, d, -1)
		}
		return false, 0
	}
	if d <= 0 {
		h.store(k, false, d, -1)
		return false, 0
	}
	var buf [64]game.Cell
	for _, c := range h.blocks(x, o, cand, buf[:0]) {
		nx, no := play(x, o, defX, c)
		if ok, z := h.attacker(nx, no, d-1); ok {
			z = z.With(c)
			h.keep(k, d, int8(c), z)
			return true, h.tx(sym, z)
		}
		if h.stop.stopped {
			return false, 0
		}
	}
	h.store(k, false, d, -1)
	return false, 0
}
