package persistence_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// The people and places of the forget tests: long IDs, as Discord's are,
// so that finding one in a dump cannot be a coincidence.
const (
	fgA     = "730000000000000001" // is forgotten
	fgB     = "730000000000000002" // plays fgA, and keeps everything of theirs
	fgC     = "730000000000000003" // blocked by fgB
	fgGuild = "810000000000000001"
	fgOther = "810000000000000002" // the other guild
	fgChA   = "910000000000000001" // a channel of fgGuild
	fgChB   = "910000000000000002" // a channel of fgOther
	fgChC   = "910000000000000003" // another channel of fgGuild
	fgDay   = "2026-11-21"
)

// fgWorld is what forgetPopulate stored.
type fgWorld struct {
	live, open, finished, vsAI persistence.GameID // games in play or kept for their boards
	archived                   []persistence.GameID
}

// forgetPopulate stores every kind of data for fgA and fgB in both guilds
// (and direct messages) through the Store's own methods.
func forgetPopulate(t *testing.T, ctx context.Context, s *persistence.Store, clk *testClock) fgWorld {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	var w fgWorld
	human := func(u string) persistence.Seat { return persistence.Seat{User: u} }
	ai := persistence.Seat{AI: persistence.AI{Level: "random"}}

	// Games kept for their boards: one finished between the two...
	g, err := s.CreateGame(ctx, fgChC, persistence.Session{Rules: "3x3k3", Players: [2]persistence.Seat{human(fgA), human(fgB)}, Guild: fgGuild})
	must(err)
	for i, c := range histWin {
		by := fgA
		if i%2 == 1 {
			by = fgB
		}
		g, err = s.Play(ctx, g.ID, g.Version, by, c)
		must(err)
	}
	if g.Status != persistence.StatusFinished {
		t.Fatalf("setup: game %s is %s", g.ID, g.Status)
	}
	w.finished = g.ID
	// ... then live ones: a game between them, a challenge of fgA's, and
	// fgB's game against the computer.
	g, err = s.CreateGame(ctx, fgChA, persistence.Session{Rules: "3x3k3", Players: [2]persistence.Seat{human(fgA), human(fgB)}, Guild: fgGuild})
	must(err)
	w.live = g.ID
	g, err = s.CreateGame(ctx, fgChB, persistence.Session{Rules: "3x3k3", Players: [2]persistence.Seat{human(fgA), {}},
		Challenger: game.X, Status: persistence.StatusOpen, Guild: fgOther})
	must(err)
	w.open = g.ID
	must(s.AddOpenChallenge(ctx, g))
	g, err = s.CreateGame(ctx, fgChB, persistence.Session{Rules: "3x3k3", Players: [2]persistence.Seat{human(fgB), ai}, Guild: fgOther})
	must(err)
	w.vsAI = g.ID

	// Finished games: counted, in the corpus, archived, some reviewed.
	finished := []struct {
		id, guild string
		x, o      persistence.Player
	}{
		{fgChA + ".g1", fgGuild, histUser(fgA), histUser(fgB)},
		{fgChB + ".g2", fgOther, histUser(fgB), histUser(fgA)},
		{fgChA + ".g3", fgGuild, histUser(fgA), histAI},
		{fgChB + ".g4", fgOther, histUser(fgB), histAI},
		{fgChC + ".g5", "", histUser(fgB), histUser(fgA)}, // a direct message
	}
	for i, f := range finished {
		fg := corpusGame(t, f.id, f.guild, f.x.User, f.o.User)
		fg.X, fg.O = f.x, f.o
		must(s.RecordGame(ctx, fg))
		ag := histGame(f.id, f.guild, f.x, f.o, i)
		if f.x.User != "" && f.o.User != "" {
			ag.Ratings = [2]persistence.RatingChange{{Rated: true, Before: 1200, After: 1216}, {Rated: true, Before: 1200, After: 1184}}
		}
		must(s.ArchiveGame(ctx, ag))
		must(s.SaveReview(ctx, ag.ID, []byte(`{"v":1}`)))
		w.archived = append(w.archived, ag.ID)
	}

	// Puzzles, in both guilds and in direct messages.
	for _, guild := range []string{fgGuild, fgOther, ""} {
		_, err := s.DailyPuzzle(ctx, guild, fgDay, "3x3k3", func() (string, error) { return "X--/-O-/---", nil })
		must(err)
		for _, u := range []string{fgA, fgB} {
			_, _, err := s.RecordPuzzle(ctx, guild, u, fgDay, "3x3k3", u == fgA)
			must(err)
		}
	}

	// Blocks, cooldowns, rate limits.
	for _, b := range [][2]string{{fgA, fgB}, {fgB, fgA}, {fgB, fgC}} {
		_, err := s.Block(ctx, b[0], b[1], 0)
		must(err)
	}
	for _, guild := range []string{fgGuild, ""} {
		for _, u := range []string{fgA, fgB} {
			_, _, err := s.ChallengeCooldown(ctx, guild, u, time.Hour, clk.Now())
			must(err)
		}
	}
	for _, u := range []string{fgA, fgB} {
		_, _, err := s.AllowUser(ctx, u, 5, 1, clk.Now())
		must(err)
		_, _, err = s.ThrottleUser(ctx, "forget-me", u, 2*time.Minute, clk.Now())
		must(err)
	}

	// Settings and the audit log, naming fgA as moderator and in details.
	for _, guild := range []string{fgGuild, fgOther} {
		must(s.SetGuildSetting(ctx, guild, "hints", "off", persistence.AuditEntry{User: fgA, Action: "set", Detail: "hints off"}))
		must(s.Audit(ctx, guild, persistence.AuditEntry{User: fgB, Action: "end-game", Detail: "<@" + fgA + "> <#" + fgChA + "> 1"}))
		must(s.Audit(ctx, guild, persistence.AuditEntry{User: fgB, Action: "retrain", Detail: "3x3k3"}))
	}
	return w
}

// forgetDump returns every key of the server (every master of a Cluster)
// with its value, whatever its type, one line per key.
func forgetDump(t *testing.T, ctx context.Context, rdb redis.UniversalClient) []string {
	t.Helper()
	var mu sync.Mutex
	var out []string
	dump := func(ctx context.Context, c *redis.Client) error {
		iter := c.Scan(ctx, 0, "*", 1000).Iterator()
		for iter.Next(ctx) {
			key := iter.Val()
			typ, err := c.Type(ctx, key).Result()
			if err != nil {
				return err
			}
			var v any
			switch typ {
			case "string":
				v, err = c.Get(ctx, key).Result()
			case "hash":
				v, err = c.HGetAll(ctx, key).Result()
			case "list":
				v, err = c.LRange(ctx, key, 0, -1).Result()
			case "set":
				v, err = c.SMembers(ctx, key).Result()
			case "zset":
				v, err = c.ZRangeWithScores(ctx, key, 0, -1).Result()
			case "stream":
				v, err = c.XRange(ctx, key, "-", "+").Result()
			default:
				err = fmt.Errorf("key %s of type %s", key, typ)
			}
			if err != nil && !errors.Is(err, redis.Nil) {
				return err
			}
			mu.Lock()
			out = append(out, fmt.Sprintf("%s (%s): %v", key, typ, v))
			mu.Unlock()
		}
		return iter.Err()
	}
	var err error
	switch c := rdb.(type) {
	case *redis.ClusterClient:
		err = c.ForEachMaster(ctx, dump)
	case *redis.Client:
		err = dump(ctx, c)
	default:
		t.Fatalf("client %T", rdb)
	}
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// keptFamilies are the keys that name a forgotten user by pseudonym on
// purpose: other users' blocks of them (their protection), and the
// short-lived cooldown, rate-limit and throttle state, which forgetting
// must not reset.
var keptFamilies = []string{"ttt:block:", "ttt:cooldown:", "ttt:rate:", "ttt:throttle:"}

// keptAfterForget returns the family of keptFamilies a dump line is in,
// "" for none; the user's own blocks (a set named by pseudonym) are in
// none.
func keptAfterForget(line, pseudonym string) string {
	if strings.HasPrefix(line, "ttt:block:{u:"+pseudonym+"}") {
		return ""
	}
	for _, f := range keptFamilies {
		if strings.HasPrefix(line, f) {
			return f
		}
	}
	return ""
}

// wantForgotten fails for every line of dump that names user, and every
// line that names their pseudonym but for what forgetting keeps on
// purpose, which must still be there (each family of keptFamilies).
func wantForgotten(t *testing.T, dump []string, user, pseudonym string) {
	t.Helper()
	wantNowhere(t, dump, user)
	var left []string
	kept := map[string]bool{}
	for _, line := range dump {
		if f := keptAfterForget(line, pseudonym); f != "" {
			kept[f] = kept[f] || strings.Contains(line, pseudonym)
		} else {
			left = append(left, line)
		}
	}
	wantNowhere(t, left, pseudonym)
	for _, f := range keptFamilies {
		if !kept[f] {
			t.Errorf("no %s key names the pseudonym after forgetting: it must be kept", f)
		}
	}
}

// wantNowhere fails for every line of dump that contains one of needles.
func wantNowhere(t *testing.T, dump []string, needles ...string) {
	t.Helper()
	for _, line := range dump {
		for _, n := range needles {
			if strings.Contains(line, n) {
				t.Errorf("%q is still stored: %s", n, line)
			}
		}
	}
}

// forgetCounts is the report without the sessions, for comparing.
func forgetCounts(r persistence.ForgetReport) persistence.ForgetReport {
	r.Ended = nil
	return r
}

func TestForgetUser(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	w := forgetPopulate(t, ctx, e.store, e.clk)
	pa, err := e.store.Pseudonym(fgA)
	if err != nil {
		t.Fatal(err)
	}
	pb, _ := e.store.Pseudonym(fgB)
	if dump := strings.Join(forgetDump(t, ctx, e.rdb), "\n"); !strings.Contains(dump, fgA) || !strings.Contains(dump, pa) {
		t.Fatal("setup: fgA or their pseudonym is stored nowhere")
	}

	// What fgB has, to compare after.
	type bView struct {
		stats, global persistence.Stats
		puzzle        persistence.PuzzleStats
		history       []persistence.HistoryEntry
		corpus        int
		rank          persistence.Standing
	}
	viewB := func() bView {
		t.Helper()
		var v bView
		var err error
		if v.stats, err = e.store.Stats(ctx, fgGuild, fgB); err != nil {
			t.Fatal(err)
		}
		if v.global, err = e.store.Stats(ctx, "", fgB); err != nil {
			t.Fatal(err)
		}
		if v.puzzle, err = e.store.PuzzleStatsOf(ctx, fgOther, fgB); err != nil {
			t.Fatal(err)
		}
		if v.history, _, err = e.store.History(ctx, fgB, "", "", 0, 100); err != nil {
			t.Fatal(err)
		}
		if v.rank, err = e.store.Rank(ctx, "", fgB); err != nil {
			t.Fatal(err)
		}
		b, err := e.store.ReadCorpus(ctx, "3x3k3", "", 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range b.Records {
			if r.Record.X.User == pb || r.Record.O.User == pb {
				v.corpus++
			}
		}
		return v
	}
	before := viewB()
	cs, err := e.store.CorpusStats(ctx, "3x3k3")
	if err != nil {
		t.Fatal(err)
	}

	rep, err := e.store.ForgetUser(ctx, fgA)
	if err != nil {
		t.Fatal(err)
	}
	want := persistence.ForgetReport{
		Stats:        3, // fgGuild, fgOther, global
		PuzzleStats:  3, // fgGuild, fgOther, direct messages
		Leaderboards: 6, // rated in three scopes, solved puzzles in three
		History:      4, // g1, g2, g3, g5
		Mentions:     3, // fgB's entries of g1, g2, g5
		Archives:     4, // g1, g2, g3, g5
		Reviews:      4,
		Games:        3, // live, open, finished
		Corpus:       4, // g1, g2, g3, g5
		Blocks:       1, // fgA's of fgB; fgB's of fgA is fgB's, and stays
		Audit:        4, // as moderator, and named in details, in two guilds
	}
	if got := forgetCounts(rep); !reflect.DeepEqual(got, want) {
		t.Errorf("report %+v\nwant   %+v", got, want)
	}
	var ended []persistence.GameID
	for _, s := range rep.Ended {
		ended = append(ended, s.ID)
		if s.Status.Live() || s.End != persistence.ByModerator || s.Result != game.Ongoing {
			t.Errorf("ended game %s is %s, %s, %s; want ended without a result", s.ID, s.Status, s.End, s.Result)
		}
		if s.SideOf(fgA) != game.Empty || s.SideOf(persistence.ForgottenUser) == game.Empty {
			t.Errorf("ended game %s has players %+v; want fgA anonymised", s.ID, s.Players)
		}
	}
	slices.Sort(ended)
	if wantEnded := []persistence.GameID{w.live, w.open}; !slices.Equal(ended, wantEnded) {
		t.Errorf("ended %v, want %v", ended, wantEnded)
	}

	// Neither fgA's ID nor their pseudonym is left, in any key or value.
	wantForgotten(t, forgetDump(t, ctx, e.rdb), fgA, pa)
	// Forgetting does not undo the protections against the user: fgB
	// still blocks them, and their cooldown still runs.
	if blocked, err := e.store.Blocked(ctx, fgB, fgA); err != nil || !blocked {
		t.Errorf("fgB's block of the forgotten fgA: %v %v, want kept", blocked, err)
	}
	if ok, _, err := e.store.ChallengeCooldown(ctx, fgGuild, fgA, time.Hour, e.clk.Now()); err != nil || ok {
		t.Errorf("fgA's cooldown after forgetting: ok %v %v, want still running", ok, err)
	}
	if ok, _, err := e.store.ThrottleUser(ctx, "forget-me", fgA, 2*time.Minute, e.clk.Now()); err != nil || ok {
		t.Errorf("fgA's forget-me throttle after forgetting: ok %v %v, want still running", ok, err)
	}

	// fgB keeps everything of theirs.
	after := viewB()
	if !reflect.DeepEqual(after.stats, before.stats) || after.global.Tally != before.global.Tally || after.global.Rating != before.global.Rating {
		t.Errorf("fgB's stats changed: %+v, was %+v", after.stats, before.stats)
	}
	if after.puzzle != before.puzzle || after.rank.Rating != before.rank.Rating || after.corpus != before.corpus {
		t.Errorf("fgB's puzzle stats, rating or corpus changed: %+v, was %+v", after, before)
	}
	if len(after.history) != len(before.history) {
		t.Fatalf("fgB's history has %d entries, had %d", len(after.history), len(before.history))
	}
	for i, h := range after.history {
		b := before.history[i]
		if b.Opponent.User == fgA {
			b.Opponent.User = persistence.ForgottenUser
		}
		if h.Game != b.Game || h.Opponent != b.Opponent || h.Rating != b.Rating || h.Result != b.Result {
			t.Errorf("fgB's history entry %d = %+v, want %+v", i, h, b)
		}
	}
	if after, err := e.store.CorpusStats(ctx, "3x3k3"); err != nil || after.Count != cs.Count {
		t.Errorf("the corpus has %d records (%v), had %d: the games must stay", after.Count, err, cs.Count)
	}
	g1, err := e.store.ArchivedGame(ctx, w.archived[0])
	if err != nil || g1.Players[0].User != persistence.ForgottenUser || g1.Players[1].User != fgB || !g1.Ratings[1].Rated {
		t.Errorf("archived g1 %+v (%v), want fgA anonymised and fgB's side as it was", g1, err)
	}
	if _, err := e.store.Review(ctx, w.archived[0]); !errors.Is(err, persistence.ErrNotFound) {
		t.Errorf("g1's review: %v, want it deleted", err)
	}
	if _, err := e.store.Review(ctx, w.archived[3]); err != nil {
		t.Errorf("fgB's own review of g4: %v", err)
	}
	if s, err := e.store.Game(ctx, w.vsAI); err != nil || s.Status != persistence.StatusActive {
		t.Errorf("fgB's game against the computer: %+v %v, want it still active", s, err)
	}
	if _, err := e.store.ActiveGame(ctx, fgChA, fgB); !errors.Is(err, persistence.ErrNotFound) {
		t.Errorf("fgB still has a live game in %s: %v", fgChA, err)
	}
	for _, id := range []persistence.GameID{w.live, w.open, w.finished} {
		if _, err := e.store.Game(ctx, id); !errors.Is(err, persistence.ErrNotFound) {
			t.Errorf("game %s: %v, want it deleted", id, err)
		}
	}
	if ok, err := e.store.Blocked(ctx, fgB, fgC); err != nil || !ok {
		t.Errorf("fgB's block of fgC: %v %v, want it kept", ok, err)
	}
	log, err := e.store.AuditLog(ctx, fgGuild, 10)
	// Newest first: retrain, end-game, set.
	if err != nil || len(log) != 3 || log[1].User != fgB || log[1].Detail != "<@0> <#"+fgChA+"> 1" || log[2].User != persistence.ForgottenUser {
		t.Errorf("audit log %+v (%v), want fgA replaced by %s", log, err, persistence.ForgottenUser)
	}
	if set, err := e.store.GuildSettings(ctx, fgGuild); err != nil || set["hints"] != "off" {
		t.Errorf("settings %v %v, want them kept", set, err)
	}

	// Again: nothing more.
	again, err := e.store.ForgetUser(ctx, fgA)
	if err != nil || again.Total() != 0 || len(again.Ended) != 0 {
		t.Errorf("a second ForgetUser: %+v %v, want nothing done", again, err)
	}
	// And another user's data is not touched by it.
	if v := viewB(); v.corpus != before.corpus || len(v.history) != len(before.history) {
		t.Errorf("fgB's data changed on the second run: %+v", v)
	}
	for _, bad := range []string{"", persistence.ForgottenUser, "a{b}", "a:b"} {
		if _, err := e.store.ForgetUser(ctx, bad); !errors.Is(err, persistence.ErrInvalid) {
			t.Errorf("ForgetUser(%q): %v, want ErrInvalid", bad, err)
		}
	}
}

func TestForgetGuild(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	w := forgetPopulate(t, ctx, e.store, e.clk)
	global, err := e.store.Stats(ctx, "", fgB)
	if err != nil {
		t.Fatal(err)
	}
	otherStats, err := e.store.Stats(ctx, fgOther, fgB)
	if err != nil {
		t.Fatal(err)
	}
	otherBoard, err := e.store.Leaderboard(ctx, fgOther, 0, 10)
	if err != nil {
		t.Fatal(err)
	}

	rep, err := e.store.ForgetGuild(ctx, fgGuild)
	if err != nil {
		t.Fatal(err)
	}
	want := persistence.ForgetReport{
		Stats:        2, // fgA's and fgB's
		PuzzleStats:  2,
		Leaderboards: 2, // ratings and puzzles
		Puzzles:      1,
		History:      3, // g1 in both histories, g3 in fgA's
		Archives:     2, // g1, g3
		Reviews:      2,
		Games:        2, // the live one and the finished one
		Settings:     1,
		Audit:        3,
	}
	if got := forgetCounts(rep); !reflect.DeepEqual(got, want) {
		t.Errorf("report %+v\nwant   %+v", got, want)
	}
	if len(rep.Ended) != 1 || rep.Ended[0].ID != w.live {
		t.Errorf("ended %+v, want the live game %s", rep.Ended, w.live)
	}

	dump := forgetDump(t, ctx, e.rdb)
	// The corpus keeps the games (it names no guild), so their IDs stay there.
	wantNowhere(t, dump, fgGuild, string(w.finished), string(w.live))
	for _, u := range []string{fgA, fgB} {
		if _, err := e.store.Stats(ctx, fgGuild, u); !errors.Is(err, persistence.ErrNotFound) {
			t.Errorf("stats of %s in the guild: %v, want none", u, err)
		}
	}
	// The other guild, direct messages and the global scope keep theirs.
	if st, err := e.store.Stats(ctx, fgOther, fgB); err != nil || st.Tally != otherStats.Tally {
		t.Errorf("stats in the other guild %+v %v, want %+v", st, err, otherStats)
	}
	if st, err := e.store.Stats(ctx, "", fgB); err != nil || st.Tally != global.Tally || st.Rating != global.Rating {
		t.Errorf("global stats %+v %v, want %+v", st, err, global)
	}
	if b, err := e.store.Leaderboard(ctx, fgOther, 0, 10); err != nil || !slices.Equal(b, otherBoard) {
		t.Errorf("the other guild's leaderboard %+v %v, want %+v", b, err, otherBoard)
	}
	h, n, err := e.store.History(ctx, fgB, "", "", 0, 100)
	if err != nil || n != 3 {
		t.Errorf("fgB's history: %d entries (%v), want g2, g4 and g5", n, err)
	}
	for _, x := range h {
		if x.Guild == fgGuild {
			t.Errorf("fgB's history keeps %s of the forgotten guild", x.Game)
		}
	}
	for _, id := range []persistence.GameID{w.archived[1], w.archived[3], w.archived[4]} {
		if _, err := e.store.ArchivedGame(ctx, id); err != nil {
			t.Errorf("archived %s: %v, want it kept", id, err)
		}
	}
	if set, err := e.store.GuildSettings(ctx, fgOther); err != nil || set["hints"] != "off" {
		t.Errorf("the other guild's settings %v %v", set, err)
	}
	if s, err := e.store.Game(ctx, w.open); err != nil || s.Status != persistence.StatusOpen {
		t.Errorf("the other guild's challenge %+v %v, want it open", s, err)
	}
	if st, err := e.store.PuzzleStatsOf(ctx, "", fgA); err != nil || st.Solved != 1 {
		t.Errorf("puzzle stats in direct messages %+v %v, want them kept", st, err)
	}

	again, err := e.store.ForgetGuild(ctx, fgGuild)
	if err != nil || again.Total() != 0 || len(again.Ended) != 0 {
		t.Errorf("a second ForgetGuild: %+v %v, want nothing done", again, err)
	}
	if _, err := e.store.ForgetGuild(ctx, ""); !errors.Is(err, persistence.ErrInvalid) {
		t.Errorf("ForgetGuild(\"\"): %v, want ErrInvalid", err)
	}
}

// TestForgetUserCluster forgets a user on a three-node Cluster: the SCAN
// covers every master and no step crosses slots.
func TestForgetUserCluster(t *testing.T) {
	rdb := corpusStartCluster(t)
	ctx := corpusCtx(t)
	clk := newTestClock()
	s := persistence.New(rdb, persistence.Options{Now: clk.Now, PseudonymKey: corpusTestKey})
	forgetPopulate(t, ctx, s, clk)
	pa, _ := s.Pseudonym(fgA)
	rep, err := s.ForgetUser(ctx, fgA)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Archives != 4 || rep.Corpus != 4 || rep.Stats != 3 || len(rep.Ended) != 2 {
		t.Errorf("report %+v", forgetCounts(rep))
	}
	wantForgotten(t, forgetDump(t, ctx, rdb), fgA, pa)
	if again, err := s.ForgetUser(ctx, fgA); err != nil || again.Total() != 0 {
		t.Errorf("a second ForgetUser: %+v %v", again, err)
	}
	if _, err := s.ForgetGuild(ctx, fgOther); err != nil {
		t.Fatal(err)
	}
	wantNowhere(t, forgetDump(t, ctx, rdb), fgOther)
}

// TestForgetCorpusUnlinked checks how the user's training records are
// rewritten: the games stay, with a fresh pseudonym per record and a
// fresh game ID, and a second report of a game is still refused.
func TestForgetCorpusUnlinked(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	for i := range 3 {
		g := corpusGame(t, fmt.Sprint(fgChA, ".c", i), fgGuild, fgA, fgB)
		if _, _, err := e.store.AppendGame(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	pb, _ := e.store.Pseudonym(fgB)
	if _, err := e.store.ForgetUser(ctx, fgA); err != nil {
		t.Fatal(err)
	}
	b, err := e.store.ReadCorpus(ctx, "3x3k3", "", 0)
	if err != nil || len(b.Records) != 3 || len(b.Corrupt) != 0 {
		t.Fatalf("corpus: %d records, %d corrupt (%v); want the 3 games", len(b.Records), len(b.Corrupt), err)
	}
	seen := map[string]bool{}
	for _, r := range b.Records {
		x, o := r.Record.X.User, r.Record.O.User
		if o != pb || len(x) != len(pb) || seen[x] || !strings.HasPrefix(r.Record.Game, "forgotten-") || seen[r.Record.Game] {
			t.Errorf("record %+v: want a fresh pseudonym for X, fgB's for O and a fresh game ID", r.Record)
		}
		seen[x], seen[r.Record.Game] = true, true
		if len(r.Record.Moves) != 5 || r.Record.Result != game.XWins.String() || !r.Record.Time.Equal(r.Record.Time.Truncate(time.Hour)) {
			t.Errorf("record %+v: want the game kept, its time to the hour", r.Record)
		}
	}
	// A late second report of a game is still recognised.
	if _, added, err := e.store.AppendGame(ctx, corpusGame(t, fgChA+".c0", fgGuild, fgA, fgB)); err != nil || added {
		t.Errorf("appending a forgotten game again: added %v, %v; want it refused as a duplicate", added, err)
	}
}

// TestForgetUserLegacy forgets a user whose protections were stored by
// Discord ID, as before they were named by pseudonym (and as a replica of
// that version may still store them during an upgrade), and whose ID a
// kept retrain candidate's report holds: afterwards the ID is nowhere,
// and the protections still hold, under the pseudonym.
func TestForgetUserLegacy(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	s, now := e.store, e.clk.Now()
	pa, _ := s.Pseudonym(fgA)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// fgB blocks fgA and fgC, fgA blocks fgB, by ID.
	must(e.rdb.SAdd(ctx, "ttt:block:{u:"+fgB+"}", fgA, fgC).Err())
	must(e.rdb.SAdd(ctx, "ttt:block:{u:"+fgA+"}", fgB).Err())
	// fgA's cooldowns in a guild and in direct messages, rate bucket and
	// forget-me throttle, by ID, with their times to live.
	until := strconv.FormatInt(now.Add(time.Hour).UnixMilli(), 10)
	must(e.rdb.Set(ctx, "ttt:cooldown:{g:"+fgGuild+"}:"+fgA, until, time.Hour).Err())
	must(e.rdb.Set(ctx, "ttt:cooldown:{global}:"+fgA, until, time.Hour).Err())
	tat := strconv.FormatInt(now.Add(time.Hour).UnixMicro(), 10)
	must(e.rdb.Set(ctx, "ttt:rate:{u:"+fgA+"}", tat, time.Hour).Err())
	must(e.rdb.Set(ctx, "ttt:throttle:{forget-me:"+fgA+"}", until, time.Hour).Err())
	// A rejected candidate whose run fgA asked for.
	report := `{"rules":"3x3k3","trigger":"moderator","by":"` + fgA + `","workers":4,"reason":"gate <0.5"}`
	_, err := s.SaveCandidate(ctx, "3x3k3", persistence.CandidateMeta{Report: json.RawMessage(report)}, []byte("weights"))
	must(err)

	rep, err := s.ForgetUser(ctx, fgA)
	must(err)
	if got, want := forgetCounts(rep), (persistence.ForgetReport{Blocks: 1, Audit: 1}); !reflect.DeepEqual(got, want) {
		t.Errorf("report %+v\nwant   %+v", got, want)
	}
	dump := forgetDump(t, ctx, e.rdb)
	wantNowhere(t, dump, `"`+fgA+`"`, "{u:"+fgA+"}", ":"+fgA)
	// The protections hold, under the pseudonym, with their times to live.
	for _, b := range [][2]string{{fgB, fgA}, {fgB, fgC}} {
		if ok, err := s.Blocked(ctx, b[0], b[1]); err != nil || !ok {
			t.Errorf("Blocked(%s, %s) = %v, %v; want kept", b[0], b[1], ok, err)
		}
	}
	if ok, _ := s.Blocked(ctx, fgA, fgB); ok {
		t.Error("fgA's own block of fgB is kept")
	}
	for _, guild := range []string{fgGuild, ""} {
		if ok, u, err := s.ChallengeCooldown(ctx, guild, fgA, time.Minute, now); err != nil || ok || !u.Equal(now.Add(time.Hour)) {
			t.Errorf("fgA's cooldown in %q = %v until %v, %v; want it running until %v", guild, ok, u, err, now.Add(time.Hour))
		}
	}
	if ok, _, err := s.ThrottleUser(ctx, "forget-me", fgA, time.Minute, now); err != nil || ok {
		t.Errorf("fgA's forget-me throttle = %v, %v; want it running", ok, err)
	}
	for _, k := range []string{"ttt:rate:{u:" + pa + "}", "ttt:throttle:{forget-me:" + pa + "}"} {
		if ttl := e.rdb.PTTL(ctx, k).Val(); ttl < 59*time.Minute || ttl > time.Hour {
			t.Errorf("%s: TTL %v, want the hour it had", k, ttl)
		}
	}
	if v := e.rdb.Get(ctx, "ttt:rate:{u:"+pa+"}").Val(); v != tat {
		t.Errorf("fgA's rate bucket holds %q, want %q as it was", v, tat)
	}
	// The candidate's report names the forgotten user; its numbers stay.
	m, _, err := s.LoadCandidate(ctx, "3x3k3")
	must(err)
	var got map[string]any
	must(json.Unmarshal(m.Report, &got))
	if got["by"] != persistence.ForgottenUser || got["workers"] != 4.0 || got["reason"] != "gate <0.5" {
		t.Errorf("candidate report %s, want fgA replaced by %s and the rest kept", m.Report, persistence.ForgottenUser)
	}

	if again, err := s.ForgetUser(ctx, fgA); err != nil || again.Total() != 0 {
		t.Errorf("a second ForgetUser: %+v %v, want nothing done", forgetCounts(again), err)
	}
}
