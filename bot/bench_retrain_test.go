package bot_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/ai/train"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/retrain"
	"github.com/tttbot/ttt-bot/weights"
)

// The click workload of BenchmarkHandleClickDuringRetrain: retrainGames
// live vs-ai games, retrainClients clicks in flight.
const (
	retrainGames   = 64
	retrainClients = 8
)

// retrainBenchRules is the board the background job retrains: 4x4k4, a
// preset with shipped weights whose positions are quick to search, so that
// the job reaches its training stage within seconds.
const retrainBenchRules = "4x4k4"

// mustRules parses a rules key or fails b.
func mustRules(b *testing.B, key string) game.Rules {
	b.Helper()
	r, err := game.ParseRules(key)
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// newRetrainRig is newBenchRig with the shipped networks behind the neural
// level (the Store is the rig's, which the retrain job shares with the Bot
// as it does in the serve command).
func newRetrainRig(b *testing.B) *benchRig {
	b.Helper()
	set := nn.NewSet()
	for _, key := range []string{"3x3k3", retrainBenchRules} {
		blob, err := weights.Load(key)
		if err != nil {
			b.Fatal(err)
		}
		n, meta, err := nn.UnmarshalFor(blob, mustRules(b, key))
		if err != nil {
			b.Fatal(err)
		}
		set.Put(n, meta)
	}
	levels := ai.NewRegistry()
	levels.Register(ai.NeuralLevel(set))
	return newBenchRig(b, levels, set)
}

// retrainLoad is a retrain job running in the background, over and over,
// until stopped.
type retrainLoad struct {
	workers  int
	epochs   atomic.Int64  // training epochs finished so far
	training chan struct{} // closed when the first epoch has finished
	cancel   context.CancelFunc
	done     chan struct{} // closed when the loop has returned
	err      error         // the loop's failure, read after done
}

// startRetrain starts retraining retrainBenchRules on store in the
// background, with the job's CPU share set to share, and returns once the
// job has finished its first training epoch (its corpus, self-play and
// search stages come before). The job is the one the serve command runs:
// the Redis lock, the shipped weights as the live model to warm-start from,
// the job's own worker count. Its training is made long (many epochs over a
// small self-play set) so that it outlasts the measurement and finishes
// an epoch every fraction of a second; should a run end, the next starts.
func startRetrain(b *testing.B, store *persistence.Store, share float64) *retrainLoad {
	b.Helper()
	job := retrain.New(store, retrain.Config{
		CPUShare: share,
		Owner:    "bench",
		Defaults: weights.Load,
		Train:    train.Config{SelfPlay: 30, Epochs: 5000, EvalGames: -1, Seed: 1},
	})
	rules := mustRules(b, retrainBenchRules)
	ctx, cancel := context.WithCancel(context.Background())
	l := &retrainLoad{workers: job.Workers(), training: make(chan struct{}), cancel: cancel, done: make(chan struct{})}
	var first sync.Once
	go func() {
		defer close(l.done)
		for ctx.Err() == nil {
			_, err := job.Run(ctx, retrain.Request{Rules: rules, Force: true, Trigger: retrain.TriggerCLI, By: "bench"},
				func(p retrain.Progress) {
					if p.Stage == train.StageTraining && p.Epoch != nil {
						l.epochs.Add(1)
						first.Do(func() { close(l.training) })
					}
				})
			if err != nil && ctx.Err() == nil {
				l.err = err
				return
			}
		}
	}()
	t0 := time.Now()
	select {
	case <-l.training:
	case <-l.done:
		b.Fatalf("the retrain job stopped before training: %v", l.err)
	case <-time.After(5 * time.Minute):
		l.stop(b)
		b.Fatal("the retrain job did not reach its training stage within 5 minutes")
	}
	b.Logf("retrain job on %d worker(s) of GOMAXPROCS %d (CPU share %.2f); training after %s",
		l.workers, runtime.GOMAXPROCS(0), share, time.Since(t0).Round(100*time.Millisecond))
	return l
}

// stop cancels the job, waits for it and fails b if it had failed.
func (l *retrainLoad) stop(b *testing.B) {
	l.cancel()
	<-l.done
	if l.err != nil && !errors.Is(l.err, context.Canceled) {
		b.Fatalf("retrain job: %v", l.err)
	}
}

// BenchmarkHandleClickDuringRetrain measures how responsive games stay
// while a retrain job trains in the same process. The click workload is
// BenchmarkHandleClick's: retrainGames live vs-ai games on 3x3k3, with
// retrainClients clicks in flight (a game that ends is replaced by a new
// /ttt vs-ai, timed too), against the easy level and against the neural
// level playing the shipped network.
//
//   - idle: no job.
//   - training: a real retrain job (retrain.Job.Run, 4x4k4) trains for
//     the whole measurement at retrain.DefaultCPUShare, the serve
//     command's default.
//   - training-all-cores: the same job with its CPU share forced to 1.
//
// Reported: interactions/s, the p50, p99 and slowest interaction, and the
// training epochs the job finished during the measurement (and per second)
// with its worker count, which shows that it was training throughout.
func BenchmarkHandleClickDuringRetrain(b *testing.B) {
	rig := newRetrainRig(b)
	for _, mode := range []struct {
		name  string
		share float64 // the job's CPU share; 0 for no job
	}{{"idle", 0}, {"training", retrain.DefaultCPUShare}, {"training-all-cores", 1}} {
		b.Run(mode.name, func(b *testing.B) {
			var load *retrainLoad
			if mode.share > 0 {
				load = startRetrain(b, rig.store, mode.share)
				defer load.stop(b)
			}
			for _, level := range []string{"easy", "neural"} {
				b.Run(level, func(b *testing.B) { benchClicks(b, rig, level, load) })
			}
		})
	}
}

// benchClicks runs the click workload against level for b.N interactions,
// with load (which may be nil) training in the background.
func benchClicks(b *testing.B, rig *benchRig, level string, load *retrainLoad) {
	pool := rig.players(b, retrainGames, level)
	var epochs0 int64
	if load != nil {
		epochs0 = load.epochs.Load()
	}
	all, elapsed := rig.clicks(b, pool, retrainClients, level)
	var epochs float64
	workers := 0
	if load != nil {
		select {
		case <-load.done:
			b.Fatalf("the retrain job stopped during the measurement: %v", load.err)
		default:
		}
		epochs, workers = float64(load.epochs.Load()-epochs0), load.workers
	}
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "interactions/s")
	b.ReportMetric(pct(all, 0.50).Seconds()*1e3, "p50-ms")
	b.ReportMetric(pct(all, 0.99).Seconds()*1e3, "p99-ms")
	b.ReportMetric(all[len(all)-1].Seconds()*1e3, "max-ms")
	b.ReportMetric(epochs, "train-epochs")
	b.ReportMetric(epochs/elapsed.Seconds(), "train-epochs/s")
	b.ReportMetric(float64(workers), "train-workers")
}
