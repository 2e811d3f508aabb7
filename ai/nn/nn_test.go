package nn

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tttbot/ttt-bot/game"
)

// mustRules parses rules notation or fails the test.
func mustRules(t testing.TB, s string) game.Rules {
	t.Helper()
	r, err := game.ParseRules(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// mustNet builds a randomly initialised network or fails the test.
func mustNet(t testing.TB, rules string, hidden []int, seed uint64) *Net {
	t.Helper()
	n, err := New(Arch{Rules: rules, Hidden: hidden}, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatal(err)
	}
	// Random biases too, so the tests exercise them.
	rng := rand.New(rand.NewPCG(seed, 2))
	for _, l := range n.layers {
		for i := range l.out {
			n.p[l.b+i] = float32(rng.NormFloat64() * 0.1)
		}
	}
	n.derive()
	return n
}

// randomPosition plays random moves from the empty board until a random
// ply, stopping before the game ends.
func randomPosition(r game.Rules, rng *rand.Rand) game.Position {
	p := game.NewPosition(r)
	for plies := rng.IntN(r.Size()); plies > 0; plies-- {
		moves := p.Moves().Cells()
		q := p.Apply(moves[rng.IntN(len(moves))])
		if q.Over() {
			break
		}
		p = q
	}
	return p
}

// randomSamples returns n samples with distinct random positions and
// random targets: a one-hot policy, a value and a spread human
// distribution.
func randomSamples(r game.Rules, n int, seed uint64) []Sample {
	rng := rand.New(rand.NewPCG(seed, 3))
	out := make([]Sample, n)
	seen := map[game.Key]bool{}
	for i := range out {
		s := &out[i]
		for s.Position = randomPosition(r, rng); seen[s.Position.Key()]; s.Position = randomPosition(r, rng) {
		}
		seen[s.Position.Key()] = true
		moves := s.Position.Moves().Cells()
		s.Policy[moves[rng.IntN(len(moves))]] = 1
		s.PolicyWeight = 1
		s.Value = float32(rng.IntN(3) - 1)
		s.ValueWeight = 0.5 + rng.Float32()
		var sum float32
		for _, c := range moves {
			s.Human[c] = rng.Float32()
			sum += s.Human[c]
		}
		for _, c := range moves {
			s.Human[c] /= sum
		}
		s.HumanWeight = rng.Float32()
	}
	return out
}

// reference is a plain dense forward pass in float64: the full input
// vector times every weight.
func reference(n *Net, p game.Position) (z []float64) {
	x := make([]float64, 3*n.cells+1)
	own, opp := planes(p)
	for d := range n.cells {
		c := n.cell[d]
		switch {
		case own.Has(c):
			x[d] = 1
		case opp.Has(c):
			x[n.cells+d] = 1
		default:
			x[2*n.cells+d] = 1
		}
	}
	if p.ToMove() == game.X {
		x[3*n.cells] = 1
	}
	for li, l := range n.layers {
		y := make([]float64, l.out)
		for o := range l.out {
			y[o] = float64(n.p[l.b+o])
			for i := range l.in {
				y[o] += float64(n.p[l.w+i*l.out+o]) * x[i]
			}
			if li < len(n.layers)-1 {
				y[o] = math.Max(y[o], 0)
			}
		}
		x = y
	}
	return x
}

// softmaxRef is the softmax of the dense logits over the legal cells,
// indexed by game.Cell.
func softmaxRef(n *Net, z []float64, legal game.Bitboard) [MaxCells]float64 {
	var out [MaxCells]float64
	var sum float64
	for d, v := range z {
		if c := n.cell[d]; legal.Has(c) {
			out[c] = math.Exp(v)
			sum += out[c]
		}
	}
	for c := range out {
		out[c] /= sum
	}
	return out
}

func TestEvaluateMatchesReference(t *testing.T) {
	for _, tc := range []struct {
		rules  string
		hidden []int
	}{
		{"3x3k3", []int{64, 64}},
		{"4x3xox", []int{17, 9, 5}},
		{"5x5k4", []int{33}},
		{"8x8k5", []int{256, 256, 256, 256}},
		{"3x7k3", []int{1, 1}},
	} {
		t.Run(tc.rules, func(t *testing.T) {
			r := mustRules(t, tc.rules)
			n := mustNet(t, tc.rules, tc.hidden, 7)
			rng := rand.New(rand.NewPCG(1, 2))
			for range 200 {
				p := randomPosition(r, rng)
				var out Output
				n.Evaluate(p, &out)
				z := reference(n, p)
				legal := p.Moves()
				pol := softmaxRef(n, z[:n.cells], legal)
				hum := softmaxRef(n, z[n.cells:2*n.cells], legal)
				for c := range MaxCells {
					if math.Abs(float64(out.Policy[c])-pol[c]) > 1e-4 || math.Abs(float64(out.Human[c])-hum[c]) > 1e-4 {
						t.Fatalf("%s cell %d: policy %g human %g, reference %g %g", p, c, out.Policy[c], out.Human[c], pol[c], hum[c])
					}
				}
				if v := math.Tanh(z[2*n.cells]); math.Abs(float64(out.Value)-v) > 1e-4 {
					t.Fatalf("%s: value %g, reference %g", p, out.Value, v)
				}
				best, hi := game.Cell(0), math.Inf(-1)
				for d, v := range z[:n.cells] {
					if c := n.cell[d]; legal.Has(c) && v > hi {
						best, hi = c, v
					}
				}
				if got := n.Best(p); got != best && math.Abs(pol[got]-pol[best]) > 1e-5 {
					t.Fatalf("%s: Best %s, reference %s", p, got, best)
				}
			}
		})
	}
}

func TestEvaluateTerminal(t *testing.T) {
	r := game.Classic()
	xor, _ := game.NewXOX(4, 3)
	n := mustNet(t, "3x3k3", []int{8}, 1)
	nx := mustNet(t, "4x3xox", []int{8}, 1)
	for _, tc := range []struct {
		net   *Net
		rules game.Rules
		pos   string
		value float32
	}{
		{n, r, "XXX/OO-/---", -1}, // O to move, X has won
		{n, r, "XOX/XOO/OXX", 0},  // draw
		{n, r, "XX-/OOO/X--", -1}, // X to move, O has won
		// X-O-X: O made X's line X-O-X in the top row and X is to move: X won.
		{nx, xor, "XOX/---/-O-/---", 1},
	} {
		p, err := game.ParsePosition(tc.rules, tc.pos)
		if err != nil {
			t.Fatal(err)
		}
		var out Output
		tc.net.Evaluate(p, &out)
		if out.Value != tc.value || out.Policy != [MaxCells]float32{} || out.Human != [MaxCells]float32{} {
			t.Errorf("%s: value %g (want %g), policies %v %v", tc.pos, out.Value, tc.value, out.Policy, out.Human)
		}
	}
}

func TestNewRejectsBadArch(t *testing.T) {
	for _, a := range []Arch{
		{Rules: "3x3k9", Hidden: []int{8}},
		{Rules: "3x3k3"},
		{Rules: "3x3k3", Hidden: []int{8, 8, 8, 8, 8}},
		{Rules: "3x3k3", Hidden: []int{0}},
		{Rules: "3x3k3", Hidden: []int{MaxWidth + 1}},
	} {
		if _, err := New(a, rand.New(rand.NewPCG(1, 1))); err == nil {
			t.Errorf("New(%v) succeeded", a)
		}
	}
	if _, err := New(Arch{Rules: "3x3k3", Hidden: []int{8}}, nil); !errors.Is(err, ErrTrain) {
		t.Errorf("New with a nil rng: %v; want ErrTrain", err)
	}
}

// lossAndGrad returns the total loss of samples under t's weights and its
// gradient.
func lossAndGrad(t *trainer, samples []Sample) (float64, []float64) {
	g := make([]float64, t.params)
	var st stats
	for i := range samples {
		t.sample(t.work[0], &samples[i], g, 1, &st)
	}
	return st.loss, g
}

func TestGradientCheck(t *testing.T) {
	for _, tc := range []struct {
		rules  string
		hidden []int
	}{
		{"3x3k3", []int{6, 5}},
		{"4x3xox", []int{7}},
		{"4x4k4", []int{5, 4, 3}},
	} {
		t.Run(tc.rules, func(t *testing.T) {
			n := mustNet(t, tc.rules, tc.hidden, 3)
			samples := randomSamples(n.rules, 6, 4)
			tr := newTrainer(n, TrainOptions{Workers: 1})
			_, g := lossAndGrad(tr, samples)
			const eps = 1e-6
			checked := 0
			for i := range tr.w {
				w := tr.w[i]
				tr.w[i] = w + eps
				up, _ := lossAndGrad(tr, samples)
				tr.w[i] = w - eps
				down, _ := lossAndGrad(tr, samples)
				tr.w[i] = w
				num := (up - down) / (2 * eps)
				if d := math.Abs(num - g[i]); d > 1e-5*math.Max(1, math.Abs(num)) {
					t.Errorf("parameter %d: backprop %g, finite differences %g", i, g[i], num)
				}
				checked++
			}
			if checked != n.Params() {
				t.Fatalf("checked %d of %d parameters", checked, n.Params())
			}
		})
	}
}

func TestTrainMemorises(t *testing.T) {
	r := game.Classic()
	samples := randomSamples(r, 60, 9)
	n := mustNet(t, "3x3k3", []int{32, 32}, 5)
	var calls int
	got, epochs, err := Train(context.Background(), n, samples, TrainOptions{
		Epochs: 300, BatchSize: 16, LearningRate: 3e-3, Seed: 1, Valid: samples[:10],
		Progress: func(Epoch) { calls++ },
	})
	if err != nil {
		t.Fatal(err)
	}
	last := epochs[len(epochs)-1]
	if calls != 300 || len(epochs) != 300 || last.N != 300 || last.Of != 300 {
		t.Fatalf("%d progress calls, %d epochs, last %d of %d", calls, len(epochs), last.N, last.Of)
	}
	if last.ValidPolicyAcc != 1 || last.PolicyAcc != 1 {
		t.Errorf("policy accuracy %g (valid %g) after training; want 1", last.PolicyAcc, last.ValidPolicyAcc)
	}
	if last.ValueLoss > 0.05 || last.Loss >= epochs[0].Loss {
		t.Errorf("value loss %g, loss %g (first epoch %g)", last.ValueLoss, last.Loss, epochs[0].Loss)
	}
	for i, s := range samples {
		if c := got.Best(s.Position); s.Policy[c] != 1 {
			t.Errorf("sample %d %s: best %s, target %v", i, s.Position, c, s.Policy)
		}
	}
}

func TestTrainDeterministicAcrossWorkers(t *testing.T) {
	r, _ := game.NewXOX(4, 3)
	samples := randomSamples(r, 300, 2)
	n := mustNet(t, "4x3xox", []int{24, 16}, 5)
	var nets []*Net
	var stats [][]Epoch
	for _, workers := range []int{1, 3, 16, 40} {
		got, epochs, err := Train(context.Background(), n, samples, TrainOptions{Epochs: 3, BatchSize: 50, Seed: 7, Workers: workers, Valid: samples[:40]})
		if err != nil {
			t.Fatal(err)
		}
		for i := range epochs {
			epochs[i].Elapsed = 0
		}
		nets = append(nets, got)
		stats = append(stats, epochs)
	}
	for i := 1; i < len(nets); i++ {
		if !slices.Equal(nets[0].p, nets[i].p) {
			t.Errorf("run %d: weights differ from one worker's", i)
		}
		if !slices.Equal(stats[0], stats[i]) {
			t.Errorf("run %d: epochs %+v differ from one worker's %+v", i, stats[i], stats[0])
		}
	}
	if slices.Equal(nets[0].p, n.p) {
		t.Error("training changed nothing")
	}
	other, _, _ := Train(context.Background(), n, samples, TrainOptions{Epochs: 3, BatchSize: 50, Seed: 8})
	if slices.Equal(nets[0].p, other.p) {
		t.Error("another seed gave the same weights")
	}
}

func TestTrainErrors(t *testing.T) {
	r := game.Classic()
	n := mustNet(t, "3x3k3", []int{4}, 1)
	good := randomSamples(r, 4, 1)
	over, _ := game.ParsePosition(r, "XXX/OO-/---")
	xox, _ := game.NewXOX(4, 3)
	for _, tc := range []struct {
		name    string
		samples []Sample
		o       TrainOptions
	}{
		{"no samples", nil, TrainOptions{}},
		{"finished", []Sample{{Position: over}}, TrainOptions{}},
		{"other rules", []Sample{{Position: game.NewPosition(xox)}}, TrainOptions{}},
		{"no legal mass", []Sample{{Position: game.NewPosition(r), PolicyWeight: 1}}, TrainOptions{}},
		{"NaN value", []Sample{{Position: game.NewPosition(r), ValueWeight: 1, Value: float32(math.NaN())}}, TrainOptions{}},
		{"negative weight", []Sample{{Position: game.NewPosition(r), HumanWeight: -1}}, TrainOptions{}},
		{"epochs", good, TrainOptions{Epochs: -1}},
		{"workers", good, TrainOptions{Workers: -1}},
		{"learning rate", good, TrainOptions{LearningRate: math.Inf(1)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := Train(context.Background(), n, tc.samples, tc.o); !errorsIs(err, ErrTrain) {
				t.Errorf("error %v, want ErrTrain", err)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Train(ctx, n, good, TrainOptions{}); err != context.Canceled {
		t.Errorf("cancelled: error %v", err)
	}
}

// errorsIs is errors.Is, kept short for tables.
func errorsIs(err, target error) bool { return errors.Is(err, target) }

// nil2rng is a fixed random source for networks whose values do not
// matter.
func nil2rng() *rand.Rand { return rand.New(rand.NewPCG(0, 0)) }
