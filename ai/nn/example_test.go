package nn_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/game"
)

// A network is built for one rules key, trained on samples, saved as a
// safetensors file, loaded back and put live in a Set.
func Example() {
	rules := game.Classic()
	init, err := nn.New(nn.DefaultArch(rules), rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		panic(err)
	}

	// Teach it one opening move: the centre.
	var s nn.Sample
	s.Position = game.NewPosition(rules)
	s.Policy[game.NewCell(1, 1)] = 1
	s.PolicyWeight = 1
	net, epochs, err := nn.Train(context.Background(), init, []nn.Sample{s}, nn.TrainOptions{Epochs: 50, Seed: 1})
	if err != nil {
		panic(err)
	}
	fmt.Println("policy accuracy:", epochs[len(epochs)-1].PolicyAcc)

	file, err := nn.Marshal(net, nn.Meta{Version: "example"})
	if err != nil {
		panic(err)
	}
	loaded, meta, err := nn.UnmarshalFor(file, rules)
	if err != nil {
		panic(err)
	}
	fmt.Println("loaded:", meta.Rules, meta.Arch.Hidden, meta.Version)

	set := nn.NewSet()
	set.Put(loaded, meta)
	var out nn.Output
	set.Net(rules).Evaluate(game.NewPosition(rules), &out)
	fmt.Println("best opening:", set.Net(rules).Best(game.NewPosition(rules)), out.Policy[game.NewCell(1, 1)] > 0.9)
	// Output:
	// policy accuracy: 1
	// loaded: 3x3k3 [96 96] example
	// best opening: b2 true
}
