package persistence

import (
	"reflect"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
)

// TestSessionRecordAssistedPuzzle: the hint flags and the puzzle key
// round-trip, and a record stored before they existed still decodes.
func TestSessionRecordAssistedPuzzle(t *testing.T) {
	at := time.Date(2026, 11, 24, 18, 0, 0, 0, time.UTC)
	base := Session{ID: "111.abc", Rules: "3x3k3", Players: [2]Seat{{User: "1"}, {AI: AI{Level: "perfect"}}},
		Moves: []game.Cell{0, 9}, Created: at, Updated: at, Status: StatusActive, Version: 4}
	tests := []struct {
		name     string
		assisted [2]bool
		puzzle   string
	}{
		{"neither", [2]bool{}, ""},
		{"X assisted", [2]bool{true, false}, ""},
		{"O assisted", [2]bool{false, true}, ""},
		{"both assisted", [2]bool{true, true}, ""},
		{"puzzle", [2]bool{}, "2026-11-24"},
		{"assisted puzzle", [2]bool{true, false}, "2026-11-24"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := base
			s.Assisted, s.Puzzle = tt.assisted, tt.puzzle
			data, err := s.encode()
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeSession(s.ID, "4", "2", data)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, s) {
				t.Errorf("round trip:\n got %+v\nwant %+v\ndata %s", *got, s, data)
			}
		})
	}

	old := `{"r":"3x3k3","p":[{"u":"1"},{"l":"perfect"}],"m":[0,9],"c":1,"u":1}`
	got, err := decodeSession("111.abc", "1", "2", []byte(old))
	if err != nil || got.Assisted != [2]bool{} || got.Puzzle != "" {
		t.Fatalf("old record: %+v, %v", got, err)
	}
	if _, err := decodeSession("111.abc", "1", "2", []byte(`{"r":"3x3k3","p":[{"u":"1"},{"u":"2"}],"c":1,"u":1,"as":4}`)); err == nil {
		t.Fatal("assisted bits out of range decoded")
	}
}
