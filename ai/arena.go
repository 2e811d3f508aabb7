package ai

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tttbot/ttt-bot/game"
)

// Factory builds a fresh player whose random choices follow seed. The
// arena calls it once per game and side, on the goroutine that plays that
// game, so a player is never shared between goroutines or games and may
// keep whatever state it likes; a player that is a Reseeder is instead
// built once per goroutine and reseeded for each game. A factory that
// needs expensive read-only data (network weights) should load it once and
// capture it.
type Factory func(seed uint64) (Player, error)

// Reseeder is implemented by players that can start a new game as if
// freshly built with a new seed, keeping state that does not change their
// moves (a transposition table, loaded weights). The arena builds such a
// player once per worker and reseeds it before each game, instead of
// building one per game.
type Reseeder interface {
	Reseed(seed uint64)
}

// LevelFactory returns a Factory that builds the named level from r with
// options o, replacing o's seed and random source with the seed it is
// given. It fails at once, not per game, if the level or options are bad.
func LevelFactory(r *Registry, name string, o Options) (Factory, error) {
	o.Rand = nil
	if _, err := r.New(name, o); err != nil {
		return nil, err
	}
	return func(seed uint64) (Player, error) {
		o := o
		o.Seed = seed
		return r.New(name, o)
	}, nil
}

// ArenaConfig describes a match for Arena: who plays, under which rules,
// how many games, and how they are seeded.
type ArenaConfig struct {
	// Rules are the rules of every game.
	Rules game.Rules
	// X builds the player of X (who moves first) for each game.
	X Factory
	// O builds the player of O for each game.
	O Factory
	// Games is the number of games to play, at least 1.
	Games int
	// Seed determines every game: game i's player seeds and opening are
	// derived from Seed and i alone, so a match replays identically
	// whatever the number of workers or the scheduling, as long as the
	// players themselves are deterministic for a seed (a player with a time
	// budget is not).
	Seed uint64
	// Workers is the number of games played at once; 0 means
	// runtime.GOMAXPROCS(0).
	Workers int
	// RandomOpening starts each game from one of Rules.Openings(), picked
	// with the game's seed. Only the X-O-X variant has openings.
	RandomOpening bool
	// Now is the clock used to time moves; nil means time.Now. It must be
	// safe for concurrent use.
	Now func() time.Time
	// Pause, if set, is called by each worker before each game; it may
	// block, to give the CPU to more urgent work, and an error from it
	// ends the match with that error.
	Pause func(ctx context.Context) error
}

// SideStats is the thinking time one side used over a match.
type SideStats struct {
	// Moves is the number of moves the side made.
	Moves int
	// Total is the time spent in the side's Move calls.
	Total time.Duration
	// Max is the longest single Move call.
	Max time.Duration
}

// Mean returns the average time per move, or 0 if there were no moves.
func (s SideStats) Mean() time.Duration {
	if s.Moves == 0 {
		return 0
	}
	return s.Total / time.Duration(s.Moves)
}

// add records one move that took d.
func (s *SideStats) add(d time.Duration) {
	s.Moves++
	s.Total += d
	s.Max = max(s.Max, d)
}

// merge adds t's moves to s.
func (s *SideStats) merge(t SideStats) {
	s.Moves += t.Moves
	s.Total += t.Total
	s.Max = max(s.Max, t.Max)
}

// ArenaResult is the tally of a match.
type ArenaResult struct {
	// Games is the number of games that finished (all of them unless the
	// match was cancelled or failed).
	Games int
	// XWins, OWins and Draws count the finished games by result.
	XWins, OWins, Draws int
	// X and O are each side's move times.
	X, O SideStats
	// Elapsed is the wall time of the match.
	Elapsed time.Duration
	// Results holds each game's result by index (one byte per game); an
	// unfinished game is game.Ongoing.
	Results []game.Result
}

// GamesPerSecond returns the rate at which games finished.
func (r ArenaResult) GamesPerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Games) / r.Elapsed.Seconds()
}

// record tallies one finished game.
func (r *ArenaResult) record(res game.Result) {
	r.Games++
	switch res {
	case game.XWins:
		r.XWins++
	case game.OWins:
		r.OWins++
	case game.Draw:
		r.Draws++
	}
}

// Arena plays cfg.Games games between cfg.X and cfg.O on cfg.Workers
// goroutines and tallies the results. It fails with ErrBadOption for a bad
// configuration. If a player fails or makes an illegal move, Arena stops
// and returns that error. If ctx is cancelled, Arena stops early and
// returns the tally of the games that finished together with ctx's error;
// a game cut short is not counted.
func Arena(ctx context.Context, cfg ArenaConfig) (ArenaResult, error) {
	openings, err := checkArena(cfg)
	if err != nil {
		return ArenaResult{}, err
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	workers := cfg.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, cfg.Games)

	inner, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	start := now()
	results := make([]game.Result, cfg.Games)
	tallies := make([]ArenaResult, workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			t := &tallies[w]
			var kept [2]Player // this worker's reseedable players, X and O
			for {
				if cfg.Pause != nil {
					if err := cfg.Pause(inner); err != nil {
						cancel(err)
						return
					}
				}
				i := int(next.Add(1) - 1)
				if i >= cfg.Games || inner.Err() != nil {
					return
				}
				res, xt, ot, err := playArenaGame(inner, cfg, openings, now, i, &kept)
				if err != nil {
					if inner.Err() == nil {
						cancel(err)
					}
					return
				}
				results[i] = res
				t.record(res)
				t.X.merge(xt)
				t.O.merge(ot)
			}
		})
	}
	wg.Wait()

	out := ArenaResult{Results: results, Elapsed: now().Sub(start)}
	for _, t := range tallies {
		out.merge(t)
	}
	if err := ctx.Err(); err != nil {
		return out, err
	}
	if err := context.Cause(inner); err != nil {
		return out, err
	}
	return out, nil
}

// checkArena checks cfg and returns the random openings the games start
// from (cfg.RandomOpening), or nil. It fails with ErrBadOption.
func checkArena(cfg ArenaConfig) ([]game.Position, error) {
	var openings []game.Position
	switch {
	case !cfg.Rules.Valid():
		return nil, fmt.Errorf("%w: arena without rules", ErrBadOption)
	case cfg.X == nil || cfg.O == nil:
		return nil, fmt.Errorf("%w: arena needs a player for X and for O", ErrBadOption)
	case cfg.Games < 1:
		return nil, fmt.Errorf("%w: %d arena games; play at least 1", ErrBadOption, cfg.Games)
	case cfg.Workers < 0:
		return nil, fmt.Errorf("%w: %d arena workers; use 1 or more, or 0 for one per core", ErrBadOption, cfg.Workers)
	case cfg.RandomOpening:
		if openings = cfg.Rules.Openings(); len(openings) == 0 {
			return nil, fmt.Errorf("%w: %s has no random opening; only the X-O-X variant has one", ErrBadOption, cfg.Rules)
		}
	}
	return openings, nil
}

// merge adds the tally t (of another worker) to r, but for its Elapsed
// and Results.
func (r *ArenaResult) merge(t ArenaResult) {
	r.Games += t.Games
	r.XWins += t.XWins
	r.OWins += t.OWins
	r.Draws += t.Draws
	r.X.merge(t.X)
	r.O.merge(t.O)
}

// playArenaGame plays game i to the end and returns its result and each
// side's move times. kept holds the worker's reseedable players.
func playArenaGame(ctx context.Context, cfg ArenaConfig, openings []game.Position, now func() time.Time, i int, kept *[2]Player) (res game.Result, xt, ot SideStats, err error) {
	xSeed, oSeed, openSeed := arenaSeeds(cfg.Seed, i)
	p := game.NewPosition(cfg.Rules)
	if len(openings) > 0 {
		p = openings[rand.New(rand.NewPCG(openSeed, 0)).IntN(len(openings))]
	}
	px, err := arenaPlayer(cfg.X, xSeed, &kept[0])
	if err != nil {
		return 0, xt, ot, fmt.Errorf("ai: arena game %d: building X: %w", i, err)
	}
	po, err := arenaPlayer(cfg.O, oSeed, &kept[1])
	if err != nil {
		return 0, xt, ot, fmt.Errorf("ai: arena game %d: building O: %w", i, err)
	}
	for !p.Over() {
		side, pl, st := p.ToMove(), px, &xt
		if side == game.O {
			pl, st = po, &ot
		}
		t0 := now()
		c, err := pl.Move(ctx, p)
		d := now().Sub(t0)
		if err != nil {
			return 0, xt, ot, fmt.Errorf("ai: arena game %d: %s in %s: %w", i, side, p, err)
		}
		if err := ctx.Err(); err != nil {
			return 0, xt, ot, err
		}
		q, err := p.Play(c)
		if err != nil {
			return 0, xt, ot, fmt.Errorf("ai: arena game %d: %s played %s (%s) in %s: %w", i, side, c, c.RowCol(), p, err)
		}
		st.add(d)
		p = q
	}
	return p.Outcome().Result, xt, ot, nil
}

// arenaPlayer returns a player for one game seeded with seed: the kept
// player reseeded if there is one, else a new one from f, kept if it is a
// Reseeder.
func arenaPlayer(f Factory, seed uint64, kept *Player) (Player, error) {
	if r, ok := (*kept).(Reseeder); ok {
		r.Reseed(seed)
		return *kept, nil
	}
	p, err := f(seed)
	if err != nil {
		return nil, err
	}
	if _, ok := p.(Reseeder); ok {
		*kept = p
	}
	return p, nil
}

// arenaSeeds derives game i's seeds for X, O and the opening from the
// match seed, with the splitmix64 mixer so nearby inputs give unrelated
// seeds.
func arenaSeeds(seed uint64, i int) (x, o, opening uint64) {
	s := mix64(seed) ^ mix64(uint64(i)+0x632be59bd9b4e019)
	return mix64(s + 1), mix64(s + 2), mix64(s + 3)
}

// mix64 is the splitmix64 finaliser.
func mix64(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
