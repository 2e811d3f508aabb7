package sched

import (
	"context"
	"sync"
	"testing"
	"time"
)

// fakeClock is an Options.Now that moves only when told.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// testTimeout bounds every wait of a test, so that a scheduling bug fails
// the test instead of hanging it.
const testTimeout = 5 * time.Second

// eventually polls cond until it holds, and reports whether it did
// within testTimeout. It may be called from any goroutine.
func eventually(cond func() bool) bool {
	deadline := time.Now().Add(testTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Microsecond)
	}
	return true
}

// waitUntil fails the test unless cond comes to hold.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if !eventually(cond) {
		t.Fatalf("timed out waiting until %s", what)
	}
}

// recv waits for a value from ch, failing the test after testTimeout.
func recv[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(testTimeout):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// holder is a job that holds a slot until released.
type holder struct {
	release chan struct{}
	done    chan error
}

// hold runs j on p and returns once it holds its slot; the slot is free
// again after h.free.
func hold(t *testing.T, p *Pool, j Job) *holder {
	t.Helper()
	h := &holder{release: make(chan struct{}), done: make(chan error, 1)}
	started := make(chan struct{})
	go func() {
		h.done <- p.Do(context.Background(), j, func(context.Context, Start) error {
			close(started)
			<-h.release
			return nil
		})
	}()
	recv(t, "the holder "+j.User+" to start", started)
	return h
}

// free lets h's job end and waits until it has given its slot back.
func (h *holder) free(t *testing.T) {
	t.Helper()
	close(h.release)
	if err := recv(t, "the holder to end", h.done); err != nil {
		t.Fatalf("holder: %v", err)
	}
}

// queued is a job submitted with submit.
type queued struct {
	started chan Start // receives the Start when fn begins
	finish  chan error // fn returns what is sent here
	done    chan error // receives Do's error
}

// submit calls Do for j in a new goroutine and returns once the job is
// waiting in the queue (the caller makes sure it cannot start at once).
// fn reports its start on q.started and returns what q.finish sends.
func submit(t *testing.T, p *Pool, ctx context.Context, j Job) *queued {
	t.Helper()
	q := &queued{started: make(chan Start, 1), finish: make(chan error, 1), done: make(chan error, 1)}
	before := p.Stats().Waiting()
	go func() {
		q.done <- p.Do(ctx, j, func(_ context.Context, s Start) error {
			q.started <- s
			return <-q.finish
		})
	}()
	waitUntil(t, j.User+"'s job is queued", func() bool { return p.Stats().Waiting() == before+1 })
	return q
}
