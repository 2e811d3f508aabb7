package ai

import (
	"context"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
)

// perfectFastPositions are positions the solver settles in well under a
// millisecond (from a warm table, as between the moves of a game), for
// the benchmarks of Perfect's fixed costs: the empty board, and a few
// positions of a game.
var perfectFastPositions = []struct{ name, rec string }{
	{"3x3k3/empty", "3x3k3"},
	{"3x3k3/ply2", "3x3k3 b2 a1"},
	{"3x3k3/ply4", "3x3k3 b2 a1 c3 a3"},
	{"4x4k4/empty", "4x4k4"},
	{"4x4k4/ply4", "4x4k4 b2 c3 c2 b3"},
	{"5x5k4/ply10", "5x5k4 c3 b2 d4 b4 c2 c4 b3 d3 a4 e2"},
	{"5x5k4/ply14", "5x5k4 c3 b2 d4 b4 c2 c4 b3 d3 a4 e2 d2 e1 a2 d1"},
}

// perfectBenchPosition parses a record's last position.
func perfectBenchPosition(b *testing.B, rec string) game.Position {
	b.Helper()
	r, err := game.ParseRecord(rec)
	if err != nil {
		b.Fatal(err)
	}
	return r.Position()
}

// reportCPU reports the process's CPU time per op since start.
func reportCPU(b *testing.B, start int64) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkPerfectFastPath splits the cost of one Perfect move on a
// position the solver settles fast, with the player's table warm as in a
// game: "move" is the whole Move, "solve" the solver's part of it (the
// value, then every move's value), "model" the opponent model (choose);
// what "move" costs beyond the two is the fixed setup. cpu-ns/op is the
// process's CPU time (run it with -cpu 1).
func BenchmarkPerfectFastPath(b *testing.B) {
	ctx := context.Background()
	for _, tt := range perfectFastPositions {
		p := perfectBenchPosition(b, tt.rec)
		b.Run(tt.name+"/move", func(b *testing.B) {
			pf := newTestPerfect(b, Options{Seed: 1})
			if _, err := pf.Move(ctx, p); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			defer reportCPU(b, cpuTime())
			for b.Loop() {
				if _, err := pf.Move(ctx, p); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tt.name+"/solve", func(b *testing.B) {
			pf := newTestPerfect(b, Options{Seed: 1})
			if _, err := pf.Move(ctx, p); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			defer reportCPU(b, cpuTime())
			for b.Loop() {
				if _, err := pf.solver.Value(ctx, p); err != nil {
					b.Fatal(err)
				}
				if _, err := pf.solver.Solve(ctx, p); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tt.name+"/model", func(b *testing.B) {
			pf := newTestPerfect(b, Options{Seed: 1})
			if _, err := pf.Move(ctx, p); err != nil {
				b.Fatal(err)
			}
			a, err := pf.solver.Solve(ctx, p)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			defer reportCPU(b, cpuTime())
			for b.Loop() {
				pf.choose(ctx, p, a, time.Now().Add(DefaultPerfectBudget))
			}
		})
	}
}
