package ai

import (
	"context"
	"math/bits"
	"time"

	"github.com/tttbot/ttt-bot/game"
)

// searchGeom is the search view of game.Rules shared by minimax and the
// solver: every line as a bitboard and, for the X-O-X variant, the middle
// cell of each three-cell window. Positions are handled as two bitboards
// and a side to move, without building game.Position values, which keeps
// the inner loops free of allocation.
type searchGeom struct {
	rules game.Rules
	board game.Bitboard
	xox   bool
	lines []game.Bitboard
	mids  []game.Bitboard // X-O-X only: the middle cell of lines[i]
	syms  []game.Symmetry
	// overlap says whether windows of one row or column overlap (the
	// board is longer than k), where a pair can serve several lines and
	// the solver's static proofs try coverPairs too.
	overlap bool
}

// newSearchGeom precomputes the geometry of r, which must be valid.
func newSearchGeom(r game.Rules) *searchGeom {
	g := &searchGeom{
		rules: r,
		board: r.Board(),
		xox:   r.Variant() == game.XOX,
		lines: r.Lines(),
		syms:  r.Symmetries(),
	}
	g.overlap = !g.xox && (r.Rows() > r.K() || r.Cols() > r.K())
	if g.xox {
		g.mids = make([]game.Bitboard, len(g.lines))
		for i, l := range g.lines {
			// Lines run in increasing cell order, so the middle of a
			// three-cell window is its second-lowest cell.
			rest := l & (l - 1)
			g.mids[i] = rest & -rest
		}
	}
	return g
}

// tactics is what one pass over the lines tells about a position, from the
// side to move's point of view.
type tactics struct {
	win    game.Bitboard // cells where the side to move wins at once
	poison game.Bitboard // cells where the side to move would lose at once (X-O-X only)
	threat game.Bitboard // cells where the opponent would win at once if it were to move
	// answers are the moves that meet every threat, so that the opponent
	// cannot win at once in reply (all free cells if there is no threat);
	// doomed reports that no move does.
	answers game.Bitboard
	doomed  bool
	// meLive and oppLive report whether each side still has a line it
	// could complete; a side with none cannot win.
	meLive, oppLive bool
}

// scan computes the tactics of the position with X on x and O on o, the
// side to move being X when xToMove. The game must still be going.
func (g *searchGeom) scan(x, o game.Bitboard, xToMove bool) tactics {
	empty := g.board &^ (x | o)
	if g.xox {
		return g.scanXOX(x, o, empty, xToMove)
	}
	me, op := x, o
	if !xToMove {
		me, op = o, x
	}
	// Each side has only so many moves left; a line needing more marks
	// than that is as good as dead.
	n := bits.OnesCount64(uint64(empty))
	meLeft, opLeft := (n+1)/2, n/2
	var t tactics
	for _, l := range g.lines {
		// An empty line is open to both sides.
		if l&op == 0 {
			r := l &^ me
			if r&(r-1) == 0 {
				t.win |= r
			}
			if bits.OnesCount64(uint64(r)) <= meLeft {
				t.meLive = true
			}
		}
		if l&me == 0 {
			r := l &^ op
			if r&(r-1) == 0 {
				t.threat |= r
			}
			if bits.OnesCount64(uint64(r)) <= opLeft {
				t.oppLive = true
			}
		}
	}
	t.answers, t.doomed = empty, false
	if t.threat != 0 {
		t.answers, t.doomed = t.threat, t.threat&(t.threat-1) != 0
	}
	return t
}

// scanXOX is scan for the X-O-X variant: X wins with X-O-X on a window,
// else O wins with O-X-O, whoever made the move, X first if one move makes
// both.
func (g *searchGeom) scanXOX(x, o, empty game.Bitboard, xToMove bool) tactics {
	var xEnd, oEnd, midXX, midOO game.Bitboard
	xLive, oLive := false, false
	for i, l := range g.lines {
		m := g.mids[i]
		e := l &^ m
		switch {
		case m&o != 0: // only X-O-X is possible here
			if e&o == 0 {
				xLive = true
				if e&x != 0 && e&empty != 0 {
					xEnd |= e & empty
				}
			}
		case m&x != 0: // only O-X-O is possible here
			if e&x == 0 {
				oLive = true
				if e&o != 0 && e&empty != 0 {
					oEnd |= e & empty
				}
			}
		default: // middle still free
			if e&o == 0 {
				xLive = true
				if e&x == e {
					midXX |= m
				}
			}
			if e&x == 0 {
				oLive = true
				if e&o == e {
					midOO |= m
				}
			}
		}
	}
	xWin := xEnd             // X marking there makes X-O-X
	oWin := oEnd &^ midXX    // O marking there makes O-X-O, unless it also makes X-O-X
	xPoison := midOO &^ xEnd // X marking there makes O-X-O only
	oPoison := midXX         // O marking there makes X-O-X
	if !xToMove {
		// O can only meet a threat of X by taking its cell.
		t := tactics{win: oWin, poison: oPoison, threat: xWin, meLive: oLive, oppLive: xLive, answers: empty}
		if xWin != 0 {
			t.answers, t.doomed = xWin, xWin&(xWin-1) != 0
		}
		return t
	}
	t := tactics{win: xWin, poison: xPoison, threat: oWin, meLive: xLive, oppLive: oLive, answers: empty}
	if oWin != 0 {
		// X meets a threat of O by taking its cell or by marking the end
		// of a window around it whose other end is X's: O marking it
		// would then make X-O-X, which wins for X. Whether one move meets
		// every threat is left to the search.
		t.answers = oWin
		for i, l := range g.lines {
			if m := g.mids[i]; m&oWin != 0 {
				if e := l &^ m; e&x != 0 {
					t.answers |= e & empty
				}
			}
		}
	}
	return t
}

// orderWeight is the ordering weight of a line by how many of a side's
// marks it already holds (for X-O-X, marks in the right places).
var orderWeight = [9]int32{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536}

// order writes the cells of cand into buf, most promising first: cells on
// many lines still open to either side, weighted by how full those lines
// are, the mover's own lines counting double. Ties keep the order of buf's
// tie-break ranks (lower first), or row-major order if rank is nil.
func (g *searchGeom) order(x, o, cand game.Bitboard, xToMove bool, rank *[64]uint8, buf []game.Cell) []game.Cell {
	var score [64]int32
	me, op := x, o
	if !xToMove {
		me, op = o, x
	}
	for i, l := range g.lines {
		free := l & cand
		if free == 0 {
			continue
		}
		var w int32
		if g.xox {
			m := g.mids[i]
			e := l &^ m
			// Progress towards X-O-X and towards O-X-O.
			if e&o == 0 && m&x == 0 {
				w += g.xoxWeight(xToMove, bits.OnesCount64(uint64(e&x))+bits.OnesCount64(uint64(m&o)))
			}
			if e&x == 0 && m&o == 0 {
				w += g.xoxWeight(!xToMove, bits.OnesCount64(uint64(e&o))+bits.OnesCount64(uint64(m&x)))
			}
		} else {
			switch {
			case l&op == 0:
				w = 2 * orderWeight[bits.OnesCount64(uint64(l&me))]
			case l&me == 0:
				w = orderWeight[bits.OnesCount64(uint64(l&op))]
			}
		}
		for f := free; f != 0; f &= f - 1 {
			score[f.First()] += w
		}
	}
	buf = buf[:0]
	for c := cand; c != 0; c &= c - 1 {
		buf = append(buf, c.First())
	}
	// Insertion sort: at most 64 cells, usually far fewer.
	for i := 1; i < len(buf); i++ {
		c := buf[i]
		j := i
		for ; j > 0 && g.before(c, buf[j-1], &score, rank); j-- {
			buf[j] = buf[j-1]
		}
		buf[j] = c
	}
	return buf
}

// xoxWeight weights an X-O-X window by its progress for the side that
// wins it, the mover's own windows counting double.
func (g *searchGeom) xoxWeight(mine bool, n int) int32 {
	if mine {
		return 2 * orderWeight[n]
	}
	return orderWeight[n]
}

// before reports whether cell a sorts before b.
func (g *searchGeom) before(a, b game.Cell, score *[64]int32, rank *[64]uint8) bool {
	if score[a] != score[b] {
		return score[a] > score[b]
	}
	if rank != nil {
		return rank[a] < rank[b]
	}
	return a < b
}

// canonical returns the smallest key among the symmetric images of the
// position and the symmetry that takes the position to it, as
// game.Position.Canonical does.
func (g *searchGeom) canonical(x, o game.Bitboard) (game.Key, game.Symmetry) {
	best, bs := game.Key{X: x, O: o}, game.Identity
	for _, s := range g.syms[1:] {
		tx := g.rules.Transform(s, x)
		if tx > best.X {
			continue
		}
		k := game.Key{X: tx, O: g.rules.Transform(s, o)}
		if k.X < best.X || k.O < best.O {
			best, bs = k, s
		}
	}
	return best, bs
}

// result returns the result of the side to move marking the free cell c:
// game.XWins, game.OWins, game.Draw (board full) or game.Ongoing.
func (g *searchGeom) result(x, o game.Bitboard, xToMove bool, c game.Cell) game.Result {
	t := g.scan(x, o, xToMove)
	switch {
	case t.win.Has(c):
		return winOf(xToMove)
	case t.poison.Has(c):
		return winOf(!xToMove)
	case (x|o|game.Bitboard(0).With(c))&g.board == g.board:
		return game.Draw
	}
	return game.Ongoing
}

// winOf returns the win of X if x, else of O.
func winOf(x bool) game.Result {
	if x {
		return game.XWins
	}
	return game.OWins
}

// play returns the bitboards after the side to move marks c.
func play(x, o game.Bitboard, xToMove bool, c game.Cell) (game.Bitboard, game.Bitboard) {
	if xToMove {
		return x.With(c), o
	}
	return x, o.With(c)
}

// hashKey mixes a key into a table index.
func hashKey(k game.Key) uint64 {
	h := uint64(k.X)*0x9E3779B97F4A7C15 ^ uint64(k.O)*0xC2B2AE3D27D4EB4F
	return h ^ h>>29
}

// stopper polls a context, and optionally a clock, cheaply from inside a
// search: they are read only every 1024 nodes.
type stopper struct {
	done     <-chan struct{}
	deadline time.Time        // zero for none
	now      func() time.Time // used only with a deadline
	// limit, when not 0, stops the search once the node count passed to
	// poll reaches it: a budget for one round of an interleaved search.
	limit   int64
	stopped bool
}

func newStopper(ctx context.Context) stopper { return stopper{done: ctx.Done()} }

// poll reports whether the search must stop, checking the context and the
// clock when nodes is a multiple of 1024.
func (s *stopper) poll(nodes int64) bool {
	if s.stopped {
		return true
	}
	if s.limit != 0 && nodes >= s.limit {
		s.stopped = true
		return true
	}
	if nodes&1023 == 0 {
		if s.done != nil {
			select {
			case <-s.done:
				s.stopped = true
			default:
			}
		}
		if !s.deadline.IsZero() && !s.now().Before(s.deadline) {
			s.stopped = true
		}
	}
	return s.stopped
}

// paired reports whether the opponent of side (X if xSide) has a pairing
// strategy against it: disjoint pairs of free cells such that every line
// side could still complete (no enemy mark, no more free cells than side
// has moves left) holds a whole pair. Answering each of side's moves in a
// pair with the other cell of the pair then blocks every such line, so
// side cannot win. It gives each line a pair of its own first (a
// bipartite matching of two slots per line to cells), which is quick but
// misses a pair that serves several overlapping windows of a row; on
// boards longer than k it then tries coverPairs, which finds those. For
// k-in-a-row rules only.
func (g *searchGeom) paired(x, o, empty game.Bitboard, xSide bool, left int) bool {
	var pr pairing
	if _, ok := pr.match(g, x, o, empty, xSide, left); ok {
		return true
	}
	if !g.overlap {
		return false
	}
	_, ok := g.coverPairs(x, o, empty, xSide, left)
	return ok
}

// match finds the pairing paired looks for, leaving it in pr (slot s+1
// holds each paired cell, two slots per line); it returns the number of
// lines paired and whether every one was.
func (pr *pairing) match(g *searchGeom, x, o, empty game.Bitboard, xSide bool, left int) (int, bool) {
	own, op := x, o
	if !xSide {
		own, op = o, x
	}
	n := 0
	for _, l := range g.lines {
		if l&op != 0 || bits.OnesCount64(uint64(l&^own)) > left {
			continue
		}
		f := l & empty
		if f&(f-1) == 0 || n == len(pr.free) {
			return n, false // a threat, or too many lines to bother
		}
		pr.free[n] = f
		n++
	}
	if 2*n > bits.OnesCount64(uint64(empty)) {
		return n, false
	}
	for slot := range 2 * n {
		var seen game.Bitboard
		if !pr.augment(slot, &seen) {
			return n, false
		}
	}
	return n, true
}

// pairing is the state of the matching behind paired.
type pairing struct {
	free  [256]game.Bitboard // the free cells of each line to pair
	owner [64]int16          // slot+1 holding each cell; 0 for none
}

// augment finds a cell for slot (two slots per line), moving other slots
// along an augmenting path if need be, as in Kuhn's algorithm.
func (pr *pairing) augment(slot int, seen *game.Bitboard) bool {
	// A cell nobody holds yet ends the path at once: try those first.
	for f := pr.free[slot/2] &^ *seen; f != 0; f &= f - 1 {
		if c := f.First(); pr.owner[c] == 0 {
			*seen = seen.With(c)
			pr.owner[c] = int16(slot + 1)
			return true
		}
	}
	for f := pr.free[slot/2] &^ *seen; f != 0; f &= f - 1 {
		c := f.First()
		*seen = seen.With(c)
		if pr.owner[c] == 0 || pr.augment(int(pr.owner[c])-1, seen) {
			pr.owner[c] = int16(slot + 1)
			return true
		}
	}
	return false
}

// moveToFront moves c, if present, to the front of moves, keeping the order
// of the others: the transposition table's best move is searched first.
func moveToFront(moves []game.Cell, c game.Cell) {
	for i, m := range moves {
		if m == c {
			copy(moves[1:i+1], moves[:i])
			moves[0] = c
			return
		}
	}
}
