package main

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/tttbot/ttt-bot/game"
)

var rowCol = regexp.MustCompile(`^[0-7] [0-7]\n$`)

func TestMoveOutput(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // the exact move, or "" for any legal one
	}{
		{"empty board", []string{"-level", "random", "-seed", "1"}, ""},
		{"easy takes the win", []string{"-level", "easy", "-position", "xx-/oo-/---", "-seed", "9"}, "0 2"},
		{"easy blocks", []string{"-level", "easy", "-position", "x--/oo-/x--", "-seed", "9"}, "1 2"},
		{"O to move", []string{"-level", "easy", "-position", "----x----", "-seed", "2"}, ""},
		{"one cell left", []string{"-level", "random", "-position", "xox/oxx/o-o"}, "2 1"},
		{"5x5k4", []string{"-level", "easy", "-rules", "5x5k4", "-position", "xxx--/ooo--/-----/-----/-----", "-seed", "4"}, "0 3"},
		{"xox", []string{"-level", "easy", "-rules", "4x3xox", "-position", "xo-/---/--x/o--", "-seed", "4"}, "0 2"},
		{"level case and options", []string{"-level", " EASY ", "-depth", "2", "-budget", "10ms", "-iterations", "5", "-exploration", "0.5"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runBot(t, "", append([]string{"move"}, tt.args...)...)
			if r.code != exitOK || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			if !rowCol.MatchString(r.stdout) {
				t.Fatalf("stdout %q, want one line \"row col\"", r.stdout)
			}
			if tt.want != "" && r.stdout != tt.want+"\n" {
				t.Errorf("move %q, want %q", r.stdout, tt.want)
			}
		})
	}
}

// TestMoveEveryLevel asks every registered level for a move in a few
// positions and checks it is legal.
func TestMoveEveryLevel(t *testing.T) {
	e, _, _ := testEnv("")
	positions := []struct{ rules, pos string }{
		{"3x3k3", ""},
		{"3x3k3", "x--/-o-/--x"},
		{"4x3xox", "x--/---/--o/---"},
	}
	for _, name := range e.levels.Names() {
		for _, p := range positions {
			t.Run(name+" "+p.rules+" "+p.pos, func(t *testing.T) {
				args := []string{"move", "-level", name, "-rules", p.rules, "-seed", "3", "-budget", "50ms", "-iterations", "200", "-depth", "2"}
				if p.pos != "" {
					args = append(args, "-position", p.pos)
				}
				r := runBot(t, "", args...)
				if r.code != exitOK || !rowCol.MatchString(r.stdout) {
					t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
				}
				rules, _ := game.ParseRules(p.rules)
				pos := game.NewPosition(rules)
				if p.pos != "" {
					pos, _ = game.ParsePosition(rules, p.pos)
				}
				c, err := rules.ParseCell(r.stdout)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := pos.Play(c); err != nil {
					t.Errorf("illegal move %s: %v", c, err)
				}
			})
		}
	}
}

func TestMoveDeterministic(t *testing.T) {
	for _, level := range []string{"random", "easy"} {
		t.Run(level, func(t *testing.T) {
			distinct := map[string]bool{}
			for seed := range 20 {
				args := []string{"move", "-level", level, "-rules", "4x4k3", "-seed", string(rune('0'+seed%10)) + strings.Repeat("7", seed/10)}
				first := runBot(t, "", args...)
				for range 3 {
					if again := runBot(t, "", args...); again.stdout != first.stdout {
						t.Fatalf("%v: %q then %q", args, first.stdout, again.stdout)
					}
				}
				distinct[first.stdout] = true
			}
			if len(distinct) < 3 {
				t.Errorf("20 seeds gave only %d distinct moves on an empty 4x4 board", len(distinct))
			}
		})
	}
}

func TestMoveRandomSeedByDefault(t *testing.T) {
	// Without -seed each call draws a fresh seed, so random moves vary.
	distinct := map[string]bool{}
	for range 30 {
		distinct[runBot(t, "", "move", "-level", "random", "-rules", "8x8k5").stdout] = true
	}
	if len(distinct) < 2 {
		t.Errorf("30 calls without -seed all played %v", distinct)
	}
}

func TestMoveInterrupted(t *testing.T) {
	e, out, errOut := testEnv("")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if code := e.run(ctx, []string{"move", "-level", "random"}); code != exitFailure {
		t.Errorf("exit %d, want %d", code, exitFailure)
	}
	if out.Len() != 0 || !strings.Contains(errOut.String(), "interrupted") {
		t.Errorf("stdout %q, stderr %q", out, errOut)
	}
}
