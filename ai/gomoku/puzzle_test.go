package gomoku

import (
	"context"
	"testing"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/game/wide"
)

// TestGeneratePuzzle: puzzles on gomoku and standard gomoku, for several
// seeds, are wins by fours of the stated length (checked against every
// defence by checkFours), with none shorter; the same seed gives the same
// puzzle; the line's moves keep the win and another move does not.
func TestGeneratePuzzle(t *testing.T) {
	ctx := context.Background()
	for _, rl := range []string{"15x15k5", "15x15k5e"} {
		rules := playCells(t, rl, "").Rules()
		for seed := range uint64(2) {
			pz, err := GeneratePuzzle(ctx, rules, seed)
			if err != nil {
				t.Fatalf("%s seed %d: %v", rl, seed, err)
			}
			if pz.Fours < MinPuzzleFours || pz.Fours > MaxPuzzleFours || FoursToWin(pz.Position) != pz.Fours {
				t.Fatalf("%s seed %d: %d fours stated, %d found", rl, seed, pz.Fours, FoursToWin(pz.Position))
			}
			checkFours(t, pz.Position, pz.Line)
			again, _ := GeneratePuzzle(ctx, rules, seed)
			if again.Position.String() != pz.Position.String() {
				t.Fatalf("%s seed %d: another puzzle the second time", rl, seed)
			}
			if keeps, known := KeepsWinByFours(pz.Position, pz.Line[0]); !keeps || !known {
				t.Fatalf("the line's first move judged %v %v", keeps, known)
			}
			// A move far from everything lets the win go.
			for _, c := range pz.Position.Moves().Cells() {
				if farFromStones(pz.Position, c) {
					if keeps, known := KeepsWinByFours(pz.Position, c); keeps || !known {
						t.Fatalf("%s judged a stray move %s: %v %v", rl, c, keeps, known)
					}
					break
				}
			}
		}
	}
}

// farFromStones reports whether c is more than 4 cells from every stone.
func farFromStones(p wide.Position, c wide.Cell) bool {
	for _, d := range p.Rules().Cells() {
		if p.At(d) != game.Empty && max(abs(d.Row()-c.Row()), abs(d.Col()-c.Col())) <= 4 {
			return false
		}
	}
	return true
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
