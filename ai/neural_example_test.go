package ai_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/game"
)

// The neural levels play whatever network a Set holds for the game's
// rules; the bot swaps networks in the Set while games go on.
func ExampleNeuralLevel() {
	rules := game.Classic()
	init, err := nn.New(nn.DefaultArch(rules), rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		panic(err)
	}
	// A network that has learnt one thing: open in the centre.
	var s nn.Sample
	s.Position = game.NewPosition(rules)
	s.Policy[game.NewCell(1, 1)], s.PolicyWeight = 1, 1
	net, _, err := nn.Train(context.Background(), init, []nn.Sample{s}, nn.TrainOptions{Epochs: 50})
	if err != nil {
		panic(err)
	}

	models := nn.NewSet()
	reg := ai.NewRegistry()
	reg.Register(ai.NeuralLevel(models))
	reg.Register(ai.HumanlikeLevel(models))
	player, err := reg.New("neural", ai.Options{})
	if err != nil {
		panic(err)
	}
	if _, err := player.Move(context.Background(), game.NewPosition(rules)); err != nil {
		fmt.Println(err)
	}
	models.Put(net, nn.Meta{Version: "example"})
	c, err := player.Move(context.Background(), game.NewPosition(rules))
	fmt.Println(c, err)
	// Output:
	// ai: no network for these rules: 3x3k3; no network is loaded for any rules
	// b2 <nil>
}
