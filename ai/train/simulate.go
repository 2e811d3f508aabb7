package train

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/game"
)

// Style is how a simulated player plays.
type Style struct {
	// Opening is the cell the player always takes when it moves first on
	// an empty board.
	Opening game.Cell
	// Blunder is the chance, at every other move, of a uniformly random
	// legal move; otherwise the player plays its good move, the first
	// move in row-major order (or in the order Prefer draws) that keeps
	// the game-theoretic value.
	Blunder float64
	// Prefer, when not 0, draws the player's own order of the cells (a
	// taste for some corners and edges over others) that picks its good
	// move among the value-keeping ones.
	Prefer uint64
	// Worst makes the player a saboteur: it always plays a move of the
	// worst value it can (a losing move when there is one), the first in
	// its order; Blunder still applies.
	Worst bool
}

// Player is a simulated person of SimulatePlayers: a pseudonym and a
// style.
type Player struct {
	Name  string
	Style Style
}

// simulatedEpoch is when the first simulated game finished; the games
// follow a minute apart.
var simulatedEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Simulate returns a synthetic corpus of games between simulated people
// of style s (both sides are human), for the tests and benchmarks of
// learning from people. The games are determined by seed. The players use
// the exact solver, so Simulate is for boards it solves quickly (up to
// 4x4). An opening off the board, or Blunder outside [0, 1], behaves as
// the nearest sensible style: no preferred opening, or clamped.
func Simulate(r game.Rules, games int, s Style, seed uint64) []Game {
	rng := rand.New(rand.NewPCG(seed, 0x73696d))
	m := newMover(r)
	out := make([]Game, 0, max(games, 0))
	for i := range games {
		g := Game{Human: [2]bool{true, true}, Time: simulatedEpoch.Add(time.Duration(i) * time.Minute)}
		g.Moves = m.play(rng, [2]Style{s, s})
		out = append(out, g)
	}
	return out
}

// SimulatePlayers returns a synthetic corpus of games between the
// players, each game between two distinct players drawn at random (the
// first drawn plays X), named in Game.Players, both human. The games
// finish a minute apart from start on. They are determined by seed; as
// for Simulate, the board must be one the solver solves quickly.
func SimulatePlayers(r game.Rules, games int, players []Player, start time.Time, seed uint64) []Game {
	rng := rand.New(rand.NewPCG(seed, 0x706c6179))
	m := newMover(r)
	out := make([]Game, 0, max(games, 0))
	if len(players) < 2 {
		return out
	}
	for i := range games {
		a := rng.IntN(len(players))
		b := rng.IntN(len(players) - 1)
		if b >= a {
			b++
		}
		x, o := players[a], players[b]
		g := Game{Human: [2]bool{true, true}, Players: [2]string{x.Name, o.Name}, Time: start.Add(time.Duration(i) * time.Minute)}
		g.Moves = m.play(rng, [2]Style{x.Style, o.Style})
		out = append(out, g)
	}
	return out
}

// mover plays simulated players' moves, with the solver's values cached.
type mover struct {
	r      game.Rules
	solver *ai.Solver
	values map[game.Key]map[game.Cell]game.Result
	orders map[uint64][]game.Cell
}

func newMover(r game.Rules) *mover {
	return &mover{r: r, solver: ai.NewSolver(), values: map[game.Key]map[game.Cell]game.Result{}, orders: map[uint64][]game.Cell{}}
}

// order returns the cells in the order a preference seed draws (row-major
// for 0).
func (m *mover) order(prefer uint64) []game.Cell {
	if o, ok := m.orders[prefer]; ok {
		return o
	}
	var o []game.Cell
	for b := m.r.Board(); b != 0; b &= b - 1 {
		o = append(o, b.First())
	}
	if prefer != 0 {
		rand.New(rand.NewPCG(prefer, 0x707266)).Shuffle(len(o), func(i, j int) { o[i], o[j] = o[j], o[i] })
	}
	m.orders[prefer] = o
	return o
}

// rank returns how good the result r is for side: 2 win, 1 draw, 0 loss.
func rank(r game.Result, side game.Mark) int {
	switch {
	case r == game.Draw:
		return 1
	case (r == game.XWins) == (side == game.X):
		return 2
	}
	return 0
}

// valueOf returns the game-theoretic result after each legal move of p.
func (m *mover) valueOf(p game.Position) map[game.Cell]game.Result {
	if v, ok := m.values[p.Key()]; ok {
		return v
	}
	v := map[game.Cell]game.Result{}
	for b := p.Moves(); b != 0; b &= b - 1 {
		c := b.First()
		q := p.Apply(c)
		if q.Over() {
			v[c] = q.Outcome().Result
			continue
		}
		a, err := m.solver.Solve(context.Background(), q)
		if err != nil {
			v[c] = game.Draw
			continue
		}
		v[c] = a.Value
	}
	m.values[p.Key()] = v
	return v
}

// play plays one game between the styles (X first) and returns its moves.
func (m *mover) play(rng *rand.Rand, styles [2]Style) []game.Cell {
	p := game.NewPosition(m.r)
	var moves []game.Cell
	for !p.Over() {
		s := styles[sideOf(p)]
		var c game.Cell
		switch {
		case p.Ply() == 0 && m.r.Contains(s.Opening) && !s.Worst:
			c = s.Opening
		case rng.Float64() < s.Blunder:
			c = pick(rng, p.Moves())
		default:
			v := m.valueOf(p)
			want := -1
			for _, r := range v {
				k := rank(r, p.ToMove())
				if want < 0 || (s.Worst && k < want) || (!s.Worst && k > want) {
					want = k
				}
			}
			for _, x := range m.order(s.Prefer) {
				if r, ok := v[x]; ok && rank(r, p.ToMove()) == want {
					c = x
					break
				}
			}
		}
		moves = append(moves, c)
		p = p.Apply(c)
	}
	return moves
}
