package retrain_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/retrain"
	"github.com/tttbot/ttt-bot/sched"
)

// TestRunYieldsToPlayers runs a retrain on a one-worker AI queue: the run
// holds the worker, gives it to a player's AI move queued meanwhile (long
// before the run ends), takes it back and finishes as it would alone; and
// a run waits for the worker while players' work holds it.
func TestRunYieldsToPlayers(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	rules := classic(t)
	addGames(t, ctx, e.store, rules, 12, 1)
	pool := sched.New(sched.Options{Workers: 1})
	cfg := tinyConfig("proc-a")
	cfg.Pool = pool
	job := retrain.New(e.store, cfg)

	// A player's move holds the worker when the run starts: the run waits.
	release := make(chan struct{})
	held := make(chan struct{})
	go func() {
		_ = pool.Do(ctx, sched.Job{Class: sched.Interactive, User: "early"}, func(context.Context, sched.Start) error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	var trained atomic.Bool
	type result struct {
		rep retrain.Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := job.Run(ctx, retrain.Request{Rules: rules, Force: true, Trigger: retrain.TriggerCLI}, func(p retrain.Progress) {
			if p.Stage == "training" {
				trained.Store(true)
			}
		})
		done <- result{rep, err}
	}()
	// The run queues for the worker (the whole run is one job of the pool)
	// and does not train meanwhile.
	waitUntil(t, 10*time.Second, "the run queued for the worker", func() bool {
		select {
		case r := <-done:
			t.Fatalf("the run ended while a player's move held the only worker: %v", r.err)
		default:
		}
		return pool.Stats().Waiting() == 1
	})
	if trained.Load() {
		t.Fatal("the run trained while a player's move held the only worker")
	}
	close(release)

	// Once it trains, a player's move gets the worker before the run ends.
	for !trained.Load() {
		select {
		case r := <-done:
			t.Fatalf("the run ended before it trained: %v", r.err)
		case <-time.After(time.Millisecond):
		}
	}
	var ranBeforeEnd atomic.Bool
	err := pool.Do(ctx, sched.Job{Class: sched.Interactive, User: "player"}, func(context.Context, sched.Start) error {
		select {
		case <-done:
			t.Error("the player's move waited for the whole run")
		default:
			ranBeforeEnd.Store(true)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || !r.rep.Promoted {
		t.Fatalf("the run: %v, promoted %v (%s)", r.err, r.rep.Promoted, r.rep.Reason)
	}
	if !ranBeforeEnd.Load() {
		t.Fatal("the player's move did not run during the retrain")
	}
	if st := pool.Stats(); st.Running != 0 || st.Waiting() != 0 {
		t.Fatalf("pool after the run: %+v, want idle", st)
	}
}
