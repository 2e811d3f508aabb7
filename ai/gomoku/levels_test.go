package gomoku

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/game/wide"
)

// TestLevels: every level plays legal moves to the end of a game on
// 15x15, easy and minimax take a win and block a four, minimax beats
// easy with both colours, the load shrinks minimax's budget to its floor,
// and an unknown level is refused with the list of levels.
func TestLevels(t *testing.T) {
	ctx := context.Background()
	for _, name := range Levels() {
		m, err := NewLevel(name, LevelOptions{Seed: 3, Depth: 2})
		if err != nil {
			t.Fatal(err)
		}
		p := wide.NewPosition(wide.Gomoku())
		for !p.Over() && p.Ply() < 40 {
			c, err := m.Move(ctx, p)
			if err != nil {
				t.Fatalf("%s at ply %d: %v", name, p.Ply(), err)
			}
			if p, err = p.Play(c); err != nil {
				t.Fatalf("%s played an illegal move: %v", name, err)
			}
		}
	}
	// X has four in row 8 (d8..g8) open at h8; O to move must block, and
	// X to move wins there.
	win := "15x15k5"
	for _, name := range []string{"easy", "minimax"} {
		for seed := range uint64(6) {
			m, _ := NewLevel(name, LevelOptions{Seed: seed, Depth: 2})
			p := playCells(t, win, "d8 a1 e8 a3 f8 a5 g8")
			c, err := m.Move(ctx, p)
			if err != nil || c.String() != "c8" && c.String() != "h8" {
				t.Errorf("%s (seed %d) with X's open four to block: %v, %v; want c8 or h8", name, seed, c, err)
			}
			p = playCells(t, win, "d8 a1 e8 a3 f8 a5 g8 a7")
			if c, err = m.Move(ctx, p); err != nil || !p.Apply(c).Over() {
				t.Errorf("%s (seed %d) with a win at hand played %v, %v", name, seed, c, err)
			}
		}
	}
	for _, xIsMinimax := range []bool{true, false} {
		mm, _ := NewLevel("minimax", LevelOptions{Depth: 2})
		easy, _ := NewLevel("easy", LevelOptions{Seed: 9})
		p := wide.NewPosition(wide.Gomoku())
		for !p.Over() {
			m := easy
			if (p.ToMove() == game.X) == xIsMinimax {
				m = mm
			}
			c, err := m.Move(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			p = p.Apply(c)
		}
		if w := p.Outcome().Winner(); (w == game.X) != xIsMinimax || w == game.Empty {
			t.Errorf("minimax as X=%v against easy: %v", xIsMinimax, p.Outcome().Result)
		}
	}
	m, _ := NewLevel("minimax", LevelOptions{Budget: 2 * time.Second, Load: 1})
	if b := m.(*Player).opts.Budget; b != MinBudget {
		t.Errorf("minimax's budget under full load = %v, want %v", b, MinBudget)
	}
	m, _ = NewLevel("minimax", LevelOptions{Budget: 2 * time.Second, Load: 0.5})
	if b := m.(*Player).opts.Budget; b <= MinBudget || b >= 2*time.Second {
		t.Errorf("minimax's budget under half load = %v, want between the floor and 2s", b)
	}
	if _, err := NewLevel("perfect", LevelOptions{}); err == nil || !strings.Contains(err.Error(), "random, easy, minimax") {
		t.Errorf("NewLevel(perfect) = %v, want an error listing the levels", err)
	}
	r, _ := NewLevel("random", LevelOptions{})
	if _, err := r.Move(ctx, playCells(t, "3x3k3", "a1 b1 c1 a2 c2 b2 a3 c3 b3")); !errors.Is(err, ErrNoMoves) {
		t.Errorf("random on a full board: %v, want ErrNoMoves", err)
	}
}

// playCells plays named cells from the empty board of rules.
func playCells(t *testing.T, rules, cells string) wide.Position {
	t.Helper()
	r, err := wide.ParseRules(rules)
	if err != nil {
		t.Fatal(err)
	}
	p := wide.NewPosition(r)
	for _, f := range strings.Fields(cells) {
		c, err := r.ParseCell(f)
		if err != nil {
			t.Fatal(err)
		}
		if p, err = p.Play(c); err != nil {
			t.Fatal(err)
		}
	}
	return p
}
