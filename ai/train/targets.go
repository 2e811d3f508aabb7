package train

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/game"
)

// target is what search found for a canonical position, in its frame.
type target struct {
	policy [nn.MaxCells]float32 // distribution over the moves
	value  float32              // expected result for the side to move
	solved bool                 // exact (solver) rather than MCTS
	// best are the moves that keep the game-theoretic value (solved only);
	// choices the moves a perfect player picks among (or MCTS's move).
	best, choices game.Bitboard
}

// searcher is one goroutine's search state.
type searcher struct{ solver *ai.Solver }

func newSearcher() *searcher { return &searcher{solver: ai.NewSolver()} }

// targetCache computes targets once per canonical position; safe for
// concurrent use. An entry depends only on its position (and the Config),
// never on which goroutine computed it or when.
type targetCache struct {
	cfg  Config
	seed uint64
	mu   sync.Mutex
	m    map[game.Key]*target
}

func newTargetCache(cfg Config) *targetCache {
	return &targetCache{cfg: cfg, seed: subSeed(cfg.Seed, seedTargets), m: map[game.Key]*target{}}
}

// get returns the target of the canonical position q.
func (tc *targetCache) get(ctx context.Context, s *searcher, q game.Position) (*target, error) {
	tc.mu.Lock()
	t, ok := tc.m[q.Key()]
	tc.mu.Unlock()
	if ok {
		return t, nil
	}
	t, err := tc.compute(ctx, s, q)
	if err != nil {
		return nil, err
	}
	tc.mu.Lock()
	tc.m[q.Key()] = t
	tc.mu.Unlock()
	return t, nil
}

// all returns the targets of the canonical positions ps, in order.
func (tc *targetCache) all(ctx context.Context, ps []game.Position, workers int, pause func(context.Context) error, tick func(done int)) ([]*target, error) {
	out := make([]*target, len(ps))
	searchers := make([]*searcher, workers)
	for i := range searchers {
		searchers[i] = newSearcher()
	}
	err := parallel(ctx, len(ps), workers, pause, func(ctx context.Context, w, i int) error {
		t, err := tc.get(ctx, searchers[w], ps[i])
		out[i] = t
		return err
	}, tick)
	return out, err
}

// compute searches q: the exact solver within the budget, with the moves a
// perfect player chooses among as the policy, else MCTS visit counts.
func (tc *targetCache) compute(ctx context.Context, s *searcher, q game.Position) (*target, error) {
	if tc.cfg.SolveBudget < 0 {
		return tc.mcts(ctx, q)
	}
	sctx, cancel := context.WithTimeout(ctx, tc.cfg.SolveBudget)
	a, choices, err := s.solver.PerfectChoices(sctx, q, tc.cfg.ChoiceNodes)
	cancel()
	if err == nil {
		t := &target{solved: true, value: resultValue(a.Value, q.ToMove())}
		for _, c := range a.Best {
			t.best = t.best.With(c)
		}
		for _, c := range choices {
			t.choices = t.choices.With(c)
			t.policy[c] = 1 / float32(len(choices))
		}
		if len(choices) > 1 && tc.cfg.TieIterations > 0 {
			return t, tc.rank(ctx, q, t)
		}
		return t, nil
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("train: searching %s: %w", q, context.Cause(ctx))
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("train: solving %s: %w", q, err)
	}
	return tc.mcts(ctx, q)
}

// newMCTS returns an MCTS player for q whose search ends after iterations,
// seeded from q so that its result depends on q alone.
func (tc *targetCache) newMCTS(q game.Position, iterations int) (*ai.MCTS, error) {
	k := q.Key()
	return ai.NewMCTS(ai.Options{
		Iterations: iterations,
		Budget:     time.Hour, // the iterations end the search, so it is reproducible
		Seed:       mix64(tc.seed ^ mix64(uint64(k.X)) ^ uint64(k.O)),
	})
}

// rank spreads t's policy over its tied choices by the visits of an MCTS
// search of q (plus one each, so that every choice keeps some weight), and
// keeps only the most visited choice for self-play's teacher.
func (tc *targetCache) rank(ctx context.Context, q game.Position, t *target) error {
	m, err := tc.newMCTS(q, tc.cfg.TieIterations)
	if err != nil {
		return err
	}
	if _, err := m.Move(ctx, q); err != nil {
		return fmt.Errorf("train: ranking the moves of %s: %w", q, err)
	}
	visits := map[game.Cell]int{}
	for _, mv := range m.Root() {
		visits[mv.Cell] = mv.Visits
	}
	var total float32
	top, topVisits := t.choices.First(), -1
	for b := t.choices; b != 0; b &= b - 1 {
		c := b.First()
		total += float32(visits[c] + 1)
		if visits[c] > topVisits {
			top, topVisits = c, visits[c]
		}
	}
	for b := t.choices; b != 0; b &= b - 1 {
		c := b.First()
		t.policy[c] = float32(visits[c]+1) / total
	}
	t.choices = game.Bitboard(0).With(top)
	return nil
}

// mcts returns MCTS targets for q: the visit counts, or the proven moves
// when the search proves the position.
func (tc *targetCache) mcts(ctx context.Context, q game.Position) (*target, error) {
	m, err := tc.newMCTS(q, tc.cfg.MCTSIterations)
	if err != nil {
		return nil, err
	}
	c, err := m.Move(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("train: searching %s: %w", q, err)
	}
	st, root := m.Stats(), m.Root()
	t := &target{choices: game.Bitboard(0).With(c)}
	if st.Result != game.Ongoing {
		t.value = resultValue(st.Result, q.ToMove())
		for _, mv := range root {
			if mv.Result == st.Result {
				t.choices = t.choices.With(mv.Cell)
			}
		}
		n := float32(t.choices.Count())
		for b := t.choices; b != 0; b &= b - 1 {
			t.policy[b.First()] = 1 / n
		}
		return t, nil
	}
	t.value = float32(2*st.Value - 1)
	var total int
	for _, mv := range root {
		total += mv.Visits
	}
	for _, mv := range root {
		if total > 0 {
			t.policy[mv.Cell] = float32(mv.Visits) / float32(total)
		}
	}
	if total == 0 {
		t.policy[c] = 1
	}
	return t, nil
}

// resultValue is a result as a value for side: 1 win, 0 draw, -1 loss.
func resultValue(r game.Result, side game.Mark) float32 {
	switch {
	case r == game.Draw:
		return 0
	case (r == game.XWins) == (side == game.X):
		return 1
	}
	return -1
}

// maxPlyWeight caps the weight plyWeights gives the positions of a ply.
const maxPlyWeight = 8

// plyWeights returns a weight for the positions of each ply: every game
// goes through one position of each ply, so the few positions of the
// first plies are up-weighted, by the square root of how much rarer they
// are than those of the commonest ply, at most maxPlyWeight times.
func plyWeights(samples []nn.Sample) [nn.MaxCells + 1]float32 {
	var count [nn.MaxCells + 1]int
	most := 0
	for _, s := range samples {
		count[s.Position.Ply()]++
		most = max(most, count[s.Position.Ply()])
	}
	var w [nn.MaxCells + 1]float32
	for i, n := range count {
		if n > 0 {
			w[i] = float32(min(math.Sqrt(float64(most)/float64(n)), maxPlyWeight))
		}
	}
	return w
}

// searchSamples turns the targets of the canonical positions ps into
// training samples, one for every distinct symmetric image, weighted by
// ply (plyWeights).
func searchSamples(ps []game.Position, ts []*target) []nn.Sample {
	out := samplesOf(ps, ts)
	w := plyWeights(out)
	for i := range out {
		s := &out[i]
		s.PolicyWeight, s.ValueWeight = w[s.Position.Ply()], w[s.Position.Ply()]
	}
	return out
}

// samplesOf returns a sample of weight 1 for every symmetric image of the
// positions ps with targets ts.
func samplesOf(ps []game.Position, ts []*target) []nn.Sample {
	var out []nn.Sample
	for i, p := range ps {
		t := ts[i]
		imgs, syms := images(p)
		for j, q := range imgs {
			s := nn.Sample{Position: q, PolicyWeight: 1, Value: t.value, ValueWeight: 1}
			for c, v := range t.policy {
				if v > 0 {
					s.Policy[p.Rules().TransformCell(syms[j], game.Cell(c))] = v
				}
			}
			out = append(out, s)
		}
	}
	return out
}

// humanCap is the most weight the human moves of one position carry: a
// position a thousand people played counts as much as a few that
// some played, so that the common openings do not swamp the rest.
const humanCap = 8

// minHumanWeight is the least weight of a position's human moves that
// still trains: about 30 half-lives.
const minHumanWeight = 1e-9

// humanTarget is what the people of the corpus played in one position.
type humanTarget struct {
	position game.Position
	moves    [nn.MaxCells]float64 // summed weights per move
	weight   float64
	by       map[string]float64 // each named player's part of weight
}

// humanSamples gathers the human moves of the corpus by exact position
// (no symmetry), each weighted by its game's recency and by its player's
// factor (playerFactors: the per-player bound and the down-weighting of
// players far worse than chance), and returns them in order of first
// appearance with the number of moves. best, which may be nil, gives the
// value-keeping moves of a position for the quality test.
func humanSamples(cfg Config, corpus []replayed, best func(game.Position) (game.Bitboard, bool)) ([]humanTarget, int, PlayerReport) {
	now := cfg.Now
	if now.IsZero() {
		for _, g := range corpus {
			if g.Time.After(now) {
				now = g.Time
			}
		}
	}
	weight := func(g Game) float64 { return recency(g.Time, now, cfg.HalfLife) }
	factors, rep := playerFactors(cfg, corpus, weight, best)
	out, moves := gatherHuman(corpus, weight, factors)
	if rep.MaxShare > 0 {
		// The per-position cap (humanCap) reshapes the signal: a player
		// who spreads moves over many rare positions keeps more of their
		// weight than one whose moves pile up on common ones. Bound each
		// player's share of the signal as trained, a few rounds to
		// settle.
		for range 4 {
			signal := map[string]float64{}
			for _, h := range out {
				if h.weight > 0 {
					scale := min(h.weight, humanCap) / h.weight
					for name, w := range h.by {
						signal[name] += w * scale
					}
				}
			}
			moved := false
			for name, g := range bound(signal, rep.MaxShare) {
				if g < 1-1e-6 {
					factors[name] *= g
					moved = true
				}
			}
			if !moved {
				break
			}
			out, _ = gatherHuman(corpus, weight, factors)
		}
		rep.count(factors)
	}
	return out, moves, rep
}

// gatherHuman gathers the human moves of the corpus by exact position,
// each weighted by weight(game) and its player's factor, with each
// player's part of a position's weight.
func gatherHuman(corpus []replayed, weight func(Game) float64, factors map[string]float64) ([]humanTarget, int) {
	index := map[game.Key]int{}
	var out []humanTarget
	moves := 0
	for m := range humanMoves(corpus) {
		w := weight(m.game.Game)
		if f, ok := factors[m.name]; ok {
			w *= f
		}
		moves++
		j, ok := index[m.pos.Key()]
		if !ok {
			j = len(out)
			index[m.pos.Key()] = j
			out = append(out, humanTarget{position: m.pos, by: map[string]float64{}})
		}
		out[j].moves[m.cell] += w
		out[j].weight += w
		if m.name != "" {
			out[j].by[m.name] += w
		}
	}
	return out, moves
}

// mergeHuman adds the human targets to the samples of the same positions,
// or as samples of their own (human head only) for positions without one.
func mergeHuman(samples []nn.Sample, human []humanTarget) []nn.Sample {
	index := make(map[game.Key]int, len(samples))
	for i, s := range samples {
		index[s.Position.Key()] = i
	}
	for _, h := range human {
		if !(h.weight > minHumanWeight) {
			continue // too old to matter (or no weight at all)
		}
		i, ok := index[h.position.Key()]
		if !ok {
			i = len(samples)
			index[h.position.Key()] = i
			samples = append(samples, nn.Sample{Position: h.position})
		}
		s := &samples[i]
		for c, v := range h.moves {
			s.Human[c] = float32(v / h.weight)
		}
		s.HumanWeight = float32(min(h.weight, humanCap))
	}
	return samples
}
