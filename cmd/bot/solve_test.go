package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// nodesLine is masked in golden files: the count depends on the solver's
// pruning, which may improve, not on this command.
var nodesLine = regexp.MustCompile(`(?m)^nodes: \d+$`)

func TestSolveGolden(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"empty", nil},
		{"draw-midgame", []string{"-position", "x--/-o-/--x"}},
		{"win-now", []string{"-position", "xx-/oo-/---"}},
		{"o-wins", []string{"-position", "xx-/oo-/x--"}},
		{"over", []string{"-position", "xxx/oo-/---"}},
		{"xox", []string{"-rules", "4x3xox", "-position", "x--/---/---/--o"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runFixed(t, "", append([]string{"solve"}, tt.args...)...)
			if r.code != exitOK || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			if !nodesLine.MatchString(r.stdout) {
				t.Errorf("no nodes line in:\n%s", r.stdout)
			}
			out := nodesLine.ReplaceAllString(r.stdout, "nodes: N")
			goldenText(t, "solve-"+tt.name+".golden", "$ bot solve "+strings.Join(tt.args, " ")+"\n---\n"+out)
		})
	}
}

func TestSolveValues(t *testing.T) {
	tests := []struct {
		position string
		value    string
		best     string // in the best line
	}{
		{"", "draw", "1 1 (b2)"},
		{"xx-/oo-/---", "X wins", "0 2 (c1)"},
		{"xx-/oo-/x--", "O wins", ""},
		{"x--/---/---", "draw", "1 1 (b2)"},
		{"xo-/---/---", "X wins", ""},
	}
	for _, tt := range tests {
		t.Run(tt.position, func(t *testing.T) {
			r := runBot(t, "", "solve", "-position", tt.position)
			if r.code != exitOK {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if !strings.Contains(r.stdout, "\nvalue: "+tt.value+"\n") {
				t.Errorf("want value %s in:\n%s", tt.value, r.stdout)
			}
			if !strings.Contains(r.stdout, "\nbest: ") || !strings.Contains(r.stdout, tt.best) {
				t.Errorf("want best move %s in:\n%s", tt.best, r.stdout)
			}
			free := 9 - strings.Count(strings.ToLower(tt.position), "x") - strings.Count(strings.ToLower(tt.position), "o")
			if n := len(regexp.MustCompile(`(?m)^  [0-2] [0-2]  [a-c][1-3]  `).FindAllString(r.stdout, -1)); n != free {
				t.Errorf("%d move lines, want one per free cell (%d):\n%s", n, free, r.stdout)
			}
		})
	}
}

func TestSolveTimeout(t *testing.T) {
	r := runBot(t, "", "solve", "-rules", "7x7k5", "-timeout", "20ms")
	if r.code != exitFailure || !strings.Contains(r.stderr, "gave up after") || r.stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and \"gave up\"", r.code, r.stdout, r.stderr)
	}
}

// TestSolveSharedGame: -position takes a game shared as a record line, and
// its rules; -rules, when given, must agree.
func TestSolveSharedGame(t *testing.T) {
	tests := []struct {
		args     []string
		code     int
		contains string
	}{
		{[]string{"-position", "3x3k3 b2 a1"}, exitOK, "position: O--/-X-/--- (3x3k3, X to move)"},
		{[]string{"-rules", "3x3k3", "-position", "3x3k3 b2 a1"}, exitOK, "value: draw"},
		{[]string{"-position", "4x3xox b2"}, exitOK, "(4x3xox, O to move)"},
		{[]string{"-rules", "4x4k4", "-position", "3x3k3 b2 a1"}, exitInput, "-position is a 3x3k3 game but -rules says 4x4k4"},
		{[]string{"-position", "3x3k3 b2 b2"}, exitInput, "move 2 (b2)"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := runBot(t, "", append([]string{"solve"}, tt.args...)...)
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d: %s%s", r.code, tt.code, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stdout+r.stderr, tt.contains) {
				t.Errorf("want %q in:\n%s%s", tt.contains, r.stdout, r.stderr)
			}
		})
	}
}

// TestSolveProofAndVerify: solve -proof writes a certificate that
// verify-proof accepts; a doctored one is refused (exit 1), a file that is
// not a certificate is bad input (exit 2).
func TestSolveProofAndVerify(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "5x5k5.proof")
	r := runBot(t, "", "solve", "-rules", "5x5k5", "-proof", file)
	if r.code != exitOK || !strings.Contains(r.stdout, "\nvalue: draw\n") || !strings.Contains(r.stdout, "certificate: "+file) {
		t.Fatalf("solve -proof: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runBot(t, "", "verify-proof", file)
	if r.code != exitOK || !strings.Contains(r.stdout, "valid: 5x5k5 -----/-----/-----/-----/----- (X to move): draw") {
		t.Fatalf("verify-proof: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// Drop X's first move from the proof that O cannot win.
	doctored := regexp.MustCompile(`(?m)^move 0 0 c3\n`).ReplaceAllString(string(text), "")
	bad := filepath.Join(dir, "bad.proof")
	if err := os.WriteFile(bad, []byte(doctored), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runBot(t, "", "verify-proof", bad)
	if r.code != exitFailure || !strings.Contains(r.stderr, "certificate refused") {
		t.Errorf("doctored: exit %d, stderr %q; want exit 1 and a refusal", r.code, r.stderr)
	}
	junk := filepath.Join(dir, "junk.proof")
	if err := os.WriteFile(junk, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runBot(t, "", "verify-proof", junk)
	if r.code != exitInput || !strings.Contains(r.stderr, "line 1") {
		t.Errorf("junk: exit %d, stderr %q; want exit 2 naming the line", r.code, r.stderr)
	}
	r = runBot(t, "", "solve", "-rules", "4x3xox", "-root")
	if r.code != exitInput || !strings.Contains(r.stderr, "k-in-a-row rules") {
		t.Errorf("solve -root on X-O-X: exit %d, stderr %q; want exit 2", r.code, r.stderr)
	}
	r = runBot(t, "", "solve", "-rules", "6x5k5", "-root")
	if r.code != exitOK || !strings.Contains(r.stdout, "\nvalue: draw\n") || !strings.Contains(r.stdout, "proof hold O: ") {
		t.Errorf("solve -root: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
