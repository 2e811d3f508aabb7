package chart

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"testing"
)

func TestNiceStep(t *testing.T) {
	tests := []struct {
		span  float64
		parts int
		want  float64
	}{
		{1, 5, 0.2},
		{3.7, 5, 1},
		{39, 5, 10},
		{0, 5, 1},
		{-3, 5, 1},
		{math.NaN(), 5, 1},
		{math.Inf(1), 5, 1},
		{0.013, 5, 0.005},
		{9, 10, 1},
		{25, 10, 5},
		{64, 10, 10},
	}
	for _, tt := range tests {
		if got := NiceStep(tt.span, tt.parts); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("NiceStep(%v, %d) = %v; want %v", tt.span, tt.parts, got, tt.want)
		}
	}
}

func TestFormatTick(t *testing.T) {
	tests := []struct {
		v, step float64
		want    string
	}{
		{20, 10, "20"},
		{3, 1, "3"},
		{0.4, 0.2, "0.4"},
		{0.015, 0.005, "0.015"},
		{0, 0.05, "0.00"},
	}
	for _, tt := range tests {
		if got := FormatTick(tt.v, tt.step); got != tt.want {
			t.Errorf("FormatTick(%v, %v) = %q; want %q", tt.v, tt.step, got, tt.want)
		}
	}
}

func TestTextWidth(t *testing.T) {
	tests := []struct {
		s     string
		scale int
		want  int
	}{
		{"", 2, 0},
		{"0", 1, 3},
		{"10", 2, 14},
		{"ΑΒΓ", 1, 11}, // counted in characters, drawn as ?
	}
	for _, tt := range tests {
		if got := TextWidth(tt.s, tt.scale); got != tt.want {
			t.Errorf("TextWidth(%q, %d) = %d; want %d", tt.s, tt.scale, got, tt.want)
		}
	}
	if got := TextHeight(3); got != 15 {
		t.Errorf("TextHeight(3) = %d; want 15", got)
	}
}

// TestText checks that text is drawn upper case, that characters the font
// lacks are drawn as '?', and that only the text's box is painted.
func TestText(t *testing.T) {
	pal := color.Palette{color.White, color.Black}
	draw := func(s string) *Canvas {
		c := NewCanvas(20, 8, pal)
		c.Text(1, 1, s, 1, 1)
		return c
	}
	if a, b := draw("ab"), draw("AB"); !bytes.Equal(a.img.Pix, b.img.Pix) {
		t.Error("lower case is not drawn as upper case")
	}
	if a, b := draw("λ"), draw("?"); !bytes.Equal(a.img.Pix, b.img.Pix) {
		t.Error("a character the font lacks is not drawn as '?'")
	}
	c := draw("8")
	for y := range 8 {
		for x := range 20 {
			want := x >= 1 && x < 1+glyphW && y >= 1 && y < 1+glyphH && glyphs['8'][y-1]&(0b100>>(x-1)) != 0
			if on := c.img.ColorIndexAt(x, y) == 1; on != want {
				t.Fatalf("pixel (%d, %d) painted %v; want %v", x, y, on, want)
			}
		}
	}
}

// TestClip draws across and beyond every edge: nothing panics and the
// pixels inside are painted.
func TestClip(t *testing.T) {
	c := NewCanvas(10, 10, color.Palette{color.White, color.Black})
	c.Fill(-5, -5, 30, 30, 1)
	c.HLine(-3, 40, 12, 1)
	c.VLine(-1, -9, 9, 1)
	c.Line(-20, -20, 30, 25, 1, true)
	c.Text(-4, 8, "CLIP 123", 3, 1)
	c.disc(0, 9, 7, 1)
	for i, p := range c.img.Pix {
		if p != 1 {
			t.Fatalf("pixel %d not painted by a fill that covers the image", i)
		}
	}
	if b, err := c.PNG(png.BestSpeed); err != nil || len(b) == 0 {
		t.Fatalf("PNG: %d bytes, %v", len(b), err)
	}
}

// TestLine checks the ends and the dashes of a horizontal line: 2 pixels
// thick, 6 steps on and 4 off.
func TestLine(t *testing.T) {
	c := NewCanvas(30, 4, color.Palette{color.White, color.Black})
	c.Line(0, 1, 20, 1, 1, true)
	var got []byte
	for x := range 30 {
		got = append(got, '0'+c.img.ColorIndexAt(x, 1))
		if c.img.ColorIndexAt(x, 1) != c.img.ColorIndexAt(x, 2) || c.img.ColorIndexAt(x, 0) != 0 {
			t.Fatalf("column %d is not a two-pixel line from row 1", x)
		}
	}
	// Step i paints pixels i and i+1: steps 0-5 on, 6-9 off, 10-15 on,
	// 16-19 off, 20 on.
	if want := "111111100011111110001100000000"; string(got) != want {
		t.Errorf("dashed line = %s; want %s", got, want)
	}
}

// TestPolyline checks that a dashed polyline of one-step segments keeps
// its dash pattern (Line by Line would paint them all), that a solid one
// draws what Line does, and that a single point is a 2x2 square.
func TestPolyline(t *testing.T) {
	row := func(c *Canvas) string {
		var got []byte
		for x := range 30 {
			got = append(got, '0'+c.img.ColorIndexAt(x, 1))
		}
		return string(got)
	}
	var pts []image.Point
	for x := range 21 {
		pts = append(pts, image.Pt(x, 1))
	}
	pal := color.Palette{color.White, color.Black}
	dashed, line := NewCanvas(30, 4, pal), NewCanvas(30, 4, pal)
	dashed.Polyline(pts, 1, true)
	line.Line(0, 1, 20, 1, 1, true)
	if got, want := row(dashed), row(line); got != want {
		t.Errorf("dashed polyline of 1-pixel segments = %s; want %s, the dashed line's", got, want)
	}
	solid, line := NewCanvas(30, 4, pal), NewCanvas(30, 4, pal)
	solid.Polyline([]image.Point{{0, 1}, {7, 1}, {20, 1}}, 1, false)
	line.Line(0, 1, 20, 1, 1, false)
	if !bytes.Equal(solid.img.Pix, line.img.Pix) {
		t.Error("a solid polyline differs from the line it follows")
	}
	dot := NewCanvas(4, 4, pal)
	dot.Polyline([]image.Point{{1, 1}}, 1, true)
	if got := row(dot)[:4]; got != "0110" {
		t.Errorf("a one-point polyline paints row 1 as %s; want 0110", got)
	}
}

func TestDrawable(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{"", true},
		{"accuracy 100%", true},
		{"3X3K3 RETRAIN - PROMOTED", true},
		{"held–out", false}, // an en dash
		{"α", false},
		{"_", false},
	}
	for _, tt := range tests {
		if got := Drawable(tt.s); got != tt.want {
			t.Errorf("Drawable(%q) = %v; want %v", tt.s, got, tt.want)
		}
	}
}
