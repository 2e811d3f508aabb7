package bot

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// The -update flag rewrites golden files. Another test file of the package
// may define it first, so look before defining.
var _ = func() bool {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files in testdata/")
	}
	return true
}()

// updating reports whether -update was given.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// testKey is the HMAC key of the tests' Signer.
var testKey = []byte("0123456789abcdef0123456789abcdef")

// fixedNow is the tests' clock reading.
var fixedNow = time.Date(2026, 11, 21, 20, 0, 0, 0, time.UTC)

const testGame = persistence.GameID("112233445566778899.abcdefghijklm")

func testCatalog(t testing.TB) *Catalog {
	t.Helper()
	c, err := NewCatalog()
	if err != nil {
		t.Fatalf("NewCatalog: %v", err)
	}
	return c
}

func testSigner(t testing.TB) *Signer {
	t.Helper()
	s, err := NewSigner(testKey)
	if err != nil {
		t.Fatalf("NewSigner: %v", err)
	}
	return s
}

func testRenderer(t testing.TB) *Renderer {
	t.Helper()
	return NewRenderer(testCatalog(t), testSigner(t))
}

// cells parses cell names for rules.
func cells(t testing.TB, rules string, names ...string) []game.Cell {
	t.Helper()
	r, err := game.ParseRules(rules)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]game.Cell, len(names))
	for i, n := range names {
		if out[i], err = r.ParseCell(n); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// wireJSON returns v as discordgo sends it (encoding/json, HTML-escaped),
// indented for reading; indenting changes only whitespace.
func wireJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		t.Fatalf("indent: %v", err)
	}
	out.WriteByte('\n')
	return out.Bytes()
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run go test -update to accept):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
