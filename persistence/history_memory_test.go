package persistence_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// TestHistoryMemory measures the Redis memory a history entry costs, for
// BENCHMARKS.md ("Redis memory per stored history entry"): 1,000 entries
// from 500 rated games between people, with Discord-sized IDs (18-digit
// users and guilds, real game IDs), measured with MEMORY USAGE (SAMPLES 0,
// exact) on the history lists, at 10 entries per user and at 200 (a full
// history). It also reports an archived game's key, and the growth of
// used_memory per game (everything archiving a game adds, allocator
// rounding included). Run it with
//
//	go test -run TestHistoryMemory -v ./persistence/
func TestHistoryMemory(t *testing.T) {
	const entries = 1000
	for _, perUser := range []int{10, 200} {
		t.Run(fmt.Sprintf("%d per user", perUser), func(t *testing.T) {
			e := newCorpusEnv(t, persistence.Options{})
			ctx := corpusCtx(t)
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
			users := entries / perUser
			user := func(i int) string { return fmt.Sprintf("3141592653589793%02d", i%users) }
			var ids []persistence.GameID
			before := used()
			for i := range entries / 2 {
				// Each game gives two entries: user i plays user i+users/2, so
				// every user gets perUser entries.
				x, o := user(i), user(i+users/2)
				id := persistence.GameID(fmt.Sprintf("13111111111111%05d.%s", i%100, strings.Repeat("q", 13)[:13-len(strconv.Itoa(i))]+strconv.Itoa(i)))
				g := persistence.ArchivedGame{
					ID: id, Guild: "987654321098765432", Rules: "3x3k3", Moves: histWin,
					Players: [2]persistence.Player{{User: x}, {User: o}}, Result: game.XWins, End: persistence.ByWin,
					Finished: e.clk.Now().Add(time.Duration(i) * time.Second),
					Ratings: [2]persistence.RatingChange{
						{Rated: true, Before: 1187.6543, After: 1203.1234},
						{Rated: true, Before: 1254.0987, After: 1238.6296},
					},
				}
				if err := e.store.ArchiveGame(ctx, g); err != nil {
					t.Fatal(err)
				}
				ids = append(ids, id)
			}
			withArchives := used()
			var lists, archives, entryLen int64
			stored := 0
			for i := range users {
				key := persistence.HistoryKeyForTest(e.store, user(i))
				lists += e.rdb.MemoryUsage(ctx, key, 0).Val()
				stored += int(e.rdb.LLen(ctx, key).Val())
				if i == 0 {
					entryLen = int64(len(e.rdb.LIndex(ctx, key, 0).Val()))
				}
			}
			for _, id := range ids {
				archives += e.rdb.MemoryUsage(ctx, persistence.ArchiveKeyForTest(e.store, id), 0).Val()
			}
			if stored != entries {
				t.Fatalf("%d entries stored; want %d", stored, entries)
			}
			t.Logf("history entry: %d bytes of JSON; MEMORY USAGE of the history lists: %d bytes per entry (%d users, %d entries each)",
				entryLen, lists/int64(stored), users, stored/users)
			t.Logf("archived 3x3 game: MEMORY USAGE %d bytes; used_memory grew by %d bytes per game archived "+
				"(its archive and its two history entries, with the allocator's rounding and the key and expiry tables)",
				archives/int64(len(ids)), (withArchives-before)/int64(len(ids)))
			if per := lists / int64(stored); per > 300 {
				t.Errorf("%d bytes per history entry; want at most 300", per)
			}
		})
	}
}
