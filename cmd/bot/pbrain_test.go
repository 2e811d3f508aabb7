package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestPbrain plays a short game through "bot pbrain": the brain answers
// START, BEGIN and TURN on stdout as the Gomocup protocol asks, refuses a
// bad move with an ERROR line and goes on, and stops at END.
func TestPbrain(t *testing.T) {
	res := runBot(t, "START 15\nINFO timeout_turn 300\nBEGIN\nTURN 8,8\nTURN 8,8\nABOUT\nEND\nBEGIN\n", "pbrain", "-budget", "200ms")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(res.stdout, "\r\n"), "\r\n")
	move := regexp.MustCompile(`^\d+,\d+$`)
	if len(lines) != 5 || lines[0] != "OK" || lines[1] != "7,7" || !move.MatchString(lines[2]) ||
		!strings.HasPrefix(lines[3], "ERROR TURN 8,8: i9 holds O") || !strings.HasPrefix(lines[4], `name="ttt-bot"`) {
		t.Errorf("answers: %q", lines)
	}
	if res := runBot(t, "", "pbrain", "-budget", "0s"); res.code != 2 || !strings.Contains(res.stderr, "must be positive") {
		t.Errorf("-budget 0s: exit %d, %s", res.code, res.stderr)
	}
}
