package persistence_test

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tttbot/ttt-bot/persistence"
)

// TestCorpusAssisted: the assisted sides of a finished game reach its
// corpus record, survive export and import, and only "x" and "o" (each
// once) validate.
func TestCorpusAssisted(t *testing.T) {
	valid := []struct {
		name     string
		assisted []string
	}{
		{"none", nil},
		{"x", []string{"x"}},
		{"o", []string{"o"}},
		{"both", []string{"x", "o"}},
		{"both, o first", []string{"o", "x"}},
	}
	for _, tt := range valid {
		t.Run("valid/"+tt.name, func(t *testing.T) {
			r := validRecord()
			r.Assisted = tt.assisted
			if err := r.Validate(); err != nil {
				t.Fatal(err)
			}
			line, err := r.MarshalLine()
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(string(line), `"assisted"`); got != (len(tt.assisted) > 0) {
				t.Errorf("line %s: assisted field present %v", line, got)
			}
			back, err := persistence.DecodeCorpusRecord(line)
			if err != nil || !slices.Equal(back.Assisted, tt.assisted) {
				t.Errorf("decoded %q, %v; want %q", back.Assisted, err, tt.assisted)
			}
		})
	}
	invalid := [][]string{{"X"}, {"x", "x"}, {"o", "x", "o"}, {""}, {"white"}}
	for _, a := range invalid {
		t.Run("invalid/"+strings.Join(a, ","), func(t *testing.T) {
			r := validRecord()
			r.Assisted = a
			if err := r.Validate(); !errors.Is(err, persistence.ErrInvalid) {
				t.Fatalf("Validate with assisted %q: %v; want ErrInvalid", a, err)
			}
		})
	}

	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	games := []struct {
		id       string
		assisted [2]bool
		want     []string
	}{
		{"plain", [2]bool{}, nil},
		{"x-hint", [2]bool{true, false}, []string{"x"}},
		{"o-hint", [2]bool{false, true}, []string{"o"}},
		{"both-hint", [2]bool{true, true}, []string{"x", "o"}},
	}
	for _, g := range games {
		fg := corpusGame(t, g.id, "G", "100", "200")
		fg.Assisted = g.assisted
		if _, added, err := e.store.AppendGame(ctx, fg); err != nil || !added {
			t.Fatalf("AppendGame(%s): %v, %v", g.id, added, err)
		}
	}
	check := func(st *persistence.Store, what string) {
		t.Helper()
		b, err := st.ReadCorpus(ctx, "3x3k3", "", 0)
		if err != nil || len(b.Records) != len(games) {
			t.Fatalf("%s: %+v, %v", what, b, err)
		}
		for i, r := range b.Records {
			if r.Record.Game != games[i].id || !slices.Equal(r.Record.Assisted, games[i].want) {
				t.Errorf("%s: record %s assisted %q; want %s %q", what, r.Record.Game, r.Record.Assisted, games[i].id, games[i].want)
			}
		}
	}
	check(e.store, "appended")
	var buf bytes.Buffer
	if rep, err := e.store.ExportCorpus(ctx, &buf, "3x3k3"); err != nil || rep.Records != len(games) {
		t.Fatalf("export: %+v, %v", rep, err)
	}
	o := e.opts
	o.Prefix = "copy"
	other := persistence.New(e.rdb, o)
	if rep, err := other.ImportCorpus(ctx, &buf); err != nil || rep.Added != len(games) || len(rep.Bad) != 0 {
		t.Fatalf("import: %+v, %v", rep, err)
	}
	check(other, "imported")
}
