package ai

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
)

func mustPosition(t testing.TB, rules, pos string) game.Position {
	t.Helper()
	r, err := game.ParseRules(rules)
	if err != nil {
		t.Fatal(err)
	}
	p, err := game.ParsePosition(r, pos)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRandomIsUniformAndSeeded(t *testing.T) {
	p := mustPosition(t, "3x3k3", "X--/-O-/---")
	counts := map[game.Cell]int{}
	pl := NewRandom(Options{Seed: 7})
	for range 7000 {
		c, err := pl.Move(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if !p.Moves().Has(c) {
			t.Fatalf("illegal move %s", c)
		}
		counts[c]++
	}
	if len(counts) != 7 {
		t.Fatalf("played %d distinct cells, want all 7 free ones", len(counts))
	}
	for c, n := range counts {
		// 1000 expected per cell; 5 standard deviations is about 150.
		if n < 850 || n > 1150 {
			t.Errorf("cell %s chosen %d times of 7000, want about 1000", c, n)
		}
	}
	a, b := NewRandom(Options{Seed: 42}), NewRandom(Options{Seed: 42})
	for range 20 {
		ca, _ := a.Move(context.Background(), p)
		cb, _ := b.Move(context.Background(), p)
		if ca != cb {
			t.Fatal("same seed, different moves")
		}
	}
}

func TestEasy(t *testing.T) {
	tests := []struct {
		name, rules, pos string
		want             []string // any of these
	}{
		{"wins a row", "3x3k3", "XX-/OO-/---", []string{"c1"}},
		{"wins before blocking", "3x3k3", "OO-/XX-/X--", []string{"c1"}},
		{"blocks", "3x3k3", "XO-/-O-/--X", []string{"b3"}},
		{"blocks as O", "3x3k3", "X--/-X-/--O", []string{"b3", "a3", "c1", "b1", "a2", "c2"}}, // no threat: anything
		{"wins on 5x5k4", "5x5k4", "XXX--/OO---/O----/-----/-----", []string{"d1"}},
		{"blocks one of two", "3x3k3", "XX-/-O-/X-O", []string{"c1", "a2"}},
		{"X-O-X: completes the pattern", "4x3xox", "X--/-O-/---/-X-", []string{"c3"}},
		{"X-O-X: O blocks, never between two X's", "4x3xox", "X-X/-O-/---/---", []string{"a3", "c3"}},
		{"X-O-X: X never steps between two O's", "4x3xox", "O-O/---/---/XX-", []string{"a2", "b2", "c2", "a3", "b3", "c3", "c4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustPosition(t, tt.rules, tt.pos)
			for seed := range uint64(30) {
				c, err := NewEasy(Options{Seed: seed}).Move(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				ok := false
				for _, w := range tt.want {
					ok = ok || c.String() == w
				}
				if !ok {
					t.Fatalf("%s with %s to move: played %s, want one of %v", p, p.ToMove(), c, tt.want)
				}
			}
		})
	}
}

func TestPlayersRefuseFinishedGames(t *testing.T) {
	p := mustPosition(t, "3x3k3", "XXX/OO-/---")
	for _, level := range NewRegistry().Names() {
		pl, err := NewRegistry().New(level, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pl.Move(context.Background(), p); !errors.Is(err, ErrNoMoves) {
			t.Errorf("%s on a finished game: %v, want ErrNoMoves", level, err)
		}
	}
}

// TestPlayersHonourDeadlines gives every level a short deadline on the
// largest board, with its default budget and with a budget far beyond the
// deadline, and checks that it answers with a legal move or the context's
// error, promptly; and that a cancelled context is refused.
func TestPlayersHonourDeadlines(t *testing.T) {
	p := mustPosition(t, "8x8k5", strings.Repeat("-", 27)+"X"+strings.Repeat("-", 36))
	for _, level := range NewRegistry().Names() {
		for _, o := range []Options{{Seed: 1}, {Seed: 1, Budget: time.Hour}} {
			t.Run(fmt.Sprintf("%s/budget=%s", level, o.Budget), func(t *testing.T) {
				pl, err := NewRegistry().New(level, o)
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
				defer cancel()
				start := time.Now()
				c, err := pl.Move(ctx, p)
				took := time.Since(start)
				if err == nil && !p.Moves().Has(c) {
					t.Fatalf("illegal move %s", c)
				}
				if err != nil && !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("error %v, want a move or DeadlineExceeded", err)
				}
				// 20 ms plus table allocation and scheduling noise: a run
				// on a machine at load 6 under -race once took 700 ms. A
				// player that ignores the deadline with a one-hour budget
				// would search 8x8 for far longer than this bound.
				if took > 2*time.Second {
					t.Errorf("took %s with a 20ms deadline", took)
				}
				cancelled, cancel2 := context.WithCancel(context.Background())
				cancel2()
				if _, err := pl.Move(cancelled, p); !errors.Is(err, context.Canceled) {
					t.Errorf("with a cancelled context: %v, want context.Canceled", err)
				}
			})
		}
	}
}

func TestRegistry(t *testing.T) {
	r := NewRegistry()
	if _, err := r.New("grandmaster", Options{}); !errors.Is(err, ErrUnknownLevel) || !strings.Contains(err.Error(), "random") {
		t.Errorf("unknown level: %v", err)
	}
	if _, err := r.New(" EASY ", Options{}); err != nil {
		t.Errorf("level names ignore case and space: %v", err)
	}
	bad := []Options{{Depth: -1}, {Budget: -time.Second}, {Iterations: -5}, {Exploration: -1}}
	for _, o := range bad {
		if _, err := r.New("random", o); !errors.Is(err, ErrBadOption) {
			t.Errorf("options %+v: %v, want ErrBadOption", o, err)
		}
	}
	r.Register(Level{Name: "Custom", Summary: "test", New: func(o Options) (Player, error) { return NewRandom(o), nil }})
	if _, err := r.New("custom", Options{}); err != nil {
		t.Errorf("registered level: %v", err)
	}
}
