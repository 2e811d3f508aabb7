package persistence_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/tttbot/ttt-bot/persistence"
)

// benchGame is a 9-move drawn game between two humans (two pseudonyms to
// compute per append), as the bot appends most.
func benchGame(b *testing.B, id string) persistence.FinishedGame {
	g := corpusGame(b, id, "G", "111111111111111111", "222222222222222222")
	g.Moves = corpusCells(b, g.Rules, "1 1", "0 0", "0 2", "2 0", "1 0", "1 2", "0 1", "2 1", "2 2")
	g.Result = 3 // draw
	return g
}

// BenchmarkCorpusAppend appends distinct finished games (exactly-once
// check, pseudonyms, validation, XADD) to a private local redis-server,
// from one goroutine and from several, with and without trimming.
func BenchmarkCorpusAppend(b *testing.B) {
	for _, bc := range []struct {
		name     string
		opts     persistence.Options
		parallel bool
	}{
		{"serial", persistence.Options{}, false},
		{"parallel", persistence.Options{}, true},
		{"serial-maxlen", persistence.Options{CorpusMaxLen: 10000}, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			e := newCorpusEnv(b, bc.opts)
			ctx := corpusCtx(b)
			games := make([]persistence.FinishedGame, b.N)
			for i := range games {
				games[i] = benchGame(b, fmt.Sprint("bench-", i))
			}
			b.ResetTimer()
			if bc.parallel {
				var next atomic.Int64
				b.SetParallelism(4)
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if _, _, err := e.store.AppendGame(ctx, games[next.Add(1)-1]); err != nil {
							b.Error(err)
							return
						}
					}
				})
			} else {
				for i := range b.N {
					if _, _, err := e.store.AppendGame(ctx, games[i]); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// BenchmarkCorpusRead reads and validates (replays) records in pages of
// 1000 from a private local redis-server holding 20,000.
func BenchmarkCorpusRead(b *testing.B) {
	const stored = 20000
	e := newCorpusEnv(b, persistence.Options{})
	ctx := corpusCtx(b)
	for i := range stored {
		if _, _, err := e.store.AppendGame(ctx, benchGame(b, fmt.Sprint("bench-", i))); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	after, read := "0", 0
	for read < b.N {
		batch, err := e.store.ReadCorpus(ctx, "3x3k3", after, 1000)
		if err != nil {
			b.Fatal(err)
		}
		read += len(batch.Records)
		after = batch.Last
		if len(batch.Records) < 1000 {
			after = "0"
		}
	}
	b.ReportMetric(float64(read)/b.Elapsed().Seconds(), "records/s")
}
