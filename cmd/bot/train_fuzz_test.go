package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/retrain"
)

// FuzzReadCorpusLines checks that any input is read without a panic, that
// every non-blank line is either a record or a numbered error, and that a
// record converts into a training game with its moves.
func FuzzReadCorpusLines(f *testing.F) {
	seed, err := os.ReadFile("testdata/corpus-import.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte("\n\n  \r\n"))
	f.Add([]byte(`{"v":1,"game":"g","rules":"4x3xox","moves":["a1"],"result":"draw","end":"expired","time":"2026-01-01T00:00:00Z"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines, got := 0, 0
		for _, l := range strings.Split(string(data), "\n") {
			if len(bytes.TrimSpace([]byte(l))) > 0 {
				lines++
			}
		}
		err := readCorpusLines(bytes.NewReader(data), func(line int, rec persistence.CorpusRecord, err error) {
			got++
			if err != nil {
				return
			}
			_, g, err := retrain.GameOf(rec)
			if err != nil {
				t.Fatalf("line %d decoded but does not convert: %v", line, err)
			}
			if len(g.Moves) != len(rec.Moves) || !g.Start.Rules().Valid() {
				t.Fatalf("line %d: game %+v from record %+v", line, g, rec)
			}
		})
		if err == nil && got != lines {
			t.Fatalf("%d non-blank lines, %d reported", lines, got)
		}
	})
}
