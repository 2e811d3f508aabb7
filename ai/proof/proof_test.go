package proof

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
)

// readCert reads a certificate from testdata as text.
func readCert(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// check parses and verifies a certificate's text.
func check(text string) (Report, error) {
	c, err := Parse(strings.NewReader(text))
	if err != nil {
		return Report{}, err
	}
	return Verify(context.Background(), c)
}

func TestVerifyAccepts(t *testing.T) {
	tests := []struct {
		file  string
		value string
	}{
		{"3x3k3.proof", "draw"},
		{"4x4k3.proof", "Xwins"},
		{"5x5k5.proof", "draw"},
		{"6x5k5.proof", "draw"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			text := readCert(t, tt.file)
			if !strings.Contains(text, "\nvalue "+tt.value+"\n") {
				t.Fatalf("testdata %s does not claim %s", tt.file, tt.value)
			}
			rep, err := check(text)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Positions == 0 {
				t.Errorf("nothing checked: %+v", rep)
			}
		})
	}
}

// TestWriteRoundTrip: Write gives back the text Parse read (testdata is
// as Write writes it).
func TestWriteRoundTrip(t *testing.T) {
	for _, f := range []string{"3x3k3.proof", "4x4k3.proof", "5x5k5.proof", "6x5k5.proof"} {
		text := readCert(t, f)
		c, err := Parse(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := Write(&b, c); err != nil {
			t.Fatal(err)
		}
		if b.String() != text {
			t.Errorf("%s: Write does not give back the file", f)
		}
	}
}

// entries returns the lines of text that start with prefix.
func entries(text, prefix string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

// TestVerifyRefusesDoctored: a certificate with one pairing removed, or one
// reply changed, no longer proves its value.
func TestVerifyRefusesDoctored(t *testing.T) {
	t.Run("pairing removed", func(t *testing.T) {
		for _, f := range []string{"3x3k3.proof", "5x5k5.proof", "6x5k5.proof"} {
			text := readCert(t, f)
			pairs := entries(text, "pairs ")
			if len(pairs) == 0 {
				t.Fatalf("%s has no pairing", f)
			}
			for i, p := range pairs {
				if i >= 20 {
					break
				}
				_, err := check(strings.Replace(text, p+"\n", "", 1))
				if !errors.Is(err, ErrInvalid) {
					t.Errorf("%s without %q: err = %v, want it refused", f, p, err)
				}
			}
		}
	})
	t.Run("reply changed", func(t *testing.T) {
		// After X takes the centre, O must take a corner: an edge loses.
		text := readCert(t, "3x3k3.proof")
		bad := strings.Replace(text, "move 200 0 a1\n", "move 200 0 b1\n", 1)
		if bad == text {
			t.Fatal("testdata 3x3k3.proof has no reply a1 to the centre")
		}
		_, err := check(bad)
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("err = %v, want it refused", err)
		}
	})
	t.Run("reply on a taken cell", func(t *testing.T) {
		text := readCert(t, "5x5k5.proof")
		bad := strings.Replace(text, "move 0 0 c3\n", "move 0 0 zz\n", 1)
		if _, err := check(bad); !errors.Is(err, ErrFormat) {
			t.Errorf("bad cell: err = %v, want a format error", err)
		}
		text = readCert(t, "4x4k3.proof")
		moves := entries(text, "move ")
		f := strings.Fields(moves[len(moves)-1])
		k, err := parseKey(mustRules(t, "4x4k3"), f[1], f[2])
		if err != nil {
			t.Fatal(err)
		}
		taken := (k.X | k.O).First()
		bad = strings.Replace(text, moves[len(moves)-1], strings.Join(f[:3], " ")+" "+taken.String(), 1)
		if _, err := check(bad); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "not a free cell") {
			t.Errorf("move on a taken cell: err = %v, want it refused", err)
		}
	})
	t.Run("value changed", func(t *testing.T) {
		text := strings.Replace(readCert(t, "3x3k3.proof"), "value draw", "value Xwins", 1)
		if _, err := check(text); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `needs the proof "win X"`) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("one hold only", func(t *testing.T) {
		text := readCert(t, "5x5k5.proof")
		i := strings.Index(text, "proof hold X")
		text = text[:i] + "end\n"
		if _, err := check(text); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `"hold X", which is missing`) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("win claimed for a draw", func(t *testing.T) {
		text := "ttt-proof 1\nrules 3x3k3\nposition ---/---/---\nvalue Xwins\nproof win X\nmove 0 0 b2\nend\n"
		if _, err := check(text); !errors.Is(err, ErrInvalid) {
			t.Errorf("err = %v", err)
		}
	})
}

func mustRules(t *testing.T, s string) game.Rules {
	t.Helper()
	r, err := game.ParseRules(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestParseErrors(t *testing.T) {
	head := "ttt-proof 1\nrules 3x3k3\nposition ---/---/---\nvalue draw\n"
	tests := []struct {
		name, text, want string
	}{
		{"empty", "", "header is incomplete"},
		{"not a certificate", "hello\n", `the first line must be "ttt-proof 1"`},
		{"version", "ttt-proof 2\n", `format version "2"; this checker reads version 1`},
		{"bad rules", "ttt-proof 1\nrules 3x3k9\n", "line 2"},
		{"xox", "ttt-proof 1\nrules 4x3xox\n", "k-in-a-row games only"},
		{"bad position", "ttt-proof 1\nrules 3x3k3\nposition xx\n", "line 3"},
		{"bad value", "ttt-proof 1\nrules 3x3k3\nposition ---/---/---\nvalue win\n", "Xwins, Owins or draw"},
		{"truncated", head + "proof hold O\n", "truncated"},
		{"entry first", head + "move 0 0 b2\nend\n", `before any "proof" line`},
		{"bad proof", head + "proof lose X\nend\n", `proof kind "lose"`},
		{"bad side", head + "proof hold Z\nend\n", `proof side "Z"`},
		{"twice", head + "proof hold O\nproof hold O\nend\n", "a second"},
		{"bad hex", head + "proof hold O\nmove 0 zz b2\nend\n", "hexadecimal"},
		{"off board", head + "proof hold O\nmove 8 0 b2\nend\n", "off the 3x3k3 board"},
		{"overlap", head + "proof hold O\nmove 1 1 b2\nend\n", "two marks on one cell"},
		{"cell off board", head + "proof hold O\nmove 0 0 d1\nend\n", `cell "d1"`},
		{"two moves", head + "proof hold O\nmove 0 0 b2 c3\nend\n", "names one cell"},
		{"odd pairing", head + "proof hold O\npairs 0 0 a1 a2 a3\nend\n", "two by two"},
		{"pairing in a win", "ttt-proof 1\nrules 3x3k3\nposition ---/---/---\nvalue Xwins\nproof win X\npairs 0 0 a1 a2\nend\n", "belong to hold proofs"},
		{"duplicate", head + "proof hold O\nmove 0 0 b2\nmove 0 0 a1\nend\n", "a second move"},
		{"after end", head + "end\nmove 0 0 b2\n", `after "end"`},
		{"unknown", head + "frobnicate\nend\n", `unknown item "frobnicate"`},
		{"long line", head + strings.Repeat("a", 5000) + "\n", "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.text))
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want ErrFormat with %q", err, tt.want)
			}
		})
	}
}

func TestVerifyErrors(t *testing.T) {
	head := "ttt-proof 1\nrules 3x3k3\nposition ---/---/---\nvalue draw\n"
	tests := []struct {
		name, text, want string
	}{
		{"no reply", head + "proof hold O\nproof hold X\nend\n", "names no reply for O"},
		{"bad pairing", head + "proof hold O\npairs 0 0 a1 a2\nproof hold X\nend\n", "leaves the line"},
		{"pair reused", head + "proof hold O\npairs 0 0 a1 a2 a1 a3\nproof hold X\nend\n", "twice"},
		{"extra proof", "ttt-proof 1\nrules 4x4k3\nposition ----/----/----/----\nvalue Xwins\nproof win X\nproof hold O\nend\n", "exactly the proofs"},
		{"over", "ttt-proof 1\nrules 3x3k3\nposition xxx/oo-/---\nvalue draw\nend\n", "the game is over"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := check(tt.text)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want ErrInvalid with %q", err, tt.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"3x3k3.proof", "4x4k3.proof", "5x5k5.proof"} {
		f.Add(readCert(f, name))
	}
	f.Add("ttt-proof 1\nrules 3x3k3\nposition ---/---/---\nvalue draw\nproof hold O\npairs 0 0 a1 a2\nend\n")
	f.Fuzz(func(t *testing.T, text string) {
		c, err := Parse(strings.NewReader(text))
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v does not wrap ErrFormat", err)
			}
			return
		}
		var b bytes.Buffer
		if err := Write(&b, c); err != nil {
			t.Fatal(err)
		}
		c2, err := Parse(&b)
		if err != nil {
			t.Fatalf("Parse of Write's output: %v\n%s", err, b.String())
		}
		if c2.Position.String() != c.Position.String() || !c2.Position.Rules().Equal(c.Position.Rules()) || c2.Value != c.Value || len(c2.Proofs) != len(c.Proofs) {
			t.Fatalf("round trip changed the certificate")
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if _, err := Verify(ctx, c); err != nil && !errors.Is(err, ErrInvalid) && !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Verify: %v does not wrap ErrInvalid", err)
		}
	})
}
