package ai

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/tttbot/ttt-bot/game"
)

// Level is a named kind of player and how to build one.
type Level struct {
	// Name is what users type: "random", "easy", "minimax", ...
	Name string
	// Summary is a one-line description for help texts.
	Summary string
	// Floor is one sentence saying what the level still guarantees at
	// Options.Load 1, when the machine is busiest: the quality of move no
	// load takes away.
	Floor string
	// New builds a player with the given options.
	New func(o Options) (Player, error)
	// Plays, if set, reports whether the level can play games under the
	// given rules now (nil), or why not (the networks need one for the
	// rules: ErrNoModel). Nil means every rules.
	Plays func(r game.Rules) error
}

// Registry maps level names to levels. NewRegistry fills it with the
// built-in levels; other packages add theirs (the networks) with Register.
// A Registry is not safe for concurrent Register calls; register at start-up.
type Registry struct {
	levels map[string]Level
}

// NewRegistry returns a registry holding the built-in levels.
func NewRegistry() *Registry {
	r := &Registry{levels: map[string]Level{}}
	for _, l := range builtins() {
		r.levels[l.Name] = l
	}
	return r
}

// Register adds a level, replacing any level of the same name.
func (r *Registry) Register(l Level) {
	r.levels[strings.ToLower(l.Name)] = l
}

// Levels returns the registered levels sorted by name.
func (r *Registry) Levels() []Level {
	out := make([]Level, 0, len(r.levels))
	for _, l := range r.levels {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Names returns the registered level names, sorted.
func (r *Registry) Names() []string {
	var out []string
	for _, l := range r.Levels() {
		out = append(out, l.Name)
	}
	return out
}

// Plays reports whether the named level can play games under rules r
// now: nil, or why not (ErrUnknownLevel, or the level's own reason, such
// as ErrNoModel for a network level without a network for r).
func (r *Registry) Plays(name string, rules game.Rules) error {
	l, ok := r.levels[strings.ToLower(strings.TrimSpace(name))]
	if !ok {
		return fmt.Errorf("%w: %q; the levels are %s", ErrUnknownLevel, name, strings.Join(r.Names(), ", "))
	}
	if l.Plays == nil {
		return nil
	}
	return l.Plays(rules)
}

// New builds a player of the named level (case is ignored).
func (r *Registry) New(name string, o Options) (Player, error) {
	l, ok := r.levels[strings.ToLower(strings.TrimSpace(name))]
	if !ok {
		return nil, fmt.Errorf("%w: %q; the levels are %s", ErrUnknownLevel, name, strings.Join(r.Names(), ", "))
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	return l.New(o)
}

// loadFloor is the share of their budget and iterations that the levels
// with a time budget (mcts, minimax) keep at Options.Load 1.
const loadFloor = 0.25

// loadScale returns the share of its budget a level with a time budget
// uses under load, which Options.check keeps within [0, 1]: 1 at no load,
// falling in a straight line to loadFloor at load 1.
func loadScale(load float64) float64 {
	return 1 - (1-loadFloor)*load
}

// scaleBudget returns the time budget b (positive) shrunk for load,
// b*loadScale(load) rounded down, but at least a nanosecond.
func scaleBudget(b time.Duration, load float64) time.Duration {
	s := loadScale(load)
	if s >= 1 {
		return b // also keeps the longest budgets clear of float rounding
	}
	return max(1, time.Duration(float64(b)*s))
}

// scaleIterations returns the iteration cap n (positive) shrunk for load,
// n*loadScale(load) rounded down, but at least 1.
func scaleIterations(n int, load float64) int {
	s := loadScale(load)
	if s >= 1 {
		return n
	}
	return max(1, int(float64(n)*s))
}
