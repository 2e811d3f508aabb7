package ai

import (
	"context"
	"math/rand/v2"

	"github.com/tttbot/ttt-bot/game"
)

// Random plays a uniformly random legal move.
type Random struct{ rng *rand.Rand }

// NewRandom returns a random player; Options.Seed or Options.Rand make its
// games reproducible. It ignores Options.Load: it has no budget to shrink.
func NewRandom(o Options) *Random { return &Random{rng: o.rng()} }

// Move returns a random legal move.
func (r *Random) Move(ctx context.Context, p game.Position) (game.Cell, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m := p.Moves()
	if m == 0 {
		return 0, ErrNoMoves
	}
	return pick(r.rng, m), nil
}

// Easy wins if it can, else blocks the opponent's immediate win, else plays
// at random. Where a move would lose on the spot (only possible in the
// X-O-X variant) it avoids it if it has another choice.
type Easy struct{ rng *rand.Rand }

// NewEasy returns an easy player; Options.Seed or Options.Rand make its
// games reproducible. It ignores Options.Load: it has no budget to shrink.
func NewEasy(o Options) *Easy { return &Easy{rng: o.rng()} }

// Move returns a winning move, else a blocking move, else a random one.
func (e *Easy) Move(ctx context.Context, p game.Position) (game.Cell, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	moves := p.Moves()
	if moves == 0 {
		return 0, ErrNoMoves
	}
	me := p.ToMove()
	if w := p.Threats(me); w != 0 {
		return pick(e.rng, w), nil
	}
	safe := safeMoves(p, moves)
	if b := p.Threats(me.Other()) & safe; b != 0 {
		return pick(e.rng, b), nil
	}
	return pick(e.rng, safe), nil
}

// safeMoves returns the moves that do not lose on the spot, or all moves if
// every one does.
func safeMoves(p game.Position, moves game.Bitboard) game.Bitboard {
	if p.Rules().Variant() != game.XOX {
		return moves
	}
	me, safe := p.ToMove(), game.Bitboard(0)
	for m := moves; m != 0; m &= m - 1 {
		if q := p.Apply(m.First()); q.Outcome().Winner() != me.Other() {
			safe = safe.With(m.First())
		}
	}
	if safe == 0 {
		return moves
	}
	return safe
}
