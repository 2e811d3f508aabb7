package chart_test

import (
	"bytes"
	"fmt"
	"image/png"

	"github.com/tttbot/ttt-bot/chart"
)

// Values draws a reviewed game: here a 3x3 game where O answers the centre
// on an edge, which throws the draw away, and X wins; every value is
// solved.
func ExampleValues() {
	points := []chart.Point{
		{Score: 0.5, Exact: true},                        // the start
		{Score: 0.5, Exact: true},                        // X takes the centre
		{Score: 1, Exact: true, Mark: chart.MarkBlunder}, // O answers on an edge
		{Score: 1, Exact: true},
		{Score: 1, Exact: true},
		{Score: 1, Exact: true}, // X makes a fork
		{Score: 1, Exact: true},
		{Score: 1, Exact: true}, // X completes a line
	}
	b, err := chart.Values(points)
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	fmt.Println(cfg.Width, cfg.Height, err)

	_, err = chart.Values([]chart.Point{{Score: 1.5}})
	fmt.Println(err)
	// Output:
	// 640 240 <nil>
	// chart: invalid point: point 0: score 1.5 is not in [0, 1]
}
