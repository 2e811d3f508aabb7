package chart

import (
	"errors"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"strconv"
)

// Errors of Values, wrapped with the details.
var (
	// ErrNoPoints means Values got no points: even a game with no moves
	// has its start position.
	ErrNoPoints = errors.New("chart: no points")
	// ErrPoint means a point's score is NaN or outside [0, 1], or its
	// mark is not one of the Mark constants.
	ErrPoint = errors.New("chart: invalid point")
)

// Point is the value of the game after a move (index 0: the start
// position).
type Point struct {
	// Score is X's expected score in [0, 1]: 1 X wins, 0.5 draw, 0 O wins.
	Score float64
	// Exact says the score is a solved value (drawn as a filled dot on a
	// solid line) rather than an estimate (a hollow dot on a dashed line).
	Exact bool
	// Mark is how the move that led here is flagged. The start position's
	// mark is ignored: no move led there.
	Mark Mark
}

// Mark flags a move by how much it gave away. The chart colours what was
// lost, not why: a missed win that only draws is a MarkMistake, and one
// that goes on to lose is a MarkBlunder.
type Mark uint8

// The marks, from none to the worst. Their dots grow with the mark and go
// from ink through orange and red to dark red.
const (
	MarkNone       Mark = iota // a good move, or one not flagged
	MarkInaccuracy             // a small loss of value
	MarkMistake                // a real loss, such as a win let go to a draw
	MarkBlunder                // a decisive loss, such as a draw let go to a loss
)

// Geometry of the review chart, in pixels. The plot is the rectangle
// [vPlotLeft, vPlotRight] x [vPlotTop, vPlotBottom]; scores and moves map
// into it inset by vInset, so the biggest dot at a score of 0 or 1, or at
// the first or last move, stays inside.
const (
	valuesW, valuesH = 640, 240
	vPlotLeft        = 30
	vPlotRight       = valuesW - 14
	vPlotTop         = 8
	vPlotBottom      = 212
	vInset           = 10
	vSymbolX         = 13 // centre of the X, = and O symbols
	vSymbolR         = 6  // half the size of a symbol
	vTickScale       = 2  // font scale of the move numbers
	vMinorTick       = 3  // length of a tick at every move
	vMajorTick       = 6  // length of a tick at a numbered move
)

// Palette indexes of the review chart.
const (
	vWhite uint8 = iota
	vInk
	vAxisText
	vMid
	vBandX
	vBandO
	vX
	vO
	vInaccuracy
	vMistake
	vBlunder
)

// valuesPalette is the review chart's palette (an immutable table): X is
// blue and O purple, so the reds and orange stay for the marks.
var valuesPalette = color.Palette{
	vWhite:      color.RGBA{0xff, 0xff, 0xff, 0xff},
	vInk:        color.RGBA{0x26, 0x26, 0x26, 0xff},
	vAxisText:   color.RGBA{0x5a, 0x5a, 0x5a, 0xff},
	vMid:        color.RGBA{0x9a, 0x9a, 0x9a, 0xff},
	vBandX:      color.RGBA{0xd2, 0xe3, 0xf5, 0xff},
	vBandO:      color.RGBA{0xe8, 0xdc, 0xf3, 0xff},
	vX:          color.RGBA{0x1f, 0x6f, 0xb4, 0xff},
	vO:          color.RGBA{0x7a, 0x4a, 0xaa, 0xff},
	vInaccuracy: color.RGBA{0xf5, 0x8a, 0x00, 0xff},
	vMistake:    color.RGBA{0xdc, 0x22, 0x22, 0xff},
	vBlunder:    color.RGBA{0x80, 0x00, 0x00, 0xff},
}

// markStyle is the colour and radius of a dot by mark.
var markStyle = [...]struct {
	color  uint8
	radius int
}{
	MarkNone:       {vInk, 4},
	MarkInaccuracy: {vInaccuracy, 5},
	MarkMistake:    {vMistake, 6},
	MarkBlunder:    {vBlunder, 7},
}

// Values draws the value of a game move by move as a 640x240 PNG, for a
// game review. The y axis runs from O wins (bottom: a purple band and a
// purple ring) through a draw (the grey middle line and an equals sign)
// to X wins (top: a blue band and a blue cross); the x axis is the move
// number, from 0 (the start) to len(points)-1, with a tick at every move
// and numbers at round steps. A polyline joins the points, solid between
// exact scores and dashed where either end is an estimate; each point is
// a dot, filled when exact and hollow when an estimate, coloured and
// sized by its mark. The image holds no words, so it serves every locale.
// It reads well up to 64 moves (a full 8x8 board) and draws any number.
// Equal points give equal bytes.
//
// It fails with ErrNoPoints for no points, and with ErrPoint for a score
// that is NaN or outside [0, 1] or an unknown mark.
func Values(points []Point) ([]byte, error) {
	if err := checkPoints(points); err != nil {
		return nil, err
	}
	cv := NewCanvas(valuesW, valuesH, valuesPalette)
	pl := valuesPlot{moves: len(points) - 1, xMax: max(len(points)-1, 1)}

	// Bands: X's half above the draw line, O's below.
	mid := pl.py(0.5)
	cv.Fill(vPlotLeft, vPlotTop, vPlotRight-vPlotLeft+1, mid-vPlotTop, vBandX)
	cv.Fill(vPlotLeft, mid+1, vPlotRight-vPlotLeft+1, vPlotBottom-mid, vBandO)
	cv.HLine(vPlotLeft, vPlotRight, mid, vMid)

	pl.drawYAxis(cv)
	pl.drawXAxis(cv)
	pl.drawPoints(cv, points)

	// A review chart is drawn on request: the default compression takes a
	// fifth of the time of the best for 15% more of a few kilobytes.
	return cv.PNG(png.DefaultCompression)
}

// checkPoints fails with ErrNoPoints for no points, and with ErrPoint for
// a score that is NaN or outside [0, 1] or an unknown mark.
func checkPoints(points []Point) error {
	if len(points) == 0 {
		return ErrNoPoints
	}
	for i, p := range points {
		if !(p.Score >= 0 && p.Score <= 1) {
			return fmt.Errorf("%w: point %d: score %v is not in [0, 1]", ErrPoint, i, p.Score)
		}
		if int(p.Mark) >= len(markStyle) {
			return fmt.Errorf("%w: point %d: unknown mark %d", ErrPoint, i, p.Mark)
		}
	}
	return nil
}

// valuesPlot maps the moves and scores of a review chart into its plot.
type valuesPlot struct {
	moves int // the last move, 0 for a game with no moves
	xMax  int // the move at the right of the plot: moves, at least 1
}

// px returns the x of a move.
func (pl valuesPlot) px(move int) int {
	return vPlotLeft + vInset + int(math.Round(float64(move)/float64(pl.xMax)*float64(vPlotRight-vPlotLeft-2*vInset)))
}

// py returns the y of a score.
func (pl valuesPlot) py(score float64) int {
	return vPlotBottom - vInset - int(math.Round(score*float64(vPlotBottom-vPlotTop-2*vInset)))
}

// drawYAxis draws the y axis: a cross for X, an equals sign and a ring for
// O, drawn rather than written, beside ticks at 1, 0.5 and 0.
func (pl valuesPlot) drawYAxis(cv *Canvas) {
	for _, score := range []float64{1, 0.5, 0} {
		cv.HLine(vPlotLeft-vMinorTick, vPlotLeft, pl.py(score), vInk)
	}
	x, y, r := vSymbolX, pl.py(1), vSymbolR
	cv.Line(x-r, y-r, x+r-1, y+r-1, vX, false)
	cv.Line(x-r, y+r-1, x+r-1, y-r, vX, false)
	y = pl.py(0.5)
	cv.Fill(x-r, y-r+2, 2*r+1, 2, vAxisText)
	cv.Fill(x-r, y+r-3, 2*r+1, 2, vAxisText)
	y = pl.py(0)
	cv.disc(x, y, r, vO)
	cv.disc(x, y, r-2, vWhite)
}

// drawXAxis draws the x axis: a tick at every move if they are far enough
// apart, and longer ones with numbers at round steps; the scale of a game
// with no moves is that of one move, but only its start is marked. It
// draws the plot's left edge too.
func (pl valuesPlot) drawXAxis(cv *Canvas) {
	if float64(pl.px(pl.xMax)-pl.px(0))/float64(pl.xMax) >= 4 {
		for m := 0; m <= pl.moves; m++ {
			cv.VLine(pl.px(m), vPlotBottom, vPlotBottom+vMinorTick, vInk)
		}
	}
	step := max(int(NiceStep(float64(pl.xMax), 10)), 1)
	for m := 0; m <= pl.moves; m += step {
		x := pl.px(m)
		cv.VLine(x, vPlotBottom, vPlotBottom+vMajorTick, vInk)
		label := strconv.Itoa(m)
		cv.Text(x-TextWidth(label, vTickScale)/2+1, vPlotBottom+vMajorTick+3, label, vTickScale, vAxisText)
	}
	cv.HLine(vPlotLeft, vPlotRight, vPlotBottom, vInk)
	cv.VLine(vPlotLeft, vPlotTop, vPlotBottom, vInk)
}

// drawPoints draws the line through the points, then the dots over it
// (the worse the mark, the later, so a blunder's dot is never hidden by a
// neighbour's).
func (pl valuesPlot) drawPoints(cv *Canvas, points []Point) {
	for i := 1; i < len(points); i++ {
		a, b := points[i-1], points[i]
		// Line paints a 2x2 square right of and below each point; one pixel
		// up and left, the line runs within half a pixel of the centres.
		cv.Line(pl.px(i-1)-1, pl.py(a.Score)-1, pl.px(i)-1, pl.py(b.Score)-1, vInk, !a.Exact || !b.Exact)
	}
	for mark := MarkNone; int(mark) < len(markStyle); mark++ {
		for i, p := range points {
			m := p.Mark
			if i == 0 {
				m = MarkNone
			}
			if m != mark {
				continue
			}
			s := markStyle[m]
			x, y := pl.px(i), pl.py(p.Score)
			cv.disc(x, y, s.radius, s.color)
			if !p.Exact {
				cv.disc(x, y, s.radius-2, vWhite)
			}
		}
	}
}
