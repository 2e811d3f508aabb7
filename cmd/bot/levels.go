package main

import (
	"errors"
	"strings"
	"sync"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/weights"
)

// newLevels returns the AI levels of the command line: the built-in ones,
// and "neural" and "humanlike" playing the shipped weights (package
// weights). serve registers the two again on the set its model watcher
// keeps up to date.
func newLevels() *ai.Registry {
	reg := ai.NewRegistry()
	m := &shippedModels{}
	reg.Register(ai.NeuralLevel(m))
	reg.Register(ai.HumanlikeLevel(m))
	return reg
}

// shippedModels is an ai.Models of the shipped weights, decoded on first
// use, so that commands that play no network do not pay for decoding
// them. A file that does not decode (which the weights tests rule out) is
// left out: its rules then have no network, and the level says so.
type shippedModels struct {
	once sync.Once
	set  *nn.Set
}

// load decodes every shipped file into the set.
func (m *shippedModels) load() {
	m.set = loadShipped(nil)
}

// Net returns the shipped network for r, or nil.
func (m *shippedModels) Net(r game.Rules) *nn.Net {
	m.once.Do(m.load)
	return m.set.Net(r)
}

// Rules returns the rules keys with a shipped network, for ai's message
// when a rules key has none.
func (m *shippedModels) Rules() []string {
	m.once.Do(m.load)
	return m.set.Rules()
}

// loadShipped returns a set of every shipped network that decodes; report,
// if not nil, hears of each one that does not.
func loadShipped(report func(rules string, err error)) *nn.Set {
	set := nn.NewSet()
	for _, key := range weights.Rules() {
		r, err := game.ParseRules(key)
		if err != nil {
			if report != nil {
				report(key, err)
			}
			continue
		}
		b, err := weights.Load(key)
		if err != nil {
			if report != nil {
				report(key, err)
			}
			continue
		}
		n, meta, err := nn.UnmarshalFor(b, r)
		if err != nil {
			if report != nil {
				report(key, err)
			}
			continue
		}
		set.Put(n, meta)
	}
	return set
}

// checkNetwork refuses, as bad input naming flag, a level that plays a
// network on rules r that have none (ai.Registry.Plays fails with
// ai.ErrNoModel), and says which boards the network levels do play. A
// command calls it once the rules are known and before it prints anything;
// any other level, an unknown one included, passes (building the player
// reports that).
func (e *env) checkNetwork(flag, level string, r game.Rules) error {
	var nm *ai.NoModelError
	if err := e.levels.Plays(level, r); !errors.As(err, &nm) {
		return nil
	}
	name := strings.ToLower(strings.TrimSpace(level))
	switch {
	case !nm.Listed:
		return badInput("%s %s: no network for %s", flag, name, r)
	case len(nm.Have) == 0:
		return badInput("%s %s: no network for %s; no weights are shipped for any board", flag, name, r)
	}
	netLevels := []string{name} // the levels that play a network (r has none for them), this one first
	for _, l := range e.levels.Names() {
		if l != name && errors.Is(e.levels.Plays(l, r), ai.ErrNoModel) {
			netLevels = append(netLevels, l)
		}
	}
	return badInput("%s %s: no network for %s; %s %s %s (the boards with shipped weights)", flag, name, r,
		andList(netLevels), plural(len(netLevels), "plays", "play"), strings.Join(nm.Have, ", "))
}

// andList joins words as "a", "a and b" or "a, b and c".
func andList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
