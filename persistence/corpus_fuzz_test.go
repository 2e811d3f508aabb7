package persistence_test

import (
	"bytes"
	"os"
	"path/filepath"
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
// returns replays to its result, and bad lines carry real line numbers.
func FuzzParseGamesTxt(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "games.txt"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Add("---------\nX--------\nX---O----\nXX--O----\nXX--OO---\nXXX-OO---\n")
	f.Add("x........\r\n\n.........")
	f.Fuzz(func(t *testing.T, in string) {
		games, bad, err := persistence.ParseGamesTxt(strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Count(in, "\n") + 1
		prev := 0
		for _, g := range games {
			if g.Line <= prev || g.Line > lines {
				t.Fatalf("game at line %d after %d (of %d lines)", g.Line, prev, lines)
			}
			prev = g.Line
			p := game.NewPosition(game.Classic())
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
		for _, e := range bad {
			if e.Line < 1 || e.Line > lines || e.Line < prev {
				t.Fatalf("bad line %d out of order or range (%d lines)", e.Line, lines)
			}
			prev = e.Line
		}
	})
}
