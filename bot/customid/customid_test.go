package customid

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

func TestCustomIDRoundTrip(t *testing.T) {
	s := testSigner(t)
	long := persistence.GameID(strings.Repeat("9", 20) + "." + strings.Repeat("z", 32))
	tests := []ID{
		{Action: ActionMove, Game: testGame, Move: 0, Cell: game.NewCell(0, 0)},
		{Action: ActionMove, Game: testGame, Move: 7, Cell: game.NewCell(4, 4)},
		{Action: ActionMove, Game: testGame, Move: MaxMoveNumber, Cell: game.NewCell(7, 7)},
		{Action: ActionMove, Game: long, Move: 63, Cell: game.NewCell(2, 1)},
		{Action: ActionResign, Game: testGame, Move: 3},
		{Action: ActionRematch, Game: testGame, Move: 9},
		{Action: ActionAccept, Game: testGame},
		{Action: ActionDecline, Game: testGame},
		{Action: ActionCancel, Game: testGame},
		{Action: ActionJoin, Game: "1.x"},
		{Action: ActionReplay, Game: testGame},
		{Action: ActionReview, Game: long},
		{Action: ActionFirst, Game: long, Move: 25, Owner: strings.Repeat("9", 20)},
		{Action: ActionBack, Game: testGame, Move: 3, Owner: "1"},
		{Action: ActionNext, Game: testGame, Owner: "42"},
		{Action: ActionLast, Game: testGame, Move: 64, Owner: "42"},
		{Action: ActionHistory, Game: HistoryRef{User: strings.Repeat("9", 20), Rules: "5x5k4"}.ID(), Move: 19, Owner: strings.Repeat("8", 20)},
		{Action: ActionHistory, Game: HistoryRef{User: "7"}.ID(), Owner: "7"},
	}
	for _, id := range tests {
		t.Run(fmt.Sprintf("%s-%d-%s", id.Action, id.Move, id.Cell), func(t *testing.T) {
			enc, err := s.Encode(id)
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			if len(enc) > MaxCustomIDLen {
				t.Errorf("%q is %d characters", enc, len(enc))
			}
			got, err := s.Decode(enc)
			if err != nil {
				t.Fatalf("Decode(%q): %v", enc, err)
			}
			if got != id {
				t.Errorf("Decode(Encode(%+v)) = %+v", id, got)
			}
		})
	}
}

func TestCustomIDFormat(t *testing.T) {
	s := testSigner(t)
	got, err := s.Encode(ID{Action: ActionMove, Game: testGame, Move: 4, Cell: game.NewCell(1, 2)})
	if err != nil {
		t.Fatal(err)
	}
	// The signature is pinned so a change of format or key handling shows.
	const want = "t1:m:112233445566778899.abcdefghijklm:4:c2:"
	if !strings.HasPrefix(got, want) || len(got) != len(want)+12 {
		t.Errorf("Encode = %q, want %q and a 12-character signature", got, want)
	}
}

func TestCustomIDRejects(t *testing.T) {
	s := testSigner(t)
	other, err := NewSigner([]byte("another key, also long enough!!"))
	if err != nil {
		t.Fatal(err)
	}
	good, err := s.Encode(ID{Action: ActionMove, Game: testGame, Move: 4, Cell: game.NewCell(1, 2)})
	if err != nil {
		t.Fatal(err)
	}
	fromOther, err := other.Encode(ID{Action: ActionMove, Game: testGame, Move: 4, Cell: game.NewCell(1, 2)})
	if err != nil {
		t.Fatal(err)
	}
	body, sig := good[:strings.LastIndexByte(good, ':')], good[strings.LastIndexByte(good, ':')+1:]
	// resign signs body fields with s, for checks past the signature.
	resign := func(fields string) string { return fields + ":" + s.sign(fields) }
	tests := []struct {
		name string
		in   string
		want error
	}{
		{"empty", "", ErrMalformed},
		{"no signature", body, ErrMalformed},
		{"other key", fromOther, ErrForged},
		{"move changed", strings.Replace(good, ":4:", ":5:", 1), ErrForged},
		{"cell changed", strings.Replace(good, ":c2:", ":c3:", 1), ErrForged},
		{"game changed", strings.Replace(good, "abcdefghijklm", "abcdefghijkln", 1), ErrForged},
		{"signature truncated", good[:len(good)-1], ErrForged},
		{"signature flipped", body + ":" + strings.ToUpper(sig[:1]) + strings.ToLower(sig[1:]) + "x", ErrForged},
		{"other prefix", strings.Replace(good, "t1:", "t2:", 1), ErrMalformed},
		{"extra field", body + ":x:" + sig, ErrMalformed},
		{"too long", good + strings.Repeat("a", MaxCustomIDLen), ErrMalformed},
		{"signed bad action", resign("t1:z:1.a:0:-"), ErrMalformed},
		{"signed leading zero", resign("t1:m:1.a:04:c2"), ErrMalformed},
		{"signed negative move", resign("t1:m:1.a:-1:c2"), ErrMalformed},
		{"signed big move", resign("t1:m:1.a:1000:c2"), ErrMalformed},
		{"signed cell off grid", resign("t1:m:1.a:0:i1"), ErrMalformed},
		{"signed upper-case cell", resign("t1:m:1.a:0:C2"), ErrMalformed},
		{"signed missing cell", resign("t1:m:1.a:0:-"), ErrMalformed},
		{"signed cell on resign", resign("t1:r:1.a:0:c2"), ErrMalformed},
		{"signed game without dot", resign("t1:r:abc:0:-"), ErrMalformed},
		{"signed game with space", resign("t1:r:1 .a:0:-"), ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Decode(tt.in)
			if !errors.Is(err, tt.want) {
				t.Errorf("Decode(%q) = %+v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestCustomIDEncodeRejects(t *testing.T) {
	s := testSigner(t)
	tests := []struct {
		name string
		id   ID
		want error
	}{
		{"no action", ID{Game: testGame}, ErrMalformed},
		{"bad action", ID{Action: 99, Game: testGame}, ErrMalformed},
		{"negative move", ID{Action: ActionResign, Game: testGame, Move: -1}, ErrMalformed},
		{"move too big", ID{Action: ActionResign, Game: testGame, Move: MaxMoveNumber + 1}, ErrMalformed},
		{"cell off grid", ID{Action: ActionMove, Game: testGame, Cell: 64}, ErrMalformed},
		{"cell on resign", ID{Action: ActionResign, Game: testGame, Cell: 3}, ErrMalformed},
		{"colon in game", ID{Action: ActionResign, Game: "1:2.a"}, ErrMalformed},
		{"no game", ID{Action: ActionResign}, ErrMalformed},
		{"game too long", ID{Action: ActionMove, Game: persistence.GameID(strings.Repeat("1", 64) + ".abcdefghijklm")}, ErrTooLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := s.Encode(tt.id); !errors.Is(err, tt.want) {
				t.Errorf("Encode(%+v) = %q, %v; want %v", tt.id, got, err, tt.want)
			}
		})
	}
}

func TestNewSignerShortKey(t *testing.T) {
	if _, err := NewSigner(make([]byte, MinKeyLen-1)); !errors.Is(err, ErrShortKey) {
		t.Errorf("NewSigner(15 bytes) = %v, want ErrShortKey", err)
	}
	key := []byte(string(testKey))
	s, err := NewSigner(key)
	if err != nil {
		t.Fatal(err)
	}
	id := ID{Action: ActionJoin, Game: testGame}
	before, _ := s.Encode(id)
	key[0] ^= 1 // the signer keeps its own copy
	if after, _ := s.Encode(id); after != before {
		t.Errorf("changing the caller's key slice changed the signature")
	}
}

// FuzzDecodeCustomID feeds arbitrary text to Decode: it must not panic,
// and whatever it accepts must be exactly what Encode writes.
func FuzzDecodeCustomID(f *testing.F) {
	s := testSigner(f)
	for _, id := range []ID{
		{Action: ActionMove, Game: testGame, Move: 3, Cell: game.NewCell(2, 2)},
		{Action: ActionRematch, Game: testGame, Move: 9},
		{Action: ActionJoin, Game: "1.a"},
	} {
		enc, err := s.Encode(id)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(enc)
		f.Add(enc[:len(enc)-3])
	}
	f.Add("t1:m:1.a:0:a1:AAAAAAAAAAAA")
	f.Add(":::::")
	f.Fuzz(func(t *testing.T, in string) {
		id, err := s.Decode(in)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrForged) {
				t.Fatalf("Decode(%q) error %v wraps neither sentinel", in, err)
			}
			return
		}
		back, err := s.Encode(id)
		if err != nil || back != in {
			t.Fatalf("Decode(%q) = %+v, but Encode gives %q, %v", in, id, back, err)
		}
	})
}

// FuzzCustomIDRoundTrip encodes arbitrary fields: Encode either refuses
// them or produces an ID of at most 100 characters that decodes to them.
func FuzzCustomIDRoundTrip(f *testing.F) {
	s := testSigner(f)
	f.Add(uint8(ActionMove), string(testGame), 4, uint8(10))
	f.Add(uint8(ActionCancel), "1.a", 0, uint8(0))
	f.Add(uint8(ActionMove), "a:b.c", 1, uint8(70))
	f.Fuzz(func(t *testing.T, action uint8, gameID string, move int, cell uint8) {
		id := ID{Action: Action(action), Game: persistence.GameID(gameID), Move: move, Cell: game.Cell(cell)}
		enc, err := s.Encode(id)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrTooLong) {
				t.Fatalf("Encode(%+v): unexpected error %v", id, err)
			}
			return
		}
		if len(enc) > MaxCustomIDLen {
			t.Fatalf("Encode(%+v) = %q, %d characters", id, enc, len(enc))
		}
		got, err := s.Decode(enc)
		if err != nil || got != id {
			t.Fatalf("Decode(Encode(%+v)) = %+v, %v", id, got, err)
		}
	})
}

func BenchmarkCustomIDDecode(b *testing.B) {
	s := testSigner(b)
	enc, err := s.Encode(ID{Action: ActionMove, Game: testGame, Move: 4, Cell: game.NewCell(1, 2)})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Decode(enc); err != nil {
			b.Fatal(err)
		}
	}
}

func ExampleSigner() {
	s, err := NewSigner([]byte("use 32 random bytes from config!"))
	if err != nil {
		panic(err)
	}
	id, _ := s.Encode(ID{Action: ActionMove, Game: "112233445566778899.abcdefghijklm", Move: 4, Cell: game.NewCell(1, 2)})
	fmt.Println(id[:strings.LastIndexByte(id, ':')])
	got, err := s.Decode(id)
	fmt.Println(got.Action, got.Game, got.Move, got.Cell, err)
	_, err = s.Decode(strings.Replace(id, ":4:", ":5:", 1))
	fmt.Println(err)
	// Output:
	// t1:m:112233445566778899.abcdefghijklm:4:c2
	// move 112233445566778899.abcdefghijklm 4 c2 <nil>
	// customid: custom ID signature mismatch
}

// TestCustomIDOwner: the step and page buttons carry their owner, the
// others cannot, and a forged or missing owner does not decode.
func TestCustomIDOwner(t *testing.T) {
	s := testSigner(t)
	bad := []ID{
		{Action: ActionNext, Game: testGame},                                    // no owner
		{Action: ActionNext, Game: testGame, Owner: "alice"},                    // not an ID
		{Action: ActionHistory, Game: testGame, Owner: "123456789012345678901"}, // 21 digits
		{Action: ActionReplay, Game: testGame, Owner: "42"},                     // Replay is for anyone
		{Action: ActionMove, Game: testGame, Cell: 1, Owner: "42"},              // a board's button
	}
	for _, id := range bad {
		if enc, err := s.Encode(id); !errors.Is(err, ErrMalformed) {
			t.Errorf("Encode(%+v) = %q, %v; want ErrMalformed", id, enc, err)
		}
	}
	resign := func(fields string) string { return fields + ":" + s.sign(fields) }
	for _, raw := range []string{
		resign("t1:x:" + string(testGame) + ":1:-"),
		resign("t1:x:" + string(testGame) + ":1:a1"),
		resign("t1:p:" + string(testGame) + ":0:42"),
	} {
		if id, err := s.Decode(raw); !errors.Is(err, ErrMalformed) {
			t.Errorf("Decode(%q) = %+v, %v; want ErrMalformed", raw, id, err)
		}
	}
}

func TestHistoryRef(t *testing.T) {
	tests := []struct {
		ref HistoryRef
		id  persistence.GameID
	}{
		{HistoryRef{User: "42"}, "42.all"},
		{HistoryRef{User: "42", Rules: "4x3xox"}, "42.4x3xox"},
		{HistoryRef{User: "112233445566778899", Rules: "5x5k4"}, "112233445566778899.5x5k4"},
	}
	for _, tt := range tests {
		if got := tt.ref.ID(); got != tt.id {
			t.Errorf("%+v.ID() = %q, want %q", tt.ref, got, tt.id)
		}
		back, err := ParseHistoryRef(tt.id)
		if err != nil || back != tt.ref {
			t.Errorf("ParseHistoryRef(%q) = %+v, %v", tt.id, back, err)
		}
	}
	for _, id := range []persistence.GameID{"42", "x.all", "42.9x9k9", "42.", ".all"} {
		if _, err := ParseHistoryRef(id); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseHistoryRef(%q) = %v, want ErrMalformed", id, err)
		}
	}
}

// testKey is the HMAC key of the tests' Signer (the bot's tests use the
// same one).
var testKey = []byte("0123456789abcdef0123456789abcdef")

const testGame = persistence.GameID("112233445566778899.abcdefghijklm")

func testSigner(t testing.TB) *Signer {
	t.Helper()
	s, err := NewSigner(testKey)
	if err != nil {
		t.Fatalf("NewSigner: %v", err)
	}
	return s
}
