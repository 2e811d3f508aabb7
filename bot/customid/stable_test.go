package customid

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/internal/golden"
	"github.com/tttbot/ttt-bot/persistence"
)

// stableIDs are one ID of every action, as boards on Discord's side carry
// them.
func stableIDs() []ID {
	const owner = "100000000000000001"
	g := persistence.GameID("112233445566778899.abcdefghijklm")
	return []ID{
		{Action: ActionMove, Game: g, Move: 4, Cell: game.NewCell(1, 2)},
		{Action: ActionResign, Game: g, Move: 4},
		{Action: ActionRematch, Game: g, Move: 9},
		{Action: ActionAccept, Game: g},
		{Action: ActionDecline, Game: g},
		{Action: ActionCancel, Game: g},
		{Action: ActionJoin, Game: g},
		{Action: ActionReplay, Game: g},
		{Action: ActionReview, Game: g},
		{Action: ActionFirst, Game: g, Owner: owner},
		{Action: ActionBack, Game: g, Move: 3, Owner: owner},
		{Action: ActionNext, Game: g, Move: 5, Owner: owner},
		{Action: ActionLast, Game: g, Move: 9, Owner: owner},
		{Action: ActionHistory, Game: persistence.GameID(owner + ".5x5k4"), Move: 2, Owner: owner},
		{Action: ActionForgetMe, Game: persistence.GameID(owner + ".x"), Owner: owner},
		{Action: ActionForgetServer, Game: persistence.GameID("200000000000000001.x"), Owner: owner},
		{Action: ActionSetting, Game: persistence.GameID("200000000000000001.hints"), Move: 1, Owner: owner},
		{Action: ActionTournament, Game: persistence.GameID("200000000000000001.t42"), Move: 1},
	}
}

// TestStableIDs pins the custom IDs of every action, signed with the
// tests' key, in testdata/stable_ids.golden: a change of the format (or of
// an action's letter) breaks every board already on Discord, so it must
// show up here. The golden file is byte for byte what the build before
// the package moved out of bot (commit c87a23c) encodes, and every line
// must still decode to its ID: games in progress across the upgrade keep
// their buttons.
func TestStableIDs(t *testing.T) {
	s := testSigner(t)
	var b strings.Builder
	for _, id := range stableIDs() {
		raw, err := s.Encode(id)
		if err != nil {
			t.Fatalf("Encode(%+v): %v", id, err)
		}
		fmt.Fprintln(&b, raw)
	}
	golden.Equal(t, "stable_ids.golden", []byte(b.String()))
	lines := strings.Fields(string(golden.Read(t, "stable_ids.golden")))
	ids := stableIDs()
	if len(lines) != len(ids) {
		t.Fatalf("%d IDs in the golden file, want %d", len(lines), len(ids))
	}
	for i, raw := range lines {
		got, err := s.Decode(raw)
		if err != nil {
			t.Errorf("Decode(%q) of an earlier build: %v", raw, err)
			continue
		}
		if got != ids[i] {
			t.Errorf("Decode(%q) = %+v, want %+v", raw, got, ids[i])
		}
	}
}
