package nn

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/tttbot/ttt-bot/game"
)

// benchPositions returns a spread of positions to evaluate.
func benchPositions(r game.Rules) []game.Position {
	rng := rand.New(rand.NewPCG(1, 1))
	ps := make([]game.Position, 64)
	for i := range ps {
		ps[i] = randomPosition(r, rng)
	}
	return ps
}

func BenchmarkEvaluate(b *testing.B) {
	for _, rules := range []string{"3x3k3", "4x3xox", "5x5k4", "8x8k5"} {
		b.Run(rules, func(b *testing.B) {
			r := mustRules(b, rules)
			n, err := New(DefaultArch(r), rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				b.Fatal(err)
			}
			ps := benchPositions(r)
			var out Output
			b.ReportAllocs()
			i := 0
			cpu := cpuTime()
			for b.Loop() {
				n.Evaluate(ps[i%len(ps)], &out)
				i++
			}
			reportCPU(b, cpu)
		})
	}
}

func BenchmarkBest(b *testing.B) {
	r := game.Classic()
	n, err := New(DefaultArch(r), rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	ps := benchPositions(r)
	b.ReportAllocs()
	i := 0
	cpu := cpuTime()
	for b.Loop() {
		n.Best(ps[i%len(ps)])
		i++
	}
	reportCPU(b, cpu)
}

// BenchmarkTrain reports samples trained per second (one epoch of 4,096
// random samples per op) for the default architectures; samples/cpu-s is
// the rate per second of CPU time, which a loaded machine does not skew.
func BenchmarkTrain(b *testing.B) {
	for _, rules := range []string{"3x3k3", "5x5k4"} {
		b.Run(rules, func(b *testing.B) {
			r := mustRules(b, rules)
			n, err := New(DefaultArch(r), rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				b.Fatal(err)
			}
			samples := randomSamples(r, 4096, 1)
			cpu := cpuTime()
			for b.Loop() {
				if _, _, err := Train(context.Background(), n, samples, TrainOptions{Epochs: 1}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(samples)*b.N)/b.Elapsed().Seconds(), "samples/s")
			if cpu > 0 {
				b.ReportMetric(float64(len(samples)*b.N)/(float64(cpuTime()-cpu)/1e9), "samples/cpu-s")
			}
		})
	}
}

// reportCPU reports the process CPU time per op since start (a cpuTime
// reading), which on a shared machine is a truer cost than ns/op.
func reportCPU(b *testing.B, start int64) {
	if start > 0 {
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	}
}
