// Package gomoku is the computer player of wide boards (up to 15x15, k
// from 3 to 6, freestyle or exact): a threat search for forced wins by
// continuous fours (VCF), for the player and against it, and an
// alpha-beta search over the most promising moves with an evaluation of
// every window of k cells kept up to date move by move, inside a per-move
// time budget.
package gomoku

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tttbot/ttt-bot/game/wide"
)

// ErrNoMoves is returned for a finished game.
var ErrNoMoves = errors.New("gomoku: no moves: the game is over")

// DefaultBudget is the time per move when Options.Budget is zero.
const DefaultBudget = time.Second

// Options are the settings of a Player.
type Options struct {
	// Budget is the time per move; 0 means DefaultBudget.
	Budget time.Duration
	// MaxDepth caps the alpha-beta depth in plies (0: no cap but the
	// budget). With a cap and a generous budget the moves are
	// reproducible, for tests and benchmarks.
	MaxDepth int
	// Width is how many of the most promising moves the search looks at
	// in each position (0: 10).
	Width int
}

// Player plays wide boards. It is not safe for concurrent use.
type Player struct {
	opts  Options
	now   func() time.Time
	stats Stats
}

// Stats is what the last Move did.
type Stats struct {
	Depth int   // the deepest alpha-beta iteration finished
	Nodes int64 // alpha-beta and threat-search nodes
	VCF   bool  // the move starts a forced win by fours
	Score int   // the evaluation of the move, for the mover
}

// New returns a player with the given options.
func New(o Options) *Player {
	if o.Budget == 0 {
		o.Budget = DefaultBudget
	}
	if o.Width == 0 {
		o.Width = 10
	}
	return &Player{opts: o, now: time.Now}
}

// Stats returns what the last Move did.
func (pl *Player) Stats() Stats { return pl.stats }

// Scores beyond any evaluation: a win, less the plies to it.
const (
	winScore = 1 << 40
	infinity = 1 << 50
)

// maxPly bounds the plies a search extends forced blocks to.
const maxPly = 40

// search is one Move's state.
type search struct {
	b        *board
	width    int
	nodes    int64
	deadline time.Time
	now      func() time.Time
	done     <-chan struct{}
	stopped  bool
	tt       map[uint64]ttEntry
	vcfFail  map[uint64]struct{}
}

type ttEntry struct {
	depth int8
	move  wide.Cell
	score int64
	flag  int8 // 0 exact, 1 lower bound, 2 upper bound
}

// Move returns the player's move in p. It fails with ErrNoMoves when the
// game is over and with ctx's error if ctx is done before it starts.
func (pl *Player) Move(ctx context.Context, p wide.Position) (wide.Cell, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("gomoku: %w", err)
	}
	if p.Over() || p.Moves().Count() == 0 {
		return 0, ErrNoMoves
	}
	start := pl.now()
	deadline := start.Add(pl.opts.Budget)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	s := &search{b: newBoard(p), width: pl.opts.Width, deadline: deadline, now: pl.now, done: ctx.Done(),
		tt: map[uint64]ttEntry{}, vcfFail: map[uint64]struct{}{}}
	me := sideOf(p.ToMove())
	pl.stats = Stats{}
	c, st := s.root(me, pl.opts.MaxDepth, start)
	st.Nodes = s.nodes
	pl.stats = st
	return c, nil
}

// root chooses the move: a win at once, a forced block, a forced win by
// fours, else the alpha-beta search deepened while the budget lasts, its
// choice checked against the opponent's forced wins by fours.
func (s *search) root(me side, maxDepth int, start time.Time) (wide.Cell, Stats) {
	b := s.b
	var buf [256]wide.Cell
	if w := b.winCells(me, buf[:0]); len(w) > 0 {
		return w[0], Stats{Score: winScore}
	}
	if threats := b.winCells(1-me, buf[:0]); len(threats) > 0 {
		return threats[0], Stats{} // block (a second threat cannot be met)
	}
	if c, ok := s.vcf(me, 24); ok {
		return c, Stats{VCF: true, Score: winScore}
	}
	moves := s.ordered(me, buf[:0])
	best := moves[0]
	var st Stats
	for depth := 1; maxDepth == 0 || depth <= maxDepth; depth++ {
		c, v, ok := s.rootSearch(me, depth, moves)
		if !ok {
			break
		}
		best, st.Depth, st.Score = c, depth, int(v)
		// Search the best move first next time.
		i := slices.Index(moves, c)
		copy(moves[1:i+1], moves[:i])
		moves[0] = c
		if v >= winScore/2 || v <= -winScore/2 {
			break
		}
		// The next iteration costs several times this one.
		if maxDepth == 0 && s.now().Sub(start)*4 > s.deadline.Sub(start) {
			break
		}
	}
	// A move after which the opponent wins by fours is no move: take the
	// first of the others after which it does not.
	if s.opponentVCF(me, best) {
		for _, c := range moves {
			if c != best && !s.opponentVCF(me, c) {
				return c, st
			}
		}
	}
	return best, st
}

// opponentVCF reports whether the opponent has a forced win by fours once
// me has marked c.
func (s *search) opponentVCF(me side, c wide.Cell) bool {
	s.b.place(c, me)
	defer s.b.remove(c, me)
	_, ok := s.vcf(1-me, 24)
	return ok
}

// rootSearch searches every root move to depth; it reports false when
// stopped before finishing.
func (s *search) rootSearch(me side, depth int, moves []wide.Cell) (wide.Cell, int64, bool) {
	alpha := int64(-infinity)
	best := moves[0]
	for _, c := range moves {
		s.b.place(c, me)
		var v int64
		if s.b.wins(c, me) {
			v = winScore
		} else {
			v = -s.negamax(1-me, depth-1, -infinity, -alpha, 1)
		}
		s.b.remove(c, me)
		if s.stopped {
			return 0, 0, false
		}
		if v > alpha {
			alpha, best = v, c
		}
	}
	return best, alpha, true
}

// negamax returns the value of the position for s to move, searched to
// depth plies more.
func (s *search) negamax(me side, depth int, alpha, beta int64, ply int) int64 {
	s.nodes++
	if s.nodes&1023 == 0 && s.poll() {
		return 0
	}
	b := s.b
	if b.full() {
		return 0
	}
	var buf [256]wide.Cell
	if w := b.winCells(me, buf[:0]); len(w) > 0 {
		return winScore - int64(ply)
	}
	threats := b.winCells(1-me, buf[:0])
	if len(threats) >= 2 {
		return -winScore + int64(ply+1) // one block cannot meet two
	}
	if depth <= 0 && (len(threats) == 0 || ply >= maxPly) {
		return b.score[me] - b.score[1-me] + b.score[me]/8 // the mover's tempo
	}
	if e, ok := s.tt[b.hash]; ok && int(e.depth) >= depth {
		switch {
		case e.flag == 0:
			return e.score
		case e.flag == 1 && e.score >= beta:
			return e.score
		case e.flag == 2 && e.score <= alpha:
			return e.score
		}
	}
	var moves []wide.Cell
	next := depth - 1
	if len(threats) == 1 {
		// The one block is forced: it costs no depth, so the lines of
		// fours are seen to their end (up to maxPly).
		moves, next = threats[:1], depth
	} else {
		moves = s.ordered(me, buf[:0])
	}
	if e, ok := s.tt[b.hash]; ok {
		if i := slices.Index(moves, e.move); i > 0 {
			moves[0], moves[i] = moves[i], moves[0]
		}
	}
	a0 := alpha
	best, bestMove := int64(-infinity), moves[0]
	for _, c := range moves {
		b.place(c, me)
		var v int64
		if b.wins(c, me) {
			v = winScore - int64(ply)
		} else {
			v = -s.negamax(1-me, next, -beta, -alpha, ply+1)
		}
		b.remove(c, me)
		if s.stopped {
			return 0
		}
		if v > best {
			best, bestMove = v, c
		}
		alpha = max(alpha, v)
		if alpha >= beta {
			break
		}
	}
	flag := int8(0)
	switch {
	case best <= a0:
		flag = 2
	case best >= beta:
		flag = 1
	}
	s.tt[b.hash] = ttEntry{depth: int8(depth), move: bestMove, score: best, flag: flag}
	return best
}

// ordered returns the candidate moves for me, most promising first, at
// most s.width of them (ties in row-major order).
func (s *search) ordered(me side, buf []wide.Cell) []wide.Cell {
	moves := s.b.candidates(buf)
	var gains [256]int64
	for _, c := range moves {
		gains[c] = s.b.gain(c, me)
	}
	// Insertion into the first width places: the rest is not needed.
	n := 0
	for _, c := range moves {
		g := gains[c]
		j := min(n, s.width-1)
		if n == s.width && g <= gains[moves[j]] {
			continue
		}
		for ; j > 0 && gains[moves[j-1]] < g; j-- {
			moves[j] = moves[j-1]
		}
		moves[j] = c
		n = min(n+1, s.width)
	}
	return moves[:n]
}

// poll reports whether the search must stop: its deadline passed or its
// context ended.
func (s *search) poll() bool {
	if s.stopped {
		return true
	}
	select {
	case <-s.done:
		s.stopped = true
	default:
		if s.now().After(s.deadline) {
			s.stopped = true
		}
	}
	return s.stopped
}

// vcf looks for a forced win by fours for me, to move: a move that makes a
// four (a cell where me would win), the opponent's forced block, and so on
// until a move makes two such cells. A block that makes a four for the
// opponent ends the line (conservative: the search never claims a win it
// does not have). It returns the first move.
func (s *search) vcf(me side, depth int) (wide.Cell, bool) {
	b := s.b
	if depth <= 0 {
		return 0, false
	}
	key := b.hash ^ uint64(me)
	if _, failed := s.vcfFail[key]; failed {
		return 0, false
	}
	var buf, wbuf, obuf [256]wide.Cell
	if len(b.winCells(1-me, obuf[:0])) > 0 {
		return 0, false // the opponent's four must be met first
	}
	k := b.k
	o := 1 - me
	cands := buf[:0]
	for w, n := range b.count {
		if int(n[me]) != k-2 || n[o] != 0 {
			continue
		}
		for _, c := range b.windows[w] {
			if b.cells[c] < 0 && !contains(cands, c) {
				cands = append(cands, c)
			}
		}
	}
	for _, c := range cands {
		s.nodes++
		b.place(c, me)
		if b.wins(c, me) {
			b.remove(c, me)
			return c, true
		}
		wins := b.winCells(me, wbuf[:0])
		switch {
		case len(wins) >= 2:
			b.remove(c, me)
			return c, true
		case len(wins) == 1:
			block := wins[0]
			b.place(block, o)
			ok := !b.wins(block, o) && len(b.winCells(o, obuf[:0])) == 0
			if ok {
				_, ok = s.vcf(me, depth-1)
			}
			b.remove(block, o)
			if ok {
				b.remove(c, me)
				return c, true
			}
		}
		b.remove(c, me)
	}
	s.vcfFail[key] = struct{}{}
	return 0, false
}
