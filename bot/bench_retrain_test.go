package bot_test

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/ai/train"
	"github.com/tttbot/ttt-bot/bot"
	"github.com/tttbot/ttt-bot/bot/retrain"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
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
// level; it also returns the Store, which the retrain job shares with the
// Bot as it does in the serve command.
func newRetrainRig(b *testing.B) (*benchRig, *persistence.Store) {
	b.Helper()
	rdb := redistest.Client(b, redistest.Start(b))
	r := &benchRig{dc: &benchDiscord{}}
	rdb.AddHook(&r.trips)
	store := persistence.New(rdb, persistence.Options{})
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
	cat, err := bot.NewCatalog()
	if err != nil {
		b.Fatal(err)
	}
	signer, err := bot.NewSigner([]byte("bench-test-custom-id-key-0123456"))
	if err != nil {
		b.Fatal(err)
	}
	bt, err := bot.New(bot.Deps{Discord: r.dc, Store: store, Levels: levels, Catalog: cat, Signer: signer,
		Logger: slog.New(slog.DiscardHandler), AppID: "1", Models: set},
		bot.Options{Metrics: bot.NewMetrics(bot.NewRegistry())})
	if err != nil {
		b.Fatal(err)
	}
	r.b, r.signer = bt, signer
	r.nextID.Store(2_000_000_000)
	return r, store
}

// newGameAt starts /ttt vs-ai level:<level> first:me for p on the default
// board (3x3k3).
func (r *benchRig) newGameAt(b *testing.B, p *benchPlayer, level string) {
	i := &discordgo.Interaction{
		ID: r.id(), Type: discordgo.InteractionApplicationCommand, ChannelID: p.channel, GuildID: "42",
		Locale: discordgo.EnglishUS, Member: &discordgo.Member{User: &discordgo.User{ID: p.user}},
		Data: discordgo.ApplicationCommandInteractionData{Name: bot.CommandName, Options: []*discordgo.ApplicationCommandInteractionDataOption{{
			Name: bot.SubVsAI, Type: discordgo.ApplicationCommandOptionSubCommand,
			Options: []*discordgo.ApplicationCommandInteractionDataOption{
				{Name: "level", Type: discordgo.ApplicationCommandOptionString, Value: level},
				{Name: "first", Type: discordgo.ApplicationCommandOptionString, Value: "me"},
			},
		}}},
	}
	r.read(b, p, r.handle(b, i), "9"+i.ID)
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
			_, err := job.Run(ctx, retrain.Request{Rules: rules, Trigger: retrain.TriggerCLI, By: "bench"},
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
	rig, store := newRetrainRig(b)
	for _, mode := range []struct {
		name  string
		share float64 // the job's CPU share; 0 for no job
	}{{"idle", 0}, {"training", retrain.DefaultCPUShare}, {"training-all-cores", 1}} {
		b.Run(mode.name, func(b *testing.B) {
			var load *retrainLoad
			if mode.share > 0 {
				load = startRetrain(b, store, mode.share)
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
	run := benchRun.Add(1)
	pool := make(chan *benchPlayer, retrainGames)
	for g := range retrainGames {
		p := &benchPlayer{
			user:    strconv.Itoa(700_000 + g),
			channel: strconv.FormatInt(run*1_000_000+int64(g), 10),
			rng:     rand.New(rand.NewPCG(uint64(run), uint64(g))),
		}
		rig.newGameAt(b, p, level)
		pool <- p
	}
	var left atomic.Int64
	left.Store(int64(b.N))
	lat := make([][]time.Duration, retrainClients)
	var wg sync.WaitGroup
	var epochs0 int64
	if load != nil {
		epochs0 = load.epochs.Load()
	}
	b.ResetTimer()
	start := time.Now()
	for w := range retrainClients {
		wg.Go(func() {
			mine := make([]time.Duration, 0, b.N/retrainClients+1)
			for left.Add(-1) >= 0 {
				p := <-pool // a game nobody is clicking in right now
				t0 := time.Now()
				live := rig.click(b, p)
				mine = append(mine, time.Since(t0))
				if !live { // the game is over: the user starts the next one
					t0 = time.Now()
					rig.newGameAt(b, p, level)
					mine = append(mine, time.Since(t0))
				}
				pool <- p
			}
			lat[w] = mine
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
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
	all := slices.Concat(lat...)
	slices.Sort(all)
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "interactions/s")
	b.ReportMetric(pct(all, 0.50).Seconds()*1e3, "p50-ms")
	b.ReportMetric(pct(all, 0.99).Seconds()*1e3, "p99-ms")
	b.ReportMetric(all[len(all)-1].Seconds()*1e3, "max-ms")
	b.ReportMetric(epochs, "train-epochs")
	b.ReportMetric(epochs/elapsed.Seconds(), "train-epochs/s")
	b.ReportMetric(float64(workers), "train-workers")
}
