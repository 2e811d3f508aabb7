package retrain

import (
	"bytes"
	"image"
	"image/png"
	"math"
	"slices"
	"testing"

	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/chart"
	goldenfile "github.com/tttbot/ttt-bot/internal/golden"
)

// chartReport is a fixed report with smooth synthetic curves over
// epochs epochs, with validation figures if valid.
func chartReport(epochs int, valid bool) Report {
	r := Report{Rules: "3x3k3", Outcome: OutcomePromoted, Published: &Published{Version: 7}}
	for i := range epochs {
		t := float64(i) / float64(max(epochs-1, 1))
		e := nn.Epoch{
			N: i + 1, Of: epochs,
			PolicyLoss:     1.8*math.Exp(-4*t) + 0.15,
			ValueLoss:      0.6*math.Exp(-3*t) + 0.05,
			HumanLoss:      1.2*math.Exp(-2*t) + 0.6,
			PolicyAcc:      1 - 0.7*math.Exp(-5*t),
			HumanAcc:       0.75 - 0.5*math.Exp(-3*t),
			ValidPolicyAcc: -1,
			ValidHumanAcc:  -1,
		}
		e.Loss = e.PolicyLoss + e.ValueLoss + e.HumanLoss
		if valid {
			e.ValidPolicyAcc, e.ValidHumanAcc = e.PolicyAcc-0.03, e.HumanAcc-0.08
		}
		r.Epochs = append(r.Epochs, e)
	}
	return r
}

// noHuman removes the human head's figures, as a run on a corpus with no
// human games reports them: a loss of 0 and accuracies of -1.
func noHuman(r Report) Report {
	for i := range r.Epochs {
		e := &r.Epochs[i]
		e.Loss -= e.HumanLoss
		e.HumanLoss, e.HumanAcc, e.ValidHumanAcc = 0, -1, -1
	}
	return r
}

// longReport is a 300-epoch run on a 5x5 board, noisy as real curves
// are (a fixed wobble, no randomness), with validation figures that fall
// behind the training ones as the network overfits.
func longReport() Report {
	const n = 300
	r := Report{Rules: "5x5k4", Outcome: OutcomeRejected}
	for i := range n {
		t := float64(i) / (n - 1)
		w := 0.03*math.Sin(float64(i)*1.7) + 0.02*math.Sin(float64(i)*0.31)
		e := nn.Epoch{
			N: i + 1, Of: n,
			PolicyLoss: (2.4*math.Exp(-6*t) + 0.4) * (1 + w),
			ValueLoss:  (0.9*math.Exp(-5*t) + 0.12) * (1 - w),
			HumanLoss:  (2.0*math.Exp(-3*t) + 1.1) * (1 + w/2),
			PolicyAcc:  0.92 - 0.8*math.Exp(-7*t) + w/3,
			HumanAcc:   0.48 - 0.4*math.Exp(-4*t) + w/4,
		}
		e.Loss = e.PolicyLoss + e.ValueLoss + e.HumanLoss
		e.ValidPolicyAcc = e.PolicyAcc - 0.02 - 0.1*t
		e.ValidHumanAcc = e.HumanAcc - 0.05 - 0.06*t
		r.Epochs = append(r.Epochs, e)
	}
	return r
}

// perfectReport is a 3x3 run whose policy accuracy, on the training set
// and on the held-out one, reaches 100% exactly, as it does on the small
// boards, and stays there.
func perfectReport() Report {
	r := chartReport(24, true)
	for i := range r.Epochs {
		e := &r.Epochs[i]
		e.PolicyAcc = math.Min(1, 0.55+0.06*float64(i))
		e.ValidPolicyAcc = math.Min(1, 0.5+0.05*float64(i))
	}
	return r
}

// spikeReport is a run whose first epoch's losses are huge (a cold start
// with a large learning rate), the rest ordinary.
func spikeReport() Report {
	r := chartReport(20, true)
	e := &r.Epochs[0]
	e.PolicyLoss, e.ValueLoss, e.HumanLoss = 31, 4.2, 9.5
	e.Loss = e.PolicyLoss + e.ValueLoss + e.HumanLoss
	return r
}

// decode returns the PNG's pixels as RGBA bytes.
func decode(t *testing.T, b []byte) *image.RGBA {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the chart is not a PNG: %v", err)
	}
	out := image.NewRGBA(img.Bounds())
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			out.Set(x, y, img.At(x, y))
		}
	}
	return out
}

// chartCases are the reports the chart is pinned on, one golden file
// each: the shapes of real runs and of the ones that broke the chart.
func chartCases() []struct {
	name string
	r    Report
} {
	partial := chartReport(40, true)
	partial.Epochs, partial.Outcome, partial.Published = partial.Epochs[:12], OutcomeTimedOut, nil
	noAcc := chartReport(5, false) // every accuracy -1: a panel of no data
	for i := range noAcc.Epochs {
		noAcc.Epochs[i].PolicyAcc, noAcc.Epochs[i].HumanAcc = -1, -1
	}
	short := noHuman(chartReport(3, false))
	short.Outcome, short.Published = OutcomeRejected, nil
	return []struct {
		name string
		r    Report
	}{
		{"chart", chartReport(40, true)},   // with validation figures
		{"chart_short", short},             // 3 epochs, no human games
		{"chart_long", longReport()},       // 300 noisy epochs
		{"chart_perfect", perfectReport()}, // accuracies at 100% exactly
		{"chart_spike", spikeReport()},     // a huge first epoch
		{"chart_no_human", noHuman(chartReport(40, true))},
		{"chart_one", chartReport(1, true)}, // a single epoch: dots
		{"chart_partial", partial},          // timed out after 12 of 40
		{"chart_no_accuracy", noAcc},
		{"chart_empty", Report{Rules: "5x5k4", Outcome: OutcomeTimedOut}},
	}
}

// golden compares a PNG with testdata/name.png pixel by pixel, rewriting
// the file first with -update (package golden).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.EqualPNG(t, name+".png", got)
}

// TestChartGolden compares the charts of chartCases with the golden
// files; refresh them with go test -run TestChartGolden -update and look
// at them.
func TestChartGolden(t *testing.T) {
	for _, tt := range chartCases() {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Chart(tt.r)
			if err != nil {
				t.Fatal(err)
			}
			again, err := Chart(tt.r)
			if err != nil || !bytes.Equal(got, again) {
				t.Fatalf("two charts of one report differ (%v)", err)
			}
			golden(t, tt.name, got)
		})
	}
}

// paletted decodes a chart to its palette indexes.
func paletted(t *testing.T, b []byte) *image.Paletted {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the chart is not a PNG: %v", err)
	}
	p, ok := img.(*image.Paletted)
	if !ok {
		t.Fatalf("the chart decodes as %T; want *image.Paletted", img)
	}
	return p
}

// TestChartFrame checks that no curve touches or leaves a plot's frame:
// within the plots' height, every pixel of a curve's colour is strictly
// inside a frame (so a curve at 100% or at the last epoch runs inside,
// on its gridline), and the frame's lines are frame colours only.
func TestChartFrame(t *testing.T) {
	curve := map[uint8]bool{cBlue: true, cGreen: true, cOrange: true, cLightBlue: true, cLightOrange: true}
	frame := map[uint8]bool{cBlack: true, cAxisText: true}
	for _, tt := range chartCases() {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Chart(tt.r)
			if err != nil {
				t.Fatal(err)
			}
			img := paletted(t, b)
			for y := panelTop; y <= panelBottom; y++ {
				for x := range chartW {
					ci := img.ColorIndexAt(x, y)
					inside, onFrame := false, false
					for _, left := range []int{panelLeft1, panelLeft2} {
						right := left + panelWidth
						inside = inside || x > left && x < right && y > panelTop && y < panelBottom
						onFrame = onFrame || (x == left || x == right) && x >= left && x <= right ||
							(y == panelTop || y == panelBottom) && x >= left && x <= right
					}
					if curve[ci] && !inside {
						t.Fatalf("a curve's pixel (colour %d) at (%d, %d), on or outside a frame", ci, x, y)
					}
					if onFrame && len(tt.r.Epochs) > 0 && !frame[ci] {
						t.Fatalf("the frame at (%d, %d) has colour %d", x, y, ci)
					}
				}
			}
		})
	}
}

// TestChartLeavesOutMissingHeads checks that a head with no data (a human
// loss of 0, accuracies of -1) is neither drawn nor in the legend: the
// chart of a run without human games has no orange at all.
func TestChartLeavesOutMissingHeads(t *testing.T) {
	b, err := Chart(noHuman(chartReport(40, true)))
	if err != nil {
		t.Fatal(err)
	}
	for i, ci := range paletted(t, b).Pix {
		if ci == cOrange || ci == cLightOrange {
			t.Fatalf("pixel %d is orange, the human head's colour", i)
		}
	}
}

// TestChartWords checks that every word the chart draws is in the font
// (a character it lacks is drawn as '?').
func TestChartWords(t *testing.T) {
	words := []string{wordLossTitle, wordAccTitle, wordEpoch, wordNoData, wordNoCurves, wordNoEpoch}
	loss, acc := curves(chartReport(2, true).Epochs)
	for _, s := range append(loss, acc...) {
		words = append(words, s.name)
	}
	for _, tk := range append(percentAxis().ticks, lossAxis(nil).ticks...) {
		words = append(words, tk.label)
	}
	for _, outcome := range []string{OutcomePromoted, OutcomeRejected, OutcomeTimedOut, OutcomeFailed} {
		r := chartReport(3, false)
		r.Outcome = outcome
		words = append(words, chartTitle(r))
	}
	for _, w := range words {
		if !chart.Drawable(w) {
			t.Errorf("%q has a character the chart's font lacks", w)
		}
	}
}

func TestChartTitle(t *testing.T) {
	partial := chartReport(40, false)
	partial.Epochs, partial.Outcome, partial.Published = partial.Epochs[:12], OutcomeTimedOut, nil
	tests := []struct {
		r    Report
		want string
	}{
		{chartReport(40, false), "3X3K3 RETRAIN - PROMOTED AS VERSION 7 - 40 EPOCHS"},
		{chartReport(1, false), "3X3K3 RETRAIN - PROMOTED AS VERSION 7 - 1 EPOCH"},
		{partial, "3X3K3 RETRAIN - TIMED OUT - 12 OF 40 EPOCHS"},
		{Report{Rules: "5x5k4", Outcome: OutcomeFailed}, "5X5K4 RETRAIN - FAILED"},
	}
	for _, tt := range tests {
		if got := chartTitle(tt.r); got != tt.want {
			t.Errorf("chartTitle = %q; want %q", got, tt.want)
		}
	}
}

// TestChartEpochTicks checks the epoch axis: numbered from 1, whole
// epochs, the last one labelled, no two labels touching.
func TestChartEpochTicks(t *testing.T) {
	tests := []struct {
		n    int
		want []int
	}{
		{1, []int{1}},
		{2, []int{1, 2}},
		{3, []int{1, 2, 3}},
		{10, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{24, []int{1, 5, 10, 15, 20, 24}},
		{40, []int{1, 10, 20, 30, 40}},
		{41, []int{1, 10, 20, 30, 41}},
		{300, []int{1, 100, 200, 300}},
		{1000, []int{1, 200, 400, 600, 800, 1000}},
	}
	for _, tt := range tests {
		if got := epochTicks(tt.n); !slices.Equal(got, tt.want) {
			t.Errorf("epochTicks(%d) = %v; want %v", tt.n, got, tt.want)
		}
	}
}

// TestChartLossAxis checks the loss axis's log scale: 1-2-5 labels over
// the data's range, powers of ten only over a wide one, the range clamped.
func TestChartLossAxis(t *testing.T) {
	tests := []struct {
		lo, hi float64
		want   []string
	}{
		{0.08, 4.4, []string{"0.05", "0.1", "0.2", "0.5", "1", "2", "5"}},
		{1, 1, []string{"0.5", "1", "2"}},
		{0.9, 1.1, []string{"0.5", "1", "2"}},
		{0.08, 44.7, []string{"0.05", "0.1", "0.2", "0.5", "1", "2", "5", "10", "20", "50"}},
		{0.002, 900, []string{"0.001", "0.01", "0.1", "1", "10", "100", "1000"}},
		{1e-9, 1e9, []string{"0.0001", "0.001", "0.01", "0.1", "1", "10", "100", "1000", "10000"}},
	}
	for _, tt := range tests {
		ax := lossAxis([]series{{ys: []float64{tt.hi, math.NaN(), tt.lo}}})
		var got []string
		for _, tk := range ax.ticks {
			got = append(got, tk.label)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("lossAxis(%v..%v) ticks = %v; want %v", tt.lo, tt.hi, got, tt.want)
		}
		if f := ax.frac(tt.lo); f < 0 || f > ax.frac(tt.hi) || ax.frac(tt.hi) > 1 {
			t.Errorf("lossAxis(%v..%v): frac(lo) = %v, frac(hi) = %v; want 0 <= lo <= hi <= 1", tt.lo, tt.hi, f, ax.frac(tt.hi))
		}
	}
}
