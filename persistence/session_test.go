package persistence

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/game/wide"
	"github.com/tttbot/ttt-bot/internal/golden"
)

func TestSessionRecordRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 21, 18, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		s    Session
	}{
		{"human game", Session{ID: "111.abc", Rules: "3x3k3", Players: [2]Seat{{User: "1"}, {User: "2"}},
			Moves: []game.Cell{0, 9, 18}, Guild: "9", Message: "77", Created: at, Updated: at.Add(time.Second),
			Status: StatusActive, TurnTime: time.Minute, Deadline: at.Add(time.Minute), Version: 4}},
		{"ai game from a position", Session{ID: "111.def", Rules: "4x3xox", Start: "X--/-O-/---/---",
			Players: [2]Seat{{User: "1"}, {AI: AI{Level: "mcts", Seed: 1<<64 - 1, Iterations: 5000, Budget: 250 * time.Millisecond, Exploration: 1.25}}},
			Created: at, Updated: at, Status: StatusActive, Version: 1}},
		{"finished by resignation", Session{ID: "111.ghi", Rules: "3x3k3", Players: [2]Seat{{User: "1"}, {AI: AI{Level: "minimax", Depth: 4}}},
			Moves: []game.Cell{9}, Created: at, Updated: at, Status: StatusFinished, Result: game.OWins, End: ByResign, Version: 3}},
		{"open challenge", Session{ID: "111.jkl", Rules: "3x3k3", Players: [2]Seat{{User: "1"}, {}}, Challenger: game.X,
			Created: at, Updated: at, Status: StatusOpen, Deadline: at.Add(5 * time.Minute), Version: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := tt.s.encode()
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeSession(tt.s.ID, "4", "2", data)
			if err != nil {
				t.Fatal(err)
			}
			got.Version, got.Status = tt.s.Version, tt.s.Status
			if !reflect.DeepEqual(*got, tt.s) {
				t.Errorf("round trip:\n got %+v\nwant %+v\ndata %s", *got, tt.s, data)
			}
		})
	}
}

func TestDecodeSessionCorrupt(t *testing.T) {
	good := `{"r":"3x3k3","p":[{"u":"1"},{"u":"2"}],"m":[0,9],"c":1,"u":1}`
	tests := []struct {
		name, version, status, data string
	}{
		{"not json", "1", "2", "{not json"},
		{"truncated", "1", "2", good[:20]},
		{"bad version", "x", "2", good},
		{"zero version", "0", "2", good},
		{"bad status", "1", "9", good},
		{"bad rules", "1", "2", `{"r":"3x3k9","p":[{},{}],"c":1,"u":1}`},
		{"move off board", "1", "2", `{"r":"3x3k3","p":[{},{}],"m":[63],"c":1,"u":1}`},
		{"move out of range", "1", "2", `{"r":"3x3k3","p":[{},{}],"m":[300],"c":1,"u":1}`},
		{"cell played twice", "1", "2", `{"r":"3x3k3","p":[{},{}],"m":[9,9],"c":1,"u":1}`},
		{"bad start", "1", "2", `{"r":"3x3k3","st":"OO-------","p":[{},{}],"c":1,"u":1}`},
		{"bad end", "1", "2", `{"r":"3x3k3","p":[{},{}],"e":99,"c":1,"u":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeSession("1.a", tt.version, tt.status, []byte(tt.data))
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("err = %v, want ErrCorrupt", err)
			}
		})
	}
	if _, err := decodeSession("1.a", "1", "2", []byte(good)); err != nil {
		t.Fatalf("good record: %v", err)
	}
}

func TestGameIDSplit(t *testing.T) {
	tests := []struct {
		id      GameID
		ch, suf string
		ok      bool
	}{
		{"123.abc", "123", "abc", true},
		{"123", "", "", false},
		{".abc", "", "", false},
		{"123.", "", "", false},
		{"1{2}.abc", "", "", false},
		{"123.a.b", "", "", false},
	}
	for _, tt := range tests {
		ch, suf, err := tt.id.split()
		if (err == nil) != tt.ok || ch != tt.ch || suf != tt.suf {
			t.Errorf("%q.split() = %q, %q, %v", tt.id, ch, suf, err)
		}
		if err != nil && !errors.Is(err, ErrNotFound) {
			t.Errorf("%q: err %v is not ErrNotFound", tt.id, err)
		}
	}
}

// FuzzDecodeSession checks that no stored bytes make decoding panic, and
// that whatever decodes encodes back to something that decodes the same.
func FuzzDecodeSession(f *testing.F) {
	f.Add([]byte(`{"r":"3x3k3","p":[{"u":"1"},{"u":"2"}],"m":[0,9],"c":1,"u":1}`))
	f.Add([]byte(`{"r":"4x3xox","st":"X--/-O-/---/---","p":[{"u":"1"},{"l":"mcts","sd":7}],"c":1,"u":1,"dl":5}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := decodeSession("1.a", "3", "2", data)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v is not ErrCorrupt", err)
			}
			return
		}
		again, err := s.encode()
		if err != nil {
			t.Fatal(err)
		}
		s2, err := decodeSession("1.a", "3", "2", again)
		if err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		if !reflect.DeepEqual(s, s2) {
			t.Fatalf("re-decode differs:\n%+v\n%+v", s, s2)
		}
	})
}

// TestSessionRecordGolden pins the stored form of a session: a change to
// it must be deliberate (old records must still decode), so it shows up
// as a diff of testdata/session_record.golden (-update rewrites it).
func TestSessionRecordGolden(t *testing.T) {
	at := time.Date(2026, 11, 21, 18, 0, 0, 0, time.UTC)
	sessions := []Session{
		{ID: "1.a", Rules: "3x3k3", Players: [2]Seat{{User: "100000000000000001"}, {User: "100000000000000002"}},
			Moves: []game.Cell{9, 0, 18}, Guild: "200000000000000001", Message: "300000000000000001",
			Created: at, Updated: at.Add(90 * time.Second), Status: StatusActive, TurnTime: time.Minute, Deadline: at.Add(150 * time.Second)},
		{ID: "1.b", Rules: "4x3xox", Start: "---/-X-/---/---", Players: [2]Seat{{AI: AI{Level: "mcts", Seed: 42, Iterations: 2000,
			Budget: 300 * time.Millisecond, Exploration: 1.4}}, {User: "100000000000000001"}},
			Created: at, Updated: at, Status: StatusActive, Deadline: at.Add(24 * time.Hour)},
		{ID: "1.c", Rules: "3x3k3", Players: [2]Seat{{User: "100000000000000001"}, {}}, Challenger: game.X,
			Created: at, Updated: at, Status: StatusOpen, Deadline: at.Add(5 * time.Minute)},
		{ID: "1.d", Rules: "3x3k3", Players: [2]Seat{{User: "100000000000000001"}, {AI: AI{Level: "minimax", Depth: 3}}},
			Moves: []game.Cell{9}, Created: at, Updated: at, Status: StatusFinished, Result: game.OWins, End: ByResign},
	}
	var got bytes.Buffer
	for _, s := range sessions {
		b, err := s.encode()
		if err != nil {
			t.Fatal(err)
		}
		got.Write(b)
		got.WriteByte('\n')
	}
	golden.Write(t, "session_record.golden", got.Bytes())
	want := golden.Read(t, "session_record.golden")
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("stored form changed:\n got %s\nwant %s", got.Bytes(), want)
	}
	// Every golden line still decodes, whatever the code writes today.
	for i, line := range bytes.Split(bytes.TrimSpace(want), []byte("\n")) {
		if _, err := decodeSession("1.x", "1", "2", line); err != nil {
			t.Errorf("golden line %d no longer decodes: %v", i+1, err)
		}
	}
}

func TestWideSessionRecord(t *testing.T) {
	at := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	s := Session{ID: "111.w", Rules: "15x15k5e", Players: [2]Seat{{User: "1"}, {AI: AI{Level: "minimax", Budget: time.Second}}},
		WideMoves: []wide.Cell{wide.NewCell(7, 7), wide.NewCell(14, 14), wide.NewCell(0, 0)}, Created: at, Updated: at, Status: StatusActive, Version: 4}
	data, err := s.encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeSession(s.ID, "4", "2", data)
	if err != nil {
		t.Fatal(err)
	}
	got.Version, got.Status = s.Version, s.Status
	if !reflect.DeepEqual(*got, s) {
		t.Errorf("round trip:\n got %+v\nwant %+v\ndata %s", *got, s, data)
	}
	for _, bad := range []string{
		`{"r":"15x15k5","p":[{},{}],"m":[15],"c":1,"u":1}`,           // column 15 is off the board
		`{"r":"15x15k5","p":[{},{}],"m":[256],"c":1,"u":1}`,          // no cell
		`{"r":"15x15k5","p":[{},{}],"m":[119,119],"c":1,"u":1}`,      // played twice
		`{"r":"15x15k5","st":"X","p":[{},{}],"m":[119],"c":1,"u":1}`, // wide games have no start position
		`{"r":"16x16k5","p":[{},{}],"c":1,"u":1}`,                    // no engine plays it
	} {
		if _, err := decodeSession("1.a", "1", "2", []byte(bad)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrCorrupt", bad, err)
		}
	}
}
