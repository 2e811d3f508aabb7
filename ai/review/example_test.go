package review_test

import (
	"context"
	"fmt"

	"github.com/tttbot/ttt-bot/ai/review"
	"github.com/tttbot/ttt-bot/game"
)

func ExampleReviewer_Review() {
	r := game.Classic()
	var moves []game.Cell
	for _, name := range []string{"a1", "b1", "c1", "b2", "a2", "b3"} {
		c, _ := r.ParseCell(name)
		moves = append(moves, c)
	}
	rv, err := review.New(review.Options{}).Review(context.Background(), game.NewPosition(r), moves)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range rv.Moves {
		fmt.Printf("%d. %s %s: %s -> %s, %s", m.Ply, m.Mover, m.Cell, m.Before.For(m.Mover), m.After.For(m.Mover), m.Verdict)
		if !m.Verdict.KeepsValue() {
			fmt.Printf(" (best was %v)", m.Best)
		}
		fmt.Println()
	}
	fmt.Printf("X accuracy %.0f%%, O accuracy %.0f%%, turning point move %d, decided by move %d\n",
		100*rv.Players[0].Accuracy, 100*rv.Players[1].Accuracy, rv.Moves[rv.TurningPoint].Ply, rv.Moves[rv.Decided].Ply)
	// Output:
	// 1. X a1: draw -> draw, best
	// 2. O b1: draw -> loss, mistake (best was [b2])
	// 3. X c1: win -> draw, missed-win (best was [a2 b2 a3])
	// 4. O b2: draw -> draw, best
	// 5. X a2: draw -> loss, mistake (best was [b3])
	// 6. O b3: win -> win, best
	// X accuracy 33%, O accuracy 67%, turning point move 2, decided by move 5
}
