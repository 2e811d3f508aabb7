// Package golden compares what a test produced with a golden file in its
// package's testdata, and rewrites the files when the tests run with
// -update. It is the one -update flag of the module: every package's
// golden tests (rendered messages as JSON, PNG charts and boards, the
// command line's output, stored records) use it.
//
//	go test ./bot/ -run TestRender -update   # rewrite, then read the diff
package golden

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Updating reports whether the tests run with -update.
func Updating() bool { return *update }

// Path is the golden file name in the package's testdata.
func Path(name string) string { return filepath.Join("testdata", name) }

// Equal compares got with testdata/name byte for byte, failing t with a
// diff-friendly message (the got and want texts, or their sizes for
// binary files) when they differ; with -update it writes got there
// instead (creating testdata/ and any directory in name).
func Equal(t testing.TB, name string, got []byte) {
	t.Helper()
	path := Path(name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s does not exist (run go test -update to create it, then look at it)", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(got, want) {
		return
	}
	if utf8.Valid(got) && utf8.Valid(want) {
		t.Errorf("%s differs from the golden file (run go test -update to accept it, then read the diff):\n--- got\n%s\n--- want\n%s", path, got, want)
		return
	}
	t.Errorf("%s differs from the golden file: got %d bytes, want %d (run go test -update to accept it, then look at the file)", path, len(got), len(want))
}

// Read returns testdata/name, failing t if it cannot be read (with the
// hint to create it with -update).
func Read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(Path(name))
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	return b
}

// Write writes testdata/name under -update and reports whether it did.
func Write(t testing.TB, name string, b []byte) bool {
	t.Helper()
	if !*update {
		return false
	}
	if err := os.MkdirAll(filepath.Dir(Path(name)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(Path(name), b, 0o644); err != nil {
		t.Fatal(fmt.Errorf("golden: %w", err))
	}
	return true
}

// EqualPNG compares the PNG picture got with testdata/name pixel by pixel
// (so a change of the encoder's compression does not matter), failing t
// when the sizes or any pixel differ; with -update it writes got there
// first.
func EqualPNG(t testing.TB, name string, got []byte) {
	t.Helper()
	Write(t, name, got)
	want := Read(t, name)
	g, w := decodeRGBA(t, got, "the picture"), decodeRGBA(t, want, Path(name))
	if g.Bounds() != w.Bounds() || !bytes.Equal(g.Pix, w.Pix) {
		t.Fatalf("the picture differs from %s; if the change is intended, run with -update and look at the file", Path(name))
	}
}

// decodeRGBA decodes a PNG into RGBA pixels.
func decodeRGBA(t testing.TB, b []byte, what string) *image.RGBA {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s is not a PNG: %v", what, err)
	}
	out := image.NewRGBA(img.Bounds())
	draw.Draw(out, out.Bounds(), img, img.Bounds().Min, draw.Src)
	return out
}

// JSON is v as a golden file holds it: JSON indented by two spaces, with
// a final newline.
func JSON(t testing.TB, v any) []byte {
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
