package puzzle_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/ai/puzzle"
	"github.com/tttbot/ttt-bot/game"
)

// A server's puzzle of the day: drawn from the seed of the server, the day
// and the board, checked, then played out move by move.
func Example() {
	ctx := context.Background()
	rules, _ := game.ParseRules("3x3k3")
	p, err := puzzle.Generate(ctx, rules, puzzle.Seed("123456789012345678", "2026-11-24", rules), puzzle.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p, "from", p.Source)
	fmt.Print(p.Position.Diagram())
	fmt.Println("winning:", p.Winning)
	fmt.Println("check:", puzzle.Check(ctx, p))

	// Every move, judged: the winning ones keep the puzzle going.
	s := ai.NewSolver()
	var judged []string
	for _, c := range p.Position.Moves().Cells() {
		st, err := puzzle.Judge(ctx, s, p.Side, p.Position.Apply(c))
		if err != nil {
			fmt.Println(err)
			return
		}
		judged = append(judged, fmt.Sprint(c, " ", st))
	}
	fmt.Println(strings.Join(judged, ", "))
	// Output:
	// 3x3k3 O to move, wins in 3 (only move) from self-play
	//    a b c
	//  1 X O .
	//  2 X . .
	//  3 O . X
	// winning: [b2]
	// check: <nil>
	// c1 failed, b2 playing, c2 failed, b3 failed
}

// Judge follows a game against the perfect AI: after each of the user's
// moves, is the win still there?
func ExampleJudge() {
	ctx := context.Background()
	rules := game.Classic()
	start, _ := game.ParsePosition(rules, "O--/---/-X-") // X to move wins with a3 only
	s := ai.NewSolver()
	for _, line := range [][]string{{"a3"}, {"c3"}, {"a3", "c3", "b2", "c1", "b1"}} {
		p := start
		var st puzzle.Status
		for i, name := range line {
			c, _ := rules.ParseCell(name)
			p = p.Apply(c)
			if i%2 == 0 { // the user's moves
				st, _ = puzzle.Judge(ctx, s, game.X, p)
			}
		}
		fmt.Println(line, st)
	}
	// Output:
	// [a3] playing
	// [c3] failed
	// [a3 c3 b2 c1 b1] solved
}
