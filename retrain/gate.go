package retrain

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/ai/train"
	"github.com/tttbot/ttt-bot/game"
)

// gateSeedSalt separates the gate's seed from the training seed.
const gateSeedSalt = 0x6a09e667f3bcc909

// baselines returns the gate's baselines for the run's rules.
func (r *run) baselines() []string {
	if b := r.job.cfg.Gate.Baselines; b != nil {
		return b
	}
	return train.DefaultOpponents(r.req.Rules)
}

// checkGate fails early, before training, on a baseline the registry does
// not know.
func (r *run) checkGate() error {
	for _, b := range r.baselines() {
		if _, err := train.Opponent(r.job.reg, b); err != nil {
			return fmt.Errorf("%w: gate baseline %q: %w", ErrBadRequest, b, err)
		}
	}
	return nil
}

// netFactory plays a fixed network (its best-move head).
func netFactory(n *nn.Net) ai.Factory {
	return func(uint64) (ai.Player, error) { return ai.NewNeural(n, ai.Options{}) }
}

// openingFactory wraps f's players so that each plays its first move of a
// game at random (drawn from the game's seed), then as f's player would.
func openingFactory(f ai.Factory) ai.Factory {
	return func(seed uint64) (ai.Player, error) {
		p, err := f(seed)
		if err != nil {
			return nil, err
		}
		return &openingPlayer{f: f, inner: p, rng: rand.New(rand.NewPCG(seed, gateSeedSalt))}, nil
	}
}

// openingPlayer plays its first move at random and then defers to inner.
type openingPlayer struct {
	f     ai.Factory
	inner ai.Player
	rng   *rand.Rand
	moved bool
}

// Reseed implements ai.Reseeder: a new game with a new seed.
func (o *openingPlayer) Reseed(seed uint64) {
	o.rng, o.moved = rand.New(rand.NewPCG(seed, gateSeedSalt)), false
	if r, ok := o.inner.(ai.Reseeder); ok {
		r.Reseed(seed)
	} else if p, err := o.f(seed); err == nil {
		o.inner = p
	}
}

// Move implements ai.Player.
func (o *openingPlayer) Move(ctx context.Context, p game.Position) (game.Cell, error) {
	if o.moved {
		return o.inner.Move(ctx, p)
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	moves := p.Moves()
	if moves == 0 {
		return 0, ai.ErrNoMoves
	}
	o.moved = true
	for n := o.rng.IntN(moves.Count()); n > 0; n-- {
		moves &= moves - 1
	}
	return moves.First(), nil
}

// play plays games games between me and opp, half with each colour, with
// seed, and returns me's results.
func (r *run) play(ctx context.Context, me, opp ai.Factory, oppName string, games int, seed uint64) (Match, error) {
	rules := r.req.Rules
	opening := len(rules.Openings()) > 0
	m := Match{Opponent: oppName}
	nx, no := (games+1)/2, games/2
	a, err := ai.Arena(ctx, ai.ArenaConfig{Rules: rules, X: me, O: opp, Games: nx, Seed: seed, Workers: r.job.Workers(), RandomOpening: opening, Pause: r.pause})
	if err != nil {
		return m, fmt.Errorf("retrain: gate match against %s: %w", oppName, err)
	}
	m.AsX = Tally{Wins: a.XWins, Draws: a.Draws, Losses: a.OWins}
	if no > 0 {
		a, err = ai.Arena(ctx, ai.ArenaConfig{Rules: rules, X: opp, O: me, Games: no, Seed: seed, Workers: r.job.Workers(), RandomOpening: opening, Pause: r.pause})
		if err != nil {
			return m, fmt.Errorf("retrain: gate match against %s: %w", oppName, err)
		}
		m.AsO = Tally{Wins: a.OWins, Draws: a.Draws, Losses: a.XWins}
	}
	m.finish()
	return m, nil
}

// gate plays the gate's matches and applies the rule (see the package
// documentation).
func (r *run) gate(ctx context.Context, cand, live *nn.Net) (GateReport, error) {
	j := r.job
	gc := j.cfg.Gate
	baselines := r.baselines()
	g := GateReport{Games: gc.Games, Margin: gc.Margin, Seed: j.cfg.Train.Seed ^ gateSeedSalt}
	candF := netFactory(cand)
	var refF ai.Factory
	if live != nil {
		refF = netFactory(live)
		g.Reference = "live model (" + r.rep.Live.describe() + ")"
	} else {
		f, err := train.Opponent(j.reg, "random")
		if err != nil {
			return g, fmt.Errorf("retrain: the gate's reference: %w", err)
		}
		refF, g.Reference = f, "random"
	}
	total := 2 * len(baselines)
	if live != nil {
		total++
	}
	done := 0
	r.stage("gate", done, total, nil)
	names := strings.Join(baselines, ", ")
	if live != nil {
		g.Rule = fmt.Sprintf("promote iff, over %d games per match, the candidate scores at least %.3f against the live model (0.5 - margin %.2f; first move of each side random) and, against each of %s, scores at least the live model's score - %.2f and loses at most the live model's loss rate + %.2f",
			gc.Games, 0.5-gc.Margin, gc.Margin, names, gc.Margin, gc.Margin)
		m, err := r.play(ctx, openingFactory(candF), openingFactory(refF), "live", gc.Games, g.Seed)
		if err != nil {
			return g, err
		}
		g.HeadToHead = &m
		done++
		r.stage("gate", done, total, nil)
	} else {
		g.Rule = fmt.Sprintf("no live model: promote iff, over %d games per match, against each of %s the candidate scores at least a random mover's score - %.2f and loses at most a random mover's loss rate + %.2f",
			gc.Games, names, gc.Margin, gc.Margin)
	}
	for _, b := range baselines {
		bf, err := train.Opponent(j.reg, b)
		if err != nil {
			return g, fmt.Errorf("%w: gate baseline %q: %w", ErrBadRequest, b, err)
		}
		res := BaselineResult{Opponent: b}
		if res.Candidate, err = r.play(ctx, candF, bf, b, gc.Games, g.Seed); err != nil {
			return g, err
		}
		done++
		r.stage("gate", done, total, nil)
		if res.Reference, err = r.play(ctx, refF, bf, b, gc.Games, g.Seed); err != nil {
			return g, err
		}
		done++
		r.stage("gate", done, total, nil)
		g.Baselines = append(g.Baselines, res)
	}
	g.Failures = verdict(g, live != nil)
	if live != nil {
		g.Human = humanGate(r.rep.Holdout, gc.HumanTolerance)
		g.Failures = append(g.Failures, g.Human.Failures...)
	}
	g.Pass = len(g.Failures) == 0
	g.Decided = "every rule passed"
	if !g.Pass {
		g.Decided = g.Failures[0]
	}
	return g, nil
}

// humanGate applies the human-move head's rule (see the package
// documentation) to the held-out figures.
func humanGate(sets []train.HoldoutResult, tol float64) *HumanGate {
	h := &HumanGate{Tolerance: tol, MinMoves: MinHeldOutMoves, BroadPlayers: BroadPlayers,
		Rule: fmt.Sprintf("on each held-out set with at least %d human moves, the candidate's human head predicts at least the live model's share of people's moves - %.1f points (player-balanced: the mean over players, each counting once); the reference set's test is waived when the new held-out games of at least %d players, and of two thirds of the players with %d moves or more, are predicted better, and of at most half as many worse (a change of style across the server)",
			MinHeldOutMoves, 100*tol, BroadPlayers, train.MinPlayerMoves)}
	var broad bool
	for _, s := range sets {
		if s.Name == SetHeldOut && s.PlayersBetter >= BroadPlayers && s.PlayersBetter >= 2*s.PlayersWorse && 3*s.PlayersBetter >= 2*s.PlayersCounted {
			broad = true
		}
	}
	h.Broad = broad
	const eps = 1e-9
	for _, s := range sets {
		hs := HumanSet{Name: s.Name, Moves: s.HumanMoves, Players: s.Players, Candidate: s.Net.HumanBalanced, Live: -1,
			PlayersBetter: s.PlayersBetter, PlayersWorse: s.PlayersWorse}
		if s.Reference != nil {
			hs.Live = s.Reference.HumanBalanced
		}
		switch {
		case s.HumanMoves < MinHeldOutMoves || s.Reference == nil:
			hs.Verdict = fmt.Sprintf("not judged: %d human moves, fewer than %d", s.HumanMoves, MinHeldOutMoves)
		case hs.Candidate >= hs.Live-tol-eps:
			hs.Verdict = "passed"
		case s.Name == SetReference && broad:
			hs.Verdict = "waived: a change of style across the server"
		default:
			hs.Verdict = "failed"
			h.Failures = append(h.Failures, fmt.Sprintf("on the %s games its human head predicted %.1f%% of the moves, below the live model's %.1f%% - %.1f points",
				s.Name, 100*hs.Candidate, 100*hs.Live, 100*tol))
		}
		h.Sets = append(h.Sets, hs)
	}
	return h
}

// verdict applies the gating rule to the matches and returns the broken
// conditions, each in a sentence with its numbers; none means promote.
func verdict(g GateReport, live bool) []string {
	var out []string
	m := g.Margin
	// A tiny slack so that a score exactly on the threshold passes
	// whatever the rounding.
	const eps = 1e-9
	if live && g.HeadToHead != nil {
		if h := g.HeadToHead; h.Score < 0.5-m-eps {
			out = append(out, fmt.Sprintf("scored %.3f against the live model, below %.3f (0.5 - margin %.2f)", h.Score, 0.5-m, m))
		}
	}
	who := "the live model's"
	if !live {
		who = "a random mover's"
	}
	for _, b := range g.Baselines {
		c, ref := b.Candidate, b.Reference
		if c.Score < ref.Score-m-eps {
			out = append(out, fmt.Sprintf("against %s it scored %.3f, below %s %.3f - margin %.2f", b.Opponent, c.Score, who, ref.Score, m))
		}
		lm := m
		if live && b.Opponent == "perfect" {
			lm = min(m, 0) // no more losses to perfect than the live model
		}
		if c.LossRate > ref.LossRate+lm+eps {
			out = append(out, fmt.Sprintf("against %s it lost %.1f%% of games, more than %s %.1f%% + margin %.2f", b.Opponent, 100*c.LossRate, who, 100*ref.LossRate, lm))
		}
	}
	return out
}

// summary describes the gate's results in a sentence.
func (g GateReport) summary() string {
	var parts []string
	if h := g.HeadToHead; h != nil {
		parts = append(parts, fmt.Sprintf("scored %.3f against the live model", h.Score))
	}
	for _, b := range g.Baselines {
		parts = append(parts, fmt.Sprintf("%.3f against %s (%s %.3f)", b.Candidate.Score, b.Opponent, refWord(g.Reference), b.Reference.Score))
	}
	return strings.Join(parts, ", ")
}

// refWord names the reference briefly.
func refWord(ref string) string {
	if ref == "random" {
		return "random mover"
	}
	return "live"
}

// describe names the live model in a few words.
func (l LiveModel) describe() string {
	switch l.Source {
	case SourceRegistry:
		if l.Label != "" {
			return fmt.Sprintf("registry version %d, %s", l.Version, l.Label)
		}
		return fmt.Sprintf("registry version %d", l.Version)
	case SourceShipped:
		if l.Label != "" {
			return "shipped weights, " + l.Label
		}
		return "shipped weights"
	}
	return "none"
}
