package chart

import (
	"errors"
	"fmt"
	"image/color"
	"image/png"
	"strconv"
)

// Board is a game board to draw as a picture: the boards past the 5x5
// button grid (up to 15x15) are shown this way on Discord.
type Board struct {
	Rows, Cols int
	// Marks holds Rows*Cols bytes in row-major order: 'X', 'O', or
	// anything else for a free cell.
	Marks []byte
	// Last is the index in Marks of the last move, marked with a ring;
	// -1 for none.
	Last int
	// Win holds the indexes of the cells of the winning lines: each run of
	// three or more of them in a row, column or diagonal is struck through.
	Win []int
	// Dark draws on Discord's dark theme colours, else on its light ones.
	Dark bool
}

// Board geometry in pixels: the cell size, the margin holding the
// coordinates and the scale of their font.
const (
	boardCell   = 32
	boardMargin = 26
	boardFont   = 3
)

// Palette indexes of a board picture.
const (
	bgIdx uint8 = iota
	gridIdx
	textIdx
	xIdx
	oIdx
	lastIdx
	winIdx
	boardIdx
	winCellIdx
)

// boardPalettes are the light and dark palettes: the board's square a
// shade off the background, X in red and O in blue, strong enough on both.
var boardPalettes = [2]color.Palette{
	{ // light
		color.RGBA{0xff, 0xff, 0xff, 0xff}, color.RGBA{0x8a, 0x8e, 0x94, 0xff}, color.RGBA{0x31, 0x33, 0x38, 0xff},
		color.RGBA{0xd8, 0x3c, 0x3e, 0xff}, color.RGBA{0x1f, 0x6f, 0xd1, 0xff}, color.RGBA{0xf0, 0xa0, 0x00, 0xff},
		color.RGBA{0x23, 0xa5, 0x59, 0xff}, color.RGBA{0xf2, 0xf3, 0xf5, 0xff}, color.RGBA{0xd3, 0xf2, 0xdf, 0xff},
	},
	{ // dark
		color.RGBA{0x31, 0x33, 0x38, 0xff}, color.RGBA{0x6d, 0x6f, 0x78, 0xff}, color.RGBA{0xdb, 0xde, 0xe1, 0xff},
		color.RGBA{0xf2, 0x5c, 0x5e, 0xff}, color.RGBA{0x5b, 0x9b, 0xf0, 0xff}, color.RGBA{0xf0, 0xb2, 0x32, 0xff},
		color.RGBA{0x3b, 0xd1, 0x7a, 0xff}, color.RGBA{0x2b, 0x2d, 0x31, 0xff}, color.RGBA{0x1e, 0x45, 0x32, 0xff},
	},
}

// BoardSize returns the picture's width and height for a board.
func BoardSize(rows, cols int) (int, int) {
	return 2*boardMargin + cols*boardCell, 2*boardMargin + rows*boardCell
}

// BoardPNG draws the board: the grid with column letters (A from the left)
// and row numbers (1 at the top) on all four edges, X and O, a ring on the
// last move, and the winning lines struck through.
func BoardPNG(b Board) ([]byte, error) {
	if b.Rows < 1 || b.Cols < 1 || b.Rows > 26 || b.Cols > 26 {
		return nil, fmt.Errorf("chart: board %dx%d: rows and columns from 1 to 26", b.Rows, b.Cols)
	}
	if len(b.Marks) != b.Rows*b.Cols {
		return nil, fmt.Errorf("chart: board %dx%d with %d cells", b.Rows, b.Cols, len(b.Marks))
	}
	if b.Last >= len(b.Marks) {
		return nil, errors.New("chart: the last move is off the board")
	}
	pal := boardPalettes[0]
	if b.Dark {
		pal = boardPalettes[1]
	}
	w, h := BoardSize(b.Rows, b.Cols)
	cv := NewCanvas(w, h, pal)
	cv.Fill(boardMargin, boardMargin, b.Cols*boardCell, b.Rows*boardCell, boardIdx)
	b.drawGrid(cv)
	win := make([]bool, len(b.Marks))
	for _, i := range b.Win {
		if i >= 0 && i < len(win) {
			win[i] = true
		}
	}
	for i, m := range b.Marks {
		x, y := b.centre(i)
		if win[i] {
			cv.Fill(x-boardCell/2+1, y-boardCell/2+1, boardCell-1, boardCell-1, winCellIdx)
		}
		switch m {
		case 'X':
			drawX(cv, x, y)
		case 'O':
			drawO(cv, x, y, oIdx, boardIdx, win[i])
		}
	}
	b.strike(cv, win)
	if b.Last >= 0 {
		x, y := b.centre(b.Last)
		ring(cv, x, y, boardCell/2-2, lastIdx)
	}
	return cv.PNG(png.BestSpeed)
}

// centre returns the pixel centre of cell i.
func (b Board) centre(i int) (int, int) {
	r, c := i/b.Cols, i%b.Cols
	return boardMargin + c*boardCell + boardCell/2, boardMargin + r*boardCell + boardCell/2
}

// drawGrid draws the cell borders and the coordinates on every edge.
func (b Board) drawGrid(cv *Canvas) {
	x1, y1 := boardMargin+b.Cols*boardCell, boardMargin+b.Rows*boardCell
	for r := 0; r <= b.Rows; r++ {
		cv.HLine(boardMargin, x1, boardMargin+r*boardCell, gridIdx)
	}
	for c := 0; c <= b.Cols; c++ {
		cv.VLine(boardMargin+c*boardCell, boardMargin, y1, gridIdx)
	}
	th := TextHeight(boardFont)
	for c := range b.Cols {
		s := string(rune('A' + c))
		x := boardMargin + c*boardCell + (boardCell-TextWidth(s, boardFont))/2
		cv.Text(x, (boardMargin-th)/2, s, boardFont, textIdx)
		cv.Text(x, y1+(boardMargin-th)/2+1, s, boardFont, textIdx)
	}
	for r := range b.Rows {
		s := strconv.Itoa(r + 1)
		y := boardMargin + r*boardCell + (boardCell-th)/2
		tw := TextWidth(s, boardFont)
		cv.Text((boardMargin-tw)/2, y, s, boardFont, textIdx)
		cv.Text(x1+(boardMargin-tw)/2+1, y, s, boardFont, textIdx)
	}
}

// drawX draws an X: two thick diagonals.
func drawX(cv *Canvas, x, y int) {
	const a = boardCell/2 - 8
	for t := -1; t <= 1; t++ {
		cv.Line(x-a+t, y-a, x+a+t-1, y+a-1, xIdx, false)
		cv.Line(x-a+t, y+a-1, x+a+t-1, y-a, xIdx, false)
	}
}

// drawO draws an O: a thick ring, its hole in the cell's colour.
func drawO(cv *Canvas, x, y int, ci, hole uint8, win bool) {
	if win {
		hole = winCellIdx
	}
	cv.disc(x, y, boardCell/2-7, ci)
	cv.disc(x, y, boardCell/2-11, hole)
}

// ring draws a two-pixel circle of radius r.
func ring(cv *Canvas, x, y, r int, ci uint8) {
	for dy := -r - 1; dy <= r+1; dy++ {
		for dx := -r - 1; dx <= r+1; dx++ {
			d := dx*dx + dy*dy
			if d >= (r-1)*(r-1) && d <= r*r+r {
				cv.Fill(x+dx, y+dy, 1, 1, ci)
			}
		}
	}
}

// strike draws a line through each maximal run of three or more winning
// cells in a row, column or diagonal.
func (b Board) strike(cv *Canvas, win []bool) {
	at := func(r, c int) bool { return r >= 0 && c >= 0 && r < b.Rows && c < b.Cols && win[r*b.Cols+c] }
	for i, w := range win {
		if !w {
			continue
		}
		r, c := i/b.Cols, i%b.Cols
		for _, d := range [4][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}} {
			if at(r-d[0], c-d[1]) {
				continue // not the start of the run
			}
			n := 1
			for at(r+n*d[0], c+n*d[1]) {
				n++
			}
			if n < 3 {
				continue
			}
			x0, y0 := b.centre(i)
			x1, y1 := b.centre((r+(n-1)*d[0])*b.Cols + c + (n-1)*d[1])
			for t := -1; t <= 1; t++ {
				cv.Line(x0+t, y0, x1+t, y1, winIdx, false)
			}
		}
	}
}
