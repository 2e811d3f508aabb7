package chart

import (
	"errors"
	"fmt"
	"image/color"
	"image/png"
	"math/bits"
	"strings"
)

// ErrBracket means BracketPNG got a malformed bracket: no rounds, a round
// with the wrong number of matches, too many rounds, or a winner out of
// range or on a side that is a bye or not yet known. It is wrapped with
// the details.
var ErrBracket = errors.New("chart: invalid bracket")

// Bracket is a single-elimination tournament to draw, round by round.
type Bracket struct {
	// Title is drawn above the bracket: short ASCII, may be empty, cut to
	// 60 characters.
	Title string
	// Rounds are the matches from the first round to the final. Round 0
	// has one match per two places of the bracket: 1 to 32, a power of
	// two (a bracket of 2 to 64); each next round has half as many, and
	// the last has one, the final. Trailing rounds that are not drawn up
	// yet may be left out: they are drawn as empty boxes.
	Rounds [][]Match
}

// Match is one match of a Bracket. Match j of a round feeds match j/2 of
// the next: as its top side if j is even, its bottom side if odd.
type Match struct {
	// Top and Bottom label the two sides: short ASCII such as "#1 ALICE"
	// or "#12", cut to 16 characters (the font draws anything other than
	// letters, digits and a few symbols as '?'). "BYE" is a bye, and so
	// is an empty label in round 0. In a later round an empty label is
	// the winner of the match that feeds that side, once it is decided,
	// and otherwise a side still to be decided.
	Top, Bottom string
	// TopScore and BottomScore are drawn beside the labels, right
	// aligned; either may be empty; cut to 5 characters.
	TopScore, BottomScore string
	// Winner is 0 while the match is undecided, 1 when Top won and 2 when
	// Bottom won. A match of a player against a bye is the player's even
	// at 0.
	Winner int
}

// Geometry of the bracket, in pixels. Text is at scale 2 throughout: the
// largest bracket (64 places, every label and score at its longest)
// stays within about 1550x1420 pixels.
const (
	bScale      = 2
	bTitleScale = 3
	bMargin     = 12
	bTitleGap   = 10 // between the title and the boxes
	bPadX       = 6  // left and right of the text in a box
	bRowH       = 16 // a side's row: 10 pixels of text and 3 above and below
	bBoxH       = 2*bRowH + 3
	bGap        = 9  // between two boxes of round 0; bBoxH+bGap is even
	bColGap     = 32 // between two rounds, where the lines run
	bLine       = 2  // thickness of a winner's line
	bMaxMatches = 32
	bMaxLabel   = 16
	bMinLabel   = 6 // the name cell is never narrower than 6 characters
	bMaxScore   = 5
	bMaxTitle   = 60
)

// Palette indexes of the bracket.
const (
	bWhite uint8 = iota
	bInk
	bGrey      // a loser's text, a bye's "BYE"
	bBorder    // box borders
	bDivider   // between the sides, and before the scores
	bPending   // lines out of undecided matches
	bByeFill   // a bye's row
	bWinFill   // a winner's row
	bWinLine   // lines out of decided matches
	bChampFill // the champion's box
	bChampEdge // its border and trophy
)

// bracketPalette is the bracket's palette (an immutable table): winners
// green, the champion gold.
var bracketPalette = color.Palette{
	bWhite:     color.RGBA{0xff, 0xff, 0xff, 0xff},
	bInk:       color.RGBA{0x26, 0x26, 0x26, 0xff},
	bGrey:      color.RGBA{0x8a, 0x8a, 0x8a, 0xff},
	bBorder:    color.RGBA{0x6e, 0x6e, 0x6e, 0xff},
	bDivider:   color.RGBA{0xc8, 0xc8, 0xc8, 0xff},
	bPending:   color.RGBA{0xb4, 0xb4, 0xb4, 0xff},
	bByeFill:   color.RGBA{0xec, 0xec, 0xec, 0xff},
	bWinFill:   color.RGBA{0xd4, 0xee, 0xd0, 0xff},
	bWinLine:   color.RGBA{0x2e, 0x8b, 0x3e, 0xff},
	bChampFill: color.RGBA{0xff, 0xdf, 0x73, 0xff},
	bChampEdge: color.RGBA{0xb0, 0x80, 0x10, 0xff},
}

// trophy is a 7x6 cup with handles drawn before the champion's name, a
// row's bits from left (0b1000000) to right (0b0000001), at the text's
// scale.
var trophy = [...]uint8{0b1111111, 0b1011101, 0b0111110, 0b0011100, 0b0001000, 0b0111110}

const trophyW = 7

// side is one side of a match as drawn.
type side struct {
	label, score string
	bye          bool
}

// slot is a match as drawn: labels filled in from the previous round and
// the winner of a match against a bye decided.
type slot struct {
	sides  [2]side
	winner int // 0, 1 or 2
}

// BracketPNG draws a single-elimination bracket as a PNG: a box per match
// with its two sides and their scores, the rounds from left to right, the
// final's winner in a gold box with a trophy at the right. A winner's row
// is green with bold text and a green line leads from it to its place in
// the next round; a loser's text is grey, a bye's row grey, and a grey
// line leads out of a match still undecided. Only the title and the
// labels and scores are words, so the rest serves every locale. Equal
// brackets give equal bytes.
//
// It fails with ErrBracket for a malformed bracket: see Bracket and Match.
func BracketPNG(b Bracket) ([]byte, error) {
	rounds, err := resolve(b)
	if err != nil {
		return nil, err
	}
	title := clip(strings.TrimSpace(b.Title), bMaxTitle)
	l := bracketLayout(rounds, title)
	cv := NewCanvas(l.w, l.h, bracketPalette)
	if title != "" {
		cv.Text(bMargin, bMargin, title, bTitleScale, bInk)
	}
	l.drawLines(cv, rounds)
	l.drawBoxes(cv, rounds)
	l.drawChampion(cv, rounds[len(rounds)-1][0])
	// A bracket is drawn on request: the default compression, as for
	// Values.
	return cv.PNG(png.DefaultCompression)
}

// bracketGeom is where the parts of a bracket go.
type bracketGeom struct {
	total     int // rounds
	nameW     int // the widest label, bold
	scoreW    int // the widest score, bold; 0 if there is none
	nameCell  int // a name cell's width, padding included
	scoreCell int // a score cell's width, its divider included; 0 if no score
	boxW      int // a match's box, border included
	champX    int // the left of the champion's box
	champW    int // its width
	champTop  int // its top
	// centre[r][j] is the y of the divider of match j of round r.
	centre [][]int
	w, h   int // the picture's size
}

// bracketLayout measures a bracket of rounds (as resolve returns them)
// under title.
func bracketLayout(rounds [][]slot, title string) bracketGeom {
	n0, total := len(rounds[0]), len(rounds)
	l := bracketGeom{total: total}
	// Widths: every name cell fits the longest label, every score cell
	// the longest score (no score cell when there is none).
	l.nameW = TextWidth(strings.Repeat("0", bMinLabel), bScale)
	for _, ms := range rounds {
		for _, m := range ms {
			for _, s := range m.sides {
				// +1: a winner's text is bold, a pixel wider.
				l.nameW = max(l.nameW, TextWidth(s.label, bScale)+1)
				if s.score != "" {
					l.scoreW = max(l.scoreW, TextWidth(s.score, bScale)+1)
				}
			}
		}
	}
	l.nameCell = bPadX + l.nameW + bPadX
	if l.scoreW > 0 {
		l.scoreCell = 1 + bPadX + l.scoreW + bPadX
	}
	l.boxW = 1 + l.nameCell + l.scoreCell + 1
	l.champW = 2 + bPadX + trophyW*bScale + bPadX + l.nameW + bPadX + 2
	l.champX = l.colX(total)

	top := bMargin
	if title != "" {
		top += TextHeight(bTitleScale) + bTitleGap
	}
	pitch := bBoxH + bGap
	// The dividers are evenly spaced in round 0, then halfway between
	// the two matches that feed them (exact, as the pitch is even).
	l.centre = make([][]int, total)
	l.centre[0] = make([]int, n0)
	for j := range l.centre[0] {
		l.centre[0][j] = top + j*pitch + bBoxH/2
	}
	for r := 1; r < total; r++ {
		l.centre[r] = make([]int, len(rounds[r]))
		for j := range l.centre[r] {
			l.centre[r][j] = (l.centre[r-1][2*j] + l.centre[r-1][2*j+1]) / 2
		}
	}
	l.champTop = l.centre[total-1][0] - bRowH/2 - 2
	l.w = max(l.champX+l.champW+bMargin, TextWidth(title, bTitleScale)+2*bMargin)
	l.h = top + n0*pitch - bGap + bMargin
	return l
}

// colX returns the left of the boxes of round r.
func (l bracketGeom) colX(r int) int { return bMargin + r*(l.boxW+bColGap) }

// rowTop returns the top of side k's row in a box whose divider is at y.
func rowTop(y, k int) int { return y - bRowH + k*(bRowH+1) }

// lineY returns the top of a line t pixels thick through the middle of
// the row whose top is ry: a two-pixel line takes the two middle pixels,
// a one-pixel line the lower of them, level with the divider of a box
// centred on the row.
func lineY(ry, t int) int { return ry + bRowH/2 - t/2 }

// drawLines draws the lines, grey ones first: out of each match at its
// winner's row (or its middle), right to halfway to the next round, up or
// down, and right into the side of the next match it feeds (or the
// champion's box).
func (l bracketGeom) drawLines(cv *Canvas, rounds [][]slot) {
	for _, decided := range []bool{false, true} {
		for r, ms := range rounds {
			for j, m := range ms {
				if (m.winner != 0) != decided {
					continue
				}
				x0 := l.colX(r) + l.boxW
				y0, t, ci := l.centre[r][j], 1, bPending
				if decided {
					y0, t, ci = lineY(rowTop(l.centre[r][j], m.winner-1), bLine), bLine, bWinLine
				}
				x1, y1 := l.champX, lineY(l.champTop+2, t)
				if r+1 < l.total {
					x1, y1 = l.colX(r+1), lineY(rowTop(l.centre[r+1][j/2], j%2), t)
				}
				xm := x0 + bColGap/2 - 1
				cv.Fill(x0, y0, xm+t-x0, t, ci)
				cv.Fill(xm, min(y0, y1), t, abs(y1-y0)+t, ci)
				cv.Fill(xm, y1, x1-xm, t, ci)
			}
		}
	}
}

// bTextDY is how far below the top of its row a side's text starts.
const bTextDY = (bRowH - glyphH*bScale) / 2

// drawBoxes draws the box of every match: a row per side, its label and
// score, a winner's row green and bold, a loser's text and a bye's row
// grey.
func (l bracketGeom) drawBoxes(cv *Canvas, rounds [][]slot) {
	for r, ms := range rounds {
		for j, m := range ms {
			x, y := l.colX(r), l.centre[r][j]-bBoxH/2
			cv.Fill(x, y, l.boxW, bBoxH, bBorder)
			for k, s := range m.sides {
				ry := rowTop(l.centre[r][j], k)
				fill, ink, bold := bWhite, bInk, false
				switch {
				case s.bye:
					fill, ink = bByeFill, bGrey
				case m.winner == k+1:
					fill, bold = bWinFill, true
				case m.winner != 0:
					ink = bGrey
				}
				cv.Fill(x+1, ry, l.boxW-2, bRowH, fill)
				drawText(cv, x+1+bPadX, ry+bTextDY, s.label, bScale, ink, bold)
				if l.scoreCell > 0 {
					sx := x + 1 + l.nameCell
					cv.VLine(sx, ry, ry+bRowH-1, bDivider)
					sw := TextWidth(s.score, bScale)
					if bold {
						sw++
					}
					drawText(cv, sx+1+bPadX+l.scoreW-sw, ry+bTextDY, s.score, bScale, ink, bold)
				}
			}
			cv.HLine(x+1, x+l.boxW-2, l.centre[r][j], bDivider)
		}
	}
}

// drawChampion draws the champion's box right of final, the last match:
// the trophy, then the final's winner, gold once there is one.
func (l bracketGeom) drawChampion(cv *Canvas, final slot) {
	champX, champTop := l.champX, l.champTop
	cv.Fill(champX, champTop, l.champW, bRowH+4, bChampEdge)
	fill := bWhite
	if final.winner != 0 {
		fill = bChampFill
	}
	cv.Fill(champX+2, champTop+2, l.champW-4, bRowH, fill)
	tx, ty := champX+2+bPadX, champTop+2+bTextDY
	cupY := champTop + 2 + (bRowH-len(trophy)*bScale)/2
	for row, bitsRow := range trophy {
		for col := range trophyW {
			if bitsRow&(1<<(trophyW-1-col)) != 0 {
				cv.Fill(tx+col*bScale, cupY+row*bScale, bScale, bScale, bChampEdge)
			}
		}
	}
	if final.winner != 0 {
		drawText(cv, tx+trophyW*bScale+bPadX, ty, final.sides[final.winner-1].label, bScale, bInk, true)
	}
}

// resolve checks a bracket and returns all its rounds as drawn: missing
// rounds empty, empty labels after round 0 filled in with the winners
// that feed them, and matches against a bye won.
func resolve(b Bracket) ([][]slot, error) {
	if len(b.Rounds) == 0 {
		return nil, fmt.Errorf("%w: no rounds", ErrBracket)
	}
	n0 := len(b.Rounds[0])
	if n0 < 1 || n0 > bMaxMatches || n0&(n0-1) != 0 {
		return nil, fmt.Errorf("%w: round 0 has %d matches; want a power of two from 1 to %d", ErrBracket, n0, bMaxMatches)
	}
	total := bits.Len(uint(n0)) // log2(n0) + 1
	if len(b.Rounds) > total {
		return nil, fmt.Errorf("%w: %d rounds; a bracket of %d has %d", ErrBracket, len(b.Rounds), 2*n0, total)
	}
	for r, ms := range b.Rounds {
		if want := n0 >> r; len(ms) != want {
			return nil, fmt.Errorf("%w: round %d has %d matches; want %d", ErrBracket, r, len(ms), want)
		}
		for j, m := range ms {
			if m.Winner < 0 || m.Winner > 2 {
				return nil, fmt.Errorf("%w: round %d match %d: winner %d; want 0 (undecided), 1 (top) or 2 (bottom)", ErrBracket, r, j, m.Winner)
			}
		}
	}

	rounds := make([][]slot, total)
	for r := range rounds {
		rounds[r] = make([]slot, n0>>r)
		for j := range rounds[r] {
			var m Match
			if r < len(b.Rounds) {
				m = b.Rounds[r][j]
			}
			var sl slot
			for k, l := range [2]string{m.Top, m.Bottom} {
				l = strings.TrimSpace(l)
				s := side{label: clip(l, bMaxLabel)}
				switch {
				case strings.EqualFold(l, "BYE"):
					s.bye = true
				case l == "" && r == 0:
					s.bye = true
				case l == "":
					if f := rounds[r-1][2*j+k]; f.winner != 0 {
						s.label = f.sides[f.winner-1].label
					}
				}
				sl.sides[k] = s
			}
			sl.sides[0].score = clip(strings.TrimSpace(m.TopScore), bMaxScore)
			sl.sides[1].score = clip(strings.TrimSpace(m.BottomScore), bMaxScore)

			sl.winner = m.Winner
			if w := sl.winner; w != 0 {
				switch s := sl.sides[w-1]; {
				case s.bye:
					return nil, fmt.Errorf("%w: round %d match %d: winner %d is a bye", ErrBracket, r, j, w)
				case s.label == "":
					return nil, fmt.Errorf("%w: round %d match %d: winner %d is not known yet", ErrBracket, r, j, w)
				}
			} else if top, bottom := sl.sides[0], sl.sides[1]; bottom.bye && !top.bye && top.label != "" {
				sl.winner = 1 // a walkover, once the player is known
			} else if top.bye && !bottom.bye && bottom.label != "" {
				sl.winner = 2
			}
			rounds[r][j] = sl
		}
	}
	return rounds, nil
}

// drawText writes s, bold if asked: drawn twice a pixel apart, one pixel
// wider (legible from scale 2).
func drawText(cv *Canvas, x, y int, s string, scale int, ci uint8, bold bool) {
	cv.Text(x, y, s, scale, ci)
	if bold {
		cv.Text(x+1, y, s, scale, ci)
	}
}

// clip cuts s to at most n characters, the last of a cut string a '.'.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "."
}
