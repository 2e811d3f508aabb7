package proof

import (
	"context"
	"fmt"
	"math/bits"

	"github.com/tttbot/ttt-bot/game"
)

// Report is what Verify counted while checking a certificate.
type Report struct {
	Positions int64 // distinct canonical positions checked, over all proofs
	Moves     int   // move entries the check used
	Pairings  int   // pairings the check used
}

// Verify checks that c proves its value: that it carries exactly the
// proofs the value needs and that each holds from c.Position (see the
// package comment). It honours ctx. An error wraps ErrInvalid (or ctx's
// error) and says what failed and at which position.
func Verify(ctx context.Context, c *Certificate) (Report, error) {
	var rep Report
	p := c.Position
	r := p.Rules()
	if !r.Valid() || r.Variant() != game.KInARow {
		return rep, fmt.Errorf("%w: certificates are for k-in-a-row rules only", ErrInvalid)
	}
	if p.Over() {
		if c.Value != p.Outcome().Result || len(c.Proofs) != 0 {
			return rep, fmt.Errorf("%w: the game is over at the position (%s); the value must be that and no proof is needed", ErrInvalid, p.Outcome().Result)
		}
		return rep, nil
	}
	var need []string
	switch c.Value {
	case game.XWins:
		need = []string{"win X"}
	case game.OWins:
		need = []string{"win O"}
	case game.Draw:
		need = []string{"hold O", "hold X"}
	default:
		return rep, fmt.Errorf("%w: value %s; a certificate claims X wins, O wins or a draw", ErrInvalid, c.Value)
	}
	for _, name := range need {
		found := false
		for _, pr := range c.Proofs {
			found = found || pr.Name() == name
		}
		if !found {
			return rep, fmt.Errorf("%w: the value %s needs the proof %q, which is missing", ErrInvalid, c.Value, name)
		}
	}
	if len(c.Proofs) != len(need) {
		return rep, fmt.Errorf("%w: the value %s needs exactly the proofs %q; the certificate has %d", ErrInvalid, c.Value, need, len(c.Proofs))
	}
	for _, pr := range c.Proofs {
		ch := newChecker(ctx, r, pr)
		var err error
		if pr.Kind == Win {
			err = ch.win(p.X(), p.O())
		} else {
			err = ch.hold(p.X(), p.O())
		}
		rep.Positions += ch.nodes
		rep.Moves += len(ch.usedMoves)
		rep.Pairings += len(ch.usedPairs)
		if err != nil {
			return rep, fmt.Errorf("proof %q: %w", pr.Name(), err)
		}
	}
	return rep, nil
}

// checker checks one proof. It keeps its own view of the rules: the lines
// from game, the symmetries applied with game's Transform.
type checker struct {
	ctx       context.Context
	r         game.Rules
	board     game.Bitboard
	lines     []game.Bitboard
	syms      []game.Symmetry
	pr        *Proof
	seen      map[game.Key]bool
	usedMoves map[game.Key]bool
	usedPairs map[game.Key]bool
	nodes     int64
}

func newChecker(ctx context.Context, r game.Rules, pr *Proof) *checker {
	return &checker{
		ctx: ctx, r: r, board: r.Board(), lines: r.Lines(), syms: r.Symmetries(), pr: pr,
		seen: map[game.Key]bool{}, usedMoves: map[game.Key]bool{}, usedPairs: map[game.Key]bool{},
	}
}

// canon returns the canonical image of the position: the smallest X
// bitboard, then the smallest O bitboard, over the board's symmetries.
func (ch *checker) canon(x, o game.Bitboard) game.Key {
	best := game.Key{X: x, O: o}
	for _, s := range ch.syms {
		k := game.Key{X: ch.r.Transform(s, x), O: ch.r.Transform(s, o)}
		if k.X < best.X || k.X == best.X && k.O < best.O {
			best = k
		}
	}
	return best
}

// completes reports whether the marks own hold a whole line through c.
func (ch *checker) completes(own game.Bitboard, c game.Cell) bool {
	for _, l := range ch.r.LinesThrough(c) {
		if l&own == l {
			return true
		}
	}
	return false
}

// winsNow reports whether marks own complete a line by taking one of the
// free cells.
func (ch *checker) winsNow(own, free game.Bitboard) bool {
	for _, l := range ch.lines {
		rest := l &^ own
		if rest != 0 && rest&(rest-1) == 0 && rest&free != 0 {
			return true
		}
	}
	return false
}

// describe names a position for an error message.
func (ch *checker) describe(x, o game.Bitboard) string {
	p, err := game.FromMarks(ch.r, x, o)
	if err != nil {
		return fmt.Sprintf("%x %x", uint64(x), uint64(o))
	}
	return fmt.Sprintf("%s (%s to move; key %x %x)", p, p.ToMove(), uint64(x), uint64(o))
}

// tick counts a position and polls the context now and then.
func (ch *checker) tick() error {
	ch.nodes++
	if ch.nodes&4095 == 0 {
		if err := ch.ctx.Err(); err != nil {
			return fmt.Errorf("proof: checking stopped: %w", err)
		}
	}
	return nil
}

// marks returns the marks of side and of its opponent.
func marks(x, o game.Bitboard, side game.Mark) (game.Bitboard, game.Bitboard) {
	if side == game.X {
		return x, o
	}
	return o, x
}

// place returns the bitboards after side marks c.
func place(x, o game.Bitboard, side game.Mark, c game.Cell) (game.Bitboard, game.Bitboard) {
	if side == game.X {
		return x.With(c), o
	}
	return x, o.With(c)
}

// toMove returns the side to move: X when both have as many marks.
func toMove(x, o game.Bitboard) game.Mark {
	if x.Count() > o.Count() {
		return game.O
	}
	return game.X
}

// win checks a win proof from the position X on x, O on o, the game going on.
func (ch *checker) win(x, o game.Bitboard) error {
	k := ch.canon(x, o)
	x, o = k.X, k.O
	if ch.seen[k] {
		return nil
	}
	if err := ch.tick(); err != nil {
		return err
	}
	s := ch.pr.Side
	free := ch.board &^ (x | o)
	if free == 0 {
		return fmt.Errorf("%w: at %s the board is full: a draw, not a win for %s", ErrInvalid, ch.describe(x, o), s)
	}
	mover := toMove(x, o)
	if mover == s {
		own, _ := marks(x, o, s)
		if ch.winsNow(own, free) {
			ch.seen[k] = true
			return nil
		}
		c, ok := ch.pr.Moves[k]
		if !ok {
			return fmt.Errorf("%w: at %s the proof names no move for %s, and %s cannot win at once", ErrInvalid, ch.describe(x, o), s, s)
		}
		if !free.Has(c) {
			return fmt.Errorf("%w: at %s the proof's move %s is not a free cell", ErrInvalid, ch.describe(x, o), c)
		}
		ch.usedMoves[k] = true
		nx, no := place(x, o, s, c)
		own, _ = marks(nx, no, s)
		if !ch.completes(own, c) {
			if nx|no == ch.board {
				return fmt.Errorf("%w: at %s the proof's move %s fills the board: a draw, not a win", ErrInvalid, ch.describe(x, o), c)
			}
			if err := ch.win(nx, no); err != nil {
				return err
			}
		}
	} else {
		for f := free; f != 0; f &= f - 1 {
			c := f.First()
			nx, no := place(x, o, mover, c)
			own, _ := marks(nx, no, mover)
			if ch.completes(own, c) {
				return fmt.Errorf("%w: at %s, %s wins by playing %s", ErrInvalid, ch.describe(x, o), mover, c)
			}
			if nx|no == ch.board {
				return fmt.Errorf("%w: at %s, %s playing %s fills the board: a draw, not a win for %s", ErrInvalid, ch.describe(x, o), mover, c, s)
			}
			if err := ch.win(nx, no); err != nil {
				return err
			}
		}
	}
	ch.seen[k] = true
	return nil
}

// hold checks a hold proof (the side other than the proof's cannot win)
// from the position X on x, O on o, the game going on.
func (ch *checker) hold(x, o game.Bitboard) error {
	k := ch.canon(x, o)
	x, o = k.X, k.O
	if ch.seen[k] {
		return nil
	}
	if err := ch.tick(); err != nil {
		return err
	}
	d := ch.pr.Side
	a := d.Other()
	free := ch.board &^ (x | o)
	if free == 0 {
		ch.seen[k] = true
		return nil
	}
	mover := toMove(x, o)
	n := free.Count()
	left := n / 2
	if mover == a {
		left = (n + 1) / 2
	}
	aOwn, dOwn := marks(x, o, a)
	var live []game.Bitboard
	for _, l := range ch.lines {
		if l&dOwn == 0 && bits.OnesCount64(uint64(l&^aOwn)) <= left {
			live = append(live, l)
		}
	}
	if len(live) == 0 {
		ch.seen[k] = true
		return nil
	}
	if mover == a {
		if pairs, ok := ch.pr.Pairs[k]; ok {
			ch.usedPairs[k] = true
			if err := ch.checkPairing(x, o, free, live, pairs); err != nil {
				return err
			}
			ch.seen[k] = true
			return nil
		}
		for f := free; f != 0; f &= f - 1 {
			c := f.First()
			nx, no := place(x, o, a, c)
			own, _ := marks(nx, no, a)
			if ch.completes(own, c) {
				return fmt.Errorf("%w: at %s, %s wins by playing %s", ErrInvalid, ch.describe(x, o), a, c)
			}
			if err := ch.hold(nx, no); err != nil {
				return err
			}
		}
	} else {
		if ch.winsNow(dOwn, free) {
			ch.seen[k] = true
			return nil
		}
		c, ok := ch.pr.Moves[k]
		if !ok {
			return fmt.Errorf("%w: at %s the proof names no reply for %s, and %s still has a live line", ErrInvalid, ch.describe(x, o), d, a)
		}
		if !free.Has(c) {
			return fmt.Errorf("%w: at %s the proof's reply %s is not a free cell", ErrInvalid, ch.describe(x, o), c)
		}
		ch.usedMoves[k] = true
		nx, no := place(x, o, d, c)
		if own, _ := marks(nx, no, d); !ch.completes(own, c) {
			if err := ch.hold(nx, no); err != nil {
				return err
			}
		}
	}
	ch.seen[k] = true
	return nil
}

// checkPairing checks that pairs, cells taken two by two, are disjoint
// pairs of free cells and that every live line holds a whole pair.
func (ch *checker) checkPairing(x, o, free game.Bitboard, live []game.Bitboard, pairs []game.Cell) error {
	var used game.Bitboard
	masks := make([]game.Bitboard, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		p, q := pairs[i], pairs[i+1]
		for _, c := range []game.Cell{p, q} {
			if !free.Has(c) {
				return fmt.Errorf("%w: at %s the pairing uses %s, which is not a free cell", ErrInvalid, ch.describe(x, o), c)
			}
			if used.Has(c) {
				return fmt.Errorf("%w: at %s the pairing uses %s twice; pairs must be disjoint", ErrInvalid, ch.describe(x, o), c)
			}
			used = used.With(c)
		}
		masks = append(masks, game.Bitboard(0).With(p).With(q))
	}
	for _, l := range live {
		ok := false
		for _, m := range masks {
			if l&m == m {
				ok = true
				break
			}
		}
		if !ok {
			return fmt.Errorf("%w: at %s the pairing leaves the line %s open: it holds no whole pair", ErrInvalid, ch.describe(x, o), lineName(l))
		}
	}
	return nil
}

// lineName names a line by its end cells, like "a1-e5".
func lineName(l game.Bitboard) string {
	cells := l.Cells()
	return cells[0].String() + "-" + cells[len(cells)-1].String()
}
