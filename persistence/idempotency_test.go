package persistence_test

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

func TestFirstDelivery(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	other := persistence.New(redistest.Client(t, e.srv), persistence.Options{})
	ctx := sessCtx(t)

	// 16 deliveries of one interaction, from two processes: one handles it.
	var first atomic.Int64
	var wg sync.WaitGroup
	for i := range 16 {
		s := e.store
		if i%2 == 1 {
			s = other
		}
		wg.Go(func() {
			ok, err := s.FirstDelivery(ctx, "inter-1", time.Minute)
			if err != nil {
				t.Error(err)
			}
			if ok {
				first.Add(1)
			}
		})
	}
	wg.Wait()
	if n := first.Load(); n != 1 {
		t.Fatalf("%d deliveries handled, want 1", n)
	}
	if ok, err := e.store.FirstDelivery(ctx, "inter-2", 0); !ok || err != nil {
		t.Fatalf("a new interaction: %v, %v", ok, err)
	}
	if ttl := e.rdb.TTL(ctx, "ttt:ix:inter-2").Val(); ttl <= 14*time.Minute || ttl > persistence.DefaultInteractionTTL {
		t.Errorf("default TTL %v", ttl)
	}
	if _, err := e.store.FirstDelivery(ctx, "", 0); !errors.Is(err, persistence.ErrInvalid) {
		t.Errorf("empty ID: %v", err)
	}
}
