package persistence

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// pipelineServer starts a private redis-server and returns it with a client;
// the batcher tests stop it themselves.
func pipelineServer(t *testing.T) (*Server, *redis.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	srv, err := StartServer(ctx, ServerOptions{Dir: t.TempDir()})
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and redis-server cannot be started: %v", err)
		}
		t.Skipf("redis-server cannot be started: %v", err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	c := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	t.Cleanup(func() { _ = c.Close() })
	return srv, c
}

// pipelineWait polls cond every millisecond, for up to 5 seconds.
func pipelineWait(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// redisBlockedClients is the number of clients blocked in Redis (INFO
// clients, blocked_clients).
func redisBlockedClients(t *testing.T, rdb *redis.Client) int {
	t.Helper()
	info, err := rdb.Info(context.Background(), "clients").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "blocked_clients:"); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("blocked_clients: %q", v)
			}
			return n
		}
	}
	t.Fatalf("no blocked_clients in INFO clients:\n%s", info)
	return 0
}

// pipelineQueued returns a condition that b has n commands queued.
func pipelineQueued(b *batcher, n int) func() bool {
	return func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		return len(b.queue) == n
	}
}

// flightsLocked reads b.flights under its lock.
func (b *batcher) flightsLocked() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.flights
}

// TestBatcherRepliesGoToTheirCallers queues commands from many goroutines
// behind one in flight: they go out together as one pipeline, and every
// caller gets its own reply.
func TestBatcherRepliesGoToTheirCallers(t *testing.T) {
	_, rdb := pipelineServer(t)
	b := newBatcher(rdb, 1, 1000)
	hold := pipelineHold(t, b)

	const n = 200
	got := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			ctx := context.Background()
			cmd := redis.NewStringCmd(ctx, "echo", fmt.Sprintf("reply %d", i))
			if errs[i] = b.do(ctx, cmd); errs[i] == nil {
				got[i] = cmd.Val()
			}
		})
	}
	pipelineWait(t, "the queue to fill", pipelineQueued(b, n))
	if err := rdb.RPush(context.Background(), "gate", "go").Err(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if err := <-hold; err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if want := fmt.Sprintf("reply %d", i); errs[i] != nil || got[i] != want {
			t.Fatalf("caller %d got %q, %v; want %q", i, got[i], errs[i], want)
		}
	}
	if p := b.pipelines.Load(); p != 1 {
		t.Errorf("%d pipelines sent, want the %d queued commands in one", p, n)
	}
	if f := b.flightsLocked(); f != 0 {
		t.Errorf("%d flights left after everything came back", f)
	}
	// A lone command afterwards goes straight out.
	ctx := context.Background()
	cmd := redis.NewStringCmd(ctx, "echo", "alone")
	if err := b.do(ctx, cmd); err != nil || cmd.Val() != "alone" {
		t.Fatalf("lone command: %q, %v", cmd.Val(), err)
	}
}

// TestBatcherCancelledWhileQueued checks that a caller whose context ends
// while its command waits returns at once, and that the command is then
// never sent.
func TestBatcherCancelledWhileQueued(t *testing.T) {
	_, rdb := pipelineServer(t)
	b := newBatcher(rdb, 1, 1000)
	hold := pipelineHold(t, b)

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := b.do(ctx, redis.NewStatusCmd(ctx, "set", "k", "v"))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("queued command past its deadline: %v, want context.DeadlineExceeded", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("returned after %v; the deadline was 50ms", took)
	}
	// An already-ended context never queues.
	if err := b.do(ctx, redis.NewStatusCmd(ctx, "set", "k2", "v")); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("command on an ended context: %v", err)
	}
	if err := rdb.RPush(context.Background(), "gate", "go").Err(); err != nil {
		t.Fatal(err)
	}
	if err := <-hold; err != nil {
		t.Fatal(err)
	}
	pipelineWait(t, "the flights to land", func() bool { return b.flightsLocked() == 0 })
	if n := rdb.Exists(context.Background(), "k", "k2").Val(); n != 0 {
		t.Fatalf("%d of the cancelled SETs ran; a command whose caller left before it was sent must not run", n)
	}
}

// TestBatcherCancelledInFlight checks that a caller whose context ends while
// its command is in a pipeline returns at once, that the reply arriving
// later is dropped safely (the race detector watches), and that the other
// callers in the pipeline are not affected.
func TestBatcherCancelledInFlight(t *testing.T) {
	_, rdb := pipelineServer(t)
	b := newBatcher(rdb, 1, 1000)
	hold := make(chan error, 1)
	go func() {
		ctx := context.Background()
		hold <- b.do(ctx, redis.NewStringSliceCmd(ctx, "blpop", "gate1", 10))
	}()
	pipelineWait(t, "the hold in flight", func() bool { return b.flightsLocked() == 1 })

	// The pipeline will be [BLPOP gate2, SET k v]: Redis runs the SET only
	// once gate2 opens, so the SET is in flight for as long as we like.
	type result struct {
		v   []string
		err error
	}
	first := make(chan result, 1)
	go func() {
		ctx := context.Background()
		cmd := redis.NewStringSliceCmd(ctx, "blpop", "gate2", 10)
		err := b.do(ctx, cmd)
		first <- result{cmd.Val(), err}
	}()
	pipelineWait(t, "the first queued", pipelineQueued(b, 1))
	ctx, cancel := context.WithCancel(context.Background())
	second := make(chan error, 1)
	go func() { second <- b.do(ctx, redis.NewStatusCmd(ctx, "set", "k", "v")) }()
	pipelineWait(t, "the second queued", pipelineQueued(b, 2))
	if err := rdb.RPush(context.Background(), "gate1", "go").Err(); err != nil {
		t.Fatal(err)
	}
	pipelineWait(t, "the pipeline sent", func() bool { return b.pipelines.Load() == 1 })
	// The pipeline has reached Redis once its BLPOP gate2 blocks there: the
	// hold's BLPOP gate1 was served by the RPUSH (LLEN gate1 is 0), so the
	// one blocked client is the pipeline's.
	pipelineWait(t, "the pipeline blocked in Redis", func() bool {
		return rdb.LLen(context.Background(), "gate1").Val() == 0 && redisBlockedClients(t, rdb) == 1
	})
	cancel()
	select {
	case err := <-second:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled in flight: %v, want context.Canceled", err)
		}
	case <-time.After(time.Second):
		t.Fatal("a caller cancelled in flight did not return within 1s")
	}
	if err := rdb.RPush(context.Background(), "gate2", "x").Err(); err != nil {
		t.Fatal(err)
	}
	r := <-first
	if r.err != nil || len(r.v) != 2 || r.v[1] != "x" {
		t.Fatalf("the other caller in the pipeline got %v, %v", r.v, r.err)
	}
	if err := <-hold; err != nil {
		t.Fatal(err)
	}
	pipelineWait(t, "the flights to land", func() bool { return b.flightsLocked() == 0 })
}

// TestBatcherRedisDownMidBatch stops Redis while one command is in flight
// and others are queued behind it: every caller gets an error (not a
// reply, not a hang), and none of them a context error.
func TestBatcherRedisDownMidBatch(t *testing.T) {
	srv, _ := pipelineServer(t)
	// No retries, so the errors come as soon as the batcher passes them on.
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1, DialerRetries: 1})
	t.Cleanup(func() { _ = rdb.Close() })
	b := newBatcher(rdb, 1, 1000)
	hold := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		hold <- b.do(ctx, redis.NewStringSliceCmd(ctx, "blpop", "gate", 10))
	}()
	pipelineWait(t, "the hold in flight", func() bool { return b.flightsLocked() == 1 })
	const n = 20
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			errs[i] = b.do(ctx, redis.NewStringCmd(ctx, "get", fmt.Sprintf("k%d", i)))
		})
	}
	pipelineWait(t, "the queue to fill", pipelineQueued(b, n))
	start := time.Now()
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("callers waited %v after Redis stopped", took)
	}
	herr := <-hold
	for i, err := range append(errs, herr) {
		switch {
		case err == nil, errors.Is(err, redis.Nil):
			t.Errorf("caller %d: %v with Redis down; want a connection error", i, err)
		case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
			t.Errorf("caller %d: %v; want the connection error, not the context's", i, err)
		}
	}
	if f := b.flightsLocked(); f != 0 {
		t.Errorf("%d flights left", f)
	}
}

// pipelineHold puts one round trip in flight on b (a BLPOP on "gate" that
// waits until something is pushed there, or 10 s), so that further commands
// queue; the channel yields its result.
func pipelineHold(t *testing.T, b *batcher) <-chan error {
	t.Helper()
	hold := make(chan error, 1)
	go func() {
		ctx := context.Background()
		hold <- b.do(ctx, redis.NewStringSliceCmd(ctx, "blpop", "gate", 10))
	}()
	pipelineWait(t, "the hold in flight", func() bool { return b.flightsLocked() == 1 })
	return hold
}
