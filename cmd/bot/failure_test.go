package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/game"
)

// playerFunc adapts a function to ai.Player.
type playerFunc func(ctx context.Context, p game.Position) (game.Cell, error)

func (f playerFunc) Move(ctx context.Context, p game.Position) (game.Cell, error) { return f(ctx, p) }

// TestRuntimeFailures registers levels that fail in the ways a real level
// might and checks each subcommand exits 1 with a message, not 2.
func TestRuntimeFailures(t *testing.T) {
	errBroken := errors.New("weights file is corrupt")
	levels := []ai.Level{
		{Name: "broken", Summary: "fails every move", New: func(ai.Options) (ai.Player, error) {
			return playerFunc(func(context.Context, game.Position) (game.Cell, error) { return 0, errBroken }), nil
		}},
		{Name: "cheat", Summary: "plays on a taken cell", New: func(ai.Options) (ai.Player, error) {
			return playerFunc(func(_ context.Context, p game.Position) (game.Cell, error) {
				if taken := p.X() | p.O(); taken != 0 {
					return taken.First(), nil
				}
				return p.Rules().Board().First(), nil
			}), nil
		}},
		{Name: "unbuildable", Summary: "cannot be built", New: func(ai.Options) (ai.Player, error) { return nil, errBroken }},
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"move broken", []string{"move", "-level", "broken"}, "broken found no move: weights file is corrupt"},
		{"move cheat", []string{"move", "-level", "cheat", "-position", "x--------"}, "cheat chose an illegal move: game: cell taken"},
		{"move unbuildable", []string{"move", "-level", "unbuildable"}, "weights file is corrupt"},
		{"play broken", []string{"play", "-ai", "broken", "-first", "ai", "-seed", "1"}, "broken (X) found no move"},
		{"play cheat", []string{"play", "-ai", "cheat", "-seed", "1"}, "cheat (O) chose an illegal move"},
		{"play unbuildable", []string{"play", "-ai", "unbuildable", "-seed", "1"}, "weights file is corrupt"},
		{"arena broken", []string{"arena", "-x", "easy", "-o", "broken", "-seed", "1"}, "weights file is corrupt"},
		{"arena cheat", []string{"arena", "-x", "cheat", "-o", "easy", "-seed", "1"}, "cell taken"},
		{"arena unbuildable", []string{"arena", "-x", "easy", "-o", "unbuildable", "-seed", "1"}, "weights file is corrupt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _, errOut := testEnv("b2\n")
			for _, l := range levels {
				e.levels.Register(l)
			}
			if code := e.run(context.Background(), tt.args); code != exitFailure {
				t.Errorf("exit %d, want %d", code, exitFailure)
			}
			msg := errOut.String()
			if strings.Count(msg, "\n") != 1 || !strings.HasPrefix(msg, "bot "+tt.args[0]+": ") || !strings.Contains(msg, tt.want) {
				t.Errorf("stderr %q, want one line containing %q", msg, tt.want)
			}
		})
	}
}
