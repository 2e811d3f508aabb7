// Package train builds the training set of a network of package nn for one
// rules key, trains the network and evaluates it.
//
// The best-move (policy) and value heads learn from search: the exact
// ai.Solver where it finishes within a budget, with the moves a perfect
// player would choose as the policy target, and MCTS visit counts
// elsewhere. They learn on every position of the corpus, on positions of
// self-play games and, where the state space is small (3x3k3, 4x3xox), on
// every reachable position; each position is also learnt in its symmetric
// images. The human-move head learns from the moves people played in the
// corpus only, weighted toward recent games, and never from symmetric
// images, so that a habit such as a favourite corner survives.
//
// Everything is reproducible: for the same corpus, Config and Seed, Run
// returns the same weights whatever the number of workers.
package train

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/game"
)

// ErrConfig reports a Config that Run or Evaluate cannot work with.
var ErrConfig = errors.New("train: bad config")

// Stages reported through Progress.Stage, in the order Run goes through them.
const (
	StagePositions  = "positions"  // collecting positions: corpus, enumeration, self-play games
	StageTargets    = "targets"    // searching every position for its targets
	StageTraining   = "training"   // nn.Train, one report per epoch
	StageEvaluating = "evaluating" // optimal-move share and arena matches
)

// Default settings, used when the matching Config field is zero.
const (
	// DefaultHalfLife is the age at which a human move counts half as much
	// as a move played now.
	DefaultHalfLife = 30 * 24 * time.Hour
	// DefaultSolveBudget is the time the exact solver gets per position
	// before the position falls back to MCTS targets. It is generous: the
	// hardest positions of the shipped boards (the first plies of 5x5k4)
	// take a few hundred milliseconds of CPU, and the margin keeps the
	// results reproducible on a busy machine.
	DefaultSolveBudget = 10 * time.Second
	// DefaultMCTSIterations is the search per position of the fallback
	// targets.
	DefaultMCTSIterations = 20_000
	// DefaultEvalGames is the number of arena games per baseline and side.
	DefaultEvalGames = 200
)

// Game is one finished game of the corpus, decoded by the caller (cmd/bot,
// retrain) from persistence records.
type Game struct {
	// Start is the position the game started from; the zero Position
	// means the empty board of the Config's rules.
	Start game.Position
	// Moves are the cells played, in order.
	Moves []game.Cell
	// Human tells which sides were people: Human[0] for X, Human[1] for
	// O. Moves by the AI never train the human head.
	Human [2]bool
	// Players names the people (their pseudonyms), X first; "" when
	// unknown. The per-player bound (Config.MaxPlayerShare) and the
	// quality test apply by name; moves of an unknown player are not
	// bounded.
	Players [2]string
	// Time is when the game finished, for recency weighting.
	Time time.Time
}

// Config describes a training run for one rules key. The zero value of
// every field but Rules asks for its default.
type Config struct {
	// Rules are the rules the network plays.
	Rules game.Rules
	// Arch is the network's shape; zero means nn.DefaultArch(Rules). It
	// is ignored when Init is set.
	Arch nn.Arch
	// SelfPlay is the number of self-play games whose positions join the
	// training set; 0 means the default of the rules (see
	// DefaultSelfPlay), negative means none. There is no self-play where
	// every reachable position is in the set anyway.
	SelfPlay int
	// Epochs is the number of passes over the training set; 0 means the
	// default for its size (see DefaultEpochs).
	Epochs int
	// BatchSize and LearningRate are passed to nn.Train; 0 means nn's
	// defaults.
	BatchSize    int
	LearningRate float64
	// Seed determines every random choice: initial weights, self-play,
	// shuffling, fallback searches and the evaluation games.
	Seed uint64
	// Workers is the number of goroutines; 0 means runtime.GOMAXPROCS(0).
	// The result does not depend on it.
	Workers int
	// Pause, if set, is called by each worker before each unit of work
	// (a self-play game, a position's targets, an evaluation game) and
	// after each training epoch; it may block, to give the CPU to more
	// urgent work (the bot's players), and an error from it stops the
	// run. The result does not depend on it.
	Pause func(ctx context.Context) error
	// Init is an optional network to start from (the live model); nil
	// means fresh weights drawn from Seed. Its moves also play some of the
	// self-play games.
	Init *nn.Net
	// HalfLife is the recency half-life of human-move weights: a move
	// played HalfLife before Now counts half. 0 means DefaultHalfLife.
	HalfLife time.Duration
	// Now is the reference time for recency; zero means the time of the
	// latest game of the corpus.
	Now time.Time
	// SolveBudget is the time the exact solver gets per position before
	// the position falls back to MCTS targets; 0 means DefaultSolveBudget,
	// negative means no solving at all (MCTS targets everywhere). Results
	// are reproducible as long as no solve comes near the budget.
	SolveBudget time.Duration
	// ChoiceNodes bounds the search that picks, among the moves that keep
	// the value, those that give a fallible opponent the most chances to
	// go wrong (ai.Solver.PerfectChoices); 0 means the default of the
	// rules (see DefaultChoiceNodes), negative means no such search.
	ChoiceNodes int64
	// TieIterations is the MCTS search that ranks the moves still tied
	// after that (the many drawing moves of a big board): the policy
	// target spreads over them by visits, and self-play's teacher plays
	// the most visited. MCTS's random rollouts favour moves that give a
	// fallible opponent chances to go wrong. 0 means the default of the
	// rules (see DefaultTieIterations), negative means none (an even
	// spread).
	TieIterations int
	// MCTSIterations is the search per position of the fallback targets;
	// 0 means DefaultMCTSIterations.
	MCTSIterations int
	// EvalGames is the number of arena games per baseline and side in
	// the evaluation; 0 means DefaultEvalGames, negative means no arena.
	EvalGames int
	// EvalDepth is the ai.Options.Depth of the neural player in the
	// evaluation's arena (0: the policy alone).
	EvalDepth int
	// Opponents are the evaluation's baselines (see Evaluate); nil means
	// DefaultOpponents(Rules).
	Opponents []string
	// MaxPlayerShare bounds the share of the human-move head's training
	// signal (the recency-weighted moves, after the per-position cap) that
	// one player's moves carry; 0 means DefaultMaxPlayerShare, negative
	// means no bound. With fewer players than 2/MaxPlayerShare the bound
	// is twice an equal share.
	MaxPlayerShare float64
	// Holdout are sets of games the run measures the network on and never
	// trains on (see HoldoutSet); their figures are in Report.Holdout and,
	// epoch by epoch, in the epochs' Valid figures.
	Holdout []HoldoutSet
	// Reference is an optional network (the live model) measured on the
	// held-out sets beside the trained one, with the same targets.
	Reference *nn.Net
}

// Progress reports how far Run has got.
type Progress struct {
	// Stage is one of the Stage constants.
	Stage string
	// Done and Total count the stage's work: games, positions, epochs or
	// evaluation steps.
	Done, Total int
	// Epoch holds the statistics of the epoch just finished, in the
	// training stage.
	Epoch *nn.Epoch
}

// Result is what Run produces.
type Result struct {
	// Net is the trained network.
	Net *nn.Net
	// Report describes the run.
	Report Report
}

// Report describes a training run; it is JSON-friendly and becomes
// nn.Meta's Training and Eval and the retrain job's report.
type Report struct {
	Rules  string  `json:"rules"`
	Seed   uint64  `json:"seed"`
	Arch   nn.Arch `json:"arch"`
	Params int     `json:"params"`
	// CorpusGames counts the corpus games used, SkippedGames those left
	// out (other rules, illegal moves), HumanMoves the human moves that
	// trained the human head.
	CorpusGames  int `json:"corpus_games"`
	SkippedGames int `json:"skipped_games"`
	HumanMoves   int `json:"human_moves"`
	// Players says how the human moves were weighted by player.
	Players PlayerReport `json:"players"`
	// Holdout holds the figures on each held-out set (Config.Holdout).
	Holdout []HoldoutResult `json:"holdout,omitempty"`
	// SelfPlayGames counts the self-play games played.
	SelfPlayGames int `json:"self_play_games"`
	// Enumerated tells whether every reachable position was in the set.
	Enumerated bool `json:"enumerated"`
	// Positions counts the distinct positions up to symmetry that got
	// search targets; SolvedPositions of them got exact ones and
	// MCTSPositions MCTS ones.
	Positions       int `json:"positions"`
	SolvedPositions int `json:"solved_positions"`
	MCTSPositions   int `json:"mcts_positions"`
	// Samples is the size of the training set, symmetric images included.
	Samples int        `json:"samples"`
	Epochs  []nn.Epoch `json:"epochs"`
	Eval    Eval       `json:"eval,omitzero"`
	// Stages holds the wall time of each stage.
	Stages   map[string]time.Duration `json:"stages"`
	Duration time.Duration            `json:"duration"`
}

// Summary returns r as a weights file keeps it in its "training"
// metadata: with the last epoch only (the curves are in the full report)
// and without the evaluation, which the file keeps apart in "eval".
func (r Report) Summary() Report {
	r.Eval = Eval{}
	if n := len(r.Epochs); n > 0 {
		r.Epochs = r.Epochs[n-1:]
	}
	return r
}

// DefaultSelfPlay returns the number of self-play games Run plays for r
// when Config.SelfPlay is 0 and the reachable positions are too many to
// enumerate (where they are not, as on 3x3k3 and 4x3xox, there is no
// self-play): enough games to cover the openings and the middle games the
// network meets, chosen so that a default run takes a few minutes on two
// cores.
func DefaultSelfPlay(r game.Rules) int {
	if r.Size() <= 16 {
		return 600
	}
	return 400
}

// DefaultEpochs returns the number of epochs Run trains a set of samples
// for when Config.Epochs is 0: enough for about 2.5 million sample
// updates, at least 20 and at most 300 (3x3k3's 4,520 samples get 300,
// the 21,000 of 5x5k4 about 120).
func DefaultEpochs(samples int) int {
	const updates = 2_500_000
	return min(max(updates/max(samples, 1), 20), 300)
}

// DefaultChoiceNodes returns the node budget per position of the search
// for traps (ai.Solver.PerfectChoices) when Config.ChoiceNodes is 0: no
// limit on boards of up to 12 cells, where it always finishes quickly, so
// the policy learns exactly what ai.Perfect plays; none (-1) on bigger
// boards, where every node of that search needs a solve and a position
// would take seconds. There TieIterations ranks the drawing moves instead.
func DefaultChoiceNodes(r game.Rules) int64 {
	if r.Size() <= 12 {
		return 1 << 40
	}
	return -1
}

// DefaultTieIterations returns the MCTS iterations that rank tied moves
// when Config.TieIterations is 0: none on boards of up to 12 cells (the
// trap search has already decided), 2,000 on bigger boards.
func DefaultTieIterations(r game.Rules) int {
	if r.Size() <= 12 {
		return -1
	}
	return 2000
}

// DefaultOpponents returns the baselines Evaluate plays when given none:
// random, easy and perfect where every position can be enumerated (perfect
// is quick there), random, easy and mcts at 1,000 iterations elsewhere.
func DefaultOpponents(r game.Rules) []string {
	if r.Size() <= 12 {
		return []string{"random", "easy", "perfect"}
	}
	return []string{"random", "easy", "mcts@1000"}
}

// withDefaults checks cfg and fills in its defaults.
func (cfg Config) withDefaults() (Config, error) {
	switch {
	case !cfg.Rules.Valid():
		return cfg, fmt.Errorf("%w: no rules", ErrConfig)
	case cfg.Epochs < 0:
		return cfg, fmt.Errorf("%w: %d epochs; use 1 or more, or 0 for the default", ErrConfig, cfg.Epochs)
	case cfg.Workers < 0:
		return cfg, fmt.Errorf("%w: %d workers; use 1 or more, or 0 for one per core", ErrConfig, cfg.Workers)
	case cfg.HalfLife < 0 || cfg.MCTSIterations < 0:
		return cfg, fmt.Errorf("%w: negative half-life or MCTS iterations; use 0 for the defaults", ErrConfig)
	case cfg.EvalDepth < 0:
		return cfg, fmt.Errorf("%w: evaluation depth %d; use 0 (the policy alone) or more", ErrConfig, cfg.EvalDepth)
	}
	if cfg.Init != nil {
		if !cfg.Init.Rules().Equal(cfg.Rules) {
			return cfg, fmt.Errorf("%w: the initial network plays %s, the run trains %s", ErrConfig, cfg.Init.Rules(), cfg.Rules)
		}
		cfg.Arch = cfg.Init.Arch()
	}
	if cfg.Arch.Rules == "" && len(cfg.Arch.Hidden) == 0 {
		cfg.Arch = nn.DefaultArch(cfg.Rules)
	}
	if cfg.Arch.Rules == "" {
		cfg.Arch.Rules = cfg.Rules.String()
	}
	if r, err := game.ParseRules(cfg.Arch.Rules); err != nil || !r.Equal(cfg.Rules) {
		return cfg, fmt.Errorf("%w: architecture for %q, the run trains %s", ErrConfig, cfg.Arch.Rules, cfg.Rules)
	}
	if cfg.Workers == 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if cfg.HalfLife == 0 {
		cfg.HalfLife = DefaultHalfLife
	}
	if cfg.SolveBudget == 0 {
		cfg.SolveBudget = DefaultSolveBudget
	}
	if cfg.ChoiceNodes == 0 {
		cfg.ChoiceNodes = DefaultChoiceNodes(cfg.Rules)
	}
	if cfg.TieIterations == 0 {
		cfg.TieIterations = DefaultTieIterations(cfg.Rules)
	}
	if cfg.MCTSIterations == 0 {
		cfg.MCTSIterations = DefaultMCTSIterations
	}
	if cfg.EvalGames == 0 {
		cfg.EvalGames = DefaultEvalGames
	}
	if cfg.Opponents == nil {
		cfg.Opponents = DefaultOpponents(cfg.Rules)
	}
	if cfg.MaxPlayerShare == 0 {
		cfg.MaxPlayerShare = DefaultMaxPlayerShare
	}
	if cfg.Reference != nil && !cfg.Reference.Rules().Equal(cfg.Rules) {
		return cfg, fmt.Errorf("%w: the reference network plays %s, the run trains %s", ErrConfig, cfg.Reference.Rules(), cfg.Rules)
	}
	return cfg, nil
}

// Run trains a network for cfg.Rules on the corpus games and evaluates it.
// It reports each stage's progress to progress (which may be nil), from
// the calling goroutine. It honours ctx throughout and then returns its
// error.
func Run(ctx context.Context, cfg Config, games []Game, progress func(Progress)) (Result, error) {
	start := time.Now()
	cfg, err := cfg.withDefaults()
	if err != nil {
		return Result{}, err
	}
	reg := ai.NewRegistry()
	for _, name := range cfg.Opponents {
		if _, err := Opponent(reg, name); err != nil {
			return Result{}, err
		}
	}
	if progress == nil {
		progress = func(Progress) {}
	}
	r := &run{
		ctx: ctx, cfg: cfg, progress: progress, tc: newTargetCache(cfg),
		rep: Report{Rules: cfg.Rules.String(), Seed: cfg.Seed, Arch: cfg.Arch, Stages: map[string]time.Duration{}},
	}
	stage := func(name string, t0 time.Time) { r.rep.Stages[name] = time.Since(t0) }

	t0 := time.Now()
	corpus, err := r.positions(games)
	if err != nil {
		return Result{}, err
	}
	stage(StagePositions, t0)

	t0 = time.Now()
	samples, held, valid, err := r.label(corpus)
	if err != nil {
		return Result{}, err
	}
	stage(StageTargets, t0)

	t0 = time.Now()
	net, err := r.train(samples, valid)
	if err != nil {
		return Result{}, err
	}
	stage(StageTraining, t0)
	for i, h := range r.cfg.Holdout {
		r.rep.Holdout = append(r.rep.Holdout, measureHoldout(r.cfg, h.Name, held[i], net, r.cfg.Reference, r.tc.bestOf()))
	}

	t0 = time.Now()
	if err := r.eval(net); err != nil {
		return Result{}, err
	}
	stage(StageEvaluating, t0)
	r.rep.Duration = time.Since(start)
	return Result{Net: net, Report: r.rep}, nil
}

// run is one call of Run: its settings (with defaults), what it has
// gathered so far and the report it fills in.
type run struct {
	ctx      context.Context
	cfg      Config
	progress func(Progress)
	rep      Report
	tc       *targetCache
	set      *positionSet // the positions trained on
	targets  []*target    // the targets of set.list, in its order
}

// positions collects the positions to train on: those of the corpus
// games, every reachable position where there are few, and self-play
// games (none when every position is there). It returns the corpus games
// replayed.
func (r *run) positions(games []Game) ([]replayed, error) {
	cfg := &r.cfg
	corpus := replay(cfg.Rules, games)
	r.rep.CorpusGames, r.rep.SkippedGames = len(corpus), len(games)-len(corpus)
	r.set = newPositionSet()
	all, enumerated := enumerate(cfg.Rules, enumerateLimit)
	r.rep.Enumerated = enumerated
	for _, p := range all {
		r.set.add(p)
	}
	for _, g := range corpus {
		for _, p := range g.positions {
			r.set.add(p)
		}
	}
	if cfg.SelfPlay == 0 {
		cfg.SelfPlay = DefaultSelfPlay(cfg.Rules)
	}
	if enumerated {
		cfg.SelfPlay = 0
	}
	cfg.SelfPlay = max(cfg.SelfPlay, 0)
	if cfg.SelfPlay > 0 {
		played, err := selfPlay(r.ctx, *cfg, r.tc, func(done int) {
			r.progress(Progress{Stage: StagePositions, Done: done, Total: cfg.SelfPlay})
		})
		if err != nil {
			return nil, err
		}
		for _, g := range played {
			for _, p := range g {
				r.set.add(p)
			}
		}
		r.rep.SelfPlayGames = len(played)
	}
	r.progress(Progress{Stage: StagePositions, Done: cfg.SelfPlay, Total: cfg.SelfPlay})
	return corpus, nil
}

// label finds the target of every position collected and returns the
// samples to train on (the searched positions and the corpus players'
// moves), the held-out games replayed, in the order of cfg.Holdout, and
// the samples of their positions, measured but never trained on.
func (r *run) label(corpus []replayed) (samples []nn.Sample, held [][]replayed, valid []nn.Sample, err error) {
	cfg, list := r.cfg, r.set.list
	r.targets, err = r.tc.all(r.ctx, list, cfg.Workers, cfg.Pause, func(done int) {
		r.progress(Progress{Stage: StageTargets, Done: done, Total: len(list)})
	})
	if err != nil {
		return nil, nil, nil, err
	}
	r.rep.Positions = len(list)
	for _, t := range r.targets {
		if t.solved {
			r.rep.SolvedPositions++
		} else {
			r.rep.MCTSPositions++
		}
	}
	samples = searchSamples(list, r.targets)
	human, moves, players := humanSamples(cfg, corpus, r.tc.bestOf())
	r.rep.HumanMoves, r.rep.Players = moves, players
	samples = mergeHuman(samples, human)
	r.rep.Samples = len(samples)
	held = make([][]replayed, len(cfg.Holdout))
	for i, h := range cfg.Holdout {
		held[i] = replay(cfg.Rules, h.Games)
	}
	if hp := holdoutPositions(held); len(hp) > 0 {
		ht, err := r.tc.targetsFor(r.ctx, cfg, hp)
		if err != nil {
			return nil, nil, nil, err
		}
		valid = validSamples(hp, ht, held)
	}
	return samples, held, valid, nil
}

// train trains the network on samples, from cfg.Init or else from a
// seeded new one, measuring valid after every epoch.
func (r *run) train(samples, valid []nn.Sample) (*nn.Net, error) {
	cfg := r.cfg
	init := cfg.Init
	if init == nil {
		var err error
		init, err = nn.New(cfg.Arch, rand.New(rand.NewPCG(subSeed(cfg.Seed, seedInit), 0)))
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
	}
	r.rep.Params = init.Params()
	epochsWanted := cfg.Epochs
	if epochsWanted == 0 {
		epochsWanted = DefaultEpochs(len(samples))
	}
	net, epochs, err := nn.Train(r.ctx, init, samples, nn.TrainOptions{
		Epochs:       epochsWanted,
		BatchSize:    cfg.BatchSize,
		LearningRate: cfg.LearningRate,
		Seed:         subSeed(cfg.Seed, seedTrain),
		Workers:      cfg.Workers,
		Valid:        valid,
		Progress: func(e nn.Epoch) {
			r.progress(Progress{Stage: StageTraining, Done: e.N, Total: e.Of, Epoch: &e})
			if cfg.Pause != nil {
				_ = cfg.Pause(r.ctx) // a cancelled ctx ends the training at the next batch
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("train: %s: %w", cfg.Rules, err)
	}
	r.rep.Epochs = epochs
	return net, nil
}

// eval evaluates net against the opponents (see evaluate), reusing the
// solved positions where they are all known.
func (r *run) eval(net *nn.Net) error {
	var best map[game.Key]game.Bitboard
	if r.rep.Enumerated && r.rep.MCTSPositions == 0 {
		best = make(map[game.Key]game.Bitboard, len(r.set.list))
		for i, p := range r.set.list {
			best[p.Key()] = r.targets[i].best
		}
	}
	var err error
	r.rep.Eval, err = evaluate(r.ctx, net, r.cfg, r.cfg.Opponents, best, func(done, total int) {
		r.progress(Progress{Stage: StageEvaluating, Done: done, Total: total})
	})
	return err
}

// Seed streams: each use of randomness draws from its own seed.
const (
	seedInit = iota + 1
	seedTrain
	seedSelfPlay
	seedTargets
	seedEval
)

// subSeed derives the seed of one stream of randomness from the run's seed.
func subSeed(seed, stream uint64) uint64 {
	return mix64(mix64(seed) ^ mix64(stream+0x2545f4914f6cdd1d))
}

// mix64 is the splitmix64 finaliser.
func mix64(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// recency returns the weight of a move of a game that finished at t: 1 for
// a game at now (or later, or of unknown time), halving every halfLife.
func recency(t, now time.Time, halfLife time.Duration) float64 {
	if t.IsZero() || !t.Before(now) {
		return 1
	}
	return math.Exp2(-float64(now.Sub(t)) / float64(halfLife))
}
