package gomoku

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/game/wide"
)

// TestWinByFoursIsSound: every line WinByFours returns, played against
// every defence the rules allow at each four (the forced block, or any
// other cell, which loses at once), wins; found in seeded self-play
// positions and in a hand-made one.
func TestWinByFoursIsSound(t *testing.T) {
	// X: d8 e8 f8 (an open three) and e7 e9; O scattered: X wins by fours.
	p := playCells(t, "15x15k5", "d8 a1 e8 a3 f8 a5 e6 a7 e9 a9")
	line, ok := WinByFours(p, MaxFoursDepth)
	if !ok {
		t.Fatalf("no win by fours found in %s", p.String())
	}
	checkFours(t, p, line)
	found := 0
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 5))
		q := wide.NewPosition(wide.Gomoku())
		easy, _ := NewLevel("easy", LevelOptions{Seed: seed})
		for !q.Over() && q.Ply() < 60 {
			if line, ok := WinByFours(q, MaxFoursDepth); ok {
				checkFours(t, q, line)
				found++
				break
			}
			var c wide.Cell
			if rng.IntN(2) == 0 {
				c, _ = easy.Move(context.Background(), q)
			} else {
				free := nearCells(q)
				if len(free) == 0 {
					free = q.Moves().Cells()
				}
				c = free[rng.IntN(len(free))]
			}
			q = q.Apply(c)
		}
	}
	if found < 10 {
		t.Fatalf("wins by fours found in %d of 40 games, want at least 10 to check", found)
	}
}

// checkFours plays line from p: each attacker move must win or leave
// fours; at each single four the defender's block is the line's next
// cell, and a defender that plays anything else loses at once.
func checkFours(t *testing.T, p wide.Position, line []wide.Cell) {
	t.Helper()
	me := p.ToMove()
	for i := 0; i < len(line); i += 2 {
		var err error
		if p, err = p.Play(line[i]); err != nil {
			t.Fatalf("line %v: move %d: %v", line, i, err)
		}
		if p.Over() {
			if p.Outcome().Winner() != me {
				t.Fatalf("line %v ends %v", line, p.Outcome().Result)
			}
			return
		}
		var fours []wide.Cell
		for _, c := range p.Moves().Cells() {
			if winsAtFor(p, c, me) {
				fours = append(fours, c)
			}
		}
		if len(fours) >= 2 {
			return // the defender blocks one; the other wins
		}
		if len(fours) != 1 || i+1 >= len(line) || line[i+1] != fours[0] {
			t.Fatalf("line %v: after %s the fours are %v", line, line[i], fours)
		}
		if p, err = p.Play(line[i+1]); err != nil || p.Over() {
			t.Fatalf("line %v: the block %s: %v, over %v", line, line[i+1], err, p.Over())
		}
	}
	t.Fatalf("line %v does not end in a win", line)
}

// winsAtFor reports whether m wins by marking c in p (O to move or not).
func winsAtFor(p wide.Position, c wide.Cell, m game.Mark) bool {
	b := newBoard(p)
	return b.winsIfPlaced(c, sideOf(m))
}

// TestReviewGame: a game where X builds a win by fours that O lets in:
// O's move that allows it is Losing, X's moves from it Winning, the game
// decided there; a move that lets X's win by fours go is MissedWin.
func TestReviewGame(t *testing.T) {
	ctx := context.Background()
	rules := wide.Gomoku()
	cells := func(names string) []wide.Cell {
		playCells(t, "15x15k5", names) // legal
		var out []wide.Cell
		for _, f := range strings.Fields(names) {
			c, _ := rules.ParseCell(f)
			out = append(out, c)
		}
		return out
	}
	// X: h8 i8 j8 then k8 wins by fours... O plays far away.
	moves := cells("h8 a1 i8 a3 j8 a5 k8 a7 l8")
	rv, err := ReviewGame(ctx, rules, moves, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if len(rv.Moves) != 9 || rv.Moves[8].Verdict != Winning || rv.Moves[8].Score != 1 {
		t.Fatalf("the last move: %+v", rv.Moves[len(rv.Moves)-1])
	}
	// O's a5 lets X's open three h8 i8 j8 become a win by fours (k8 or
	// g8 makes an open four): Losing; X's k8 keeps it: Winning.
	if v := rv.Moves[5].Verdict; v != Losing {
		t.Errorf("O's a5 (letting X's win by fours in): %s", v)
	}
	if v := rv.Moves[6].Verdict; v != Winning {
		t.Errorf("X's k8: %s", v)
	}
	if rv.Decided < 0 || rv.Decided > 6 {
		t.Errorf("decided at %d", rv.Decided)
	}
	// X had a win by fours at move 7 (k8) and played elsewhere: MissedWin.
	moves = cells("h8 a1 i8 a3 j8 a5 o15")
	rv, err = ReviewGame(ctx, rules, moves, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if v := rv.Moves[6].Verdict; v != MissedWin || len(rv.Moves[6].Line) == 0 {
		t.Errorf("X's o15 instead of the win: %s %v", v, rv.Moves[6].Line)
	}
	for _, m := range rv.Moves {
		if m.Score < 0 || m.Score > 1 {
			t.Errorf("move %d score %v", m.Ply, m.Score)
		}
	}
}

// BenchmarkReviewGame reviews a 15x15 game of seeded easy self-play (51
// moves, to a win; at most 60) as the bot does, 40 ms of search a position besides the
// wins by fours.
func BenchmarkReviewGame(b *testing.B) {
	ctx := context.Background()
	rules := wide.Gomoku()
	p := wide.NewPosition(rules)
	var moves []wide.Cell
	x, _ := NewLevel("easy", LevelOptions{Seed: 1})
	o, _ := NewLevel("easy", LevelOptions{Seed: 2})
	for len(moves) < 60 && !p.Over() {
		m := x
		if p.ToMove() == game.O {
			m = o
		}
		c, err := m.Move(ctx, p)
		if err != nil {
			b.Fatal(err)
		}
		moves, p = append(moves, c), p.Apply(c)
	}
	for b.Loop() {
		if _, err := ReviewGame(ctx, rules, moves, 40*time.Millisecond); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(moves)), "moves")
}

// BenchmarkGeneratePuzzle draws a gomoku puzzle (a win by fours of 3 to 8
// fours) for a new seed each time.
func BenchmarkGeneratePuzzle(b *testing.B) {
	seed := uint64(0)
	for b.Loop() {
		seed++
		if _, err := GeneratePuzzle(context.Background(), wide.Gomoku(), seed); err != nil {
			b.Fatal(err)
		}
	}
}
