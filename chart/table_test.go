package chart

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"strconv"
	"strings"
	"testing"
)

// swiss9 is a Swiss tournament of 9 players after 4 rounds (a bye a
// round, worth a win): points, wins-draws-losses and Buchholz.
func swiss9() Table {
	return Table{
		Title:  "Swiss after round 4",
		Header: []string{"#", "Player", "Pts", "W-D-L", "Buch"},
		Rows: [][]string{
			{"1", "#1 ALICE", "3.5", "3-1-0", "10.5"},
			{"2", "#2 BOB", "3", "3-0-1", "11"},
			{"3", "#3 CAROL", "3", "2-2-0", "9.5"},
			{"4", "#4 DAVE", "2.5", "2-1-1", "10"},
			{"5", "#5 ERIN", "2", "2-0-2", "8.5"},
			{"6", "#6 FRANK", "2", "1-2-1", "8"},
			{"7", "#7 GRACE", "1.5", "1-1-2", "9"},
			{"8", "#8 HEIDI", "1.5", "1-1-2", "7.5"},
			{"9", "#9 IVAN", "1", "1-0-3", "6.5"},
		},
		Highlight: 3,
	}
}

// roundRobin2 is a round robin of 2 players over 4 games, with a podium
// of 3 asked for: both rows are marked.
func roundRobin2() Table {
	return Table{
		Title:  "Round robin",
		Header: []string{"#", "Player", "W-D-L", "Pts"},
		Rows: [][]string{
			{"1", "ALICE", "2-1-1", "2.5"},
			{"2", "BOB", "1-1-2", "1.5"},
		},
		Highlight: 3,
	}
}

func TestTableGolden(t *testing.T) {
	tests := []struct {
		name string
		t    Table
	}{
		{"table_9_players_4_rounds", swiss9()},
		{"table_2_players", roundRobin2()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := TablePNG(tt.t)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name, got)
		})
	}
}

// rows returns n rows of a rank and a name.
func rows(n int) [][]string {
	r := make([][]string, n)
	for i := range r {
		r[i] = []string{strconv.Itoa(i + 1), fmt.Sprintf("PLAYER %d", i+1)}
	}
	return r
}

func TestTableErrors(t *testing.T) {
	two := []string{"#", "PLAYER"}
	tests := []struct {
		name string
		t    Table
		want error
		msg  string
	}{
		{"empty", Table{}, ErrTable, "no columns"},
		{"no header", Table{Rows: [][]string{{"1"}}}, ErrTable, "no columns"},
		{"no rows", Table{Header: two}, ErrTable, "no rows"},
		{"empty rows", Table{Header: two, Rows: [][]string{}}, ErrTable, "no rows"},
		{"short row", Table{Header: two, Rows: [][]string{{"1", "A"}, {"2"}}}, ErrTable, "row 1 has 1 cells; the header has 2"},
		{"long row", Table{Header: two, Rows: [][]string{{"1", "A", "3"}}}, ErrTable, "row 0 has 3 cells"},
		{"empty row", Table{Header: two, Rows: [][]string{{}}}, ErrTable, "row 0 has 0 cells"},
		{"negative highlight", Table{Header: two, Rows: rows(2), Highlight: -1}, ErrTable, "highlight -1"},
		{"too many rows", Table{Header: two, Rows: rows(250)}, ErrTooLarge, "2 columns and 250 rows"},
		{"too many columns", Table{Header: make([]string, 250), Rows: [][]string{make([]string, 250)}}, ErrTooLarge, "250 columns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := TablePNG(tt.t)
			if !errors.Is(err, tt.want) || b != nil || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("TablePNG = %d bytes, %v; want %v with %q", len(b), err, tt.want, tt.msg)
			}
		})
	}
}

// TestTableSize checks the pictures' sizes: 64 players at scale 2, and a
// table too high for scale 2 at scale 1, both within 2000 pixels.
func TestTableSize(t *testing.T) {
	tests := []struct {
		name  string
		t     Table
		scale int
	}{
		{"9 players", swiss9(), 2},
		{"64 players", Table{Header: []string{"#", "PLAYER"}, Rows: rows(64), Highlight: 8}, 2},
		{"200 players", Table{Header: []string{"#", "PLAYER"}, Rows: rows(200)}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := TablePNG(tt.t)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := png.DecodeConfig(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Width > maxSide || cfg.Height > maxSide {
				t.Fatalf("%dx%d pixels; want at most %d a side", cfg.Width, cfg.Height, maxSide)
			}
			// The size is the layout's at the scale expected.
			l := tableLayout(tt.t.Title, tt.t.Header, tt.t.Rows, tt.scale)
			if cfg.Width != l.w || cfg.Height != l.h {
				t.Fatalf("%dx%d pixels; want %dx%d, at scale %d", cfg.Width, cfg.Height, l.w, l.h, tt.scale)
			}
			t.Logf("%s: %dx%d", tt.name, cfg.Width, cfg.Height)
		})
	}
}

// TestTableDeterministic draws a table twice, the second time from a
// copy: equal input gives equal bytes.
func TestTableDeterministic(t *testing.T) {
	tb := swiss9()
	first, err := TablePNG(tb)
	if err != nil {
		t.Fatal(err)
	}
	cp := tb
	cp.Rows = nil
	for _, r := range tb.Rows {
		cp.Rows = append(cp.Rows, append([]string(nil), r...))
	}
	second, err := TablePNG(cp)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, second) {
		t.Error("two pictures of one table differ")
	}
}

func TestIsNumber(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{"0", true},
		{"12", true},
		{"2.5", true},
		{"2,5", true},
		{"+3", true},
		{"-1", true},
		{"50%", true},
		{"-12.25%", true},
		{"", false},
		{"-", false},
		{"%", false},
		{".5", false},
		{"5.", false},
		{"1.2.3", false},
		{"3-1-0", false},
		{"1/2", false},
		{"NAN", false},
		{"1E5", false},
		{"#1", false},
	}
	for _, tt := range tests {
		if got := isNumber(tt.s); got != tt.want {
			t.Errorf("isNumber(%q) = %v; want %v", tt.s, got, tt.want)
		}
	}
	body := [][]string{{"1", "ALICE", "", "3-1-0"}, {"2", "BOB", "", "2-0-2"}, {"", "CAROL", "", "1"}}
	for c, want := range []bool{true, false, false, false} {
		if got := numeric(body, c); got != want {
			t.Errorf("numeric(column %d) = %v; want %v", c, got, want)
		}
	}
}

// ExampleTablePNG draws the standings of a two-player round robin.
func ExampleTablePNG() {
	b, err := TablePNG(Table{
		Title:  "Round robin",
		Header: []string{"#", "Player", "W-D-L", "Pts"},
		Rows: [][]string{
			{"1", "ALICE", "2-1-1", "2.5"},
			{"2", "BOB", "1-1-2", "1.5"},
		},
		Highlight: 1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	fmt.Println(cfg.Width, cfg.Height, err)

	_, err = TablePNG(Table{Header: []string{"#", "Player"}, Rows: [][]string{{"1"}}})
	fmt.Println(err)
	// Output:
	// 206 106 <nil>
	// chart: invalid table: row 0 has 1 cells; the header has 2
}
