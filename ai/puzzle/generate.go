package puzzle

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/game"
)

// Defaults for the zero Options.
const (
	// DefaultSelfPlay is the number of self-play games Generate draws
	// from when the corpus has no puzzle. Puzzles are rare on some boards:
	// on 5x5k5 about one self-play game in fifty holds one, so 200 games
	// would find none for about one seed in fifty, and 1,000 for fewer
	// than one in a million. Generate stops at the first puzzle, so the
	// cap costs time only when there is none.
	DefaultSelfPlay = 1000
	// DefaultMinPlies is the length from which a win with more than one
	// winning move counts as deep enough to be a puzzle.
	DefaultMinPlies = 5
	// DefaultMaxNodes is the node budget of the search for the length of
	// the win, per candidate position: about 60 ms of search. The
	// costliest of 360 puzzles drawn in testing (60 seeds on each preset
	// board) needed 69,000 nodes, on 5x5k4; the others far fewer.
	DefaultMaxNodes = 200_000
)

// Options tune Generate. The zero value asks for every default.
type Options struct {
	// Corpus holds real games, tried first: a puzzle comes from self-play
	// only when no position of the corpus qualifies. Games under other
	// rules are ignored.
	Corpus []Game
	// SelfPlay is the number of self-play games to draw from when the
	// corpus has no puzzle; 0 means DefaultSelfPlay and a negative number
	// none (corpus only).
	SelfPlay int
	// MinPlies is the "deep" threshold: with more than one winning move,
	// a position is a puzzle only if its fastest win takes at least this
	// many plies; 0 means DefaultMinPlies.
	MinPlies int
	// MaxNodes is the node budget of the search for the fastest win, per
	// candidate position; a position that needs more is skipped, never
	// guessed. 0 means DefaultMaxNodes. (The exact solver's searches for
	// the value of a position and of each move cannot be stopped at a node
	// count; on boards up to 5x5 they are small, and the context bounds
	// them.)
	MaxNodes int64
}

// withDefaults fills in the zero settings.
func (o Options) withDefaults() Options {
	if o.SelfPlay == 0 {
		o.SelfPlay = DefaultSelfPlay
	}
	if o.MinPlies <= 0 {
		o.MinPlies = DefaultMinPlies
	}
	if o.MaxNodes <= 0 {
		o.MaxNodes = DefaultMaxNodes
	}
	return o
}

// The random streams drawn from a seed, one per use, so that the corpus
// does not change the self-play games and the other way round.
const (
	streamCorpus   = 0x636f72707573 // "corpus"
	streamSelfPlay = 0x73656c66     // "self"
)

// Generate returns a puzzle for rules, the same one for the same rules,
// seed and options. It tries the positions of the corpus games, in an
// order shuffled by the seed, then those of self-play games seeded by it
// (a mix of random, easy and lightly searching MCTS players, one game at a
// time, the positions of each in shuffled order), and returns the first
// position that qualifies: the side to move has a forced win, no move wins
// at once, and either exactly one move wins or the fastest win takes at
// least Options.MinPlies plies. Two kinds of position never qualify, as
// there is nothing to find in them: those a game starts from (the empty
// board, the X-O-X openings) and those in which every move wins.
// Symmetric images of a position already tried are skipped.
//
// It fails with an error wrapping ErrNone, naming the rules, when no
// position qualifies, with game.ErrBadRules for invalid rules, and with
// ctx's error if ctx ends first.
func Generate(ctx context.Context, rules game.Rules, seed uint64, o Options) (Puzzle, error) {
	if !rules.Valid() {
		return Puzzle{}, fmt.Errorf("puzzle: generate: %w: no rules given", game.ErrBadRules)
	}
	o = o.withDefaults()
	g := &generator{rules: rules, opts: o, solver: ai.NewSolver(), seen: map[game.Key]struct{}{}}
	// Marking the start positions seen skips them.
	g.seen[game.NewPosition(rules).Key()] = struct{}{}
	for _, p := range rules.Openings() {
		k, _ := p.Canonical()
		g.seen[k] = struct{}{}
	}
	starts := len(g.seen)

	cands := corpusPositions(rules, o.Corpus)
	rng := rand.New(rand.NewPCG(seed, streamCorpus))
	rng.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
	var found []Puzzle
	if err := g.collect(ctx, cands, &found); err != nil {
		return Puzzle{}, err
	}
	if len(found) > 0 {
		p := pick(found)
		p.Source = SourceCorpus
		return p, nil
	}
	tried := len(g.seen) - starts

	games := max(o.SelfPlay, 0)
	rng = rand.New(rand.NewPCG(seed, streamSelfPlay))
	for range games {
		ps, err := g.selfPlay(ctx, rng)
		if err != nil {
			return Puzzle{}, err
		}
		rng.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
		if err := g.collect(ctx, ps, &found); err != nil {
			return Puzzle{}, err
		}
		if done(found) {
			break
		}
	}
	if len(found) > 0 {
		p := pick(found)
		p.Source = SourceSelfPlay
		return p, nil
	}
	return Puzzle{}, fmt.Errorf("%w for %s: no position with a forced win that is not obvious among the %d distinct positions of %d corpus games and the positions of %d self-play games",
		ErrNone, rules, tried, len(o.Corpus), games)
}

// generator holds what one Generate call shares between candidates.
type generator struct {
	rules  game.Rules
	opts   Options
	solver *ai.Solver
	seen   map[game.Key]struct{} // canonical keys of the positions tried
}

// shortlist is how many qualifying positions Generate compares before it
// picks one (it stops at once on a position with a single winning move):
// a deep win that almost any move keeps is a poor puzzle, so the one with
// the fewest winning moves is preferred.
const shortlist = 4

// done reports whether the shortlist is complete: full, or holding a
// position with a single winning move, which nothing beats.
func done(found []Puzzle) bool {
	return len(found) >= shortlist || len(found) > 0 && found[len(found)-1].OnlyMove
}

// pick returns the best of the shortlist: the fewest winning moves, then
// the longest win, then the first found.
func pick(found []Puzzle) Puzzle {
	best := found[0]
	for _, p := range found[1:] {
		if len(p.Winning) < len(best.Winning) || len(p.Winning) == len(best.Winning) && p.Plies > best.Plies {
			best = p
		}
	}
	return best
}

// collect appends to found the puzzles among ps, in order, until the
// shortlist is done, skipping positions already tried (or symmetric to
// one).
func (g *generator) collect(ctx context.Context, ps []game.Position, found *[]Puzzle) error {
	for _, p := range ps {
		if done(*found) {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("puzzle: generate: %w", err)
		}
		k, _ := p.Canonical()
		if _, ok := g.seen[k]; ok {
			continue
		}
		g.seen[k] = struct{}{}
		pz, ok, err := examine(ctx, g.solver, p, g.opts.MinPlies, g.opts.MaxNodes)
		if err != nil {
			return err
		}
		if ok {
			*found = append(*found, pz)
		}
	}
	return nil
}

// corpusPositions returns every position along the games of r, in order,
// stopping each game at its first illegal move and leaving out finished
// positions.
func corpusPositions(r game.Rules, games []Game) []game.Position {
	var out []game.Position
	for _, gm := range games {
		p := gm.Start
		if !p.Rules().Valid() || !p.Rules().Equal(r) {
			continue
		}
		if !p.Over() {
			out = append(out, p)
		}
		for _, c := range gm.Moves {
			q, err := p.Play(c)
			if err != nil {
				break
			}
			if p = q; !p.Over() {
				out = append(out, p)
			}
		}
	}
	return out
}

// selfPlayBudget is the time budget given to the MCTS players of self-play:
// far more than their few iterations need, so that the iteration cap ends
// every search and the games are reproducible.
const selfPlayBudget = time.Hour

// selfPlay plays one game between two players drawn from rng and returns
// its positions before each move. The players are a mix, per side: random
// (a fifth), easy (two fifths), and MCTS with 32 to 255 iterations a move
// (two fifths), weak enough to blunder and strong enough to build threats,
// so the positions look like people's. X-O-X games start from one of the
// variant's openings half the time.
func (g *generator) selfPlay(ctx context.Context, rng *rand.Rand) ([]game.Position, error) {
	var players [2]ai.Player
	for i := range players {
		seed := rng.Uint64()
		switch k := rng.IntN(5); {
		case k == 0:
			players[i] = ai.NewRandom(ai.Options{Seed: seed})
		case k <= 2:
			players[i] = ai.NewEasy(ai.Options{Seed: seed})
		default:
			m, err := ai.NewMCTS(ai.Options{Seed: seed, Iterations: 32 + rng.IntN(224), Budget: selfPlayBudget})
			if err != nil {
				return nil, fmt.Errorf("puzzle: self-play: %w", err)
			}
			players[i] = m
		}
	}
	p := game.NewPosition(g.rules)
	if open := g.rules.Openings(); len(open) > 0 && rng.IntN(2) == 0 {
		p = open[rng.IntN(len(open))]
	}
	// The players search without ctx's deadline, which would make the
	// games depend on the clock; ctx is checked between moves instead.
	quiet := context.WithoutCancel(ctx)
	var out []game.Position
	for !p.Over() {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("puzzle: self-play: %w", err)
		}
		out = append(out, p)
		c, err := players[p.ToMove()-game.X].Move(quiet, p)
		if err != nil {
			return nil, fmt.Errorf("puzzle: self-play: %w", err)
		}
		p = p.Apply(c)
	}
	return out, nil
}
