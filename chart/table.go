package chart

import (
	"errors"
	"fmt"
	"image/color"
	"image/png"
	"strings"
)

// Errors of TablePNG, wrapped with the details.
var (
	// ErrTable means TablePNG got a malformed table: no columns, no rows,
	// a row whose length differs from the header's, or a negative
	// Highlight.
	ErrTable = errors.New("chart: invalid table")
	// ErrTooLarge means a picture would be more than 2000 pixels wide or
	// high even at the smallest scale: split the input into pages.
	ErrTooLarge = errors.New("chart: picture too large")
)

// Table is a standings table to draw, such as a Swiss or round-robin
// tournament's after a round.
type Table struct {
	// Title is drawn above the table: short ASCII, may be empty, cut to
	// 60 characters.
	Title string
	// Header names the columns, such as "#", "PLAYER", "W-D-L", "PTS".
	Header []string
	// Rows are the body, each with a cell per column. Cells are short
	// ASCII, cut to 24 characters (the font draws anything other than
	// letters, digits and a few symbols as '?').
	Rows [][]string
	// Highlight is how many top rows to mark (3 for a podium, the number
	// that go through to a next stage): gold rows with a bar at the left
	// and a rule under the last. At most the number of rows are marked.
	Highlight int
}

// Geometry of the table. Text is at scale 2 unless the table would then
// be larger than tMaxSide, and then at scale 1; the other sizes are
// multiples of the scale.
const (
	tMaxSide  = 2000
	tMaxCell  = 24
	tMaxTitle = 60
	tMargin   = 6 // times the scale
	tPadX     = 4 // left and right of a cell's text, times the scale
	tPadY     = 2 // above and below it, times the scale
	tTitleGap = 5 // between the title and the table, times the scale
)

// Palette indexes of the table.
const (
	tWhite uint8 = iota
	tInk
	tBorder
	tHeaderFill
	tStripe  // every other row
	tTop     // a highlighted row
	tTopAlt  // every other highlighted row
	tTopMark // the bar left of a highlighted row and the rule under them
)

// tablePalette is the table's palette (an immutable table).
var tablePalette = color.Palette{
	tWhite:      color.RGBA{0xff, 0xff, 0xff, 0xff},
	tInk:        color.RGBA{0x26, 0x26, 0x26, 0xff},
	tBorder:     color.RGBA{0x6e, 0x6e, 0x6e, 0xff},
	tHeaderFill: color.RGBA{0xd6, 0xdf, 0xea, 0xff},
	tStripe:     color.RGBA{0xf0, 0xf1, 0xf3, 0xff},
	tTop:        color.RGBA{0xff, 0xf4, 0xcc, 0xff},
	tTopAlt:     color.RGBA{0xff, 0xea, 0xa8, 0xff},
	tTopMark:    color.RGBA{0xc0, 0x8c, 0x00, 0xff},
}

// TablePNG draws a standings table as a PNG: the title, a shaded header
// row in bold, and the rows shaded every other one, the first Highlight
// of them in gold. Columns are as wide as their widest cell; a column
// whose cells are all numbers (such as 3, -1, 2.5 or 50%; empty cells
// allowed) is right-aligned, header included, and the others are
// left-aligned. The words are the caller's, in the font's ASCII. Equal
// tables give equal bytes.
//
// It fails with ErrTable for a malformed table (see Table) and with
// ErrTooLarge for one that does not fit 2000x2000 pixels at scale 1.
func TablePNG(t Table) ([]byte, error) {
	if len(t.Header) == 0 {
		return nil, fmt.Errorf("%w: no columns", ErrTable)
	}
	if len(t.Rows) == 0 {
		return nil, fmt.Errorf("%w: no rows", ErrTable)
	}
	for i, row := range t.Rows {
		if len(row) != len(t.Header) {
			return nil, fmt.Errorf("%w: row %d has %d cells; the header has %d", ErrTable, i, len(row), len(t.Header))
		}
	}
	if t.Highlight < 0 {
		return nil, fmt.Errorf("%w: highlight %d is negative", ErrTable, t.Highlight)
	}

	title := clip(strings.TrimSpace(t.Title), tMaxTitle)
	header := make([]string, len(t.Header))
	for c, h := range t.Header {
		header[c] = clip(strings.TrimSpace(h), tMaxCell)
	}
	rows := make([][]string, len(t.Rows))
	for i, row := range t.Rows {
		rows[i] = make([]string, len(row))
		for c, cell := range row {
			rows[i][c] = clip(strings.TrimSpace(cell), tMaxCell)
		}
	}
	right := make([]bool, len(header))
	for c := range header {
		right[c] = numeric(rows, c)
	}

	for _, s := range []int{2, 1} {
		l := tableLayout(title, header, rows, s)
		if l.w <= tMaxSide && l.h <= tMaxSide {
			return drawTable(l, title, header, rows, right, min(t.Highlight, len(rows)))
		}
	}
	l := tableLayout(title, header, rows, 1)
	return nil, fmt.Errorf("%w: a table of %d columns and %d rows is %dx%d pixels; at most %d a side", ErrTooLarge, len(header), len(rows), l.w, l.h, tMaxSide)
}

// tableGeom is where a table goes at a scale.
type tableGeom struct {
	scale  int
	colW   []int // cells' widths, padding included
	rowH   int
	x0, y0 int // the table's top-left corner, on its border
	tw, th int // the table's size, border included
	w, h   int // the picture's size
}

// tableLayout measures a table at a scale.
func tableLayout(title string, header []string, rows [][]string, s int) tableGeom {
	l := tableGeom{scale: s, colW: make([]int, len(header)), rowH: TextHeight(s) + 2*tPadY*s}
	for c := range header {
		w := TextWidth(header[c], s) + 1 // +1: bold
		for _, row := range rows {
			w = max(w, TextWidth(row[c], s))
		}
		l.colW[c] = max(w, TextWidth("0", s)) + 2*tPadX*s
	}
	l.x0, l.y0 = tMargin*s, tMargin*s
	if title != "" {
		l.y0 += TextHeight(s+1) + tTitleGap*s
	}
	l.tw = 2
	for _, w := range l.colW {
		l.tw += w
	}
	// The border, the header, its rule and the rows.
	l.th = 1 + l.rowH + 1 + len(rows)*l.rowH + 1
	l.w = max(l.x0+l.tw+tMargin*s, TextWidth(title, s+1)+2*tMargin*s)
	l.h = l.y0 + l.th + tMargin*s
	return l
}

// drawTable draws a checked table as laid out.
func drawTable(l tableGeom, title string, header []string, rows [][]string, right []bool, highlight int) ([]byte, error) {
	s := l.scale
	cv := NewCanvas(l.w, l.h, tablePalette)
	if title != "" {
		cv.Text(tMargin*s, tMargin*s, title, s+1, tInk)
	}
	cv.Fill(l.x0, l.y0, l.tw, l.th, tBorder)

	// row draws cells in the row whose top is y.
	row := func(y int, cells []string, bold bool) {
		x := l.x0 + 1
		for c, cell := range cells {
			tx := x + tPadX*s
			if right[c] {
				w := TextWidth(cell, s)
				if bold {
					w++
				}
				tx = x + l.colW[c] - tPadX*s - w
			}
			drawText(cv, tx, y+tPadY*s, cell, s, tInk, bold)
			x += l.colW[c]
		}
	}

	y := l.y0 + 1
	cv.Fill(l.x0+1, y, l.tw-2, l.rowH, tHeaderFill)
	row(y, header, s >= 2)
	y += l.rowH + 1 // the rule under the header is the border's colour
	for i, cells := range rows {
		fill := tWhite
		switch {
		case i < highlight && i%2 == 0:
			fill = tTop
		case i < highlight:
			fill = tTopAlt
		case i%2 == 1:
			fill = tStripe
		}
		cv.Fill(l.x0+1, y, l.tw-2, l.rowH, fill)
		if i < highlight {
			cv.Fill(l.x0+1, y, s+1, l.rowH, tTopMark)
		}
		if i == highlight-1 && i < len(rows)-1 {
			cv.HLine(l.x0+1, l.x0+l.tw-2, y+l.rowH-1, tTopMark)
		}
		row(y, cells, false)
		y += l.rowH
	}

	// A table is drawn on request: the default compression, as for
	// Values.
	return cv.PNG(png.DefaultCompression)
}

// numeric reports whether column c holds numbers: at least one, and no
// other cells than empty ones.
func numeric(rows [][]string, c int) bool {
	seen := false
	for _, row := range rows {
		switch {
		case row[c] == "":
		case isNumber(row[c]):
			seen = true
		default:
			return false
		}
	}
	return seen
}

// isNumber reports whether s is a number as a table shows one: an
// optional sign, digits with an optional decimal point or comma, and an
// optional percent sign.
func isNumber(s string) bool {
	s = strings.TrimSuffix(s, "%")
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	digits, point := 0, false
	for _, ch := range s {
		switch {
		case ch >= '0' && ch <= '9':
			digits++
		case (ch == '.' || ch == ',') && !point && digits > 0:
			point = true
		default:
			return false
		}
	}
	return digits > 0 && !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, ",")
}
