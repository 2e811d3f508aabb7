package persistence_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/persistence"
)

// TestMemoryPerGame checks the budget: under 1 KB of Redis memory
// per active 3x3 game, both for the game's own key (MEMORY USAGE) and for
// everything a game adds (its key, its deadline-index entry, its players'
// places), measured as used_memory over 1,000 games.
func TestMemoryPerGame(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	used := func() int64 {
		info := e.rdb.Info(ctx, "memory").Val()
		for line := range strings.SplitSeq(info, "\r\n") {
			if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
				n, _ := strconv.ParseInt(v, 10, 64)
				return n
			}
		}
		t.Fatal("no used_memory in INFO")
		return 0
	}
	const games = 1000
	before := used()
	var worst, sum int64
	channels := map[string]bool{}
	for i := range games {
		g := sessHumanGame(fmt.Sprintf("1000000000000%05d", i), fmt.Sprintf("2000000000000%05d", i))
		g.Guild, g.TurnTime = "123456789012345678", time.Minute
		s, err := e.store.CreateGame(ctx, fmt.Sprintf("3000000000000%05d", i%100), g)
		if err != nil {
			t.Fatal(err)
		}
		if s, err = e.store.SetMessage(ctx, s.ID, s.Version, "1311111111111111111"); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ by string }{{g.Players[0].User}, {g.Players[1].User}, {g.Players[0].User}, {g.Players[1].User}} {
			p, _ := s.Position()
			if s, err = e.store.Play(ctx, s.ID, s.Version, c.by, p.Empty().First()); err != nil {
				t.Fatal(err)
			}
		}
		n := e.rdb.MemoryUsage(ctx, persistence.GameKeyForTest(e.store, s.ID)).Val()
		worst, sum = max(worst, n), sum+n
		channels[s.Channel()] = true
	}
	sum += e.rdb.MemoryUsage(ctx, persistence.DueKeyForTest(e.store)).Val()
	for ch := range channels {
		sum += e.rdb.MemoryUsage(ctx, persistence.ActiveKeyForTest(e.store, ch)).Val()
	}
	per := sum / games
	t.Logf("MEMORY USAGE per active 3x3 game after 4 moves: game key at most %d bytes; "+
		"with its share of the deadline index and the active maps %d bytes; used_memory grew by %d bytes per game",
		worst, per, (used()-before)/games)
	if worst >= 1024 || per >= 1024 {
		t.Errorf("over the 1 KB budget: key %d bytes, all keys %d bytes per game", worst, per)
	}
}
