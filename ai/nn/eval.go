package nn

import (
	"math"

	"github.com/tttbot/ttt-bot/game"
)

// Output is one evaluation. Policy and Human are probabilities over the
// legal moves (the softmax of the head's logits masked to the empty
// cells), indexed by game.Cell; every other entry is 0.
type Output struct {
	// Policy is the best-move head: where a strong player moves.
	Policy [MaxCells]float32
	// Human is the human head: where the server's players move.
	Human [MaxCells]float32
	// Value is the expected result for the side to move, -1 (loss) to 1
	// (win).
	Value float32
}

// Evaluate runs the network on p into out. p must be played under n's
// rules (for other rules the output means nothing). For a finished game
// it sets Value from the outcome (1 if the side to move has won, -1 if it
// has lost, 0 for a draw) and leaves both distributions zero. Evaluate
// allocates nothing.
func (n *Net) Evaluate(p game.Position, out *Output) {
	*out = Output{}
	if p.Over() {
		out.Value = terminalValue(p)
		return
	}
	var z [2*MaxCells + 1]float32
	n.forward(p, &z, 2*n.cells+1)
	out.Value = float32(math.Tanh(float64(z[2*n.cells])))
	legal := p.Moves() & n.rules.Board()
	n.softmax(z[:n.cells], legal, &out.Policy)
	n.softmax(z[n.cells:2*n.cells], legal, &out.Human)
}

// Best returns the legal move with the highest policy logit (the lowest
// cell among equals). It allocates nothing. For a finished game it
// returns cell 0, which is not a move.
func (n *Net) Best(p game.Position) game.Cell {
	legal := p.Moves() & n.rules.Board()
	if legal == 0 {
		return 0
	}
	var z [2*MaxCells + 1]float32
	n.forward(p, &z, n.cells)
	best := legal.First()
	bestZ := z[n.dense[best]]
	for m := legal & (legal - 1); m != 0; m &= m - 1 {
		if c := m.First(); z[n.dense[c]] > bestZ {
			best, bestZ = c, z[n.dense[c]]
		}
	}
	return best
}

// terminalValue is the exact value of a finished game for the side to
// move. In the X-O-X variant a move can win for either side, so it asks
// who won rather than assuming the last mover did.
func terminalValue(p game.Position) float32 {
	switch p.Outcome().Winner() {
	case p.ToMove():
		return 1
	case game.Empty:
		return 0
	}
	return -1
}

// softmax writes the softmax of the dense logits z over the cells of legal
// into dst, indexed by game.Cell.
func (n *Net) softmax(z []float32, legal game.Bitboard, dst *[MaxCells]float32) {
	if legal == 0 {
		return
	}
	hi := float32(math.Inf(-1))
	for d, v := range z {
		if legal.Has(n.cell[d]) && v > hi {
			hi = v
		}
	}
	var sum float32
	for d, v := range z {
		if c := n.cell[d]; legal.Has(c) {
			e := float32(math.Exp(float64(v - hi)))
			dst[c] = e
			sum += e
		}
	}
	inv := 1 / sum
	for d := range z {
		dst[n.cell[d]] *= inv
	}
}

// planes returns the side to move's marks and the opponent's.
func planes(p game.Position) (own, opp game.Bitboard) {
	if p.ToMove() == game.X {
		return p.X(), p.O()
	}
	return p.O(), p.X()
}

// input returns the index of cell d's active input: own mark, opponent's
// mark or empty.
func (s *shape) input(d int, own, opp game.Bitboard) int {
	c := s.cell[d]
	switch {
	case own.Has(c):
		return d
	case opp.Has(c):
		return s.cells + d
	}
	return 2*s.cells + d
}

// forward runs the body and the first outs outputs of the head into z.
func (n *Net) forward(p game.Position, z *[2*MaxCells + 1]float32, outs int) {
	var a, b [MaxWidth]float32
	l := n.layers[0]
	h := a[:l.out]
	// The first layer starts from the empty board (see derive) and adds
	// the difference each mark makes.
	copy(h, n.empty)
	own, opp := planes(p)
	for m := own & n.rules.Board(); m != 0; m &= m - 1 {
		d := n.dense[m.First()]
		add(h, n.marks[d*l.out:(d+1)*l.out])
	}
	for m := opp & n.rules.Board(); m != 0; m &= m - 1 {
		d := n.cells + n.dense[m.First()]
		add(h, n.marks[d*l.out:(d+1)*l.out])
	}
	if p.ToMove() == game.X {
		i := 3 * n.cells
		add(h, n.p[l.w+i*l.out:l.w+(i+1)*l.out])
	}
	relu(h)
	x, y := &a, &b
	last := len(n.layers) - 1
	for li := 1; li < last; li++ {
		l := n.layers[li]
		dense(n.p, l, x[:l.in], y[:l.out], l.out)
		relu(y[:l.out])
		x, y = y, x
	}
	l = n.layers[last]
	dense(n.p, l, x[:l.in], z[:outs], outs)
}

// dense sets y to the first outs outputs of layer l (no activation) for
// input x. It gathers the inputs that are not zero (ReLU zeroes about
// half), then computes eight outputs at a time in registers, so each
// weight is loaded once and each output stored once.
func dense(p []float32, l layer, x, y []float32, outs int) {
	var idx [MaxWidth]int
	var val [MaxWidth]float32
	k := 0
	for i, v := range x {
		// Branch-free compaction: write every input, keep the non-zero.
		idx[k], val[k] = l.w+i*l.out, v
		if v != 0 {
			k++
		}
	}
	act, vals := idx[:k], val[:k]
	o := 0
	for ; o+8 <= outs; o += 8 {
		b := p[l.b+o : l.b+o+8 : l.b+o+8]
		y0, y1, y2, y3, y4, y5, y6, y7 := b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]
		for j, row := range act {
			v, w := vals[j], p[row+o:row+o+8:row+o+8]
			y0 += v * w[0]
			y1 += v * w[1]
			y2 += v * w[2]
			y3 += v * w[3]
			y4 += v * w[4]
			y5 += v * w[5]
			y6 += v * w[6]
			y7 += v * w[7]
		}
		ys := y[o : o+8 : o+8]
		ys[0], ys[1], ys[2], ys[3], ys[4], ys[5], ys[6], ys[7] = y0, y1, y2, y3, y4, y5, y6, y7
	}
	for ; o < outs; o++ {
		s := p[l.b+o]
		for j, row := range act {
			s += vals[j] * p[row+o]
		}
		y[o] = s
	}
}

// add adds x to y.
func add(y, x []float32) {
	x = x[:len(y)]
	i := 0
	for ; i+8 <= len(y); i += 8 {
		xs, ys := x[i:i+8:i+8], y[i:i+8:i+8]
		ys[0] += xs[0]
		ys[1] += xs[1]
		ys[2] += xs[2]
		ys[3] += xs[3]
		ys[4] += xs[4]
		ys[5] += xs[5]
		ys[6] += xs[6]
		ys[7] += xs[7]
	}
	for ; i < len(y); i++ {
		y[i] += x[i]
	}
}

// axpy adds a*x to y. It is the inner loop of the forward pass, unrolled
// by eight on subslices so the compiler drops the bounds checks.
func axpy(a float32, x, y []float32) {
	y = y[:len(x)]
	i := 0
	for ; i+8 <= len(x); i += 8 {
		xs, ys := x[i:i+8:i+8], y[i:i+8:i+8]
		ys[0] += a * xs[0]
		ys[1] += a * xs[1]
		ys[2] += a * xs[2]
		ys[3] += a * xs[3]
		ys[4] += a * xs[4]
		ys[5] += a * xs[5]
		ys[6] += a * xs[6]
		ys[7] += a * xs[7]
	}
	for ; i < len(x); i++ {
		y[i] += a * x[i]
	}
}

// relu clamps the negative entries of x to zero.
func relu(x []float32) {
	for i, v := range x {
		x[i] = max(v, 0) // branch-free: the sign is a coin toss
	}
}
