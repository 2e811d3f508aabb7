package ai

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
)

// level returns a factory for a built-in level, failing the test on error.
func level(t testing.TB, name string) Factory {
	t.Helper()
	f, err := LevelFactory(NewRegistry(), name, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func rules(t testing.TB, s string) game.Rules {
	t.Helper()
	r, err := game.ParseRules(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// fakeClock returns a clock that moves on by step at every reading.
func fakeClock(step time.Duration) func() time.Time {
	var n atomic.Int64
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return func() time.Time { return base.Add(time.Duration(n.Add(1)) * step) }
}

func TestArenaTally(t *testing.T) {
	tests := []struct {
		name    string
		rules   string
		x, o    string
		games   int
		opening bool
	}{
		{"easy vs random 3x3", "3x3k3", "easy", "random", 400, false},
		{"random vs easy 3x3", "3x3k3", "random", "easy", 400, false},
		{"random vs random 5x5k4", "5x5k4", "random", "random", 100, false},
		{"easy vs easy xox opening", "4x3xox", "easy", "easy", 100, true},
		{"one game", "3x3k3", "random", "random", 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Arena(context.Background(), ArenaConfig{
				Rules: rules(t, tt.rules), X: level(t, tt.x), O: level(t, tt.o),
				Games: tt.games, Seed: 7, RandomOpening: tt.opening,
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Games != tt.games || res.XWins+res.OWins+res.Draws != tt.games {
				t.Errorf("games %d = %d X + %d O + %d draws, want %d", res.Games, res.XWins, res.OWins, res.Draws, tt.games)
			}
			if len(res.Results) != tt.games || slices.Contains(res.Results, game.Ongoing) {
				t.Errorf("results %v: want %d finished games", res.Results, tt.games)
			}
			if res.X.Moves < tt.games || res.O.Moves < tt.games/2 || res.X.Max < res.X.Mean() {
				t.Errorf("implausible move stats X %+v O %+v", res.X, res.O)
			}
		})
	}
}

func TestArenaStrength(t *testing.T) {
	// Easy wins or blocks at once, so it must beat random by a wide margin
	// from either side.
	ctx := context.Background()
	r := rules(t, "3x3k3")
	a, err := Arena(ctx, ArenaConfig{Rules: r, X: level(t, "easy"), O: level(t, "random"), Games: 500, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if a.XWins < 3*a.OWins {
		t.Errorf("easy as X: %d wins, random as O: %d wins; want easy far ahead", a.XWins, a.OWins)
	}
	b, err := Arena(ctx, ArenaConfig{Rules: r, X: level(t, "random"), O: level(t, "easy"), Games: 500, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if b.OWins < b.XWins {
		t.Errorf("easy as O: %d wins, random as X: %d wins; want easy ahead", b.OWins, b.XWins)
	}
}

func TestArenaDeterministic(t *testing.T) {
	ctx := context.Background()
	run := func(workers int, seed uint64) ArenaResult {
		t.Helper()
		res, err := Arena(ctx, ArenaConfig{
			Rules: rules(t, "4x3xox"), X: level(t, "easy"), O: level(t, "random"),
			Games: 200, Seed: seed, Workers: workers, RandomOpening: true,
		})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	want := run(1, 42)
	for _, w := range []int{2, 3, 8, 500} {
		got := run(w, 42)
		if !slices.Equal(got.Results, want.Results) {
			t.Errorf("%d workers: results differ from 1 worker", w)
		}
		if got.XWins != want.XWins || got.OWins != want.OWins || got.Draws != want.Draws || got.X.Moves != want.X.Moves {
			t.Errorf("%d workers: tally %+v, want %+v", w, got, want)
		}
	}
	if other := run(0, 43); slices.Equal(other.Results, want.Results) {
		t.Error("seeds 42 and 43 gave identical matches")
	}
}

func TestArenaSeedsDiffer(t *testing.T) {
	seen := map[uint64]bool{}
	for seed := range uint64(4) {
		for i := range 1000 {
			x, o, op := arenaSeeds(seed, i)
			for _, s := range []uint64{x, o, op} {
				if seen[s] {
					t.Fatalf("seed %d game %d: repeated derived seed %d", seed, i, s)
				}
				seen[s] = true
			}
		}
	}
}

func TestArenaOpening(t *testing.T) {
	r := rules(t, "4x3xox")
	starts := map[game.Key]bool{}
	for _, p := range r.Openings() {
		starts[p.Key()] = true
	}
	var firsts atomic.Int64
	seen := make(chan game.Key, 100)
	spy := func(seed uint64) (Player, error) {
		inner := NewRandom(Options{Seed: seed})
		return playerFunc(func(ctx context.Context, p game.Position) (game.Cell, error) {
			if p.Ply() == 2 {
				firsts.Add(1)
				seen <- p.Key()
			}
			return inner.Move(ctx, p)
		}), nil
	}
	_, err := Arena(context.Background(), ArenaConfig{Rules: r, X: spy, O: level(t, "random"), Games: 100, Seed: 3, RandomOpening: true})
	if err != nil {
		t.Fatal(err)
	}
	close(seen)
	if firsts.Load() != 100 {
		t.Fatalf("X saw a 2-mark position in %d games, want every one of 100", firsts.Load())
	}
	distinct := map[game.Key]bool{}
	for k := range seen {
		if !starts[k] {
			t.Errorf("game started from %v, which is not an opening", k)
		}
		distinct[k] = true
	}
	if len(distinct) < 10 {
		t.Errorf("only %d distinct openings in 100 games", len(distinct))
	}
}

// playerFunc adapts a function to Player.
type playerFunc func(ctx context.Context, p game.Position) (game.Cell, error)

func (f playerFunc) Move(ctx context.Context, p game.Position) (game.Cell, error) { return f(ctx, p) }

func TestArenaBadConfig(t *testing.T) {
	r := rules(t, "3x3k3")
	rnd := level(t, "random")
	tests := []struct {
		name string
		cfg  ArenaConfig
	}{
		{"no rules", ArenaConfig{X: rnd, O: rnd, Games: 1}},
		{"no X", ArenaConfig{Rules: r, O: rnd, Games: 1}},
		{"no O", ArenaConfig{Rules: r, X: rnd, Games: 1}},
		{"no games", ArenaConfig{Rules: r, X: rnd, O: rnd}},
		{"negative games", ArenaConfig{Rules: r, X: rnd, O: rnd, Games: -3}},
		{"negative workers", ArenaConfig{Rules: r, X: rnd, O: rnd, Games: 1, Workers: -1}},
		{"opening without xox", ArenaConfig{Rules: r, X: rnd, O: rnd, Games: 1, RandomOpening: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Arena(context.Background(), tt.cfg)
			if !errors.Is(err, ErrBadOption) {
				t.Errorf("err = %v, want ErrBadOption", err)
			}
		})
	}
}

func TestLevelFactoryBad(t *testing.T) {
	if _, err := LevelFactory(NewRegistry(), "nosuch", Options{}); !errors.Is(err, ErrUnknownLevel) {
		t.Errorf("unknown level: err = %v", err)
	}
	if _, err := LevelFactory(NewRegistry(), "easy", Options{Depth: -1}); !errors.Is(err, ErrBadOption) {
		t.Errorf("bad option: err = %v", err)
	}
}

func TestArenaPlayerErrors(t *testing.T) {
	r := rules(t, "3x3k3")
	boom := errors.New("boom")
	failing := func(seed uint64) (Player, error) {
		return playerFunc(func(context.Context, game.Position) (game.Cell, error) { return 0, boom }), nil
	}
	cheat := func(seed uint64) (Player, error) {
		return playerFunc(func(ctx context.Context, p game.Position) (game.Cell, error) {
			return p.X().First(), nil // X's own first mark, or a1 on an empty board
		}), nil
	}
	unbuildable := func(seed uint64) (Player, error) { return nil, boom }
	tests := []struct {
		name string
		x, o Factory
		want error
	}{
		{"move fails", level(t, "random"), failing, boom},
		{"illegal move", level(t, "random"), cheat, game.ErrCellTaken},
		{"factory fails", unbuildable, level(t, "random"), boom},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Arena(context.Background(), ArenaConfig{Rules: r, X: tt.x, O: tt.o, Games: 50, Seed: 1})
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if res.Games != 0 {
				t.Errorf("%d games counted though every game fails", res.Games)
			}
		})
	}
}

func TestArenaCancel(t *testing.T) {
	r := rules(t, "3x3k3")
	t.Run("before start", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res, err := Arena(ctx, ArenaConfig{Rules: r, X: level(t, "random"), O: level(t, "random"), Games: 10})
		if !errors.Is(err, context.Canceled) || res.Games != 0 {
			t.Errorf("games %d, err %v; want 0 games and context.Canceled", res.Games, err)
		}
	})
	t.Run("midway", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var moves atomic.Int64
		stopper := func(seed uint64) (Player, error) {
			inner := NewRandom(Options{Seed: seed})
			return playerFunc(func(ctx context.Context, p game.Position) (game.Cell, error) {
				if moves.Add(1) == 300 {
					cancel()
				}
				return inner.Move(ctx, p)
			}), nil
		}
		res, err := Arena(ctx, ArenaConfig{Rules: r, X: stopper, O: level(t, "random"), Games: 100000, Seed: 5})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if res.Games == 0 || res.Games >= 100000 {
			t.Fatalf("%d games finished; want some but not all", res.Games)
		}
		finished := 0
		for _, g := range res.Results {
			if g != game.Ongoing {
				finished++
			}
		}
		if finished != res.Games || res.XWins+res.OWins+res.Draws != res.Games {
			t.Errorf("tally %d games, %d results, %d+%d+%d", res.Games, finished, res.XWins, res.OWins, res.Draws)
		}
	})
}

func TestArenaTiming(t *testing.T) {
	res, err := Arena(context.Background(), ArenaConfig{
		Rules: rules(t, "3x3k3"), X: level(t, "random"), O: level(t, "random"),
		Games: 10, Seed: 1, Workers: 1, Now: fakeClock(time.Millisecond),
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.X.Mean() != time.Millisecond || res.X.Max != time.Millisecond || res.O.Total != time.Duration(res.O.Moves)*time.Millisecond {
		t.Errorf("with a 1ms-per-reading clock: X %+v, O %+v", res.X, res.O)
	}
	// Two readings per move, one at the start and one at the end.
	if want := time.Duration(2*(res.X.Moves+res.O.Moves)+1) * time.Millisecond; res.Elapsed != want {
		t.Errorf("elapsed %s, want %s", res.Elapsed, want)
	}
	if gps := res.GamesPerSecond(); gps <= 0 {
		t.Errorf("games/s = %g", gps)
	}
	if (SideStats{}).Mean() != 0 || (ArenaResult{}).GamesPerSecond() != 0 {
		t.Error("empty stats should give zero rates")
	}
}

func ExampleArena() {
	r, _ := game.ParseRules("3x3k3")
	reg := NewRegistry()
	easy, _ := LevelFactory(reg, "easy", Options{})
	random, _ := LevelFactory(reg, "random", Options{})
	res, err := Arena(context.Background(), ArenaConfig{Rules: r, X: easy, O: random, Games: 1000, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d games: X %d, O %d, draws %d\n", res.Games, res.XWins, res.OWins, res.Draws)
	// Output: 1000 games: X 898, O 17, draws 85
}

func BenchmarkArena(b *testing.B) {
	r := rules(b, "3x3k3")
	cfg := ArenaConfig{Rules: r, X: level(b, "easy"), O: level(b, "random"), Games: 1000, Seed: 1}
	for b.Loop() {
		if _, err := Arena(context.Background(), cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*cfg.Games)/b.Elapsed().Seconds(), "games/s")
}

// reseedable is a random player that can be reseeded, counting builds.
type reseedable struct{ *Random }

func (r *reseedable) Reseed(seed uint64) { r.Random = NewRandom(Options{Seed: seed}) }

func TestArenaReseeder(t *testing.T) {
	var builds atomic.Int64
	reseeding := func(seed uint64) (Player, error) {
		builds.Add(1)
		return &reseedable{NewRandom(Options{Seed: seed})}, nil
	}
	plain := func(seed uint64) (Player, error) { return NewRandom(Options{Seed: seed}), nil }
	cfg := ArenaConfig{Rules: rules(t, "3x3k3"), X: reseeding, O: plain, Games: 300, Seed: 11, Workers: 3}
	got, err := Arena(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if n := builds.Load(); n < 1 || n > 3 {
		t.Errorf("a Reseeder was built %d times for 3 workers, want once per worker", n)
	}
	cfg.X = plain
	want, err := Arena(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Results, want.Results) {
		t.Error("reseeding a player gave other games than building it afresh")
	}
}
