package retrain

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"strconv"
	"strings"

	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/chart"
)

// Chart geometry, in pixels. Each plot is framed by the rectangle
// [left, left+panelWidth] x [panelTop, panelBottom]; the data maps into it
// inset by plotInset on every side, so a curve at 100% or at the last
// epoch runs inside the frame, on its gridline, not along the frame.
const (
	chartW, chartH = 800, 420
	chartScale     = 2   // font scale
	titleY         = 10  // top of the title
	panelTop       = 50  // top of the plot frames
	panelBottom    = 330 // bottom of the plot frames (the x axis)
	panelLeft1     = 56  // left edge of the loss plot
	panelLeft2     = 446 // left edge of the accuracy plot
	panelWidth     = 320
	plotInset      = 8  // gap between a frame and the data's range
	tickLen        = 4  // length of a tick mark outside the frame
	legendTop      = 46 // legend's first row, below panelBottom
	legendRow      = 18 // height of a legend row
	legendSample   = 16 // length of a legend's line: 6 on, 4 off, 6 on when dashed
	legendGap      = 16 // space after a legend entry
)

// Loss axis bounds: losses outside them are drawn at the bound.
const (
	lossFloor, lossCeiling = 1e-4, 1e4
	// minDecadePx is the height of a decade of the loss axis from which
	// it is labelled at 1, 2 and 5 times each power of ten, not just at
	// the powers.
	minDecadePx = 60
)

// Palette indexes of the chart.
const (
	cWhite uint8 = iota
	cBlack
	cGrid
	cAxisText
	cBlue
	cRed
	cGreen
	cOrange
	cPurple
	cLightBlue
	cLightOrange
)

// chartPalette is the chart's palette (an immutable table). The light
// blue and orange are the held-out curves', dashed beside their
// training curves.
var chartPalette = color.Palette{
	cWhite:       color.RGBA{0xff, 0xff, 0xff, 0xff},
	cBlack:       color.RGBA{0x20, 0x20, 0x20, 0xff},
	cGrid:        color.RGBA{0xe0, 0xe0, 0xe0, 0xff},
	cAxisText:    color.RGBA{0x60, 0x60, 0x60, 0xff},
	cBlue:        color.RGBA{0x1f, 0x77, 0xb4, 0xff},
	cRed:         color.RGBA{0xd6, 0x27, 0x28, 0xff},
	cGreen:       color.RGBA{0x2c, 0xa0, 0x2c, 0xff},
	cOrange:      color.RGBA{0xff, 0x7f, 0x0e, 0xff},
	cPurple:      color.RGBA{0x94, 0x67, 0xbd, 0xff},
	cLightBlue:   color.RGBA{0x6b, 0xae, 0xe0, 0xff},
	cLightOrange: color.RGBA{0xff, 0xb3, 0x70, 0xff},
}

// The chart's fixed words (all in chart's font: a test checks).
const (
	wordLossTitle = "loss (log scale)"
	wordAccTitle  = "accuracy"
	wordEpoch     = "epoch"
	wordNoData    = "no data"
	wordNoCurves  = "no training curves"
	wordNoEpoch   = "the run ended before its first epoch"
)

// series is one curve of a panel.
type series struct {
	name   string
	color  uint8
	dashed bool
	row    int       // the legend row
	ys     []float64 // one per epoch; NaN for none; nil for no data at all
}

// yAxis maps a panel's values to heights and says where its gridlines go.
type yAxis struct {
	ticks []tick
	// frac is the height of v from 0 (the bottom of the data's range) to
	// 1 (the top), clamped to [0, 1].
	frac func(v float64) float64
}

// tick is a labelled gridline.
type tick struct {
	v     float64
	label string
}

// Chart draws the report's training curves as an 800x420 PNG, under a
// title with the rules, the outcome and the number of epochs: on the left
// the losses per epoch (total, policy, value, human) on a log scale, so
// that a huge first epoch leaves the rest readable (losses outside 1e-4
// to 1e4 are drawn at the bound); on the right the accuracies from 0 to
// 100% (policy and human on the training set and, dashed in a lighter
// shade, on the held-out set when there is one). The x axes are the
// epochs, numbered from 1. A curve without data (a head no sample trains:
// a loss of 0, an accuracy of -1) is left out, legend and all; a panel
// with no curve says "no data"; a report with no epochs (a run that
// failed or timed out before training) gives a picture that says there
// are no training curves, which the bot does not attach. The output
// depends only on the report's rules, outcome, published version and
// epochs, so equal reports give equal bytes.
func Chart(r Report) ([]byte, error) {
	cv := chart.NewCanvas(chartW, chartH, chartPalette)
	title := chartTitle(r)
	cv.Text((chartW-chart.TextWidth(title, chartScale))/2, titleY, title, chartScale, cBlack)
	if len(r.Epochs) == 0 {
		noCurves(cv)
	} else {
		loss, acc := curves(r.Epochs)
		n := len(r.Epochs)
		panel(cv, panelLeft1, wordLossTitle, loss, n, lossAxis(loss))
		panel(cv, panelLeft2, wordAccTitle, acc, n, percentAxis())
	}
	b, err := cv.PNG(png.BestCompression)
	if err != nil {
		return nil, fmt.Errorf("retrain: %w", err)
	}
	return b, nil
}

// chartTitle is the chart's title: "3X3K3 RETRAIN - PROMOTED AS VERSION 7
// - 40 EPOCHS", with "12 OF 40 EPOCHS" for a run cut off before its last
// epoch.
func chartTitle(r Report) string {
	title := strings.ToUpper(r.Rules) + " RETRAIN"
	if r.Outcome != "" {
		title += " - " + strings.ToUpper(r.Outcome)
	}
	if r.Published != nil {
		title += fmt.Sprintf(" AS VERSION %d", r.Published.Version)
	}
	n := len(r.Epochs)
	if n == 0 {
		return title
	}
	count := strconv.Itoa(n)
	if of := r.Epochs[n-1].Of; of > n {
		count += " OF " + strconv.Itoa(of)
	}
	if n == 1 && count == "1" {
		return title + " - 1 EPOCH"
	}
	return title + " - " + count + " EPOCHS"
}

// curves returns the loss and accuracy curves of epochs. A loss of 0 or
// less is no data (nn.Epoch reports 0 for a head no sample trains), and so
// is an accuracy below 0 (-1); a curve with no data at all is nil.
func curves(epochs []nn.Epoch) (loss, acc []series) {
	pick := func(f func(e nn.Epoch) float64, ok func(v float64) bool, scale float64) []float64 {
		ys := make([]float64, len(epochs))
		any := false
		for i, e := range epochs {
			v := f(e)
			if math.IsNaN(v) || math.IsInf(v, 0) || !ok(v) {
				ys[i] = math.NaN()
				continue
			}
			ys[i], any = scale*v, true
		}
		if !any {
			return nil
		}
		return ys
	}
	isLoss := func(v float64) bool { return v > 0 }
	isAcc := func(v float64) bool { return v >= 0 }
	loss = []series{
		{name: "total", color: cBlack, ys: pick(func(e nn.Epoch) float64 { return e.Loss }, isLoss, 1)},
		{name: "policy", color: cBlue, ys: pick(func(e nn.Epoch) float64 { return e.PolicyLoss }, isLoss, 1)},
		{name: "value", color: cGreen, ys: pick(func(e nn.Epoch) float64 { return e.ValueLoss }, isLoss, 1)},
		{name: "human", color: cOrange, ys: pick(func(e nn.Epoch) float64 { return e.HumanLoss }, isLoss, 1)},
	}
	// The held-out curves come after the training ones, so that where
	// they meet (both at 100%) the dashes show over the solid line.
	acc = []series{
		{name: "policy", color: cBlue, ys: pick(func(e nn.Epoch) float64 { return e.PolicyAcc }, isAcc, 100)},
		{name: "human", color: cOrange, ys: pick(func(e nn.Epoch) float64 { return e.HumanAcc }, isAcc, 100)},
		{name: "held-out policy", color: cLightBlue, dashed: true, row: 1, ys: pick(func(e nn.Epoch) float64 { return e.ValidPolicyAcc }, isAcc, 100)},
		{name: "held-out human", color: cLightOrange, dashed: true, row: 1, ys: pick(func(e nn.Epoch) float64 { return e.ValidHumanAcc }, isAcc, 100)},
	}
	return loss, acc
}

// percentAxis is the accuracy axis: 0 to 100%, labelled every 20.
func percentAxis() yAxis {
	var ts []tick
	for v := 0; v <= 100; v += 20 {
		ts = append(ts, tick{float64(v), strconv.Itoa(v) + "%"})
	}
	return yAxis{ticks: ts, frac: func(v float64) float64 { return math.Max(0, math.Min(1, v/100)) }}
}

// lossAxis is a log axis over the losses of ss, from the 1-2-5 value at
// or below the least to the one at or above the greatest (at least one
// step apart), labelled at 1, 2 and 5 times the powers of ten when a
// decade has room for them and at the powers only (the bounds widened to
// powers) when not.
func lossAxis(ss []series) yAxis {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for _, y := range s.ys {
			if !math.IsNaN(y) {
				lo, hi = math.Min(lo, y), math.Max(hi, y)
			}
		}
	}
	if lo > hi { // no data: the axis of a loss of 1
		lo, hi = 1, 1
	}
	lo = math.Max(lossFloor, math.Min(lo, lossCeiling))
	hi = math.Max(lossFloor, math.Min(hi, lossCeiling))
	bottom, top := math.Floor(oneTwoFive(lo)), math.Ceil(oneTwoFive(hi))
	if bottom == top {
		bottom, top = bottom-1, top+1
	}
	height := float64(panelBottom - panelTop - 2*plotInset)
	fine := height/((top-bottom)/3) >= minDecadePx // three 1-2-5 steps a decade
	if !fine {
		bottom, top = 3*math.Floor(bottom/3), 3*math.Ceil(top/3)
	}
	var ts []tick
	for i := bottom; i <= top; i++ {
		if !fine && int(i)%3 != 0 {
			continue
		}
		v := fromOneTwoFive(int(i))
		ts = append(ts, tick{v, strconv.FormatFloat(v, 'f', -1, 64)})
	}
	lb, lt := math.Log10(fromOneTwoFive(int(bottom))), math.Log10(fromOneTwoFive(int(top)))
	return yAxis{ticks: ts, frac: func(v float64) float64 {
		v = math.Max(lossFloor, math.Min(v, lossCeiling))
		return math.Max(0, math.Min(1, (math.Log10(v)-lb)/(lt-lb)))
	}}
}

// oneTwoFive returns the position of v on the scale whose integers are
// the 1-2-5 values (0 is 1, 1 is 2, 2 is 5, 3 is 10, -1 is 0.5),
// interpolated between them.
func oneTwoFive(v float64) float64 {
	decade := math.Floor(math.Log10(v))
	m := v / math.Pow(10, decade) // in [1, 10)
	// Snap a mantissa a rounding error off a 1-2-5 value onto it.
	for _, k := range []float64{1, 2, 5, 10} {
		if math.Abs(m-k) < 1e-9*k {
			m = k
		}
	}
	var pos float64
	switch {
	case m < 2:
		pos = m - 1
	case m < 5:
		pos = 1 + (m-2)/3
	default:
		pos = 2 + (m-5)/5
	}
	return 3*decade + pos
}

// fromOneTwoFive returns the 1-2-5 value at integer position i of
// oneTwoFive's scale, the nearest float64 to it (so it prints short).
func fromOneTwoFive(i int) float64 {
	decade := i / 3
	if i%3 < 0 {
		decade--
	}
	m := [3]float64{1, 2, 5}[i-3*decade]
	if decade < 0 {
		return m / math.Pow(10, float64(-decade))
	}
	return m * math.Pow(10, float64(decade))
}

// epochX returns the x of epoch (from 1) of n from a panel's left edge:
// from plotInset to panelWidth-plotInset, or the middle when n is 1.
func epochX(n, epoch int) int {
	if n <= 1 {
		return panelWidth / 2
	}
	return plotInset + int(math.Round(float64(epoch-1)/float64(n-1)*float64(panelWidth-2*plotInset)))
}

// epochTicks returns the epochs of n to label: every one up to 10, else
// epoch 1, the multiples of a round step and the last, leaving out a
// label that would come within labelGap pixels of the one before (the
// last epoch's label wins over a multiple's).
func epochTicks(n int) []int {
	const labelGap = 12
	step := 1
	if n > 10 {
		step = int(chart.NiceStep(float64(n-1), 5))
	}
	epochs := []int{1}
	for e := step; e <= n; e += step {
		if e > 1 {
			epochs = append(epochs, e)
		}
	}
	if epochs[len(epochs)-1] != n {
		epochs = append(epochs, n)
	}
	halfWidth := func(e int) int { return chart.TextWidth(strconv.Itoa(e), chartScale) / 2 }
	var shown []int
	for _, e := range epochs {
		if k := len(shown); k > 0 && epochX(n, shown[k-1])+halfWidth(shown[k-1])+labelGap > epochX(n, e)-halfWidth(e) {
			if e != n || k == 1 {
				continue
			}
			shown = shown[:k-1] // make room for the last epoch
		}
		shown = append(shown, e)
	}
	return shown
}

// panel draws one plot: its title, frame, grid and labels, the curves of
// ss over epochs 1..n (or "no data" when none has any), the x axis title
// and the legend below.
func panel(cv *chart.Canvas, left int, title string, ss []series, n int, ax yAxis) {
	right := left + panelWidth
	textH := chart.TextHeight(chartScale)
	cv.Text(left+(panelWidth-chart.TextWidth(title, chartScale))/2, panelTop-18, title, chartScale, cBlack)
	frame := func() {
		cv.HLine(left, right, panelTop, cAxisText)
		cv.HLine(left, right, panelBottom, cBlack)
		cv.VLine(left, panelTop, panelBottom, cBlack)
		cv.VLine(right, panelTop, panelBottom, cAxisText)
	}
	drawn := 0
	for _, s := range ss {
		if s.ys != nil {
			drawn++
		}
	}
	if drawn == 0 {
		frame()
		cv.Text(left+(panelWidth-chart.TextWidth(wordNoData, chartScale))/2, (panelTop+panelBottom-textH)/2, wordNoData, chartScale, cAxisText)
		return
	}

	px := func(epoch int) int { return left + epochX(n, epoch) }
	py := func(v float64) int {
		return panelBottom - plotInset - int(math.Round(ax.frac(v)*float64(panelBottom-panelTop-2*plotInset)))
	}

	// Grid and y labels.
	for _, t := range ax.ticks {
		y := py(t.v)
		cv.HLine(left, right, y, cGrid)
		cv.HLine(left-tickLen, left, y, cBlack)
		cv.Text(left-tickLen-4-chart.TextWidth(t.label, chartScale), y-textH/2, t.label, chartScale, cAxisText)
	}
	// Grid and x labels.
	for _, e := range epochTicks(n) {
		x := px(e)
		cv.VLine(x, panelTop, panelBottom, cGrid)
		cv.VLine(x, panelBottom, panelBottom+tickLen, cBlack)
		label := strconv.Itoa(e)
		cv.Text(x-chart.TextWidth(label, chartScale)/2, panelBottom+tickLen+4, label, chartScale, cAxisText)
	}
	cv.Text(left+(panelWidth-chart.TextWidth(wordEpoch, chartScale))/2, panelBottom+26, wordEpoch, chartScale, cAxisText)
	frame()

	// Curves, in order, so the first drawn is under the others. Polyline
	// paints a 2x2 square right of and below each point; one pixel up and
	// left, the curve runs within half a pixel of the points.
	for _, s := range ss {
		if s.ys == nil {
			continue
		}
		var run []image.Point
		flush := func() {
			if len(run) == 1 { // a point on its own: a 4x4 dot
				cv.Fill(run[0].X-1, run[0].Y-1, 4, 4, s.color)
			} else {
				cv.Polyline(run, s.color, s.dashed)
			}
			run = run[:0]
		}
		for i, v := range s.ys {
			if math.IsNaN(v) {
				flush()
				continue
			}
			run = append(run, image.Pt(px(i+1)-1, py(v)-1))
		}
		flush()
	}

	legend(cv, left, ss)
}

// legend draws a short line and the name of each curve with data below
// a panel, a row per series.row, in columns as wide as their widest entry.
func legend(cv *chart.Canvas, left int, ss []series) {
	var rows [][]series
	for _, s := range ss {
		if s.ys == nil {
			continue
		}
		for len(rows) <= s.row {
			rows = append(rows, nil)
		}
		rows[s.row] = append(rows[s.row], s)
	}
	var widths []int
	for _, row := range rows {
		for i, s := range row {
			w := legendSample + 6 + chart.TextWidth(s.name, chartScale) + legendGap
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], w)
		}
	}
	y := panelBottom + legendTop
	for _, row := range rows {
		if len(row) == 0 {
			continue
		}
		x := left
		for i, s := range row {
			cv.Line(x, y+4, x+legendSample-1, y+4, s.color, s.dashed)
			cv.Text(x+legendSample+6, y, s.name, chartScale, cBlack)
			x += widths[i]
		}
		y += legendRow
	}
}

// noCurves draws the picture of a report with no epochs: a frame across
// both panels that says so, in place of empty plots.
func noCurves(cv *chart.Canvas) {
	left, right := panelLeft1, panelLeft2+panelWidth
	cv.HLine(left, right, panelTop, cAxisText)
	cv.HLine(left, right, panelBottom, cAxisText)
	cv.VLine(left, panelTop, panelBottom, cAxisText)
	cv.VLine(right, panelTop, panelBottom, cAxisText)
	const big = 2 * chartScale
	mid := (left + right) / 2
	y := (panelTop+panelBottom)/2 - chart.TextHeight(big)
	cv.Text(mid-chart.TextWidth(wordNoCurves, big)/2, y, wordNoCurves, big, cBlack)
	y += chart.TextHeight(big) + 12
	cv.Text(mid-chart.TextWidth(wordNoEpoch, chartScale)/2, y, wordNoEpoch, chartScale, cAxisText)
}
