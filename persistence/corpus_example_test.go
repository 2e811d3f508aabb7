package persistence_test

import (
	"fmt"
	"strings"

	"github.com/tttbot/ttt-bot/persistence"
)

// ExampleParseGamesTxt reads the original program's log of boards: each
// game's moves and result are derived from its boards. A bad line drops
// its own game, up to the next board that starts one (the empty board, or
// a board holding one X), and is reported with its number.
func ExampleParseGamesTxt() {
	log := `---------
X--------
X---O----
XX-?O----
XX--OO---
X--------
X---O----
XX--O----
XX--OO---
XXX-OO---
`
	games, bad, err := persistence.ParseGamesTxt(strings.NewReader(log))
	if err != nil {
		panic(err)
	}
	for _, g := range games {
		fmt.Println("game at line", g.Line, g.Moves, g.Result)
	}
	for _, b := range bad {
		fmt.Println(b)
	}
	// Output:
	// game at line 6 [a1 b2 b1 c2 c1] X wins
	// line 4: persistence: invalid request: games.txt: "XX-?O----": bad character '?' at position 4; cells are X, O or -; the game on lines 1 to 5 is skipped
}

// ExampleDecodeCorpusRecord reads one line of a JSON Lines export.
func ExampleDecodeCorpusRecord() {
	line := `{"v":1,"game":"g1","rules":"3x3k3","moves":["b2","a1","c2"],"x":{"ai":"perfect"},"o":{"ai":"random"},"result":"X wins","end":"timeout","time":"2026-11-21T18:00:00Z"}`
	r, err := persistence.DecodeCorpusRecord([]byte(line))
	if err != nil {
		panic(err)
	}
	out, _ := r.MarshalLine()
	fmt.Print(string(out))
	// Output:
	// {"v":1,"game":"g1","rules":"3x3k3","moves":["1 1","0 0","1 2"],"x":{"ai":"perfect"},"o":{"ai":"random"},"result":"X wins","end":"timeout","time":"2026-11-21T18:00:00Z"}
}
