package game_test

import (
	"fmt"

	"github.com/tttbot/ttt-bot/game"
)

func Example() {
	r, _ := game.ParseRules("3x3k3")
	p := game.NewPosition(r)
	for _, name := range []string{"b2", "a1", "0 2", "a3", "b1", "c3", "b3"} {
		c, err := r.ParseCell(name)
		if err != nil {
			fmt.Println(err)
			return
		}
		if p, err = p.Play(c); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Print(p.Diagram())
	fmt.Println(p, p.Outcome().Result, p.Outcome().Cells.Cells())
	// Output:
	//    a b c
	//  1 O X X
	//  2 . X .
	//  3 O X O
	// OXX/-X-/OXO X wins [b1 b2 b3]
}

func ExampleParsePosition() {
	r, _ := game.ParseRules("3x3k3")
	p, _ := game.ParsePosition(r, "----X---O")
	fmt.Println(p, p.ToMove(), "to move")
	_, err := game.ParsePosition(r, "OO-X-----")
	fmt.Println(err)
	// Output:
	// ---/-X-/--O X to move
	// game: bad position: O has 2 marks and X 1; X moves first, so X has as many marks as O or one more
}

func ExampleRules_ParseCell() {
	r, _ := game.ParseRules("4x3xox")
	for _, s := range []string{"1 2", "c2", "d1"} {
		c, err := r.ParseCell(s)
		fmt.Println(c, err)
	}
	// Output:
	// c2 <nil>
	// c2 <nil>
	// a1 game: bad cell: "d1" is off the 4x3 board; rows are 0-3 and columns 0-2 (names a1 to c4)
}
