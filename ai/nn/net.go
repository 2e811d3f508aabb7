package nn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/tttbot/ttt-bot/game"
)

// Size limits of the networks.
const (
	// MaxCells is the number of entries of a move distribution: boards
	// are at most 8x8 and outputs are indexed by game.Cell (row*8 + col).
	MaxCells = 64
	// MaxWidth is the widest hidden layer.
	MaxWidth = 256
	// MaxLayers is the deepest body.
	MaxLayers = 4
)

// maxInputs is the number of inputs of the largest board.
const maxInputs = 3*MaxCells + 1

// Sentinel errors. Every error of the package wraps one of them.
var (
	// ErrCorrupt reports a weights file that cannot be read: truncated,
	// a bad header, bad offsets, a checksum mismatch, non-finite values.
	ErrCorrupt = errors.New("nn: corrupt weights")
	// ErrMismatch reports weights that do not fit: other rules, or tensor
	// shapes that do not match the architecture.
	ErrMismatch = errors.New("nn: weights do not match")
	// ErrArch reports an architecture the package does not build.
	ErrArch = errors.New("nn: bad architecture")
)

// Arch is a network's shape: the rules it plays and its body widths.
type Arch struct {
	// Rules is the rules notation, as game.ParseRules reads it ("3x3k3",
	// "4x3xox").
	Rules string `json:"rules"`
	// Hidden are the widths of the body layers, 1 to MaxLayers layers of
	// 1 to MaxWidth units each.
	Hidden []int `json:"hidden"`
}

// DefaultArch returns the architecture trained for r when none is given:
// two hidden layers of 96 units for 3x3 boards (enough to learn an optimal
// move in every one of the 4,520 unfinished positions, and about 5
// microseconds an evaluation), 128 units up to 25 cells and 256 above.
func DefaultArch(r game.Rules) Arch {
	w := 256
	switch n := r.Size(); {
	case n <= 9:
		w = 96
	case n <= 25:
		w = 128
	}
	return Arch{Rules: r.String(), Hidden: []int{w, w}}
}

// check validates a and returns its rules.
func (a Arch) check() (game.Rules, error) {
	r, err := game.ParseRules(a.Rules)
	if err != nil {
		return game.Rules{}, fmt.Errorf("%w: rules %q: %w", ErrArch, a.Rules, err)
	}
	if len(a.Hidden) < 1 || len(a.Hidden) > MaxLayers {
		return game.Rules{}, fmt.Errorf("%w: %d hidden layers; use 1 to %d", ErrArch, len(a.Hidden), MaxLayers)
	}
	for i, h := range a.Hidden {
		if h < 1 || h > MaxWidth {
			return game.Rules{}, fmt.Errorf("%w: hidden layer %d has %d units; use 1 to %d", ErrArch, i, h, MaxWidth)
		}
	}
	return r, nil
}

// layer locates one dense layer in a flat parameter vector. Weights are
// stored input-major (w[i*out + o] links input i to output o) so the
// forward pass can skip inputs that are zero; the bias follows.
type layer struct {
	in, out int
	w, b    int // offsets of the weights and of the bias
}

// shape is everything about a network but its parameter values.
type shape struct {
	arch   Arch
	rules  game.Rules
	cells  int                 // rows*cols
	layers []layer             // body layers, then the head layer
	params int                 // total number of parameters
	cell   [MaxCells]game.Cell // dense index -> game.Cell
	dense  [MaxCells]int       // game.Cell -> dense index
}

// newShape lays out the parameters of a. The head is one layer with
// 2*cells+1 outputs: policy logits, human logits, value.
func newShape(a Arch) (*shape, error) {
	r, err := a.check()
	if err != nil {
		return nil, err
	}
	s := &shape{arch: Arch{Rules: r.String(), Hidden: slices.Clone(a.Hidden)}, rules: r, cells: r.Size()}
	for row := range r.Rows() {
		for col := range r.Cols() {
			s.cell[row*r.Cols()+col] = game.NewCell(row, col)
			s.dense[game.NewCell(row, col)] = row*r.Cols() + col
		}
	}
	in := 3*s.cells + 1
	for _, h := range append(slices.Clone(a.Hidden), 2*s.cells+1) {
		l := layer{in: in, out: h, w: s.params, b: s.params + in*h}
		s.params = l.b + h
		s.layers = append(s.layers, l)
		in = h
	}
	return s, nil
}

// head returns the head layer.
func (s *shape) head() layer { return s.layers[len(s.layers)-1] }

// Net is a trained (or freshly initialised) network. It is immutable and
// safe for concurrent use.
type Net struct {
	*shape
	p []float32 // parameters, laid out by shape

	// The first layer, rewritten for the forward pass (see derive).
	empty []float32 // its output on the empty board, before ReLU
	marks []float32 // per own-mark then opponent-mark input: the change from empty
}

// newNet returns the network of shape s with parameters p.
func newNet(s *shape, p []float32) *Net {
	n := &Net{shape: s, p: p}
	n.derive()
	return n
}

// derive computes the first layer's tables. Every cell has exactly one of
// its three inputs on, so the first layer's output is its output on the
// empty board plus, for each mark, the difference between the mark's
// weights and the empty cell's: the forward pass then costs one row per
// mark instead of one per cell.
func (n *Net) derive() {
	l := n.layers[0]
	row := func(i int) []float32 { return n.p[l.w+i*l.out : l.w+(i+1)*l.out] }
	n.empty = slices.Clone(n.p[l.b : l.b+l.out])
	n.marks = make([]float32, 2*n.cells*l.out)
	for d := range n.cells {
		e := row(2*n.cells + d)
		add(n.empty, e)
		for plane := range 2 {
			dst, src := n.marks[(plane*n.cells+d)*l.out:], row(plane*n.cells+d)
			for o := range l.out {
				dst[o] = src[o] - e[o]
			}
		}
	}
}

// New returns a network of architecture a with He-initialised weights
// drawn from rng and zero biases. It fails with ErrArch for a bad
// architecture, and with ErrTrain for a nil rng.
func New(a Arch, rng *rand.Rand) (*Net, error) {
	if rng == nil {
		return nil, fmt.Errorf("%w: no random source for the initial weights", ErrTrain)
	}
	s, err := newShape(a)
	if err != nil {
		return nil, err
	}
	p := make([]float32, s.params)
	for li, l := range s.layers {
		// A one-hot input layer has about cells+1 active inputs.
		fan := float64(l.in)
		if li == 0 {
			fan = float64(s.cells + 1)
		}
		std := math.Sqrt(2 / fan)
		if li == len(s.layers)-1 {
			std = math.Sqrt(1 / fan)
		}
		for i := range l.in * l.out {
			p[l.w+i] = float32(rng.NormFloat64() * std)
		}
	}
	return newNet(s, p), nil
}

// Arch returns the network's architecture, with the rules in canonical
// notation.
func (n *Net) Arch() Arch {
	return Arch{Rules: n.arch.Rules, Hidden: slices.Clone(n.arch.Hidden)}
}

// Rules returns the rules the network plays.
func (n *Net) Rules() game.Rules { return n.rules }

// Params returns the number of parameters (weights and biases).
func (n *Net) Params() int { return n.params }
