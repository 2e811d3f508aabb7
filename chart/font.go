package chart

import "unicode"

// glyphs is a 3x5 pixel font: five rows per character, the three low bits
// of each row from left (0b100) to right (0b001). Letters are upper case
// only; text is upper-cased before drawing and unknown characters are
// drawn as '?'. It is an immutable table.
var glyphs = map[rune][5]uint8{
	'0': {0b111, 0b101, 0b101, 0b101, 0b111},
	'1': {0b010, 0b110, 0b010, 0b010, 0b111},
	'2': {0b111, 0b001, 0b111, 0b100, 0b111},
	'3': {0b110, 0b001, 0b011, 0b001, 0b110}, // not 111 rows: boxed, it reads as a mirrored E
	'4': {0b101, 0b101, 0b111, 0b001, 0b001},
	'5': {0b111, 0b100, 0b111, 0b001, 0b111},
	'6': {0b111, 0b100, 0b111, 0b101, 0b111},
	'7': {0b111, 0b001, 0b001, 0b010, 0b010},
	'8': {0b111, 0b101, 0b111, 0b101, 0b111},
	'9': {0b111, 0b101, 0b111, 0b001, 0b111},
	'A': {0b010, 0b101, 0b111, 0b101, 0b101},
	'B': {0b110, 0b101, 0b110, 0b101, 0b110},
	'C': {0b011, 0b100, 0b100, 0b100, 0b011},
	'D': {0b110, 0b101, 0b101, 0b101, 0b110},
	'E': {0b111, 0b100, 0b110, 0b100, 0b111},
	'F': {0b111, 0b100, 0b110, 0b100, 0b100},
	'G': {0b011, 0b100, 0b101, 0b101, 0b011},
	'H': {0b101, 0b101, 0b111, 0b101, 0b101},
	'I': {0b111, 0b010, 0b010, 0b010, 0b111},
	'J': {0b001, 0b001, 0b001, 0b101, 0b010},
	'K': {0b101, 0b110, 0b100, 0b110, 0b101}, // not 101/101/110/101/101: that reads as R or H
	'L': {0b100, 0b100, 0b100, 0b100, 0b111},
	'M': {0b101, 0b111, 0b111, 0b101, 0b101},
	'N': {0b110, 0b101, 0b101, 0b101, 0b101},
	'O': {0b010, 0b101, 0b101, 0b101, 0b010},
	'P': {0b110, 0b101, 0b110, 0b100, 0b100},
	'Q': {0b010, 0b101, 0b101, 0b110, 0b011},
	'R': {0b110, 0b101, 0b110, 0b101, 0b101},
	'S': {0b011, 0b100, 0b010, 0b001, 0b110},
	'T': {0b111, 0b010, 0b010, 0b010, 0b010},
	'U': {0b101, 0b101, 0b101, 0b101, 0b111},
	'V': {0b101, 0b101, 0b101, 0b101, 0b010},
	'W': {0b101, 0b101, 0b111, 0b111, 0b101},
	'X': {0b101, 0b101, 0b010, 0b101, 0b101},
	'Y': {0b101, 0b101, 0b010, 0b010, 0b010},
	'Z': {0b111, 0b001, 0b010, 0b100, 0b111},
	' ': {},
	'.': {0, 0, 0, 0, 0b010},
	',': {0, 0, 0, 0b010, 0b100},
	'-': {0, 0, 0b111, 0, 0},
	'+': {0, 0b010, 0b111, 0b010, 0},
	'=': {0, 0b111, 0, 0b111, 0},
	'%': {0b100, 0b001, 0b010, 0b100, 0b001}, // not 101 at the ends: that reads as Z
	':': {0, 0b010, 0, 0b010, 0},
	'/': {0b001, 0b001, 0b010, 0b100, 0b100},
	'(': {0b010, 0b100, 0b100, 0b100, 0b010},
	')': {0b010, 0b001, 0b001, 0b001, 0b010},
	'?': {0b111, 0b001, 0b010, 0, 0b010},
	'#': {0b010, 0b111, 0b010, 0b111, 0b010},
}

// Font metrics at scale 1: a glyph is 3x5 pixels and characters advance
// by 4.
const (
	glyphW, glyphH, glyphAdvance = 3, 5, 4
)

// TextWidth returns the width in pixels of s drawn at scale (one font pixel
// a scale x scale square): 4*scale per character less the gap after the
// last.
func TextWidth(s string, scale int) int {
	n := len([]rune(s))
	if n == 0 {
		return 0
	}
	return (n*glyphAdvance - 1) * scale
}

// TextHeight returns the height in pixels of text drawn at scale.
func TextHeight(scale int) int { return glyphH * scale }

// Drawable reports whether the font has every character of s (letters in
// either case), so that Text draws no '?' in place of one: a chart checks
// its fixed words with it in a test.
func Drawable(s string) bool {
	for _, ch := range s {
		if _, ok := glyphs[unicode.ToUpper(ch)]; !ok {
			return false
		}
	}
	return true
}

// Text draws s with its top-left corner at (x, y), each font pixel a
// scale x scale square of colour ci. The font has digits, the Latin
// letters (drawn upper case), space and . , - + = % : / ( ) ? #; any other
// character is drawn as '?', so text for people in other languages does
// not belong in a chart.
func (c *Canvas) Text(x, y int, s string, scale int, ci uint8) {
	for _, ch := range s {
		g, ok := glyphs[unicode.ToUpper(ch)]
		if !ok {
			g = glyphs['?']
		}
		for row := range glyphH {
			for col := range glyphW {
				if g[row]&(0b100>>col) == 0 {
					continue
				}
				c.Fill(x+col*scale, y+row*scale, scale, scale, ci)
			}
		}
		x += glyphAdvance * scale
	}
}
