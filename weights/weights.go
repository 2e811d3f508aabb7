// Package weights holds the shipped network weights: one safetensors file
// per rules key (weights/<rules>.safetensors, as "bot train" writes them),
// embedded in the binary so that a fresh install plays the neural levels
// before its own retrain job has published anything. It is data, not code:
// it imports the standard library only and does not decode the files
// (package ai/nn does).
package weights

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// ext is the file name extension of a weights file.
const ext = ".safetensors"

// files are the shipped weights files.
//
//go:embed *.safetensors
var files embed.FS

// Load returns the shipped weights file for rules, a rules key in canonical
// notation such as "3x3k3" or "4x3xox". The error wraps fs.ErrNotExist when
// no file is shipped for rules. The bytes are the caller's to keep.
func Load(rules string) ([]byte, error) {
	if rules == "" || strings.ContainsAny(rules, `/\.`) {
		return nil, fmt.Errorf("weights: no shipped weights for rules %q: %w", rules, fs.ErrNotExist)
	}
	b, err := files.ReadFile(rules + ext)
	if err != nil {
		return nil, fmt.Errorf("weights: no shipped weights for rules %q (there are weights for %s): %w",
			rules, strings.Join(Rules(), ", "), fs.ErrNotExist)
	}
	return b, nil // ReadFile returns a copy
}

// Rules returns the rules keys with shipped weights, sorted.
func Rules() []string {
	entries, err := files.ReadDir(".")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ext); ok && !e.IsDir() {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
