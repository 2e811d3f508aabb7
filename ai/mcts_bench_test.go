package ai

import (
	"context"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
)

// benchmarkMCTSIterations measures search speed: each op is a search of up
// to per iterations on a fresh tree from the position (the arena's memory
// is reused, as between moves). Only iterations actually run count; a
// search that proves its root stops early, and iter/op then shows it.
func benchmarkMCTSIterations(b *testing.B, rules, pos string, per int) {
	p := mctsPosition(b, rules, pos)
	m := newTestMCTS(b, Options{Seed: 1})
	ctx := context.Background()
	far := time.Now().Add(time.Hour)
	total := 0
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for range b.N {
		m.tree = false
		m.reroot(p)
		m.prepare()
		total += m.search(ctx, far, per)
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "iter/s")
	if d := cpuTime() - cpu; d > 0 {
		b.ReportMetric(float64(total)/(float64(d)/1e9), "iter/cpu-s")
	}
	b.ReportMetric(float64(total)/float64(b.N), "iter/op")
}

// BenchmarkMCTSIterations3x3 is the speed target: the empty 3x3 board,
// which 10,000 iterations are far from proving.
func BenchmarkMCTSIterations3x3(b *testing.B) {
	benchmarkMCTSIterations(b, "3x3k3", "", 10_000)
}

// BenchmarkMCTSIterations3x3Deep searches the empty 3x3 board for 100,000
// iterations at a time, so the tree is deeper; still unproven.
func BenchmarkMCTSIterations3x3Deep(b *testing.B) {
	benchmarkMCTSIterations(b, "3x3k3", "", 100_000)
}

func BenchmarkMCTSIterations5x5k4(b *testing.B) {
	benchmarkMCTSIterations(b, "5x5k4", "", 10_000)
}

func BenchmarkMCTSIterations8x8k5(b *testing.B) {
	benchmarkMCTSIterations(b, "8x8k5", "", 10_000)
}

// BenchmarkMCTSMove times one default move, tree reuse and all, on the
// opening of 5x5k4.
func BenchmarkMCTSMove5x5k4(b *testing.B) {
	p := mctsPosition(b, "5x5k4", "")
	m := newTestMCTS(b, Options{Seed: 1})
	ctx := context.Background()
	b.ReportAllocs()
	for range b.N {
		m.tree = false
		if _, err := m.Move(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
}

// mctsBenchGames are the positions that BenchmarkMCTSMove1000 and
// BenchmarkUCTMove1000 move from: every position of these game openings.
var mctsBenchGames = []string{
	"5x5k4 c3 b2 d4 b4 c2 c4 b3 d3 a4 e2 d2 e1",
	"6x6k5 c3 d4 d3 c4 b3 e3 b4 e5 c5 d2 e4 f6",
}

// mctsBenchPositions returns every position of rec's moves.
func mctsBenchPositions(b *testing.B, rec string) []game.Position {
	b.Helper()
	r, err := game.ParseRecord(rec)
	if err != nil {
		b.Fatal(err)
	}
	out := []game.Position{r.Start}
	for _, c := range r.Moves {
		out = append(out, out[len(out)-1].Apply(c))
	}
	if out[len(out)-1].Over() {
		b.Fatalf("%s: the game is over", rec)
	}
	return out
}

// BenchmarkMCTSMove1000 is the CPU of one mcts move at 1,000 iterations,
// on a fresh tree, averaged over the positions of an opening: the cost
// the "grows by less than half" is about. ns/move is wall time;
// cpu-ns/move the process's CPU time, which a loaded machine inflates
// less (run it with -cpu 1, so the process has one thread at work).
func BenchmarkMCTSMove1000(b *testing.B) {
	for _, rec := range mctsBenchGames {
		ps := mctsBenchPositions(b, rec)
		b.Run(ps[0].Rules().String(), func(b *testing.B) {
			m := newTestMCTS(b, Options{Seed: 1, Iterations: 1000, Budget: time.Hour})
			ctx := context.Background()
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				for _, p := range ps {
					m.tree = false
					if _, err := m.Move(ctx, p); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ps)), "ns/move")
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N*len(ps)), "cpu-ns/move")
		})
	}
}

// BenchmarkUCTMove1000 is BenchmarkMCTSMove1000 for plain UCT.
func BenchmarkUCTMove1000(b *testing.B) {
	for _, rec := range mctsBenchGames {
		ps := mctsBenchPositions(b, rec)
		b.Run(ps[0].Rules().String(), func(b *testing.B) {
			u, err := NewUCT(Options{Seed: 1, Iterations: 1000, Budget: time.Hour})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				for _, p := range ps {
					if _, err := u.Move(ctx, p); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ps)), "ns/move")
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N*len(ps)), "cpu-ns/move")
		})
	}
}
