package persistence_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tttbot/ttt-bot/persistence"
)

// gamesTxtSummary prints parsed games as "line:moves:result".
func gamesTxtSummary(games []persistence.GamesTxtGame) string {
	var parts []string
	for _, g := range games {
		var ms []string
		for _, c := range g.Moves {
			ms = append(ms, c.String())
		}
		parts = append(parts, fmt.Sprintf("%d:%s:%s", g.Line, strings.Join(ms, ","), g.Result))
	}
	return strings.Join(parts, " ")
}

func TestParseGamesTxt(t *testing.T) {
	tests := []struct {
		name, in, games string
		bad             []int
	}{
		{"one game", "---------\nX--------\nX---O----\nXX--O----\nXX--OO---\nXXX-OO---\n",
			"1:a1,b2,b1,c2,c1:X wins", nil},
		{"lowercase, dots and CRLF", "---------\r\nx........\r\nx...o....\r\nxx..o....\r\nxx..oo...\r\nxxx.oo...\r\n",
			"1:a1,b2,b1,c2,c1:X wins", nil},
		{"no final newline, spaces", "  ---------\nX--------\nX---O----\nXX--O----\nXX--OO---\nXXX-OO---  ",
			"1:a1,b2,b1,c2,c1:X wins", nil},
		{"games without empty boards", "X--------\nX---O----\nXX--O----\nXX--OO---\nXXX-OO---\n----X----\nO---X----\nO-X-X----\nOOX-X----\nOOX-X-X--\n",
			"1:a1,b2,b1,c2,c1:X wins 6:b2,a1,c1,b1,a3:X wins", nil},
		{"bad length", "---------\nX-------\nX--------\nX---O----\nXX--O----\nXX--OO---\nXXX-OO---\n",
			"1:a1,b2,b1,c2,c1:X wins", []int{2}},
		{"bad character", "---------\nX---Q----\nX--------\nX---O----\nXX--O----\nXX--OO---\nXXX-OO---\n",
			"1:a1,b2,b1,c2,c1:X wins", []int{2}},
		{"two marks at once", "---------\nX---O----\nX--------\nX---O----\nXX--O----\nXX--OO---\nXXX-OO---\n",
			"1:a1,b2,b1,c2,c1:X wins", []int{2}},
		{"wrong side", "---------\nO--------\nX--------\nX---O----\nXX--O----\nXX--OO---\nXXX-OO---\n",
			"1:a1,b2,b1,c2,c1:X wins", []int{2}},
		{"repeated board", "---------\nX--------\nX--------\nX---O----\nXX--O----\nXX--OO---\nXXX-OO---\n",
			"1:a1,b2,b1,c2,c1:X wins", []int{3}},
		{"mark removed", "---------\nX--------\nX---O----\n----O----\nXX--O----\nXX--OO---\nXXX-OO---\n",
			"1:a1,b2,b1,c2,c1:X wins", []int{4}},
		{"move after the end", "---------\nX--------\nX---O----\nXX--O----\nXX--OO---\nXXX-OO---\nXXXOOO---\n",
			"1:a1,b2,b1,c2,c1:X wins", []int{7}},
		{"outside a game", "XO-------\n", "", []int{1}},
		{"unfinished at the end", "---------\nX--------\n", "", []int{1}},
		{"unfinished, then a new game", "---------\nX--------\n---------\n---------\n", "", []int{1}},
		{"empty", "", "", nil},
		{"blank lines", "\n\n   \n", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			games, bad, err := persistence.ParseGamesTxt(strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if got := gamesTxtSummary(games); got != tt.games {
				t.Errorf("games = %q; want %q", got, tt.games)
			}
			var lines []int
			for _, b := range bad {
				lines = append(lines, b.Line)
				if !errors.Is(b, persistence.ErrInvalid) || !strings.HasPrefix(b.Error(), fmt.Sprintf("line %d: ", b.Line)) {
					t.Errorf("bad line error %q", b.Error())
				}
			}
			if fmt.Sprint(lines) != fmt.Sprint(tt.bad) {
				t.Errorf("bad lines %v; want %v (%v)", lines, tt.bad, bad)
			}
		})
	}
}

// TestImportGamesTxt imports testdata/games.txt, with its bad lines, into
// the 3x3k3 corpus, twice.
func TestImportGamesTxt(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	in, err := os.ReadFile(filepath.Join("testdata", "games.txt"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := e.store.ImportGamesTxt(ctx, bytes.NewReader(in), "games-2019.txt")
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, b := range rep.Bad {
		lines = append(lines, b.Line)
	}
	if rep.Added != 3 || fmt.Sprint(lines) != "[1 5 9 17 19 28 29]" {
		t.Fatalf("report: added %d, bad lines %v; want 3 and [1 5 9 17 19 28 29]\n%v", rep.Added, lines, rep.Bad)
	}
	b, err := e.store.ReadCorpus(ctx, "3x3k3", "", 0)
	if err != nil || len(b.Records) != 3 {
		t.Fatalf("read %d records, %v", len(b.Records), err)
	}
	want := []string{
		"games.txt:games-2019.txt:2 [0 0 1 1 0 1 1 2 0 2] X wins",
		"games.txt:games-2019.txt:11 [1 1 0 0 0 2 2 0 1 0 1 2 0 1 2 1 2 2] draw",
		"games.txt:games-2019.txt:23 [1 1 0 0 0 2 0 1 2 0] X wins",
	}
	for i, r := range b.Records {
		got := fmt.Sprintf("%s %v %s", r.Record.Game, r.Record.Moves, r.Record.Result)
		if got != want[i] || r.Record.Source != "games.txt" || r.Record.X != (persistence.Player{}) {
			t.Errorf("record %d = %s (%+v); want %s", i, got, r.Record, want[i])
		}
	}
	rep, err = e.store.ImportGamesTxt(ctx, bytes.NewReader(in), "games-2019.txt")
	if err != nil || rep.Added != 0 || rep.Duplicates != 3 {
		t.Fatalf("second import: %+v, %v", rep, err)
	}
}
