package retrain_test

import (
	"errors"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/retrain"
)

// TestGameOf: a side counts as human only when a user played it without
// taking a hint, so the human head never learns an AI's, an unknown
// player's or an assisted player's moves.
func TestGameOf(t *testing.T) {
	at := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	rec := func(x, o persistence.Player, assisted ...string) persistence.CorpusRecord {
		return persistence.CorpusRecord{Version: persistence.CorpusVersion, Game: "g1", Rules: "3x3k3",
			Moves: []string{"0 0", "1 0", "0 1", "1 1", "0 2"}, X: x, O: o, Result: "X wins", Time: at,
			Source: "bot", Assisted: assisted}
	}
	user := func(u string) persistence.Player { return persistence.Player{User: u} }
	bot := persistence.Player{AI: "perfect"}
	tests := []struct {
		name  string
		rec   persistence.CorpusRecord
		human [2]bool
	}{
		{"two people", rec(user("a"), user("b")), [2]bool{true, true}},
		{"person and AI", rec(user("a"), bot), [2]bool{true, false}},
		{"AI and person", rec(bot, user("b")), [2]bool{false, true}},
		{"unknown players", rec(persistence.Player{}, persistence.Player{}), [2]bool{false, false}},
		{"X assisted", rec(user("a"), bot, "x"), [2]bool{false, false}},
		{"O assisted", rec(user("a"), user("b"), "o"), [2]bool{true, false}},
		{"both assisted", rec(user("a"), user("b"), "x", "o"), [2]bool{false, false}},
		{"both assisted, listed o first", rec(user("a"), user("b"), "o", "x"), [2]bool{false, false}},
		{"AI side listed as assisted", rec(bot, user("b"), "x"), [2]bool{false, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rules, g, err := retrain.GameOf(tt.rec)
			if err != nil {
				t.Fatal(err)
			}
			if rules.String() != "3x3k3" || len(g.Moves) != 5 || !g.Time.Equal(at) {
				t.Errorf("GameOf = %v, %d moves at %v", rules, len(g.Moves), g.Time)
			}
			if g.Human != tt.human {
				t.Errorf("Human = %v; want %v", g.Human, tt.human)
			}
		})
	}
	bad := rec(user("a"), user("b"), "z")
	if _, _, err := retrain.GameOf(bad); !errors.Is(err, persistence.ErrInvalid) {
		t.Errorf("GameOf with assisted %q: %v; want ErrInvalid", bad.Assisted, err)
	}
}
