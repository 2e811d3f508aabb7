package gomoku

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
)

// session runs a brain on the given input lines and returns its answers.
func session(t testing.TB, lines ...string) []string {
	t.Helper()
	var out strings.Builder
	br := &Brain{About: `name="ttt-bot", version="test"`, Budget: 50 * time.Millisecond}
	if err := br.Run(context.Background(), strings.NewReader(strings.Join(lines, "\n")+"\n"), &out); err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(out.String(), "\r\n"), "\r\n")
	if out.Len() == 0 {
		return nil
	}
	return got
}

var moveRe = regexp.MustCompile(`^\d+,\d+$`)

// TestProtocol walks a game through the protocol: every command gets the
// answer the Gomocup protocol asks for, and every bad line an ERROR that
// says what is allowed, after which the game goes on.
func TestProtocol(t *testing.T) {
	got := session(t,
		"START 15",
		"INFO timeout_turn 100",
		"INFO max_memory 83886080",
		"BEGIN",
		"TURN 8,8",
		"TURN 8,8",
		"TURN 20,3",
		"TURN x",
		"ABOUT",
		"FOO bar",
		"TURN 0,0",
		"END",
		"ABOUT",
	)
	want := []string{ // prefixes, or "move" for any x,y
		"OK",
		"7,7", // the centre
		"move",
		"ERROR TURN 8,8: i9 holds O",
		"ERROR TURN 20,3: off the 15x15 board; x runs from 0 to 14 and y from 0 to 14",
		"ERROR TURN takes the opponent's move as x,y",
		`name="ttt-bot", version="test"`,
		"UNKNOWN FOO; this brain knows START",
		"move",
	}
	if len(got) != len(want) {
		t.Fatalf("answers:\n%s\nwant %d", strings.Join(got, "\n"), len(want))
	}
	for i, w := range want {
		if w == "move" && moveRe.MatchString(got[i]) || w != "move" && strings.HasPrefix(got[i], w) {
			continue
		}
		t.Errorf("answer %d = %q, want %q", i, got[i], w)
	}
}

// TestProtocolBoard: BOARD gives a position (the brain's stones 1, the
// opponent's 2) and the brain moves in it, winning at once when it can;
// bad BOARD lines are refused whole.
func TestProtocolBoard(t *testing.T) {
	got := session(t,
		"START 15",
		"BOARD",
		"0,0,1", "1,0,1", "2,0,1", "3,0,1",
		"0,5,2", "1,5,2", "2,5,2", "3,5,2",
		"DONE",
	)
	if len(got) != 2 || got[1] != "4,0" {
		t.Errorf("BOARD with four of the brain's: %q, want OK then 4,0 (the win)", got)
	}
	got = session(t, "START 15", "BOARD", "0,0,1", "0,0,2", "DONE")
	if len(got) != 2 || !strings.Contains(got[1], "ERROR BOARD") {
		t.Errorf("two stones on a cell: %q", got)
	}
	got = session(t, "START 15", "BOARD", "0,0,3", "DONE", "BOARD", "1,1,1", "2,2,1", "DONE")
	if len(got) != 3 || !strings.Contains(got[1], "field 3") || !strings.Contains(got[2], "as many as the opponent or one fewer") {
		t.Errorf("bad fields and counts: %q", got)
	}
	got = session(t, "BOARD", "0,0,1", "DONE", "START 20", "RECTSTART 10,12", "BEGIN", "TAKEBACK 4,5", "TAKEBACK 0,0")
	if len(got) != 6 || !strings.HasPrefix(got[0], "ERROR BOARD before START") || !strings.HasPrefix(got[1], "ERROR unsupported board 20x20") ||
		got[2] != "OK" || got[3] != "4,5" || got[4] != "OK" || !strings.HasPrefix(got[5], "ERROR TAKEBACK") {
		t.Errorf("session: %q", got)
	}
}

// TestProtocolExactRule: with INFO rule 1 (exactly five), the brain does
// not play a six as a win.
func TestProtocolExactRule(t *testing.T) {
	board := []string{"BOARD", "0,0,1", "1,0,1", "2,0,1", "3,0,1", "5,0,1", "0,3,2", "1,3,2", "2,3,2", "3,3,2", "14,14,2", "DONE"}
	free := session(t, append([]string{"START 15"}, board...)...)
	exact := session(t, append([]string{"INFO rule 1", "START 15"}, board...)...)
	if free[1] != "4,0" {
		t.Errorf("freestyle: %q, want the six at 4,0", free[1])
	}
	if exact[1] != "4,3" {
		t.Errorf("exactly five: %q, want the block at 4,3", exact[1])
	}
}

func FuzzBrain(f *testing.F) {
	f.Add("START 15\nBEGIN\nTURN 1,1\n")
	f.Add("START 9\nBOARD\n1,1,1\n2,2,2\nDONE\nTAKEBACK 1,1\n")
	f.Add("RECTSTART 7,5\nINFO rule 1\nTURN 3,3\nTURN 3,4\n")
	answer := regexp.MustCompile(`^(OK|ERROR .+|UNKNOWN .+|\d+,\d+|name=.*)$`)
	f.Fuzz(func(t *testing.T, in string) {
		if strings.Count(in, "\n") > 40 {
			return
		}
		var out strings.Builder
		br := &Brain{About: `name="ttt-bot"`, Budget: time.Millisecond}
		if err := br.Run(context.Background(), strings.NewReader(in), &out); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\r\n"), "\r\n") {
			if line != "" && !answer.MatchString(line) {
				t.Fatalf("answer %q", line)
			}
		}
	})
}
