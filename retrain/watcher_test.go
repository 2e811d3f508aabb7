package retrain_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/ai/nn/nntest"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
	"github.com/tttbot/ttt-bot/retrain"
)

// presets are the bot's preset boards (bot.PresetKeys), which the watcher
// keeps networks for.
var presets = []string{"3x3k3", "4x4k3", "4x4k4", "5x5k4", "5x5k5", "4x3xox"}

// TestModelWatcherLoad checks where Load takes each preset's network
// from: the registry's current version, else the shipped default, else
// nothing; and that a corrupt current version falls back to the default
// with a logged error.
func TestModelWatcherLoad(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	srv := redistest.Start(t)
	store := persistence.New(redistest.Client(t, srv), persistence.Options{})
	if _, err := store.PublishModel(ctx, "4x4k4", persistence.ModelMeta{}, nntest.TinyBlob(t, "4x4k4", 1, "job")); err != nil {
		t.Fatal(err)
	}
	if _, err := store.PublishModel(ctx, "5x5k4", persistence.ModelMeta{}, []byte("not a weights file")); err != nil {
		t.Fatal(err)
	}
	m, err := store.PublishModel(ctx, "4x4k3", persistence.ModelMeta{}, nntest.TinyBlob(t, "4x4k3", 2, "job"))
	if err != nil {
		t.Fatal(err)
	}
	damage(t, ctx, redistest.Client(t, srv), "4x4k3", m.Version)
	logs := &syncBuffer{}
	set := nn.NewSet()
	w := retrain.NewModelWatcher(store, set, nntest.Shipped(t, "3x3k3", "5x5k4"), presets, slog.New(slog.NewTextHandler(logs, nil)))
	err = w.Load(ctx)
	if err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Errorf("Load = %v, want the corrupt 5x5k4 registry blob reported", err)
	}
	for _, tc := range []struct{ rules, want string }{
		{"3x3k3", "shipped-test"}, // nothing published
		{"4x4k4", "redis-1"},      // published
		{"5x5k4", "shipped-test"}, // published but corrupt
		{"4x4k3", ""},             // published but damaged, none shipped
		{"5x5k5", ""},             // neither
	} {
		if got := nntest.LiveVersion(set, tc.rules); got != tc.want {
			t.Errorf("%s: version %q, want %q", tc.rules, got, tc.want)
		}
	}
	if v, ok := retrain.RegistryVersion(must(set.Meta(game.Classic()))); ok || v != 0 {
		t.Errorf("RegistryVersion of a shipped model = %d, %v", v, ok)
	}
	r44, _ := game.ParseRules("4x4k4")
	if v, ok := retrain.RegistryVersion(must(set.Meta(r44))); !ok || v != 1 {
		t.Errorf("RegistryVersion of redis-1 = %d, %v", v, ok)
	}
	if l := logs.String(); !strings.Contains(l, "model refused (corrupt or truncated); the live model stays") || !strings.Contains(l, "rules=5x5k4") {
		t.Errorf("logs do not explain the refused blob:\n%s", l)
	}
}

// damage truncates the stored blob of version v of rules, as a torn
// write would.
func damage(t *testing.T, ctx context.Context, rdb *redis.Client, rules string, v int64) {
	t.Helper()
	keys, err := rdb.Keys(ctx, fmt.Sprintf("*{%s}:blob:%d", rules, v)).Result()
	if err != nil || len(keys) != 1 {
		t.Fatalf("blob key of version %d: %v %v", v, keys, err)
	}
	blob, err := rdb.Get(ctx, keys[0]).Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if err := rdb.Set(ctx, keys[0], blob[:len(blob)/2], 0).Err(); err != nil {
		t.Fatal(err)
	}
}

func must[T any](v T, ok bool) T {
	if !ok {
		panic("not ok")
	}
	return v
}

// TestModelWatcherRun checks hot swaps: a version published or rolled back
// by another process goes live in a running watcher; a corrupt (bad
// checksum or unparsable) or mismatched blob is refused and the live
// network stays; a resync after missed events catches up.
func TestModelWatcherRun(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	srv := redistest.Start(t)
	rdb := redistest.Client(t, srv)
	store := persistence.New(rdb, persistence.Options{})
	other := persistence.New(redistest.Client(t, srv), persistence.Options{}) // another process
	logs := &syncBuffer{}
	set := nn.NewSet()
	w := retrain.NewModelWatcher(store, set, nntest.Shipped(t, "3x3k3"), presets, slog.New(slog.NewTextHandler(logs, nil)))
	if err := w.Load(ctx); err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	var running sync.WaitGroup
	defer func() {
		stop()
		running.Wait()
	}()
	running.Go(func() { w.Run(runCtx) })

	publish := func(blob []byte) int64 {
		t.Helper()
		m, err := other.PublishModel(ctx, "3x3k3", persistence.ModelMeta{}, blob)
		if err != nil {
			t.Fatal(err)
		}
		return m.Version
	}
	publish(nntest.TinyBlob(t, "3x3k3", 2, "job"))
	nntest.WaitVersion(t, ctx, set, "3x3k3", "redis-1")
	publish(nntest.TinyBlob(t, "3x3k3", 3, "job"))
	nntest.WaitVersion(t, ctx, set, "3x3k3", "redis-2")
	if _, err := other.RollbackModel(ctx, "3x3k3"); err != nil {
		t.Fatal(err)
	}
	nntest.WaitVersion(t, ctx, set, "3x3k3", "redis-1")

	// refused waits for one more refusal in the logs and checks that the
	// live version is still want.
	refused := func(name, want, why string, act func()) {
		t.Helper()
		before := strings.Count(logs.String(), "model refused")
		act()
		for strings.Count(logs.String(), "model refused") == before {
			select {
			case <-ctx.Done():
				t.Fatalf("%s: no refusal logged:\n%s", name, logs.String())
			case <-time.After(10 * time.Millisecond):
			}
		}
		if got := nntest.LiveVersion(set, "3x3k3"); got != want {
			t.Fatalf("%s: live version %q after a refused blob, want %s kept", name, got, want)
		}
		if l := logs.String(); !strings.Contains(l, why) {
			t.Fatalf("%s: logs do not say %q:\n%s", name, why, l)
		}
	}
	refused("garbage", "redis-1", "corrupt or truncated", func() {
		publish([]byte("\x10\x00\x00\x00\x00\x00\x00\x00{not json}"))
	})
	refused("truncated", "redis-1", "corrupt or truncated", func() { publish(nntest.TinyBlob(t, "3x3k3", 4, "job")[:100]) })
	refused("other rules", "redis-1", "for other rules or another network shape", func() { publish(nntest.TinyBlob(t, "4x4k4", 5, "job")) })
	// A good version, then a rollback to a kept version whose stored blob
	// was damaged (it fails the registry's checksum).
	good := publish(nntest.TinyBlob(t, "3x3k3", 7, "job"))
	nntest.WaitVersion(t, ctx, set, "3x3k3", fmt.Sprintf("redis-%d", good))
	damage(t, ctx, rdb, "3x3k3", good-1)
	refused("checksum", fmt.Sprintf("redis-%d", good), "corrupt or truncated", func() {
		if _, err := other.RollbackModel(ctx, "3x3k3"); err != nil {
			t.Fatal(err)
		}
	})

	// A version published while nobody listened is picked up by a resync:
	// here a second watcher starts after the publish.
	v := publish(nntest.TinyBlob(t, "3x3k3", 6, "job"))
	nntest.WaitVersion(t, ctx, set, "3x3k3", fmt.Sprintf("redis-%d", v))
	set2 := nn.NewSet()
	w2 := retrain.NewModelWatcher(store, set2, nil, presets, slog.New(slog.NewTextHandler(logs, nil)))
	running.Go(func() { w2.Run(runCtx) })
	nntest.WaitVersion(t, ctx, set2, "3x3k3", fmt.Sprintf("redis-%d", v))
	if got := nntest.LiveVersion(set2, "4x4k4"); got != "" {
		t.Fatalf("4x4k4 in the second set: %q, want none (nothing shipped)", got)
	}
}

// ExampleModelWatcher shows how a bot process wires its networks: the
// watcher fills the set the neural levels play and keeps it current, and
// the Bot gets the same set to show (/ttt-admin model) and check it.
func ExampleModelWatcher() {
	ctx := context.Background()
	store := persistence.New(redis.NewClient(&redis.Options{Addr: "localhost:6379"}), persistence.Options{})
	set := nn.NewSet()
	noneShipped := func(rules string) ([]byte, error) { return nil, fmt.Errorf("%s: %w", rules, fs.ErrNotExist) }
	w := retrain.NewModelWatcher(store, set, noneShipped, []string{"3x3k3", "4x4k4"}, slog.Default()) // weights.Load in production
	if err := w.Load(ctx); err != nil {
		slog.Warn("some networks did not load", "err", err) // the others play
	}
	go w.Run(ctx) // hot-swaps published and rolled-back versions

	levels := ai.NewRegistry()
	levels.Register(ai.NeuralLevel(set))
	levels.Register(ai.HumanlikeLevel(set))
	_ = levels // bot.Deps{Store: store, Levels: levels, Models: set, ...}
}

// syncBuffer is a bytes.Buffer safe for the logger's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
