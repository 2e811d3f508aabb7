package persistence_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

// fixedSecret returns a generator of value that counts its calls in n.
func fixedSecret(value string, n *atomic.Int32) func() ([]byte, error) {
	return func() ([]byte, error) {
		n.Add(1)
		return []byte(value), nil
	}
}

func TestSecret(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	var calls atomic.Int32
	first, err := e.store.Secret(ctx, "custom_id_key", fixedSecret(strings.Repeat("a", 32), &calls))
	if err != nil || string(first) != strings.Repeat("a", 32) || calls.Load() != 1 {
		t.Fatalf("first call: %q, %v, %d generations; want the generated value, one generation", first, err, calls.Load())
	}
	again, err := e.store.Secret(ctx, "custom_id_key", fixedSecret(strings.Repeat("b", 32), &calls))
	if err != nil || !bytes.Equal(again, first) || calls.Load() != 1 {
		t.Fatalf("second call: %q, %v, %d generations; want the stored value and no generation", again, err, calls.Load())
	}
	if ttl := e.rdb.TTL(ctx, "ttt:secret:custom_id_key").Val(); ttl != -1 {
		t.Errorf("TTL %v, want none (-1): a secret never expires", ttl)
	}
	other, err := e.store.Secret(ctx, "pseudonym_key", fixedSecret(strings.Repeat("c", 32), &calls))
	if err != nil || string(other) != strings.Repeat("c", 32) {
		t.Fatalf("another name: %q, %v; want its own secret", other, err)
	}
}

// TestSecretRace: first calls from two Stores (two processes) at once all
// get the same secret, whichever generator won.
func TestSecretRace(t *testing.T) {
	srv := redistest.Start(t)
	ctx := sessCtx(t)
	stores := []*persistence.Store{
		persistence.New(redistest.Client(t, srv), persistence.Options{}),
		persistence.New(redistest.Client(t, srv), persistence.Options{}),
	}
	const callers = 16
	got := make([][]byte, callers)
	errs := make([]error, callers)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			<-start
			got[i], errs[i] = stores[i%2].Secret(ctx, "race", func() ([]byte, error) {
				return fmt.Appendf(nil, "generated-by-caller-%02d", i), nil
			})
		})
	}
	close(start)
	wg.Wait()
	for i := range callers {
		if errs[i] != nil {
			t.Fatalf("caller %d: %v", i, errs[i])
		}
		if !bytes.Equal(got[i], got[0]) {
			t.Fatalf("caller %d got %q, caller 0 got %q; want one secret", i, got[i], got[0])
		}
	}
	if !bytes.HasPrefix(got[0], []byte("generated-by-caller-")) {
		t.Fatalf("secret %q is none of the generated values", got[0])
	}
	stored, err := redistest.Client(t, srv).Get(ctx, "ttt:secret:race").Result()
	if err != nil || stored != string(got[0]) {
		t.Fatalf("stored %q, %v; want %q", stored, err, got[0])
	}
}

func TestSecretErrors(t *testing.T) {
	e := newSessEnv(t, persistence.Options{Prefix: "p"})
	ctx := sessCtx(t)
	if err := e.rdb.Set(ctx, "p:secret:short", "fifteen-bytes!!", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := e.rdb.Set(ctx, "p:secret:empty", "", 0).Err(); err != nil {
		t.Fatal(err)
	}
	long := func() ([]byte, error) { return []byte(strings.Repeat("s", 32)), nil }
	broken := errors.New("no entropy")
	for _, tt := range []struct {
		name, secret string
		gen          func() ([]byte, error)
		want         error
	}{
		{"short stored value", "short", long, persistence.ErrCorrupt},
		{"empty stored value", "empty", long, persistence.ErrCorrupt},
		{"short generated value", "fresh", func() ([]byte, error) { return []byte("0123456789abcde"), nil }, persistence.ErrInvalid},
		{"generator fails", "fresh", func() ([]byte, error) { return nil, broken }, broken},
		{"empty name", "", long, persistence.ErrInvalid},
		{"name with a hash tag", "{x}", long, persistence.ErrInvalid},
		{"name with a space", "a b", long, persistence.ErrInvalid},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, err := e.store.Secret(ctx, tt.secret, tt.gen)
			if !errors.Is(err, tt.want) || v != nil {
				t.Fatalf("Secret = %q, %v; want %v", v, err, tt.want)
			}
		})
	}
	if n := e.rdb.Exists(ctx, "p:secret:fresh").Val(); n != 0 {
		t.Errorf("a refused generated secret was stored")
	}
	// The prefix applies: 16 bytes exactly are enough.
	v, err := e.store.Secret(ctx, "ok", func() ([]byte, error) { return []byte("0123456789abcdef"), nil })
	if err != nil || e.rdb.Get(ctx, "p:secret:ok").Val() != string(v) {
		t.Fatalf("Secret = %q, %v; want it stored under p:secret:ok", v, err)
	}
}

// ExampleStore_Secret shares a generated key between two Stores, as two
// bot processes on one Redis would.
func ExampleStore_Secret() {
	ctx := context.Background()
	rdb, closeRedis, err := persistence.Open(ctx, persistence.OpenOptions{InMemory: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer closeRedis()
	gen := func(v string) func() ([]byte, error) {
		return func() ([]byte, error) { return []byte(v), nil }
	}
	a, b := persistence.New(rdb, persistence.Options{}), persistence.New(rdb, persistence.Options{})
	ka, err := a.Secret(ctx, "demo", gen("generated by process A......."))
	if err != nil {
		fmt.Println(err)
		return
	}
	kb, err := b.Secret(ctx, "demo", gen("generated by process B......."))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(ka))
	fmt.Println(string(kb))
	// Output:
	// generated by process A.......
	// generated by process A.......
}
