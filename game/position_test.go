package game

import (
	"errors"
	"strings"
	"testing"
)

func mustRules(t testing.TB, s string) Rules {
	t.Helper()
	r, err := ParseRules(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustPosition(t testing.TB, rules, s string) Position {
	t.Helper()
	p, err := ParsePosition(mustRules(t, rules), s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParsePosition(t *testing.T) {
	tests := []struct {
		rules, in string
		want      string // String() of the result
		toMove    Mark
		result    Result
		cells     string // winning cells, by name
		err       string
	}{
		{rules: "3x3k3", in: "----X---O", want: "---/-X-/--O", toMove: X},
		{rules: "3x3k3", in: "---/-X-/--O", want: "---/-X-/--O", toMove: X},
		{rules: "3x3k3", in: " x.o/.../... ", want: "X-O/---/---", toMove: X},
		{rules: "3x3k3", in: "X--------", want: "X--/---/---", toMove: O},
		{rules: "3x3k3", in: "XXXOO----", want: "XXX/OO-/---", toMove: O, result: XWins, cells: "a1 b1 c1"},
		{rules: "3x3k3", in: "OOOXX-X--", want: "OOO/XX-/X--", toMove: X, result: OWins, cells: "a1 b1 c1"},
		{rules: "3x3k3", in: "XOXXOOOXX", want: "XOX/XOO/OXX", toMove: O, result: Draw},
		// X completes two lines with one move: a legal double win.
		{rules: "3x3k3", in: "XXX/OXO/XOO", want: "XXX/OXO/XOO", toMove: O, result: XWins, cells: "a1 b1 c1 b2 a3 c1"},
		{rules: "4x3xox", in: "XOX/---/O--/---", want: "XOX/---/O--/---", toMove: X, result: XWins, cells: "a1 b1 c1"},
		{rules: "4x3xox", in: "OXO/-X-/---/---", want: "OXO/-X-/---/---", toMove: X, result: OWins, cells: "a1 b1 c1"},
		{rules: "3x3k3", in: "----X---", err: "has 8 cells; a 3x3 board takes 9 cells"},
		{rules: "3x3k3", in: "----X----O", err: "more than 9 cells"},
		{rules: "3x3k3", in: "---/-X/--O", err: "row 2 has 2 cells"},
		{rules: "3x3k3", in: "---/-X-", err: "has 2 rows"},
		{rules: "3x3k3", in: "---/-Z-/---", err: "bad character 'Z' at cell 5"},
		{rules: "3x3k3", in: "O--------", err: "O has 1 marks and X 0"},
		{rules: "3x3k3", in: "XX-------", err: "X has 2 marks and O 0"},
		{rules: "3x3k3", in: "XXXOOO---", err: "already over before O's last move"},
		{rules: "3x3k3", in: "OOOXX-XX-", err: "already over before X's last move"},
		// Two separate X lines: no single last move made both.
		{rules: "4x4k3", in: "XXXO/OO--/XXXO/O---", err: "already over before X's last move"},
		{rules: "3x3k3", in: "XXXXOOOO-", err: "already over"},
		{rules: "4x3xox", in: "XOX/---/XOX/O-O", err: "already over"},
	}
	for _, tt := range tests {
		t.Run(tt.rules+"/"+tt.in, func(t *testing.T) {
			p, err := ParsePosition(mustRules(t, tt.rules), tt.in)
			if tt.err != "" {
				if !errors.Is(err, ErrBadPosition) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error = %v, want ErrBadPosition containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.String() != tt.want || p.ToMove() != tt.toMove || p.Outcome().Result != tt.result {
				t.Errorf("got %s, %s to move, %s; want %s, %s to move, %s", p, p.ToMove(), p.Outcome().Result, tt.want, tt.toMove, tt.result)
			}
			var want Bitboard
			for _, n := range strings.Fields(tt.cells) {
				c, err := p.Rules().ParseCell(n)
				if err != nil {
					t.Fatal(err)
				}
				want = want.With(c)
			}
			if p.Outcome().Cells != want {
				t.Errorf("winning cells %v, want %v", p.Outcome().Cells.Cells(), want.Cells())
			}
			if p.Over() && p.Moves() != 0 {
				t.Errorf("finished game offers moves %v", p.Moves().Cells())
			}
		})
	}
}

func FuzzParsePosition(f *testing.F) {
	for _, s := range []string{"----X---O", "---/-X-/--O", "XXXOO----", "XOX/---/O--/---", "////", "xo-xo-xo-"} {
		f.Add("3x3k3", s)
		f.Add("4x3xox", s)
	}
	f.Fuzz(func(t *testing.T, rules, s string) {
		r, err := ParseRules(rules)
		if err != nil {
			return
		}
		p, err := ParsePosition(r, s)
		if err != nil {
			if !errors.Is(err, ErrBadPosition) {
				t.Fatalf("error %v does not wrap ErrBadPosition", err)
			}
			return
		}
		back, err := ParsePosition(r, p.String())
		if err != nil || back != p {
			t.Fatalf("%q -> %s does not round-trip: %v", s, p, err)
		}
		if nx, no := p.X().Count(), p.O().Count(); nx != no && nx != no+1 {
			t.Fatalf("%s: impossible counts accepted", p)
		}
	})
}

func TestPlay(t *testing.T) {
	p := NewPosition(Classic())
	moves := []string{"b2", "a1", "c1", "a3", "a2", "c2", "b1", "b3", "c3"}
	for i, m := range moves {
		c, err := p.Rules().ParseCell(m)
		if err != nil {
			t.Fatal(err)
		}
		before := p
		if p, err = p.Play(c); err != nil {
			t.Fatalf("move %d %s: %v", i+1, m, err)
		}
		if before.At(c) != Empty {
			t.Fatalf("Play changed the old position")
		}
	}
	if p.String() != "OXX/XXO/OOX" || p.Outcome().Result != Draw {
		t.Fatalf("after the game: %s %s, want OXX/XXO/OOX draw", p, p.Outcome().Result)
	}
	if _, err := p.Play(NewCell(0, 0)); !errors.Is(err, ErrGameOver) {
		t.Errorf("move after the end: %v, want ErrGameOver", err)
	}
	q := mustPosition(t, "3x3k3", "X--------")
	if _, err := q.Play(NewCell(0, 0)); !errors.Is(err, ErrCellTaken) || !strings.Contains(err.Error(), "a1 (0 0) already holds X") {
		t.Errorf("taken cell: %v", err)
	}
	if _, err := q.Play(NewCell(3, 0)); !errors.Is(err, ErrBadCell) {
		t.Errorf("off-board cell: %v", err)
	}
}

// TestXOX pins the variant's rules: a move can lose for its maker, and a
// move forming both patterns wins for X.
func TestXOX(t *testing.T) {
	tests := []struct {
		name, pos, move string
		want            Result
		cells           Bitboard
	}{
		{"X completes X-O-X", "X-X/-O-/O--/---", "b1", Ongoing, 0}, // X plays b1 between its own: not a pattern
		{"X between two O's loses", "O-O/X--/---/-X-", "b1", OWins, 0b111},
		{"X closes X-O-X", "XO-/--O/---/X--", "c1", XWins, 0b111},
		{"O between two X's loses", "X-X/O--/---/---", "b1", XWins, 0b111},
		{"both patterns at once: X wins", "O-O/-O-/-X-/X-X", "b1", XWins, 1<<1 | 1<<9 | 1<<17},
	}
	r := mustRules(t, "4x3xox")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParsePosition(r, tt.pos)
			if err != nil {
				t.Fatal(err)
			}
			c, _ := r.ParseCell(tt.move)
			q, err := p.Play(c)
			if err != nil {
				t.Fatal(err)
			}
			if q.Outcome().Result != tt.want {
				t.Fatalf("%s after %s %s: %s, want %s", tt.pos, p.ToMove(), tt.move, q.Outcome().Result, tt.want)
			}
			if tt.cells != 0 && q.Outcome().Cells != tt.cells {
				t.Errorf("cells %v, want %v", q.Outcome().Cells.Cells(), tt.cells.Cells())
			}
			// The full-board scan must agree with the incremental check.
			if full := r.outcomeOf(q.X(), q.O()); full.Result != q.Outcome().Result || full.Cells != q.Outcome().Cells {
				t.Errorf("scan says %v, incremental %v", full, q.Outcome())
			}
		})
	}
}

func TestOpenings(t *testing.T) {
	r := mustRules(t, "4x3xox")
	ops := r.Openings()
	// Count ordered pairs of non-neighbouring cells by brute force.
	want := 0
	for a := range 12 {
		for b := range 12 {
			dr, dc := a/3-b/3, a%3-b%3
			if max(dr, -dr) > 1 || max(dc, -dc) > 1 {
				want++
			}
		}
	}
	if len(ops) != want || want == 0 {
		t.Fatalf("%d openings, want %d", len(ops), want)
	}
	for _, p := range ops {
		if p.ToMove() != X || p.X().Count() != 1 || p.O().Count() != 1 || p.Over() {
			t.Fatalf("bad opening %s", p)
		}
		if _, err := ParsePosition(r, p.String()); err != nil {
			t.Fatalf("opening %s does not parse: %v", p, err)
		}
	}
	if Classic().Openings() != nil {
		t.Error("k-in-a-row rules have X-O-X openings")
	}
}

// TestThreatsMatchesBruteForce checks Threats against playing every free
// cell, on every reachable 3x3 position and a sample of larger boards.
func TestThreatsMatchesBruteForce(t *testing.T) {
	for _, rules := range []string{"3x3k3", "4x3xox", "5x5k4"} {
		r := mustRules(t, rules)
		seen := map[Key]struct{}{}
		n := 0
		var rec func(p Position, depth int)
		rec = func(p Position, depth int) {
			if _, ok := seen[p.Key()]; ok || depth > 5 {
				return
			}
			seen[p.Key()] = struct{}{}
			n++
			for _, side := range []Mark{X, O} {
				var want Bitboard
				if !p.Over() {
					for c := p.Empty(); c != 0; c &= c - 1 {
						x, o := p.X(), p.O()
						if side == X {
							x = x.With(c.First())
						} else {
							o = o.With(c.First())
						}
						if r.outcomeAfter(x, o, c.First(), side).Winner() == side {
							want = want.With(c.First())
						}
					}
				}
				if got := p.Threats(side); got != want {
					t.Fatalf("%s %s: Threats(%s) = %v, want %v", rules, p, side, got.Cells(), want.Cells())
				}
			}
			for m := p.Moves(); m != 0; m &= m - 1 {
				rec(p.Apply(m.First()), depth+1)
			}
		}
		rec(NewPosition(r), 0)
		if n < 1000 && rules != "3x3k3" {
			t.Fatalf("%s: only %d positions checked", rules, n)
		}
	}
}

func TestDiagram(t *testing.T) {
	p := mustPosition(t, "4x3xox", "X--/-O-/---/--X")
	want := "   a b c\n 1 X . .\n 2 . O .\n 3 . . .\n 4 . . X\n"
	if got := p.Diagram(); got != want {
		t.Errorf("Diagram:\n%s\nwant:\n%s", got, want)
	}
}
