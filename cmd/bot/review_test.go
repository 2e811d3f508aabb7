package main

import (
	"regexp"
	"strings"
	"testing"
)

// timeLine is masked in golden files.
var timeLine = regexp.MustCompile(`(?m)^time: .*$`)

func TestReviewGolden(t *testing.T) {
	tests := []struct {
		name string
		game string
	}{
		{"3x3", "3x3k3 a1 b2 c3 b1 b3 a2 c2 c1 a3"},
		{"5x5k4", "5x5k4 c3 b2 d4 e5 b4 c4 d3 d2 e3 a3 b3"},
		{"xox-from-start", "4x3xox X--/---/---/--O b2 a2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runFixed(t, "", "review", tt.game)
			if r.code != exitOK || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			goldenText(t, "review-"+tt.name+".golden", "$ bot review "+tt.game+"\n---\n"+timeLine.ReplaceAllString(r.stdout, "time: T"))
		})
	}
}

func TestReviewBadInput(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "no game given"},
		{[]string{"3x3k3 a1 a1"}, "move 2 (a1)"},
		{[]string{"9x9k9 a1"}, "bad rules"},
		{[]string{"-max-nodes", "x", "3x3k3"}, "max-nodes"},
	} {
		r := runBot(t, "", append([]string{"review"}, tt.args...)...)
		if r.code != exitInput || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("review %q: exit %d, stderr %q; want exit %d and %q", tt.args, r.code, r.stderr, exitInput, tt.want)
		}
	}
}

// TestReviewEstimates: with a tiny node budget the review says its values
// are estimates.
func TestReviewEstimates(t *testing.T) {
	r := runBot(t, "", "review", "-max-nodes", "1", "5x5k4 c3 b2 d4")
	if r.code != exitOK || !strings.Contains(r.stdout, "values: estimates") || !strings.Contains(r.stdout, "~") {
		t.Fatalf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestPuzzleCommand(t *testing.T) {
	// The puzzle a server gets on a day is the same every time.
	a := runBot(t, "", "puzzle", "-rules", "4x4k4", "-guild", "42", "-day", "2026-11-24")
	b := runBot(t, "", "puzzle", "-rules", "4x4k4", "-guild", "42", "-day", "2026-11-24")
	if a.code != exitOK || !strings.Contains(a.stdout, "puzzle: 4x4k4 ") || !strings.Contains(a.stdout, "winning: ") {
		t.Fatalf("exit %d:\n%s%s", a.code, a.stdout, a.stderr)
	}
	if timeLine.ReplaceAllString(a.stdout, "") != timeLine.ReplaceAllString(b.stdout, "") {
		t.Fatalf("two draws of one day differ:\n%s\n%s", a.stdout, b.stdout)
	}
	if r := runBot(t, "", "puzzle", "-seed", "3", "-day", "2026-11-24"); r.code != exitInput {
		t.Fatalf("-seed with -day: exit %d", r.code)
	}
	if r := runBot(t, "", "puzzle", "-guild", "42"); r.code != exitInput || !strings.Contains(r.stderr, "-guild needs -day") {
		t.Fatalf("-guild alone: exit %d %q", r.code, r.stderr)
	}
}
