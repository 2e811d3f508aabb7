package persistence_test

import (
	"fmt"
	"strings"

	"github.com/tttbot/ttt-bot/persistence"
)

// ExampleParseGamesTxt reads the original program's log of boards: each
// game's moves and result are derived, and bad lines are reported with
// their numbers and skipped.
func ExampleParseGamesTxt() {
	log := `---------
X--------
X---O----
XX--O----
XX-?O----
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
		fmt.Println("skipped line", b.Line)
	}
	// Output:
	// game at line 1 [a1 b2 b1 c2 c1] X wins
	// skipped line 5
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
