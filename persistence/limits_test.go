package persistence_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// liveRig creates games of every kind for the live-game tests.
type liveRig struct {
	t   *testing.T
	ctx context.Context
	s   *persistence.Store
}

func (r liveRig) create(channel string, g persistence.Session) *persistence.Session {
	r.t.Helper()
	g.Rules = "3x3k3"
	s, err := r.s.CreateGame(r.ctx, channel, g)
	if err != nil {
		r.t.Fatal(err)
	}
	return s
}

// challenge is user's open challenge to anyone.
func (r liveRig) challenge(channel, guild, user string) *persistence.Session {
	return r.create(channel, persistence.Session{Status: persistence.StatusOpen, Challenger: game.X,
		Players: [2]persistence.Seat{{User: user}, {}}, Guild: guild})
}

// vsAI is user's game against the computer.
func (r liveRig) vsAI(channel, guild, user string) *persistence.Session {
	return r.create(channel, persistence.Session{Players: [2]persistence.Seat{{User: user}, {AI: persistence.AI{Level: "random"}}}, Guild: guild})
}

// duel is an AI duel.
func (r liveRig) duel(channel, guild string) *persistence.Session {
	ai := persistence.Seat{AI: persistence.AI{Level: "random"}}
	return r.create(channel, persistence.Session{Players: [2]persistence.Seat{ai, ai}, Guild: guild})
}

// want checks the live games of channels and of users in guild, counted
// in full and with a limit below the count.
func (r liveRig) want(step string, s *persistence.Store, guild string, channels, users map[string]int) {
	r.t.Helper()
	for ch, want := range channels {
		if n, err := s.ChannelGames(r.ctx, ch, 0); err != nil || n != want {
			r.t.Errorf("%s: ChannelGames(%s) = %d, %v; want %d", step, ch, n, err, want)
		}
		if want > 1 {
			if n, err := s.ChannelGames(r.ctx, ch, want-1); err != nil || n != want-1 {
				r.t.Errorf("%s: ChannelGames(%s, at most %d) = %d, %v", step, ch, want-1, n, err)
			}
		}
	}
	for u, want := range users {
		if n, err := s.UserGames(r.ctx, guild, u, 0); err != nil || n != want {
			r.t.Errorf("%s: UserGames(%s, %s) = %d, %v; want %d", step, guild, u, n, err, want)
		}
	}
}

// TestGameLimitCounts follows the counts of live games per channel and per
// player through every way a game starts and ends: created, accepted,
// won or resigned, declined, ended by a moderator, expired by the sweeper,
// and dropped by Redis; another Store (a replica, or the bot restarted)
// sees the same counts.
func TestGameLimitCounts(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{ChallengeTTL: 5 * time.Minute, IdleTTL: time.Hour})
	ctx := corpusCtx(t)
	r := liveRig{t: t, ctx: ctx, s: e.store}

	r.want("before any game", e.store, "G", map[string]int{"c1": 0}, map[string]int{"a": 0})
	ch := r.challenge("c1", "G", "a")
	r.want("a challenge", e.store, "G", map[string]int{"c1": 1}, map[string]int{"a": 1, "b": 0})
	if _, err := e.store.Accept(ctx, ch.ID, 0, "b"); err != nil {
		t.Fatal(err)
	}
	r.want("accepted", e.store, "G", map[string]int{"c1": 1}, map[string]int{"a": 1, "b": 1})
	r.vsAI("c1", "G", "c")
	duel := r.duel("c1", "G")
	ch2 := r.challenge("c2", "G", "a")
	r.challenge("c3", "H", "a") // another guild
	r.want("four more", e.store, "G", map[string]int{"c1": 3, "c2": 1}, map[string]int{"a": 2, "b": 1, "c": 1})
	r.want("another guild", e.store, "H", map[string]int{"c3": 1}, map[string]int{"a": 1, "b": 0})
	r.want("another replica", e.another(t), "G", map[string]int{"c1": 3}, map[string]int{"a": 2})
	if ttl := e.rdb.PTTL(ctx, "ttt:live:{g:G}:a").Val(); ttl < 29*24*time.Hour || ttl > 30*24*time.Hour {
		t.Errorf("player index TTL %v, want 30 days", ttl)
	}

	// Games end in every way.
	if _, err := e.store.Resign(ctx, ch.ID, 0, "a"); err != nil {
		t.Fatal(err)
	}
	r.want("resigned", e.store, "G", map[string]int{"c1": 2}, map[string]int{"a": 1, "b": 0})
	if _, err := e.store.Decline(ctx, ch2.ID, 0, "a"); err != nil {
		t.Fatal(err)
	}
	r.want("cancelled", e.store, "G", map[string]int{"c2": 0}, map[string]int{"a": 0})
	if _, err := e.store.EndByModerator(ctx, duel.ID, 0); err != nil {
		t.Fatal(err)
	}
	r.want("ended by a moderator", e.store, "G", map[string]int{"c1": 1}, map[string]int{"c": 1})
	g := r.vsAI("c4", "G", "d")
	for i, c := range []string{"0 0", "1 0", "0 1", "1 1", "0 2"} { // X, the player, wins the top row
		by := "d"
		if i%2 == 1 {
			by = "" // the AI's moves, chosen by the test
		}
		var err error
		if g, err = e.store.Play(ctx, g.ID, g.Version, by, corpusCells(t, game.Classic(), c)[0]); err != nil {
			t.Fatal(err)
		}
	}
	if g.Status != persistence.StatusFinished {
		t.Fatalf("game %s is %s, want finished", g.ID, g.Status)
	}
	r.want("won", e.store, "G", map[string]int{"c4": 0}, map[string]int{"d": 0})
	r.challenge("c5", "G", "e")
	e.clk.Advance(time.Hour + time.Second)
	if got, err := e.store.Sweep(ctx, 10); err != nil || len(got) != 3 {
		t.Fatalf("Sweep = %d games, %v; want the game and the challenges in c3 and c5 expired", len(got), err)
	}
	r.want("expired", e.store, "G", map[string]int{"c1": 0, "c5": 0}, map[string]int{"c": 0, "e": 0})
	r.want("expired in another guild", e.store, "H", map[string]int{"c3": 0}, map[string]int{"a": 0})
	gone := r.vsAI("c6", "G", "f")
	r.want("before Redis drops it", e.store, "G", map[string]int{"c6": 1}, map[string]int{"f": 1})
	if err := e.rdb.Del(ctx, "ttt:{c6}:g:"+string(gone.ID)[len("c6."):]).Err(); err != nil {
		t.Fatal(err)
	}
	r.want("dropped by Redis", e.store, "G", map[string]int{"c6": 0}, map[string]int{"f": 0})

	// Counting dropped the entries of games that ended: the indexes are
	// gone, not just uncounted.
	for _, pattern := range []string{"ttt:{c*}:live", "ttt:live:*"} {
		for _, key := range e.rdb.Keys(ctx, pattern).Val() {
			t.Errorf("%s still exists: %v", key, e.rdb.ZRange(ctx, key, 0, -1).Val())
		}
	}

	// Direct messages: the channel counts, no player index is kept.
	r.vsAI("dm1", "", "g")
	r.want("direct message", e.store, "", map[string]int{"dm1": 1}, map[string]int{"g": 0})
	if keys := e.rdb.Keys(ctx, "ttt:live:*").Val(); len(keys) != 0 {
		t.Errorf("player indexes %v after a game in direct messages, want none", keys)
	}
	if _, err := e.store.ChannelGames(ctx, "bad{channel}", 0); err == nil {
		t.Error("ChannelGames of a channel ID with braces: no error")
	}
}

// hgets counts the HGET commands sent, alone or in pipelines.
type hgets struct{ n atomic.Int64 }

func (*hgets) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *hgets) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if cmd.Name() == "hget" {
			h.n.Add(1)
		}
		return next(ctx, cmd)
	}
}

func (h *hgets) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, c := range cmds {
			if c.Name() == "hget" {
				h.n.Add(1)
			}
		}
		return next(ctx, cmds)
	}
}

// TestGameLimitCountsAtMost checks that a count with a limit reads about that
// many games, and that the entries of ended games it meets are dropped
// once; and that an index no limit ever counts stays bounded.
func TestGameLimitCountsAtMost(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	r := liveRig{t: t, ctx: ctx, s: e.store}
	var h hgets
	e.rdb.AddHook(&h)

	var duels []*persistence.Session
	for range 40 {
		duels = append(duels, r.duel("c1", "G"))
		e.clk.Advance(time.Millisecond) // index order is creation order
	}
	for _, d := range duels[:30] {
		if _, err := e.store.EndByModerator(ctx, d.ID, 0); err != nil {
			t.Fatal(err)
		}
	}
	h.n.Store(0)
	if n, err := e.store.ChannelGames(ctx, "c1", 3); err != nil || n != 3 {
		t.Fatalf("ChannelGames(at most 3) = %d, %v; want 3", n, err)
	}
	// Pages of 3+8: the 30 ended games and the first 3 live ones.
	if got := h.n.Load(); got != 33 {
		t.Errorf("the first count read %d games, want 33 (three pages)", got)
	}
	if n := e.rdb.ZCard(ctx, "ttt:{c1}:live").Val(); n != 10 {
		t.Errorf("index keeps %d entries after the count, want the 10 live games", n)
	}
	h.n.Store(0)
	if n, err := e.store.ChannelGames(ctx, "c1", 3); err != nil || n != 3 {
		t.Fatalf("ChannelGames(at most 3) again = %d, %v; want 3", n, err)
	}
	if got := h.n.Load(); got > 11 {
		t.Errorf("the second count read %d games, want at most a page of 11", got)
	}
	if n, err := e.store.ChannelGames(ctx, "c1", 0); err != nil || n != 10 {
		t.Fatalf("ChannelGames(all) = %d, %v; want 10", n, err)
	}

	// Nothing counts c2 (no limit set): its index keeps the newest 256.
	for range 270 {
		r.duel("c2", "G")
		e.clk.Advance(time.Millisecond)
	}
	if n := e.rdb.ZCard(ctx, "ttt:{c2}:live").Val(); n != 256 {
		t.Errorf("index of 270 games keeps %d entries, want 256", n)
	}
	if n, err := e.store.ChannelGames(ctx, "c2", 0); err != nil || n != 256 {
		t.Errorf("ChannelGames(c2) = %d, %v; want the 256 indexed", n, err)
	}
}

// TestGameLimitCountsCluster counts a player's games over channels on every
// node of a three-node Redis Cluster.
func TestGameLimitCountsCluster(t *testing.T) {
	seeds := sessStartCluster(t)
	ctx := corpusCtx(t)
	rdb, closeFn, err := persistence.Open(ctx, persistence.OpenOptions{URL: seeds})
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	clk := newTestClock()
	s := persistence.New(rdb, persistence.Options{Now: clk.Now})
	r := liveRig{t: t, ctx: ctx, s: s}
	var games []*persistence.Session
	for i := range 10 {
		games = append(games, r.challenge(fmt.Sprintf("%d", 6000+i), "G", "u"))
	}
	r.want("ten channels", s, "G", map[string]int{"6000": 1, "6009": 1}, map[string]int{"u": 10})
	for _, g := range games[:3] {
		if _, err := s.Decline(ctx, g.ID, 0, "u"); err != nil {
			t.Fatal(err)
		}
	}
	r.want("three cancelled", s, "G", map[string]int{"6000": 0, "6009": 1}, map[string]int{"u": 7})
}
