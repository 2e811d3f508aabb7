package gomoku

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/tttbot/ttt-bot/game/wide"
)

// Puzzle lengths: the fewest and most of the attacker's fours a daily
// puzzle's win takes.
const (
	MinPuzzleFours = 3
	MaxPuzzleFours = 8
)

// ErrNoPuzzle reports that no position with a win by fours of a puzzle's
// length turned up in the games searched.
var ErrNoPuzzle = errors.New("gomoku: no puzzle found")

// Puzzle is a position where the side to move wins by fours: Fours of its
// moves, each a four (so each reply is forced), the last a win or two
// fours; Line is one such win, the attacker's moves and the blocks.
type Puzzle struct {
	Position wide.Position
	Line     []wide.Cell
	Fours    int
}

// GeneratePuzzle finds a puzzle on rules: it plays seeded games (the easy
// and minimax levels at a shallow depth, so that wins by fours come up)
// and takes the first position where the side to move has a win by fours
// of MinPuzzleFours to MaxPuzzleFours fours, none shorter, and no win at
// once. The same seed gives the same puzzle.
func GeneratePuzzle(ctx context.Context, rules wide.Rules, seed uint64) (Puzzle, error) {
	rng := rand.New(rand.NewPCG(seed, 0x9022))
	for range 200 {
		if err := ctx.Err(); err != nil {
			return Puzzle{}, fmt.Errorf("gomoku: puzzle: %w", err)
		}
		players := [2]Mover{}
		for i := range players {
			level := "easy"
			if rng.IntN(2) == 0 {
				level = "minimax"
			}
			players[i], _ = NewLevel(level, LevelOptions{Seed: rng.Uint64(), Depth: 2})
		}
		p := wide.NewPosition(rules)
		for ply := 0; !p.Over(); ply++ {
			if ply >= 6 {
				if pz, ok := puzzleAt(p); ok {
					return pz, nil
				}
			}
			c, err := players[ply%2].Move(ctx, p)
			if err != nil {
				break
			}
			p = p.Apply(c)
		}
	}
	return Puzzle{}, ErrNoPuzzle
}

// puzzleAt reports whether p makes a puzzle: a win by fours of a puzzle's
// length and none shorter, and no win at once.
func puzzleAt(p wide.Position) (Puzzle, bool) {
	if _, ok := WinByFours(p, MinPuzzleFours-1); ok {
		return Puzzle{}, false // too easy (a win at once counts too)
	}
	n := FoursToWin(p)
	if n < MinPuzzleFours || n > MaxPuzzleFours {
		return Puzzle{}, false
	}
	line, _ := WinByFours(p, n)
	return Puzzle{Position: p, Line: line, Fours: n}, true
}

// FoursToWin is the number of fours of the shortest win by fours the side
// to move has in p (up to MaxFoursDepth; a win at once counts as one), or
// 0 when it has none.
func FoursToWin(p wide.Position) int {
	for d := 1; d <= MaxFoursDepth; d++ {
		if line, ok := WinByFours(p, d); ok {
			return (len(line) + 1) / 2
		}
	}
	return 0
}

// KeepsWinByFours judges a move c of the attacker in a puzzle: whether,
// in p (before the move, where the attacker wins by fours), c wins or
// keeps a forced win by fours. known is false when p has no win by fours
// for the side to move to judge against.
func KeepsWinByFours(p wide.Position, c wide.Cell) (keeps, known bool) {
	line, ok := WinByFours(p, MaxFoursDepth)
	if !ok {
		return false, false
	}
	_, keeps = keepsFours(p, c, line)
	return keeps, true
}
