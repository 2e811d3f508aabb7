package gomoku

import (
	"bufio"
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/game/wide"
)

// inProcess runs a Brain behind an Engine over pipes.
func inProcess(t *testing.T, br *Brain) *Engine {
	t.Helper()
	toR, toW := io.Pipe()
	fromR, fromW := io.Pipe()
	go func() {
		br.Run(context.Background(), toR, fromW)
		fromW.Close()
	}()
	t.Cleanup(func() { toW.Close() })
	return NewEngine(toW, fromR)
}

// TestMatchAgainstBrain: a match against our own brain over the protocol
// plays every game to its end, both colours, each game's record legal,
// with no forfeit.
func TestMatchAgainstBrain(t *testing.T) {
	e := inProcess(t, &Brain{About: `name="self"`, Budget: 20 * time.Millisecond})
	var seen int
	res, err := PlayMatch(context.Background(), e, New(Options{}), MatchOptions{
		Rules: wide.Gomoku(), Games: 4, Turn: 20 * time.Millisecond, Seed: 1,
		Progress: func(GameResult) { seen++ },
	})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for i := range 2 {
		total += res.Wins[i] + res.Draws[i] + res.Losses[i]
	}
	if total != 4 || seen != 4 || res.Forfeits != 0 || e.About != `name="self"` {
		t.Fatalf("result %+v, %d reported, about %q", res, seen, e.About)
	}
	for _, g := range res.Games {
		if _, err := wide.ParseRecord(g.Record.String()); err != nil || g.Result == game.Ongoing {
			t.Errorf("game %d: %s (%v) %s", g.Game, g.Record, err, g.Result)
		}
	}
	if res.Games[0].Us != game.X || res.Games[1].Us != game.O || !slices.Equal(res.Games[0].Record.Moves[:3], res.Games[1].Record.Moves[:3]) {
		t.Error("each opening is played with both colours")
	}
}

// TestMatchForfeit: an engine that answers with an occupied cell, or not
// at all, loses the game by forfeit and the match goes on.
func TestMatchForfeit(t *testing.T) {
	toR, toW := io.Pipe()
	fromR, fromW := io.Pipe()
	go func() {
		sc := bufio.NewScanner(toR)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			switch {
			case strings.HasPrefix(line, "START"), line == "RESTART":
				io.WriteString(fromW, "OK\r\n")
			case line == "ABOUT":
				io.WriteString(fromW, "name=\"bad\"\r\n")
			case line == "DONE":
				io.WriteString(fromW, "MESSAGE thinking\r\n7,7\r\n") // the centre is taken by the opening
			}
		}
	}()
	t.Cleanup(func() { toW.Close() })
	res, err := PlayMatch(context.Background(), NewEngine(toW, fromR), New(Options{}), MatchOptions{
		Rules: wide.Gomoku(), Games: 2, Turn: 10 * time.Millisecond, Seed: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Forfeits != 2 || res.Wins != [2]int{1, 1} || !strings.Contains(res.Games[0].Forfeit, `bad move "7,7"`) {
		t.Errorf("%+v", res)
	}
}

func TestOpenings(t *testing.T) {
	o := Openings(wide.Gomoku(), 50, 3)
	seen := map[string]bool{}
	for _, op := range o {
		p := wide.NewPosition(wide.Gomoku())
		for _, c := range op {
			var err error
			if p, err = p.Play(c); err != nil {
				t.Fatal(err)
			}
		}
		if seen[p.String()] {
			t.Errorf("opening %v repeated", op)
		}
		seen[p.String()] = true
	}
	if len(o) != 50 {
		t.Errorf("%d openings", len(o))
	}
}
