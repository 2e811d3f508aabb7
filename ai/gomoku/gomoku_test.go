package gomoku

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/game/wide"
)

// position reads a record line ("15x15k5 h8 i9 ...") or fails the test.
func position(t testing.TB, line string) wide.Position {
	t.Helper()
	rec, err := wide.ParseRecord(line)
	if err != nil {
		t.Fatal(err)
	}
	return rec.Position()
}

func move(t testing.TB, pl *Player, p wide.Position) wide.Cell {
	t.Helper()
	c, err := pl.Move(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Play(c); err != nil {
		t.Fatalf("%s: illegal move %s: %v", p, c, err)
	}
	return c
}

// TestTactics: the player wins at once, blocks a four, plays a forced win
// by fours, and under the exact rule does not count on an overline.
func TestTactics(t *testing.T) {
	tests := []struct {
		name string
		game string
		want []string // any of these
		vcf  bool
	}{
		// X a1 b1 c1 d1; O to... X to move: e1 wins.
		{"win at once", "15x15k5 a1 a5 b1 b5 c1 c5 d1 d6", []string{"e1"}, false},
		// O has four on row 5 (a5-d5), X to move must block e5.
		{"block a four", "15x15k5 h8 a5 h9 b5 j12 c5 k13 d5", []string{"e5"}, false},
		// X: h8 h9 h10 (column, open), i9 j10? A four-three: X plays h11
		// making four in column h (h8-h11) ... constructed VCF below.
		{"double four", "15x15k5 h8 a1 h9 a3 h10 a5 i8 a7 j8 a9 k8 a11", []string{"l8", "g8", "h11", "h7"}, false},
		// Overline: X a1 b1 c1 d1 f1; e1 makes six. Under the exact rule
		// it does not win, so X must see O's four on row 3 and block it.
		{"overline does not win (exact)", "15x15k5e a1 a3 b1 b3 c1 c3 d1 d3 f1 o15", []string{"e3"}, false},
		{"overline wins (freestyle)", "15x15k5 a1 a3 b1 b3 c1 c3 d1 d3 f1 o15", []string{"e1"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := New(Options{Budget: 2 * time.Second, MaxDepth: 2})
			c := move(t, pl, position(t, tt.game))
			ok := false
			for _, w := range tt.want {
				ok = ok || c.String() == w
			}
			if !ok {
				t.Errorf("played %s, want one of %v", c, tt.want)
			}
		})
	}
}

// TestVCF: in a position with a forced win by fours, the player finds it
// and, playing it out against every block, wins.
func TestVCF(t *testing.T) {
	// X: d4 e5 f6 (diagonal) and e4 f4 (row 4), O scattered far away.
	// g4 makes a four? Checked by the engine; the test plays it out.
	p := position(t, "15x15k5 d4 o1 e5 o3 f6 o5 e4 o7 f4 o9 h2 o11")
	pl := New(Options{Budget: 2 * time.Second, MaxDepth: 2})
	for ply := 0; !p.Over() && ply < 30; ply++ {
		var c wide.Cell
		if p.ToMove() == game.X {
			c = move(t, pl, p)
			if ply == 0 && !pl.Stats().VCF {
				t.Fatalf("no forced win found at %s (played %s)", p, c)
			}
		} else {
			// O blocks the four if there is one, else plays far away.
			c = blockOrFar(p)
		}
		p = p.Apply(c)
	}
	if p.Outcome().Result != game.XWins {
		t.Fatalf("%s: %s", p, p.Outcome().Result)
	}
}

// blockOrFar returns the cell where X would win at once, or the last free
// cell.
func blockOrFar(p wide.Position) wide.Cell {
	free := p.Moves().Cells()
	for _, c := range free {
		if xWinsAt(p, c) {
			return c
		}
	}
	return free[len(free)-1]
}

// xWinsAt reports whether X would win by marking c.
func xWinsAt(p wide.Position, c wide.Cell) bool {
	b := newBoard(p)
	return b.winsIfPlaced(c, 0)
}

// TestAgainstRandom: on 9x9k5 and 15x15k5, both colours, the player beats
// a random mover every game.
func TestAgainstRandom(t *testing.T) {
	for _, rs := range []string{"9x9k5", "15x15k5", "15x15k5e"} {
		r, err := wide.ParseRules(rs)
		if err != nil {
			t.Fatal(err)
		}
		for seed := range uint64(4) {
			rng := rand.New(rand.NewPCG(seed, 7))
			pl := New(Options{Budget: time.Second, MaxDepth: 2})
			me := game.X
			if seed%2 == 1 {
				me = game.O
			}
			p := wide.NewPosition(r)
			for !p.Over() {
				var c wide.Cell
				if p.ToMove() == me {
					c = move(t, pl, p)
				} else {
					free := p.Moves().Cells()
					c = free[rng.IntN(len(free))]
				}
				p = p.Apply(c)
			}
			if p.Outcome().Winner() != me {
				t.Errorf("%s seed %d as %s: %s after %d plies", rs, seed, me, p.Outcome().Result, p.Ply())
			}
		}
	}
}

// TestLegalEverywhere: along seeded random games on boards from 6x6 to
// 15x15 and k from 3 to 6, the player's move is legal, and it fails
// cleanly on a finished game and a cancelled context.
func TestLegalEverywhere(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, rs := range []string{"6x6k4", "7x9k3", "10x10k6", "15x15k5e", "12x15k4"} {
		r, err := wide.ParseRules(rs)
		if err != nil {
			t.Fatal(err)
		}
		p := wide.NewPosition(r)
		pl := New(Options{Budget: 200 * time.Millisecond, MaxDepth: 1})
		for !p.Over() {
			var c wide.Cell
			if p.Ply()%3 == 0 {
				c = move(t, pl, p)
			} else {
				free := p.Moves().Cells()
				c = free[rng.IntN(len(free))]
			}
			p = p.Apply(c)
		}
		if _, err := pl.Move(context.Background(), p); err != ErrNoMoves {
			t.Errorf("%s finished: err %v", rs, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New(Options{}).Move(ctx, wide.NewPosition(wide.Gomoku())); err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Errorf("cancelled: err %v", err)
	}
}

// TestBoardIncremental: the incremental score and fours match a count
// from scratch after every move of random games, and undo restores them.
func TestBoardIncremental(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, rs := range []string{"15x15k5", "8x8k4", "10x7k6"} {
		r, _ := wide.ParseRules(rs)
		p := wide.NewPosition(r)
		b := newBoard(p)
		for !p.Over() {
			free := p.Moves().Cells()
			c := free[rng.IntN(len(free))]
			s := sideOf(p.ToMove())
			before := *b
			b.place(c, s)
			b.remove(c, s)
			if b.score != before.score || b.fours != before.fours || b.hash != before.hash {
				t.Fatalf("%s: undo of %s did not restore the board", rs, c)
			}
			b.place(c, s)
			p = p.Apply(c)
			fresh := newBoard(p)
			if fresh.score != b.score || fresh.fours != b.fours || fresh.hash != b.hash {
				t.Fatalf("%s %s: incremental %v %v, fresh %v %v", rs, p, b.score, b.fours, fresh.score, fresh.fours)
			}
		}
	}
}
