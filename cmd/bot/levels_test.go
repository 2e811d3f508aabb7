package main

import (
	"strings"
	"testing"

	"github.com/tttbot/ttt-bot/weights"
)

// TestNetworkLevelRefused: a network level on a board without shipped
// weights is bad input (exit 2) for play, move and arena, refused before
// anything is printed, with one line that names the level and the board
// and lists the boards that have a network.
func TestNetworkLevelRefused(t *testing.T) {
	boards := strings.Join(weights.Rules(), ", ")
	if !strings.Contains(boards, "3x3k3") {
		t.Fatalf("shipped weights %q, want 3x3k3 among them", boards)
	}
	tests := []struct {
		name string
		args []string
		want string // the start of the message, after "bot <command>: "
	}{
		{"play neural", []string{"play", "-ai", "neural", "-rules", "6x6k4"}, "-ai neural: no network for 6x6k4; neural and humanlike play "},
		{"play humanlike first", []string{"play", "-ai", "humanlike", "-first", "ai", "-rules", "7x7k5"}, "-ai humanlike: no network for 7x7k5; humanlike and neural play "},
		{"play shared game", []string{"play", "-ai", "Neural", "-position", "6x6k4 c3 d4"}, "-ai neural: no network for 6x6k4; "},
		{"move neural", []string{"move", "-level", "neural", "-rules", "6x6k4", "-seed", "1"}, "-level neural: no network for 6x6k4; neural and humanlike play "},
		{"move humanlike position", []string{"move", "-level", " HUMANLIKE ", "-rules", "3x4k3", "-position", "x---/----/----"}, "-level humanlike: no network for 3x4k3; "},
		{"move neural depth", []string{"move", "-level", "neural", "-depth", "2", "-rules", "8x8k5"}, "-level neural: no network for 8x8k5; "},
		{"arena x", []string{"arena", "-x", "neural", "-o", "easy", "-rules", "6x6k4", "-games", "2"}, "-x neural: no network for 6x6k4; neural and humanlike play "},
		{"arena o", []string{"arena", "-x", "easy", "-o", "humanlike", "-rules", "6x6k4"}, "-o humanlike: no network for 6x6k4; "},
		{"arena both", []string{"arena", "-x", "humanlike", "-o", "neural", "-rules", "6x6k5"}, "-x humanlike: no network for 6x6k5; "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runFixed(t, "1 1\n", tt.args...)
			if r.code != exitInput {
				t.Errorf("exit %d, want %d (stderr %q)", r.code, exitInput, r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout %q, want nothing before the refusal", r.stdout)
			}
			lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
			if len(lines) != 2 {
				t.Fatalf("stderr has %d lines, want the message and a hint:\n%s", len(lines), r.stderr)
			}
			prefix := "bot " + tt.args[0] + ": "
			if !strings.HasPrefix(lines[0], prefix+tt.want) {
				t.Errorf("message %q\nwant it to start %q", lines[0], prefix+tt.want)
			}
			if want := boards + " (the boards with shipped weights)"; !strings.HasSuffix(lines[0], want) {
				t.Errorf("message %q\nwant it to end with the boards that have a network: %q", lines[0], want)
			}
		})
	}
}

// TestNetworkLevelPlays: the check lets a network level play where it has
// weights, and leaves an unknown level and the other levels to the checks
// that were there before.
func TestNetworkLevelPlays(t *testing.T) {
	for _, args := range [][]string{
		{"move", "-level", "neural", "-rules", "4x4k3"},
		{"move", "-level", "humanlike", "-rules", "4x3xox", "-seed", "2"},
		{"move", "-level", "easy", "-rules", "6x6k4", "-seed", "2"},
		{"arena", "-x", "neural", "-o", "random", "-rules", "3x3k3", "-games", "2"},
	} {
		if r := runFixed(t, "", args...); r.code != exitOK {
			t.Errorf("%q: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	if r := runFixed(t, "", "move", "-level", "nobody", "-rules", "6x6k4"); r.code != exitInput || !strings.Contains(r.stderr, `-level: unknown level: "nobody"`) {
		t.Errorf("unknown level on 6x6k4: exit %d, stderr %q", r.code, r.stderr)
	}
}
