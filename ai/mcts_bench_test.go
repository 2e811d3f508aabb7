package ai

import (
	"context"
	"testing"
	"time"
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
	for range b.N {
		m.tree = false
		m.reroot(p)
		m.prepare()
		total += m.search(ctx, far, per)
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "iter/s")
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
