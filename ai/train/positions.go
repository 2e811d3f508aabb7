package train

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/game"
)

// enumerateLimit is the most positions up to symmetry Run enumerates: all
// of 3x3k3 (765) and 4x3xox (28,554), none of the 4x4 boards.
const enumerateLimit = 40_000

// replayed is a corpus game that replays under the run's rules.
type replayed struct {
	Game
	// positions[i] is the position before Moves[i].
	positions []game.Position
}

// replay keeps the games that are legal under r, with their positions.
// Games of other rules, or with an illegal move, are left out.
func replay(r game.Rules, games []Game) []replayed {
	var out []replayed
	for _, g := range games {
		p := g.Start
		if !p.Rules().Valid() {
			p = game.NewPosition(r)
		}
		if !p.Rules().Equal(r) {
			continue
		}
		rg := replayed{Game: g, positions: make([]game.Position, 0, len(g.Moves))}
		ok := true
		for _, c := range g.Moves {
			q, err := p.Play(c)
			if err != nil {
				ok = false
				break
			}
			rg.positions = append(rg.positions, p)
			p = q
		}
		if ok {
			out = append(out, rg)
		}
	}
	return out
}

// positionSet collects unfinished positions up to symmetry, in the order
// they were first added, each as its canonical image.
type positionSet struct {
	seen map[game.Key]bool
	list []game.Position
}

func newPositionSet() *positionSet { return &positionSet{seen: map[game.Key]bool{}} }

// add adds p's canonical image unless p is finished or already in.
func (s *positionSet) add(p game.Position) {
	if p.Over() {
		return
	}
	k, sym := p.Canonical()
	if s.seen[k] {
		return
	}
	s.seen[k] = true
	s.list = append(s.list, p.Transform(sym))
}

// canonical returns p's canonical image and the symmetry that takes p to it.
func canonical(p game.Position) (game.Position, game.Symmetry) {
	_, sym := p.Canonical()
	return p.Transform(sym), sym
}

// enumerate returns every position reachable from the empty board of r,
// up to symmetry (canonical images, finished ones included), in a fixed
// order, or false if there are more than limit.
func enumerate(r game.Rules, limit int) ([]game.Position, bool) {
	seen := map[game.Key]bool{}
	var out []game.Position
	var walk func(p game.Position) bool
	walk = func(p game.Position) bool {
		k, sym := p.Canonical()
		if seen[k] {
			return true
		}
		if len(out) >= limit {
			return false
		}
		seen[k] = true
		out = append(out, p.Transform(sym))
		for m := p.Moves(); m != 0; m &= m - 1 {
			if !walk(p.Apply(m.First())) {
				return false
			}
		}
		return true
	}
	if !walk(game.NewPosition(r)) {
		return nil, false
	}
	return out, true
}

// images returns the distinct symmetric images of p with the symmetry that
// makes each.
func images(p game.Position) ([]game.Position, []game.Symmetry) {
	syms := p.Rules().Symmetries()
	ps := make([]game.Position, 0, len(syms))
	ss := make([]game.Symmetry, 0, len(syms))
	for _, s := range syms {
		q := p.Transform(s)
		dup := false
		for _, o := range ps {
			if o.Key() == q.Key() {
				dup = true
				break
			}
		}
		if !dup {
			ps, ss = append(ps, q), append(ss, s)
		}
	}
	return ps, ss
}

// parallel runs f for i from 0 to n-1 on workers goroutines (f gets its
// worker's number) and calls tick from the calling goroutine as items
// finish, with the count done so far. It stops at the first error, or when
// ctx is done, and returns that error.
func parallel(ctx context.Context, n, workers int, pause func(context.Context) error, f func(ctx context.Context, w, i int) error, tick func(done int)) error {
	if n == 0 {
		return ctx.Err()
	}
	workers = max(1, min(workers, n))
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next atomic.Int64
	done := make(chan struct{}, n)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for {
				if pause != nil {
					if err := pause(ctx); err != nil {
						cancel(err)
						return
					}
				}
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				if err := f(ctx, w, i); err != nil {
					cancel(err)
					return
				}
				done <- struct{}{}
			}
		})
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	count := 0
	for {
		select {
		case <-done:
			count++
			if tick != nil {
				tick(count)
			}
		case <-finished:
			for len(done) > 0 {
				<-done
				count++
				if tick != nil {
					tick(count)
				}
			}
			return context.Cause(ctx)
		}
	}
}

// Self-play policies.
type policy uint8

const (
	teacher policy = iota // the moves of the targets: a perfect player
	mctsPolicy
	easyPolicy
	randomPolicy
	netPolicy // the initial network's best move
)

// selfPlayEpsilon is the chance that a self-play move is uniformly random,
// whatever the policy, so that the games stray from the main lines.
const selfPlayEpsilon = 0.05

// pairing picks the two policies of self-play game i and their MCTS
// iterations. Most games pit the teacher against MCTS of various
// strengths, the kind of game the network plays in the evaluation; the
// rest add teacher self-play and weaker or different opponents.
func pairing(rng *rand.Rand, haveNet bool) (x, o policy, iters [2]int) {
	var a, b policy
	switch u := rng.Float64(); {
	case u < 0.5:
		a, b = teacher, mctsPolicy
	case u < 0.65:
		a, b = teacher, teacher
	case u < 0.8:
		a, b = teacher, easyPolicy
	case u < 0.9:
		a, b = mctsPolicy, mctsPolicy
	case haveNet:
		a, b = netPolicy, teacher
	default:
		a, b = teacher, randomPolicy
	}
	if rng.IntN(2) == 1 {
		a, b = b, a
	}
	levels := [...]int{300, 1000, 1000, 3000}
	for i := range iters {
		iters[i] = levels[rng.IntN(len(levels))]
	}
	return a, b, iters
}

// selfPlay plays cfg.SelfPlay games and returns each game's unfinished
// positions. Game i depends only on the seed and i (the teacher's moves
// come from the target cache, whose entries depend only on the position).
func selfPlay(ctx context.Context, cfg Config, tc *targetCache, tick func(done int)) ([][]game.Position, error) {
	out := make([][]game.Position, cfg.SelfPlay)
	searchers := make([]*searcher, cfg.Workers)
	for i := range searchers {
		searchers[i] = newSearcher()
	}
	base := subSeed(cfg.Seed, seedSelfPlay)
	err := parallel(ctx, cfg.SelfPlay, cfg.Workers, cfg.Pause, func(ctx context.Context, w, i int) error {
		rng := rand.New(rand.NewPCG(base, uint64(i)))
		x, o, iters := pairing(rng, cfg.Init != nil)
		kinds := [2]policy{x, o}
		var players [2]ai.Player
		for side, k := range kinds {
			var err error
			switch k {
			case mctsPolicy:
				players[side], err = ai.NewMCTS(ai.Options{Iterations: iters[side], Budget: time.Hour, Seed: rng.Uint64()})
			case easyPolicy:
				players[side] = ai.NewEasy(ai.Options{Seed: rng.Uint64()})
			}
			if err != nil {
				return err
			}
		}
		p := game.NewPosition(cfg.Rules)
		var ps []game.Position
		for !p.Over() {
			ps = append(ps, p)
			side := 0
			if p.ToMove() == game.O {
				side = 1
			}
			var c game.Cell
			switch {
			case rng.Float64() < selfPlayEpsilon || kinds[side] == randomPolicy:
				c = pick(rng, p.Moves())
			case kinds[side] == teacher:
				q, sym := canonical(p)
				t, err := tc.get(ctx, searchers[w], q)
				if err != nil {
					return err
				}
				c = cfg.Rules.TransformCell(sym.Inverse(), pick(rng, t.choices))
			case kinds[side] == netPolicy:
				c = cfg.Init.Best(p)
			default:
				var err error
				if c, err = players[side].Move(ctx, p); err != nil {
					return err
				}
			}
			p = p.Apply(c)
		}
		out[i] = ps
		return nil
	}, tick)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// pick returns a uniformly random cell of a non-empty set.
func pick(rng *rand.Rand, b game.Bitboard) game.Cell {
	for n := rng.IntN(b.Count()); n > 0; n-- {
		b &= b - 1
	}
	return b.First()
}
