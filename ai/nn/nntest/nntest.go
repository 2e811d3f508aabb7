// Package nntest has the helpers tests use to make and watch small
// networks: weights files of tiny random networks, a shipped-weights
// function, and the version of a set's live network.
package nntest

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/game"
)

// TinyBlob returns the weights file of a small random network for rules,
// with the given version in its metadata.
func TinyBlob(t testing.TB, rules string, seed uint64, version string) []byte {
	t.Helper()
	n, err := nn.New(nn.Arch{Rules: rules, Hidden: []int{4}}, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatal(err)
	}
	blob, err := nn.Marshal(n, nn.Meta{Version: version, Created: time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	return blob
}

// Shipped returns a defaults function (as package weights' Load) that
// ships tiny networks, versioned "shipped-test", for the given rules only.
func Shipped(t testing.TB, rules ...string) func(string) ([]byte, error) {
	blobs := map[string][]byte{}
	for i, r := range rules {
		blobs[r] = TinyBlob(t, r, uint64(100+i), "shipped-test")
	}
	return func(r string) ([]byte, error) {
		if b, ok := blobs[r]; ok {
			return b, nil
		}
		return nil, fmt.Errorf("weights: %s: %w", r, fs.ErrNotExist)
	}
}

// LiveVersion returns the version of rules' network in set, "" if none.
func LiveVersion(set *nn.Set, rules string) string {
	r, err := game.ParseRules(rules)
	if err != nil {
		return "bad rules " + rules
	}
	m, ok := set.Meta(r)
	if !ok {
		return ""
	}
	return m.Version
}

// WaitVersion waits until set's network for rules has version want, or
// fails t when ctx ends first.
func WaitVersion(t testing.TB, ctx context.Context, set *nn.Set, rules, want string) {
	t.Helper()
	for LiveVersion(set, rules) != want {
		select {
		case <-ctx.Done():
			t.Fatalf("%s network is %q, want %q", rules, LiveVersion(set, rules), want)
		case <-time.After(10 * time.Millisecond):
		}
	}
}
