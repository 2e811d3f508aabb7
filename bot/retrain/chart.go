package retrain

import (
	"fmt"
	"image/color"
	"image/png"
	"math"
	"strconv"
	"strings"

	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/bot/chart"
)

// Chart geometry, in pixels.
const (
	chartW, chartH = 800, 420
	chartScale     = 2   // font scale
	panelTop       = 50  // top of the plot areas
	panelBottom    = 330 // bottom of the plot areas (the x axis)
	panelLeft1     = 56  // left edge of the loss plot
	panelLeft2     = 446 // left edge of the accuracy plot
	panelWidth     = 320
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
)

// chartPalette is the chart's palette (an immutable table).
var chartPalette = color.Palette{
	color.RGBA{0xff, 0xff, 0xff, 0xff},
	color.RGBA{0x20, 0x20, 0x20, 0xff},
	color.RGBA{0xe0, 0xe0, 0xe0, 0xff},
	color.RGBA{0x60, 0x60, 0x60, 0xff},
	color.RGBA{0x1f, 0x77, 0xb4, 0xff},
	color.RGBA{0xd6, 0x27, 0x28, 0xff},
	color.RGBA{0x2c, 0xa0, 0x2c, 0xff},
	color.RGBA{0xff, 0x7f, 0x0e, 0xff},
	color.RGBA{0x94, 0x67, 0xbd, 0xff},
}

// series is one curve of a panel.
type series struct {
	name   string
	color  uint8
	dashed bool
	ys     []float64 // one per epoch; NaN for none
}

// Chart draws the report's training curves as a PNG: the losses per epoch
// (total, policy, value, human) on the left and the accuracies in percent
// (policy and human, on the training set and, dashed, on the held-out
// set when there is one) on the right, with axes, a grid and legends,
// under a title with the rules and the outcome. Curves without data (a
// head no sample trained) are left out. The output depends only on the
// report's rules, outcome, published version and epochs, so equal
// reports give equal bytes.
func Chart(r Report) ([]byte, error) {
	cv := chart.NewCanvas(chartW, chartH, chartPalette)
	title := strings.ToUpper(r.Rules) + " RETRAIN"
	if r.Outcome != "" {
		title += " - " + strings.ToUpper(r.Outcome)
	}
	if r.Published != nil {
		title += fmt.Sprintf(" AS VERSION %d", r.Published.Version)
	}
	title += fmt.Sprintf(" - %d EPOCHS", len(r.Epochs))
	cv.Text((chartW-chart.TextWidth(title, chartScale))/2, 10, title, chartScale, cBlack)

	pick := func(f func(e nn.Epoch) float64, skipNegative bool) []float64 {
		ys := make([]float64, len(r.Epochs))
		any := false
		for i, e := range r.Epochs {
			v := f(e)
			if skipNegative && v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				v = math.NaN()
			} else if v != 0 {
				any = true
			}
			ys[i] = v
		}
		if !any {
			return nil
		}
		return ys
	}
	pct := func(f func(e nn.Epoch) float64) func(e nn.Epoch) float64 {
		return func(e nn.Epoch) float64 {
			if v := f(e); v >= 0 {
				return 100 * v
			}
			return -1
		}
	}
	loss := []series{
		{name: "total", color: cBlack, ys: pick(func(e nn.Epoch) float64 { return e.Loss }, false)},
		{name: "policy", color: cBlue, ys: pick(func(e nn.Epoch) float64 { return e.PolicyLoss }, false)},
		{name: "value", color: cGreen, ys: pick(func(e nn.Epoch) float64 { return e.ValueLoss }, false)},
		{name: "human", color: cOrange, ys: pick(func(e nn.Epoch) float64 { return e.HumanLoss }, false)},
	}
	acc := []series{
		{name: "policy", color: cBlue, ys: pick(pct(func(e nn.Epoch) float64 { return e.PolicyAcc }), true)},
		{name: "human", color: cOrange, ys: pick(pct(func(e nn.Epoch) float64 { return e.HumanAcc }), true)},
		{name: "valid policy", color: cBlue, dashed: true, ys: pick(pct(func(e nn.Epoch) float64 { return e.ValidPolicyAcc }), true)},
		{name: "valid human", color: cOrange, dashed: true, ys: pick(pct(func(e nn.Epoch) float64 { return e.ValidHumanAcc }), true)},
	}
	lossMax := 0.0
	for _, s := range loss {
		for _, y := range s.ys {
			if !math.IsNaN(y) {
				lossMax = max(lossMax, y)
			}
		}
	}
	lossStep := chart.NiceStep(lossMax, 5)
	panel(cv, panelLeft1, "loss", loss, len(r.Epochs), lossStep*math.Ceil(lossMax/lossStep), lossStep)
	panel(cv, panelLeft2, "accuracy %", acc, len(r.Epochs), 100, 20)

	b, err := cv.PNG(png.BestCompression)
	if err != nil {
		return nil, fmt.Errorf("retrain: %w", err)
	}
	return b, nil
}

// panel draws one plot: title, grid, axes with tick labels, the curves
// over epochs 1..n and y from 0 to yMax, and the legend below.
func panel(cv *chart.Canvas, left int, title string, ss []series, n int, yMax, yStep float64) {
	right := left + panelWidth
	cv.Text(left+(panelWidth-chart.TextWidth(title, chartScale))/2, panelTop-18, title, chartScale, cBlack)
	if yMax <= 0 {
		yMax, yStep = 1, 0.2
	}
	xMax := max(n, 2)
	px := func(epoch float64) int {
		return left + int(math.Round((epoch-1)/float64(xMax-1)*float64(panelWidth)))
	}
	py := func(v float64) int {
		return panelBottom - int(math.Round(v/yMax*float64(panelBottom-panelTop)))
	}
	// Grid and y labels.
	for i := 0; ; i++ {
		v := float64(i) * yStep
		if v > yMax+yStep/1e6 {
			break
		}
		y := py(v)
		cv.HLine(left, right, y, cGrid)
		label := chart.FormatTick(v, yStep)
		cv.Text(left-6-chart.TextWidth(label, chartScale), y-chart.TextHeight(chartScale)/2, label, chartScale, cAxisText)
	}
	// Grid and x labels.
	xStep := int(chart.NiceStep(float64(xMax-1), 5))
	xStep = max(xStep, 1)
	ticks := []int{1}
	for e := xStep; e <= xMax; e += xStep {
		if e-1 >= (xStep+1)/2 {
			ticks = append(ticks, e)
		}
	}
	for _, e := range ticks {
		x := px(float64(e))
		cv.VLine(x, panelTop, panelBottom, cGrid)
		label := strconv.Itoa(e)
		cv.Text(x-chart.TextWidth(label, chartScale)/2, panelBottom+8, label, chartScale, cAxisText)
	}
	axis := "epoch"
	cv.Text(left+(panelWidth-chart.TextWidth(axis, chartScale))/2, panelBottom+26, axis, chartScale, cAxisText)
	// Axes.
	cv.HLine(left, right, panelBottom, cBlack)
	cv.VLine(left, panelTop, panelBottom, cBlack)
	// Curves, in order, so the first drawn is under the others.
	for _, s := range ss {
		if s.ys == nil {
			continue
		}
		prevX, prevY, have := 0, 0, false
		for i, v := range s.ys {
			if math.IsNaN(v) {
				have = false
				continue
			}
			x, y := px(float64(i+1)), py(math.Min(v, yMax))
			if have {
				cv.Line(prevX, prevY, x, y, s.color, s.dashed)
			} else if len(s.ys) == 1 {
				cv.Fill(x-1, y-1, 3, 3, s.color)
			}
			prevX, prevY, have = x, y, true
		}
	}
	// Legend: a short line and the name of each curve, in rows below.
	x, y := left, panelBottom+48
	for _, s := range ss {
		if s.ys == nil {
			continue
		}
		w := 20 + 6 + chart.TextWidth(s.name, chartScale) + 16
		if x+w > right+40 {
			x, y = left, y+18
		}
		cv.Line(x, y+4, x+20, y+4, s.color, s.dashed)
		cv.Text(x+26, y, s.name, chartScale, cBlack)
		x += w
	}
}
