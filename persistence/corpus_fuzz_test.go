package persistence_test

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// FuzzDecodeCorpusRecord: the JSON Lines parser never panics, and what it
// accepts validates and round-trips through MarshalLine unchanged.
func FuzzDecodeCorpusRecord(f *testing.F) {
	for _, name := range []string{"corpus_export.golden.jsonl", "corpus_import_bad.jsonl"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range bytes.Split(b, []byte("\n")) {
			f.Add(line)
		}
	}
	f.Add([]byte(`{"v":1,"game":"x","rules":"4x3xox","start":"X--/---/---/---","moves":["b1"],"x":{},"o":{},"result":"draw","end":"moderator","time":"2026-01-01T00:00:00Z"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := persistence.DecodeCorpusRecord(line)
		if err != nil {
			return
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("accepted record does not validate: %v", err)
		}
		out, err := r.MarshalLine()
		if err != nil {
			t.Fatal(err)
		}
		r2, err := persistence.DecodeCorpusRecord(out)
		if err != nil {
			t.Fatalf("re-decoding %s: %v", out, err)
		}
		out2, err := r2.MarshalLine()
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("round trip changed the line:\n%s\n%s", out, out2)
		}
	})
}

// FuzzParseGamesTxt: the games.txt parser never panics, every game it
// returns replays to its result, bad lines carry real line numbers, and
// games' digests (their IDs in the corpus) are distinct, do not change
// with line endings or the case of X and O, and do not change when lines
// are added at the end of the file.
func FuzzParseGamesTxt(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "games.txt"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Add("---------\nX--------\nX---O----\nXX--O----\nXX--OO---\nXXX-OO---\n")
	f.Add("x........\r\n\n.........")
	f.Add("---------\nX--------\nX---O----\nX--------\nXX-------\n----X----\nO---X----\nO-X-X----\nOOX-X----\nOOX-X-X--\n")
	f.Add("XO-------\nXXXX\n---------\nX---Q----\nX--------\nX---O----\nXX--O----\nXX--OO---\nXXX-OO---\nXXXOOO---\n")
	parse := func(t *testing.T, in string) ([]persistence.GamesTxtGame, []persistence.LineError) {
		games, bad, err := persistence.ParseGamesTxt(strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		return games, bad
	}
	f.Fuzz(func(t *testing.T, in string) {
		games, bad := parse(t, in)
		lines := strings.Count(in, "\n") + 1
		prev := 0
		seen := map[[sha256.Size]byte]bool{}
		for _, g := range games {
			if g.Line <= prev || g.Line > lines {
				t.Fatalf("game at line %d after %d (of %d lines)", g.Line, prev, lines)
			}
			prev = g.Line
			if seen[g.Digest] {
				t.Fatalf("game at line %d has the digest of an earlier game", g.Line)
			}
			seen[g.Digest] = true
			p := game.NewPosition(game.Classic())
			var err error
			for _, c := range g.Moves {
				if p, err = p.Play(c); err != nil {
					t.Fatalf("game at line %d does not replay: %v", g.Line, err)
				}
			}
			if !p.Over() || p.Outcome().Result != g.Result {
				t.Fatalf("game at line %d ends %v; parser says %v", g.Line, p.Outcome().Result, g.Result)
			}
		}
		prev = 0
		var badLines []int
		for _, e := range bad {
			if e.Line < 1 || e.Line > lines || e.Line < prev {
				t.Fatalf("bad line %d out of order or range (%d lines)", e.Line, lines)
			}
			prev = e.Line
			badLines = append(badLines, e.Line)
		}

		// Another encoding of the same boards: the same games, digests
		// and bad lines.
		other := strings.NewReplacer("\n", "\r\n", "X", "x", "O", "o", "-", ".").Replace(in)
		games2, bad2 := parse(t, other)
		if !reflect.DeepEqual(games2, games) {
			t.Fatalf("with CRLF and lowercase:\n%v\nwant\n%v", games2, games)
		}
		var badLines2 []int
		for _, e := range bad2 {
			badLines2 = append(badLines2, e.Line)
		}
		if !reflect.DeepEqual(badLines2, badLines) {
			t.Fatalf("bad lines with CRLF and lowercase: %v; want %v", badLines2, badLines)
		}

		// The file cut after a line: its games are the first games of the
		// whole file, digests included.
		if n := strings.Count(in, "\n"); n > 0 {
			cut := 0
			for range (n + 1) / 2 {
				cut += strings.IndexByte(in[cut:], '\n') + 1
			}
			head, _ := parse(t, in[:cut])
			if len(head) > len(games) || len(head) > 0 && !reflect.DeepEqual(head, games[:len(head)]) {
				t.Fatalf("the first %d bytes give\n%v\nnot the first games of the whole file\n%v", cut, head, games)
			}
		}
	})
}
