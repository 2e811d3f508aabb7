package ai

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
)

func TestOptionsLoad(t *testing.T) {
	tests := []struct {
		load float64
		ok   bool
	}{
		{0, true},
		{0.25, true},
		{0.5, true},
		{1, true},
		{-0.01, false},
		{-1, false},
		{1.01, false},
		{2, false},
		{math.NaN(), false},
		{math.Inf(1), false},
		{math.Inf(-1), false},
	}
	for _, tt := range tests {
		t.Run(fmtLoad(tt.load), func(t *testing.T) {
			err := Options{Load: tt.load}.check()
			if tt.ok {
				if err != nil {
					t.Fatalf("check() = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, ErrBadOption) {
				t.Fatalf("check() = %v, want ErrBadOption", err)
			}
			// The message says what is allowed.
			for _, want := range []string{"load", "from 0", "to 1"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("check() = %q, want it to mention %q", err, want)
				}
			}
			// Every built-in level refuses it through the registry.
			reg := NewRegistry()
			for _, name := range reg.Names() {
				if _, err := reg.New(name, Options{Load: tt.load}); !errors.Is(err, ErrBadOption) {
					t.Errorf("New(%s) error = %v, want ErrBadOption", name, err)
				}
			}
		})
	}
}

// fmtLoad names a load for a subtest.
func fmtLoad(l float64) string {
	return "load=" + strconv.FormatFloat(l, 'g', -1, 64)
}

func TestLoadScale(t *testing.T) {
	tests := []struct {
		load       float64
		scale      float64
		budget     time.Duration // of a 600 ms budget
		iterations int           // of a 200,000 cap
		tiny       int           // of a cap of 3
	}{
		{0, 1, 600 * time.Millisecond, 200_000, 3},
		{0.25, 0.8125, 487_500 * time.Microsecond, 162_500, 2},
		{0.5, 0.625, 375 * time.Millisecond, 125_000, 1},
		{0.75, 0.4375, 262_500 * time.Microsecond, 87_500, 1},
		{1, 0.25, 150 * time.Millisecond, 50_000, 1}, // the floor
	}
	for _, tt := range tests {
		t.Run(fmtLoad(tt.load), func(t *testing.T) {
			if got := loadScale(tt.load); math.Abs(got-tt.scale) > 1e-12 {
				t.Errorf("loadScale = %g, want %g", got, tt.scale)
			}
			if got := scaleBudget(600*time.Millisecond, tt.load); got != tt.budget {
				t.Errorf("scaleBudget(600ms) = %s, want %s", got, tt.budget)
			}
			if got := scaleIterations(200_000, tt.load); got != tt.iterations {
				t.Errorf("scaleIterations(200000) = %d, want %d", got, tt.iterations)
			}
			if got := scaleIterations(3, tt.load); got != tt.tiny {
				t.Errorf("scaleIterations(3) = %d, want %d", got, tt.tiny)
			}
			if got := scaleBudget(time.Nanosecond, tt.load); got != time.Nanosecond {
				t.Errorf("scaleBudget(1ns) = %s, want 1ns", got)
			}
		})
	}
	t.Run("longest budget", func(t *testing.T) {
		const longest = time.Duration(math.MaxInt64)
		if got := scaleBudget(longest, 0); got != longest {
			t.Errorf("scaleBudget(max, 0) = %d, want %d", got, longest)
		}
		if got := scaleBudget(longest, 1e-18); got != longest {
			t.Errorf("scaleBudget(max, 1e-18) = %d, want %d", got, longest)
		}
		if got := scaleBudget(longest, 1); got <= 0 || got > longest/4+1 {
			t.Errorf("scaleBudget(max, 1) = %d, want about %d", got, longest/4)
		}
	})
}

func TestLevelsScaleTheirBudgets(t *testing.T) {
	tests := []struct {
		name       string
		o          Options
		budget     time.Duration
		iterations int // mcts only
	}{
		{"mcts defaults", Options{}, DefaultMCTSBudget, DefaultMCTSIterations},
		{"mcts defaults at the floor", Options{Load: 1}, DefaultMCTSBudget / 4, DefaultMCTSIterations / 4},
		{"mcts configured at half load", Options{Load: 0.5, Budget: time.Second, Iterations: 1000}, 625 * time.Millisecond, 625},
		{"minimax defaults", Options{}, DefaultMinimaxBudget, 0},
		{"minimax defaults at the floor", Options{Load: 1}, DefaultMinimaxBudget / 4, 0},
		{"minimax configured at half load", Options{Load: 0.5, Budget: time.Second}, 625 * time.Millisecond, 0},
		{"perfect at the floor keeps its budget", Options{Load: 1}, DefaultPerfectBudget, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var budget time.Duration
			iterations := 0
			switch level, _, _ := strings.Cut(tt.name, " "); level {
			case "mcts":
				m := newTestMCTS(t, tt.o)
				budget, iterations = m.budget, m.iterations
			case "minimax":
				budget = newTestMinimax(t, tt.o).budget
			case "perfect":
				budget = newTestPerfect(t, tt.o).budget
			}
			if budget != tt.budget || iterations != tt.iterations {
				t.Errorf("budget %s, iterations %d; want %s, %d", budget, iterations, tt.budget, tt.iterations)
			}
		})
	}
}

func TestLevelFloors(t *testing.T) {
	// Every built-in level says what it keeps at Load 1, in one sentence.
	for _, l := range NewRegistry().Levels() {
		t.Run(l.Name, func(t *testing.T) {
			if l.Floor == "" || strings.Contains(l.Floor, ". ") {
				t.Errorf("Floor = %q, want one sentence", l.Floor)
			}
		})
	}
	for _, l := range []Level{NeuralLevel(nil), HumanlikeLevel(nil)} {
		t.Run(l.Name, func(t *testing.T) {
			if l.Floor == "" {
				t.Error("Floor is empty")
			}
		})
	}
}

// loadPositions returns n positions of r reached by random moves from the
// empty board, each after from to to moves (to included) and not over.
func loadPositions(r game.Rules, seed uint64, n, from, to int) []game.Position {
	rng := rand.New(rand.NewPCG(seed, seed))
	var out []game.Position
	for len(out) < n {
		p := game.NewPosition(r)
		plies := from + rng.IntN(to-from+1)
		for range plies {
			if p.Over() {
				break
			}
			p = p.Apply(pick(rng, p.Moves()))
		}
		if !p.Over() {
			out = append(out, p)
		}
	}
	return out
}

// TestPerfectLoadKeepsTheValue checks perfect's floor: under load, a
// fresh player each move as the bot builds them, it still only plays
// moves that keep the game-theoretic value, and below
// perfectValueOnlyLoad it still plays the fastest win or slowest loss.
func TestPerfectLoadKeepsTheValue(t *testing.T) {
	ctx := context.Background()
	type set struct {
		rules string
		ps    []game.Position
		want  []Analysis // Solve's, for each of ps
	}
	var sets []set
	var classic []game.Position
	for _, p := range reachable(rules(t, "3x3k3")) {
		if !p.Over() {
			classic = append(classic, p)
		}
	}
	if len(classic) != 4520 {
		t.Fatalf("%d unfinished 3x3 positions, want 4520", len(classic))
	}
	sets = append(sets, set{rules: "3x3k3", ps: classic})
	// On the larger boards, 30 mid-game positions in which some move
	// gives the value up (a random 4x4 position is mostly a draw that
	// every move keeps).
	for _, tt := range []struct {
		rules    string
		seed     uint64
		from, to int
	}{
		{"4x4k4", 1, 5, 8},
		{"4x3xox", 2, 3, 6},
		{"5x5k4", 3, 8, 12},
	} {
		s := set{rules: tt.rules}
		ref := NewSolver()
		for _, p := range loadPositions(rules(t, tt.rules), tt.seed, 600, tt.from, tt.to) {
			a, err := ref.Solve(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Best) < p.Moves().Count() {
				s.ps, s.want = append(s.ps, p), append(s.want, a)
			}
			if len(s.ps) == 30 {
				break
			}
		}
		if len(s.ps) < 30 {
			t.Fatalf("%s: only %d positions in which a move gives the value up", tt.rules, len(s.ps))
		}
		sets = append(sets, s)
	}
	for _, s := range sets {
		if s.want == nil {
			ref := NewSolver()
			for _, p := range s.ps {
				a, err := ref.Solve(ctx, p)
				if err != nil {
					t.Fatal(err)
				}
				s.want = append(s.want, a)
			}
		}
		want := s.want
		for _, load := range []float64{0.25, 1} {
			t.Run(s.rules+"/"+fmtLoad(load), func(t *testing.T) {
				light := 0
				for i, p := range s.ps {
					pf := newTestPerfect(t, Options{Seed: uint64(i), Budget: time.Hour, Load: load})
					c, err := pf.Move(ctx, p)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Contains(want[i].Best, c) {
						t.Fatalf("%s: plays %s; the moves that keep the value %s are %v", p, c, want[i].Value, want[i].Best)
					}
					if pf.partial+pf.inexact != 0 {
						t.Fatalf("%s: %d moves from the value alone, %d inexact, with an hour to think", p, pf.partial, pf.inexact)
					}
					light += pf.light
					if load < perfectValueOnlyLoad && !slices.Contains(fastest(p, want[i]), c) {
						t.Fatalf("%s: plays %s; the fastest wins or slowest losses are %v", p, c, fastest(p, want[i]))
					}
				}
				t.Logf("%d of %d moves from the value alone", light, len(s.ps))
				switch {
				case load < perfectValueOnlyLoad && light != 0:
					t.Errorf("%d moves from the value alone at load %g", light, load)
				case load >= perfectValueOnlyLoad && light != len(s.ps):
					t.Errorf("only %d of %d moves from the value alone at load %g", light, len(s.ps), load)
				}
			})
		}
	}
}

// loadTactic is a position in which the side to move must win at once,
// or block the opponent's single win in one.
type loadTactic struct {
	rules, pos string
	block      bool
}

var loadTactics = []loadTactic{
	{"3x3k3", "XX-/OO-/---", false},
	{"3x3k3", "X-X/-O-/O--", false},
	{"3x3k3", "XO-/XO-/---", false},
	{"3x3k3", "X--/-X-/OO-", false},
	{"3x3k3", "XX-/O--/---", true},
	{"3x3k3", "X--/OO-/X--", true},
	{"3x3k3", "O-X/-X-/---", true},
	{"4x4k3", "XX--/OO--/----/----", false},
	{"4x4k3", "X---/-X--/O---/-O--", false},
	{"4x4k3", "XO--/--O-/----/X---", true},
	{"4x4k3", "----/XX--/--O-/----", true},
	{"5x5k4", "XXX--/OOO--/-----/-----/-----", false},
	{"5x5k4", "X----/-X---/--X--/OO---/--O--", false},
	{"5x5k4", "XXX--/OO---/-----/-----/-----", true},
	{"5x5k4", "O----/-O---/--O--/-----/X-X-X", true},
	{"5x5k4", "-----/-X---/XOOO-/-X---/-----", true},
}

// checkTactic checks the test position itself, then that c wins at once
// or blocks the threat.
func checkTactic(t *testing.T, p game.Position, block bool, c game.Cell) {
	t.Helper()
	me := p.ToMove()
	mine, theirs := p.Threats(me), p.Threats(me.Other())
	switch {
	case !block && mine == 0:
		t.Fatalf("%s: bad test: %s cannot win at once", p, me)
	case block && (mine != 0 || theirs.Count() != 1):
		t.Fatalf("%s: bad test: %s wins at %s, %s at %s", p, me, mctsCells(mine), me.Other(), mctsCells(theirs))
	case !block && !mine.Has(c):
		t.Errorf("%s: plays %s, want a win at %s", p, c, mctsCells(mine))
	case block && !theirs.Has(c):
		t.Errorf("%s: plays %s, want the block at %s", p, c, mctsCells(theirs))
	}
}

// TestLoadFloorTactics checks the floors of mcts and minimax: at Load 1,
// with their default budgets, they take wins in one and block single
// threats.
func TestLoadFloorTactics(t *testing.T) {
	reg := NewRegistry()
	for _, level := range []string{"mcts", "minimax"} {
		for _, tt := range loadTactics {
			t.Run(level+"/"+tt.rules+"/"+tt.pos, func(t *testing.T) {
				p := searchPosition(t, tt.rules, tt.pos)
				for seed := range uint64(3) {
					pl, err := reg.New(level, Options{Seed: seed, Load: 1})
					if err != nil {
						t.Fatal(err)
					}
					c, err := pl.Move(context.Background(), p)
					if err != nil {
						t.Fatal(err)
					}
					checkTactic(t, p, tt.block, c)
				}
			})
		}
	}
}

// TestLoadFloorTacticsNoTime makes the floors independent of the machine's
// speed: mcts with a single iteration, and minimax with a clock past its
// deadline at every look, still win at once and block.
func TestLoadFloorTacticsNoTime(t *testing.T) {
	for _, tt := range loadTactics {
		t.Run(tt.rules+"/"+tt.pos, func(t *testing.T) {
			p := searchPosition(t, tt.rules, tt.pos)
			m := newTestMCTS(t, Options{Seed: 1, Iterations: 1, Load: 1})
			c, err := m.Move(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			checkTactic(t, p, tt.block, c)
			if it := m.Stats().Iterations; it > 1 {
				t.Errorf("mcts ran %d iterations, want at most 1", it)
			}

			mm := newTestMinimax(t, Options{Seed: 1, Load: 1})
			mm.now = fakeClock(time.Hour)
			mm.nodes = 1023 // look at the clock at the very first node
			r, err := mm.Search(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			checkTactic(t, p, tt.block, r.Move)
		})
	}
}

// TestMinimaxFloorDepth checks that minimax completes two plies of its
// deepening however little time it has (its clock is past the deadline
// at every look), on every board up to 5x5.
func TestMinimaxFloorDepth(t *testing.T) {
	for _, rs := range []string{"3x3k3", "4x3xox", "4x4k3", "4x4k4", "5x5k4", "5x5k5"} {
		t.Run(rs, func(t *testing.T) {
			r := rules(t, rs)
			ps := append([]game.Position{game.NewPosition(r)}, loadPositions(r, 4, 10, 1, 6)...)
			for _, p := range ps {
				m := newTestMinimax(t, Options{Seed: 1, Load: 1})
				m.now = fakeClock(time.Hour)
				m.nodes = 1023 // look at the clock at the very first node
				res, err := m.Search(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				proven := res.Exact || res.Score > mmProven || res.Score < -mmProven
				if res.Depth < min(2, p.Empty().Count()) && !proven {
					t.Errorf("%s: searched %d plies, want at least 2", p, res.Depth)
				}
			}
		})
	}
}

// TestSearchKeeping checks the search behind perfect's move at high load
// when the table holds no move for the position: on every unfinished
// position of the small boards, it finds a move that keeps the value.
func TestSearchKeeping(t *testing.T) {
	ctx := context.Background()
	for _, rs := range []string{"3x3k3", "4x3xox"} {
		t.Run(rs, func(t *testing.T) {
			all, step := reachable(rules(t, rs)), 1
			if rs == "4x3xox" {
				step = 7 // a spread sample of the slower X-O-X positions
			}
			ref, s := NewSolver(), NewSolver()
			s.stop = newStopper(ctx)
			n := 0
			for i := 0; i < len(all); i += step {
				p := all[i]
				if p.Over() {
					continue
				}
				a, err := ref.Solve(ctx, p)
				if err != nil {
					t.Fatal(err)
				}
				c, ok := s.searchKeeping(p, a.Value)
				if !ok || !slices.Contains(a.Best, c) {
					t.Fatalf("%s: searchKeeping = %s, %t; the moves that keep the value %s are %v", p, c, ok, a.Value, a.Best)
				}
				n++
			}
			t.Logf("%d positions", n)
		})
	}
}
