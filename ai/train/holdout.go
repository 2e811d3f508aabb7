package train

import (
	"context"

	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/game"
)

// MinPlayerMoves is the number of human moves a player needs in a
// held-out set to be counted in HoldoutResult's per-player comparison.
const MinPlayerMoves = 10

// HoldoutSet is a named set of games a run measures its network on and
// never trains on: neither their human moves nor their positions join the
// training set (a position of a held-out game can still be trained on
// when the run meets it otherwise: in another game, by enumeration or in
// self-play).
type HoldoutSet struct {
	// Name names the set in the report ("held-out", "reference").
	Name  string
	Games []Game
}

// Figures are a network's figures on a held-out set.
type Figures struct {
	// HumanTop1 counts the human moves that the human head ranks first
	// (HumanAccuracy): the plain held-out figure.
	HumanTop1 Ratio `json:"human_top1"`
	// HumanBalanced is the same share balanced by player: the mean over
	// the players of the share of each one's moves predicted, each
	// player counting once (a player far worse than chance a tenth; those
	// with fewer than MinPlayerMoves moves, and unnamed ones, pooled as
	// one), so that a few accounts with many games cannot sway it. -1
	// when the set has no human moves.
	HumanBalanced float64 `json:"human_balanced"`
	// PolicyAgree counts the distinct unfinished positions of the set
	// (up to symmetry) that the solver solved and where the best-move
	// head's move keeps the game-theoretic value.
	PolicyAgree Ratio `json:"policy_agree"`
}

// HoldoutResult is one held-out set's figures, for the trained network
// and for Config.Reference.
type HoldoutResult struct {
	// Name is the set's; Games counts its games that replay under the
	// rules, HumanMoves their human moves and Players their players.
	Name       string `json:"name"`
	Games      int    `json:"games"`
	HumanMoves int    `json:"human_moves"`
	Players    int    `json:"players"`
	// Net are the trained network's figures; Reference the reference
	// network's, when Config.Reference is set.
	Net       Figures  `json:"net"`
	Reference *Figures `json:"reference,omitempty"`
	// PlayersCounted counts the players with at least MinPlayerMoves
	// human moves in the set; of them, PlayersBetter those whose moves
	// the trained network predicts more often than the reference does,
	// PlayersWorse those it predicts less often (0 without a reference).
	PlayersCounted int `json:"players_counted"`
	PlayersBetter  int `json:"players_better"`
	PlayersWorse   int `json:"players_worse"`
}

// humanTop1 reports whether n's human head ranks c first in p (the
// lowest cell among equals).
func humanTop1(n *nn.Net, p game.Position, c game.Cell, out *nn.Output) bool {
	n.Evaluate(p, out)
	top, arg := float32(-1), game.Cell(0)
	for m := p.Moves(); m != 0; m &= m - 1 {
		if x := m.First(); out.Human[x] > top {
			top, arg = out.Human[x], x
		}
	}
	return arg == c
}

// measureHoldout computes the figures of net (and ref, if not nil) on the
// replayed games of one held-out set. best gives the value-keeping moves
// of a position and whether it was solved.
func measureHoldout(cfg Config, name string, games []replayed, net, ref *nn.Net, best func(game.Position) (game.Bitboard, bool)) HoldoutResult {
	res := HoldoutResult{Name: name, Games: len(games)}
	// The quality test only: who is far worse than chance.
	_, prep := playerFactors(Config{MaxPlayerShare: -1}, games, func(Game) float64 { return 1 }, best)
	res.Players = prep.Players
	fn, fr, per := tallyHoldout(games, net, ref, best)
	for _, t := range per {
		res.HumanMoves += t.moves
	}
	fn.HumanBalanced, fr.HumanBalanced = balancedTop1(per, &prep)
	res.Net = fn
	if ref != nil {
		res.Reference = &fr
	}
	for name, t := range per {
		if name == "" || t.moves < MinPlayerMoves {
			continue
		}
		res.PlayersCounted++
		if ref == nil {
			continue
		}
		switch {
		case t.net > t.ref:
			res.PlayersBetter++
		case t.net < t.ref:
			res.PlayersWorse++
		}
	}
	return res
}

// playerTally counts one player's human moves in a held-out set and how
// many of them the trained network's and the reference's human heads rank
// first.
type playerTally struct{ moves, net, ref int }

// tallyHoldout goes through the positions of a held-out set's games: it
// returns the figures of net and of ref (if not nil) but HumanBalanced,
// and the tally of every player with human moves, by name. PolicyAgree
// counts each position once up to symmetry.
func tallyHoldout(games []replayed, net, ref *nn.Net, best func(game.Position) (game.Bitboard, bool)) (fn, fr Figures, per map[string]*playerTally) {
	per = map[string]*playerTally{}
	var out nn.Output
	seen := map[game.Key]bool{}
	for _, g := range games {
		for i, p := range g.positions {
			if k, _ := p.Canonical(); !seen[k] {
				seen[k] = true
				if b, ok := best(p); ok && b != 0 {
					fn.PolicyAgree.Den++
					if b.Has(net.Best(p)) {
						fn.PolicyAgree.Num++
					}
					if ref != nil {
						fr.PolicyAgree.Den++
						if b.Has(ref.Best(p)) {
							fr.PolicyAgree.Num++
						}
					}
				}
			}
			side := sideOf(p)
			if !g.Human[side] {
				continue
			}
			t := per[g.Players[side]]
			if t == nil {
				t = &playerTally{}
				per[g.Players[side]] = t
			}
			t.moves++
			fn.HumanTop1.Den++
			if humanTop1(net, p, g.Moves[i], &out) {
				fn.HumanTop1.Num++
				t.net++
			}
			if ref != nil {
				fr.HumanTop1.Den++
				if humanTop1(ref, p, g.Moves[i], &out) {
					fr.HumanTop1.Num++
					t.ref++
				}
			}
		}
	}
	return fn, fr, per
}

// balancedTop1 returns the balanced figures (Figures.HumanBalanced) of the
// trained network and the reference: the mean over players of the share
// of their moves predicted, each player counting once (a tenth for one
// far worse than chance, as prep finds), those with fewer than
// MinPlayerMoves moves (and the unnamed) pooled as one. Both are -1
// without human moves.
func balancedTop1(per map[string]*playerTally, prep *PlayerReport) (net, ref float64) {
	var pool playerTally
	var wsum, wnet, wref float64
	add := func(t playerTally, w float64) {
		wsum += w
		wnet += w * float64(t.net) / float64(t.moves)
		wref += w * float64(t.ref) / float64(t.moves)
	}
	for name, t := range per {
		if name == "" || t.moves < MinPlayerMoves {
			pool.moves, pool.net, pool.ref = pool.moves+t.moves, pool.net+t.net, pool.ref+t.ref
			continue
		}
		w := 1.0
		if prep.farWorse(name) {
			w = FarWorseFactor
		}
		add(*t, w)
	}
	if pool.moves > 0 {
		add(pool, 1)
	}
	if wsum > 0 {
		return wnet / wsum, wref / wsum
	}
	return -1, -1
}

// holdoutPositions returns the distinct unfinished positions of the
// held-out games, up to symmetry.
func holdoutPositions(sets [][]replayed) []game.Position {
	s := newPositionSet()
	for _, games := range sets {
		for _, g := range games {
			for _, p := range g.positions {
				s.add(p)
			}
		}
	}
	return s.list
}

// validSamples returns the samples nn.Train measures after each epoch:
// the search targets of the held-out positions (in every symmetric image)
// and, on the exact positions people met, the distribution of the moves
// they played (unweighted).
func validSamples(ps []game.Position, ts []*target, sets [][]replayed) []nn.Sample {
	samples := samplesOf(ps, ts)
	var human []humanTarget
	index := map[game.Key]int{}
	for _, games := range sets {
		for m := range humanMoves(games) {
			j, ok := index[m.pos.Key()]
			if !ok {
				j = len(human)
				index[m.pos.Key()] = j
				human = append(human, humanTarget{position: m.pos})
			}
			human[j].moves[m.cell]++
			human[j].weight++
		}
	}
	return mergeHuman(samples, human)
}

// bestOf returns a lookup of the value-keeping moves of a position, in
// its own frame, from the targets the cache holds (solved ones only).
func (tc *targetCache) bestOf() func(game.Position) (game.Bitboard, bool) {
	return func(p game.Position) (game.Bitboard, bool) {
		if p.Over() {
			return 0, false
		}
		k, sym := p.Canonical()
		tc.mu.Lock()
		t, ok := tc.m[k]
		tc.mu.Unlock()
		if !ok || !t.solved {
			return 0, false
		}
		inv := sym.Inverse()
		var b game.Bitboard
		for m := t.best; m != 0; m &= m - 1 {
			b = b.With(p.Rules().TransformCell(inv, m.First()))
		}
		return b, true
	}
}

// targetsFor computes (or finds in the cache) the targets of ps.
func (tc *targetCache) targetsFor(ctx context.Context, cfg Config, ps []game.Position) ([]*target, error) {
	return tc.all(ctx, ps, cfg.Workers, cfg.Pause, nil)
}
