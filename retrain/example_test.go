package retrain_test

import (
	"bytes"
	"fmt"
	"image/png"

	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/retrain"
)

// Chart draws a report's training curves; the bot attaches the PNG to its
// report embed.
func ExampleChart() {
	rep := retrain.Report{Rules: "3x3k3", Outcome: retrain.OutcomePromoted, Published: &retrain.Published{Version: 2}}
	for i, loss := range []float64{2.1, 1.4, 1.1, 0.9} {
		rep.Epochs = append(rep.Epochs, nn.Epoch{N: i + 1, Of: 4, Loss: loss, PolicyLoss: loss / 2, PolicyAcc: 1 - loss/3, HumanAcc: -1, ValidPolicyAcc: -1, ValidHumanAcc: -1})
	}
	b, err := retrain.Chart(rep)
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	fmt.Println(cfg.Width, cfg.Height, err)
	// Output: 800 420 <nil>
}
