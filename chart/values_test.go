package chart

import (
	"bytes"
	"errors"
	"image"
	"image/png"
	"math"
	"math/rand/v2"
	"testing"
)

// game3x3 is a classic game, solved throughout: O answers the centre on an
// edge (a blunder: X now wins), X lets the win go to a draw (a mistake),
// and the game is drawn.
func game3x3() []Point {
	ps := []Point{{Score: 0.5, Exact: true}}
	for i, s := range []float64{0.5, 1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.5} {
		p := Point{Score: s, Exact: true}
		switch i + 1 {
		case 2:
			p.Mark = MarkBlunder
		case 5:
			p.Mark = MarkMistake
		}
		ps = append(ps, p)
	}
	return ps
}

// game5x5 is a 25-move game of 5x5 whose first 17 values are a network's
// estimates and the last 8 solved: X drifts ahead, makes an inaccuracy
// and a mistake, O a blunder, and X wins.
func game5x5() []Point {
	est := []float64{0.52, 0.55, 0.53, 0.58, 0.56, 0.61, 0.47, 0.5, 0.54, 0.57, 0.52, 0.31, 0.35, 0.38, 0.62, 0.7, 0.74, 0.81}
	ps := make([]Point, 0, 26)
	for _, s := range est {
		ps = append(ps, Point{Score: s})
	}
	for range 8 {
		ps = append(ps, Point{Score: 1, Exact: true})
	}
	ps[7].Mark = MarkInaccuracy  // X: 0.61 -> 0.47
	ps[12].Mark = MarkMistake    // X: 0.52 -> 0.31
	ps[15].Mark = MarkInaccuracy // O: 0.62 -> 0.70
	ps[18].Mark = MarkBlunder    // O: an estimate of 0.81 -> a solved X win
	return ps
}

// game8x8 is 64 moves of estimates that swing from side to side, with a
// mark every seventh move.
func game8x8() []Point {
	ps := make([]Point, 65)
	for i := range ps {
		ps[i] = Point{Score: 0.5 + 0.45*math.Sin(float64(i)/6)*math.Exp(-float64(i)/80), Mark: Mark(i % 7 % 4)}
	}
	ps[64] = Point{Score: 0, Exact: true}
	return ps
}

// decode returns the PNG's pixels as RGBA, failing the test if it is not
// a PNG.
func decode(t testing.TB, b []byte) *image.RGBA {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	out := image.NewRGBA(img.Bounds())
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			out.Set(x, y, img.At(x, y))
		}
	}
	return out
}

// TestValuesGolden compares the review charts with the golden files pixel
// by pixel (so a change of the PNG encoder's compression does not matter);
// refresh them with go test -run TestValuesGolden -update and look at them.
func TestValuesGolden(t *testing.T) {
	tests := []struct {
		name   string
		points []Point
	}{
		{"values_3x3_blunder", game3x3()},
		{"values_5x5_estimates", game5x5()},
		{"values_one_move", []Point{{Score: 0.58}, {Score: 0.41, Mark: MarkInaccuracy}}},
		{"values_64_moves", game8x8()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Values(tt.points)
			if err != nil {
				t.Fatal(err)
			}
			again, err := Values(tt.points)
			if err != nil || !bytes.Equal(got, again) {
				t.Fatalf("two charts of one game differ (%v)", err)
			}
			golden(t, tt.name, got)
		})
	}
}

func TestValuesErrors(t *testing.T) {
	ok := Point{Score: 0.5, Exact: true}
	tests := []struct {
		name   string
		points []Point
		want   error
	}{
		{"nil", nil, ErrNoPoints},
		{"empty", []Point{}, ErrNoPoints},
		{"NaN", []Point{ok, {Score: math.NaN()}}, ErrPoint},
		{"negative", []Point{{Score: -0.01}}, ErrPoint},
		{"above one", []Point{ok, ok, {Score: 1.0001}}, ErrPoint},
		{"infinite", []Point{{Score: math.Inf(1)}}, ErrPoint},
		{"unknown mark", []Point{ok, {Score: 0.5, Mark: MarkBlunder + 1}}, ErrPoint},
		{"unknown mark at the start", []Point{{Score: 0.5, Mark: 200}}, ErrPoint},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Values(tt.points)
			if !errors.Is(err, tt.want) || b != nil {
				t.Fatalf("Values = %d bytes, %v; want %v", len(b), err, tt.want)
			}
		})
	}
}

// TestValuesEveryLength checks every game length from the start alone to
// 64 moves, with random valid points: a PNG of the fixed size whose edges
// (the margins) are white, so nothing is drawn off the chart.
func TestValuesEveryLength(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for moves := 0; moves <= 64; moves++ {
		ps := make([]Point, moves+1)
		for i := range ps {
			ps[i] = Point{Score: rng.Float64(), Exact: rng.IntN(2) == 0, Mark: Mark(rng.IntN(4))}
			if rng.IntN(4) == 0 {
				ps[i].Score = float64(rng.IntN(3)) / 2 // the edges and the middle
			}
		}
		b, err := Values(ps)
		if err != nil {
			t.Fatalf("%d moves: %v", moves, err)
		}
		img := decode(t, b)
		if img.Bounds() != image.Rect(0, 0, valuesW, valuesH) {
			t.Fatalf("%d moves: size %v; want %dx%d", moves, img.Bounds().Size(), valuesW, valuesH)
		}
		for x := range valuesW {
			for _, y := range []int{0, 1, valuesH - 2, valuesH - 1} {
				if r, g, bl, _ := img.At(x, y).RGBA(); r&g&bl != 0xffff {
					t.Fatalf("%d moves: pixel (%d, %d) is drawn; the margins should be white", moves, x, y)
				}
			}
		}
		for y := range valuesH {
			for _, x := range []int{0, valuesW - 1} {
				if r, g, bl, _ := img.At(x, y).RGBA(); r&g&bl != 0xffff {
					t.Fatalf("%d moves: pixel (%d, %d) is drawn; the margins should be white", moves, x, y)
				}
			}
		}
	}
}

// FuzzValues reads points from bytes, three a point: two for the score
// (a fraction of 65535, or above it past 1, or when the flag's top bit is
// set the raw bits of a float32, NaN and infinities included) and a flag
// (bit 0: exact; bits 1-3: the mark). Values must never panic, must fail
// exactly when a point is invalid, and otherwise return a PNG of the fixed
// size.
func FuzzValues(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0x80, 0x00, 0x01})
	f.Add([]byte{0xff, 0xff, 0x01, 0x00, 0x00, 0x07, 0x40, 0x00, 0x04})
	f.Add([]byte{0x7f, 0xc0, 0x80}) // a NaN
	f.Add(bytes.Repeat([]byte{0x12, 0x34, 0x05}, 65))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 3*80 {
			return
		}
		var ps []Point
		valid := true
		for ; len(data) >= 3; data = data[3:] {
			raw := uint16(data[0])<<8 | uint16(data[1])
			flag := data[2]
			score := float64(raw) / 65535
			if flag&0x80 != 0 {
				score = float64(math.Float32frombits(uint32(raw)<<16 | uint32(raw)))
			} else if flag&0x40 != 0 {
				score = 1 + float64(raw)/1000
			}
			p := Point{Score: score, Exact: flag&1 != 0, Mark: Mark(flag >> 1 & 7)}
			if math.IsNaN(score) || score < 0 || score > 1 || p.Mark > MarkBlunder {
				valid = false
			}
			ps = append(ps, p)
		}
		b, err := Values(ps)
		switch {
		case len(ps) == 0:
			if !errors.Is(err, ErrNoPoints) {
				t.Fatalf("no points: %v; want ErrNoPoints", err)
			}
		case !valid:
			if !errors.Is(err, ErrPoint) {
				t.Fatalf("%v: %v; want ErrPoint", ps, err)
			}
		default:
			if err != nil {
				t.Fatalf("%v: %v", ps, err)
			}
			cfg, err := png.DecodeConfig(bytes.NewReader(b))
			if err != nil || cfg.Width != valuesW || cfg.Height != valuesH {
				t.Fatalf("%v: %dx%d, %v; want a %dx%d PNG", ps, cfg.Width, cfg.Height, err, valuesW, valuesH)
			}
			if _, err := png.Decode(bytes.NewReader(b)); err != nil {
				t.Fatalf("%v: %v", ps, err)
			}
		}
	})
}

func BenchmarkValues(b *testing.B) {
	for _, bm := range []struct {
		name   string
		points []Point
	}{
		{"3x3", game3x3()},
		{"5x5", game5x5()},
		{"64moves", game8x8()},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Values(bm.points); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
