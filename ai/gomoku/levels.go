package gomoku

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/game/wide"
)

// The computer levels that play wide boards, weakest first: the names of
// ai's levels that have a wide-board player. The others (mcts, perfect and
// the networks) play boards up to 8x8 only.
var levels = []string{"random", "easy", "minimax"}

// Levels returns the names of the levels that play wide boards.
func Levels() []string { return slices.Clone(levels) }

// MinBudget is the least a minimax move thinks, however loaded the bot.
const MinBudget = 150 * time.Millisecond

// LevelOptions set up a level's player for one move.
type LevelOptions struct {
	// Seed makes random and easy reproducible.
	Seed uint64
	// Budget is minimax's time per move (0: DefaultBudget); the load
	// shrinks it towards MinBudget.
	Budget time.Duration
	// Load is how loaded the bot is, from 0 (the full budget) to 1 (the
	// floor), as ai.Options.Load.
	Load float64
	// Depth caps minimax's alpha-beta depth (0: the budget's).
	Depth int
}

// Mover plays one move of a level.
type Mover interface {
	Move(ctx context.Context, p wide.Position) (wide.Cell, error)
}

// NewLevel returns the player of a level on wide boards: random plays any
// free cell; easy plays a one-ply search (it takes a win, blocks a four)
// among the cells near the stones, a third of its moves at random among
// them; minimax is the full player (threat search and alpha-beta) on its
// budget, bent by the load. Another name fails with the list of levels.
func NewLevel(level string, o LevelOptions) (Mover, error) {
	switch level {
	case "random":
		return randomMover{rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15))}, nil
	case "easy":
		return &easyMover{rng: rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15)), pl: New(Options{Budget: time.Second, MaxDepth: 1, Width: 6})}, nil
	case "minimax":
		b := o.Budget
		if b <= 0 {
			b = DefaultBudget
		}
		if floor := min(b, MinBudget); o.Load > 0 {
			b = floor + time.Duration(float64(b-floor)*(1-min(o.Load, 1)))
		}
		return New(Options{Budget: b, MaxDepth: o.Depth}), nil
	}
	return nil, fmt.Errorf("gomoku: no level %q on boards past 8x8; the levels are %s", level, strings.Join(levels, ", "))
}

// randomMover plays a free cell at random.
type randomMover struct{ rng *rand.Rand }

func (m randomMover) Move(ctx context.Context, p wide.Position) (wide.Cell, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("gomoku: %w", err)
	}
	free := p.Moves().Cells()
	if len(free) == 0 {
		return 0, ErrNoMoves
	}
	return free[m.rng.IntN(len(free))], nil
}

// easyMover is a shallow player that errs a third of the time.
type easyMover struct {
	rng *rand.Rand
	pl  *Player
}

func (m *easyMover) Move(ctx context.Context, p wide.Position) (wide.Cell, error) {
	if m.rng.IntN(3) == 0 && p.Ply() > 0 {
		// A slip, but never past a win at hand or a line to block.
		if near := nearCells(p); len(near) > 0 {
			if c := near[m.rng.IntN(len(near))]; !winsSomewhere(p, near) && !winsSomewhere(p.Apply(c), nearCells(p.Apply(c))) {
				return c, nil
			}
		}
	}
	return m.pl.Move(ctx, p)
}

// winsSomewhere reports whether the side to move in p wins at once on
// one of cells.
func winsSomewhere(p wide.Position, cells []wide.Cell) bool {
	for _, c := range cells {
		if p.WinsAt(c) {
			return true
		}
	}
	return false
}

// nearCells are the free cells within two of a stone.
func nearCells(p wide.Position) []wide.Cell {
	var out []wide.Cell
	r := p.Rules()
	for _, c := range p.Moves().Cells() {
	scan:
		for dr := -2; dr <= 2; dr++ {
			for dc := -2; dc <= 2; dc++ {
				row, col := c.Row()+dr, c.Col()+dc
				if row >= 0 && col >= 0 && row < r.Rows() && col < r.Cols() && p.At(wide.NewCell(row, col)) != 0 {
					out = append(out, c)
					break scan
				}
			}
		}
	}
	return out
}

// OpeningStone is the computer's stone number ply (0, 1 or 2: X, O, X) of
// a swap opening it places: one of the balanced three-stone openings
// (Openings), picked by seed.
func OpeningStone(r wide.Rules, seed uint64, ply int) wide.Cell {
	return Openings(r, 1, seed)[0][ply]
}

// ChooseSide is the computer's choice at the end of a swap opening: the
// side the player's search rates higher after the three stones, within
// budget (O is to move).
func ChooseSide(ctx context.Context, p wide.Position, budget time.Duration) game.Mark {
	pl := New(Options{Budget: budget})
	if _, err := pl.Move(ctx, p); err != nil || pl.Stats().Score > 0 {
		return game.O
	}
	return game.X
}
