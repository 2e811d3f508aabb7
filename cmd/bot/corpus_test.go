package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tttbot/ttt-bot/persistence/redistest"
)

// useRedis starts a private redis-server for the test and points
// REDIS_URL at it. The test must not be parallel (it sets the environment).
func useRedis(t *testing.T) string {
	t.Helper()
	srv := redistest.Start(t)
	t.Setenv("REDIS_URL", srv.Addr())
	return srv.Addr()
}

// step is one command of a transcript and what it must produce.
type step struct {
	args   []string
	stdin  string
	code   int
	golden string // stdout and stderr, compared with testdata/<golden>; "" for none
}

// runSteps runs the steps in order in testEnv, with one clock for all of
// them that goes on from step to step (so the Store's clock, and with it
// every time in the output, is fixed, and stream IDs only grow).
func runSteps(t *testing.T, steps []step) []result {
	t.Helper()
	e0, _, _ := testEnv("")
	now := e0.now
	var results []result
	for _, s := range steps {
		e, out, errOut := testEnv(s.stdin)
		e.now = now
		code := e.run(context.Background(), s.args)
		r := result{code, out.String(), errOut.String()}
		if r.code != s.code {
			t.Errorf("bot %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(s.args, " "), r.code, s.code, r.stdout, r.stderr)
		}
		if s.golden != "" {
			goldenText(t, s.golden, "$ bot "+strings.Join(s.args, " ")+"\n--- stdout\n"+r.stdout+"--- stderr\n"+r.stderr)
		}
		results = append(results, r)
	}
	return results
}

// TestCorpusTranscript imports JSON Lines with corrupt lines and a
// games.txt, re-imports (duplicates), counts and exports.
func TestCorpusTranscript(t *testing.T) {
	useRedis(t)
	out := filepath.Join(t.TempDir(), "3x3k3.jsonl")
	rs := runSteps(t, []step{
		{args: []string{"corpus", "stats"}, code: exitOK, golden: "corpus-stats-empty.golden"},
		{args: []string{"corpus", "import", "testdata/corpus-import.jsonl"}, code: exitFailure, golden: "corpus-import-jsonl.golden"},
		{args: []string{"corpus", "import", "testdata/corpus-import.jsonl"}, code: exitFailure, golden: "corpus-import-again.golden"},
		{args: []string{"corpus", "import", "-format", "games.txt", "testdata/games.txt"}, code: exitFailure, golden: "corpus-import-gamestxt.golden"},
		{args: []string{"corpus", "stats"}, code: exitOK, golden: "corpus-stats.golden"},
		{args: []string{"corpus", "stats", "-json"}, code: exitOK, golden: "corpus-stats-json.golden"},
		{args: []string{"corpus", "export"}, code: exitOK, golden: "corpus-export.golden"},
		{args: []string{"corpus", "export", "-rules", "3x3k3", "-out", out}, code: exitOK},
		{args: []string{"corpus", "export", "-rules", "5x5k5"}, code: exitOK},
	})
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, line := range strings.SplitAfter(rs[6].stdout, "\n") {
		if strings.Contains(line, `"rules":"3x3k3"`) {
			want.WriteString(line)
		}
	}
	if string(got) != want.String() {
		t.Errorf("-out file:\n%s\nwant the 3x3k3 lines of the export:\n%s", got, want.String())
	}
	if rs[8].stdout != "" || rs[8].stderr != "exported 0 records to standard output (5x5k5 0)\n" {
		t.Errorf("export of an empty corpus: stdout %q, stderr %q", rs[8].stdout, rs[8].stderr)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".*")); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}

	// The export imports cleanly into another Redis and exports the same.
	useRedis(t)
	r := runFixed(t, rs[6].stdout, "corpus", "import", "-")
	if r.code != exitOK || r.stdout != "-: 6 added, 0 duplicates, 0 refused\n" || r.stderr != "" {
		t.Fatalf("re-import: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if again := runFixed(t, "", "corpus", "export"); again.stdout != rs[6].stdout {
		t.Errorf("export after the round trip:\n%s\nwant:\n%s", again.stdout, rs[6].stdout)
	}
}

// TestCorpusImportKeepsValidRecords checks that a corrupt line anywhere
// loses nothing valid: every valid record of a file whose every other
// line is garbage is imported.
func TestCorpusImportKeepsValidRecords(t *testing.T) {
	useRedis(t)
	var in bytes.Buffer
	valid := 0
	for i := range 50 {
		if i%2 == 1 {
			in.WriteString(`{"v":1,"game":"` + strings.Repeat("z", i) + "\n")
			continue
		}
		valid++
		in.WriteString(`{"v":1,"game":"g` + string(rune('A'+i%26)) + string(rune('a'+i/26)) +
			`","rules":"3x3k3","moves":["1 1"],"result":"X wins","end":"timeout","time":"2026-11-20T10:00:00Z"}` + "\n")
	}
	r := runFixed(t, in.String(), "corpus", "import", "-")
	if r.code != exitFailure {
		t.Errorf("exit %d, want %d", r.code, exitFailure)
	}
	if want := "-: 25 added, 0 duplicates, 25 refused\n"; r.stdout != want {
		t.Errorf("stdout %q, want %q", r.stdout, want)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) != 26 || !strings.HasPrefix(lines[0], "-:2: corpus record: ") || !strings.HasPrefix(lines[24], "-:50: ") ||
		lines[25] != "bot corpus: 25 lines refused in 1 file (listed above); every valid record was imported" {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	st := runFixed(t, "", "corpus", "stats", "-json")
	if !strings.Contains(st.stdout, `"total": 25`) {
		t.Errorf("stats after the import:\n%s", st.stdout)
	}
}

// TestCorpusImportGamesTxtSameContent imports a games.txt, then the same
// bytes under another name and on standard input: a game is known by the
// file's content, so the second and third imports add nothing.
func TestCorpusImportGamesTxtSameContent(t *testing.T) {
	useRedis(t)
	in, err := os.ReadFile(filepath.Join("testdata", "games.txt"))
	if err != nil {
		t.Fatal(err)
	}
	copyName := filepath.Join(t.TempDir(), "old-games-copy.txt")
	if err := os.WriteFile(copyName, in, 0o644); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name, stdin, want string
	}{
		{"testdata/games.txt", "", "testdata/games.txt: 2 added, 0 duplicates, 2 refused\n"},
		{copyName, "", copyName + ": 0 added, 2 duplicates, 2 refused\n"},
		{"-", string(in), "-: 0 added, 2 duplicates, 2 refused\n"},
	}
	for _, s := range steps {
		r := runFixed(t, s.stdin, "corpus", "import", "-format", "games.txt", s.name)
		if r.code != exitFailure || r.stdout != s.want {
			t.Errorf("import of %s: exit %d, stdout %q; want exit %d, %q\nstderr:\n%s", s.name, r.code, r.stdout, exitFailure, s.want, r.stderr)
		}
	}
	if st := runFixed(t, "", "corpus", "stats", "-json"); !strings.Contains(st.stdout, `"total": 2`) {
		t.Errorf("stats after the imports:\n%s", st.stdout)
	}
}

// TestCorpusImportGamesTxtResync checks that a games.txt line that ends
// or spoils a game costs only that game: the games after it are imported,
// the refused lines are listed, and the exit status is 1.
func TestCorpusImportGamesTxtResync(t *testing.T) {
	useRedis(t)
	const (
		xWins = "---------\nX--------\nX---O----\nXX--O----\nXX--OO---\nXXX-OO---\n"
		oWins = "----X----\nO---X----\nO---X---X\nO-O-X---X\nO-O-X-X-X\nOOO-X-X-X\n"
	)
	tests := []struct {
		name, in, stdout string
		stderr           []string // after "FILE:"
	}{
		{"lone X after an unfinished game", "---------\nX--------\nX---O----\n" + oWins + xWins,
			"2 added, 0 duplicates, 1 refused",
			[]string{"1: games.txt: the game starting here stops undecided after 2 moves (last board on line 3); skipped"}},
		{"bad line in a game", "X--------\nX---O----\nX-?-O----\nXX--O----\nXX--OO---\nXXX-OO---\n" + xWins + oWins,
			"2 added, 0 duplicates, 1 refused",
			[]string{`3: games.txt: "X-?-O----": bad character '?' at position 3; cells are X, O or -; the game on lines 1 to 6 is skipped`}},
	}
	dir := t.TempDir()
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := filepath.Join(dir, fmt.Sprintf("games-%d.txt", i))
			if err := os.WriteFile(name, []byte(tt.in), 0o644); err != nil {
				t.Fatal(err)
			}
			r := runFixed(t, "", "corpus", "import", "-format", "games.txt", name)
			var want strings.Builder
			for _, l := range tt.stderr {
				want.WriteString(name + ":" + l + "\n")
			}
			want.WriteString(fmt.Sprintf("bot corpus: %d %s refused in 1 file (listed above); every valid record was imported\n",
				len(tt.stderr), plural(len(tt.stderr), "line", "lines")))
			if r.code != exitFailure || r.stdout != name+": "+tt.stdout+"\n" || r.stderr != want.String() {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit %d, stdout %q, stderr:\n%s",
					r.code, r.stdout, r.stderr, exitFailure, name+": "+tt.stdout+"\n", want.String())
			}
		})
	}
}

// TestCorpusBadInput checks the input errors of "bot corpus": exit 2, a
// message and a hint, nothing on stdout, and Redis never opened.
func TestCorpusBadInput(t *testing.T) {
	t.Setenv("REDIS_URL", "127.0.0.1:1") // would fail with exit 1 if it were opened
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no action", []string{"corpus"}, "no action given; say export, import, stats"},
		{"unknown action", []string{"corpus", "delete"}, `unknown action "delete"; the actions are export, import, stats`},
		{"flag first", []string{"corpus", "-rules", "3x3k3", "export"}, "the action comes before the flags"},
		{"export bad rules", []string{"corpus", "export", "-rules", "3x3"}, `-rules: bad rules: "3x3" has no line length`},
		{"export argument", []string{"corpus", "export", "3x3k3"}, `unexpected argument "3x3k3"`},
		{"export unknown flag", []string{"corpus", "export", "-format", "csv"}, "unknown flag -format; the flags are -out -rules"},
		{"import no file", []string{"corpus", "import"}, "no file given"},
		{"import missing file", []string{"corpus", "import", "testdata/nonexistent.jsonl"}, "testdata/nonexistent.jsonl: no such file"},
		{"import bad format", []string{"corpus", "import", "-format", "csv", "x"}, `-format "csv": the formats are jsonl and games.txt`},
		{"import -source", []string{"corpus", "import", "-format", "games.txt", "-source", "old", "x"}, "-source is gone: a games.txt game is known by the file's content"},
		{"import flag after files", []string{"corpus", "import", "testdata/games.txt", "-format", "games.txt"}, "flag -format after the files"},
		{"import stdin twice", []string{"corpus", "import", "-", "-"}, `standard input ("-") is named twice`},
		{"stats argument", []string{"corpus", "stats", "all"}, `unexpected argument "all"`},
		{"stats bad flag value", []string{"corpus", "stats", "-json=maybe"}, "invalid boolean value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runBot(t, "", tt.args...)
			checkInputError(t, r, tt.want)
		})
	}
}

// checkInputError checks r is bad input: exit 2, nothing on stdout, and on
// stderr one message containing want and a hint.
func checkInputError(t *testing.T, r result, want string) {
	t.Helper()
	if r.code != exitInput {
		t.Errorf("exit %d, want %d (stderr %q)", r.code, exitInput, r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("stdout %q, want nothing", r.stdout)
	}
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("stderr has %d lines, want a message and a hint:\n%s", len(lines), r.stderr)
	}
	if !strings.HasPrefix(lines[0], "bot ") || !strings.Contains(lines[0], want) {
		t.Errorf("message %q\nwant it to contain %q", lines[0], want)
	}
	if !strings.Contains(lines[1], " -h\" for usage") {
		t.Errorf("hint %q does not point to -h", lines[1])
	}
}

// TestCorpusNoRedis checks that without REDIS_URL and without redis-server
// the corpus commands refuse to run on an empty in-memory store.
func TestCorpusNoRedis(t *testing.T) {
	t.Setenv("REDIS_URL", "")
	t.Setenv("PATH", t.TempDir())
	for _, args := range [][]string{{"corpus", "stats"}, {"corpus", "export"}, {"corpus", "import", "testdata/games.txt"}} {
		r := runBot(t, "", args...)
		if r.code != exitFailure || !strings.Contains(r.stderr, "REDIS_URL is empty and redis-server is not on the PATH") {
			t.Errorf("bot %s: exit %d, stderr %q", strings.Join(args, " "), r.code, r.stderr)
		}
	}
}

// TestCorpusUnreachableRedis checks a Redis that does not answer is a
// runtime failure (exit 1) naming the address.
func TestCorpusUnreachableRedis(t *testing.T) {
	t.Setenv("REDIS_URL", "127.0.0.1:1")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e, _, errOut := testEnv("")
	if code := e.run(ctx, []string{"corpus", "stats"}); code != exitFailure || !strings.Contains(errOut.String(), "127.0.0.1:1") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
}
