package game

import (
	"errors"
	"strings"
	"testing"
)

func TestParseRules(t *testing.T) {
	tests := []struct {
		in               string
		rows, cols, k    int
		variant          Variant
		want             string
		err, errContains string
	}{
		{in: "3x3k3", rows: 3, cols: 3, k: 3, want: "3x3k3"},
		{in: " 5X5K4 ", rows: 5, cols: 5, k: 4, want: "5x5k4"},
		{in: "4x3xox", rows: 4, cols: 3, k: 3, variant: XOX, want: "4x3xox"},
		{in: "8x8k5", rows: 8, cols: 8, k: 5, want: "8x8k5"},
		{in: "3x8k8", rows: 3, cols: 8, k: 8, want: "3x8k8"},
		{in: "", errContains: "write rows x cols"},
		{in: "3x3", errContains: "no line length"},
		{in: "3x3k2", errContains: "k must be from 3 to 3"},
		{in: "4x4k5", errContains: "k must be from 3 to 4"},
		{in: "2x3k3", errContains: "from 3 to 8"},
		{in: "9x9k5", errContains: "from 3 to 8"},
		{in: "3x9xox", errContains: "from 3 to 8"},
		{in: "+3x3k3", errContains: "write rows x cols"},
		{in: "3x3k+3", errContains: "write rows x cols"},
		{in: "3x3k3x", errContains: "write rows x cols"},
		{in: "axbkc", errContains: "write rows x cols"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			r, err := ParseRules(tt.in)
			if tt.errContains != "" {
				if !errors.Is(err, ErrBadRules) || !strings.Contains(err.Error(), tt.errContains) {
					t.Fatalf("ParseRules(%q) error = %v, want ErrBadRules containing %q", tt.in, err, tt.errContains)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseRules(%q): %v", tt.in, err)
			}
			if r.Rows() != tt.rows || r.Cols() != tt.cols || r.K() != tt.k || r.Variant() != tt.variant || r.String() != tt.want {
				t.Errorf("ParseRules(%q) = %s (%dx%d k%d v%d)", tt.in, r, r.Rows(), r.Cols(), r.K(), r.Variant())
			}
			if r.Size() != tt.rows*tt.cols || r.Board().Count() != r.Size() {
				t.Errorf("size %d, board %d cells", r.Size(), r.Board().Count())
			}
		})
	}
}

// TestLineCounts pins the number of winning lines, a check on the geometry.
func TestLineCounts(t *testing.T) {
	tests := []struct {
		rules string
		lines int
	}{
		{"3x3k3", 8},
		{"4x4k4", 10},
		{"4x4k3", 24},  // 8 rows, 8 columns, 4+4 diagonals
		{"5x5k4", 28},  // 10 + 10 + 4 + 4
		{"4x3xox", 14}, // 4 rows + 6 column windows + 2 + 2 diagonals
		{"3x8k8", 3},   // only the rows are long enough
		{"8x8k5", 96},  // 32 + 32 + 16 + 16
	}
	for _, tt := range tests {
		r, err := ParseRules(tt.rules)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(r.Lines()); got != tt.lines {
			t.Errorf("%s: %d lines, want %d", tt.rules, got, tt.lines)
		}
		sum := 0
		for c := r.Board(); c != 0; c &= c - 1 {
			sum += len(r.LinesThrough(c.First()))
		}
		if sum != tt.lines*r.K() {
			t.Errorf("%s: lines through cells sum to %d, want %d", tt.rules, sum, tt.lines*r.K())
		}
	}
}

func FuzzParseRules(f *testing.F) {
	for _, s := range []string{"3x3k3", "4x3xox", "8x8k8", "3x", "x3k3", "99x99k99", "3x3k"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRules(s)
		if err != nil {
			if !errors.Is(err, ErrBadRules) {
				t.Fatalf("error %v does not wrap ErrBadRules", err)
			}
			return
		}
		back, err := ParseRules(r.String())
		if err != nil || !back.Equal(r) {
			t.Fatalf("%q -> %s does not round-trip: %v", s, r, err)
		}
	})
}

func TestParseCell(t *testing.T) {
	r := Classic()
	tests := []struct {
		in      string
		want    Cell
		wantErr string
	}{
		{in: "1 2", want: NewCell(1, 2)},
		{in: "c2", want: NewCell(1, 2)},
		{in: "C2", want: NewCell(1, 2)},
		{in: " 0,0 ", want: NewCell(0, 0)},
		{in: "a1", want: NewCell(0, 0)},
		{in: "2\t2", want: NewCell(2, 2)},
		{in: "", wantErr: "empty"},
		{in: "3 0", wantErr: "off the 3x3 board; rows are 0-2 and columns 0-2 (names a1 to c3)"},
		{in: "d1", wantErr: "off the 3x3 board"},
		{in: "a0", wantErr: "off the 3x3 board"},
		{in: "a", wantErr: "not a cell name"},
		{in: "a-1", wantErr: "not a cell name"},
		{in: "1", wantErr: "not a cell"},
		{in: "1 2 3", wantErr: "not a cell"},
		{in: "x y", wantErr: "not a cell name"},
		{in: "1 y", wantErr: "whole numbers"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			c, err := r.ParseCell(tt.in)
			if tt.wantErr != "" {
				if !errors.Is(err, ErrBadCell) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseCell(%q) error = %v, want ErrBadCell containing %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil || c != tt.want {
				t.Fatalf("ParseCell(%q) = %v, %v; want %v", tt.in, c, err, tt.want)
			}
		})
	}
}

func FuzzParseCell(f *testing.F) {
	for _, s := range []string{"1 2", "c2", "h8", "0,0", "z99", "-1 -1"} {
		f.Add(s)
	}
	r, _ := NewRules(8, 8, 5)
	f.Fuzz(func(t *testing.T, s string) {
		c, err := r.ParseCell(s)
		if err != nil {
			if !errors.Is(err, ErrBadCell) {
				t.Fatalf("error %v does not wrap ErrBadCell", err)
			}
			return
		}
		if !r.Contains(c) {
			t.Fatalf("%q parsed to off-board cell %d", s, c)
		}
		for _, name := range []string{c.String(), c.RowCol()} {
			if back, err := r.ParseCell(name); err != nil || back != c {
				t.Fatalf("%q -> %v -> %q -> %v, %v", s, c, name, back, err)
			}
		}
	})
}
