package persistence_test

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// histWin is a classic game X wins on the top row, as cells.
var histWin = []game.Cell{game.NewCell(0, 0), game.NewCell(1, 0), game.NewCell(0, 1), game.NewCell(1, 1), game.NewCell(0, 2)}

// histUser and histAI are players.
func histUser(u string) persistence.Player { return persistence.Player{User: u} }

var histAI = persistence.Player{AI: "perfect"}

// histGame is an archived classic game X wins on the top row, in guild,
// finished at the given minute after the test clock's start.
func histGame(id, guild string, x, o persistence.Player, minute int) persistence.ArchivedGame {
	return persistence.ArchivedGame{
		ID: persistence.GameID(id), Guild: guild, Rules: "3x3k3", Moves: histWin,
		Players: [2]persistence.Player{x, o}, Result: game.XWins, End: persistence.ByWin,
		Finished: newTestClock().Now().Add(time.Duration(minute) * time.Minute),
	}
}

// histIDs returns the game IDs of entries.
func histIDs(es []persistence.HistoryEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = string(e.Game)
	}
	return out
}

func TestArchiveGameRoundTrip(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	g := histGame("c1.g1", "G", histUser("100"), histUser("200"), 5)
	g.Ratings = [2]persistence.RatingChange{{Rated: true, Before: 1200, After: 1216}, {Rated: true, Before: 1200, After: 1184}}
	g.Assisted = [2]bool{false, true}
	if err := e.store.ArchiveGame(ctx, g); err != nil {
		t.Fatal(err)
	}
	got, err := e.store.ArchivedGame(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*got, g) {
		t.Fatalf("archived:\n got %+v\nwant %+v", *got, g)
	}
	ttl := e.rdb.PTTL(ctx, persistence.ArchiveKeyForTest(e.store, g.ID)).Val()
	if ttl < 89*24*time.Hour || ttl > 90*24*time.Hour {
		t.Errorf("archive TTL %v; want 90 days", ttl)
	}
	for i, user := range []string{"100", "200"} {
		es, total, err := e.store.History(ctx, user, "", "", 0, 10)
		if err != nil || total != 1 || len(es) != 1 {
			t.Fatalf("history of %s: %+v, %d, %v", user, es, total, err)
		}
		want := persistence.HistoryEntry{Game: g.ID, Guild: "G", Rules: "3x3k3", Side: game.Mark(i + 1),
			Opponent: g.Players[1-i], Result: game.XWins, End: persistence.ByWin, Moves: 5, Finished: g.Finished,
			Rating: g.Ratings[i], Assisted: g.Assisted[i]}
		if !reflect.DeepEqual(es[0], want) {
			t.Errorf("entry of %s:\n got %+v\nwant %+v", user, es[0], want)
		}
		if es[0].Won() != (i == 0) {
			t.Errorf("entry of %s: Won() = %v", user, es[0].Won())
		}
		ttl := e.rdb.PTTL(ctx, persistence.HistoryKeyForTest(e.store, user)).Val()
		if ttl < 89*24*time.Hour || ttl > 90*24*time.Hour {
			t.Errorf("history TTL of %s %v; want 90 days", user, ttl)
		}
	}

	// Normalization: non-canonical rules, NotEnded on a decided board,
	// ratings to four decimals, the zero time meaning now.
	n := histGame("c1.g2", "", histUser("100"), histAI, 0)
	n.Rules, n.End, n.Finished = " 3X3K3 ", persistence.NotEnded, time.Time{}
	n.Ratings[0] = persistence.RatingChange{Rated: true, Before: 1200.123456, After: 1210.987654}
	if err := e.store.ArchiveGame(ctx, n); err != nil {
		t.Fatal(err)
	}
	got, err = e.store.ArchivedGame(ctx, n.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Rules != "3x3k3" || got.End != persistence.ByWin || !got.Finished.Equal(e.clk.Now()) ||
		got.Ratings[0] != (persistence.RatingChange{Rated: true, Before: 1200.1235, After: 1210.9877}) {
		t.Errorf("normalized: %+v", *got)
	}

	for _, id := range []persistence.GameID{"c1.unknown", "not-a-game-id", "c9.g1"} {
		if _, err := e.store.ArchivedGame(ctx, id); !errors.Is(err, persistence.ErrNotFound) {
			t.Errorf("ArchivedGame(%q): %v; want ErrNotFound", id, err)
		}
	}
	// Expired: the key is gone.
	e.rdb.Del(ctx, persistence.ArchiveKeyForTest(e.store, g.ID))
	if _, err := e.store.ArchivedGame(ctx, g.ID); !errors.Is(err, persistence.ErrNotFound) {
		t.Errorf("expired archive: %v; want ErrNotFound", err)
	}
	// Corrupt.
	e.rdb.Set(ctx, persistence.ArchiveKeyForTest(e.store, g.ID), `{"r":"3x3k3","m":[0,0],"f":1}`, 0)
	if _, err := e.store.ArchivedGame(ctx, g.ID); !errors.Is(err, persistence.ErrCorrupt) {
		t.Errorf("corrupt archive: %v; want ErrCorrupt", err)
	}
}

func TestArchiveGameInvalid(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	tests := []struct {
		name   string
		change func(g *persistence.ArchivedGame)
	}{
		{"no ID", func(g *persistence.ArchivedGame) { g.ID = "" }},
		{"not a game ID", func(g *persistence.ArchivedGame) { g.ID = "nochannel" }},
		{"bad rules", func(g *persistence.ArchivedGame) { g.Rules = "9x9k3" }},
		{"bad start", func(g *persistence.ArchivedGame) { g.Start = "OO-/---/---" }},
		{"illegal move", func(g *persistence.ArchivedGame) { g.Moves = []game.Cell{0, 0} }},
		{"move after the end", func(g *persistence.ArchivedGame) {
			g.Moves = append(append([]game.Cell(nil), histWin...), game.NewCell(2, 2))
		}},
		{"no result", func(g *persistence.ArchivedGame) { g.Result = game.Ongoing }},
		{"wrong result", func(g *persistence.ArchivedGame) { g.Result = game.OWins }},
		{"wrong end", func(g *persistence.ArchivedGame) { g.End = persistence.ByResign }},
		{"unfinished without an end", func(g *persistence.ArchivedGame) { g.Moves, g.End = histWin[:3], persistence.NotEnded }},
		{"resigned draw", func(g *persistence.ArchivedGame) {
			g.Moves, g.End, g.Result = histWin[:3], persistence.ByResign, game.Draw
		}},
		{"declined", func(g *persistence.ArchivedGame) { g.Moves, g.End = nil, persistence.ByDecline }},
		{"user and AI", func(g *persistence.ArchivedGame) { g.Players[0].AI = "easy" }},
		{"user with braces", func(g *persistence.ArchivedGame) { g.Players[0].User = "{100}" }},
		{"rated AI", func(g *persistence.ArchivedGame) {
			g.Ratings[1] = persistence.RatingChange{Rated: true, Before: 1200, After: 1190}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := histGame("c1.g1", "G", histUser("100"), histAI, 0)
			tt.change(&g)
			if err := e.store.ArchiveGame(ctx, g); !errors.Is(err, persistence.ErrInvalid) {
				t.Fatalf("ArchiveGame: %v; want ErrInvalid", err)
			}
		})
	}
	if n := e.rdb.DBSize(ctx).Val(); n != 0 {
		t.Fatalf("refused games left %d keys", n)
	}
	// Games the board did not decide are archived with their ending.
	for i, end := range []persistence.Ending{persistence.ByResign, persistence.ByTimeout, persistence.ByModerator, persistence.ByExpiry} {
		g := histGame(fmt.Sprintf("c1.u%d", i), "G", histUser("100"), histAI, i)
		g.Moves, g.End, g.Result = histWin[:3], end, game.OWins
		if err := e.store.ArchiveGame(ctx, g); err != nil {
			t.Errorf("ended by %s: %v", end, err)
		}
	}
}

func TestHistoryFilterAndPaging(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	// Reported out of order: the history is by finishing time anyway.
	games := []persistence.ArchivedGame{
		histGame("c1.a", "G", histUser("u"), histAI, 1),
		histGame("c1.c", "H", histAI, histUser("u"), 3),
		histGame("c1.b", "G", histUser("u"), histUser("v"), 2),
		histGame("c1.e", "G", histUser("v"), histUser("u"), 5),
		histGame("c1.d", "", histUser("u"), histAI, 4),
	}
	big := histGame("c1.f", "G", histUser("u"), histAI, 6)
	big.Rules = "4x4k3"
	big.Moves = []game.Cell{game.NewCell(0, 0), game.NewCell(1, 0), game.NewCell(0, 1), game.NewCell(1, 1), game.NewCell(0, 2)}
	games = append(games, big)
	for _, g := range games {
		if err := e.store.ArchiveGame(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		guild, rules  string
		offset, limit int
		want          []string
		total         int
	}{
		{"", "", 0, 10, []string{"c1.f", "c1.e", "c1.d", "c1.c", "c1.b", "c1.a"}, 6},
		{"", "", 0, 2, []string{"c1.f", "c1.e"}, 6},
		{"", "", 2, 2, []string{"c1.d", "c1.c"}, 6},
		{"", "", 4, 2, []string{"c1.b", "c1.a"}, 6},
		{"", "", 6, 2, []string{}, 6},
		{"G", "", 0, 10, []string{"c1.f", "c1.e", "c1.b", "c1.a"}, 4},
		{"G", "", 1, 2, []string{"c1.e", "c1.b"}, 4},
		{"H", "", 0, 10, []string{"c1.c"}, 1},
		{"K", "", 0, 10, []string{}, 0},
		{"", "3x3k3", 0, 10, []string{"c1.e", "c1.d", "c1.c", "c1.b", "c1.a"}, 5},
		{"", "3X3K3", 0, 1, []string{"c1.e"}, 5},
		{"", "4x4k3", 0, 10, []string{"c1.f"}, 1},
		{"G", "3x3k3", 0, 10, []string{"c1.e", "c1.b", "c1.a"}, 3},
		{"H", "4x4k3", 0, 10, []string{}, 0},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q/%q/%d+%d", tt.guild, tt.rules, tt.offset, tt.limit), func(t *testing.T) {
			es, total, err := e.store.History(ctx, "u", tt.guild, tt.rules, tt.offset, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if got := histIDs(es); total != tt.total || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("History = %v, %d; want %v, %d", got, total, tt.want, tt.total)
			}
		})
	}
	// Sides and opponents from the user's point of view.
	es, _, _ := e.store.History(ctx, "u", "", "3x3k3", 0, 10)
	want := map[string]struct {
		side game.Mark
		opp  persistence.Player
	}{
		"c1.e": {game.O, histUser("v")}, "c1.d": {game.X, histAI}, "c1.c": {game.O, histAI},
		"c1.b": {game.X, histUser("v")}, "c1.a": {game.X, histAI},
	}
	for _, en := range es {
		if w := want[string(en.Game)]; en.Side != w.side || en.Opponent != w.opp {
			t.Errorf("%s: side %s against %+v; want %s against %+v", en.Game, en.Side, en.Opponent, w.side, w.opp)
		}
	}
	if es, total, err := e.store.History(ctx, "nobody", "", "", 0, 10); err != nil || total != 0 || len(es) != 0 {
		t.Errorf("history of a stranger: %v, %d, %v", es, total, err)
	}
	for _, bad := range []struct {
		user          string
		offset, limit int
	}{{"u", -1, 10}, {"u", 0, 0}, {"", 0, 10}, {"{u}", 0, 10}} {
		if _, _, err := e.store.History(ctx, bad.user, "", "", bad.offset, bad.limit); !errors.Is(err, persistence.ErrInvalid) {
			t.Errorf("History(%q, %d, %d): %v; want ErrInvalid", bad.user, bad.offset, bad.limit, err)
		}
	}
}

func TestHistoryLimit(t *testing.T) {
	tests := []struct {
		name  string
		limit int // Options.HistoryLimit; 0 for the default
		games int
		want  int
	}{
		{"small limit", 5, 8, 5},
		{"under the limit", 5, 3, 3},
		{"default 200", 0, 205, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newCorpusEnv(t, persistence.Options{HistoryLimit: tt.limit})
			ctx := corpusCtx(t)
			for i := range tt.games {
				if err := e.store.ArchiveGame(ctx, histGame(fmt.Sprintf("c1.g%d", i), "G", histUser("u"), histAI, i)); err != nil {
					t.Fatal(err)
				}
			}
			es, total, err := e.store.History(ctx, "u", "", "", 0, 1000)
			if err != nil || total != tt.want || len(es) != tt.want {
				t.Fatalf("%d entries, total %d, %v; want %d", len(es), total, err, tt.want)
			}
			if n := e.rdb.LLen(ctx, persistence.HistoryKeyForTest(e.store, "u")).Val(); n != int64(tt.want) {
				t.Fatalf("list length %d; want %d", n, tt.want)
			}
			if es[0].Game != persistence.GameID(fmt.Sprintf("c1.g%d", tt.games-1)) ||
				es[len(es)-1].Game != persistence.GameID(fmt.Sprintf("c1.g%d", tt.games-tt.want)) {
				t.Fatalf("kept %s .. %s; want the newest", es[0].Game, es[len(es)-1].Game)
			}
			// A game older than every kept one, reported late, is not kept.
			if tt.games > tt.want {
				if err := e.store.ArchiveGame(ctx, histGame("c1.old", "G", histUser("u"), histAI, -1)); err != nil {
					t.Fatal(err)
				}
				if _, total, _ := e.store.History(ctx, "u", "", "", 0, 1); total != tt.want {
					t.Fatalf("after a late old game: %d entries", total)
				}
			}
		})
	}
}

// TestHistoryExpiry: the list lives HistoryTTL after its last game, and
// entries older than HistoryTTL leave it when a game is added.
func TestHistoryExpiry(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{HistoryTTL: 48 * time.Hour})
	ctx := corpusCtx(t)
	if err := e.store.ArchiveGame(ctx, histGame("c1.a", "G", histUser("u"), histAI, 0)); err != nil {
		t.Fatal(err)
	}
	key := persistence.HistoryKeyForTest(e.store, "u")
	if ttl := e.rdb.PTTL(ctx, key).Val(); ttl < 47*time.Hour || ttl > 48*time.Hour {
		t.Fatalf("history TTL %v; want 48h", ttl)
	}
	e.clk.Advance(72 * time.Hour)
	g := histGame("c1.b", "G", histUser("u"), histAI, 0)
	g.Finished = e.clk.Now()
	if err := e.store.ArchiveGame(ctx, g); err != nil {
		t.Fatal(err)
	}
	es, total, err := e.store.History(ctx, "u", "", "", 0, 10)
	if err != nil || total != 1 || es[0].Game != "c1.b" {
		t.Fatalf("after 72h: %v, %d, %v; want only c1.b", histIDs(es), total, err)
	}
}

// TestArchiveGameExactlyOnce: concurrent reports from two replicas, a
// retry after a crash between the steps, and a second report that differs
// all leave one entry per user, made from the archive that won.
func TestArchiveGameExactlyOnce(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	stores := []*persistence.Store{e.store, e.another(t)}
	one := func(t *testing.T, users []string, id persistence.GameID) {
		t.Helper()
		for _, u := range users {
			es, total, err := e.store.History(ctx, u, "", "", 0, 100)
			n := 0
			for _, en := range es {
				if en.Game == id {
					n++
				}
			}
			if err != nil || n != 1 {
				t.Fatalf("history of %s: %d entries of %s (%d in all), %v; want 1", u, n, id, total, err)
			}
		}
	}

	t.Run("concurrent", func(t *testing.T) {
		g := histGame("c1.race", "G", histUser("a"), histUser("b"), 0)
		var wg sync.WaitGroup
		errs := make(chan error, 32)
		for i := range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := stores[i%2].ArchiveGame(ctx, g); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		one(t, []string{"a", "b"}, g.ID)
	})

	t.Run("retry after a crash", func(t *testing.T) {
		for users := range 3 {
			id := fmt.Sprintf("c1.crash%d", users)
			g := histGame(id, "G", histUser("c"), histUser("d"), users)
			if err := persistence.ArchivePartlyForTest(ctx, e.store, g, users); err != nil {
				t.Fatal(err)
			}
			if err := stores[1].ArchiveGame(ctx, g); err != nil {
				t.Fatal(err)
			}
			if err := e.store.ArchiveGame(ctx, g); err != nil {
				t.Fatal(err)
			}
			one(t, []string{"c", "d"}, g.ID)
		}
	})

	t.Run("second report differs", func(t *testing.T) {
		g := histGame("c1.twice", "G", histUser("e"), histAI, 10)
		if err := e.store.ArchiveGame(ctx, g); err != nil {
			t.Fatal(err)
		}
		late := g
		late.Finished = late.Finished.Add(time.Minute)
		late.Assisted[0] = true
		if err := stores[1].ArchiveGame(ctx, late); err != nil {
			t.Fatal(err)
		}
		one(t, []string{"e"}, g.ID)
		got, err := e.store.ArchivedGame(ctx, g.ID)
		if err != nil || !got.Finished.Equal(g.Finished) || got.Assisted[0] {
			t.Fatalf("archive %+v, %v; want the first report", got, err)
		}
	})

	t.Run("self play", func(t *testing.T) {
		g := histGame("c1.self", "G", histUser("f"), histUser("f"), 0)
		if err := e.store.ArchiveGame(ctx, g); err != nil {
			t.Fatal(err)
		}
		es, total, err := e.store.History(ctx, "f", "", "", 0, 10)
		if err != nil || total != 1 || es[0].Side != game.X || es[0].Opponent != histUser("f") {
			t.Fatalf("self play: %+v, %d, %v; want one entry as X against themselves", es, total, err)
		}
	})

	t.Run("AI and unknown seats", func(t *testing.T) {
		histories := func() int { return len(e.rdb.Keys(ctx, "ttt:history:*").Val()) }
		before := histories()
		g := histGame("c1.bots", "G", histAI, persistence.Player{}, 0)
		if err := e.store.ArchiveGame(ctx, g); err != nil {
			t.Fatal(err)
		}
		if _, err := e.store.ArchivedGame(ctx, g.ID); err != nil {
			t.Fatal(err)
		}
		if n := histories(); n != before {
			t.Fatalf("%d histories, %d before: a history was made for a seat without a user", n, before)
		}
	})
}

// TestHistoryCorruptEntries: entries that do not decode are skipped and
// reported, the others are all returned, and archiving goes on around them.
func TestHistoryCorruptEntries(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	key := persistence.HistoryKeyForTest(e.store, "u")
	for i := range 3 {
		if err := e.store.ArchiveGame(ctx, histGame(fmt.Sprintf("c1.g%d", i), "G", histUser("u"), histAI, i)); err != nil {
			t.Fatal(err)
		}
	}
	e.rdb.LPush(ctx, key, "not json")
	e.rdb.LInsert(ctx, key, "AFTER", "not json", `{"g":"c1.bad","f":1,"r":"3x3k3","s":7,"re":1,"e":1,"m":5}`)
	e.rdb.RPush(ctx, key, `{"g":"c1.worse","f":"yesterday"}`)
	// A new game goes in among them.
	if err := e.store.ArchiveGame(ctx, histGame("c1.g3", "G", histUser("u"), histAI, 3)); err != nil {
		t.Fatal(err)
	}
	es, total, err := e.store.History(ctx, "u", "", "", 0, 10)
	var ce *persistence.CorruptHistoryError
	if !errors.As(err, &ce) || !errors.Is(err, persistence.ErrCorrupt) || ce.Skipped != 3 || ce.User != "u" {
		t.Fatalf("error %v; want a CorruptHistoryError of 3 entries", err)
	}
	if want := []string{"c1.g3", "c1.g2", "c1.g1", "c1.g0"}; total != 4 || !reflect.DeepEqual(histIDs(es), want) {
		t.Fatalf("History = %v, %d; want %v, 4", histIDs(es), total, want)
	}
	if n := e.rdb.LLen(ctx, key).Val(); n != 7 {
		t.Fatalf("list length %d; want 7 (corrupt entries are kept)", n)
	}
}

func TestReview(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{HistoryTTL: time.Hour})
	ctx := corpusCtx(t)
	g := histGame("c1.g1", "G", histUser("u"), histAI, 0)
	tests := []struct {
		name    string
		archive bool
		id      persistence.GameID
		err     error
	}{
		{"not archived", false, g.ID, persistence.ErrNotFound},
		{"not a game ID", false, "nonsense", persistence.ErrNotFound},
		{"archived", true, g.ID, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.archive {
				if err := e.store.ArchiveGame(ctx, g); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := e.store.Review(ctx, tt.id); !errors.Is(err, persistence.ErrNotFound) {
				t.Fatalf("Review before saving: %v; want ErrNotFound", err)
			}
			data := []byte(`{"verdicts":["best"]}`)
			if err := e.store.SaveReview(ctx, tt.id, data); !errors.Is(err, tt.err) {
				t.Fatalf("SaveReview: %v; want %v", err, tt.err)
			}
			got, err := e.store.Review(ctx, tt.id)
			if tt.err != nil {
				if !errors.Is(err, persistence.ErrNotFound) {
					t.Fatalf("Review: %v; want ErrNotFound", err)
				}
				return
			}
			if err != nil || string(got) != string(data) {
				t.Fatalf("Review = %q, %v", got, err)
			}
			archive := e.rdb.PTTL(ctx, persistence.ArchiveKeyForTest(e.store, tt.id)).Val()
			review := e.rdb.PTTL(ctx, persistence.ReviewKeyForTest(e.store, tt.id)).Val()
			// Redis reads the clock to the millisecond, once for the
			// script that copies the TTL and again for each PTTL, so the
			// two may differ by a tick either way; the review must not
			// outlive the archive by more than that.
			const tick = 10 * time.Millisecond
			if review <= 0 || review > archive+tick || archive-review > time.Minute {
				t.Fatalf("review TTL %v, archive TTL %v; want the archive's", review, archive)
			}
		})
	}
}

// TestDeleteUserStatsHistoryAndPuzzles: forgetting a user removes their
// history and puzzle stats and places too, and leaves other users'.
func TestDeleteUserStatsHistoryAndPuzzles(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	if err := e.store.ArchiveGame(ctx, histGame("c1.g1", "G", histUser("100"), histUser("200"), 0)); err != nil {
		t.Fatal(err)
	}
	for _, guild := range []string{"G", "H", ""} {
		for _, u := range []string{"100", "200"} {
			if _, _, err := e.store.RecordPuzzle(ctx, guild, u, "2026-11-24", "3x3k3", true); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := e.store.DeleteUserStats(ctx, "100"); err != nil {
		t.Fatal(err)
	}
	if _, total, err := e.store.History(ctx, "100", "", "", 0, 10); err != nil || total != 0 {
		t.Errorf("history after delete: %d entries, %v", total, err)
	}
	if _, total, err := e.store.History(ctx, "200", "", "", 0, 10); err != nil || total != 1 {
		t.Errorf("the opponent's history: %d entries, %v", total, err)
	}
	for _, guild := range []string{"G", "H", ""} {
		if _, err := e.store.PuzzleStatsOf(ctx, guild, "100"); !errors.Is(err, persistence.ErrNotFound) {
			t.Errorf("puzzle stats in %q after delete: %v; want ErrNotFound", guild, err)
		}
		board, err := e.store.PuzzleLeaderboard(ctx, guild, 10)
		if err != nil || len(board) != 1 || board[0].User != "200" {
			t.Errorf("puzzle board in %q after delete: %+v, %v; want only 200", guild, board, err)
		}
	}
}
