package retrain_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/ai/train"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
	"github.com/tttbot/ttt-bot/retrain"
)

// Keys as persistence/keys.go builds them with the default prefix, for
// the tests that break things behind the Store's back.
const (
	corpusKey3x3 = "ttt:corpus:{3x3k3}"
	lockKey      = "ttt:lock:{retrain}"
)

// env is a Redis server with a Store on it.
type env struct {
	srv   *persistence.Server
	rdb   *redis.Client
	store *persistence.Store
}

func newEnv(t *testing.T) *env {
	t.Helper()
	srv := redistest.Start(t)
	e := &env{srv: srv}
	e.rdb, e.store = e.another(t)
	return e
}

// another returns a second client and Store on the same server, as a
// second bot process has.
func (e *env) another(t *testing.T) (*redis.Client, *persistence.Store) {
	rdb := redistest.Client(t, e.srv)
	return rdb, persistence.New(rdb, persistence.Options{PseudonymKey: []byte("test key")})
}

// waitUntil polls cond until it holds, failing the test if it does not
// within timeout (which bounds a failure only).
func waitUntil(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(timeout); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", timeout, what)
		}
		time.Sleep(time.Millisecond)
	}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func classic(t *testing.T) game.Rules {
	t.Helper()
	r, err := game.ParseRules("3x3k3")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// addGames appends n random games of rules (X a person, O an AI level),
// seeded by seed, and returns their stream IDs.
func addGames(t *testing.T, ctx context.Context, st *persistence.Store, rules game.Rules, n int, seed uint64) []string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	var ids []string
	for i := range n {
		p := game.NewPosition(rules)
		var moves []game.Cell
		for !p.Over() {
			cells := p.Moves().Cells()
			c := cells[rng.IntN(len(cells))]
			moves = append(moves, c)
			p = p.Apply(c)
		}
		id, added, err := st.AppendGame(ctx, persistence.FinishedGame{
			ID:       fmt.Sprintf("%s-%d-%d", rules, seed, i),
			Rules:    rules,
			Moves:    moves,
			X:        persistence.Player{User: fmt.Sprintf("user%d", i%3)},
			O:        persistence.Player{AI: "easy"},
			Result:   p.Outcome().Result,
			Finished: time.Date(2026, 11, 21, 18, 0, i, 0, time.UTC),
		})
		if err != nil || !added {
			t.Fatalf("appending game %d: %v, %v", i, added, err)
		}
		ids = append(ids, id)
	}
	return ids
}

// tinyConfig is a job configuration that trains 3x3 in about a second
// (five under the race detector): a small network, few epochs, a small
// gate against random and easy, which such a network passes easily.
func tinyConfig(owner string) retrain.Config {
	return retrain.Config{
		Owner:     owner,
		Lease:     2 * time.Second,
		TimeLimit: time.Minute,
		CPUShare:  1,
		Train:     train.Config{Arch: nn.Arch{Hidden: []int{32}}, Epochs: 8, LearningRate: 0.01, Seed: 7},
		Gate:      retrain.Gate{Games: 20, Baselines: []string{"random", "easy"}},
	}
}

// stages records the progress stages a run reports.
type stages struct {
	mu     sync.Mutex
	seen   []string
	epochs int
}

func (s *stages) progress(p retrain.Progress) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.seen) == 0 || s.seen[len(s.seen)-1] != p.Stage {
		s.seen = append(s.seen, p.Stage)
	}
	if p.Epoch != nil {
		s.epochs++
	}
}

// lockFree checks that the retrain lock is free.
func lockFree(t *testing.T, ctx context.Context, st *persistence.Store) {
	t.Helper()
	l, err := st.AcquireLock(ctx, retrain.LockName, "checker", time.Second)
	if err != nil {
		t.Fatalf("the retrain lock is not free after the run: %v", err)
	}
	if err := st.ReleaseLock(ctx, l); err != nil {
		t.Fatal(err)
	}
}

func TestRunPromotesAndPublishes(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	rules := classic(t)
	ids := addGames(t, ctx, e.store, rules, 12, 1)
	job := retrain.New(e.store, tinyConfig("proc-a"))
	var st stages
	rep, err := job.Run(ctx, retrain.Request{Rules: rules, Force: true, Trigger: retrain.TriggerCLI, By: "test"}, st.progress)
	if err != nil {
		t.Fatalf("Run: %v\n%+v", err, rep)
	}
	if !rep.Promoted || rep.Outcome != retrain.OutcomePromoted || rep.Published == nil || rep.Published.Version != 1 || rep.Published.Label != "redis-1" {
		t.Fatalf("report: promoted %v, outcome %q, published %+v, reason %q; want version 1 published", rep.Promoted, rep.Outcome, rep.Published, rep.Reason)
	}
	if rep.Corpus.Games != 12 || rep.Corpus.NewGames != 12 || rep.Corpus.HumanGames != 12 || rep.Corpus.Corrupt != 0 || rep.Corpus.Since != "0" {
		t.Errorf("corpus summary %+v; want 12 games, all new and human, none corrupt", rep.Corpus)
	}
	if rep.Live.Source != retrain.SourceNone || rep.WarmStart {
		t.Errorf("live %+v, warm start %v; want no live model", rep.Live, rep.WarmStart)
	}
	if rep.Gate == nil || rep.Gate.Reference != "random" || rep.Gate.HeadToHead != nil || len(rep.Gate.Baselines) != 2 || !strings.Contains(rep.Gate.Rule, "random mover") {
		t.Errorf("gate %+v; want the no-live-model rule against 2 baselines", rep.Gate)
	}
	if len(rep.Epochs) != 8 || st.epochs != 8 || rep.Checkpoint != ids[len(ids)-1] {
		t.Errorf("%d epochs in the report, %d reported, checkpoint %q; want 8, 8, %q", len(rep.Epochs), st.epochs, rep.Checkpoint, ids[len(ids)-1])
	}
	for _, want := range []string{"lock", "corpus", "model", "training", "gate", "publish", "done"} {
		if !strings.Contains(" "+strings.Join(st.seen, " ")+" ", " "+want+" ") {
			t.Errorf("stages %v lack %q", st.seen, want)
		}
	}
	// The registry holds it, in the safetensors format, with the report.
	m, blob, err := e.store.LoadModel(ctx, "3x3k3", 0)
	if err != nil || m.Version != 1 {
		t.Fatalf("LoadModel: %+v, %v", m, err)
	}
	n, meta, err := nn.UnmarshalFor(blob, rules)
	if err != nil || meta.Version != "redis-1" || n.Arch().Hidden[0] != 32 {
		t.Fatalf("published blob: %v, meta %+v", err, meta)
	}
	var eval retrain.GateReport
	if err := json.Unmarshal(m.Eval, &eval); err != nil || !eval.Pass {
		t.Fatalf("registry eval %s: %v", m.Eval, err)
	}
	if cp, err := e.store.Checkpoint(ctx, "3x3k3", retrain.Consumer); err != nil || cp != ids[len(ids)-1] {
		t.Fatalf("checkpoint %q, %v; want %q", cp, err, ids[len(ids)-1])
	}
	lockFree(t, ctx, e.store)
	if _, err := json.Marshal(rep); err != nil {
		t.Fatalf("the report does not encode: %v", err)
	}
	if png, err := retrain.Chart(rep); err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("Chart: %v", err)
	}

	// A second run: new games counted from the checkpoint, warm start from
	// the live model, the head-to-head rule.
	more := addGames(t, ctx, e.store, rules, 3, 2)
	rep, err = job.Run(ctx, retrain.Request{Rules: rules, Force: true, Trigger: retrain.TriggerModerator}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Corpus.Games != 15 || rep.Corpus.NewGames != 3 || rep.Corpus.Since != ids[len(ids)-1] || rep.Checkpoint != more[2] {
		t.Errorf("second run corpus %+v, checkpoint %q; want 15 games, 3 new", rep.Corpus, rep.Checkpoint)
	}
	if rep.Live.Source != retrain.SourceRegistry || rep.Live.Version != 1 || rep.Live.Label != "redis-1" || !rep.WarmStart {
		t.Errorf("second run live %+v, warm start %v; want registry version 1, warm", rep.Live, rep.WarmStart)
	}
	if rep.Gate == nil || rep.Gate.HeadToHead == nil || rep.Gate.HeadToHead.Games != 20 {
		t.Fatalf("second run gate %+v; want a head-to-head match", rep.Gate)
	}
	t.Logf("second run: %s (%s)", rep.Outcome, rep.Reason)
}

func TestRunRejectsAndKeepsCandidate(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	rules := classic(t)
	addGames(t, ctx, e.store, rules, 5, 1)
	if _, err := retrain.New(e.store, tinyConfig("proc-a")).Run(ctx, retrain.Request{Rules: rules, Force: true}, nil); err != nil {
		t.Fatal(err)
	}
	ids := addGames(t, ctx, e.store, rules, 2, 2)
	cfg := tinyConfig("proc-a")
	cfg.Gate.Margin = -1 // the candidate would have to score 1.5 against the live model
	rep, err := retrain.New(e.store, cfg).Run(ctx, retrain.Request{Rules: rules, Force: true}, nil)
	if err != nil {
		t.Fatalf("a rejection is not an error: %v", err)
	}
	if rep.Promoted || rep.Outcome != retrain.OutcomeRejected || rep.Published != nil || rep.Candidate == nil {
		t.Fatalf("report %+v; want rejected and kept", rep)
	}
	if !strings.Contains(rep.Reason, "against the live model, below 1.500") || len(rep.Gate.Failures) == 0 {
		t.Errorf("reason %q, failures %q; want the head-to-head failure with its numbers", rep.Reason, rep.Gate.Failures)
	}
	if cur, err := e.store.CurrentModelVersion(ctx, "3x3k3"); err != nil || cur != 1 {
		t.Fatalf("current version %d, %v; want 1 (untouched)", cur, err)
	}
	m, blob, err := e.store.LoadCandidate(ctx, "3x3k3")
	if err != nil || m.SHA256 != rep.Candidate.SHA256 {
		t.Fatalf("LoadCandidate: %+v, %v; want the report's %+v", m, err, rep.Candidate)
	}
	if _, meta, err := nn.UnmarshalFor(blob, rules); err != nil || meta.Version != rep.Candidate.Label {
		t.Fatalf("kept blob: %v, %+v", err, meta)
	}
	var kept retrain.Report
	if err := json.Unmarshal(m.Report, &kept); err != nil || kept.Outcome != retrain.OutcomeRejected || kept.Reason == "" {
		t.Fatalf("kept report %s: %v", m.Report, err)
	}
	if cp, _ := e.store.Checkpoint(ctx, "3x3k3", retrain.Consumer); cp != ids[1] || rep.Checkpoint != ids[1] {
		t.Fatalf("checkpoint %q (report %q); want %q: a completed rejection consumes the games", cp, rep.Checkpoint, ids[1])
	}
}

func TestRunNoLiveModelRejects(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	rules := classic(t)
	cfg := tinyConfig("proc-a")
	cfg.Gate = retrain.Gate{Games: 4, Margin: -1, Baselines: []string{"random"}} // beat a random mover by a whole point: impossible
	rep, err := retrain.New(e.store, cfg).Run(ctx, retrain.Request{Rules: rules, Force: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Outcome != retrain.OutcomeRejected || !strings.Contains(rep.Reason, "below a random mover's") || rep.Candidate == nil {
		t.Fatalf("report %q %q; want rejected against the random reference", rep.Outcome, rep.Reason)
	}
	nothingPublished(t, ctx, e.store)
	if rep.Checkpoint != "" {
		t.Fatalf("checkpoint %q with an empty corpus; want none", rep.Checkpoint)
	}
}

// TestRunExclusive: two processes (two clients, two Stores) start a run at
// once; exactly one runs, the other gets ErrRunning naming the holder.
func TestRunExclusive(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	rules := classic(t)
	addGames(t, ctx, e.store, rules, 4, 1)
	_, other := e.another(t)
	jobs := []*retrain.Job{retrain.New(e.store, tinyConfig("proc-a")), retrain.New(other, tinyConfig("proc-b"))}
	release := make(chan struct{})
	var holders sync.Map
	type result struct {
		i   int
		rep retrain.Report
		err error
	}
	results := make(chan result, 2)
	for i, j := range jobs {
		go func() {
			rep, err := j.Run(ctx, retrain.Request{Rules: rules, Force: true}, func(p retrain.Progress) {
				// The holder waits, lock held, until the other has tried.
				if p.Stage == "corpus" {
					if _, again := holders.LoadOrStore(i, true); !again {
						<-release
					}
				}
			})
			results <- result{i, rep, err}
		}()
	}
	first := <-results
	if !errors.Is(first.err, retrain.ErrRunning) || !errors.Is(first.err, persistence.ErrLockHeld) {
		t.Fatalf("the run that did not get the lock: %v; want ErrRunning and ErrLockHeld", first.err)
	}
	holder := []string{"proc-a", "proc-b"}[1-first.i]
	if !strings.Contains(first.err.Error(), holder) {
		t.Errorf("error %q does not name the holder %s", first.err, holder)
	}
	close(release)
	second := <-results
	if second.err != nil || !second.rep.Promoted {
		t.Fatalf("the run holding the lock: %v, %+v", second.err, second.rep.Outcome)
	}
	if cur, _ := e.store.CurrentModelVersion(ctx, "3x3k3"); cur != 1 {
		t.Fatalf("current version %d; want exactly one publish", cur)
	}
	lockFree(t, ctx, e.store)
}

// nothingPublished fails t if the 3x3k3 registry holds a version.
func nothingPublished(t *testing.T, ctx context.Context, st *persistence.Store) {
	t.Helper()
	if _, _, err := st.LoadModel(ctx, "3x3k3", 0); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("registry: %v; want nothing published", err)
	}
}

func TestRunSkipsCorruptRecords(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	rules := classic(t)
	addGames(t, ctx, e.store, rules, 3, 1)
	var bad []string
	for _, values := range [][]any{
		{"g", "x", "r", "not json"},
		{"g", "g9", "r", `{"v":1,"game":"g9","rules":"3x3k3","moves":["0 0","0 0"],"x":{},"o":{},"result":"draw","time":"2026-11-21T18:00:00Z"}`},
	} {
		id, err := e.rdb.XAdd(ctx, &redis.XAddArgs{Stream: corpusKey3x3, Values: values}).Result()
		if err != nil {
			t.Fatal(err)
		}
		bad = append(bad, id)
	}
	last := addGames(t, ctx, e.store, rules, 2, 2)
	rep, err := retrain.New(e.store, tinyConfig("proc-a")).Run(ctx, retrain.Request{Rules: rules, Force: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Corpus.Games != 5 || rep.Corpus.Corrupt != 2 || len(rep.Corpus.CorruptSamples) != 2 {
		t.Fatalf("corpus %+v; want 5 games and 2 corrupt records", rep.Corpus)
	}
	for i, id := range bad {
		if !strings.Contains(rep.Corpus.CorruptSamples[i], id) {
			t.Errorf("corrupt sample %q does not name entry %s", rep.Corpus.CorruptSamples[i], id)
		}
	}
	if rep.Training == nil || rep.Training.CorpusGames != 5 || rep.Checkpoint != last[1] {
		t.Fatalf("training report %+v, checkpoint %q; want 5 games trained on and the checkpoint past the corrupt ones", rep.Training, rep.Checkpoint)
	}
}

func TestRunTimeLimit(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	rules := classic(t)
	addGames(t, ctx, e.store, rules, 3, 1)
	cfg := tinyConfig("proc-a")
	cfg.TimeLimit = 150 * time.Millisecond
	cfg.Train.Epochs = 100_000 // far more than fits
	start := time.Now()
	rep, err := retrain.New(e.store, cfg).Run(ctx, retrain.Request{Rules: rules, Force: true}, nil)
	if !errors.Is(err, retrain.ErrTimedOut) {
		t.Fatalf("Run: %v; want ErrTimedOut", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the run stopped %v after it started; want soon after the limit", d)
	}
	if rep.Outcome != retrain.OutcomeTimedOut || rep.Promoted || !strings.Contains(rep.Reason, "timed out") || rep.Checkpoint != "" {
		t.Fatalf("report %q %q, checkpoint %q; want timed out", rep.Outcome, rep.Reason, rep.Checkpoint)
	}
	nothingPublished(t, ctx, e.store)
	if _, _, err := e.store.LoadCandidate(ctx, "3x3k3"); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("candidate after a timed-out run: %v; want none", err)
	}
	if cp, _ := e.store.Checkpoint(ctx, "3x3k3", retrain.Consumer); cp != "0" {
		t.Fatalf("checkpoint %q; want it unmoved", cp)
	}
	lockFree(t, ctx, e.store)
}

// TestRunAfterKilledHolder: a process took the lock and died; its lease
// runs out and the next run goes ahead.
func TestRunAfterKilledHolder(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	rules := classic(t)
	addGames(t, ctx, e.store, rules, 3, 1)
	_, dead := e.another(t)
	const lease = 400 * time.Millisecond
	held, err := dead.AcquireLock(ctx, retrain.LockName, "killed-proc", lease)
	if err != nil {
		t.Fatal(err)
	}
	job := retrain.New(e.store, tinyConfig("proc-a"))
	if _, err := job.Run(ctx, retrain.Request{Rules: rules, Force: true}, nil); !errors.Is(err, retrain.ErrRunning) || !strings.Contains(err.Error(), "killed-proc") {
		t.Fatalf("run during the dead holder's lease: %v; want ErrRunning naming killed-proc", err)
	}
	// The lease runs out on Redis's clock: wait until the lock is gone.
	waitUntil(t, 10*time.Second, "the dead holder's lease runs out", func() bool {
		err := dead.CheckLock(ctx, held)
		if err != nil && !errors.Is(err, persistence.ErrLockLost) {
			t.Fatal(err)
		}
		return err != nil
	})
	rep, err := job.Run(ctx, retrain.Request{Rules: rules, Force: true}, nil)
	if err != nil || !rep.Promoted {
		t.Fatalf("run after the lease: %v, %q", err, rep.Reason)
	}
}

// TestRunLockLost: the lock disappears mid-run (its lease ran out while
// Redis was unreachable, say); the run stops and publishes nothing.
func TestRunLockLost(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	rules := classic(t)
	addGames(t, ctx, e.store, rules, 3, 1)
	cfg := tinyConfig("proc-a")
	cfg.Lease = 150 * time.Millisecond
	cfg.Train.Epochs = 100_000
	var once sync.Once
	rep, err := retrain.New(e.store, cfg).Run(ctx, retrain.Request{Rules: rules, Force: true}, func(p retrain.Progress) {
		if p.Stage == "training" {
			once.Do(func() {
				if err := e.rdb.Del(ctx, lockKey).Err(); err != nil {
					t.Error(err)
				}
			})
		}
	})
	if !errors.Is(err, retrain.ErrLockLost) || !errors.Is(err, persistence.ErrLockLost) {
		t.Fatalf("Run: %v; want ErrLockLost", err)
	}
	if rep.Promoted || rep.Outcome != retrain.OutcomeFailed || !strings.Contains(rep.Reason, "lost the retrain lock") {
		t.Fatalf("report %q %q", rep.Outcome, rep.Reason)
	}
	nothingPublished(t, ctx, e.store)
}

// TestRunCorruptLiveModel: a live model that does not load makes the job
// fall back (to the shipped weights, else to none), not fail.
func TestRunCorruptLiveModel(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	rules := classic(t)
	addGames(t, ctx, e.store, rules, 3, 1)
	// Good weights to ship: a first run's.
	if _, err := retrain.New(e.store, tinyConfig("proc-a")).Run(ctx, retrain.Request{Rules: rules, Force: true}, nil); err != nil {
		t.Fatal(err)
	}
	_, shipped, err := e.store.LoadModel(ctx, "3x3k3", 1)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		breakIt  func(t *testing.T, v int64)
		defaults func(string) ([]byte, error)
		source   string
		fallback string
	}{
		{
			name: "not safetensors, nothing shipped",
			breakIt: func(t *testing.T, _ int64) {
				if _, err := e.store.PublishModel(ctx, "3x3k3", persistence.ModelMeta{}, []byte("definitely not weights")); err != nil {
					t.Fatal(err)
				}
			},
			defaults: func(string) ([]byte, error) { return nil, fmt.Errorf("weights: %w", fs.ErrNotExist) },
			source:   retrain.SourceNone, fallback: "does not load",
		},
		{
			name: "checksum mismatch, shipped weights",
			breakIt: func(t *testing.T, v int64) {
				key := fmt.Sprintf("ttt:model:{3x3k3}:blob:%d", v)
				if err := e.rdb.Set(ctx, key, "flipped", 0).Err(); err != nil {
					t.Fatal(err)
				}
			},
			defaults: func(string) ([]byte, error) { return shipped, nil },
			source:   retrain.SourceShipped, fallback: "corrupt",
		},
		{
			name: "weights of other rules, corrupt shipped weights",
			breakIt: func(t *testing.T, _ int64) {
				r, _ := game.ParseRules("4x4k3")
				n, err := nn.New(nn.DefaultArch(r), rand.New(rand.NewPCG(1, 2)))
				if err != nil {
					t.Fatal(err)
				}
				blob, err := nn.Marshal(n, nn.Meta{Version: "wrong"})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := e.store.PublishModel(ctx, "3x3k3", persistence.ModelMeta{}, blob); err != nil {
					t.Fatal(err)
				}
			},
			defaults: func(string) ([]byte, error) { return shipped[:len(shipped)-1], nil },
			source:   retrain.SourceNone, fallback: "shipped weights do not load",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cur, err := e.store.CurrentModelVersion(ctx, "3x3k3")
			if err != nil {
				t.Fatal(err)
			}
			tt.breakIt(t, cur)
			cfg := tinyConfig("proc-a")
			cfg.Defaults = tt.defaults
			rep, err := retrain.New(e.store, cfg).Run(ctx, retrain.Request{Rules: rules, Force: true}, nil)
			if err != nil {
				t.Fatalf("Run: %v; want a fallback, not a failure", err)
			}
			if rep.Live.Source != tt.source || !strings.Contains(rep.Live.Fallback, tt.fallback) {
				t.Fatalf("live %+v; want source %s and a fallback saying %q", rep.Live, tt.source, tt.fallback)
			}
			t.Logf("%s: %s (%s)", rep.Outcome, rep.Live.Fallback, rep.Reason)
			if rep.Outcome != retrain.OutcomePromoted && rep.Outcome != retrain.OutcomeRejected {
				t.Fatalf("outcome %q", rep.Outcome)
			}
		})
	}
}

func TestPeriodic(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	rules := classic(t)
	xox, err := game.ParseRules("4x3xox")
	if err != nil {
		t.Fatal(err)
	}
	addGames(t, ctx, e.store, rules, 3, 1)
	addGames(t, ctx, e.store, xox, 1, 1)
	cfg := tinyConfig("proc-a")
	cfg.Rules = []game.Rules{rules, xox}
	cfg.Interval = 20 * time.Millisecond
	cfg.MinNewGames = 2
	job := retrain.New(e.store, cfg)
	if n, err := job.NewGames(ctx, rules); err != nil || n != 3 {
		t.Fatalf("NewGames: %d, %v; want 3", n, err)
	}
	var logs bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &mu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	pctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { job.Periodic(pctx, logger); close(done) }()
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := e.store.CurrentModelVersion(ctx, "3x3k3"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no periodic run within a minute")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Wait for a later round, which finds nothing new.
	for {
		mu.Lock()
		s := logs.String()
		mu.Unlock()
		if strings.Contains(s, "rules=3x3k3 new_games=0 min_new_games=2") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no second round:\n%s", s)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	if cur, _ := e.store.CurrentModelVersion(ctx, "3x3k3"); cur != 1 {
		t.Fatalf("3x3k3 version %d; want one run only (no new games after it)", cur)
	}
	if _, err := e.store.CurrentModelVersion(ctx, "4x3xox"); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("4x3xox: %v; want no run with 1 new game of 2 needed", err)
	}
	if n, _ := job.NewGames(ctx, rules); n != 0 {
		t.Fatalf("NewGames after the run: %d; want 0", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logs.String(), "outcome=promoted") {
		t.Fatalf("log lacks the run:\n%s", logs.String())
	}
	// Periodic with no interval returns at once.
	retrain.New(e.store, tinyConfig("proc-a")).Periodic(ctx, logger)
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestRunBadRequest(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	if _, err := retrain.New(e.store, tinyConfig("a")).Run(ctx, retrain.Request{}, nil); !errors.Is(err, retrain.ErrBadRequest) {
		t.Fatalf("no rules: %v; want ErrBadRequest", err)
	}
	cfg := tinyConfig("a")
	cfg.Gate.Baselines = []string{"grandmaster"}
	rep, err := retrain.New(e.store, cfg).Run(ctx, retrain.Request{Rules: classic(t), Force: true}, nil)
	if !errors.Is(err, retrain.ErrBadRequest) || rep.Training != nil {
		t.Fatalf("unknown baseline: %v (trained: %v); want ErrBadRequest before training", err, rep.Training != nil)
	}
	lockFree(t, ctx, e.store)
}
