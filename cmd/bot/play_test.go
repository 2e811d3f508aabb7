package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
)

// everyCell is input that tries every cell of an 8x8 board in turn, so a
// game against an AI runs to its end whatever the AI plays: taken cells
// and cells off the board are refused and the prompt comes back.
var everyCell = func() string {
	var b strings.Builder
	for row := range 8 {
		for col := range 8 {
			fmt.Fprintf(&b, "%d %d\n", row, col)
		}
	}
	return b.String()
}()

func TestPlayTranscripts(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		input string
	}{
		{"humans-win", nil, "b2\nzz\nb2\n\nhelp\na1\n0 0\n0 2\nc3\nA3\n"},
		{"humans-draw", []string{"-rules", "3x3k3"}, "b2\na1\nc1\na3\na2\nc2\nb1\nb3\nc3\n"},
		{"humans-from-position", []string{"-position", "x--/-o-/---"}, "c3\n1 0\n0 2\n0 1\n2 0\nc2\n"},
		{"humans-5x5k4", []string{"-rules", "5x5k4"}, "a1\na2\nb1\nb2\nc1\nc2\nf1\nd1\n"},
		{"humans-xox-x-wins", []string{"-rules", "4x3xox"}, "a1\nb1\nc1\n"},
		{"humans-xox-o-wins", []string{"-rules", "4x3xox"}, "a3\na1\nb3\nc1\nb1\n"},
		{"humans-eof", nil, "b2\na1\n"},
		{"humans-quit", nil, "b2\nquit\n"},
		{"humans-resign", nil, "b2\na1\nRESIGN\n"},
		{"ai-easy", []string{"-ai", "easy", "-seed", "1"}, everyCell},
		{"ai-first", []string{"-ai", "easy", "-first", "ai", "-seed", "2"}, everyCell},
		{"ai-random-seed-printed", []string{"-ai", "random"}, everyCell},
		{"ai-xox-opening", []string{"-ai", "easy", "-rules", "4x3xox", "-opening", "-seed", "5"}, everyCell},
		{"ai-options", []string{"-ai", "random", "-depth", "2", "-budget", "1s", "-seed", "3", "-position", "xo-/---/---"}, everyCell},
		{"ai-eof", []string{"-ai", "easy", "-seed", "1"}, "b2\n"},
		{"opening-humans", []string{"-rules", "4x3xox", "-opening", "-seed", "8"}, "quit\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runFixed(t, tt.input, append([]string{"play"}, tt.args...)...)
			if r.code != exitOK || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			head := "$ bot play " + strings.Join(tt.args, " ") + "\n"
			if tt.input != everyCell {
				head += "input: " + strings.ReplaceAll(tt.input, "\n", `\n`) + "\n"
			} else {
				head += "input: every cell in turn\n"
			}
			goldenText(t, "play-"+tt.name+".golden", head+"---\n"+r.stdout)
		})
	}
}

// moveLine matches the report of a move in a transcript.
var moveLine = regexp.MustCompile(`plays [a-h][1-8] \([0-7] [0-7]\)\.`)

// TestPlayEnds plays every level from both sides with several seeds and
// checks that each game ends with a result.
func TestPlayEnds(t *testing.T) {
	e, _, _ := testEnv("")
	for _, level := range e.levels.Names() {
		for _, first := range []string{"me", "ai"} {
			for seed := range 3 {
				name := fmt.Sprintf("%s/%s/%d", level, first, seed)
				t.Run(name, func(t *testing.T) {
					r := runBot(t, everyCell, "play", "-ai", level, "-first", first, "-seed", fmt.Sprint(seed), "-iterations", "100", "-depth", "2", "-budget", "20ms")
					if r.code != exitOK || r.stderr != "" {
						t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
					}
					last := r.stdout[strings.LastIndex(strings.TrimSuffix(r.stdout, "\n"), "\n")+1:]
					if !strings.Contains(last, " wins with ") && last != "Draw.\n" {
						t.Errorf("last line %q, want a result", last)
					}
					if n := len(moveLine.FindAllString(r.stdout, -1)); n > 9 {
						t.Errorf("more than 9 moves on a 3x3 board:\n%s", r.stdout)
					}
				})
			}
		}
	}
}

func TestPlaySeedReplays(t *testing.T) {
	first := runFixed(t, everyCell, "play", "-ai", "random", "-first", "random")
	seedLine, rest, ok := strings.Cut(first.stdout, "\n")
	if !ok || seedLine != "Seed 12345: replay this game with -seed 12345" {
		t.Fatalf("first line %q, want the seed", seedLine)
	}
	again := runBot(t, everyCell, "play", "-ai", "random", "-first", "random", "-seed", "12345")
	if again.stdout != rest {
		t.Errorf("replay with -seed differs:\n%s\n--- first game:\n%s", again.stdout, rest)
	}
	if strings.Contains(runBot(t, "quit\n", "play").stdout, "Seed") {
		t.Error("a game between two people, with no chance in it, printed a seed")
	}
}

func TestPlayFirstRandom(t *testing.T) {
	seen := map[string]bool{}
	for seed := range 20 {
		r := runBot(t, "quit\n", "play", "-ai", "random", "-first", "random", "-seed", fmt.Sprint(seed))
		for _, s := range []string{"You play X", "You play O"} {
			if strings.Contains(r.stdout, s) {
				seen[s] = true
			}
		}
	}
	if len(seen) != 2 {
		t.Errorf("20 seeds of -first random gave only %v", seen)
	}
}

func TestPlayInterrupted(t *testing.T) {
	// A reader that never delivers a line stands for a person who does not
	// answer; cancelling the context must still end the game.
	pr := blockingReader{make(chan struct{})}
	defer close(pr.release)
	e, _, errOut := testEnv("")
	e.stdin = pr
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if code := e.run(ctx, []string{"play"}); code != exitFailure {
		t.Errorf("exit %d, want %d", code, exitFailure)
	}
	if !strings.Contains(errOut.String(), "interrupted") {
		t.Errorf("stderr %q", errOut)
	}
}

// blockingReader blocks every Read until release is closed.
type blockingReader struct{ release chan struct{} }

func (b blockingReader) Read(p []byte) (int, error) {
	<-b.release
	return 0, fmt.Errorf("closed")
}

func TestParseInput(t *testing.T) {
	r := game.Classic()
	tests := []struct {
		line string
		kind int
		cell string
	}{
		{"b2", inputMove, "b2"},
		{"  B2  ", inputMove, "b2"},
		{"1 1", inputMove, "b2"},
		{"1,2", inputMove, "c2"},
		{"0\t0", inputMove, "a1"},
		{"", inputEmpty, ""},
		{"   ", inputEmpty, ""},
		{"quit", inputQuit, ""},
		{"Q", inputQuit, ""},
		{"resign", inputQuit, ""},
		{"help", inputHelp, ""},
		{"?", inputHelp, ""},
		{"d1", inputBad, ""},
		{"3 0", inputBad, ""},
		{"1", inputBad, ""},
		{"1 2 3", inputBad, ""},
		{"x", inputBad, ""},
		{"quitt", inputBad, ""},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			got := parseInput(r, tt.line)
			if got.kind != tt.kind {
				t.Fatalf("kind %d, want %d (%+v)", got.kind, tt.kind, got)
			}
			if tt.kind == inputMove && got.cell.String() != tt.cell {
				t.Errorf("cell %s, want %s", got.cell, tt.cell)
			}
			if tt.kind == inputBad && !strings.Contains(got.err, "bad cell") {
				t.Errorf("message %q does not say what was wrong", got.err)
			}
		})
	}
}
