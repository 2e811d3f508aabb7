package puzzle

import (
	"context"
	"errors"
	"fmt"
	"math/bits"

	"github.com/tttbot/ttt-bot/game"
)

// Reasons a search for the length of a win stops early. Neither leaves
// the package: a candidate out of budget is skipped, and a stopped search
// reports its context's error.
var (
	errBudget  = errors.New("puzzle: node budget spent")
	errStopped = errors.New("puzzle: search stopped")
)

// bounds is what the search knows of one position: the largest number of
// plies within which the win was refuted and the smallest within which it
// was proved (0 for none yet). "Within n plies" is monotone in n, so both
// carry over between the iterations of a deepening search.
type bounds struct{ fail, win int8 }

// mate finds how fast one side (the attacker) forces a win, by
// depth-bounded AND/OR searches of increasing depth over game.Position,
// within a node budget. It is independent of ai.Solver, which cannot be
// stopped at a node count and measures lengths only within a fixed budget
// of its own: the two agree wherever both answer, which the tests check.
//
// The search prunes with what is exact: an immediate win of the side to
// move ends a line; a lower bound on the plies the attacker still needs
// (its own marks missing from its best open line) cuts lines that cannot
// finish in time; and under k in a row, a side facing an immediate win
// must take that cell (two such cells and the attacker has lost, or the
// defender cannot hold). The table is keyed on the canonical position, so
// symmetric positions share an entry.
//
// Like ai's searches it keeps only the context's Done channel, read every
// 1024 nodes; the methods that take the context turn a stop into its
// error.
type mate struct {
	done     <-chan struct{}
	me, opp  game.Mark
	kInARow  bool
	lines    []game.Bitboard
	mids     []game.Bitboard // X-O-X only: the middle cell of lines[i]
	memo     map[game.Key]bounds
	nodes    int64
	maxNodes int64 // 0 for no limit
	err      error // errBudget or errStopped, once the search must stop
}

// newMate prepares a search for the win of me under r, stopping after
// maxNodes positions (0: no limit).
func newMate(r game.Rules, me game.Mark, maxNodes int64) *mate {
	m := &mate{
		me:       me,
		opp:      me.Other(),
		kInARow:  r.Variant() == game.KInARow,
		lines:    r.Lines(),
		memo:     map[game.Key]bounds{},
		maxNodes: maxNodes,
	}
	if !m.kInARow {
		m.mids = make([]game.Bitboard, len(m.lines))
		for i, l := range m.lines {
			// A straight three-cell window's cells increase along it,
			// so its middle is its second-lowest cell.
			rest := l & (l - 1)
			m.mids[i] = rest & -rest
		}
	}
	return m
}

// fastest returns the fewest plies, counting the first move, in which the
// attacker, to move in p, forces a win by one of the moves in winning,
// searching no deeper than limit plies; 0 if there is no win within
// limit. It fails with errBudget when the node budget ran out, and with
// ctx's error if ctx ended the search.
func (m *mate) fastest(ctx context.Context, p game.Position, winning []game.Cell, limit int) (int, error) {
	if err := m.start(ctx); err != nil {
		return 0, err
	}
	step := 1
	if m.kInARow {
		// The attacker's wins come on its own moves: odd plies.
		step = 2
	}
	for n := 1; n <= limit; n += step {
		for _, c := range winning {
			if m.forced(p.Apply(c), n-1) {
				return n, nil
			}
			if m.err != nil {
				return 0, m.stopped(ctx)
			}
		}
	}
	return 0, nil
}

// quick returns the moves of p, up to two of them, by which the attacker,
// to move, forces a win within n plies. It fails as fastest does.
func (m *mate) quick(ctx context.Context, p game.Position, n int) ([]game.Cell, error) {
	if err := m.start(ctx); err != nil {
		return nil, err
	}
	var out []game.Cell
	for c := p.Moves(); c != 0 && len(out) < 2; c &= c - 1 {
		if m.forced(p.Apply(c.First()), n-1) {
			out = append(out, c.First())
		}
		if m.err != nil {
			return nil, m.stopped(ctx)
		}
	}
	return out, nil
}

// start readies the search for a call under ctx.
func (m *mate) start(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("puzzle: measuring a win: %w", err)
	}
	m.done = ctx.Done()
	return nil
}

// stopped returns the error of a search that had to stop.
func (m *mate) stopped(ctx context.Context) error {
	if m.err == errStopped {
		return fmt.Errorf("puzzle: measuring a win: %w", context.Cause(ctx))
	}
	return m.err
}

// tick counts a node and reports whether the search may go on.
func (m *mate) tick() bool {
	if m.err != nil {
		return false
	}
	m.nodes++
	if m.maxNodes > 0 && m.nodes > m.maxNodes {
		m.err = errBudget
		return false
	}
	if m.nodes&1023 == 0 && m.done != nil {
		select {
		case <-m.done:
			m.err = errStopped
			return false
		default:
		}
	}
	return true
}

// canWin reports whether the attacker, to move in q, can force a win
// within n plies. It answers false once the search must stop.
func (m *mate) canWin(q game.Position, n int) bool {
	if q.Over() {
		return q.Outcome().Winner() == m.me
	}
	if !m.tick() || n < 1 {
		return false
	}
	if q.Threats(m.me) != 0 {
		return true
	}
	if n < 2 || m.lower(q, true) > n {
		return false
	}
	k, _ := q.Canonical()
	if won, known := m.recall(k, n); known {
		return won
	}
	moves := q.Moves()
	if m.kInARow {
		if t := q.Threats(m.opp); t != 0 {
			if t&(t-1) != 0 {
				// Two threats and no win at once: the attacker loses.
				m.store(k, false, 127)
				return false
			}
			moves = t // block, or lose at once
		}
	}
	var buf [64]game.Cell
	won := false
	for _, c := range m.order(q, moves, m.me, buf[:0]) {
		if m.forced(q.Apply(c), n-1) {
			won = true
			break
		}
		if m.err != nil {
			return false
		}
	}
	m.store(k, won, n)
	return won
}

// recall answers from the memo whether the attacker wins from the
// position keyed k within n plies, when a bound stored there settles it.
func (m *mate) recall(k game.Key, n int) (won, known bool) {
	b, ok := m.memo[k]
	switch {
	case !ok:
		return false, false
	case b.win != 0 && n >= int(b.win):
		return true, true
	case n <= int(b.fail):
		return false, true
	}
	return false, false
}

// forced reports whether the attacker, having just moved to q, wins within
// n more plies whatever the defender, now to move, does. It answers false
// once the search must stop.
func (m *mate) forced(q game.Position, n int) bool {
	if q.Over() {
		return q.Outcome().Winner() == m.me
	}
	if !m.tick() || n < 1 {
		return false
	}
	if q.Threats(m.opp) != 0 || m.lower(q, false) > n {
		return false
	}
	k, _ := q.Canonical()
	if won, known := m.recall(k, n); known {
		return won
	}
	moves := q.Moves()
	if m.kInARow && n >= 2 {
		// Any other move loses at once; it is never the slowest defence.
		if a := q.Threats(m.me); a != 0 {
			moves = a
		}
	}
	var buf [64]game.Cell
	for _, c := range m.order(q, moves, m.opp, buf[:0]) {
		r := q.Apply(c)
		if r.Over() {
			if r.Outcome().Winner() != m.me {
				m.store(k, false, n)
				return false
			}
			continue
		}
		if !m.canWin(r, n-1) {
			if m.err == nil {
				m.store(k, false, n)
			}
			return false
		}
	}
	m.store(k, true, n)
	return true
}

// store records a result for the canonical position k at depth n.
func (m *mate) store(k game.Key, won bool, n int) {
	if m.err != nil {
		return
	}
	b := m.memo[k]
	if won {
		if b.win == 0 || int8(n) < b.win {
			b.win = int8(n)
		}
	} else {
		b.fail = max(b.fail, int8(n))
	}
	m.memo[k] = b
}

// lower returns a lower bound on the plies the attacker needs to win from
// q, where it is to move if meToMove: it must still place the marks missing
// from its most advanced open line (for X-O-X, the ends of a window whose
// ends the defender has not taken and whose middle is not the attacker's).
// With no open line it returns a bound no search reaches.
func (m *mate) lower(q game.Position, meToMove bool) int {
	own, opp := q.X(), q.O()
	if m.me == game.O {
		own, opp = opp, own
	}
	need := 1 << 10
	for i, l := range m.lines {
		ends := l
		if !m.kInARow {
			ends = l &^ m.mids[i]
			if m.mids[i]&own != 0 {
				continue
			}
		}
		if ends&opp != 0 {
			continue
		}
		need = min(need, bits.OnesCount64(uint64(ends&^own)))
	}
	if need >= 1<<10 {
		return 1 << 10
	}
	if meToMove {
		return max(2*need-1, 1)
	}
	return max(2*need, 1)
}

// order writes the cells of cand into buf, most promising for side first:
// cells on many lines still open to either side, weighted by how full the
// lines are, side's own lines counting double; ties in row-major order.
func (m *mate) order(q game.Position, cand game.Bitboard, side game.Mark, buf []game.Cell) []game.Cell {
	var score [64]int32
	own, opp := q.X(), q.O()
	if side == game.O {
		own, opp = opp, own
	}
	for i, l := range m.lines {
		free := l & cand
		if free == 0 {
			continue
		}
		var w int32
		if m.kInARow {
			switch {
			case l&opp == 0:
				w = 2 << (2 * bits.OnesCount64(uint64(l&own)))
			case l&own == 0:
				w = 1 << (2 * bits.OnesCount64(uint64(l&opp)))
			}
		} else {
			mid := m.mids[i]
			ends := l &^ mid
			if ends&opp == 0 && mid&own == 0 {
				w += 2 << (2 * (bits.OnesCount64(uint64(ends&own)) + bits.OnesCount64(uint64(mid&opp))))
			}
			if ends&own == 0 && mid&opp == 0 {
				w += 1 << (2 * (bits.OnesCount64(uint64(ends&opp)) + bits.OnesCount64(uint64(mid&own))))
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
	for i := 1; i < len(buf); i++ {
		c, j := buf[i], i
		for ; j > 0 && (score[c] > score[buf[j-1]] || score[c] == score[buf[j-1]] && c < buf[j-1]); j-- {
			buf[j] = buf[j-1]
		}
		buf[j] = c
	}
	return buf
}
