package persistence_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
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

// A game of five moves that X wins, from the empty board (6 lines), and
// one without its empty board that O wins (6 lines).
const (
	gamesTxtXWins = "---------\nX--------\nX---O----\nXX--O----\nXX--OO---\nXXX-OO---\n"
	gamesTxtOWins = "----X----\nO---X----\nO---X---X\nO-O-X---X\nO-O-X-X-X\nOOO-X-X-X\n"
)

func TestParseGamesTxt(t *testing.T) {
	tests := []struct {
		name, in, games string
		bad             []int
		// say are texts the bad lines must hold, in order, each bad
		// line read as "line N: games.txt: reason".
		say []string
	}{
		{"one game", gamesTxtXWins, "1:a1,b2,b1,c2,c1:X wins", nil, nil},
		{"lowercase, dots and CRLF", "---------\r\nx........\r\nx...o....\r\nxx..o....\r\nxx..oo...\r\nxxx.oo...\r\n",
			"1:a1,b2,b1,c2,c1:X wins", nil, nil},
		{"no final newline, spaces", "  ---------\nX--------\nX---O----\nXX--O----\nXX--OO---\nXXX-OO---  ",
			"1:a1,b2,b1,c2,c1:X wins", nil, nil},
		{"games without empty boards", "X--------\nX---O----\nXX--O----\nXX--OO---\nXXX-OO---\n----X----\nO---X----\nO-X-X----\nOOX-X----\nOOX-X-X--\n",
			"1:a1,b2,b1,c2,c1:X wins 6:b2,a1,c1,b1,a3:X wins", nil, nil},

		// A lone X ends an unfinished game and starts the next.
		{"lone X after an unfinished game", "---------\nX--------\nX---O----\n" + gamesTxtOWins,
			"4:b2,a1,c3,c1,a3,b1:O wins", []int{1},
			[]string{"line 1: games.txt: the game starting here stops undecided after 2 moves (last board on line 3); skipped"}},
		{"lone X after an unfinished game without its empty board", "X--------\nX---O----\nXX--O----\n" + gamesTxtOWins + gamesTxtXWins,
			"4:b2,a1,c3,c1,a3,b1:O wins 10:a1,b2,b1,c2,c1:X wins", []int{1}, []string{"after 3 moves (last board on line 3)"}},
		{"lone X after one move", "---------\nX--------\nX--------\nX---O----\nXX--O----\nXX--OO---\nXXX-OO---\n",
			"3:a1,b2,b1,c2,c1:X wins", []int{1}, []string{"stops undecided after 1 move (last board on line 2)"}},
		{"lone X after a finished game", gamesTxtXWins[len("---------\n"):] + gamesTxtOWins,
			"1:a1,b2,b1,c2,c1:X wins 6:b2,a1,c3,c1,a3,b1:O wins", nil, nil},
		{"lone X after a bad line", "---------\nX--------\nXX-------\n" + gamesTxtOWins,
			"4:b2,a1,c3,c1,a3,b1:O wins", []int{3}, []string{"the game on lines 1 to 3 is skipped"}},

		// A bad line drops its game and the boards after it, up to the
		// next game, and nothing else.
		{"bad length", "---------\nX-------\nX--------\nX---O----\nXX--O----\nXX--OO---\nXXX-OO---\n",
			"3:a1,b2,b1,c2,c1:X wins", []int{2},
			[]string{`line 2: games.txt: "X-------" has 8 characters; a board is 9 characters of X, O or - (like X---O----); the game on lines 1 to 2 is skipped`}},
		{"bad character", "---------\nX---Q----\nX--------\nX---O----\nXX--O----\nXX--OO---\nXXX-OO---\n",
			"3:a1,b2,b1,c2,c1:X wins", []int{2}, []string{`bad character 'Q' at position 5; cells are X, O or -`}},
		{"two marks at once", "---------\nX---O----\nX--------\nX---O----\nXX--O----\nXX--OO---\nXXX-OO---\n",
			"3:a1,b2,b1,c2,c1:X wins", []int{2}, []string{"X---O---- does not follow the board on line 1 (---------): successive boards differ by one added mark"}},
		{"wrong side", "---------\nO--------\nX--------\nX---O----\nXX--O----\nXX--OO---\nXXX-OO---\n",
			"3:a1,b2,b1,c2,c1:X wins", []int{2}, []string{"O-------- adds an O at a1, but it is X's turn"}},
		{"repeated board", "---------\nX--------\nX---O----\nX---O----\nXX--O----\nXX--OO---\nXXX-OO---\n" + gamesTxtXWins,
			"8:a1,b2,b1,c2,c1:X wins", []int{4}, []string{"line 4: games.txt: X---O---- does not follow the board on line 3 (X---O----): successive boards differ by one added mark; the game on lines 1 to 7 is skipped"}},
		{"mark removed", "---------\nX--------\nX---O----\n----O----\nXX--O----\nXX--OO---\nXXX-OO---\n",
			"", []int{4}, []string{"the game on lines 1 to 7 is skipped"}},
		{"bad line in a game, then games", "---------\nX--------\nX---O----\nXX-?O----\nXX--OO---\nXXX-OO---\n\n" + gamesTxtXWins + gamesTxtOWins,
			"8:a1,b2,b1,c2,c1:X wins 14:b2,a1,c3,c1,a3,b1:O wins", []int{4}, []string{"; the game on lines 1 to 6 is skipped"}},
		{"bad lines among the dropped boards", "---------\nX--------\nXX-------\nX---O----\nQQQQQQQQQ\nXX--O----\nXX\n" + gamesTxtOWins,
			"8:b2,a1,c3,c1,a3,b1:O wins", []int{3, 5, 7},
			[]string{"the game on lines 1 to 7 is skipped", `line 5: games.txt: "QQQQQQQQQ": bad character 'Q' at position 1; cells are X, O or -`, `line 7: games.txt: "XX" has 2 characters`}},
		{"move after the end", gamesTxtXWins + "XXXOOO---\n",
			"1:a1,b2,b1,c2,c1:X wins", []int{7},
			[]string{"line 7: games.txt: XXXOOO--- comes after the game ended (X wins) on line 6; a new game starts with the empty board --------- or a board holding one X"}},
		{"boards after the end, then a game", gamesTxtXWins + "XXXOOO---\nXXXOOOX--\nXXXOOOXO-\n" + gamesTxtOWins,
			"1:a1,b2,b1,c2,c1:X wins 10:b2,a1,c3,c1,a3,b1:O wins", []int{7},
			[]string{"line 7: games.txt: XXXOOO--- comes after the game ended (X wins) on line 6; a new game starts with the empty board --------- or a board holding one X; the boards after it, to line 9, are skipped too, up to the next game"}},
		{"outside a game", "XO-------\n", "", []int{1},
			[]string{"line 1: games.txt: XO------- is outside a game; a game starts with the empty board --------- or a board holding one X"}},
		{"outside a game, then a game", "XO-------\nXOX------\nXOXO-----\n" + gamesTxtXWins, "4:a1,b2,b1,c2,c1:X wins", []int{1},
			[]string{"XO------- is outside a game; a game starts with the empty board --------- or a board holding one X; the boards after it, to line 3, are skipped too, up to the next game"}},
		{"too long", "---------\nX--------\n" + strings.Repeat("-", 1<<20+1) + "\n" + gamesTxtOWins, "4:b2,a1,c3,c1,a3,b1:O wins", []int{3},
			[]string{"line 3: games.txt: line longer than 1048576 bytes; a board is 9 characters of X, O or -; the game on lines 1 to 3 is skipped"}},
		{"unfinished at the end", "---------\nX--------\n", "", []int{1}, []string{"stops undecided after 1 move (last board on line 2); skipped"}},
		{"unfinished, then a new game", "---------\nX--------\n---------\n---------\n", "", []int{1}, nil},
		{"empty", "", "", nil, nil},
		{"blank lines", "\n\n   \n", "", nil, nil},
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
			var msgs []string
			for _, b := range bad {
				lines = append(lines, b.Line)
				msg, ok := strings.CutPrefix(b.Err.Error(), persistence.ErrInvalid.Error()+": ")
				if !errors.Is(b, persistence.ErrInvalid) || !ok || !strings.HasPrefix(msg, "games.txt: ") ||
					b.Error() != fmt.Sprintf("line %d: %s", b.Line, b.Err) {
					t.Errorf("bad line error %q", b.Error())
				}
				msgs = append(msgs, fmt.Sprintf("line %d: %s", b.Line, msg))
			}
			if fmt.Sprint(lines) != fmt.Sprint(tt.bad) {
				t.Errorf("bad lines %v; want %v (%v)", lines, tt.bad, bad)
			}
			all := strings.Join(msgs, "\n")
			for _, say := range tt.say {
				i := strings.Index(all, say)
				if i < 0 {
					t.Errorf("bad lines do not say %q (in order):\n%s", say, strings.Join(msgs, "\n"))
					break
				}
				all = all[i+len(say):]
			}
		})
	}
}

// TestImportGamesTxt imports testdata/games.txt, with its bad lines, into
// the 3x3k3 corpus, then again as the same bytes, as another encoding of
// the same boards, grown at its end, and with one of its games after other
// boards: a game's ID comes from the file's content up to the game, so
// only the last two add games.
func TestImportGamesTxt(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	in, err := os.ReadFile(filepath.Join("testdata", "games.txt"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := e.store.ImportGamesTxt(ctx, bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, b := range rep.Bad {
		lines = append(lines, b.Line)
	}
	if rep.Added != 1 || fmt.Sprint(lines) != "[1 5 17 29 30]" {
		t.Fatalf("report: added %d, bad lines %v; want 1 and [1 5 17 29 30]\n%v", rep.Added, lines, rep.Bad)
	}
	b, err := e.store.ReadCorpus(ctx, "3x3k3", "", 0)
	if err != nil || len(b.Records) != 1 {
		t.Fatalf("read %d records, %v", len(b.Records), err)
	}
	// The game on lines 23 to 27: its ID is the SHA-256 of lines 1 to 27,
	// blank lines left out, as GamesTxtGame.Digest says.
	var norm strings.Builder
	for _, l := range strings.Split(string(in), "\n")[:27] {
		if l = strings.TrimSpace(l); l != "" {
			norm.WriteString(strings.NewReplacer("x", "X", "o", "O", ".", "-").Replace(l) + "\n")
		}
	}
	sum := sha256.Sum256([]byte(norm.String()))
	r := b.Records[0].Record
	got := fmt.Sprintf("%s %v %s", r.Game, r.Moves, r.Result)
	if want := "games.txt:" + hex.EncodeToString(sum[:]) + " [1 1 0 0 0 2 0 1 2 0] X wins"; got != want || r.Source != "games.txt" || r.X != (persistence.Player{}) {
		t.Errorf("record = %s (%+v); want %s", got, r, want)
	}

	crlf := strings.NewReplacer("\n", "\r\n", "X", "x", "O", "o", "-", ".").Replace(string(in))
	game23 := strings.Join(strings.Split(string(in), "\n")[22:27], "\n") + "\n"
	again := []struct {
		name, in          string
		added, duplicates int
	}{
		{"the same bytes", string(in), 0, 1},
		{"CRLF, lowercase and dots", crlf, 0, 1},
		{"grown at its end", string(in) + "\n" + gamesTxtXWins, 1, 1},
		{"its game after other boards", gamesTxtOWins + game23, 2, 0},
	}
	for _, tt := range again {
		rep, err := e.store.ImportGamesTxt(ctx, strings.NewReader(tt.in))
		if err != nil || rep.Added != tt.added || rep.Duplicates != tt.duplicates {
			t.Errorf("import of %s: %d added, %d duplicates, %v; want %d and %d", tt.name, rep.Added, rep.Duplicates, err, tt.added, tt.duplicates)
		}
	}
	if b, err := e.store.ReadCorpus(ctx, "3x3k3", "", 0); err != nil || len(b.Records) != 4 {
		t.Errorf("read %d records, %v; want 4", len(b.Records), err)
	}
}

// TestGamesTxtDigest checks which changes to a file keep its games'
// digests (and so their IDs in the corpus): a's games against b's, in
// order, game by game.
func TestGamesTxtDigest(t *testing.T) {
	tests := []struct {
		name, a, b string
		same       []bool
	}{
		{"the same file", gamesTxtXWins + gamesTxtOWins, gamesTxtXWins + gamesTxtOWins, []bool{true, true}},
		{"line endings, case, dots, spaces and blank lines",
			gamesTxtXWins + gamesTxtOWins,
			"\r\n  ---------\r\nx........\r\n\r\nx...o....\t\r\nxx..o....\r\nxx..oo...\r\nxxx.oo...\r\n\n\n....x....\r\no...x....\r\no...x...x\r\no.o.x...x\r\no.o.x.x.x\r\nooo.x.x.x",
			[]bool{true, true}},
		{"grown at its end", gamesTxtXWins, gamesTxtXWins + gamesTxtOWins, []bool{true}},
		{"grown after a bad line", gamesTxtXWins + "XXXOOO---\n", gamesTxtXWins + "XXXOOO---\nXXXOOOX--\n" + gamesTxtOWins, []bool{true}},
		{"an earlier game changed", gamesTxtXWins + gamesTxtOWins,
			strings.Replace(gamesTxtXWins, "XX--O----\nXX--OO---\nXXX-OO---", "X-X-O----\nX-X-OO---\nXXX-OO---", 1) + gamesTxtOWins,
			[]bool{false, false}},
		{"a bad line removed before it", "XO-------\n" + gamesTxtXWins, gamesTxtXWins, []bool{false}},
		{"the same games in another order", gamesTxtXWins + gamesTxtOWins, gamesTxtOWins + gamesTxtXWins, []bool{false, false}},
		{"the same game twice", gamesTxtXWins + gamesTxtXWins, gamesTxtXWins + gamesTxtXWins, []bool{true, true}},
	}
	parse := func(t *testing.T, in string) []persistence.GamesTxtGame {
		t.Helper()
		games, _, err := persistence.ParseGamesTxt(strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		seen := map[[sha256.Size]byte]int{}
		for _, g := range games {
			if l, ok := seen[g.Digest]; ok {
				t.Errorf("games on lines %d and %d have the same digest", l, g.Line)
			}
			seen[g.Digest] = g.Line
		}
		return games
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := parse(t, tt.a), parse(t, tt.b)
			if len(a) != len(tt.same) || len(b) < len(a) {
				t.Fatalf("%d and %d games; want %d, and at least as many", len(a), len(b), len(tt.same))
			}
			for i, same := range tt.same {
				if (a[i].Digest == b[i].Digest) != same {
					t.Errorf("game %d (lines %d and %d): same digest %v, want %v", i, a[i].Line, b[i].Line, !same, same)
				}
			}
		})
	}
}
