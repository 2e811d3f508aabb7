package main

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/game"
)

func TestArenaGolden(t *testing.T) {
	// testEnv's clock moves on a millisecond per reading and plays on one
	// worker, so even the times are the same on every machine.
	tests := []struct {
		name string
		args []string
	}{
		{"easy-random", []string{"-x", "easy", "-o", "random", "-games", "200", "-seed", "1"}},
		{"random-easy-options", []string{"-x", "random", "-o", "easy", "-games", "50", "-seed", "2", "-depth", "3", "-o-depth", "1", "-x-budget", "1s"}},
		{"xox-opening", []string{"-x", "easy", "-o", "easy", "-rules", "4x3xox", "-opening", "-games", "40", "-seed", "3"}},
		{"default-seed", []string{"-x", "random", "-o", "random", "-games", "10"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runFixed(t, "", append([]string{"arena"}, tt.args...)...)
			if r.code != exitOK || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			goldenText(t, "arena-"+tt.name+".golden", "$ bot arena "+strings.Join(tt.args, " ")+"\n---\n"+r.stdout)
		})
	}
}

var arenaRow = regexp.MustCompile(`(?m)^([XO]) +(\S+) +(\d+) \([\d.]+%\) +(\d+) \([\d.]+%\) +(\d+) \([\d.]+%\) +\S+ +\S+$`)

// TestArenaMatchesLibrary checks the printed tally against ai.Arena run
// directly with the same seed, on all cores.
func TestArenaMatchesLibrary(t *testing.T) {
	r := runBot(t, "", "arena", "-x", "easy", "-o", "random", "-games", "300", "-seed", "99", "-rules", "4x4k3")
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rows := arenaRow.FindAllStringSubmatch(r.stdout, -1)
	if len(rows) != 2 {
		t.Fatalf("want an X row and an O row in:\n%s", r.stdout)
	}
	num := func(s string) int { n, _ := strconv.Atoi(s); return n }
	reg := ai.NewRegistry()
	x, _ := ai.LevelFactory(reg, "easy", ai.Options{})
	o, _ := ai.LevelFactory(reg, "random", ai.Options{})
	rules, _ := game.ParseRules("4x4k3")
	want, err := ai.Arena(context.Background(), ai.ArenaConfig{Rules: rules, X: x, O: o, Games: 300, Seed: 99, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := rows[0]; got[1] != "X" || got[2] != "easy" || num(got[3]) != want.XWins || num(got[4]) != want.Draws || num(got[5]) != want.OWins {
		t.Errorf("X row %q, want %d wins, %d draws, %d losses", got[0], want.XWins, want.Draws, want.OWins)
	}
	if got := rows[1]; got[1] != "O" || got[2] != "random" || num(got[3]) != want.OWins || num(got[4]) != want.Draws || num(got[5]) != want.XWins {
		t.Errorf("O row %q, want %d wins, %d draws, %d losses", got[0], want.OWins, want.Draws, want.XWins)
	}
	if !strings.Contains(r.stdout, "\n300 games in ") || !strings.Contains(r.stdout, " games/s\n") {
		t.Errorf("no games/s line in:\n%s", r.stdout)
	}
}

func TestArenaWorkersAgree(t *testing.T) {
	tally := func(workers string) string {
		r := runBot(t, "", "arena", "-x", "easy", "-o", "easy", "-games", "100", "-seed", "5", "-workers", workers)
		if r.code != exitOK {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		var rows []string
		for _, m := range arenaRow.FindAllStringSubmatch(r.stdout, -1) {
			rows = append(rows, strings.Join(m[1:6], " "))
		}
		return strings.Join(rows, "; ")
	}
	if one, four := tally("1"), tally("4"); one != four || one == "" {
		t.Errorf("1 worker: %s; 4 workers: %s", one, four)
	}
}

func TestArenaInterrupted(t *testing.T) {
	e, out, errOut := testEnv("")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if code := e.run(ctx, []string{"arena", "-x", "random", "-o", "random", "-games", "1000"}); code != exitFailure {
		t.Errorf("exit %d, want %d", code, exitFailure)
	}
	if !strings.Contains(out.String(), "\n0 games in ") || !strings.Contains(errOut.String(), "interrupted after 0 of 1000 games") {
		t.Errorf("stdout %q\nstderr %q", out, errOut)
	}
}

func TestShortDuration(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"0s", "0s"},
		{"999ns", "999ns"},
		{"1234ns", "1.23µs"},
		{"12345ns", "12.3µs"},
		{"123456ns", "123µs"},
		{"1.23456s", "1.23s"},
		{"2h3m4.5s", "2h3m5s"},
	}
	for _, tt := range tests {
		d, err := time.ParseDuration(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := shortDuration(d); got != tt.want {
			t.Errorf("shortDuration(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestArenaPlaysUCT checks that the arena plays "uct", the yardstick for
// mcts, and that "bot levels" (what the bot offers) does not list it.
func TestArenaPlaysUCT(t *testing.T) {
	r := runBot(t, "", "arena", "-x", "mcts", "-o", "uct", "-iterations", "200", "-budget", "1m", "-games", "4", "-seed", "1", "-rules", "5x5k4")
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !regexp.MustCompile(`(?m)^O +uct \(iterations 200`).MatchString(r.stdout) {
		t.Errorf("want an O row for uct in:\n%s", r.stdout)
	}
	if r := runBot(t, "", "levels"); strings.Contains(r.stdout, "uct") {
		t.Errorf("bot levels lists uct:\n%s", r.stdout)
	}
}
