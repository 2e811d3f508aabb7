package chart

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"math/bits"
	"strings"
	"testing"

	goldenfile "github.com/tttbot/ttt-bot/internal/golden"
)

// golden compares a PNG with testdata/name.png pixel by pixel, rewriting
// the file first with -update (package golden).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.EqualPNG(t, name+".png", got)
}

// seedOrder returns the seeds of a bracket of size places (a power of two
// from 2) from top to bottom, so that seeds 1 and 2 can meet only in the
// final: 1 8 4 5 2 7 3 6 for 8.
func seedOrder(size int) []int {
	order := []int{1, 2}
	for len(order) < size {
		next := make([]int, 0, 2*len(order))
		for _, s := range order {
			next = append(next, s, 2*len(order)+1-s)
		}
		order = next
	}
	return order
}

var seedNames = []string{"ALICE", "BOB", "CAROL", "DAVE", "ERIN", "FRANK", "GRACE", "HEIDI",
	"IVAN", "JUDY", "KEN", "LIAM", "MIA", "NOAH", "OLGA", "PETE"}

// seedLabel is how the bot labels a seed: its number and, for the first
// 16, a name; 0 is no one.
func seedLabel(seed int) string {
	switch {
	case seed == 0:
		return ""
	case seed <= len(seedNames):
		return fmt.Sprintf("#%d %s", seed, seedNames[seed-1])
	}
	return fmt.Sprintf("#%d", seed)
}

// tournament plays a bracket of size places for seeds 1 to players (the
// rest byes) over its first rounds rounds, each label written out. A
// match is played when decided says so and both players are known: the
// better seed wins unless the seeds' product is 3 more than a multiple
// of 7 (an upset), 2-0 or, when the product is a multiple of 3, 2-1.
func tournament(title string, size, players, rounds int, decided func(r, j int) bool) Bracket {
	cur := seedOrder(size)
	for i, s := range cur {
		if s > players {
			cur[i] = 0
		}
	}
	b := Bracket{Title: title}
	for r := range rounds {
		ms := make([]Match, len(cur)/2)
		next := make([]int, len(ms))
		for j := range ms {
			a, c := cur[2*j], cur[2*j+1]
			m := Match{Top: seedLabel(a), Bottom: seedLabel(c)}
			switch {
			case a != 0 && c != 0 && decided(r, j):
				lose := "0"
				if a*c%3 == 0 {
					lose = "1"
				}
				if (a < c) != (a*c%7 == 3) {
					m.Winner, m.TopScore, m.BottomScore, next[j] = 1, "2", lose, a
				} else {
					m.Winner, m.TopScore, m.BottomScore, next[j] = 2, lose, "2", c
				}
			case r == 0 && c == 0:
				next[j] = a // a walkover
			case r == 0 && a == 0:
				next[j] = c
			}
			ms[j] = m
		}
		b.Rounds = append(b.Rounds, ms)
		cur = next
	}
	return b
}

func always(int, int) bool { return true }

// bracket6 is 6 players in a bracket of 8: seeds 1 and 2 have byes (one
// written "BYE", one left empty), seed 5 has beaten seed 4, and seeds 3
// and 6 have still to play. Round 1 is drawn up with empty labels, filled
// in with the winners known; the final is left out.
func bracket6() Bracket {
	return Bracket{
		Title: "Spring cup",
		Rounds: [][]Match{
			{
				{Top: "#1 ALICE", Bottom: "BYE"},
				{Top: "#4 DAVE", Bottom: "#5 ERIN", TopScore: "1", BottomScore: "2", Winner: 2},
				{Top: "#2 BOB"},
				{Top: "#3 CAROL", Bottom: "#6 FRANK"},
			},
			{{}, {}},
		},
	}
}

// bracket64 is 64 players half-way: the first three rounds played, two of
// the four matches of round 4, and the last two rounds not drawn up.
func bracket64() Bracket {
	return tournament("Open 64", 64, 64, 4, func(r, j int) bool { return r < 3 || j%2 == 0 })
}

func TestBracketGolden(t *testing.T) {
	tests := []struct {
		name string
		b    Bracket
	}{
		{"bracket_2", Bracket{Title: "Final", Rounds: [][]Match{{
			{Top: "#1 ALICE", Bottom: "#2 BOB", TopScore: "2", BottomScore: "1", Winner: 1},
		}}}},
		{"bracket_6_byes", bracket6()},
		{"bracket_8_finished", tournament("Club championship", 8, 8, 3, always)},
		{"bracket_64_half", bracket64()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := BracketPNG(tt.b)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name, got)
		})
	}
}

func TestBracketErrors(t *testing.T) {
	four := func() [][]Match { return tournament("", 4, 4, 2, always).Rounds }
	tests := []struct {
		name   string
		rounds [][]Match
		want   string
	}{
		{"no rounds", nil, "no rounds"},
		{"empty first round", [][]Match{{}}, "round 0 has 0 matches"},
		{"three first matches", [][]Match{make([]Match, 3)}, "round 0 has 3 matches"},
		{"a bracket of 128", [][]Match{make([]Match, 64)}, "round 0 has 64 matches"},
		{"too many rounds", append(four(), []Match{{}}), "3 rounds; a bracket of 4 has 2"},
		{"second round too long", [][]Match{make([]Match, 4), make([]Match, 3)}, "round 1 has 3 matches; want 2"},
		{"final missing its match", [][]Match{make([]Match, 2), {}}, "round 1 has 0 matches; want 1"},
		{"winner 3", [][]Match{{{Top: "A", Bottom: "B", Winner: 3}}}, "round 0 match 0: winner 3"},
		{"winner -1", func() [][]Match { r := four(); r[1][0].Winner = -1; return r }(), "round 1 match 0: winner -1"},
		{"winner a bye", [][]Match{{{Top: "A", Bottom: "BYE", Winner: 2}}}, "winner 2 is a bye"},
		{"winner an empty bye", [][]Match{{{Bottom: "B", Winner: 1}}}, "winner 1 is a bye"},
		{"winner not known", [][]Match{
			{{Top: "A", Bottom: "B"}, {Top: "C", Bottom: "D", Winner: 1}},
			{{Bottom: "C", Winner: 1}},
		}, "round 1 match 0: winner 1 is not known yet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := BracketPNG(Bracket{Rounds: tt.rounds})
			if !errors.Is(err, ErrBracket) || b != nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("BracketPNG = %d bytes, %v; want ErrBracket with %q", len(b), err, tt.want)
			}
		})
	}
}

// TestBracketResolve checks what is drawn in the 6-player bracket: the
// byes, the walkovers, and round 1 filled in from the known winners.
func TestBracketResolve(t *testing.T) {
	rounds, err := resolve(bracket6())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for r, ms := range rounds {
		for j, m := range ms {
			got = append(got, fmt.Sprintf("%d.%d %q%v %q%v w%d", r, j,
				m.sides[0].label, m.sides[0].bye, m.sides[1].label, m.sides[1].bye, m.winner))
		}
	}
	want := []string{
		`0.0 "#1 ALICE"false "BYE"true w1`,
		`0.1 "#4 DAVE"false "#5 ERIN"false w2`,
		`0.2 "#2 BOB"false ""true w1`,
		`0.3 "#3 CAROL"false "#6 FRANK"false w0`,
		`1.0 "#1 ALICE"false "#5 ERIN"false w0`,
		`1.1 "#2 BOB"false ""false w0`,
		`2.0 ""false ""false w0`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("resolved:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestBracketDeterministic draws each bracket twice, the second time from
// a copy: equal input gives equal bytes.
func TestBracketDeterministic(t *testing.T) {
	for _, b := range []Bracket{bracket6(), bracket64()} {
		first, err := BracketPNG(b)
		if err != nil {
			t.Fatal(err)
		}
		cp := Bracket{Title: b.Title}
		for _, ms := range b.Rounds {
			cp.Rounds = append(cp.Rounds, append([]Match(nil), ms...))
		}
		second, err := BracketPNG(cp)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, second) {
			t.Errorf("%s: two pictures of one bracket differ", b.Title)
		}
	}
}

// maxSide is the most pixels a picture for Discord should have on a side.
const maxSide = 2000

// TestBracketSize checks that every bracket size from 2 to 64, full or
// with as many byes as it can have, gives a finished bracket within
// maxSide (byes only narrow it: the size and the widest label and score
// set the picture's size), and that the largest possible one (64 places,
// every label, score and the title at their longest) does too.
func TestBracketSize(t *testing.T) {
	check := func(t *testing.T, b Bracket) (w, h int) {
		t.Helper()
		b8, err := BracketPNG(b)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(b8))
		if err != nil {
			t.Fatal(err)
		}
		w, h = cfg.Width, cfg.Height
		if w > maxSide || h > maxSide {
			t.Fatalf("%dx%d pixels; want at most %d a side", w, h, maxSide)
		}
		return w, h
	}
	for size := 2; size <= 64; size *= 2 {
		rounds := bits.Len(uint(size)) - 1
		for _, players := range []int{size/2 + 1, size} {
			if size == 2 && players < size {
				continue // a bracket of 2 has no room for a bye
			}
			t.Run(fmt.Sprintf("%d of %d", players, size), func(t *testing.T) {
				check(t, tournament("", size, players, rounds, always))
			})
		}
	}
	t.Run("64 half played", func(t *testing.T) {
		w, h := check(t, bracket64())
		t.Logf("64 players: %dx%d", w, h)
	})
	t.Run("longest", func(t *testing.T) {
		b := tournament(strings.Repeat("W", 80), 64, 64, 6, always)
		for _, ms := range b.Rounds {
			for j := range ms {
				ms[j].Top, ms[j].Bottom = strings.Repeat("M", 20), strings.Repeat("W", 20)
				ms[j].TopScore, ms[j].BottomScore = "10-10-10", "WWWWWW"
			}
		}
		w, h := check(t, b)
		t.Logf("longest: %dx%d", w, h)
	})
}

// ExampleBracketPNG draws the final of a two-player bracket.
func ExampleBracketPNG() {
	b, err := BracketPNG(Bracket{
		Title: "Final",
		Rounds: [][]Match{{
			{Top: "#1 ALICE", Bottom: "#2 BOB", TopScore: "2", BottomScore: "1", Winner: 1},
		}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	fmt.Println(cfg.Width, cfg.Height, err)

	_, err = BracketPNG(Bracket{Rounds: [][]Match{{{Top: "A", Bottom: "B", Winner: 3}}}})
	fmt.Println(err)
	// Output:
	// 252 84 <nil>
	// chart: invalid bracket: round 0 match 0: winner 3; want 0 (undecided), 1 (top) or 2 (bottom)
}

func BenchmarkBracketPNG(b *testing.B) {
	br := bracket64()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := BracketPNG(br); err != nil {
			b.Fatal(err)
		}
	}
}
