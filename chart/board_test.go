package chart

import (
	"bytes"
	"image/png"
	"strings"
	"testing"
)

// gomokuBoard returns a 15x15 board with X's winning diagonal (d4 to h8),
// the last move h8, and O's stones scattered.
func gomokuBoard(dark bool) Board {
	marks := []byte(strings.Repeat("-", 225))
	set := func(r, c int, m byte) { marks[r*15+c] = m }
	var win []int
	for i := range 5 {
		set(3+i, 3+i, 'X')
		win = append(win, (3+i)*15+3+i)
	}
	for _, p := range [][2]int{{3, 4}, {4, 6}, {9, 9}, {0, 14}, {14, 0}} {
		set(p[0], p[1], 'O')
	}
	return Board{Rows: 15, Cols: 15, Marks: marks, Last: 7*15 + 7, Win: win, Dark: dark}
}

// TestBoardPNG pins the pictures of a won 15x15 game in both themes, a
// game going on a 6x9 board, and a full 6x6 one.
func TestBoardPNG(t *testing.T) {
	six := Board{Rows: 6, Cols: 9, Marks: []byte(strings.Repeat("XO-", 18)), Last: 3}
	full := Board{Rows: 6, Cols: 6, Marks: []byte(strings.Repeat("XOXOXOOXOXOX", 3)), Last: -1}
	for name, b := range map[string]Board{
		"board_15x15_light": gomokuBoard(false),
		"board_15x15_dark":  gomokuBoard(true),
		"board_6x9":         six,
		"board_6x6_full":    full,
	} {
		got, err := BoardPNG(b)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(got))
		if err != nil {
			t.Fatal(err)
		}
		if w, h := BoardSize(b.Rows, b.Cols); img.Bounds().Dx() != w || img.Bounds().Dy() != h {
			t.Errorf("%s: %v, want %dx%d", name, img.Bounds(), w, h)
		}
		golden(t, name, got)
	}
}

// TestBoardPNGFits: every board from 6x6 to 15x15 draws, within the size
// Discord shows without scaling it down much (at most 600 pixels a side)
// and well under its 10 MB attachment limit.
func TestBoardPNGFits(t *testing.T) {
	for rows := 6; rows <= 15; rows++ {
		for cols := 6; cols <= 15; cols++ {
			b := Board{Rows: rows, Cols: cols, Marks: bytes.Repeat([]byte("XO-"), rows*cols)[:rows*cols], Last: 0, Win: []int{0, 1, 2}}
			got, err := BoardPNG(b)
			if err != nil {
				t.Fatal(err)
			}
			w, h := BoardSize(rows, cols)
			if w > 600 || h > 600 || len(got) > 200_000 {
				t.Errorf("%dx%d: %dx%d pixels, %d bytes", rows, cols, w, h, len(got))
			}
		}
	}
}

func TestBoardPNGErrors(t *testing.T) {
	for _, b := range []Board{
		{Rows: 0, Cols: 5},
		{Rows: 3, Cols: 3, Marks: []byte("XO")},
		{Rows: 3, Cols: 3, Marks: []byte("---------"), Last: 9},
	} {
		if _, err := BoardPNG(b); err == nil {
			t.Errorf("%+v: no error", b)
		}
	}
}

// BenchmarkBoardPNG is the time to draw and encode a 15x15 game.
func BenchmarkBoardPNG(b *testing.B) {
	board := gomokuBoard(true)
	for b.Loop() {
		if _, err := BoardPNG(board); err != nil {
			b.Fatal(err)
		}
	}
}
