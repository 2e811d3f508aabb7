package persistence_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tttbot/ttt-bot/game"

	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

// BenchmarkMoveCommit measures committed moves against a private
// redis-server with the append-only file on, with 1, 64 and 1,024 games
// played at once, one goroutine per game. Each game is 3x3 with a turn
// clock; a finished game is replaced by a new one (its creation counts in
// the wall time, not in the latencies). Play loads the game and runs the
// compare-and-set script (two round trips), except that with the Store's
// session cache on (the default) a Play at the version this Store last
// committed skips the load (one round trip); "nocache" turns the cache off.
// PlayOn runs the script on the session the previous move returned (one).
// It reports moves/s over the wall time and the p50 and p99 latency of one
// move, in microseconds. See BENCHMARKS.md for the figures.
// TTT_BENCH_MAXPIPELINES sets Options.MaxPipelines, for tuning.
func BenchmarkMoveCommit(b *testing.B) {
	srv := redistest.Start(b)
	def, noCache := persistence.Options{}, persistence.Options{SessionCache: -1}
	if n := os.Getenv("TTT_BENCH_MAXPIPELINES"); n != "" { // for tuning
		def.MaxPipelines, _ = strconv.Atoi(n)
		noCache.MaxPipelines = def.MaxPipelines
	}
	for _, tt := range []struct {
		name  string
		games int
		load  bool
		rate  int // moves/s offered in all, paced; 0 plays flat out
		opts  persistence.Options
	}{
		{"Play/games=1", 1, true, 0, def}, {"Play/games=64", 64, true, 0, def}, {"Play/games=1024", 1024, true, 0, def},
		{"Play/games=1/nocache", 1, true, 0, noCache}, {"Play/games=64/nocache", 64, true, 0, noCache},
		{"Play/games=1024/nocache", 1024, true, 0, noCache},
		{"PlayOn/games=1", 1, false, 0, def}, {"PlayOn/games=64", 64, false, 0, def}, {"PlayOn/games=1024", 1024, false, 0, def},
		{"Play/games=64/paced=5000", 64, true, 5000, def}, {"Play/games=1024/paced=5000", 1024, true, 5000, def},
		{"Play/games=64/nocache/paced=5000", 64, true, 5000, noCache},
	} {
		games := tt.games
		b.Run(tt.name, func(b *testing.B) {
			rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), PoolSize: min(games, 128)})
			defer rdb.Close()
			ctx := context.Background()
			if err := rdb.FlushAll(ctx).Err(); err != nil {
				b.Fatal(err)
			}
			store := persistence.New(rdb, tt.opts)
			var next atomic.Int64
			lat := make([][]time.Duration, games)
			errs := make(chan error, games)
			var wg sync.WaitGroup
			b.ResetTimer()
			start := time.Now()
			for w := range games {
				wg.Go(func() {
					x, o := fmt.Sprintf("x%d", w), fmt.Sprintf("o%d", w)
					var g *persistence.Session
					var tick <-chan time.Time
					if tt.rate > 0 {
						// Each game moves every games/rate seconds, the games
						// evenly staggered so the load arrives smoothly.
						every := time.Duration(games) * time.Second / time.Duration(tt.rate)
						time.Sleep(every * time.Duration(w) / time.Duration(games))
						t := time.NewTicker(every)
						defer t.Stop()
						tick = t.C
					}
					for next.Add(1) <= int64(b.N) {
						if tick != nil {
							<-tick
						}
						if g == nil || g.Status != persistence.StatusActive {
							ng := sessHumanGame(x, o)
							ng.TurnTime = time.Minute
							var err error
							if g, err = store.CreateGame(ctx, fmt.Sprintf("bench%d", w), ng); err != nil {
								errs <- err
								return
							}
						}
						by := x
						if len(g.Moves)%2 == 1 {
							by = o
						}
						t0 := time.Now()
						var ng *persistence.Session
						var err error
						if tt.load {
							ng, err = store.Play(ctx, g.ID, g.Version, by, sessFreeCell(g))
						} else {
							ng, err = store.PlayOn(ctx, g, by, sessFreeCell(g))
						}
						lat[w] = append(lat[w], time.Since(t0))
						if err != nil {
							errs <- err
							return
						}
						g = ng
					}
				})
			}
			wg.Wait()
			elapsed := time.Since(start)
			b.StopTimer()
			close(errs)
			if err := <-errs; err != nil {
				b.Fatal(err)
			}
			all := slices.Concat(lat...)
			slices.Sort(all)
			if len(all) == 0 {
				return
			}
			b.ReportMetric(float64(len(all))/elapsed.Seconds(), "moves/s")
			b.ReportMetric(float64(all[len(all)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(all[len(all)*99/100].Microseconds()), "p99-µs")
		})
	}
}

// freeCell returns the first free cell of a 3x3 game, without replaying it.
func sessFreeCell(g *persistence.Session) game.Cell {
	var used game.Bitboard
	for _, c := range g.Moves {
		used = used.With(c)
	}
	for r := range 3 {
		for c := range 3 {
			if !used.Has(game.NewCell(r, c)) {
				return game.NewCell(r, c)
			}
		}
	}
	return 0
}

// BenchmarkGameMemory reports the Redis memory of an active 3x3 game after
// four moves, over 1,000 games with realistic Discord IDs: its key
// (MEMORY USAGE) and its key plus its share of the deadline index and the
// channel's active map. The games are stored once; the timed loop only
// asks MEMORY USAGE, so any -benchtime is cheap.
func BenchmarkGameMemory(b *testing.B) {
	srv := redistest.Start(b)
	rdb := redistest.Client(b, srv)
	ctx := context.Background()
	store := persistence.New(rdb, persistence.Options{})
	const games = 1000
	var key, shared int64
	var last persistence.GameID
	for i := range games {
		ng := sessHumanGame(fmt.Sprintf("1000000000000%05d", i), fmt.Sprintf("2000000000000%05d", i))
		ng.Guild, ng.TurnTime, ng.Message = "123456789012345678", time.Minute, "1311111111111111111"
		g, err := store.CreateGame(ctx, fmt.Sprintf("3000000000000%05d", i), ng)
		if err != nil {
			b.Fatal(err)
		}
		for range 4 {
			if g, err = store.PlayOn(ctx, g, g.Players[len(g.Moves)%2].User, sessFreeCell(g)); err != nil {
				b.Fatal(err)
			}
		}
		key += rdb.MemoryUsage(ctx, persistence.GameKeyForTest(store, g.ID)).Val()
		shared += rdb.MemoryUsage(ctx, persistence.ActiveKeyForTest(store, g.Channel())).Val()
		last = g.ID
	}
	shared += rdb.MemoryUsage(ctx, persistence.DueKeyForTest(store)).Val()
	b.ResetTimer()
	for b.Loop() {
		if err := rdb.MemoryUsage(ctx, persistence.GameKeyForTest(store, last)).Err(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(key)/games, "key-B/game")
	b.ReportMetric(float64(key+shared)/games, "all-B/game")
}
