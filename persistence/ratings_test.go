package persistence_test

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// elo is the update the Store documents, for the expected values.
func elo(ra, rb, score float64) (float64, float64) {
	ea := 1 / (1 + math.Pow(10, (rb-ra)/400))
	return ra + persistence.RatingK*(score-ea), rb + persistence.RatingK*((1-score)-(1-ea))
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-3 }

func TestRecordResult(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	hh := func(id, guild, x, o string, r game.Result) persistence.FinishedGame {
		g := corpusGame(t, id, guild, x, o)
		g.Result = r
		return g
	}
	ai := func(id, guild string, x, o persistence.Player, r game.Result) persistence.FinishedGame {
		g := corpusGame(t, id, guild, "", "")
		g.X, g.O, g.Result = x, o, r
		return g
	}
	alice, bob, carol := "100", "200", "300"
	steps := []struct {
		g       persistence.FinishedGame
		counted bool
	}{
		{hh("g1", "G", alice, bob, game.XWins), true},
		{hh("g2", "G", bob, alice, game.OWins), true},
		{hh("g3", "H", carol, alice, game.Draw), true},
		{hh("g4", "", alice, carol, game.XWins), true}, // a direct-message game: global only
		{ai("g5", "G", persistence.Player{User: alice}, persistence.Player{AI: "perfect"}, game.Draw), true},
		{ai("g6", "G", persistence.Player{AI: "perfect"}, persistence.Player{User: alice}, game.XWins), true},
		{ai("g7", "H", persistence.Player{AI: "easy"}, persistence.Player{User: bob}, game.OWins), true},
		{ai("g8", "G", persistence.Player{AI: "easy"}, persistence.Player{AI: "perfect"}, game.OWins), false},
		{hh("g9", "G", alice, alice, game.XWins), false},
	}
	for _, s := range steps {
		counted, err := e.store.RecordResult(ctx, s.g)
		if err != nil || counted != s.counted {
			t.Fatalf("RecordResult(%s) = %v, %v; want %v", s.g.ID, counted, err, s.counted)
		}
	}

	// Ratings, replayed by hand.
	aG, bG := elo(persistence.RatingStart, persistence.RatingStart, 1) // g1 in G
	bG, aG = elo(bG, aG, 0)                                            // g2 in G: bob (X) loses
	cH, aH := elo(persistence.RatingStart, persistence.RatingStart, 0.5)
	a, b := elo(persistence.RatingStart, persistence.RatingStart, 1) // global g1
	b, a = elo(b, a, 0)                                              // global g2
	c, a := elo(persistence.RatingStart, a, 0.5)                     // global g3
	a, c = elo(a, c, 1)                                              // global g4

	tests := []struct {
		guild, user string
		want        persistence.Stats
	}{
		{"G", alice, persistence.Stats{Games: 4, Tally: persistence.Tally{Wins: 2, Losses: 1, Draws: 1}, Rating: aG, Rated: 2,
			VsAI: map[string]persistence.Tally{"perfect": {Losses: 1, Draws: 1}}}},
		{"G", bob, persistence.Stats{Games: 2, Tally: persistence.Tally{Losses: 2}, Rating: bG, Rated: 2, VsAI: map[string]persistence.Tally{}}},
		{"H", alice, persistence.Stats{Games: 1, Tally: persistence.Tally{Draws: 1}, Rating: aH, Rated: 1, VsAI: map[string]persistence.Tally{}}},
		{"H", bob, persistence.Stats{Games: 1, Tally: persistence.Tally{Wins: 1}, Rating: persistence.RatingStart,
			VsAI: map[string]persistence.Tally{"easy": {Wins: 1}}}},
		{"H", carol, persistence.Stats{Games: 1, Tally: persistence.Tally{Draws: 1}, Rating: cH, Rated: 1, VsAI: map[string]persistence.Tally{}}},
		{"", alice, persistence.Stats{Games: 6, Tally: persistence.Tally{Wins: 3, Losses: 1, Draws: 2}, Rating: a, Rated: 4,
			VsAI: map[string]persistence.Tally{"perfect": {Losses: 1, Draws: 1}}}},
		{"", bob, persistence.Stats{Games: 3, Tally: persistence.Tally{Wins: 1, Losses: 2}, Rating: b, Rated: 2,
			VsAI: map[string]persistence.Tally{"easy": {Wins: 1}}}},
		{"", carol, persistence.Stats{Games: 2, Tally: persistence.Tally{Losses: 1, Draws: 1}, Rating: c, Rated: 2, VsAI: map[string]persistence.Tally{}}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s", tt.guild, tt.user), func(t *testing.T) {
			got, err := e.store.Stats(ctx, tt.guild, tt.user)
			if err != nil {
				t.Fatal(err)
			}
			w := tt.want
			w.User, w.Guild = tt.user, tt.guild
			if !near(got.Rating, w.Rating) {
				t.Errorf("rating %.4f; want %.4f", got.Rating, w.Rating)
			}
			got.Rating = w.Rating
			if fmt.Sprint(got) != fmt.Sprint(w) {
				t.Errorf("Stats =\n%+v\nwant\n%+v", got, w)
			}
		})
	}
	if _, err := e.store.Stats(ctx, "G", carol); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("stats of a stranger: %v; want ErrNotFound", err)
	}

	// Leaderboards: global alice > carol? Compare with the hand replay.
	board, err := e.store.Leaderboard(ctx, "", 0, 10)
	if err != nil || len(board) != 3 {
		t.Fatalf("global leaderboard %v, %v", board, err)
	}
	for i := 1; i < len(board); i++ {
		if board[i].Rating > board[i-1].Rating || board[i].Rank != int64(i+1) {
			t.Fatalf("leaderboard out of order: %v", board)
		}
	}
	page2, err := e.store.Leaderboard(ctx, "", 1, 1)
	if err != nil || len(page2) != 1 || page2[0] != board[1] {
		t.Fatalf("page 2 of size 1 = %v, %v; want %v", page2, err, board[1])
	}
	for _, st := range board {
		r, err := e.store.Rank(ctx, "", st.User)
		if err != nil || r != st {
			t.Fatalf("Rank(%s) = %v, %v; want %v", st.User, r, err, st)
		}
	}
	if _, err := e.store.Rank(ctx, "G", carol); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("rank of an unrated user: %v; want ErrNotFound", err)
	}
	if g, err := e.store.Leaderboard(ctx, "G", 0, 10); err != nil || len(g) != 2 || g[0].User != alice {
		t.Fatalf("guild G leaderboard %v, %v", g, err)
	}
	if _, err := e.store.RecordResult(ctx, hh("", "G", alice, bob, game.XWins)); !errors.Is(err, persistence.ErrInvalid) {
		t.Fatalf("no game ID: %v; want ErrInvalid", err)
	}
	if _, err := e.store.RecordResult(ctx, hh("g10", "G", alice, bob, game.Ongoing)); !errors.Is(err, persistence.ErrInvalid) {
		t.Fatalf("ongoing: %v; want ErrInvalid", err)
	}
}

// TestRecordResultExactlyOnce reports one game twice, then concurrently
// from two Stores, then as a retry after a timeout that left the guild
// scope counted but not the global one: every count changes once.
func TestRecordResultExactlyOnce(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	other := e.another(t)
	g := corpusGame(t, "once", "G", "100", "200")
	for i, want := range []bool{true, false} {
		if counted, err := e.store.RecordResult(ctx, g); err != nil || counted != want {
			t.Fatalf("report %d: %v, %v; want %v", i+1, counted, err, want)
		}
	}
	g2 := corpusGame(t, "race", "G", "100", "200")
	var wg sync.WaitGroup
	var mu sync.Mutex
	counts := 0
	for i := range 16 {
		st := e.store
		if i%2 == 1 {
			st = other
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			counted, err := st.RecordResult(ctx, g2)
			if err != nil {
				t.Error(err)
			}
			if counted {
				mu.Lock()
				counts++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if counts != 1 {
		t.Fatalf("concurrent reports counted %d times; want 1", counts)
	}
	g3 := corpusGame(t, "retry", "G", "100", "200")
	if err := persistence.RecordGuildOnlyForTest(ctx, e.store, g3); err != nil {
		t.Fatal(err)
	}
	if counted, err := other.RecordResult(ctx, g3); err != nil || !counted {
		t.Fatalf("retry: %v, %v; want true (the global scope)", counted, err)
	}
	if counted, err := e.store.RecordResult(ctx, g3); err != nil || counted {
		t.Fatalf("second retry: %v, %v; want false", counted, err)
	}
	r1, r2 := persistence.RatingStart, persistence.RatingStart
	for range 3 {
		r1, r2 = elo(r1, r2, 1)
	}
	for _, guild := range []string{"G", ""} {
		st, err := e.store.Stats(ctx, guild, "100")
		if err != nil || st.Games != 3 || st.Wins != 3 || st.Rated != 3 || !near(st.Rating, r1) {
			t.Fatalf("%q: %+v, %v; want 3 games won, rating %.4f", guild, st, err, r1)
		}
		st, err = e.store.Stats(ctx, guild, "200")
		if err != nil || st.Games != 3 || st.Losses != 3 || !near(st.Rating, r2) {
			t.Fatalf("%q: %+v, %v; want 3 games lost, rating %.4f", guild, st, err, r2)
		}
	}
}

func TestDeleteUserStats(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	games := []persistence.FinishedGame{
		corpusGame(t, "a", "G", "100", "200"),
		corpusGame(t, "b", "H", "200", "100"),
		corpusGame(t, "c", "", "100", "300"),
	}
	ai := corpusGame(t, "d", "K", "100", "")
	ai.O = persistence.Player{AI: "mcts"}
	for _, g := range append(games, ai) {
		if _, err := e.store.RecordResult(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.store.DeleteUserStats(ctx, "100"); err != nil {
		t.Fatal(err)
	}
	for _, guild := range []string{"G", "H", "K", ""} {
		if _, err := e.store.Stats(ctx, guild, "100"); !errors.Is(err, persistence.ErrNotFound) {
			t.Errorf("stats in %q after delete: %v; want ErrNotFound", guild, err)
		}
		if _, err := e.store.Rank(ctx, guild, "100"); !errors.Is(err, persistence.ErrNotFound) {
			t.Errorf("rank in %q after delete: %v; want ErrNotFound", guild, err)
		}
	}
	if st, err := e.store.Stats(ctx, "G", "200"); err != nil || st.Games != 1 {
		t.Fatalf("the opponent's stats: %+v, %v", st, err)
	}
	// A retried report of an old game does not bring the stats back.
	if counted, err := e.store.RecordResult(ctx, games[0]); err != nil || counted {
		t.Fatalf("retry after delete: %v, %v", counted, err)
	}
}

// TestRecordGame: the bot's one call counts and appends once, and refuses
// a game that does not replay before counting anything.
func TestRecordGame(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	g := corpusGame(t, "rg", "G", "100", "200")
	for range 2 {
		if err := e.store.RecordGame(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	if st, err := e.store.Stats(ctx, "G", "100"); err != nil || st.Games != 1 {
		t.Fatalf("stats %+v, %v; want 1 game", st, err)
	}
	if st, err := e.store.CorpusStats(ctx, "3x3k3"); err != nil || st.Count != 1 {
		t.Fatalf("corpus %+v, %v; want 1 record", st, err)
	}
	bad := corpusGame(t, "rg-bad", "G", "100", "200")
	bad.Result = game.OWins
	if err := e.store.RecordGame(ctx, bad); !errors.Is(err, persistence.ErrInvalid) {
		t.Fatalf("bad game: %v; want ErrInvalid", err)
	}
	if st, _ := e.store.Stats(ctx, "G", "100"); st.Games != 1 {
		t.Fatalf("a refused game was counted: %+v", st)
	}
}
