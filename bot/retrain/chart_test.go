package retrain

import (
	"bytes"
	"flag"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/tttbot/ttt-bot/ai/nn"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// chartReport is a fixed report with smooth synthetic curves.
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

// TestChartGolden compares the chart with the golden files pixel by pixel
// (so a change of the PNG encoder's compression does not matter); refresh
// them with go test -run TestChartGolden -update and look at them.
func TestChartGolden(t *testing.T) {
	tests := []struct {
		name string
		r    Report
	}{
		{"chart", chartReport(40, true)},
		{"chart_short", func() Report {
			r := chartReport(3, false)
			r.Outcome, r.Published = OutcomeRejected, nil
			for i := range r.Epochs {
				r.Epochs[i].HumanLoss, r.Epochs[i].HumanAcc = 0, -1 // no human games
			}
			return r
		}()},
		{"chart_empty", Report{Rules: "5x5k4", Outcome: OutcomeTimedOut}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Chart(tt.r)
			if err != nil {
				t.Fatal(err)
			}
			again, err := Chart(tt.r)
			if err != nil || !bytes.Equal(got, again) {
				t.Fatalf("two charts of one report differ (%v)", err)
			}
			path := filepath.Join("testdata", tt.name+".png")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			g, w := decode(t, got), decode(t, want)
			if g.Bounds() != w.Bounds() || !bytes.Equal(g.Pix, w.Pix) {
				t.Fatalf("the chart differs from %s; if the change is intended, run with -update and look at the file", path)
			}
		})
	}
}
