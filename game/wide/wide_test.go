package wide

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tttbot/ttt-bot/game"
)

// TestAgreesWithGame: on every k-in-a-row board game plays (3x3 to 8x8, k
// up to 6), seeded random games give the same outcome, move by move, with
// the same winning cells, in wide (freestyle) as in game.
func TestAgreesWithGame(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for rows := game.MinSize; rows <= game.MaxSize; rows++ {
		for cols := game.MinSize; cols <= game.MaxSize; cols++ {
			for k := MinK; k <= min(MaxK, max(rows, cols)); k++ {
				gr, err := game.NewRules(rows, cols, k)
				if err != nil {
					t.Fatal(err)
				}
				wr, err := NewRules(rows, cols, k, false)
				if err != nil {
					t.Fatal(err)
				}
				for range 20 {
					gp, wp := game.NewPosition(gr), NewPosition(wr)
					for !gp.Over() {
						free := gp.Moves().Cells()
						c := free[rng.IntN(len(free))]
						gp = gp.Apply(c)
						wp = wp.Apply(NewCell(c.Row(), c.Col()))
						if gp.Outcome().Result != wp.Outcome().Result {
							t.Fatalf("%s %s: game %s, wide %s", gr, gp, gp.Outcome().Result, wp.Outcome().Result)
						}
						var want Set
						for _, gc := range gp.Outcome().Cells.Cells() {
							want.Add(NewCell(gc.Row(), gc.Col()))
						}
						if want != wp.Outcome().Cells {
							t.Fatalf("%s %s: winning cells differ", gr, gp)
						}
					}
					if wp.Over() != true || wp.Moves().Count() != 0 {
						t.Fatalf("%s: wide not over with game", gr)
					}
					back, err := ParsePosition(wr, wp.String())
					if err != nil || back.Outcome().Result != wp.Outcome().Result || back.String() != wp.String() {
						t.Fatalf("%s %s: read back %s, %v", wr, wp.String(), back.String(), err)
					}
				}
			}
		}
	}
}

// play applies moves given as names, failing the test on an illegal one.
func play(t *testing.T, r Rules, moves string) Position {
	t.Helper()
	p := NewPosition(r)
	for _, m := range strings.Fields(moves) {
		c, err := r.ParseCell(m)
		if err != nil {
			t.Fatal(err)
		}
		if p, err = p.Play(c); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// TestOverlines: with exactly k, a run longer than k does not win, a run
// of exactly k does, and a move making both wins by the exact run.
func TestOverlines(t *testing.T) {
	tests := []struct {
		name  string
		rules Rules
		moves string // X a1 b1 c1 d1 f1 then e1 makes six
		want  game.Result
	}{
		{"six, freestyle", Gomoku(), "a1 a3 b1 b3 c1 c3 d1 d4 f1 d5 e1", game.XWins},
		{"six, exact", StandardGomoku(), "a1 a3 b1 b3 c1 c3 d1 d4 f1 d5 e1", game.Ongoing},
		{"five, exact", StandardGomoku(), "a1 a3 b1 b3 c1 c3 d1 d4 e1", game.XWins},
		// e1 makes six on row 1 and five down column e.
		{"six and five, exact", StandardGomoku(), "a1 a9 b1 b9 c1 c9 d1 d9 f1 f9 e2 g9 e3 h9 e4 i11 e5 j11 e1", game.XWins},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := play(t, tt.rules, tt.moves)
			if got := p.Outcome().Result; got != tt.want {
				t.Fatalf("%s", got)
			}
			if tt.want == game.XWins && tt.name == "six and five, exact" {
				cells := p.Outcome().Cells
				for _, c := range cells.Cells() {
					if c.Col() != 4 {
						t.Errorf("winning cells %v: want column e only", cells.Cells())
					}
				}
			}
		})
	}
}

func TestParseRules(t *testing.T) {
	good := map[string]string{
		"15x15k5": "15x15k5", " 15X15K5E ": "15x15k5e", "gomoku": "15x15k5", "standard-gomoku": "15x15k5e",
		"9x9k5": "9x9k5", "3x3k3": "3x3k3", "15x9k6": "15x9k6",
	}
	for in, want := range good {
		r, err := ParseRules(in)
		if err != nil || r.String() != want {
			t.Errorf("ParseRules(%q) = %v, %v; want %s", in, r, err, want)
		}
	}
	for _, in := range []string{"", "15x15", "16x16k5", "15x15k7", "15x15k2", "2x15k3", "x15k5", "15x15k5f", "15x15k", "+5x15k5", "1500x15k5", "4x4k5"} {
		_, err := ParseRules(in)
		if !errors.Is(err, game.ErrBadRules) || !strings.Contains(err.Error(), " be from ") && !strings.Contains(err.Error(), "write rows") {
			t.Errorf("ParseRules(%q): err %v; want a bad-rules error saying what is allowed", in, err)
		}
	}
	if Gomoku().Name() != "gomoku" || StandardGomoku().Name() != "standard gomoku" {
		t.Error("preset names")
	}
}

func TestParseCell(t *testing.T) {
	r := Gomoku()
	for in, want := range map[string]Cell{"h8": NewCell(7, 7), "A1": NewCell(0, 0), "o15": NewCell(14, 14), "7 7": NewCell(7, 7), "14,0": NewCell(14, 0)} {
		if c, err := r.ParseCell(in); err != nil || c != want {
			t.Errorf("ParseCell(%q) = %s, %v; want %s", in, c, err, want)
		}
	}
	for _, in := range []string{"", "p1", "a16", "a0", "h", "15 0", "7", "7 7 7", "h8x", "-1 2"} {
		if _, err := r.ParseCell(in); !errors.Is(err, game.ErrBadCell) || !strings.Contains(err.Error(), "o15") {
			t.Errorf("ParseCell(%q): err %v; want a bad-cell error naming the range", in, err)
		}
	}
}

func TestPlayErrors(t *testing.T) {
	r, _ := NewRules(9, 9, 5, false)
	p := play(t, r, "e5")
	if _, err := p.Play(NewCell(4, 4)); !errors.Is(err, game.ErrCellTaken) {
		t.Errorf("taken: %v", err)
	}
	if _, err := p.Play(NewCell(9, 0)); !errors.Is(err, game.ErrBadCell) {
		t.Errorf("off the board: %v", err)
	}
	won := play(t, r, "a1 a2 b1 b2 c1 c2 d1 d2 e1")
	if _, err := won.Play(NewCell(8, 8)); !errors.Is(err, game.ErrGameOver) {
		t.Errorf("over: %v", err)
	}
	if c, ok := won.Last(); !ok || c.String() != "e1" {
		t.Errorf("last = %s, %v", c, ok)
	}
	if _, ok := NewPosition(r).Last(); ok {
		t.Error("the empty board has a last move")
	}
}

func TestParsePositionErrors(t *testing.T) {
	r, _ := NewRules(5, 5, 3, false)
	for in, want := range map[string]string{
		"-----/-----/-----/-----":       "4 rows",
		"-----/-----/-----/-----/----":  "row 5 has 4 cells",
		"O----/-----/-----/-----/-----": "X moves first",
		"XX---/-----/-----/-----/-----": "at most one mark ahead",
		"XXX--/OO---/O----/-----/-----": "moved after it",
		"XXX--/OOO--/-----/-----/-----": "both X and O",
		"XXz--/-----/-----/-----/-----": "bad character",
	} {
		_, err := ParsePosition(r, in)
		if !errors.Is(err, game.ErrBadPosition) || !strings.Contains(err.Error(), want) {
			t.Errorf("ParsePosition(%q): %v; want %q", in, err, want)
		}
	}
}

func TestRecordRoundTrip(t *testing.T) {
	for _, in := range []string{"15x15k5 h8 i9 h9", "15x15k5e", "5x5k3 X----/-----/-----/-----/----O c3"} {
		rec, err := ParseRecord(in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if rec.String() != in {
			t.Errorf("%q read back as %q", in, rec.String())
		}
	}
	if _, err := ParseRecord("15x15k5 h8 h8"); !errors.Is(err, game.ErrCellTaken) || !strings.Contains(err.Error(), "move 2") {
		t.Errorf("repeated move: %v", err)
	}
}

func FuzzParseRecord(f *testing.F) {
	for _, s := range []string{"15x15k5 h8 i9", "gomoku h8", "5x5k3 X----/-----/-----/-----/----O c3", "9x9k5e a1 b2 c3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rec, err := ParseRecord(s)
		if err != nil {
			return
		}
		again, err := ParseRecord(rec.String())
		if err != nil || again.String() != rec.String() {
			t.Fatalf("%q -> %q -> %v", s, rec.String(), err)
		}
		p := rec.Position()
		if p.Ply() != rec.Start.Ply()+len(rec.Moves) {
			t.Fatalf("ply %d", p.Ply())
		}
	})
}
