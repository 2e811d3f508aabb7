package settings

import (
	"fmt"

	"github.com/tttbot/ttt-bot/game"
)

// Preset is a board offered as a choice of the board option and of the
// default-board setting.
type Preset struct {
	// Key is the rules notation, the choice value ("4x4k3").
	Key string
	// Rules are the parsed rules.
	Rules game.Rules
}

// presetKeys are the offered boards, in menu order.
var presetKeys = [...]string{"3x3k3", "4x4k3", "4x4k4", "5x5k4", "5x5k5", "4x3xox"}

// Presets returns the offered boards in menu order: 3x3, 4x4 with 3 and
// with 4 in a row, 5x5 with 4 and with 5 in a row, and 4x3 X-O-X.
func Presets() []Preset {
	out := make([]Preset, len(presetKeys))
	for i, k := range presetKeys {
		r, err := game.ParseRules(k)
		if err != nil {
			panic(fmt.Sprintf("bot: preset %s: %v", k, err)) // a constant above is wrong
		}
		out[i] = Preset{Key: k, Rules: r}
	}
	return out
}

// PresetKeys returns the rules keys of Presets, in menu order.
func PresetKeys() []string { return presetKeys[:] }

// PresetRules returns the rules of a preset key and whether it is one.
func PresetRules(key string) (game.Rules, bool) {
	for _, k := range presetKeys {
		if k == key {
			r, err := game.ParseRules(k)
			return r, err == nil
		}
	}
	return game.Rules{}, false
}

// bigPresetKeys are the boards past the buttons offered where a game
// starts (challenge, vs-ai, ai-duel), in menu order: 7x7 five in a row
// (game's engine), 9x9 five in a row, gomoku (15x15, five or more) and
// standard gomoku (15x15, exactly five), the last three game/wide's.
var bigPresetKeys = [...]string{"7x7k5", "9x9k5", "15x15k5", "15x15k5e"}

// BigPresetKeys returns the rules keys of the big boards offered, in
// menu order. Their boards are pictures, not buttons.
func BigPresetKeys() []string { return bigPresetKeys[:] }

// IsBigPreset reports whether key is one of BigPresetKeys.
func IsBigPreset(key string) bool {
	for _, k := range bigPresetKeys {
		if k == key {
			return true
		}
	}
	return false
}
