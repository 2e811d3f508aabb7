package main

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestMain lets the test binary stand in for a Gomocup engine: run with
// TTT_TEST_PBRAIN=1 it is "bot pbrain".
func TestMain(m *testing.M) {
	if os.Getenv("TTT_TEST_PBRAIN") == "1" {
		os.Exit(run(context.Background(), []string{"pbrain", "-budget", "30ms"}, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestGomocupMatch plays "bot gomocup" against "bot pbrain" run as a
// separate program: four games, both colours, no forfeit, the summary as
// documented.
func TestGomocupMatch(t *testing.T) {
	t.Setenv("TTT_TEST_PBRAIN", "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	res := runBot(t, "", "gomocup", "-engine", exe, "-games", "4", "-turn", "30ms", "-v")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	for _, want := range []string{`engine: name="ttt-bot"`, "rules: gomoku, 4 games, 30ms a move", "score: ", "as X: ", "as O: ", "engine forfeits: 0", "game 4 (we are O)"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, res.stdout)
		}
	}
	for _, tc := range []struct{ args []string }{
		{[]string{"gomocup"}},
		{[]string{"gomocup", "-engine", exe, "-rules", "9x7k5"}},
		{[]string{"gomocup", "-engine", exe, "-rules", "15x15k4"}},
		{[]string{"gomocup", "-engine", exe, "-games", "0"}},
	} {
		if r := runBot(t, "", tc.args...); r.code != 2 || r.stderr == "" {
			t.Errorf("%v: exit %d, %q", tc.args, r.code, r.stderr)
		}
	}
}
