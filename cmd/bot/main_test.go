package main

import (
	"bytes"
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/internal/golden"
)

// result is what one run of the command produced.
type result struct {
	code           int
	stdout, stderr string
}

// runBot runs the command in-process through run, as main would.
func runBot(t testing.TB, stdin string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	return result{code, out.String(), errOut.String()}
}

// testEnv returns an environment with a fixed "random" seed, a clock that
// moves on by a millisecond at every reading and one arena worker, so that
// output is the same on every machine.
func testEnv(stdin string) (*env, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	e := newEnv(strings.NewReader(stdin), &out, &errOut)
	e.seed = func() uint64 { return 12345 }
	var ticks atomic.Int64
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e.now = func() time.Time { return base.Add(time.Duration(ticks.Add(1)) * time.Millisecond) }
	e.workers = 1
	return e, &out, &errOut
}

// runFixed runs the command in testEnv.
func runFixed(t testing.TB, stdin string, args ...string) result {
	t.Helper()
	e, out, errOut := testEnv(stdin)
	code := e.run(context.Background(), args)
	return result{code, out.String(), errOut.String()}
}

// goldenText compares got with testdata/name, or rewrites the file with
// -update (package golden).
func goldenText(t *testing.T, name, got string) {
	t.Helper()
	golden.Equal(t, name, []byte(got))
}

func TestUsage(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		golden string
	}{
		{"no arguments", nil, "usage.golden"},
		{"help", []string{"help"}, "usage.golden"},
		{"-h", []string{"-h"}, "usage.golden"},
		{"--help", []string{"--help"}, "usage.golden"},
		{"help play", []string{"help", "play"}, "help-play.golden"},
		{"play -h", []string{"play", "-h"}, "help-play.golden"},
		{"help move", []string{"help", "move"}, "help-move.golden"},
		{"move -help", []string{"move", "-help"}, "help-move.golden"},
		{"help solve", []string{"help", "solve"}, "help-solve.golden"},
		{"help arena", []string{"help", "arena"}, "help-arena.golden"},
		{"help levels", []string{"help", "levels"}, "help-levels.golden"},
		{"help train", []string{"help", "train"}, "help-train.golden"},
		{"help retrain", []string{"help", "retrain"}, "help-retrain.golden"},
		{"help corpus", []string{"help", "corpus"}, "help-corpus.golden"},
		{"corpus -h", []string{"corpus", "-h"}, "help-corpus.golden"},
		{"help corpus export", []string{"corpus", "export", "-h"}, "help-corpus-export.golden"},
		{"help corpus import", []string{"corpus", "import", "-h"}, "help-corpus-import.golden"},
		{"help corpus stats", []string{"corpus", "stats", "-h"}, "help-corpus-stats.golden"},
		{"help models", []string{"help", "models"}, "help-models.golden"},
		{"models -h", []string{"models", "-h"}, "help-models.golden"},
		{"help models list", []string{"models", "list", "-h"}, "help-models-list.golden"},
		{"help models show", []string{"models", "show", "-h"}, "help-models-show.golden"},
		{"help models rollback", []string{"models", "rollback", "-h"}, "help-models-rollback.golden"},
		{"help models export", []string{"models", "export", "-h"}, "help-models-export.golden"},
		{"help models import", []string{"models", "import", "-h"}, "help-models-import.golden"},
		{"help help", []string{"help", "help"}, "help-help.golden"},
		{"help -h", []string{"help", "-h"}, "help-help.golden"},
	}
	written := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runFixed(t, "", tt.args...)
			if r.code != exitOK || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q; want 0 and nothing", r.code, r.stderr)
			}
			if golden.Updating() && written[tt.golden] {
				return // the golden file is written by the first case
			}
			written[tt.golden] = true
			goldenText(t, tt.golden, r.stdout)
		})
	}
}

func TestUsageListsEveryCommand(t *testing.T) {
	r := runBot(t, "", "help")
	for _, c := range commands() {
		if !strings.Contains(r.stdout, "  bot "+c.name) || c.summary == "" || c.about == "" {
			t.Errorf("command %q is not fully documented in the usage", c.name)
		}
		if h := runBot(t, "", c.name, "-h"); h.code != exitOK || !strings.HasPrefix(h.stdout, "usage: bot "+c.name) {
			t.Errorf("%s -h: exit %d, output %q", c.name, h.code, h.stdout)
		}
	}
}

func TestLevels(t *testing.T) {
	r := runBot(t, "", "levels")
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	e, _, _ := testEnv("")
	for _, l := range e.levels.Levels() {
		if !strings.Contains(r.stdout, l.Name) || !strings.Contains(r.stdout, l.Summary) {
			t.Errorf("level %q missing from:\n%s", l.Name, r.stdout)
		}
	}
}

// TestBadInput checks that every kind of bad input exits 2 with a one-line
// message naming the problem, a hint to use -h, and nothing on stdout.
func TestBadInput(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // in the message
	}{
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"; the commands are play, move`},
		{"help unknown command", []string{"help", "frobnicate"}, `unknown command "frobnicate"`},
		{"help two commands", []string{"help", "play", "move"}, "too many arguments"},
		{"help bad flag", []string{"help", "-x"}, "-x"},
		{"levels argument", []string{"levels", "all"}, `unexpected argument "all"`},

		{"move no level", []string{"move"}, "-level: no level given; the levels are"},
		{"move unknown level", []string{"move", "-level", "grandmaster"}, `-level: unknown level: "grandmaster"; the levels are`},
		{"move unknown flag", []string{"move", "-level", "easy", "-colour", "red"}, "unknown flag -colour; the flags are"},
		{"move flag without value", []string{"move", "-level"}, "flag needs an argument: -level"},
		{"move argument", []string{"move", "-level", "easy", "b2"}, `unexpected argument "b2"`},
		{"move bad rules", []string{"move", "-level", "easy", "-rules", "3x3"}, `-rules: bad rules: "3x3" has no line length`},
		{"move rules too big", []string{"move", "-level", "easy", "-rules", "9x9k5"}, "rows and columns must each be from 3 to 8"},
		{"move bad k", []string{"move", "-level", "easy", "-rules", "3x3k4"}, "k must be from 3 to 3"},
		{"move bad position char", []string{"move", "-level", "easy", "-position", "xo?------"}, `bad character '?'`},
		{"move short position", []string{"move", "-level", "easy", "-position", "xo"}, "has 2 cells"},
		{"move impossible position", []string{"move", "-level", "easy", "-position", "oo-------"}, "X moves first"},
		{"move finished position", []string{"move", "-level", "easy", "-position", "xxx/oo-/---"}, "is finished (X wins); there is no move to make"},
		{"move full board", []string{"move", "-level", "easy", "-position", "xox/xoo/oxx"}, "is finished (draw)"},
		{"move bad depth", []string{"move", "-level", "easy", "-depth", "deep"}, `invalid value "deep" for flag -depth: the depth is a whole number of plies, 0 (no limit) or more`},
		{"move negative depth", []string{"move", "-level", "easy", "-depth", "-1"}, "the depth is a whole number"},
		{"move bad iterations", []string{"move", "-level", "easy", "-iterations", "1e3"}, "the iterations are a whole number"},
		{"move negative iterations", []string{"move", "-level", "easy", "-iterations", "-5"}, "the iterations are a whole number"},
		{"move bad budget", []string{"move", "-level", "easy", "-budget", "5"}, `the budget is a duration with a unit, like "500ms"`},
		{"move negative budget", []string{"move", "-level", "easy", "-budget", "-1s"}, "the budget is a duration"},
		{"move bad exploration", []string{"move", "-level", "easy", "-exploration", "lots"}, "the exploration constant is a number"},
		{"move NaN exploration", []string{"move", "-level", "easy", "-exploration", "NaN"}, "the exploration constant is a number"},
		{"move infinite exploration", []string{"move", "-level", "easy", "-exploration", "+Inf"}, "the exploration constant is a number"},
		{"move negative exploration", []string{"move", "-level", "easy", "-exploration", "-1"}, "the exploration constant is a number"},
		{"move bad seed", []string{"move", "-level", "easy", "-seed", "-1"}, "the seed is a whole number from 0 to 18446744073709551615"},
		{"move huge seed", []string{"move", "-level", "easy", "-seed", "18446744073709551616"}, "the seed is a whole number"},

		{"play bad rules", []string{"play", "-rules", "tictactoe"}, "-rules: bad rules"},
		{"play bad position", []string{"play", "-position", "x"}, "-position: bad position"},
		{"play finished position", []string{"play", "-position", "ooo/xx-/x--"}, "already finished (O wins)"},
		{"play unknown level", []string{"play", "-ai", "nobody"}, `-ai: unknown level: "nobody"`},
		{"play bad first", []string{"play", "-ai", "easy", "-first", "you"}, `-first "you": say who moves first: me, ai or random`},
		{"play first without ai", []string{"play", "-first", "ai"}, "-first and the level options"},
		{"play depth without ai", []string{"play", "-depth", "2"}, "need -ai"},
		{"play opening and position", []string{"play", "-rules", "4x3xox", "-opening", "-position", "x-----o-----"}, "give one of them"},
		{"play opening on k rules", []string{"play", "-opening"}, "-opening: 3x3k3 has no random opening"},
		{"play bad opening value", []string{"play", "-opening=maybe"}, `invalid boolean value "maybe" for -opening`},
		{"play bad seed", []string{"play", "-ai", "easy", "-seed", "x"}, "the seed is a whole number"},
		{"play bad budget", []string{"play", "-ai", "easy", "-budget", "soon"}, "the budget is a duration"},
		{"play bad exploration", []string{"play", "-ai", "easy", "-exploration", "x"}, "the exploration constant"},
		{"play bad iterations", []string{"play", "-ai", "easy", "-iterations", "x"}, "the iterations"},
		{"play bad depth", []string{"play", "-ai", "easy", "-depth", "x"}, "the depth"},
		{"play argument", []string{"play", "easy"}, `unexpected argument "easy"`},
		{"play unknown flag", []string{"play", "-level", "easy"}, "unknown flag -level; the flags are"},

		{"solve bad rules", []string{"solve", "-rules", "3x3k9"}, "-rules: bad rules"},
		{"solve bad position", []string{"solve", "-position", "xxxx-----"}, "-position: bad position"},
		{"solve bad timeout", []string{"solve", "-timeout", "10"}, "the timeout is a duration"},
		{"solve negative timeout", []string{"solve", "-timeout", "-1s"}, "the timeout is a duration"},
		{"solve unknown flag", []string{"solve", "-level", "perfect"}, "unknown flag -level"},

		{"arena no levels", []string{"arena"}, "-x: no level given; the levels are"},
		{"arena no o", []string{"arena", "-x", "easy"}, "-o: no level given"},
		{"arena unknown x", []string{"arena", "-x", "nobody", "-o", "easy"}, `-x: unknown level: "nobody"`},
		{"arena unknown o", []string{"arena", "-x", "easy", "-o", "nobody"}, `-o: unknown level: "nobody"`},
		{"arena bad rules", []string{"arena", "-x", "easy", "-o", "easy", "-rules", "2x2k2"}, "-rules: bad rules"},
		{"arena opening on k rules", []string{"arena", "-x", "easy", "-o", "easy", "-opening"}, "-opening: 3x3k3 has no random opening"},
		{"arena zero games", []string{"arena", "-x", "easy", "-o", "easy", "-games", "0"}, "the number of games is a whole number, 1 or more"},
		{"arena bad games", []string{"arena", "-x", "easy", "-o", "easy", "-games", "many"}, "the number of games is a whole number"},
		{"arena zero workers", []string{"arena", "-x", "easy", "-o", "easy", "-workers", "0"}, "the number of workers is a whole number, 1 or more"},
		{"arena bad seed", []string{"arena", "-x", "easy", "-o", "easy", "-seed", "0x10"}, "the seed is a whole number"},
		{"arena bad shared depth", []string{"arena", "-x", "easy", "-o", "easy", "-depth", "x"}, "for flag -depth: the depth"},
		{"arena bad x depth", []string{"arena", "-x", "easy", "-o", "easy", "-x-depth", "x"}, "for flag -x-depth: the depth"},
		{"arena bad o depth", []string{"arena", "-x", "easy", "-o", "easy", "-o-depth", "-2"}, "for flag -o-depth: the depth"},
		{"arena bad x budget", []string{"arena", "-x", "easy", "-o", "easy", "-x-budget", "1"}, "for flag -x-budget: the budget"},
		{"arena bad o budget", []string{"arena", "-x", "easy", "-o", "easy", "-o-budget", "1"}, "for flag -o-budget: the budget"},
		{"arena bad x iterations", []string{"arena", "-x", "easy", "-o", "easy", "-x-iterations", "x"}, "for flag -x-iterations"},
		{"arena bad o iterations", []string{"arena", "-x", "easy", "-o", "easy", "-o-iterations", "x"}, "for flag -o-iterations"},
		{"arena bad x exploration", []string{"arena", "-x", "easy", "-o", "easy", "-x-exploration", "x"}, "for flag -x-exploration"},
		{"arena bad o exploration", []string{"arena", "-x", "easy", "-o", "easy", "-o-exploration", "x"}, "for flag -o-exploration"},
		{"arena bad shared iterations", []string{"arena", "-x", "easy", "-o", "easy", "-iterations", "x"}, "for flag -iterations"},
		{"arena bad shared budget", []string{"arena", "-x", "easy", "-o", "easy", "-budget", "x"}, "for flag -budget"},
		{"arena bad shared exploration", []string{"arena", "-x", "easy", "-o", "easy", "-exploration", "x"}, "for flag -exploration"},
		{"arena argument", []string{"arena", "-x", "easy", "-o", "easy", "100"}, `unexpected argument "100"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runBot(t, "", tt.args...)
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
			if !strings.HasPrefix(lines[0], "bot") || !strings.Contains(lines[0], tt.want) {
				t.Errorf("message %q\nwant it to contain %q", lines[0], tt.want)
			}
			if !strings.Contains(lines[1], " -h\" for usage") && !strings.Contains(lines[1], `"bot help" for usage`) {
				t.Errorf("hint %q does not point to -h or help", lines[1])
			}
		})
	}
}
