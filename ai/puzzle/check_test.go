package puzzle

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/game"
)

// classicPuzzle builds a 3x3 puzzle from its notation and winning moves.
func classicPuzzle(t testing.TB, pos string, side game.Mark, plies int, winning ...string) Puzzle {
	t.Helper()
	r := mustRules(t, "3x3k3")
	return Puzzle{
		Rules: r, Position: mustPosition(t, "3x3k3", pos), Side: side, Winning: mustCells(t, r, winning...),
		Plies: plies, OnlyMove: len(winning) == 1, Source: SourceCorpus,
	}
}

// TestCheck checks that Check accepts true puzzles and rejects doctored
// ones, naming the claim that fails.
func TestCheck(t *testing.T) {
	only := classicPuzzle(t, "O--/---/-X-", game.X, 5, "a3")              // X wins in 5, with a3 only
	three := classicPuzzle(t, "---/--O/--X", game.X, 5, "b2", "a3", "b3") // X wins in 5, three ways
	tests := []struct {
		name   string
		doctor func(p *Puzzle)
		base   Puzzle
		want   string // "" for a true puzzle
	}{
		{name: "only move", base: only},
		{name: "three moves", base: three},
		{name: "extra winning move", base: only, doctor: func(p *Puzzle) { p.Winning = append(p.Winning, game.NewCell(2, 2)) },
			want: "the winning moves are [a3], not [a3 c3]"},
		{name: "no winning moves", base: only, doctor: func(p *Puzzle) { p.Winning = nil }, want: "the winning moves are [a3], not []"},
		{name: "missing winning move", base: three, doctor: func(p *Puzzle) { p.Winning = p.Winning[:2] }, want: "the winning moves are [b2 a3 b3], not [b2 a3]"},
		{name: "not row-major", base: three, doctor: func(p *Puzzle) { p.Winning[0], p.Winning[1] = p.Winning[1], p.Winning[0] },
			want: "not [a3 b2 b3]"},
		{name: "too fast", base: only, doctor: func(p *Puzzle) { p.Plies = 3 }, want: "X cannot force a win within 3 plies"},
		{name: "too slow", base: only, doctor: func(p *Puzzle) { p.Plies = 7 }, want: "the fastest win takes 5 plies, not 7"},
		{name: "no length", base: only, doctor: func(p *Puzzle) { p.Plies = 0 }, want: "X cannot force a win within 0 plies"},
		{name: "false only move", base: three, doctor: func(p *Puzzle) { p.OnlyMove = true }, want: "OnlyMove is claimed, but 3 moves win"},
		{name: "missed only move", base: only, doctor: func(p *Puzzle) { p.OnlyMove = false }, want: "OnlyMove is not claimed, but only a3 wins"},
		{name: "immediate win", base: classicPuzzle(t, "XX-/OO-/---", game.X, 1, "c1"), want: "X wins at once at [c1]"},
		{name: "drawn", base: classicPuzzle(t, "-X-/-O-/---", game.X, 5, "a1"), want: "X has no forced win; with best play the game is draw"},
		{name: "lost", base: classicPuzzle(t, "XXO/--O/---", game.X, 3, "c3"), want: "X has no forced win; with best play the game is O wins"},
		{name: "game over", base: classicPuzzle(t, "XXX/OO-/---", game.O, 1, "c2"), want: "the game is over (X wins)"},
		{name: "wrong side", base: only, doctor: func(p *Puzzle) { p.Side = game.O }, want: "X is to move, not O"},
		{name: "wrong rules", base: only, doctor: func(p *Puzzle) { p.Rules = mustRules(t, "4x4k4") }, want: "the position is played under 3x3k3, not 4x4k4"},
		{name: "zero", base: Puzzle{}, want: "no rules given"},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.base
			p.Winning = append([]game.Cell(nil), p.Winning...)
			if tt.doctor != nil {
				tt.doctor(&p)
			}
			err := Check(ctx, p)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Check(%s) = %v", p, err)
				}
				return
			}
			if !errors.Is(err, ErrNotPuzzle) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Check(%s) = %v, want ErrNotPuzzle saying %q", p, err, tt.want)
			}
		})
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if err := Check(done, only); !errors.Is(err, context.Canceled) || errors.Is(err, ErrNotPuzzle) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestJudge follows a 3x3 puzzle and other endings move by move.
func TestJudge(t *testing.T) {
	tests := []struct {
		name  string
		rules string
		side  game.Mark
		after string
		want  Status
	}{
		{name: "winning move", rules: "3x3k3", side: game.X, after: "O--/---/XX-", want: Playing},        // a3, the only winning move
		{name: "drawing move", rules: "3x3k3", side: game.X, after: "O--/-X-/-X-", want: Failed},         // b2 lets O hold
		{name: "another drawing move", rules: "3x3k3", side: game.X, after: "O--/---/-XX", want: Failed}, // c3
		{name: "fork", rules: "3x3k3", side: game.X, after: "O--/-X-/XXO", want: Playing},                // b2: two threats
		{name: "line completed", rules: "3x3k3", side: game.X, after: "OO-/---/XXX", want: Solved},       // the win
		{name: "O's winning move", rules: "3x3k3", side: game.O, after: "X--/X--/OO-", want: Playing},    // from X--/X--/-O-, a3
		{name: "O's losing move", rules: "3x3k3", side: game.O, after: "X--/XO-/-O-", want: Failed},      // b2 leaves X a win
		{name: "board full", rules: "3x3k3", side: game.X, after: "XOX/XOO/OXX", want: Failed},           // a draw
		{name: "losing move", rules: "4x3xox", side: game.O, after: "XOX/O--/---/---", want: Failed},     // O's middle makes X-O-X
		{name: "X-O-X win", rules: "4x3xox", side: game.X, after: "XOX/O--/---/---", want: Solved},       // the same, as X
		{name: "lost position", rules: "3x3k3", side: game.X, after: "XXO/--O/---", want: Failed},        // O wins
		{name: "drawn position", rules: "5x5k4", side: game.X, after: "-----/-----/--X--/-----/-----", want: Failed},
	}
	ctx := context.Background()
	s := ai.NewSolver() // shared, as the bot shares one over a puzzle's moves
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Judge(ctx, s, tt.side, mustPosition(t, tt.rules, tt.after))
			if err != nil || got != tt.want {
				t.Fatalf("Judge(%s, %s) = %s, %v; want %s", tt.side, tt.after, got, err, tt.want)
			}
			if fresh, err := Judge(ctx, nil, tt.side, mustPosition(t, tt.rules, tt.after)); err != nil || fresh != got {
				t.Fatalf("with a fresh solver: %s, %v", fresh, err)
			}
		})
	}
	p := mustPosition(t, "3x3k3", "O--/---/XX-")
	if _, err := Judge(ctx, s, game.Empty, p); !errors.Is(err, ErrBadSide) {
		t.Errorf("side -: %v", err)
	}
	if _, err := Judge(ctx, s, game.X, game.Position{}); !errors.Is(err, game.ErrBadRules) {
		t.Errorf("zero position: %v", err)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Judge(done, s, game.X, p); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestStrings(t *testing.T) {
	only := classicPuzzle(t, "O--/---/-X-", game.X, 5, "a3")
	three := classicPuzzle(t, "---/--O/--X", game.X, 5, "b2", "a3", "b3")
	for _, tt := range []struct{ got, want string }{
		{only.String(), "3x3k3 X to move, wins in 5 (only move)"},
		{three.String(), "3x3k3 X to move, wins in 5 (3 winning moves)"},
		{Playing.String(), "playing"},
		{Solved.String(), "solved"},
		{Failed.String(), "failed"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
