package persistence_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/persistence"
)

// puzzleDay is the day i days after 2026-11-24.
func puzzleDay(i int) string {
	return time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i).Format("2006-01-02")
}

func TestDailyPuzzle(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	day := puzzleDay(0)
	var calls atomic.Int32
	maker := func(v string) func() (string, error) {
		return func() (string, error) { calls.Add(1); return v, nil }
	}

	got, err := e.store.DailyPuzzle(ctx, "G", day, "3x3k3", maker("X--/-O-/---"))
	if err != nil || got != "X--/-O-/---" || calls.Load() != 1 {
		t.Fatalf("first: %q, %v after %d calls", got, err, calls.Load())
	}
	key := persistence.PuzzleDailyKeyForTest(e.store, "G", day, "3x3k3")
	if ttl := e.rdb.PTTL(ctx, key).Val(); ttl < 71*time.Hour || ttl > 72*time.Hour {
		t.Errorf("puzzle TTL %v; want 3 days", ttl)
	}
	tests := []struct {
		name, guild, day, rules string
		want                    string
		made                    bool
	}{
		{"stored", "G", day, "3x3k3", "X--/-O-/---", false},
		{"rules in other notation", "G", day, "3X3K3", "X--/-O-/---", false},
		{"another board", "G", day, "4x4k3", "new", true},
		{"another day", "G", puzzleDay(1), "3x3k3", "new", true},
		{"another guild", "H", day, "3x3k3", "new", true},
		{"direct messages", "", day, "3x3k3", "new", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := calls.Load()
			got, err := e.store.DailyPuzzle(ctx, tt.guild, tt.day, tt.rules, maker("new"))
			if err != nil || got != tt.want || (calls.Load() > before) != tt.made {
				t.Fatalf("DailyPuzzle = %q, %v, made %v; want %q, made %v", got, err, calls.Load() > before, tt.want, tt.made)
			}
		})
	}

	// make's error comes back wrapped, and nothing is stored.
	errNone := errors.New("no puzzle today")
	if _, err := e.store.DailyPuzzle(ctx, "G", puzzleDay(5), "3x3k3", func() (string, error) { return "", errNone }); !errors.Is(err, errNone) {
		t.Fatalf("make failing: %v; want its error", err)
	}
	if n := e.rdb.Exists(ctx, persistence.PuzzleDailyKeyForTest(e.store, "G", puzzleDay(5), "3x3k3")).Val(); n != 0 {
		t.Fatal("a failed make stored something")
	}
	invalid := []struct {
		name, guild, day, rules string
		mk                      func() (string, error)
	}{
		{"bad day", "G", "2026-13-01", "3x3k3", maker("p")},
		{"short day", "G", "2026-1-2", "3x3k3", maker("p")},
		{"no day", "G", "", "3x3k3", maker("p")},
		{"bad rules", "G", day, "16x16k5", maker("p")},
		{"guild with braces", "{G}", day, "3x3k3", maker("p")},
		{"no make", "G", puzzleDay(6), "3x3k3", nil},
		{"empty puzzle", "G", puzzleDay(6), "3x3k3", maker("")},
	}
	for _, tt := range invalid {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := e.store.DailyPuzzle(ctx, tt.guild, tt.day, tt.rules, tt.mk); !errors.Is(err, persistence.ErrInvalid) {
				t.Fatalf("DailyPuzzle: %v; want ErrInvalid", err)
			}
		})
	}
}

// TestDailyPuzzleRace: callers on two replicas drawing different puzzles
// at once all get the one that was stored first.
func TestDailyPuzzleRace(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	stores := []*persistence.Store{e.store, e.another(t)}
	const n = 24
	results := make([]string, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	// Nobody finishes drawing before every caller has started to draw: none
	// is stored until then, so all n miss and race to store theirs.
	var drawing atomic.Int32
	allDrawing := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			v, err := stores[i%2].DailyPuzzle(ctx, "G", puzzleDay(0), "3x3k3", func() (string, error) {
				if drawing.Add(1) == n {
					close(allDrawing)
				}
				select {
				case <-allDrawing:
				case <-ctx.Done():
					return "", ctx.Err()
				}
				return fmt.Sprintf("puzzle-%d", i), nil
			})
			if err != nil {
				t.Error(err)
			}
			results[i] = v
		}()
	}
	close(start)
	wg.Wait()
	stored := e.rdb.Get(ctx, persistence.PuzzleDailyKeyForTest(e.store, "G", puzzleDay(0), "3x3k3")).Val()
	for i, r := range results {
		if r != stored {
			t.Fatalf("caller %d got %q; stored %q", i, r, stored)
		}
	}
}

func TestRecordPuzzleStreaks(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	type stats = persistence.PuzzleStats
	d := puzzleDay
	steps := []struct {
		name    string
		day     string
		rules   string
		solved  bool
		counted bool
		want    stats
	}{
		{"first solve", d(0), "3x3k3", true, true, stats{Solved: 1, Streak: 1, BestStreak: 1, LastDay: d(0)}},
		{"second attempt of the same puzzle", d(0), "3x3k3", false, false, stats{Solved: 1, Streak: 1, BestStreak: 1, LastDay: d(0)}},
		{"another board the same day, failed", d(0), "4x4k3", false, true, stats{Solved: 1, Failed: 1, Streak: 1, BestStreak: 1, LastDay: d(0)}},
		{"a failure the next day keeps the streak", d(1), "3x3k3", false, true, stats{Solved: 1, Failed: 2, Streak: 1, BestStreak: 1, LastDay: d(0)}},
		{"another board solved that day extends it", d(1), "4x4k3", true, true, stats{Solved: 2, Failed: 2, Streak: 2, BestStreak: 2, LastDay: d(1)}},
		{"next day solved", d(2), "3x3k3", true, true, stats{Solved: 3, Failed: 2, Streak: 3, BestStreak: 3, LastDay: d(2)}},
		{"a day without a solve breaks it", d(4), "3x3k3", false, true, stats{Solved: 3, Failed: 3, Streak: 0, BestStreak: 3, LastDay: d(2)}},
		{"a solve starts a new one", d(4), "4x4k3", true, true, stats{Solved: 4, Failed: 3, Streak: 1, BestStreak: 3, LastDay: d(4)}},
		{"and goes on", d(5), "3x3k3", true, true, stats{Solved: 5, Failed: 3, Streak: 2, BestStreak: 3, LastDay: d(5)}},
		{"a late solve of an earlier day counts, streak as is", d(3), "3x3k3", true, true, stats{Solved: 6, Failed: 3, Streak: 2, BestStreak: 3, LastDay: d(5)}},
		{"two days later, failed", d(7), "3x3k3", false, true, stats{Solved: 6, Failed: 4, Streak: 0, BestStreak: 3, LastDay: d(5)}},
		{"7 days before the newest attempt: not counted", d(0), "5x5k4", true, false, stats{Solved: 6, Failed: 4, Streak: 0, BestStreak: 3, LastDay: d(5)}},
		{"6 days before: counted", d(1), "5x5k4", true, true, stats{Solved: 7, Failed: 4, Streak: 0, BestStreak: 3, LastDay: d(5)}},
		{"a solve after the gap", d(8), "3x3k3", true, true, stats{Solved: 8, Failed: 4, Streak: 1, BestStreak: 3, LastDay: d(8)}},
		{"retried", d(8), "3x3k3", true, false, stats{Solved: 8, Failed: 4, Streak: 1, BestStreak: 3, LastDay: d(8)}},
		{"rules in other notation are the same board", d(8), "3X3K3", false, false, stats{Solved: 8, Failed: 4, Streak: 1, BestStreak: 3, LastDay: d(8)}},
	}
	for i, st := range steps {
		t.Run(fmt.Sprintf("%02d %s", i, st.name), func(t *testing.T) {
			got, counted, err := e.store.RecordPuzzle(ctx, "G", "u", st.day, st.rules, st.solved)
			if err != nil || counted != st.counted || got != st.want {
				t.Fatalf("RecordPuzzle(%s, %s, %v) = %+v, %v, %v; want %+v, %v", st.day, st.rules, st.solved, got, counted, err, st.want, st.counted)
			}
			if of, err := e.store.PuzzleStatsOf(ctx, "G", "u"); err != nil || of != st.want {
				t.Fatalf("PuzzleStatsOf = %+v, %v; want %+v", of, err, st.want)
			}
		})
	}
	// Attempt markers of days at or before the newest (8) minus 7 are
	// pruned: left are those of days 2, 3, 4 (two boards), 5, 7 and 8.
	fields := e.rdb.HKeys(ctx, persistence.PuzzleStatsKeyForTest(e.store, "G", "u")).Val()
	markers := 0
	for _, f := range fields {
		if strings.HasPrefix(f, "t:") {
			markers++
		}
	}
	if markers != 7 {
		t.Errorf("%d attempt markers (%v); want 7", markers, fields)
	}
	// Other guilds are separate.
	if _, err := e.store.PuzzleStatsOf(ctx, "H", "u"); !errors.Is(err, persistence.ErrNotFound) {
		t.Errorf("stats in another guild: %v; want ErrNotFound", err)
	}
	if _, err := e.store.PuzzleStatsOf(ctx, "G", "stranger"); !errors.Is(err, persistence.ErrNotFound) {
		t.Errorf("stats of a stranger: %v; want ErrNotFound", err)
	}
	for _, bad := range []struct{ guild, user, day, rules string }{
		{"G", "", d(0), "3x3k3"}, {"G", "u", "24/11/2026", "3x3k3"}, {"G", "u", d(0), "nonsense"}, {"{G}", "u", d(0), "3x3k3"},
	} {
		if _, _, err := e.store.RecordPuzzle(ctx, bad.guild, bad.user, bad.day, bad.rules, true); !errors.Is(err, persistence.ErrInvalid) {
			t.Errorf("RecordPuzzle(%+v): %v; want ErrInvalid", bad, err)
		}
	}
}

func TestPuzzleStatsStreakOn(t *testing.T) {
	st := persistence.PuzzleStats{Solved: 5, Streak: 4, BestStreak: 4, LastDay: puzzleDay(3)}
	tests := []struct {
		day  string
		want int
	}{
		{puzzleDay(3), 4},
		{puzzleDay(4), 4},
		{puzzleDay(5), 0},
		{"not a day", 0},
	}
	for _, tt := range tests {
		if got := st.StreakOn(tt.day); got != tt.want {
			t.Errorf("StreakOn(%s) = %d; want %d", tt.day, got, tt.want)
		}
	}
	if got := (persistence.PuzzleStats{Failed: 2}).StreakOn(puzzleDay(0)); got != 0 {
		t.Errorf("StreakOn without a solve = %d", got)
	}
}

// TestRecordPuzzleExactlyOnce: of many reports of one attempt, from two
// replicas at once, exactly one counts.
func TestRecordPuzzleExactlyOnce(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	stores := []*persistence.Store{e.store, e.another(t)}
	var counted atomic.Int32
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, ok, err := stores[i%2].RecordPuzzle(ctx, "G", "u", puzzleDay(0), "3x3k3", i%3 == 0)
			if err != nil {
				t.Error(err)
			}
			if ok {
				counted.Add(1)
			}
		}()
	}
	wg.Wait()
	st, err := e.store.PuzzleStatsOf(ctx, "G", "u")
	if counted.Load() != 1 || err != nil || st.Solved+st.Failed != 1 {
		t.Fatalf("%d counted; stats %+v, %v; want one attempt", counted.Load(), st, err)
	}
}

func TestPuzzleLeaderboard(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	type attempt struct {
		day    int
		solved bool
	}
	players := map[string][]attempt{
		"a": {{0, true}, {1, true}, {2, true}},               // 3 solved, streak 3
		"b": {{0, true}, {2, true}, {4, true}},               // 3 solved, streak 1
		"c": {{4, true}},                                     // 1 solved, streak 1
		"d": {{3, false}, {4, false}},                        // none solved: not on the board
		"e": {{0, true}, {1, true}, {2, true}, {5, false}},   // 3 solved, streak broken
		"f": {{0, true}, {1, true}, {2, true}, {3, true}},    // 4 solved, streak 4
		"g": {{0, false}, {1, true}, {2, false}, {3, false}}, // 1 solved, streak broken
	}
	for user, as := range players {
		for _, a := range as {
			if _, _, err := e.store.RecordPuzzle(ctx, "G", user, puzzleDay(a.day), "3x3k3", a.solved); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The same users elsewhere do not count here.
	if _, _, err := e.store.RecordPuzzle(ctx, "H", "d", puzzleDay(0), "3x3k3", true); err != nil {
		t.Fatal(err)
	}
	want := []persistence.PuzzleStanding{
		{User: "f", Solved: 4, Streak: 4},
		{User: "a", Solved: 3, Streak: 3},
		{User: "b", Solved: 3, Streak: 1},
		{User: "e", Solved: 3, Streak: 0},
		{User: "c", Solved: 1, Streak: 1},
		{User: "g", Solved: 1, Streak: 0},
	}
	tests := []struct {
		limit int
		want  []persistence.PuzzleStanding
	}{
		{10, want},
		{6, want},
		{2, want[:2]},
		{1, want[:1]},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.limit), func(t *testing.T) {
			got, err := e.store.PuzzleLeaderboard(ctx, "G", tt.limit)
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("PuzzleLeaderboard = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
	if got, err := e.store.PuzzleLeaderboard(ctx, "nowhere", 5); err != nil || len(got) != 0 {
		t.Errorf("empty board: %+v, %v", got, err)
	}
	if _, err := e.store.PuzzleLeaderboard(ctx, "G", 0); !errors.Is(err, persistence.ErrInvalid) {
		t.Errorf("limit 0: %v; want ErrInvalid", err)
	}
}
