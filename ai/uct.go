package ai

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/tttbot/ttt-bot/game"
)

// UCT is plain, textbook UCT (Kocsis and Szepesvári 2006), kept as the
// yardstick that the mcts level is measured against: UCB1 selection with
// c = sqrt 2 on rewards in [0, 1] (win 1, draw 1/2, loss 0), one new node
// a iteration (untried moves first, in random order), uniformly random
// playouts to the end of the game, and the most visited move at the root.
// It has no solver, no tactics, no prior and no tree reuse: every move
// starts a fresh tree. It is not one of the built-in levels (the bot
// never offers it); UCTLevel registers it where a measurement needs it,
// as "bot arena" does.
type UCT struct {
	iterations int
	budget     time.Duration
	c          float64
	rng        *rand.Rand
	now        func() time.Time
	nodes      []uctNode
	path       []int32
}

// uctNode is one position of a UCT tree. Its children sit side by side
// from first, n of them, once it is expanded; score counts half-points for
// the side that played move.
type uctNode struct {
	first    int32
	visits   uint32
	score    uint32
	move     game.Cell
	n        uint8
	expanded bool
}

// NewUCT returns a plain UCT player. It reads Options.Iterations (default
// DefaultMCTSIterations), Options.Budget (default DefaultMCTSBudget) and
// Options.Seed or Options.Rand; it always explores with c = sqrt 2 and
// ignores Options.Exploration and Options.Load, so that it stays the same
// yardstick. It fails with ErrBadOption for settings out of range.
func NewUCT(o Options) (*UCT, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	u := &UCT{iterations: o.Iterations, budget: o.Budget, c: math.Sqrt2, rng: o.rng(), now: time.Now}
	if u.iterations == 0 {
		u.iterations = DefaultMCTSIterations
	}
	if u.budget == 0 {
		u.budget = DefaultMCTSBudget
	}
	return u, nil
}

// UCTLevel is the "uct" level: plain UCT for measurements. It is not in
// NewRegistry's built-in levels, so the bot never offers it.
func UCTLevel() Level {
	return Level{
		Name:    "uct",
		Summary: "plain textbook UCT (random playouts, UCB1 with c = sqrt 2), a yardstick for mcts; arena only",
		Floor:   "unchanged: it ignores load",
		New: func(o Options) (Player, error) {
			u, err := NewUCT(o)
			if err != nil {
				return nil, err
			}
			return u, nil
		},
	}
}

// Move runs up to the iteration cap (or the time budget, or until ctx's
// deadline) of UCT from p on a fresh tree and returns the most visited
// move. It fails with ErrNoMoves for a finished game and with ctx's error
// if ctx is done before it starts.
func (u *UCT) Move(ctx context.Context, p game.Position) (game.Cell, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("ai: uct: %w", err)
	}
	if p.Moves() == 0 {
		return 0, ErrNoMoves
	}
	stop := u.now().Add(u.budget)
	if d, ok := ctx.Deadline(); ok && d.Before(stop) {
		stop = d
	}
	u.nodes = append(u.nodes[:0], uctNode{})
	for it := 0; it < u.iterations; it++ {
		u.iterate(p)
		if it%mctsCheckEvery == mctsCheckEvery-1 && (ctx.Err() != nil || !u.now().Before(stop)) {
			break
		}
	}
	r := u.nodes[0]
	best := r.first
	for i := r.first; i < r.first+int32(r.n); i++ {
		a, b := u.nodes[i], u.nodes[best]
		if a.visits > b.visits || a.visits == b.visits && uint64(a.score)*uint64(b.visits) > uint64(b.score)*uint64(a.visits) {
			best = i
		}
	}
	return u.nodes[best].move, nil
}

// iterate runs one iteration from root position p: select by UCB1 down
// to a node with an untried move, add that move's node, play out at
// random from it and back the result up.
func (u *UCT) iterate(p game.Position) {
	path := append(u.path[:0], 0)
	v, q := int32(0), p
	for !q.Over() {
		if !u.nodes[v].expanded {
			u.expand(v, q)
		}
		next, fresh := u.choose(v)
		v, q = next, q.Apply(u.nodes[next].move)
		path = append(path, v)
		if fresh {
			break
		}
	}
	for !q.Over() {
		q = q.Apply(pick(u.rng, q.Moves()))
	}
	u.path = path
	// The side that moved into path[i] is p's side to move for odd i.
	half := [2]uint32{1, 1} // for the side that moved into even, odd i
	switch q.Outcome().Winner() {
	case p.ToMove():
		half = [2]uint32{0, 2}
	case p.ToMove().Other():
		half = [2]uint32{2, 0}
	}
	for i, w := range path {
		u.nodes[w].visits++
		u.nodes[w].score += half[i&1]
	}
}

// expand adds the children of v, which holds the unfinished position q,
// in random order.
func (u *UCT) expand(v int32, q game.Position) {
	first := int32(len(u.nodes))
	moves := q.Moves()
	for m := moves; m != 0; m &= m - 1 {
		u.nodes = append(u.nodes, uctNode{move: m.First()})
	}
	kids := u.nodes[first:]
	u.rng.Shuffle(len(kids), func(i, j int) { kids[i], kids[j] = kids[j], kids[i] })
	u.nodes[v].first, u.nodes[v].n, u.nodes[v].expanded = first, uint8(len(kids)), true
}

// choose returns the child of v to descend to, and whether it is untried:
// the first untried child, else the one with the highest UCB1 value.
func (u *UCT) choose(v int32) (int32, bool) {
	nd := u.nodes[v]
	lnN := math.Log(float64(nd.visits))
	best, bestU := nd.first, math.Inf(-1)
	for i := nd.first; i < nd.first+int32(nd.n); i++ {
		k := &u.nodes[i]
		if k.visits == 0 {
			return i, true
		}
		n := float64(k.visits)
		if ub := float64(k.score)/(2*n) + u.c*math.Sqrt(lnN/n); ub > bestU {
			best, bestU = i, ub
		}
	}
	return best, false
}
