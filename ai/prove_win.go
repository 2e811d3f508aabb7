package ai

import (
	"context"
	"math/bits"

	"github.com/tttbot/ttt-bot/game"
)

// winSearch proves that the attacker wins: an AND/OR search in which the
// attacker's moves are bounded by a count that prove deepens one at a time
// and every move of the defender is answered. The attacker tries first
// the moves that make the most threats (cells where it would win at once),
// so a defender's reply that ignores a threat is refuted by the next move;
// its moves are restricted to cells near the marks already played (a
// restriction of the attacker only, so every proof found is a proof).
// Proved canonical positions, with the attacker's move, are kept in a map
// the certificate is read off; failures go to a table that forgets.
type winSearch struct {
	g      *searchGeom
	atkX   bool
	proved map[game.Key]int8
	failTable
	nodes int64
	stop  *stopper
	thru  [64][]game.Bitboard // the lines through each cell
	near  int                 // the attacker's moves lie within this distance of a mark
	depth int                 // the depth of the last iteration prove ran
	next  int                 // the first depth prove has not seen fail from the root
	tick  func()              // called every 1<<16 nodes, or nil
}

func newWinSearch(g *searchGeom, atkX bool, stop *stopper) *winSearch {
	w := &winSearch{g: g, atkX: atkX, proved: map[game.Key]int8{}, stop: stop, near: 2}
	for _, l := range g.lines {
		for f := l; f != 0; f &= f - 1 {
			c := f.First()
			w.thru[c] = append(w.thru[c], l)
		}
	}
	return w
}

func (w *winSearch) store(k game.Key, proved bool, d int8, move int8) {
	if proved {
		w.proved[k] = move
		return
	}
	w.fail(k, d)
}

// sides returns the attacker's and the defender's marks.
func (w *winSearch) sides(x, o game.Bitboard) (atk, def game.Bitboard) {
	if w.atkX {
		return x, o
	}
	return o, x
}

// place returns x, o with the cell c marked for the attacker (atk) or the
// defender.
func (w *winSearch) place(x, o game.Bitboard, c game.Cell, atk bool) (game.Bitboard, game.Bitboard) {
	if atk == w.atkX {
		return x.With(c), o
	}
	return x, o.With(c)
}

// prove deepens the attacker's move count from w.next until the attacker
// is shown to win from the position, the search is
// stopped, or every depth has failed (exhausted: the attacker has no win
// this search can find, though it may still have one).
//
// The attacker may be the side not to move: then the search proves that
// every move of the defender loses.
func (w *winSearch) prove(x, o game.Bitboard) (proved, exhausted bool) {
	n := bits.OnesCount64(uint64(w.g.board &^ (x | o)))
	atkToMove := (bits.OnesCount64(uint64(x)) == bits.OnesCount64(uint64(o))) == w.atkX
	top := n / 2
	if atkToMove {
		top = (n + 1) / 2
	}
	for d := max(1, w.next); d <= top; d++ {
		w.depth = d
		var ok bool
		if atkToMove {
			ok = w.attacker(x, o, int8(d))
		} else {
			ok = w.defender(x, o, int8(d))
		}
		if ok {
			return true, false
		}
		if w.stop.stopped {
			return false, false
		}
		w.next = d + 1
	}
	return false, true
}

// attacker reports whether the attacker, to move, wins within d moves.
func (w *winSearch) attacker(x, o game.Bitboard, d int8) bool {
	w.nodes++
	if w.tick != nil && w.nodes&(1<<16-1) == 0 {
		w.tick()
	}
	if w.stop.poll(w.nodes) {
		return false
	}
	t := w.g.scan(x, o, w.atkX)
	if t.win != 0 {
		return true
	}
	if d <= 1 || t.doomed || !t.meLive {
		return false
	}
	k, s := w.g.canonical(x, o)
	if _, ok := w.proved[k]; ok {
		return true
	}
	if w.failed(k, d) {
		return false
	}
	var cand game.Bitboard
	if t.threat != 0 {
		cand = t.threat
	} else {
		cand = w.candidates(x, o)
	}
	var buf [64]game.Cell
	for _, c := range w.orderAttack(x, o, cand, buf[:0]) {
		nx, no := w.place(x, o, c, true)
		if w.defender(nx, no, d-1) {
			w.store(k, true, d, int8(w.g.rules.TransformCell(s, c)))
			return true
		}
		if w.stop.stopped {
			return false
		}
	}
	w.store(k, false, d, 0)
	return false
}

// defender reports whether the attacker wins within d more moves whatever
// the defender, to move, plays.
func (w *winSearch) defender(x, o game.Bitboard, d int8) bool {
	w.nodes++
	t := w.g.scan(x, o, !w.atkX)
	if t.win != 0 {
		return false
	}
	if t.doomed {
		return true
	}
	if d < 1 || !t.oppLive {
		return false
	}
	empty := w.g.board &^ (x | o)
	if empty == 0 {
		return false
	}
	if t.threat == 0 && d == 1 {
		return false
	}
	var buf [64]game.Cell
	for _, c := range w.g.order(x, o, t.answers, !w.atkX, nil, buf[:0]) {
		nx, no := w.place(x, o, c, false)
		if !w.attacker(nx, no, d) {
			return false
		}
	}
	return true
}

// candidates returns the free cells within w.near of a mark, or every
// free cell while the attacker has no mark (its first mark may lie far
// from the defender's).
func (w *winSearch) candidates(x, o game.Bitboard) game.Bitboard {
	marks := x | o
	empty := w.g.board &^ marks
	if atk, _ := w.sides(x, o); atk == 0 {
		return empty
	}
	z := marks
	for i := 0; i < w.near; i++ {
		z = dilate(z)
	}
	return z & empty
}

// dilate returns b with every cell's eight neighbours added.
func dilate(b game.Bitboard) game.Bitboard {
	const notA = ^game.Bitboard(0x0101010101010101)
	const notH = ^game.Bitboard(0x8080808080808080)
	h := b | (b<<1)&notA | (b>>1)&notH
	return h | h<<8 | h>>8
}

// orderAttack orders the attacker's candidate moves: moves that make two
// or more threats first, then one, then by the ordering heuristic.
func (w *winSearch) orderAttack(x, o, cand game.Bitboard, buf []game.Cell) []game.Cell {
	atk, def := w.sides(x, o)
	k := w.g.rules.K()
	buf = w.g.order(x, o, cand, w.atkX, nil, buf)
	var thr [64]int8
	for _, c := range buf {
		var wins game.Bitboard
		for _, l := range w.thru[c] {
			if l&def != 0 {
				continue
			}
			if bits.OnesCount64(uint64(l&atk)) == k-2 {
				wins |= l &^ atk &^ (1 << c)
			}
		}
		thr[c] = int8(min(bits.OnesCount64(uint64(wins)), 2))
	}
	// Stable: keep the heuristic's order within each class. The classes
	// are gathered on the stack and copied back: this runs at every node.
	var out [64]game.Cell
	i := 0
	for n := int8(2); n >= 0; n-- {
		for _, c := range buf {
			if thr[c] == n {
				out[i] = c
				i++
			}
		}
	}
	copy(buf, out[:i])
	return buf
}

// winOrSolve runs the solver and the win search w, in which the side to
// move (X if xtm) attacks, in turns, with node budgets doubling from
// 16384, until the win search proves the win (won) or the solver finds
// the value of the position for the side to move, which it then returns
// with ok. Once the win search has failed at every depth the solver runs
// alone. Neither alone is enough: the win search finds the attacker's
// wins on boards where the solver's full-width search runs for hours, and
// the solver settles draws and losses the win search cannot. The context
// stops it too; the caller checks.
func (s *Solver) winOrSolve(w *winSearch, x, o game.Bitboard, xtm bool) (won bool, v int8, ok bool) {
	defer func() { s.stop.limit = 0 }()
	exhausted := false
	for budget := int64(1 << 14); ; budget *= 2 {
		// The solver first: on the small boards it settles at once what
		// the win search would spend its budget failing to prove.
		s.stop.limit = 0
		if !exhausted {
			s.stop.limit = s.nodes + budget
		}
		sv := s.value(x, o, xtm)
		if !s.stop.stopped {
			return false, sv, true
		}
		if isDone(s.stop.done) {
			return false, 0, false
		}
		s.stop.stopped = false
		s.stop.limit = w.nodes + budget
		proved, ex := w.prove(x, o)
		if proved {
			return true, 1, true
		}
		if isDone(s.stop.done) {
			return false, 0, false
		}
		s.stop.stopped = false
		exhausted = ex
	}
}

// oracle returns the attacker's proved move at a canonical position where
// the attacker is to move, proving it again from there if the table does
// not hold it.
func (w *winSearch) oracle() func(x, o game.Bitboard) (game.Cell, bool) {
	return func(x, o game.Bitboard) (game.Cell, bool) {
		k := game.Key{X: x, O: o}
		if m, ok := w.proved[k]; ok {
			return game.Cell(m), true
		}
		w.next = 0
		if ok, _ := w.prove(x, o); !ok {
			return 0, false
		}
		m, ok := w.proved[k]
		return game.Cell(m), ok
	}
}

// winMove returns a move of p that wins by force, proved by the win
// search. It is what perfect plays where the solver runs out of time and
// the side to move has a win the win search finds (8x8k4 from the empty
// board: X's win in 6 moves, proved in a fraction of a second, where the
// solver's full-width search runs for hours). It reports false for X-O-X,
// when no win is found, or when ctx ends first.
func (s *Solver) winMove(ctx context.Context, p game.Position) (game.Cell, bool) {
	if p.Rules().Variant() == game.XOX || p.Over() {
		return 0, false
	}
	if err := s.begin(ctx, p); err != nil {
		return 0, false
	}
	x, o, xtm := p.X(), p.O(), p.ToMove() == game.X
	if t := s.geom.scan(x, o, xtm); t.win != 0 {
		return t.win.First(), true
	}
	w := newWinSearch(s.geom, xtm, &s.stop)
	if ok, _ := w.prove(x, o); !ok {
		return 0, false
	}
	k, sym := s.geom.canonical(x, o)
	m, ok := w.proved[k]
	if !ok {
		return 0, false
	}
	return p.Rules().TransformCell(sym.Inverse(), game.Cell(m)), true
}
