package main

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
)

// FuzzParseInput checks that any line typed at the prompt parses to one of
// the kinds, that a move is on the board, and that a move's names read
// back as the same cell.
func FuzzParseInput(f *testing.F) {
	for _, s := range []string{"b2", "1 2", "1,2", " C3 ", "quit", "help", "", "z9", "-1 0", "1 +2", "a0", "h8", "\x00"} {
		f.Add("3x3k3", s)
		f.Add("8x8k5", s)
		f.Add("4x3xox", s)
	}
	f.Fuzz(func(t *testing.T, rules, line string) {
		r, err := game.ParseRules(rules)
		if err != nil {
			return
		}
		in := parseInput(r, line)
		switch in.kind {
		case inputMove:
			if !r.Contains(in.cell) {
				t.Fatalf("%q parsed to %v, off the %s board", line, in.cell, r)
			}
			for _, name := range []string{in.cell.String(), in.cell.RowCol()} {
				if again := parseInput(r, name); again.kind != inputMove || again.cell != in.cell {
					t.Fatalf("%q -> %v, but %q -> %+v", line, in.cell, name, again)
				}
			}
		case inputBad:
			if in.err == "" {
				t.Fatalf("%q refused without a message", line)
			}
		case inputQuit, inputHelp, inputEmpty:
		default:
			t.Fatalf("%q: unknown kind %d", line, in.kind)
		}
	})
}

// FuzzPlay feeds arbitrary input to a game between two people: it must
// never fail or panic, and must end with a result, a resignation or the end
// of input.
func FuzzPlay(f *testing.F) {
	f.Add("3x3k3", "b2\na1\nc1\na3\na2\nc2\nb1\nb3\nc3\n")
	f.Add("3x3k3", "zz\n\n?\nquit\n")
	f.Add("4x3xox", "a1\nb1\nc1\n")
	f.Add("5x5k4", "1 1\n1 1\n0 0\r\n9 9\n")
	f.Fuzz(func(t *testing.T, rules, input string) {
		if _, err := game.ParseRules(rules); err != nil {
			return
		}
		r := runBot(t, input, "play", "-rules", rules)
		if r.code != exitOK || r.stderr != "" {
			t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
		}
		ends := []string{" wins with ", "Draw.\n", " resigns; ", "End of input; the game is left unfinished.\n"}
		tail := r.stdout[max(0, len(r.stdout)-200):]
		if !containsAny(tail, ends) {
			t.Fatalf("transcript ends without a result:\n%s", tail)
		}
	})
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// FuzzMoveNotation feeds arbitrary rules and positions to "bot move": it
// must print a legal move (exit 0) or refuse the input (exit 2), never
// fail otherwise.
func FuzzMoveNotation(f *testing.F) {
	f.Add("3x3k3", "x--/-o-/---")
	f.Add("3x3k3", "xxx/oo-/---")
	f.Add("4x3xox", "x-x/-o-/---/---")
	f.Add("5x5k4", "")
	f.Add("3x3", "---------")
	f.Add("8x8k8", "x")
	f.Fuzz(func(t *testing.T, rules, position string) {
		r := runBot(t, "", "move", "-level", "easy", "-seed", "1", "-rules", rules, "-position", position)
		switch r.code {
		case exitOK:
			if !rowCol.MatchString(r.stdout) || r.stderr != "" {
				t.Fatalf("exit 0 with stdout %q, stderr %q", r.stdout, r.stderr)
			}
		case exitInput:
			if r.stdout != "" || !strings.HasPrefix(r.stderr, "bot move: -") {
				t.Fatalf("exit 2 with stdout %q, stderr %q", r.stdout, r.stderr)
			}
		default:
			t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
		}
	})
}

// FuzzOptionValues checks the flag value parsers: each accepts a value in
// its range or refuses with a message, and the seed round-trips.
func FuzzOptionValues(f *testing.F) {
	for _, s := range []string{"0", "3", "-1", "1e3", "500ms", "-1s", "1.4", "NaN", "+Inf", "18446744073709551615", "18446744073709551616", " 7 ", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, err := parseDepth(s); err == nil && v < 0 || err != nil && err.Error() == "" {
			t.Errorf("parseDepth(%q) = %d, %v", s, v, err)
		}
		if v, err := parseIterations(s); err == nil && v < 0 {
			t.Errorf("parseIterations(%q) = %d", s, v)
		}
		if v, err := parseBudget(s); err == nil && v < 0 || err == nil && v > 0 && v < time.Nanosecond {
			t.Errorf("parseBudget(%q) = %s", s, v)
		}
		if v, err := parseExploration(s); err == nil && !(v >= 0 && v <= math.MaxFloat64) {
			t.Errorf("parseExploration(%q) = %g", s, v)
		}
		if v, err := parseCount(s, "count"); err == nil && v < 1 {
			t.Errorf("parseCount(%q) = %d", s, v)
		}
		if v, err := parseSeed(s); err == nil {
			if w, err := parseSeed(strings.TrimSpace(s)); err != nil || w != v {
				t.Errorf("parseSeed(%q) = %d, but trimmed gives %d, %v", s, v, w, err)
			}
		}
	})
}
