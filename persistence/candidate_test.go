package persistence_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/persistence"
)

func TestCandidateSaveLoad(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	const rules = "3x3k3"
	if _, _, err := e.store.LoadCandidate(ctx, rules); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("load before any save: %v; want ErrNotFound", err)
	}
	if _, err := e.store.SaveCandidate(ctx, rules, persistence.CandidateMeta{Report: json.RawMessage("{not json")}, modelBlob(1, 10)); !errors.Is(err, persistence.ErrInvalid) {
		t.Fatalf("save with a bad report: %v; want ErrInvalid", err)
	}
	if _, err := e.store.SaveCandidate(ctx, "", persistence.CandidateMeta{}, modelBlob(1, 10)); !errors.Is(err, persistence.ErrInvalid) {
		t.Fatalf("save without rules: %v; want ErrInvalid", err)
	}
	for i, blob := range [][]byte{modelBlob(1, 1000), modelBlob(2, 500)} {
		report := json.RawMessage(`{"promoted":false,"reason":"scored 0.40 against the live model"}`)
		m, err := e.store.SaveCandidate(ctx, rules, persistence.CandidateMeta{Report: report}, blob)
		if err != nil {
			t.Fatal(err)
		}
		if m.Rules != rules || m.Size != int64(len(blob)) || !m.Created.Equal(e.clk.Now()) || m.SHA256 == "" {
			t.Fatalf("save %d returned %+v", i, m)
		}
		got, gotBlob, err := e.store.LoadCandidate(ctx, rules)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(gotBlob, blob) || got.SHA256 != m.SHA256 || !bytes.Equal(got.Report, report) || !got.Created.Equal(m.Created) {
			t.Fatalf("load %d: %+v, %d bytes; want %+v, %d bytes (the latest save replaces the one before)", i, got, len(gotBlob), m, len(blob))
		}
		e.clk.Advance(time.Hour)
	}
	// The registry is untouched.
	if _, _, err := e.store.LoadModel(ctx, rules, 0); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("registry after saving candidates: %v; want ErrNotFound", err)
	}
	if err := e.store.DeleteCandidate(ctx, rules); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.store.LoadCandidate(ctx, rules); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("load after delete: %v; want ErrNotFound", err)
	}
	if err := e.store.DeleteCandidate(ctx, rules); err != nil {
		t.Fatalf("deleting twice: %v", err)
	}
}

func TestCandidateCorrupt(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	const rules = "4x4k4"
	blob := modelBlob(3, 100)
	if _, err := e.store.SaveCandidate(ctx, rules, persistence.CandidateMeta{}, blob); err != nil {
		t.Fatal(err)
	}
	// The keys as candidate.go documents them (default prefix "ttt").
	const metaKey, blobKey = "ttt:model:{4x4k4}:candidate:meta", "ttt:model:{4x4k4}:candidate:blob"
	tests := []struct {
		name string
		key  string
		val  string
	}{
		{"flipped blob", blobKey, string(modelBlob(4, 100))},
		{"truncated blob", blobKey, string(blob[:99])},
		{"bad metadata", metaKey, "{not json"},
		{"metadata of other rules", metaKey, `{"rules":"3x3k3"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, err := e.rdb.Get(ctx, tt.key).Result()
			if err != nil {
				t.Fatalf("the documented key %s: %v", tt.key, err)
			}
			if err := e.rdb.Set(ctx, tt.key, tt.val, 0).Err(); err != nil {
				t.Fatal(err)
			}
			if _, _, err := e.store.LoadCandidate(ctx, rules); !errors.Is(err, persistence.ErrCorrupt) {
				t.Fatalf("load: %v; want ErrCorrupt", err)
			}
			if err := e.rdb.Set(ctx, tt.key, old, 0).Err(); err != nil {
				t.Fatal(err)
			}
			if _, _, err := e.store.LoadCandidate(ctx, rules); err != nil {
				t.Fatalf("load after repair: %v", err)
			}
		})
	}
	if err := e.rdb.Del(ctx, blobKey).Err(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.store.LoadCandidate(ctx, rules); !errors.Is(err, persistence.ErrCorrupt) {
		t.Fatalf("load without the blob: %v; want ErrCorrupt", err)
	}
}
