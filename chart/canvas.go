// Package chart draws small standard-library PNG charts for the bot's
// messages: the retrain report's training curves (through Canvas), the
// value of a reviewed game move by move (Values), a tournament's
// elimination bracket (BracketPNG) or standings table (TablePNG), and the
// boards too big for a button grid (BoardPNG: up to 15x15, coordinates on
// every edge, the last move and the winning lines marked).
//
// A Canvas is a paletted image with the few primitives those charts share:
// rectangles, one-pixel rules, thick solid or dashed lines and text in a
// built-in 3x5 bitmap font. Drawing is on a palette with no antialiasing,
// so equal input gives equal pixels, and equal bytes from one Go release's
// PNG encoder: the charts are pinned by golden files.
package chart

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"strconv"
)

// Canvas is an image being drawn. Coordinates are pixels from the top-left
// corner; colours are indexes into the palette the canvas was made with;
// everything drawn is clipped to the image. A Canvas is not safe for
// concurrent use.
type Canvas struct {
	img *image.Paletted
}

// NewCanvas returns a w x h canvas over palette p, filled with its first
// colour.
func NewCanvas(w, h int, p color.Palette) *Canvas {
	return &Canvas{img: image.NewPaletted(image.Rect(0, 0, w, h), p)}
}

// PNG encodes the canvas at a compression level: png.BestCompression
// saves a few hundred bytes of a chart at several times the time of
// png.DefaultCompression.
func (c *Canvas) PNG(level png.CompressionLevel) ([]byte, error) {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: level}
	if err := enc.Encode(&buf, c.img); err != nil {
		return nil, fmt.Errorf("chart: encoding the PNG: %w", err)
	}
	return buf.Bytes(), nil
}

// Fill paints the w x h rectangle whose top-left corner is (x, y).
func (c *Canvas) Fill(x, y, w, h int, ci uint8) {
	r := image.Rect(x, y, x+w, y+h).Intersect(c.img.Rect)
	for yy := r.Min.Y; yy < r.Max.Y; yy++ {
		i := c.img.PixOffset(r.Min.X, yy)
		row := c.img.Pix[i : i+r.Dx()]
		for j := range row {
			row[j] = ci
		}
	}
}

// HLine draws a horizontal one-pixel line from x0 to x1 inclusive.
func (c *Canvas) HLine(x0, x1, y int, ci uint8) { c.Fill(x0, y, x1-x0+1, 1, ci) }

// VLine draws a vertical one-pixel line from y0 to y1 inclusive.
func (c *Canvas) VLine(x, y0, y1 int, ci uint8) { c.Fill(x, y0, 1, y1-y0+1, ci) }

// Line draws a two-pixel-thick line from (x0, y0) to (x1, y1) (Bresenham,
// each step a 2x2 square to the right of and below the point), dashed if
// asked: 6 steps on, 4 off along the major axis.
func (c *Canvas) Line(x0, y0, x1, y1 int, ci uint8, dashed bool) {
	c.line(x0, y0, x1, y1, ci, dashed, 0, false)
}

// Polyline draws Line through pts in order, a single point as a 2x2
// square. A dashed polyline carries its dash pattern on from one segment
// to the next, so a curve of many short segments (a training curve of
// hundreds of epochs) is dashed too, where lines drawn one by one would
// each start with a dash and join into a solid line.
func (c *Canvas) Polyline(pts []image.Point, ci uint8, dashed bool) {
	if len(pts) == 1 {
		c.Fill(pts[0].X, pts[0].Y, 2, 2, ci)
		return
	}
	step := 0
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		// The first point of a segment is the last of the one before.
		step = c.line(a.X, a.Y, b.X, b.Y, ci, dashed, step, i > 1)
	}
}

// line draws Line's steps, numbering them from step (the dash pattern's
// phase) and leaving out the first if skipFirst; it returns the number
// after the last.
func (c *Canvas) line(x0, y0, x1, y1 int, ci uint8, dashed bool, step int, skipFirst bool) int {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := sign(x1-x0), sign(y1-y0)
	err := dx + dy
	for first := true; ; first = false {
		if !first || !skipFirst {
			if !dashed || step%10 < 6 {
				c.Fill(x0, y0, 2, 2, ci)
			}
			step++
		}
		if x0 == x1 && y0 == y1 {
			return step
		}
		e2 := 2 * err
		if e2 >= dy {
			err += dy
			x0 += sx
		}
		if e2 <= dx {
			err += dx
			y0 += sy
		}
	}
}

// disc paints the pixels within radius r of (x, y) (the r*r+r bound rounds
// small discs better than r*r).
func (c *Canvas) disc(x, y, r int, ci uint8) {
	for dy := -r; dy <= r; dy++ {
		for dx := -r; dx <= r; dx++ {
			if dx*dx+dy*dy <= r*r+r {
				c.Fill(x+dx, y+dy, 1, 1, ci)
			}
		}
	}
}

// NiceStep returns a round step (1, 2 or 5 times a power of ten) that cuts
// span into about parts parts, and 1 for a span that is not positive and
// finite.
func NiceStep(span float64, parts int) float64 {
	if span <= 0 || math.IsNaN(span) || math.IsInf(span, 0) {
		return 1
	}
	raw := span / float64(parts)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// FormatTick prints a tick value with the decimals its step needs (none for
// a step of 1 or more, one for 0.2, three for 0.005).
func FormatTick(v, step float64) string {
	dec := 0
	if step < 1 {
		dec = int(math.Ceil(-math.Log10(step) - 1e-9))
	}
	return strconv.FormatFloat(v, 'f', dec, 64)
}

// abs returns |v|.
func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// sign returns -1, 0 or 1.
func sign(v int) int {
	switch {
	case v < 0:
		return -1
	case v > 0:
		return 1
	}
	return 0
}
