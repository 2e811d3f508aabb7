package persistence_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/persistence"
)

// modelBlob returns a deterministic blob of n bytes.
func modelBlob(seed byte, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i*7)
	}
	return b
}

func TestModelPublishLoadRollback(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{ModelVersionsKept: 2})
	ctx := corpusCtx(t)
	const rules = "3x3k3"
	if _, _, err := e.store.LoadModel(ctx, rules, 0); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("load before any publish: %v; want ErrNotFound", err)
	}
	if _, err := e.store.RollbackModel(ctx, rules); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("rollback before any publish: %v; want ErrNotFound", err)
	}
	blobs := map[int64][]byte{}
	for v := int64(1); v <= 5; v++ {
		blob := modelBlob(byte(v), 1000+int(v))
		sum := sha256.Sum256(blob)
		eval := json.RawMessage(fmt.Sprintf(`{"vs_perfect_draws":0.%d}`, v))
		m, err := e.store.PublishModel(ctx, rules, persistence.ModelMeta{Eval: eval, SHA256: hex.EncodeToString(sum[:])}, blob)
		if err != nil {
			t.Fatal(err)
		}
		if m.Version != v || m.Rules != rules || m.Size != int64(len(blob)) || !m.Created.Equal(e.clk.Now()) {
			t.Fatalf("publish %d returned %+v", v, m)
		}
		blobs[v] = blob
		e.clk.Advance(time.Hour)
	}
	metas, cur, err := e.store.ModelVersions(ctx, rules)
	if err != nil || cur != 5 {
		t.Fatalf("ModelVersions: current %d, %v", cur, err)
	}
	var vs []int64
	for _, m := range metas {
		vs = append(vs, m.Version)
	}
	if fmt.Sprint(vs) != "[5 4 3]" {
		t.Fatalf("kept versions %v; want [5 4 3] (current and 2 earlier)", vs)
	}
	if _, _, err := e.store.LoadModel(ctx, rules, 2); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("dropped version 2: %v; want ErrNotFound", err)
	}
	if n, _ := e.rdb.Exists(ctx, persistence.ModelBlobKeyForTest(e.store, rules, 2), persistence.ModelMetaKeyForTest(e.store, rules, 2)).Result(); n != 0 {
		t.Fatalf("version 2's keys are still there")
	}
	steps := []struct {
		rollback bool
		want     int64
		err      error
	}{
		{false, 5, nil},
		{true, 4, nil},
		{true, 3, nil},
		{true, 3, persistence.ErrNotFound},
	}
	for i, s := range steps {
		if s.rollback {
			m, err := e.store.RollbackModel(ctx, rules)
			if !errors.Is(err, s.err) || (err == nil && m.Version != s.want) {
				t.Fatalf("step %d: rollback to %d, %v; want %d, %v", i, m.Version, err, s.want, s.err)
			}
		}
		m, blob, err := e.store.LoadModel(ctx, rules, 0)
		if err != nil || m.Version != s.want || !bytes.Equal(blob, blobs[s.want]) {
			t.Fatalf("step %d: current %d, %v; want %d", i, m.Version, err, s.want)
		}
		if string(m.Eval) != fmt.Sprintf(`{"vs_perfect_draws":0.%d}`, s.want) {
			t.Fatalf("eval %s", m.Eval)
		}
	}
	// Publishing after a rollback makes the new version current.
	m, err := e.store.PublishModel(ctx, rules, persistence.ModelMeta{}, modelBlob(6, 10))
	if err != nil || m.Version != 6 {
		t.Fatalf("publish after rollback: %+v, %v", m, err)
	}
	if v, err := e.store.CurrentModelVersion(ctx, rules); err != nil || v != 6 {
		t.Fatalf("current %d, %v", v, err)
	}
	if _, err := e.store.PublishModel(ctx, rules, persistence.ModelMeta{Eval: json.RawMessage("{oops")}, nil); !errors.Is(err, persistence.ErrInvalid) {
		t.Fatalf("bad eval: %v; want ErrInvalid", err)
	}
}

// TestModelLargeBlob stores and loads a 4 MB blob.
func TestModelLargeBlob(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	blob := modelBlob(3, 4<<20)
	if _, err := e.store.PublishModel(ctx, "5x5k4", persistence.ModelMeta{}, blob); err != nil {
		t.Fatal(err)
	}
	_, got, err := e.store.LoadModel(ctx, "5x5k4", 0)
	if err != nil || !bytes.Equal(got, blob) {
		t.Fatalf("load: %d bytes, %v", len(got), err)
	}
}

// TestModelCorrupt: a blob that does not match its checksum is refused at
// publish (the previous model stays current) and detected at load.
func TestModelCorrupt(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	const rules = "3x3k3"
	good := modelBlob(1, 100)
	if _, err := e.store.PublishModel(ctx, rules, persistence.ModelMeta{}, good); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(good)
	_, err := e.store.PublishModel(ctx, rules, persistence.ModelMeta{SHA256: hex.EncodeToString(sum[:])}, modelBlob(2, 100))
	if !errors.Is(err, persistence.ErrCorrupt) {
		t.Fatalf("publish with a wrong checksum: %v; want ErrCorrupt", err)
	}
	if m, blob, err := e.store.LoadModel(ctx, rules, 0); err != nil || m.Version != 1 || !bytes.Equal(blob, good) {
		t.Fatalf("after the refused publish: version %d, %v; want 1", m.Version, err)
	}
	if _, err := e.store.PublishModel(ctx, rules, persistence.ModelMeta{}, modelBlob(3, 100)); err != nil {
		t.Fatal(err)
	}
	// Corrupt version 2, now current (the refused publish used no number).
	tests := []struct {
		name string
		key  string
		val  string
	}{
		{"flipped blob", persistence.ModelBlobKeyForTest(e.store, rules, 2), string(modelBlob(4, 100))},
		{"truncated blob", persistence.ModelBlobKeyForTest(e.store, rules, 2), string(modelBlob(3, 99))},
		{"bad metadata", persistence.ModelMetaKeyForTest(e.store, rules, 2), "{not json"},
		{"metadata of another version", persistence.ModelMetaKeyForTest(e.store, rules, 2), `{"rules":"3x3k3","version":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, err := e.rdb.Get(ctx, tt.key).Result()
			if err != nil {
				t.Fatal(err)
			}
			if err := e.rdb.Set(ctx, tt.key, tt.val, 0).Err(); err != nil {
				t.Fatal(err)
			}
			if _, _, err := e.store.LoadModel(ctx, rules, 0); !errors.Is(err, persistence.ErrCorrupt) {
				t.Fatalf("load: %v; want ErrCorrupt", err)
			}
			if err := e.rdb.Set(ctx, tt.key, old, 0).Err(); err != nil {
				t.Fatal(err)
			}
			if _, _, err := e.store.LoadModel(ctx, rules, 0); err != nil {
				t.Fatalf("load after repair: %v", err)
			}
		})
	}
	// The bot's way out: roll back to the last good version.
	if err := e.rdb.Set(ctx, persistence.ModelBlobKeyForTest(e.store, rules, 2), "junk", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if m, err := e.store.RollbackModel(ctx, rules); err != nil || m.Version != 1 {
		t.Fatalf("rollback: %+v, %v; want version 1", m, err)
	}
	if _, blob, err := e.store.LoadModel(ctx, rules, 0); err != nil || !bytes.Equal(blob, good) {
		t.Fatalf("load after rollback: %v", err)
	}
}

// nextEvent waits for one model event.
func nextEvent(t *testing.T, ch <-chan persistence.ModelEvent, within time.Duration) persistence.ModelEvent {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("event channel closed")
		}
		return ev
	case <-time.After(within):
		t.Fatalf("no model event within %v", within)
	}
	return persistence.ModelEvent{}
}

// TestModelSubscribe: one Store publishes and rolls back, another's
// subscription sees both, also after its connection is lost and the
// server comes back.
func TestModelSubscribe(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	bot := e.another(t)
	subCtx, cancel := context.WithCancel(ctx)
	events, err := bot.SubscribeModels(subCtx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.PublishModel(ctx, "3x3k3", persistence.ModelMeta{}, modelBlob(1, 10)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.PublishModel(ctx, "3x3k3", persistence.ModelMeta{}, modelBlob(2, 10)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.RollbackModel(ctx, "3x3k3"); err != nil {
		t.Fatal(err)
	}
	want := []persistence.ModelEvent{
		{Kind: persistence.ModelPublished, Rules: "3x3k3", Version: 1},
		{Kind: persistence.ModelPublished, Rules: "3x3k3", Version: 2},
		{Kind: persistence.ModelRolledBack, Rules: "3x3k3", Version: 1},
	}
	for _, w := range want {
		if ev := nextEvent(t, events, 5*time.Second); ev != w {
			t.Fatalf("event %+v; want %+v", ev, w)
		}
	}

	// The server restarts: the subscription comes back by itself and says
	// so, then sees the next publish.
	if err := e.srv.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if ev := nextEvent(t, events, 10*time.Second); ev.Kind != persistence.ModelResync {
		t.Fatalf("after the restart: %+v; want a resync", ev)
	}
	if _, err := e.store.PublishModel(ctx, "4x4k4", persistence.ModelMeta{}, modelBlob(3, 10)); err != nil {
		t.Fatal(err)
	}
	if ev := nextEvent(t, events, 5*time.Second); ev != (persistence.ModelEvent{Kind: persistence.ModelPublished, Rules: "4x4k4", Version: 1}) {
		t.Fatalf("after the restart: %+v", ev)
	}
	cancel()
	for range events { // drains, then closes
	}
}

// TestModelRollbackTo: any kept version can be made current, earlier or
// later than the current one; the current one again changes nothing; a
// version not kept is ErrNotFound. Each change is announced.
func TestModelRollbackTo(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{ModelVersionsKept: 2})
	ctx := corpusCtx(t)
	const rules = "3x3k3"
	subCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	events, err := e.store.SubscribeModels(subCtx)
	if err != nil {
		t.Fatal(err)
	}
	for v := byte(1); v <= 4; v++ {
		var m persistence.ModelMeta
		if v == 4 {
			m = persistence.ModelMeta{Source: persistence.ModelSourceImport, Note: "from a file"}
		}
		if _, err := e.store.PublishModel(ctx, rules, m, modelBlob(v, 10)); err != nil {
			t.Fatal(err)
		}
	}
	if m, _, err := e.store.LoadModel(ctx, rules, 4); err != nil || m.Source != persistence.ModelSourceImport || m.Note != "from a file" {
		t.Fatalf("version 4: %+v, %v; want its source and note kept", m, err)
	}
	steps := []struct {
		to, want int64
		err      error
		event    bool
	}{
		{to: 2, want: 2, event: true},
		{to: 4, want: 4, event: true}, // forward again, undoing the rollback
		{to: 4, want: 4},              // current already: no event
		{to: 1, want: 4, err: persistence.ErrNotFound},
		{to: 9, want: 4, err: persistence.ErrNotFound},
		{to: 0, want: 4, err: persistence.ErrNotFound},
		{to: 3, want: 3, event: true},
	}
	want := []persistence.ModelEvent{
		{Kind: persistence.ModelPublished, Rules: rules, Version: 1},
		{Kind: persistence.ModelPublished, Rules: rules, Version: 2},
		{Kind: persistence.ModelPublished, Rules: rules, Version: 3},
		{Kind: persistence.ModelPublished, Rules: rules, Version: 4},
	}
	for i, s := range steps {
		m, err := e.store.RollbackModelTo(ctx, rules, s.to)
		if !errors.Is(err, s.err) || (err == nil && m.Version != s.to) {
			t.Fatalf("step %d: rollback to %d gave version %d, %v; want %v", i, s.to, m.Version, err, s.err)
		}
		if v, err := e.store.CurrentModelVersion(ctx, rules); err != nil || v != s.want {
			t.Fatalf("step %d: current %d, %v; want %d", i, v, err, s.want)
		}
		if s.event {
			want = append(want, persistence.ModelEvent{Kind: persistence.ModelRolledBack, Rules: rules, Version: s.to})
		}
	}
	for _, w := range want {
		if ev := nextEvent(t, events, 5*time.Second); ev != w {
			t.Fatalf("event %+v; want %+v", ev, w)
		}
	}
}
