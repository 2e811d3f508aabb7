package ai

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/game"
)

// ErrNoModel reports a neural level asked to play rules it has no network
// for.
var ErrNoModel = errors.New("ai: no network for these rules")

// Models gives the live network of a rules key, or nil when there is none.
// *nn.Set satisfies it.
type Models interface {
	Net(r game.Rules) *nn.Net
}

// NeuralLevel returns the "neural" level, which plays the best-move head of
// m's network for the game's rules (a nil m has none). Options.Depth > 0 adds an alpha-beta
// search of that many plies with the value head at its leaves. The player
// looks the network up at every move, so a swapped model plays from the
// next move on. It ignores Options.Load: a forward pass is cheap, and the
// search is bounded by Depth, not by a time budget.
func NeuralLevel(m Models) Level {
	return Level{
		Name:    "neural",
		Summary: "a neural network's best move, with an optional search of Depth plies",
		Floor:   "unchanged: a forward pass is cheap, so it ignores load",
		New: func(o Options) (Player, error) {
			return newNeural(m, nil, o)
		},
		Plays: func(r game.Rules) error { return playable(m, r) },
	}
}

// HumanlikeLevel returns the "humanlike" level, which samples the human
// head of m's network for the game's rules: it plays like the server's
// players. Its choices follow Options.Seed or Options.Rand. It ignores
// Options.Load: one forward pass is cheap.
func HumanlikeLevel(m Models) Level {
	return Level{
		Name:    "humanlike",
		Summary: "plays like the server's players, from a network trained on their games",
		Floor:   "unchanged: a forward pass is cheap, so it ignores load",
		New: func(o Options) (Player, error) {
			return newHumanlike(m, nil, o)
		},
		Plays: func(r game.Rules) error { return playable(m, r) },
	}
}

// playable reports whether m has a network for r: nil, or noModel's error.
func playable(m Models, r game.Rules) error {
	if m != nil && m.Net(r) != nil {
		return nil
	}
	return noModel(m, r)
}

// NoModelError is the error of a network level asked to play rules it has
// no network for; it wraps ErrNoModel. It says which rules do have a
// network when the level's Models can tell (as *nn.Set can, and so the
// live set of a bot process), so that callers can offer those boards.
type NoModelError struct {
	// Rules are the rules without a network.
	Rules game.Rules
	// Listed reports whether the Models could tell which rules have a
	// network; Have lists them (sorted, as the Models give them), empty
	// when none has.
	Listed bool
	Have   []string
}

// Error says which rules have no network and, when known, which have one.
func (e *NoModelError) Error() string {
	switch {
	case !e.Listed:
		return fmt.Sprintf("%v: %s", ErrNoModel, e.Rules)
	case len(e.Have) == 0:
		return fmt.Sprintf("%v: %s; no network is loaded for any rules", ErrNoModel, e.Rules)
	}
	return fmt.Sprintf("%v: %s; there are networks for %s", ErrNoModel, e.Rules, strings.Join(e.Have, ", "))
}

// Unwrap returns ErrNoModel.
func (e *NoModelError) Unwrap() error { return ErrNoModel }

// noModel returns a *NoModelError for r, naming the rules m has networks
// for when it can tell.
func noModel(m Models, r game.Rules) error {
	e := &NoModelError{Rules: r}
	if lister, ok := m.(interface{ Rules() []string }); ok {
		e.Listed, e.Have = true, lister.Rules()
	}
	return e
}

// fixed is Models for a single network.
type fixed struct{ n *nn.Net }

// Net returns the network if it plays r.
func (f fixed) Net(r game.Rules) *nn.Net {
	if f.n != nil && f.n.Rules().Equal(r) {
		return f.n
	}
	return nil
}

// Rules names the network's rules.
func (f fixed) Rules() []string {
	if f.n == nil {
		return nil
	}
	return []string{f.n.Rules().String()}
}

// Neural plays the best-move head of a network: at Depth 0 its highest
// policy move, else the result of a negamax alpha-beta search of Depth
// plies that orders moves by the policy, scores finished games exactly
// (fastest win first) and the positions at the horizon with the value
// head. It has no randomness: its moves depend only on the position and
// the network. At Depth 0 Move allocates nothing.
type Neural struct {
	models Models
	depth  int
	nodes  int
	stop   bool
}

// NewNeural returns a Neural player of the fixed network n. It reads
// Options.Depth and ignores Options.Load.
func NewNeural(n *nn.Net, o Options) (*Neural, error) {
	if n == nil {
		return nil, fmt.Errorf("%w: neural player without a network", ErrBadOption)
	}
	return newNeural(nil, n, o)
}

// newNeural builds a Neural on m, or on n when m is nil.
func newNeural(m Models, n *nn.Net, o Options) (*Neural, error) {
	if err := o.check(); err != nil {
		return nil, fmt.Errorf("ai: neural: %w", err)
	}
	if m == nil {
		m = fixed{n}
	}
	return &Neural{models: m, depth: o.Depth}, nil
}

// Reseed implements Reseeder. A Neural player has no randomness, so it
// does nothing.
func (nl *Neural) Reseed(uint64) {}

// Move returns the network's move for p. It fails with ErrNoMoves for a
// finished game, ErrNoModel when there is no network for p's rules, and
// ctx's error when ctx is done before it has a move.
func (nl *Neural) Move(ctx context.Context, p game.Position) (game.Cell, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if p.Over() {
		return 0, ErrNoMoves
	}
	n := nl.models.Net(p.Rules())
	if n == nil {
		return 0, noModel(nl.models, p.Rules())
	}
	best := n.Best(p)
	if nl.depth == 0 {
		return best, nil
	}
	// Iterative deepening: a deadline during a search leaves the move of
	// the deepest completed one.
	nl.stop, nl.nodes = false, 0
	for d := 1; d <= nl.depth && d <= p.Moves().Count(); d++ {
		c, ok := nl.root(ctx, n, p, d)
		if !ok {
			break
		}
		best = c
	}
	return best, nil
}

// Search scores. Finished games score beyond any value the value head can
// give: a win with r plies of depth left scores nnWin + r, so faster wins
// (more depth left) score higher and slower losses lower.
const (
	nnWin float32 = 2
	nnInf float32 = 1000
)

// root searches p to depth d and returns the best move, or false if ctx
// ran out first.
func (nl *Neural) root(ctx context.Context, n *nn.Net, p game.Position, d int) (game.Cell, bool) {
	var order [nn.MaxCells]game.Cell
	moves := orderMoves(n, p, &order)
	best, alpha := order[0], -nnInf
	for _, c := range order[:moves] {
		s := -nl.negamax(ctx, n, p.Apply(c), d-1, -nnInf, -alpha)
		if nl.stop {
			return 0, false
		}
		if s > alpha {
			best, alpha = c, s
		}
	}
	return best, true
}

// negamax returns the score of p for its side to move, searched to depth
// d within the window (alpha, beta).
func (nl *Neural) negamax(ctx context.Context, n *nn.Net, p game.Position, d int, alpha, beta float32) float32 {
	if nl.nodes++; nl.nodes&255 == 0 && ctx.Err() != nil {
		nl.stop = true
	}
	if nl.stop {
		return 0
	}
	if p.Over() {
		switch p.Outcome().Winner() {
		case game.Empty:
			return 0
		case p.ToMove():
			return nnWin + float32(d)
		}
		return -(nnWin + float32(d))
	}
	if d == 0 {
		var out nn.Output
		n.Evaluate(p, &out)
		return out.Value
	}
	var order [nn.MaxCells]game.Cell
	moves := orderMoves(n, p, &order)
	best := -nnInf
	for _, c := range order[:moves] {
		s := -nl.negamax(ctx, n, p.Apply(c), d-1, -beta, -alpha)
		if s > best {
			best = s
		}
		if s > alpha {
			alpha = s
		}
		if alpha >= beta {
			break
		}
	}
	return best
}

// orderMoves writes p's legal moves into order, most likely first by the
// policy head, and returns how many there are.
func orderMoves(n *nn.Net, p game.Position, order *[nn.MaxCells]game.Cell) int {
	var out nn.Output
	n.Evaluate(p, &out)
	k := 0
	for b := p.Moves(); b != 0; b &= b - 1 {
		c := b.First()
		// Insertion sort: at most 64 moves, usually a handful.
		j := k
		for ; j > 0 && out.Policy[order[j-1]] < out.Policy[c]; j-- {
			order[j] = order[j-1]
		}
		order[j] = c
		k++
	}
	return k
}

// Humanlike samples the human head of a network: it plays where the
// server's players would, mistakes included. Its choices follow its seed.
type Humanlike struct {
	models Models
	pcg    *rand.PCG
	rng    *rand.Rand
}

// NewHumanlike returns a Humanlike player of the fixed network n. It reads
// Options.Seed or Options.Rand and ignores Options.Load.
func NewHumanlike(n *nn.Net, o Options) (*Humanlike, error) {
	if n == nil {
		return nil, fmt.Errorf("%w: humanlike player without a network", ErrBadOption)
	}
	return newHumanlike(nil, n, o)
}

// newHumanlike builds a Humanlike on m, or on n when m is nil.
func newHumanlike(m Models, n *nn.Net, o Options) (*Humanlike, error) {
	if err := o.check(); err != nil {
		return nil, fmt.Errorf("ai: humanlike: %w", err)
	}
	if m == nil {
		m = fixed{n}
	}
	h := &Humanlike{models: m}
	if o.Rand != nil {
		h.rng = o.Rand
	} else {
		h.Reseed(o.Seed)
	}
	return h, nil
}

// Reseed implements Reseeder: the player continues as if built with seed.
func (h *Humanlike) Reseed(seed uint64) {
	if h.pcg == nil {
		h.pcg = &rand.PCG{}
	}
	h.pcg.Seed(seed, seed^0x9e3779b97f4a7c15)
	h.rng = rand.New(h.pcg)
}

// Move samples a move for p from the human head. It fails like
// Neural.Move.
func (h *Humanlike) Move(ctx context.Context, p game.Position) (game.Cell, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if p.Over() {
		return 0, ErrNoMoves
	}
	n := h.models.Net(p.Rules())
	if n == nil {
		return 0, noModel(h.models, p.Rules())
	}
	var out nn.Output
	n.Evaluate(p, &out)
	u := float32(h.rng.Float64())
	moves := p.Moves()
	last := moves.First()
	for b := moves; b != 0; b &= b - 1 {
		c := b.First()
		if out.Human[c] <= 0 {
			continue
		}
		last = c
		if u -= out.Human[c]; u < 0 {
			return c, nil
		}
	}
	// Rounding left a little probability over: the last possible move.
	return last, nil
}

// Both levels' players are Reseeders, so the arena keeps one per worker.
var (
	_ Reseeder = (*Neural)(nil)
	_ Reseeder = (*Humanlike)(nil)
)
