package persistence_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/persistence"
)

// TestPresence: members heartbeat into a group, drop out when their
// heartbeat runs out (by the Store's clock) and at once when they leave.
func TestPresence(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	members := func() []string {
		t.Helper()
		m, err := e.store.Members(ctx, "shards:4")
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if m := members(); len(m) != 0 {
		t.Fatalf("empty group has members %v", m)
	}
	for _, o := range []string{"b", "a"} {
		if err := e.store.Heartbeat(ctx, "shards:4", o, 10*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.store.Heartbeat(ctx, "shards:8", "c", 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if m := members(); !slices.Equal(m, []string{"a", "b"}) {
		t.Fatalf("members %v, want [a b] (sorted, other groups apart)", m)
	}
	e.clk.Advance(6 * time.Second)
	if err := e.store.Heartbeat(ctx, "shards:4", "a", 10*time.Second); err != nil {
		t.Fatal(err)
	}
	e.clk.Advance(5 * time.Second) // b's heartbeat ran out a second ago
	if m := members(); !slices.Equal(m, []string{"a"}) {
		t.Fatalf("members %v after b stopped, want [a]", m)
	}
	if err := e.store.Leave(ctx, "shards:4", "a"); err != nil {
		t.Fatal(err)
	}
	if m := members(); len(m) != 0 {
		t.Fatalf("members %v after a left, want none", m)
	}
	bad := []struct{ group, owner string }{{"", "a"}, {"x{y}", "a"}, {"g", ""}}
	for _, b := range bad {
		if err := e.store.Heartbeat(ctx, b.group, b.owner, time.Second); !errors.Is(err, persistence.ErrInvalid) {
			t.Errorf("Heartbeat(%q, %q): %v, want ErrInvalid", b.group, b.owner, err)
		}
	}
}

// TestWaitIdentify: callers of one bucket, on separate Stores (separate
// processes), pass one per spacing; another bucket is not held up; a
// waiter gives up when its context ends.
func TestWaitIdentify(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	other := persistence.New(e.rdb, persistence.Options{})
	ctx := sessCtx(t)
	const spacing = 200 * time.Millisecond
	var (
		mu    sync.Mutex
		times []time.Time
		wg    sync.WaitGroup
	)
	for i := range 4 {
		st := e.store
		if i%2 == 1 {
			st = other
		}
		wg.Go(func() {
			if err := st.WaitIdentify(ctx, 3, "p"+string(rune('0'+i)), spacing); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			times = append(times, time.Now())
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	for i := 1; i < len(times); i++ {
		// The slot is a Redis TTL; allow a few ms of clock granularity.
		if gap := times[i].Sub(times[i-1]); gap < spacing-10*time.Millisecond {
			t.Errorf("identify %d came %s after the one before, want >= %s", i, gap, spacing)
		}
	}

	start := time.Now()
	if err := other.WaitIdentify(ctx, 4, "p", spacing); err != nil || time.Since(start) > spacing {
		t.Fatalf("free bucket: %v after %s", err, time.Since(start))
	}
	if err := other.WaitIdentify(ctx, 5, "p", time.Minute); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := e.store.WaitIdentify(short, 5, "q", time.Minute); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting past the context: %v, want DeadlineExceeded", err)
	}
}
