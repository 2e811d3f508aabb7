package persistence_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

func TestLock(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	a, err := e.store.AcquireLock(ctx, "train", "job-a", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name string
		do   func() error
		want error
	}{
		{"second owner cannot acquire", func() error { _, err := e.store.AcquireLock(ctx, "train", "job-b", time.Minute); return err }, persistence.ErrLockHeld},
		{"holder checks", func() error { return e.store.CheckLock(ctx, a) }, nil},
		{"holder renews", func() error { return e.store.RenewLock(ctx, a, time.Minute) }, nil},
		{"impostor cannot renew", func() error {
			return e.store.RenewLock(ctx, persistence.Lock{Name: "train", Owner: "job-b", Token: a.Token}, time.Minute)
		}, persistence.ErrLockLost},
		{"impostor cannot release", func() error {
			return e.store.ReleaseLock(ctx, persistence.Lock{Name: "train", Owner: "job-a", Token: a.Token - 1})
		}, persistence.ErrLockLost},
		{"other names are free", func() error { _, err := e.store.AcquireLock(ctx, "export", "job-b", time.Minute); return err }, nil},
		{"bad name", func() error { _, err := e.store.AcquireLock(ctx, "{x}", "job-b", time.Minute); return err }, persistence.ErrInvalid},
		{"holder releases", func() error { return e.store.ReleaseLock(ctx, a) }, nil},
		{"released lock is lost", func() error { return e.store.CheckLock(ctx, a) }, persistence.ErrLockLost},
		{"release twice", func() error { return e.store.ReleaseLock(ctx, a) }, persistence.ErrLockLost},
	}
	for _, st := range steps {
		if err := st.do(); !errors.Is(err, st.want) || (err != nil) != (st.want != nil) {
			t.Fatalf("%s: %v, want %v", st.name, err, st.want)
		}
	}
	b, err := e.store.AcquireLock(ctx, "train", "job-b", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if b.Token <= a.Token {
		t.Fatalf("token %d after %d; fencing tokens must grow", b.Token, a.Token)
	}
}

// TestLockLeaseRunsOut: a holder that stops renewing loses the lock to the
// next owner, and then can neither renew, release nor pass a check.
func TestLockLeaseRunsOut(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	a, err := e.store.AcquireLock(ctx, "train", "job-a", 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	// The lease runs out on Redis's clock (PX): wait until the key has
	// gone, rather than for a guessed time.
	waitUntil(t, 5*time.Second, "the 50ms lease runs out", func() bool {
		err := e.store.CheckLock(ctx, a)
		if err != nil && !errors.Is(err, persistence.ErrLockLost) {
			t.Fatal(err)
		}
		return err != nil
	})
	b, err := e.store.AcquireLock(ctx, "train", "job-b", time.Minute)
	if err != nil {
		t.Fatalf("after the lease: %v", err)
	}
	for name, err := range map[string]error{
		"check":   e.store.CheckLock(ctx, a),
		"renew":   e.store.RenewLock(ctx, a, time.Minute),
		"release": e.store.ReleaseLock(ctx, a),
	} {
		if !errors.Is(err, persistence.ErrLockLost) {
			t.Errorf("stale holder %s: %v, want ErrLockLost", name, err)
		}
	}
	if err := e.store.CheckLock(ctx, b); err != nil {
		t.Errorf("new holder: %v", err)
	}
}

// TestLockOneHolder: of many contenders on two Stores, exactly one wins.
func TestLockOneHolder(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	other := persistence.New(redistest.Client(t, e.srv), persistence.Options{})
	ctx := sessCtx(t)
	var mu sync.Mutex
	var winners []persistence.Lock
	var wg sync.WaitGroup
	for i := range 20 {
		s := e.store
		if i%2 == 1 {
			s = other
		}
		wg.Go(func() {
			l, err := s.AcquireLock(ctx, "train", "job", time.Minute)
			switch {
			case err == nil:
				mu.Lock()
				winners = append(winners, l)
				mu.Unlock()
			case !errors.Is(err, persistence.ErrLockHeld):
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if len(winners) != 1 {
		t.Fatalf("%d holders, want 1", len(winners))
	}
}
