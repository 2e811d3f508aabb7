package weights_test

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"testing"

	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/weights"
)

// presets are the rules keys the bot offers; each must have shipped
// weights.
var presets = []string{"3x3k3", "4x3xox", "4x4k3", "4x4k4", "5x5k4", "5x5k5"}

func TestEveryPresetIsShipped(t *testing.T) {
	if got := weights.Rules(); !slices.Equal(got, presets) {
		t.Errorf("Rules() = %v, want %v", got, presets)
	}
}

// TestShippedFilesDecode checks every shipped file with the full validation
// of nn.UnmarshalFor, for the rules its name says.
func TestShippedFilesDecode(t *testing.T) {
	for _, key := range weights.Rules() {
		t.Run(key, func(t *testing.T) {
			r, err := game.ParseRules(key)
			if err != nil {
				t.Fatalf("file name %q is not a rules key: %v", key, err)
			}
			if r.String() != key {
				t.Fatalf("file name %q is not canonical (%q)", key, r.String())
			}
			b, err := weights.Load(key)
			if err != nil {
				t.Fatal(err)
			}
			n, m, err := nn.UnmarshalFor(b, r)
			if err != nil {
				t.Fatal(err)
			}
			if m.Rules != key || n.Rules().String() != key || m.Version == "" {
				t.Errorf("meta %+v for %s", m, key)
			}
			t.Logf("%s: version %q, %d parameters, hidden %v, %d bytes", key, m.Version, n.Params(), m.Arch.Hidden, len(b))
		})
	}
}

func TestLoadMissing(t *testing.T) {
	for _, key := range []string{"", "8x8k5", "../weights", "3x3k3.safetensors", "nope"} {
		if b, err := weights.Load(key); !errors.Is(err, fs.ErrNotExist) || b != nil {
			t.Errorf("Load(%q) = %d bytes, %v; want fs.ErrNotExist", key, len(b), err)
		}
	}
}

func TestLoadReturnsACopy(t *testing.T) {
	a, err := weights.Load("3x3k3")
	if err != nil {
		t.Fatal(err)
	}
	a[0] ^= 0xff
	b, _ := weights.Load("3x3k3")
	if a[0] == b[0] {
		t.Error("changing the bytes Load returned changed the shipped file")
	}
}

func ExampleLoad() {
	b, err := weights.Load("3x3k3")
	if err != nil {
		fmt.Println(err)
		return
	}
	n, _, err := nn.UnmarshalFor(b, game.Classic())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(n.Rules())
	// Output: 3x3k3
}
