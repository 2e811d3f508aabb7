package persistence_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// validRecord is a decided classic game as a record.
func validRecord() persistence.CorpusRecord {
	return persistence.CorpusRecord{
		Version: persistence.CorpusVersion, Game: "g1", Rules: "3x3k3",
		Moves:  []string{"0 0", "1 0", "0 1", "1 1", "0 2"},
		X:      persistence.Player{User: "abc"},
		O:      persistence.Player{AI: "easy"},
		Result: "X wins",
		Time:   time.Date(2026, 11, 21, 18, 0, 0, 0, time.UTC),
	}
}

func TestCorpusRecordValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(r *persistence.CorpusRecord)
		ok     bool
	}{
		{"valid", func(*persistence.CorpusRecord) {}, true},
		{"cell names", func(r *persistence.CorpusRecord) { r.Moves = []string{"a1", "a2", "b1", "b2", "c1"} }, true},
		{"from a start position", func(r *persistence.CorpusRecord) {
			r.Start = "X--/O--/---"
			r.Moves = []string{"0 1", "1 1", "0 2"}
		}, true},
		{"resigned", func(r *persistence.CorpusRecord) {
			r.Moves, r.End, r.Result = []string{"1 1"}, "resign", "O wins"
		}, true},
		{"expired as a draw", func(r *persistence.CorpusRecord) { r.Moves, r.End, r.Result = nil, "expired", "draw" }, true},
		{"draw on the board", func(r *persistence.CorpusRecord) {
			r.Moves = []string{"1 1", "0 0", "0 2", "2 0", "1 0", "1 2", "0 1", "2 1", "2 2"}
			r.Result = "draw"
		}, true},
		{"xox rules", func(r *persistence.CorpusRecord) {
			r.Rules, r.Moves, r.Result = "4x3xox", []string{"0 0", "0 1", "0 2"}, "X wins"
		}, true},
		{"version 2", func(r *persistence.CorpusRecord) { r.Version = 2 }, false},
		{"no game ID", func(r *persistence.CorpusRecord) { r.Game = "" }, false},
		{"bad rules", func(r *persistence.CorpusRecord) { r.Rules = "9x9k3" }, false},
		{"rules not canonical", func(r *persistence.CorpusRecord) { r.Rules = "3X3K3" }, false},
		{"cell off the board", func(r *persistence.CorpusRecord) { r.Moves[4] = "0 3" }, false},
		{"cell taken", func(r *persistence.CorpusRecord) { r.Moves[4] = "0 0" }, false},
		{"move after the end", func(r *persistence.CorpusRecord) { r.Moves = append(r.Moves, "2 2") }, false},
		{"wrong result", func(r *persistence.CorpusRecord) { r.Result = "O wins" }, false},
		{"unknown result", func(r *persistence.CorpusRecord) { r.Result = "X won" }, false},
		{"end on a decided board", func(r *persistence.CorpusRecord) { r.End = "resign" }, false},
		{"unfinished without end", func(r *persistence.CorpusRecord) { r.Moves = r.Moves[:4] }, false},
		{"resigned draw", func(r *persistence.CorpusRecord) { r.Moves, r.End, r.Result = nil, "resign", "draw" }, false},
		{"unknown end", func(r *persistence.CorpusRecord) { r.Moves, r.End = nil, "bored" }, false},
		{"user and AI", func(r *persistence.CorpusRecord) { r.X.AI = "easy" }, false},
		{"bad start", func(r *persistence.CorpusRecord) { r.Start = "OO-/---/---" }, false},
		{"no time", func(r *persistence.CorpusRecord) { r.Time = time.Time{} }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := validRecord()
			tt.change(&r)
			err := r.Validate()
			if tt.ok && err != nil {
				t.Fatalf("Validate: %v", err)
			}
			if !tt.ok && !errors.Is(err, persistence.ErrInvalid) {
				t.Fatalf("Validate = %v; want ErrInvalid", err)
			}
		})
	}
}

func TestDecodeCorpusRecord(t *testing.T) {
	good := `{"v":1,"game":"g1","rules":"3x3k3","moves":["a1","a2","b1","b2","c1"],"x":{"user":"abc"},"o":{"ai":"easy"},"result":"X wins","time":"2026-11-21T19:00:00+01:00"}`
	tests := []struct {
		name, line string
		ok         bool
	}{
		{"good", good, true},
		{"surrounding space", "  " + good + " \r\n", true},
		{"unknown field", strings.Replace(good, `"v":1`, `"v":1,"extra":2`, 1), false},
		{"trailing data", good + " {}", false},
		{"not JSON", "X---O----", false},
		{"empty", "", false},
		{"bad time", strings.Replace(good, "2026-11-21T19:00:00+01:00", "yesterday", 1), false},
		{"illegal move", strings.Replace(good, `"c1"`, `"a1"`, 1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := persistence.DecodeCorpusRecord([]byte(tt.line))
			if !tt.ok {
				if !errors.Is(err, persistence.ErrInvalid) {
					t.Fatalf("err = %v; want ErrInvalid", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			line, err := r.MarshalLine()
			if err != nil {
				t.Fatal(err)
			}
			want := `{"v":1,"game":"g1","rules":"3x3k3","moves":["0 0","1 0","0 1","1 1","0 2"],"x":{"user":"abc"},"o":{"ai":"easy"},"result":"X wins","time":"2026-11-21T18:00:00Z"}` + "\n"
			if string(line) != want {
				t.Fatalf("MarshalLine =\n%s\nwant\n%s", line, want)
			}
		})
	}
}

// TestAppendGameExactlyOnce reports one game many times, in sequence and
// concurrently from two Stores: one record, under pseudonyms.
func TestAppendGameExactlyOnce(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	g := corpusGame(t, "game-1", "guild-1", "111111111111111111", "222222222222222222")
	id, added, err := e.store.AppendGame(ctx, g)
	if err != nil || !added || id == "" {
		t.Fatalf("first AppendGame = %q, %v, %v", id, added, err)
	}
	if _, added, err := e.store.AppendGame(ctx, g); err != nil || added {
		t.Fatalf("second AppendGame: added %v, %v; want false, nil", added, err)
	}
	other := e.another(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	adds := 0
	g2 := corpusGame(t, "game-2", "guild-1", "111111111111111111", "222222222222222222")
	for i := range 16 {
		st := e.store
		if i%2 == 1 {
			st = other
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, added, err := st.AppendGame(ctx, g2)
			if err != nil {
				t.Error(err)
			}
			if added {
				mu.Lock()
				adds++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if adds != 1 {
		t.Fatalf("concurrent appends added %d records; want 1", adds)
	}
	b, err := e.store.ReadCorpus(ctx, "3x3k3", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Records) != 2 || len(b.Corrupt) != 0 {
		t.Fatalf("corpus holds %d records and %d corrupt; want 2 and 0", len(b.Records), len(b.Corrupt))
	}
	r := b.Records[0].Record
	want, _ := e.store.Pseudonym("111111111111111111")
	if r.X.User != want || len(want) != 64 {
		t.Fatalf("X = %+v; want pseudonym %s", r.X, want)
	}
	if r.Source != "bot" || !r.Time.Equal(e.clk.Now()) {
		t.Fatalf("source %q time %v", r.Source, r.Time)
	}
	raw, err := e.rdb.XRange(ctx, persistence.CorpusStreamKeyForTest(e.store, "3x3k3"), "-", "+").Result()
	if err != nil {
		t.Fatal(err)
	}
	if s := fmt.Sprint(raw); strings.Contains(s, "111111111111111111") || strings.Contains(s, "guild-1") {
		t.Fatalf("the stream holds a raw Discord ID: %s", s)
	}
}

func TestAppendGameNeedsPseudonymKey(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{PseudonymKey: []byte{}})
	ctx := corpusCtx(t)
	_, _, err := e.store.AppendGame(ctx, corpusGame(t, "g", "", "1", "2"))
	if !errors.Is(err, persistence.ErrNoPseudonymKey) {
		t.Fatalf("err = %v; want ErrNoPseudonymKey", err)
	}
	// A game between AIs needs no key.
	g := corpusGame(t, "g", "", "", "")
	g.X, g.O = persistence.Player{AI: "perfect"}, persistence.Player{AI: "random"}
	if _, added, err := e.store.AppendGame(ctx, g); err != nil || !added {
		t.Fatalf("AI game: %v, %v", added, err)
	}
	g.ID, g.Result = "bad", game.OWins
	if _, _, err := e.store.AppendGame(ctx, g); !errors.Is(err, persistence.ErrInvalid) {
		t.Fatalf("wrong result: err = %v; want ErrInvalid", err)
	}
}

// TestReadCorpusSkipsCorrupt writes garbage into the stream: readers
// report each corrupt entry's ID and read on.
func TestReadCorpusSkipsCorrupt(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	key := persistence.CorpusStreamKeyForTest(e.store, "3x3k3")
	var want, bad []string
	add := func(g persistence.FinishedGame) {
		id, _, err := e.store.AppendGame(ctx, g)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, id)
		e.clk.Advance(time.Second)
	}
	garbage := func(values ...any) {
		id, err := e.rdb.XAdd(ctx, &redis.XAddArgs{Stream: key, Values: values}).Result()
		if err != nil {
			t.Fatal(err)
		}
		bad = append(bad, id)
	}
	add(corpusGame(t, "g1", "", "1", "2"))
	garbage("g", "x", "r", "not json")
	garbage("junk", "1")
	add(corpusGame(t, "g2", "", "1", "2"))
	garbage("g", "g9", "r", `{"v":1,"game":"g9","rules":"3x3k3","moves":["0 0","0 0"],"x":{},"o":{},"result":"draw","time":"2026-11-21T18:00:00Z"}`)
	garbage("g", "g8", "r", `{"v":1,"game":"g8","rules":"4x4k4","moves":[],"x":{},"o":{},"result":"draw","end":"expired","time":"2026-11-21T18:00:00Z"}`)
	add(corpusGame(t, "g3", "", "1", "2"))

	b, err := e.store.ReadCorpus(ctx, "3x3k3", "0", 0)
	if err != nil {
		t.Fatal(err)
	}
	var gotIDs, gotBad []string
	for _, r := range b.Records {
		gotIDs = append(gotIDs, r.ID)
	}
	for _, c := range b.Corrupt {
		gotBad = append(gotBad, c.ID)
		if !errors.Is(c.Err, persistence.ErrCorrupt) || !strings.Contains(c.Err.Error(), c.ID) {
			t.Errorf("corrupt entry %s: %v; want ErrCorrupt naming the ID", c.ID, c.Err)
		}
	}
	if fmt.Sprint(gotIDs) != fmt.Sprint(want) || fmt.Sprint(gotBad) != fmt.Sprint(bad) {
		t.Fatalf("read %v, corrupt %v; want %v and %v", gotIDs, gotBad, want, bad)
	}
	if b.Last != want[2] {
		t.Fatalf("Last = %s; want %s", b.Last, want[2])
	}
	// Page by page, two entries at a time, the same.
	var n, nbad int
	last, err := e.store.ScanCorpus(ctx, "3x3k3", "", func(persistence.CorpusEntry) error { n++; return nil },
		func(persistence.CorruptEntry) { nbad++ })
	if err != nil || n != 3 || nbad != 4 || last != want[2] {
		t.Fatalf("ScanCorpus: %d records, %d corrupt, last %s, %v", n, nbad, last, err)
	}
	var buf bytes.Buffer
	rep, err := e.store.ExportCorpus(ctx, &buf, "3x3k3")
	if err != nil || rep.Records != 3 || len(rep.Corrupt) != 4 || strings.Count(buf.String(), "\n") != 3 {
		t.Fatalf("ExportCorpus: %+v, %v\n%s", rep, err, buf.String())
	}
}

func TestCorpusCheckpoint(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	const rules, job = "3x3k3", "trainer"
	var ids []string
	for i := range 5 {
		id, _, err := e.store.AppendGame(ctx, corpusGame(t, fmt.Sprint("g", i), "", "1", "2"))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if cp, err := e.store.Checkpoint(ctx, rules, job); err != nil || cp != "0" {
		t.Fatalf("fresh checkpoint = %q, %v; want \"0\"", cp, err)
	}
	b, err := e.store.ReadNew(ctx, rules, job, 3)
	if err != nil || len(b.Records) != 3 || b.Last != ids[2] {
		t.Fatalf("first run: %d records, last %s, %v", len(b.Records), b.Last, err)
	}
	// The run failed: nothing advanced, the next run sees the same.
	if b2, err := e.store.ReadNew(ctx, rules, job, 3); err != nil || b2.Last != ids[2] {
		t.Fatalf("rerun: last %s, %v", b2.Last, err)
	}
	if err := e.store.AdvanceCheckpoint(ctx, rules, job, b.Last); err != nil {
		t.Fatal(err)
	}
	b, err = e.store.ReadNew(ctx, rules, job, 0)
	if err != nil || len(b.Records) != 2 || b.Records[0].ID != ids[3] || b.Last != ids[4] {
		t.Fatalf("second run: %+v, %v", b, err)
	}
	if err := e.store.AdvanceCheckpoint(ctx, rules, job, b.Last); err != nil {
		t.Fatal(err)
	}
	// A late retry of the first run does not rewind it.
	if err := e.store.AdvanceCheckpoint(ctx, rules, job, ids[2]); err != nil {
		t.Fatal(err)
	}
	if cp, _ := e.store.Checkpoint(ctx, rules, job); cp != ids[4] {
		t.Fatalf("checkpoint = %s; want %s", cp, ids[4])
	}
	if b, err := e.store.ReadNew(ctx, rules, job, 0); err != nil || len(b.Records) != 0 || b.Last != ids[4] {
		t.Fatalf("nothing new: %+v, %v", b, err)
	}
	// Another consumer has its own checkpoint.
	if b, err := e.store.ReadNew(ctx, rules, "eval", 0); err != nil || len(b.Records) != 5 {
		t.Fatalf("other consumer: %d records, %v", len(b.Records), err)
	}
	if err := e.store.AdvanceCheckpoint(ctx, rules, job, "yesterday"); !errors.Is(err, persistence.ErrInvalid) {
		t.Fatalf("bad ID: %v; want ErrInvalid", err)
	}
}

func TestCorpusRetention(t *testing.T) {
	tests := []struct {
		name     string
		opts     persistence.Options
		n        int
		step     time.Duration
		min, max int64 // XLEN bounds: trimming is approximate (whole stream nodes of 100 entries)
	}{
		{"keep all", persistence.Options{}, 250, time.Minute, 250, 250},
		{"max length", persistence.Options{CorpusMaxLen: 50}, 400, time.Second, 50, 150},
		{"max age", persistence.Options{CorpusMaxAge: time.Hour}, 400, time.Minute, 60, 160},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newCorpusEnv(t, tt.opts)
			ctx := corpusCtx(t)
			for i := range tt.n {
				g := corpusGame(t, fmt.Sprint("g", i), "", "", "")
				g.X.AI, g.O.AI = "random", "random"
				if _, _, err := e.store.AppendGame(ctx, g); err != nil {
					t.Fatal(err)
				}
				e.clk.Advance(tt.step)
			}
			st, err := e.store.CorpusStats(ctx, "3x3k3")
			if err != nil {
				t.Fatal(err)
			}
			if st.Count < tt.min || st.Count > tt.max {
				t.Fatalf("count %d; want %d to %d", st.Count, tt.min, tt.max)
			}
			if tt.opts.CorpusMaxAge > 0 && st.First.Before(e.clk.Now().Add(-tt.opts.CorpusMaxAge-100*tt.step)) {
				t.Fatalf("first record from %v; now %v", st.First, e.clk.Now())
			}
			// Records trimmed away can be read around: the reader starts
			// at the oldest retained record.
			b, err := e.store.ReadCorpus(ctx, "3x3k3", "", 1000)
			if err != nil || int64(len(b.Records)) != st.Count {
				t.Fatalf("read %d records, %v; want %d", len(b.Records), err, st.Count)
			}
			// A retained game is still recognised as a duplicate.
			last := b.Records[len(b.Records)-1].Record
			if _, added, err := e.store.AppendRecord(ctx, last); err != nil || added {
				t.Fatalf("re-append of a retained game: added %v, %v", added, err)
			}
		})
	}
}

func TestCorpusStats(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	if st, err := e.store.CorpusStats(ctx, "3x3k3"); err != nil || st.Count != 0 || !st.First.IsZero() {
		t.Fatalf("empty: %+v, %v", st, err)
	}
	start := e.clk.Now()
	for i := range 3 {
		if _, _, err := e.store.AppendGame(ctx, corpusGame(t, fmt.Sprint("g", i), "", "1", "2")); err != nil {
			t.Fatal(err)
		}
		e.clk.Advance(time.Hour)
	}
	x, _ := game.NewXOX(4, 3)
	g := persistence.FinishedGame{ID: "x1", Rules: x, Moves: corpusCells(t, x, "0 0", "0 1", "0 2"), Result: game.XWins,
		X: persistence.Player{AI: "perfect"}, O: persistence.Player{AI: "perfect"}}
	if _, _, err := e.store.AppendGame(ctx, g); err != nil {
		t.Fatal(err)
	}
	all, err := e.store.CorpusSummary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []persistence.CorpusStats{
		{Rules: "3x3k3", Count: 3, First: start, Last: start.Add(2 * time.Hour)},
		{Rules: "4x3xox", Count: 1, First: start.Add(3 * time.Hour), Last: start.Add(3 * time.Hour)},
	}
	if fmt.Sprint(all) != fmt.Sprint(want) {
		t.Fatalf("CorpusSummary =\n%v\nwant\n%v", all, want)
	}
}

// goldenCorpus appends a fixed corpus: games from the empty board and from
// a start position, won, drawn, resigned, against AIs and humans.
func goldenCorpus(t *testing.T, e *corpusEnv) {
	ctx := corpusCtx(t)
	c := game.Classic()
	start, err := game.ParsePosition(c, "X--/-O-/---")
	if err != nil {
		t.Fatal(err)
	}
	games := []persistence.FinishedGame{
		corpusGame(t, "g-win", "guild", "100", "200"),
		{ID: "g-draw", Rules: c, Moves: corpusCells(t, c, "1 1", "0 0", "0 2", "2 0", "1 0", "1 2", "0 1", "2 1", "2 2"),
			X: persistence.Player{AI: "perfect"}, O: persistence.Player{User: "300"}, Result: game.Draw},
		{ID: "g-resign", Rules: c, Moves: corpusCells(t, c, "c2"), X: persistence.Player{User: "100"},
			O: persistence.Player{AI: "minimax"}, Result: game.OWins, End: "resign"},
		{ID: "g-start", Rules: c, Start: start, Moves: corpusCells(t, c, "0 1", "2 2", "0 2"),
			X: persistence.Player{AI: "easy"}, O: persistence.Player{AI: "random"}, Result: game.XWins, End: "win"},
	}
	for _, g := range games {
		if _, _, err := e.store.AppendGame(ctx, g); err != nil {
			t.Fatal(err)
		}
		e.clk.Advance(90 * time.Second)
	}
}

// TestCorpusExportGolden exports a fixed corpus to JSON Lines (compared
// with testdata/corpus_export.golden.jsonl; -update rewrites it), imports
// it into another Store and exports that again: the same lines.
func TestCorpusExportGolden(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	goldenCorpus(t, e)
	var buf bytes.Buffer
	rep, err := e.store.ExportCorpus(ctx, &buf, "3x3k3")
	if err != nil || rep.Records != 4 || len(rep.Corrupt) != 0 {
		t.Fatalf("ExportCorpus: %+v, %v", rep, err)
	}
	golden := filepath.Join("testdata", "corpus_export.golden.jsonl")
	if corpusUpdate() {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("export differs from %s (run with -update if intended):\n%s", golden, buf.String())
	}

	o := e.opts
	o.Prefix = "copy"
	other := persistence.New(e.rdb, o)
	imp, err := other.ImportCorpus(ctx, bytes.NewReader(want))
	if err != nil || imp.Added != 4 || imp.Duplicates != 0 || len(imp.Bad) != 0 {
		t.Fatalf("ImportCorpus: %+v, %v", imp, err)
	}
	var again bytes.Buffer
	if _, err := other.ExportCorpus(ctx, &again, "3x3k3"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), want) {
		t.Fatalf("export after import differs:\n%s", again.String())
	}
	imp, err = other.ImportCorpus(ctx, bytes.NewReader(want))
	if err != nil || imp.Added != 0 || imp.Duplicates != 4 {
		t.Fatalf("second import: %+v, %v", imp, err)
	}
}

func TestImportCorpusBadLines(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	in, err := os.ReadFile(filepath.Join("testdata", "corpus_import_bad.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := e.store.ImportCorpus(ctx, bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, b := range rep.Bad {
		lines = append(lines, b.Line)
		if !errors.Is(b, persistence.ErrInvalid) {
			t.Errorf("line %d: %v; want ErrInvalid", b.Line, b.Err)
		}
	}
	if rep.Added != 2 || rep.Duplicates != 1 || fmt.Sprint(lines) != "[2 4 5 7]" {
		t.Fatalf("report %+v; want 2 added, 1 duplicate, bad lines [2 4 5 7]", rep)
	}
	// A line longer than the limit is reported, not fatal.
	long := strings.Repeat("x", 2<<20) + "\n" + strings.Split(string(in), "\n")[0] + "\n"
	rep, err = e.store.ImportCorpus(ctx, strings.NewReader(long))
	if err != nil || len(rep.Bad) != 1 || rep.Bad[0].Line != 1 || rep.Duplicates != 1 {
		t.Fatalf("long line: %+v, %v", rep, err)
	}
}

// TestAppendClockBehind: a replica whose clock is behind the stream's last
// ID still appends (Redis picks an ID after the last one).
func TestAppendClockBehind(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{CorpusMaxAge: 24 * time.Hour, CorpusMaxLen: 1000})
	ctx := corpusCtx(t)
	first, _, err := e.store.AppendGame(ctx, corpusGame(t, "ahead", "", "1", "2"))
	if err != nil {
		t.Fatal(err)
	}
	e.clk.Advance(-time.Hour)
	second, added, err := e.store.AppendGame(ctx, corpusGame(t, "behind", "", "1", "2"))
	if err != nil || !added {
		t.Fatalf("append with the clock behind: %v, %v", added, err)
	}
	b, err := e.store.ReadCorpus(ctx, "3x3k3", first, 0)
	if err != nil || len(b.Records) != 1 || b.Records[0].ID != second {
		t.Fatalf("after %s: %+v, %v; want %s", first, b, err, second)
	}
}

func TestCorpusRecordReplay(t *testing.T) {
	r := persistence.CorpusRecord{Version: 1, Game: "g1", Rules: "3x3k3", Start: "X--/---/---", Moves: []string{"1 1", "0 2"},
		Result: "draw", End: "expired", Time: time.Unix(1, 0).UTC()}
	rules, start, moves, err := r.Replay()
	if err != nil {
		t.Fatal(err)
	}
	want := []game.Cell{game.NewCell(1, 1), game.NewCell(0, 2)}
	if rules.String() != "3x3k3" || start.String() != "X--/---/---" || !slices.Equal(moves, want) {
		t.Errorf("Replay = %s, %s, %v; want 3x3k3, X--/---/---, %v", rules, start, moves, want)
	}
	r.Moves = append(r.Moves, "1 1")
	if _, _, _, err := r.Replay(); !errors.Is(err, persistence.ErrInvalid) {
		t.Errorf("Replay of a record with an illegal move: %v; want ErrInvalid", err)
	}
}
