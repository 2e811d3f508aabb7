package ai

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/game"
)

// neuralNet returns an untrained network for rules notation s.
func neuralNet(t testing.TB, s string, seed uint64) *nn.Net {
	t.Helper()
	r, err := game.ParseRules(s)
	if err != nil {
		t.Fatal(err)
	}
	n, err := nn.New(nn.Arch{Rules: r.String(), Hidden: []int{16, 16}}, rand.New(rand.NewPCG(seed, 0)))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// openingNet returns a 3x3 network trained to open at best (policy) and
// at human (human head).
func openingNet(t testing.TB, best, human game.Cell) *nn.Net {
	t.Helper()
	var s nn.Sample
	s.Position = game.NewPosition(game.Classic())
	s.Policy[best], s.PolicyWeight = 1, 1
	s.Human[human], s.HumanWeight = 1, 1
	n, _, err := nn.Train(context.Background(), neuralNet(t, "3x3k3", 1), []nn.Sample{s}, nn.TrainOptions{Epochs: 200, LearningRate: 1e-2, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// neuralPosition parses a 3x3 position.
func neuralPosition(t testing.TB, s string) game.Position {
	t.Helper()
	p, err := game.ParsePosition(game.Classic(), s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestNeuralNeverIllegal(t *testing.T) {
	set := nn.NewSet()
	for i, s := range []string{"3x3k3", "4x3xox", "5x5k4"} {
		set.Put(neuralNet(t, s, uint64(i)), nn.Meta{})
	}
	reg := NewRegistry()
	reg.Register(NeuralLevel(set))
	reg.Register(HumanlikeLevel(set))
	for _, tc := range []struct {
		rules, x, o string
		depth       int
	}{
		{"3x3k3", "neural", "random", 0},
		{"3x3k3", "random", "neural", 2},
		{"4x3xox", "humanlike", "neural", 1},
		{"5x5k4", "neural", "humanlike", 0},
	} {
		t.Run(tc.rules+"/"+tc.x+"-"+tc.o, func(t *testing.T) {
			r, _ := game.ParseRules(tc.rules)
			x, err := LevelFactory(reg, tc.x, Options{Depth: tc.depth})
			if err != nil {
				t.Fatal(err)
			}
			o, err := LevelFactory(reg, tc.o, Options{Depth: tc.depth})
			if err != nil {
				t.Fatal(err)
			}
			res, err := Arena(context.Background(), ArenaConfig{Rules: r, X: x, O: o, Games: 20, Seed: 5, Workers: 2})
			if err != nil || res.Games != 20 {
				t.Fatalf("%d games, error %v", res.Games, err)
			}
		})
	}
}

func TestNeuralSearchFindsTactics(t *testing.T) {
	// An untrained network: only the search's exact scores of finished
	// games can find these moves.
	n := neuralNet(t, "3x3k3", 9)
	edges := []game.Cell{game.NewCell(0, 1), game.NewCell(1, 0), game.NewCell(1, 2), game.NewCell(2, 1)}
	for _, tc := range []struct {
		name  string
		pos   string
		depth int
		want  []game.Cell
	}{
		{"X wins", "XX-/OO-/---", 1, []game.Cell{game.NewCell(0, 2)}},
		{"O wins", "XX-/OO-/X--", 1, []game.Cell{game.NewCell(1, 2)}},
		{"O blocks", "X-O/-X-/---", 2, []game.Cell{game.NewCell(2, 2)}},
		// A corner lets X block with a fork; only an edge holds.
		{"O avoids the fork", "X--/-O-/--X", 4, edges},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := NewNeural(n, Options{Depth: tc.depth})
			if err != nil {
				t.Fatal(err)
			}
			c, err := pl.Move(context.Background(), neuralPosition(t, tc.pos))
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if c == w {
					return
				}
			}
			t.Errorf("%s depth %d: played %s, want one of %v", tc.pos, tc.depth, c, tc.want)
		})
	}
}

func TestNeuralDeadline(t *testing.T) {
	r, _ := game.ParseRules("5x5k4")
	n := neuralNet(t, "5x5k4", 1)
	pl, err := NewNeural(n, Options{Depth: 25})
	if err != nil {
		t.Fatal(err)
	}
	p := game.NewPosition(r)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	start := time.Now()
	c, err := pl.Move(ctx, p)
	if err != nil || !p.Moves().Has(c) {
		t.Fatalf("move %s, error %v", c, err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %s past a 30ms deadline", d)
	}
	if _, err := pl.Move(ctx, p); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("expired context: error %v", err)
	}
	h, _ := NewHumanlike(n, Options{})
	if _, err := h.Move(ctx, p); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("humanlike, expired context: error %v", err)
	}
}

func TestNeuralNoModel(t *testing.T) {
	set := nn.NewSet()
	p := game.NewPosition(game.Classic())
	for _, l := range []Level{NeuralLevel(set), HumanlikeLevel(set)} {
		pl, err := l.New(Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pl.Move(context.Background(), p); !errors.Is(err, ErrNoModel) || !strings.Contains(err.Error(), "3x3k3") {
			t.Errorf("%s, empty set: error %v", l.Name, err)
		}
		set.Put(neuralNet(t, "4x3xox", 1), nn.Meta{})
		_, err = pl.Move(context.Background(), p)
		if !errors.Is(err, ErrNoModel) || !strings.Contains(err.Error(), "4x3xox") {
			t.Errorf("%s: error %v; want ErrNoModel naming the rules that have a network", l.Name, err)
		}
		set = nn.NewSet()
	}
	var nilSet *nn.Set
	for _, l := range []Level{NeuralLevel(nilSet), NeuralLevel(nil), HumanlikeLevel(nilSet), HumanlikeLevel(nil)} {
		pl, err := l.New(Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pl.Move(context.Background(), p); !errors.Is(err, ErrNoModel) {
			t.Errorf("%s without models: error %v", l.Name, err)
		}
	}
	fixedPl, _ := NewNeural(neuralNet(t, "4x3xox", 1), Options{})
	if _, err := fixedPl.Move(context.Background(), p); !errors.Is(err, ErrNoModel) {
		t.Errorf("fixed network of other rules: error %v", err)
	}
	if _, err := NewNeural(nil, Options{}); !errors.Is(err, ErrBadOption) {
		t.Errorf("NewNeural(nil): error %v", err)
	}
	if _, err := NewHumanlike(nil, Options{}); !errors.Is(err, ErrBadOption) {
		t.Errorf("NewHumanlike(nil): error %v", err)
	}
	over := neuralPosition(t, "XXX/OO-/---")
	for _, pl := range []Player{fixedPl, mustHumanlike(t, neuralNet(t, "3x3k3", 1))} {
		if _, err := pl.Move(context.Background(), over); !errors.Is(err, ErrNoMoves) {
			t.Errorf("finished game: error %v", err)
		}
	}
}

// TestRegistryPlays: a network level plays exactly the rules its models
// have a network for; the other levels play every rules.
func TestRegistryPlays(t *testing.T) {
	set := nn.NewSet()
	reg := NewRegistry()
	reg.Register(NeuralLevel(set))
	reg.Register(HumanlikeLevel(set))
	set.Put(neuralNet(t, "4x3xox", 1), nn.Meta{})
	classic, xox := game.Classic(), neuralNet(t, "4x3xox", 1).Rules()
	for _, name := range []string{"neural", "Humanlike "} {
		err := reg.Plays(name, classic)
		if !errors.Is(err, ErrNoModel) || !strings.Contains(err.Error(), "4x3xox") {
			t.Errorf("%s on 3x3k3: %v; want ErrNoModel naming 4x3xox", name, err)
		}
		var nm *NoModelError
		if !errors.As(err, &nm) || !nm.Rules.Equal(classic) || !nm.Listed || !slices.Equal(nm.Have, []string{"4x3xox"}) {
			t.Errorf("%s on 3x3k3: %#v; want a *NoModelError for 3x3k3 listing 4x3xox", name, nm)
		}
		if err := reg.Plays(name, xox); err != nil {
			t.Errorf("%s on 4x3xox: %v", name, err)
		}
	}
	for _, name := range []string{"random", "easy", "minimax", "mcts", "perfect"} {
		if err := reg.Plays(name, classic); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := reg.Plays("grandmaster", classic); !errors.Is(err, ErrUnknownLevel) {
		t.Errorf("unknown level: %v; want ErrUnknownLevel", err)
	}
}

// mustHumanlike builds a Humanlike player of n.
func mustHumanlike(t testing.TB, n *nn.Net) *Humanlike {
	t.Helper()
	h, err := NewHumanlike(n, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestNeuralSwapMidGame(t *testing.T) {
	a1, c3, b2 := game.NewCell(0, 0), game.NewCell(2, 2), game.NewCell(1, 1)
	netA := openingNet(t, a1, b2)
	netB := openingNet(t, c3, b2)
	set := nn.NewSet()
	set.Put(netA, nn.Meta{Version: "A"})
	pl, err := NeuralLevel(set).New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	empty := game.NewPosition(game.Classic())
	if c, err := pl.Move(context.Background(), empty); err != nil || c != a1 {
		t.Fatalf("net A opens at %s (error %v), want %s", c, err, a1)
	}
	set.Put(netB, nn.Meta{Version: "B"})
	if c, err := pl.Move(context.Background(), empty); err != nil || c != c3 {
		t.Fatalf("after the swap: opens at %s (error %v), want %s", c, err, c3)
	}
}

func TestHumanlikeFollowsHumanHead(t *testing.T) {
	b2 := game.NewCell(1, 1)
	n := openingNet(t, game.NewCell(0, 0), b2)
	empty := game.NewPosition(game.Classic())
	var out nn.Output
	n.Evaluate(empty, &out)
	h := mustHumanlike(t, n)
	hits := 0
	for seed := range uint64(200) {
		h.Reseed(seed)
		c, err := h.Move(context.Background(), empty)
		if err != nil || !empty.Moves().Has(c) {
			t.Fatalf("move %s, error %v", c, err)
		}
		if c == b2 {
			hits++
		}
	}
	if want := out.Human[b2]; float32(hits)/200 < want-0.1 {
		t.Errorf("played b2 %d times in 200; the human head gives it %.2f", hits, want)
	}
}

func TestNeuralDeterministic(t *testing.T) {
	r := game.Classic()
	n := neuralNet(t, "3x3k3", 4)
	for _, name := range []string{"neural", "humanlike"} {
		t.Run(name, func(t *testing.T) {
			build := func(seed uint64) (Player, error) {
				if name == "neural" {
					return NewNeural(n, Options{Seed: seed, Depth: 1})
				}
				return NewHumanlike(n, Options{Seed: seed})
			}
			play := func(workers int) []game.Result {
				res, err := Arena(context.Background(), ArenaConfig{Rules: r, X: build, O: level(t, "random"), Games: 30, Seed: 11, Workers: workers})
				if err != nil {
					t.Fatal(err)
				}
				return res.Results
			}
			a, b := play(1), play(3)
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("game %d: %s with 1 worker, %s with 3", i, a[i], b[i])
				}
			}
		})
	}
	// The same seed gives the same moves; Reseed restarts the sequence.
	h1, h2 := mustHumanlike(t, n), mustHumanlike(t, n)
	p := game.NewPosition(r)
	var first []game.Cell
	for range 5 {
		c1, _ := h1.Move(context.Background(), p)
		c2, _ := h2.Move(context.Background(), p)
		if c1 != c2 {
			t.Fatalf("same seed: %s and %s", c1, c2)
		}
		first = append(first, c1)
	}
	h1.Reseed(1)
	for i := range 5 {
		if c, _ := h1.Move(context.Background(), p); c != first[i] {
			t.Fatalf("after Reseed(1), move %d is %s, want %s", i, c, first[i])
		}
	}
}

func TestNeuralMoveAllocs(t *testing.T) {
	set := nn.NewSet()
	set.Put(neuralNet(t, "3x3k3", 1), nn.Meta{})
	pl, err := NeuralLevel(set).New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := HumanlikeLevel(set).New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := neuralPosition(t, "X--/-O-/---")
	ctx := context.Background()
	for _, pl := range []Player{pl, h} {
		if a := testing.AllocsPerRun(100, func() { pl.Move(ctx, p) }); a != 0 {
			t.Errorf("%T.Move allocates %g times", pl, a)
		}
	}
}

func BenchmarkNeuralMove(b *testing.B) {
	r := game.Classic()
	set := nn.NewSet()
	n, err := nn.New(nn.DefaultArch(r), rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	set.Put(n, nn.Meta{})
	p := game.NewPosition(r).Apply(game.NewCell(1, 1))
	ctx := context.Background()
	for _, depth := range []int{0, 2} {
		b.Run("depth"+string(rune('0'+depth)), func(b *testing.B) {
			pl, err := NeuralLevel(set).New(Options{Depth: depth})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := pl.Move(ctx, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
