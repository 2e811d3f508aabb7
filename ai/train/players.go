package train

import (
	"iter"
	"math"
	"slices"
	"strings"

	"github.com/tttbot/ttt-bot/game"
)

// Defaults of the per-player bound on the human-move head's training
// signal (see Config.MaxPlayerShare and the package documentation).
const (
	// DefaultMaxPlayerShare is the largest share of the human-move
	// head's training signal that one player's moves may carry: 5%, or
	// twice an equal share where a board has fewer than 40 players. Two accounts that
	// flood a server with games then carry at most a tenth of what the
	// human head learns, while a style that a whole population adopts
	// is learnt in full, since no player of a large population comes
	// near the bound.
	DefaultMaxPlayerShare = 0.05
	// FarWorseZ is how far below chance, in standard deviations, a
	// player's share of value-keeping moves must be for the player to be
	// down-weighted: a player who throws away the game far more often
	// than random moves would. A random mover is at about 0 and falls
	// below -3 about once in 700; a player who always picks a losing move
	// when one exists falls below it within a dozen such positions.
	FarWorseZ = -3.0
	// FarWorseMinMoves is the number of judged moves (solved positions
	// that have both value-keeping and value-losing moves) a player needs
	// before the test applies.
	FarWorseMinMoves = 20
	// FarWorseFactor multiplies the weight of a far-worse player's moves:
	// they still count, a tenth as much.
	FarWorseFactor = 0.1
)

// PlayerReport describes how the human moves of a run were weighted by
// player.
type PlayerReport struct {
	// Players counts the players (pseudonyms) with human moves in the
	// training games; Anonymous the human moves with no player.
	Players   int `json:"players"`
	Anonymous int `json:"anonymous_moves,omitempty"`
	// MaxShare is the bound applied: the largest share of the human
	// head's training signal one player carries (Config.MaxPlayerShare,
	// raised to twice an equal share when there are fewer players than
	// 2/MaxPlayerShare); 0 when no bound applied.
	MaxShare float64 `json:"max_share"`
	// Bounded counts the players whose moves the bound scaled down, and
	// BoundedShare the share of the weight they had before it.
	Bounded      int     `json:"bounded"`
	BoundedShare float64 `json:"bounded_share"`
	// FarWorse counts the players whose moves were far worse than chance
	// by the solver (FarWorseZ) and so were down-weighted (FarWorseFactor);
	// FarWorseMoves counts their human moves. They are not named.
	FarWorse      int `json:"far_worse"`
	FarWorseMoves int `json:"far_worse_moves"`

	worse map[string]bool // the far-worse players (never reported)
	// weights are each player's recency-weighted moves after the quality
	// test, before the bound: what Bounded and BoundedShare compare with.
	weights map[string]float64
}

// farWorse reports whether the player was found far worse than chance.
func (rep *PlayerReport) farWorse(name string) bool { return rep.worse[name] }

// smallServer sets the bound where a board has fewer than smallServer /
// MaxPlayerShare players (40 at the default): smallServer/players, twice
// an equal share, so that a few accounts cannot outweigh a small
// server's regulars, while its most active players keep most of their
// weight.
const smallServer = 2.0

// playerStats gathers one player's human moves.
type playerStats struct {
	weight float64 // recency-weighted moves
	moves  int
	// judged counts the moves played in solved positions with both
	// value-keeping and value-losing moves; kept those that kept the
	// value; chance and variance are the expected number kept, and its
	// variance, had each been a uniformly random legal move.
	judged         int
	kept           int
	chance, spread float64
}

// z is how many standard deviations the player's kept moves are above
// (below, if negative) what random moves would keep.
func (s playerStats) z() float64 {
	if s.spread <= 0 {
		return 0
	}
	return (float64(s.kept) - s.chance) / math.Sqrt(s.spread)
}

// playerFactors returns the factor that multiplies the weight of each
// player's human moves, and the report. best returns the value-keeping
// moves of a position in its own frame, and whether it was solved; it may
// be nil (no quality test). Moves with no player are not bounded.
func playerFactors(cfg Config, corpus []replayed, now func(Game) float64, best func(game.Position) (game.Bitboard, bool)) (map[string]float64, PlayerReport) {
	stats := map[string]*playerStats{}
	var rep PlayerReport
	for m := range humanMoves(corpus) {
		if m.name == "" {
			rep.Anonymous++
			continue
		}
		s := stats[m.name]
		if s == nil {
			s = &playerStats{}
			stats[m.name] = s
		}
		s.weight += now(m.game.Game)
		s.moves++
		if best == nil {
			continue
		}
		b, ok := best(m.pos)
		legal := m.pos.Moves()
		keep := (b & legal).Count()
		if !ok || keep == 0 || keep == legal.Count() {
			continue
		}
		pr := float64(keep) / float64(legal.Count())
		s.judged++
		s.chance += pr
		s.spread += pr * (1 - pr)
		if b.Has(m.cell) {
			s.kept++
		}
	}
	rep.Players = len(stats)
	factors := make(map[string]float64, len(stats))
	weights := make(map[string]float64, len(stats))
	rep.weights = weights
	for name, s := range stats {
		factors[name] = 1
		if s.judged >= FarWorseMinMoves && s.z() < FarWorseZ {
			factors[name] = FarWorseFactor
			if rep.worse == nil {
				rep.worse = map[string]bool{}
			}
			rep.worse[name] = true
			rep.FarWorse++
			rep.FarWorseMoves += s.moves
		}
		weights[name] = s.weight * factors[name]
	}
	if cfg.MaxPlayerShare < 0 || len(stats) == 0 {
		return factors, rep
	}
	rep.MaxShare = playerShare(cfg, len(stats))
	for name, g := range bound(weights, rep.MaxShare) {
		factors[name] *= g
	}
	rep.count(factors)
	return factors, rep
}

// count sets Bounded and BoundedShare from the final factors and the
// weights before the bound (after the quality test).
func (rep *PlayerReport) count(factors map[string]float64) {
	rep.Bounded, rep.BoundedShare = 0, 0
	var total, before float64
	for name, w := range rep.weights {
		total += w
		q := 1.0
		if rep.farWorse(name) {
			q = FarWorseFactor
		}
		if factors[name] < q*(1-1e-6) {
			rep.Bounded++
			before += w
		}
	}
	if total > 0 {
		rep.BoundedShare = before / total
	}
}

// playerShare is the bound on one player's share among n players.
func playerShare(cfg Config, n int) float64 {
	return max(cfg.MaxPlayerShare, smallServer/float64(n))
}

// bound returns the factor (at most 1) that brings each weight down so
// that none is more than share of their total after bounding (a
// water-filling cap); 1 for those under it.
func bound(weights map[string]float64, share float64) map[string]float64 {
	names := make([]string, 0, len(weights))
	var total float64
	for n, w := range weights {
		names = append(names, n)
		total += w
	}
	slices.SortFunc(names, func(a, b string) int {
		switch wa, wb := weights[a], weights[b]; {
		case wa > wb:
			return -1
		case wa < wb:
			return 1
		}
		return strings.Compare(a, b)
	})
	out := make(map[string]float64, len(names))
	for _, n := range names {
		out[n] = 1
	}
	// With k players capped at c and the rest as they are, the total is
	// k*c + rest, and c = share * total, so c = share*rest / (1 - k*share).
	rest := total
	capAt := math.Inf(1)
	for k := 0; k < len(names) && float64(k)*share < 1; k++ {
		c := share * rest / (1 - float64(k)*share)
		if weights[names[k]] <= c*(1+1e-9) {
			capAt = c
			break
		}
		rest -= weights[names[k]]
	}
	if math.IsInf(capAt, 1) {
		return out
	}
	for _, n := range names {
		if w := weights[n]; w > capAt*(1+1e-9) {
			out[n] = capAt / w
		}
	}
	return out
}

// humanMove is a move a person played in a corpus game: the game, the
// position before the move, the cell, and the player's name ("" when
// unknown).
type humanMove struct {
	game *replayed
	pos  game.Position
	cell game.Cell
	name string
}

// humanMoves yields the human moves of games, in order.
func humanMoves(games []replayed) iter.Seq[humanMove] {
	return func(yield func(humanMove) bool) {
		for gi := range games {
			g := &games[gi]
			for i, p := range g.positions {
				side := sideOf(p)
				if !g.Human[side] {
					continue
				}
				if !yield(humanMove{game: g, pos: p, cell: g.Moves[i], name: g.Players[side]}) {
					return
				}
			}
		}
	}
}

// sideOf is 0 when X is to move in p, 1 when O is.
func sideOf(p game.Position) int {
	if p.ToMove() == game.O {
		return 1
	}
	return 0
}
