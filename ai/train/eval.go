package train

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/game"
)

// Eval is the evaluation of a network.
type Eval struct {
	// OptimalMoves is, where every reachable position can be enumerated
	// (3x3k3, 4x3xox), the share of the unfinished ones where the policy's
	// best move keeps the game-theoretic value (4,520 positions on
	// 3x3k3); nil elsewhere.
	OptimalMoves *Ratio `json:"optimal_moves,omitempty"`
	// Depth is the search depth of the neural player in the arena.
	Depth int `json:"depth"`
	// Arena holds a match against each baseline.
	Arena []Match `json:"arena"`
}

// Ratio is a count out of a total.
type Ratio struct {
	Num int `json:"num"`
	Den int `json:"den"`
}

// Float returns the ratio as a number, 0 for an empty total.
func (r Ratio) Float() float64 {
	if r.Den == 0 {
		return 0
	}
	return float64(r.Num) / float64(r.Den)
}

// String returns "4500/4520 (99.56%)".
func (r Ratio) String() string {
	return fmt.Sprintf("%d/%d (%.2f%%)", r.Num, r.Den, 100*r.Float())
}

// WLD counts the games of one side of a match, from the network's side.
type WLD struct {
	Wins   int `json:"wins"`
	Draws  int `json:"draws"`
	Losses int `json:"losses"`
}

// Games returns the number of games.
func (w WLD) Games() int { return w.Wins + w.Draws + w.Losses }

// Match is the network's record against one baseline, as X and as O.
type Match struct {
	// Opponent is the baseline as Evaluate was given it, "mcts@1000".
	Opponent string `json:"opponent"`
	AsX      WLD    `json:"as_x"`
	AsO      WLD    `json:"as_o"`
	// Score is (wins + draws/2) / games over both sides.
	Score float64 `json:"score"`
}

// Evaluate measures n under cfg's rules (n's own when cfg.Rules is zero):
// the share of optimal moves where every reachable position can be
// enumerated, then cfg.EvalGames arena games against each opponent as X and
// as O (none if EvalGames is negative), with n played by ai.NewNeural at
// cfg.EvalDepth. An opponent is a level of ai.NewRegistry at its defaults,
// optionally with "@N" for N MCTS iterations or N plies of minimax depth:
// "random", "easy", "perfect", "mcts@1000", "minimax@4". Nil opponents
// mean cfg.Opponents, else DefaultOpponents. The games are reproducible
// from cfg.Seed as long as the opponents finish within their time budgets.
func Evaluate(ctx context.Context, n *nn.Net, cfg Config, opponents []string) (Eval, error) {
	if n == nil {
		return Eval{}, fmt.Errorf("%w: no network to evaluate", ErrConfig)
	}
	if !cfg.Rules.Valid() {
		cfg.Rules = n.Rules()
	}
	if !n.Rules().Equal(cfg.Rules) {
		return Eval{}, fmt.Errorf("%w: the network plays %s, the evaluation is of %s", ErrConfig, n.Rules(), cfg.Rules)
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return Eval{}, err
	}
	if opponents == nil {
		opponents = cfg.Opponents
	}
	return evaluate(ctx, n, cfg, opponents, nil, nil)
}

// evaluate is Evaluate on a checked cfg. best, when not nil, holds the
// value-keeping moves of every canonical position, already solved.
func evaluate(ctx context.Context, n *nn.Net, cfg Config, opponents []string, best map[game.Key]game.Bitboard, tick func(done, total int)) (Eval, error) {
	if tick == nil {
		tick = func(int, int) {}
	}
	ev := Eval{Depth: cfg.EvalDepth}
	reg := ai.NewRegistry()
	factories := make([]ai.Factory, len(opponents))
	for i, name := range opponents {
		f, err := Opponent(reg, name)
		if err != nil {
			return Eval{}, err
		}
		factories[i] = f
	}
	total := 1 + 2*len(opponents)
	if cfg.EvalGames < 0 {
		total = 1
	}
	if best == nil {
		if ps, ok := enumerate(cfg.Rules, enumerateLimit); ok {
			var err error
			if best, err = solveAll(ctx, ps, cfg.Workers); err != nil {
				return Eval{}, err
			}
		}
	}
	if best != nil {
		r := optimalShare(n, best)
		ev.OptimalMoves = &r
	}
	tick(1, total)
	if cfg.EvalGames < 0 {
		return ev, nil
	}
	neural := func(uint64) (ai.Player, error) { return ai.NewNeural(n, ai.Options{Depth: cfg.EvalDepth}) }
	seed := subSeed(cfg.Seed, seedEval)
	for i, name := range opponents {
		m := Match{Opponent: name}
		for side := range 2 {
			ac := ai.ArenaConfig{Rules: cfg.Rules, X: neural, O: factories[i], Games: cfg.EvalGames, Seed: mix64(seed + uint64(2*i+side)), Workers: cfg.Workers, Pause: cfg.Pause}
			if side == 1 {
				ac.X, ac.O = factories[i], neural
			}
			res, err := ai.Arena(ctx, ac)
			if err != nil {
				return Eval{}, fmt.Errorf("train: evaluating against %s: %w", name, err)
			}
			w := WLD{Wins: res.XWins, Draws: res.Draws, Losses: res.OWins}
			if side == 1 {
				w.Wins, w.Losses = res.OWins, res.XWins
				m.AsO = w
			} else {
				m.AsX = w
			}
			tick(2+2*i+side, total)
		}
		if g := m.AsX.Games() + m.AsO.Games(); g > 0 {
			m.Score = (float64(m.AsX.Wins+m.AsO.Wins) + float64(m.AsX.Draws+m.AsO.Draws)/2) / float64(g)
		}
		ev.Arena = append(ev.Arena, m)
	}
	return ev, nil
}

// Opponent returns the factory of a baseline named as Evaluate reads it: a
// level of reg at its defaults, optionally with "@N" for N MCTS iterations
// ("mcts@1000", deterministic for a seed and quick) or N plies of minimax
// depth ("minimax@4"). Errors wrap ErrConfig and say what is allowed.
func Opponent(reg *ai.Registry, spec string) (ai.Factory, error) {
	name, arg, has := strings.Cut(strings.TrimSpace(spec), "@")
	var o ai.Options
	if has {
		v, err := strconv.Atoi(arg)
		if err != nil || v < 1 {
			return nil, fmt.Errorf("%w: opponent %q: write a level, optionally with @ and a positive number (MCTS iterations, minimax depth), like \"mcts@1000\"", ErrConfig, spec)
		}
		switch strings.ToLower(name) {
		case "mcts":
			o.Iterations = v
		case "minimax":
			o.Depth = v
		default:
			return nil, fmt.Errorf("%w: opponent %q: only mcts (iterations) and minimax (depth) take a number", ErrConfig, spec)
		}
	}
	f, err := ai.LevelFactory(reg, name, o)
	if err != nil {
		return nil, fmt.Errorf("%w: opponent %q: %w", ErrConfig, spec, err)
	}
	return f, nil
}

// solveAll returns the value-keeping moves of each unfinished canonical
// position of ps.
func solveAll(ctx context.Context, ps []game.Position, workers int) (map[game.Key]game.Bitboard, error) {
	open := make([]game.Position, 0, len(ps))
	for _, p := range ps {
		if !p.Over() {
			open = append(open, p)
		}
	}
	out := make([]game.Bitboard, len(open))
	solvers := make([]*ai.Solver, max(workers, 1))
	for i := range solvers {
		solvers[i] = ai.NewSolver()
	}
	err := parallel(ctx, len(open), workers, nil, func(ctx context.Context, w, i int) error {
		a, err := solvers[w].Solve(ctx, open[i])
		for _, c := range a.Best {
			out[i] = out[i].With(c)
		}
		return err
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("train: solving every position: %w", err)
	}
	best := make(map[game.Key]game.Bitboard, len(open))
	for i, p := range open {
		best[p.Key()] = out[i]
	}
	return best, nil
}

// optimalShare counts the unfinished reachable positions, every symmetric
// image of the canonical ones in best, where n's best move keeps the value.
func optimalShare(n *nn.Net, best map[game.Key]game.Bitboard) Ratio {
	var r Ratio
	for k, b := range best {
		p, err := game.FromMarks(n.Rules(), k.X, k.O)
		if err != nil {
			continue
		}
		imgs, syms := images(p)
		for j, q := range imgs {
			r.Den++
			if b.Has(n.Rules().TransformCell(syms[j].Inverse(), n.Best(q))) {
				r.Num++
			}
		}
	}
	return r
}

// HumanAccuracy returns the share of the human moves of games (under n's
// rules) that n's human head ranks first: its top-1 accuracy at predicting
// what people play.
func HumanAccuracy(n *nn.Net, games []Game) Ratio {
	var r Ratio
	var out nn.Output
	for m := range humanMoves(replay(n.Rules(), games)) {
		r.Den++
		if humanTop1(n, m.pos, m.cell, &out) {
			r.Num++
		}
	}
	return r
}
