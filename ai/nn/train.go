package nn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/tttbot/ttt-bot/game"
)

// ErrTrain reports training input that cannot be used: no samples, a
// sample of other rules or of a finished game, bad targets or options.
var ErrTrain = errors.New("nn: bad training input")

// Sample is one training position and its targets. Each head trains on a
// sample only when its weight is positive; the weights scale the sample's
// share of that head's loss.
type Sample struct {
	// Position is the position; the game must not be over.
	Position game.Position
	// Policy is the target distribution over legal cells (summing to 1),
	// indexed by game.Cell, when PolicyWeight > 0.
	Policy [MaxCells]float32
	// PolicyWeight weighs the policy loss.
	PolicyWeight float32
	// Value is the target for the side to move, in [-1, 1], when
	// ValueWeight > 0.
	Value float32
	// ValueWeight weighs the value loss.
	ValueWeight float32
	// Human is the target distribution of human moves, indexed by
	// game.Cell, when HumanWeight > 0.
	Human [MaxCells]float32
	// HumanWeight weighs the human loss.
	HumanWeight float32
}

// TrainOptions tune Train. The zero value asks for every default.
type TrainOptions struct {
	// Epochs is the number of passes over the samples; 0 means 100.
	Epochs int
	// BatchSize is the number of samples per update; 0 means 256.
	BatchSize int
	// LearningRate is Adam's initial step size; 0 means 1e-3. It decays
	// along a cosine to a twentieth of itself by the last batch.
	LearningRate float64
	// WeightDecay is the L2 penalty on weights (not biases), added to
	// their gradients; 0 means 1e-4, a negative value means none.
	WeightDecay float64
	// Seed determines the shuffling, the only randomness of training.
	Seed uint64
	// Workers is the number of goroutines computing gradients; 0 means
	// GOMAXPROCS, and at most 16 are used. The result does not depend on
	// it: every batch is split into the same 16 shards, whose gradients
	// are summed in order.
	Workers int
	// Valid is an optional held-out set, measured after every epoch.
	Valid []Sample
	// Progress, if set, is called after every epoch, from the goroutine
	// that called Train.
	Progress func(Epoch)
}

// Epoch is the record of one pass over the training samples.
type Epoch struct {
	// N is the epoch's number, from 1, of Of.
	N, Of int
	// Loss is the mean total loss per sample; PolicyLoss, ValueLoss and
	// HumanLoss are the weighted means of each head's loss (cross-entropy,
	// squared error, cross-entropy) over the samples that train it, as
	// measured during the epoch (0 when none does).
	Loss, PolicyLoss, ValueLoss, HumanLoss float64
	// PolicyAcc is the weighted share of policy samples whose highest
	// legal policy move has a positive target probability, as measured
	// during the epoch; -1 when no sample trains the policy.
	PolicyAcc float64
	// HumanAcc is the weighted share of human samples whose highest legal
	// human move is the target's most likely move (the lowest cell among
	// equals); -1 when no sample trains the human head.
	HumanAcc float64
	// ValidPolicyAcc and ValidHumanAcc are the same shares on
	// TrainOptions.Valid with the weights at the end of the epoch; -1 when
	// it has no such samples. (Not NaN, so that an Epoch encodes as JSON.)
	ValidPolicyAcc, ValidHumanAcc float64
	// Elapsed is the time the epoch took.
	Elapsed time.Duration
}

// Training constants.
const (
	// shards is the number of parts of every batch whose gradients are
	// computed independently and summed in order, whatever the number of
	// workers, so that training is deterministic.
	shards = 16
	// Adam's moment decay rates and denominator guard.
	beta1, beta2, adamEps = 0.9, 0.999, 1e-8
	// minLRShare is the share of the learning rate left at the end of the
	// cosine decay.
	minLRShare = 0.05
)

// Train trains a copy of init on samples and returns the new network and
// the record of every epoch. init is not changed. Training keeps float64
// weights, minimises the weighted losses of the three heads (policy and
// human: cross-entropy against the target over the legal moves; value:
// squared error of the tanh output) plus the L2 penalty, with Adam on
// minibatches shuffled by o.Seed. It is deterministic for given inputs
// whatever o.Workers is. It checks ctx between batches and returns ctx's
// error (and no network) if it is done. Bad input fails with ErrTrain.
func Train(ctx context.Context, init *Net, samples []Sample, o TrainOptions) (*Net, []Epoch, error) {
	if init == nil {
		return nil, nil, fmt.Errorf("%w: no initial network", ErrTrain)
	}
	if err := o.defaults(); err != nil {
		return nil, nil, err
	}
	if len(samples) == 0 {
		return nil, nil, fmt.Errorf("%w: no samples", ErrTrain)
	}
	for i := range samples {
		if err := init.checkSample(&samples[i]); err != nil {
			return nil, nil, fmt.Errorf("%w: sample %d: %w", ErrTrain, i, err)
		}
	}
	for i := range o.Valid {
		if err := init.checkSample(&o.Valid[i]); err != nil {
			return nil, nil, fmt.Errorf("%w: validation sample %d: %w", ErrTrain, i, err)
		}
	}

	t := newTrainer(init, o)
	order := make([]int, len(samples))
	for i := range order {
		order[i] = i
	}
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x5851f42d4c957f2d))
	batches := (len(samples) + o.BatchSize - 1) / o.BatchSize
	total := o.Epochs * batches
	epochs := make([]Epoch, 0, o.Epochs)
	var step int
	for e := range o.Epochs {
		start := time.Now()
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		var sum stats
		for b := 0; b < len(order); b += o.BatchSize {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
			batch := order[b:min(b+o.BatchSize, len(order))]
			progress := float64(step) / float64(max(total-1, 1))
			lr := o.LearningRate * (minLRShare + float64((1-minLRShare)*0.5*(1+math.Cos(float64(math.Pi*progress)))))
			sum.add(t.step(samples, batch, lr))
			step++
		}
		ep := sum.epoch(len(samples))
		ep.N, ep.Of = e+1, o.Epochs
		ep.ValidPolicyAcc, ep.ValidHumanAcc = -1, -1
		if len(o.Valid) > 0 {
			v := t.net().measure(o.Valid, t.workers)
			ep.ValidPolicyAcc, ep.ValidHumanAcc = v.policyAcc(), v.humanAcc()
		}
		ep.Elapsed = time.Since(start)
		epochs = append(epochs, ep)
		if o.Progress != nil {
			o.Progress(ep)
		}
	}
	return t.net(), epochs, nil
}

// defaults fills in o's zero fields and checks the rest.
func (o *TrainOptions) defaults() error {
	switch {
	case o.Epochs < 0:
		return fmt.Errorf("%w: %d epochs; use 1 or more, or 0 for 100", ErrTrain, o.Epochs)
	case o.BatchSize < 0:
		return fmt.Errorf("%w: batch size %d; use 1 or more, or 0 for 256", ErrTrain, o.BatchSize)
	case o.LearningRate < 0 || math.IsNaN(o.LearningRate) || math.IsInf(o.LearningRate, 0):
		return fmt.Errorf("%w: learning rate %g; use a positive number, or 0 for 1e-3", ErrTrain, o.LearningRate)
	case math.IsNaN(o.WeightDecay) || math.IsInf(o.WeightDecay, 0):
		return fmt.Errorf("%w: weight decay %g; use a finite number (0 for 1e-4, negative for none)", ErrTrain, o.WeightDecay)
	case o.Workers < 0:
		return fmt.Errorf("%w: %d workers; use 1 or more, or 0 for one per core", ErrTrain, o.Workers)
	}
	if o.Epochs == 0 {
		o.Epochs = 100
	}
	if o.BatchSize == 0 {
		o.BatchSize = 256
	}
	if o.LearningRate == 0 {
		o.LearningRate = 1e-3
	}
	switch {
	case o.WeightDecay == 0:
		o.WeightDecay = 1e-4
	case o.WeightDecay < 0:
		o.WeightDecay = 0
	}
	if o.Workers == 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	o.Workers = min(o.Workers, shards)
	return nil
}

// checkSample reports what is wrong with s for training n, if anything.
func (n *Net) checkSample(s *Sample) error {
	p := s.Position
	if !p.Rules().Equal(n.rules) {
		return fmt.Errorf("position under %s; the network plays %s", p.Rules(), n.rules)
	}
	if p.Over() {
		return fmt.Errorf("position %s is finished; only positions with moves train", p)
	}
	legal := p.Moves()
	for _, h := range []struct {
		name   string
		weight float32
		target *[MaxCells]float32
	}{{"policy", s.PolicyWeight, &s.Policy}, {"human", s.HumanWeight, &s.Human}} {
		if !finite(h.weight) || h.weight < 0 {
			return fmt.Errorf("%s weight %g; weights must be finite and 0 or more", h.name, h.weight)
		}
		if h.weight == 0 {
			continue
		}
		var mass float32
		for c, v := range h.target {
			if !finite(v) || v < 0 {
				return fmt.Errorf("%s target %g at cell %d; probabilities must be finite and 0 or more", h.name, v, c)
			}
			if legal.Has(game.Cell(c)) {
				mass += v
			}
		}
		if mass <= 0 {
			return fmt.Errorf("%s target of %s puts nothing on a legal move", h.name, p)
		}
	}
	if !finite(s.ValueWeight) || s.ValueWeight < 0 {
		return fmt.Errorf("value weight %g; weights must be finite and 0 or more", s.ValueWeight)
	}
	if s.ValueWeight > 0 && (!finite(s.Value) || s.Value < -1 || s.Value > 1) {
		return fmt.Errorf("value target %g; it must be from -1 to 1", s.Value)
	}
	return nil
}

// finite reports whether v is neither NaN nor infinite.
func finite(v float32) bool {
	return !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0)
}

// stats are sums over samples: losses and accuracies weighted by the
// heads' sample weights, and the weights themselves.
type stats struct {
	loss                  float64
	policy, value, human  float64 // weighted losses
	pw, vw, hw            float64 // sums of weights
	policyHits, humanHits float64 // weighted hits
}

// add adds u to s.
func (s *stats) add(u stats) {
	s.loss += u.loss
	s.policy += u.policy
	s.value += u.value
	s.human += u.human
	s.pw += u.pw
	s.vw += u.vw
	s.hw += u.hw
	s.policyHits += u.policyHits
	s.humanHits += u.humanHits
}

// epoch turns the sums over n samples into an Epoch's losses and
// accuracies.
func (s stats) epoch(n int) Epoch {
	return Epoch{
		Loss:       s.loss / float64(n),
		PolicyLoss: ratio(s.policy, s.pw, 0),
		ValueLoss:  ratio(s.value, s.vw, 0),
		HumanLoss:  ratio(s.human, s.hw, 0),
		PolicyAcc:  s.policyAcc(),
		HumanAcc:   s.humanAcc(),
	}
}

func (s stats) policyAcc() float64 { return ratio(s.policyHits, s.pw, -1) }
func (s stats) humanAcc() float64  { return ratio(s.humanHits, s.hw, -1) }

// ratio returns a/b, or none when b is 0.
func ratio(a, b, none float64) float64 {
	if b == 0 {
		return none
	}
	return a / b
}

// trainer holds the float64 master weights, Adam's moments and the
// per-shard gradients.
type trainer struct {
	*shape
	w, m, v []float64
	decay   []bool // per parameter: a weight, under L2
	grads   [shards][]float64
	stats   [shards]stats
	work    []*work // one per worker
	workers int
	wd      float64
	t       int // Adam steps taken
}

// work is one worker's scratch space for a sample's forward and backward
// passes.
type work struct {
	act    [][]float64 // post-ReLU output of each body layer
	z, dz  []float64   // head outputs and their gradients
	d0, d1 []float64   // gradients flowing back through the body
	in     []int       // active inputs
}

// newTrainer copies n's weights into a trainer.
func newTrainer(n *Net, o TrainOptions) *trainer {
	t := &trainer{shape: n.shape, workers: o.Workers, wd: o.WeightDecay}
	t.w = make([]float64, n.params)
	for i, v := range n.p {
		t.w[i] = float64(v)
	}
	t.m = make([]float64, n.params)
	t.v = make([]float64, n.params)
	t.decay = make([]bool, n.params)
	for _, l := range n.layers {
		for i := l.w; i < l.b; i++ {
			t.decay[i] = true
		}
	}
	for s := range t.grads {
		t.grads[s] = make([]float64, n.params)
	}
	for range t.workers {
		w := &work{
			z:  make([]float64, 2*n.cells+1),
			dz: make([]float64, 2*n.cells+1),
			d0: make([]float64, MaxWidth),
			d1: make([]float64, MaxWidth),
			in: make([]int, 0, MaxCells+1),
		}
		for _, l := range n.layers[:len(n.layers)-1] {
			w.act = append(w.act, make([]float64, l.out))
		}
		t.work = append(t.work, w)
	}
	return t
}

// net returns the current weights as a Net.
func (t *trainer) net() *Net {
	p := make([]float32, t.params)
	for i, v := range t.w {
		p[i] = float32(v)
	}
	return newNet(t.shape, p)
}

// parallel runs f(worker, i) for i in [0, n) on t's workers.
func (t *trainer) parallel(n int, f func(w *work, i int)) {
	if t.workers == 1 {
		for i := range n {
			f(t.work[0], i)
		}
		return
	}
	var wg sync.WaitGroup
	for k := range t.workers {
		wg.Go(func() {
			for i := k; i < n; i += t.workers {
				f(t.work[k], i)
			}
		})
	}
	wg.Wait()
}

// step takes one Adam step on the samples of batch at learning rate lr
// and returns the batch's loss and accuracy sums (before the step).
func (t *trainer) step(samples []Sample, batch []int, lr float64) stats {
	scale := 1 / float64(len(batch))
	t.parallel(shards, func(w *work, s int) {
		g := t.grads[s]
		clear(g)
		t.stats[s] = stats{}
		for _, i := range batch[s*len(batch)/shards : (s+1)*len(batch)/shards] {
			t.sample(w, &samples[i], g, scale, &t.stats[s])
		}
	})
	var sum stats
	for s := range shards {
		sum.add(t.stats[s])
	}

	t.t++
	c1 := 1 - math.Pow(beta1, float64(t.t))
	c2 := 1 - math.Pow(beta2, float64(t.t))
	step := lr / c1
	const chunk = 4096
	t.parallel((t.params+chunk-1)/chunk, func(_ *work, k int) {
		lo, hi := k*chunk, min((k+1)*chunk, t.params)
		for i := lo; i < hi; i++ {
			g := 0.0
			for s := range shards {
				g += t.grads[s][i]
			}
			if t.decay[i] {
				g += float64(t.wd * t.w[i])
			}
			m := float64(beta1*t.m[i]) + float64((1-beta1)*g)
			v := float64(beta2*t.v[i]) + float64((1-beta2)*g*g)
			t.m[i], t.v[i] = m, v
			t.w[i] -= float64(step*m) / (math.Sqrt(v/c2) + adamEps)
		}
	})
	return sum
}

// sample adds the gradient of s's loss, times scale, to g, and its loss
// and accuracy to st.
func (t *trainer) sample(wk *work, s *Sample, g []float64, scale float64, st *stats) {
	t.forward(wk, s.Position)
	t.losses(wk, s, scale, st)
	t.backward(wk, g)
}

// forward runs the network on p, keeping in wk the active inputs, the
// activations of the hidden layers and the head's outputs (wk.z).
func (t *trainer) forward(wk *work, p game.Position) {
	own, opp := planes(p)
	w := t.w
	wk.in = wk.in[:0]
	for d := range t.cells {
		wk.in = append(wk.in, t.input(d, own, opp))
	}
	if p.ToMove() == game.X {
		wk.in = append(wk.in, 3*t.cells)
	}
	l := t.layers[0]
	h := wk.act[0]
	copy(h, w[l.b:l.b+l.out])
	for _, i := range wk.in {
		add64(h, w[l.w+i*l.out:l.w+(i+1)*l.out])
	}
	relu64(h)
	last := len(t.layers) - 1
	for li := 1; li <= last; li++ {
		l := t.layers[li]
		x := wk.act[li-1]
		y := wk.z
		if li < last {
			y = wk.act[li]
		}
		copy(y, w[l.b:l.b+l.out])
		for i, v := range x {
			if v != 0 {
				axpy64(v, w[l.w+i*l.out:l.w+(i+1)*l.out], y)
			}
		}
		if li < last {
			relu64(y)
		}
	}
}

// losses adds to st the losses of s at the head's outputs that forward
// left in wk, and sets wk.dz to their gradients there, times scale.
func (t *trainer) losses(wk *work, s *Sample, scale float64, st *stats) {
	legal := s.Position.Moves()
	z, dz := wk.z, wk.dz
	clear(dz)
	var loss float64
	if pw := float64(s.PolicyWeight); pw > 0 {
		ce, hit := t.crossEntropy(z[:t.cells], dz[:t.cells], &s.Policy, legal, pw*scale, false)
		st.policy += float64(pw * ce)
		st.pw += pw
		st.policyHits += float64(pw * hit)
		loss += float64(pw * ce)
	}
	if hw := float64(s.HumanWeight); hw > 0 {
		ce, hit := t.crossEntropy(z[t.cells:2*t.cells], dz[t.cells:2*t.cells], &s.Human, legal, hw*scale, true)
		st.human += float64(hw * ce)
		st.hw += hw
		st.humanHits += float64(hw * hit)
		loss += float64(hw * ce)
	}
	if vw := float64(s.ValueWeight); vw > 0 {
		v := math.Tanh(z[2*t.cells])
		e := v - float64(s.Value)
		st.value += float64(vw * e * e)
		st.vw += vw
		loss += float64(vw * e * e)
		dz[2*t.cells] = vw * scale * 2 * e * (1 - float64(v*v))
	}
	st.loss += loss
}

// backward adds to g the gradients of the weights, back from wk.dz
// through the head and the body, with the activations forward left in
// wk.
func (t *trainer) backward(wk *work, g []float64) {
	w := t.w
	last := len(t.layers) - 1
	// delta is the gradient at the current layer's outputs (before its
	// activation).
	delta := wk.dz
	next, spare := wk.d0, wk.d1
	for li := last; li >= 1; li-- {
		l := t.layers[li]
		x := wk.act[li-1]
		add64(g[l.b:l.b+l.out], delta)
		nd := next[:l.in]
		for i, v := range x {
			if v == 0 {
				nd[i] = 0 // ReLU was off: no gradient flows back
				continue
			}
			row := l.w + i*l.out
			nd[i] = backRow(w[row:row+l.out], delta, g[row:row+l.out], v)
		}
		delta = nd
		next, spare = spare, next
	}
	l := t.layers[0]
	add64(g[l.b:l.b+l.out], delta)
	for _, i := range wk.in {
		add64(g[l.w+i*l.out:l.w+(i+1)*l.out], delta)
	}
}

// crossEntropy computes the softmax of the logits z over the legal cells,
// its cross-entropy with target and, into dz, the gradient of the
// cross-entropy times scale. hit is 1 if the most likely legal move has a
// positive target (exact: is the target's most likely move), else 0.
func (s *shape) crossEntropy(z, dz []float64, target *[MaxCells]float32, legal game.Bitboard, scale float64, exact bool) (ce, hit float64) {
	hi, arg, targ, tmax := math.Inf(-1), -1, -1, float32(-1)
	for d, v := range z {
		c := s.cell[d]
		if !legal.Has(c) {
			continue
		}
		if v > hi {
			hi, arg = v, d
		}
		if target[c] > tmax {
			targ, tmax = d, target[c]
		}
	}
	var sum, mass float64
	for d, v := range z {
		if c := s.cell[d]; legal.Has(c) {
			sum += math.Exp(v - hi)
			mass += float64(target[c])
		}
	}
	logSum := math.Log(sum)
	for d, v := range z {
		c := s.cell[d]
		if !legal.Has(c) {
			continue
		}
		logp := v - hi - logSum
		t := float64(target[c])
		if t > 0 {
			ce -= float64(t * logp)
		}
		dz[d] = scale * (float64(math.Exp(logp)*mass) - t)
	}
	if (exact && arg == targ) || (!exact && target[s.cell[arg]] > 0) {
		hit = 1
	}
	return ce, hit
}

// measure returns the weighted policy and human accuracies of n on
// samples, computed in a fixed number of chunks summed in order so the
// result does not depend on workers.
func (n *Net) measure(samples []Sample, workers int) stats {
	var part [shards]stats
	var wg sync.WaitGroup
	for k := range min(workers, shards) {
		wg.Go(func() {
			for s := k; s < shards; s += workers {
				for i := s * len(samples) / shards; i < (s+1)*len(samples)/shards; i++ {
					n.score(&samples[i], &part[s])
				}
			}
		})
	}
	wg.Wait()
	var sum stats
	for _, p := range part {
		sum.add(p)
	}
	return sum
}

// score adds s's weighted policy and human hits to st.
func (n *Net) score(s *Sample, st *stats) {
	legal := s.Position.Moves()
	var z [2*MaxCells + 1]float32
	n.forward(s.Position, &z, 2*n.cells)
	argmax := func(z []float32, target *[MaxCells]float32) (arg, targ game.Cell) {
		hi, tmax := float32(math.Inf(-1)), float32(-1)
		for d, v := range z {
			c := n.cell[d]
			if !legal.Has(c) {
				continue
			}
			if v > hi {
				hi, arg = v, c
			}
			if target[c] > tmax {
				targ, tmax = c, target[c]
			}
		}
		return arg, targ
	}
	if w := float64(s.PolicyWeight); w > 0 {
		st.pw += w
		if arg, _ := argmax(z[:n.cells], &s.Policy); s.Policy[arg] > 0 {
			st.policyHits += w
		}
	}
	if w := float64(s.HumanWeight); w > 0 {
		st.hw += w
		if arg, targ := argmax(z[n.cells:2*n.cells], &s.Human); arg == targ {
			st.humanHits += w
		}
	}
}

// The float64 helpers below and the training arithmetic write
// float64(a*b) where a product is added: the explicit conversion forbids
// the compiler to fuse it into an FMA (as it does on arm64, not amd64).
// Trained weights are the same bits for the same inputs on one platform;
// across architectures math.Exp and friends may still differ in the last
// bit.

// add64 adds x to y.
func add64(y, x []float64) {
	x = x[:len(y)]
	i := 0
	for ; i+4 <= len(y); i += 4 {
		xs, ys := x[i:i+4:i+4], y[i:i+4:i+4]
		ys[0] += xs[0]
		ys[1] += xs[1]
		ys[2] += xs[2]
		ys[3] += xs[3]
	}
	for ; i < len(y); i++ {
		y[i] += x[i]
	}
}

// axpy64 adds a*x to y.
func axpy64(a float64, x, y []float64) {
	y = y[:len(x)]
	i := 0
	for ; i+4 <= len(x); i += 4 {
		xs, ys := x[i:i+4:i+4], y[i:i+4:i+4]
		ys[0] += float64(a * xs[0])
		ys[1] += float64(a * xs[1])
		ys[2] += float64(a * xs[2])
		ys[3] += float64(a * xs[3])
	}
	for ; i < len(x); i++ {
		y[i] += float64(a * x[i])
	}
}

// backRow is one input's step of the backward pass through a dense layer:
// it adds v*delta to the input's gradient row g and returns the gradient
// at the input, the dot product of its weight row w and delta. Doing both
// in one loop reads delta once.
func backRow(w, delta, g []float64, v float64) float64 {
	delta, g = delta[:len(w)], g[:len(w)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(w); i += 4 {
		ws, ds, gs := w[i:i+4:i+4], delta[i:i+4:i+4], g[i:i+4:i+4]
		s0 += float64(ws[0] * ds[0])
		s1 += float64(ws[1] * ds[1])
		s2 += float64(ws[2] * ds[2])
		s3 += float64(ws[3] * ds[3])
		gs[0] += float64(v * ds[0])
		gs[1] += float64(v * ds[1])
		gs[2] += float64(v * ds[2])
		gs[3] += float64(v * ds[3])
	}
	for ; i < len(w); i++ {
		s0 += float64(w[i] * delta[i])
		g[i] += float64(v * delta[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// relu64 clamps the negative entries of x to zero.
func relu64(x []float64) {
	for i, v := range x {
		x[i] = max(v, 0)
	}
}
