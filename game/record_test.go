package game

import (
	"errors"
	"strings"
	"testing"
)

func TestParseRecord(t *testing.T) {
	tests := []struct {
		in    string
		want  string // String() of the result, "" when an error is expected
		final string // the last position
		err   error
	}{
		{in: "3x3k3", want: "3x3k3", final: "---/---/---"},
		{in: "3x3k3 b2 a1 c3", want: "3x3k3 b2 a1 c3", final: "O--/-X-/--X"},
		{in: "  3X3K3,b2,  A1\tc3 ", want: "3x3k3 b2 a1 c3", final: "O--/-X-/--X"},
		{in: "3x3k3 X--/-O-/--- c3", want: "3x3k3 X--/-O-/--- c3", final: "X--/-O-/--X"},
		{in: "3x3k3 x---o---- c3", want: "3x3k3 X--/-O-/--- c3", final: "X--/-O-/--X"},
		{in: "4x3xox b2 a1", want: "4x3xox b2 a1", final: "O--/-X-/---/---"},
		{in: "3x3k3 a1 b1 a2 b2 a3", want: "3x3k3 a1 b1 a2 b2 a3", final: "XO-/XO-/X--"},
		{in: "", err: ErrBadRules},
		{in: "b2 a1", err: ErrBadRules},
		{in: "3x3k3 b2 b2", err: ErrCellTaken},
		{in: "3x3k3 d4", err: ErrBadCell},
		{in: "3x3k3 zz", err: ErrBadCell},
		{in: "3x3k3 a1 b1 a2 b2 a3 c3", err: ErrGameOver},
		{in: "3x3k3 XX-/---/--- a1", err: ErrBadPosition},
		{in: "3x3k3 ----", err: ErrBadPosition},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			r, err := ParseRecord(tt.in)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("ParseRecord(%q) error %v, want %v", tt.in, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseRecord(%q): %v", tt.in, err)
			}
			if got := r.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			if got := r.Position().String(); got != tt.final {
				t.Errorf("Position() = %q, want %q", got, tt.final)
			}
			if !LooksLikeRecord(tt.in) {
				t.Errorf("LooksLikeRecord(%q) = false", tt.in)
			}
		})
	}
}

func TestRecordErrorsSayWhichMove(t *testing.T) {
	_, err := ParseRecord("3x3k3 b2 a1 b2")
	if err == nil || !strings.Contains(err.Error(), "move 3") {
		t.Fatalf("error %v does not name move 3", err)
	}
}

func TestLooksLikeRecord(t *testing.T) {
	for in, want := range map[string]bool{
		"3x3k3 b2": true, "5x5k4": true, "X--/---/---": false, "": false, "b2 a1": false, "x--------": false,
	} {
		if got := LooksLikeRecord(in); got != want {
			t.Errorf("LooksLikeRecord(%q) = %v, want %v", in, got, want)
		}
	}
}

func FuzzParseRecord(f *testing.F) {
	for _, s := range []string{"3x3k3 b2 a1 c3", "4x4k3 X---/-O--/----/---- c3 d4", "4x3xox a1", "5x5k4", "3x3k3 zz", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRecord(s)
		if err != nil {
			return
		}
		again, err := ParseRecord(r.String())
		if err != nil {
			t.Fatalf("ParseRecord(%q) of String() %q: %v", s, r.String(), err)
		}
		if again.String() != r.String() || again.Position().Key() != r.Position().Key() {
			t.Fatalf("round trip of %q: %q then %q", s, r.String(), again.String())
		}
	})
}
