package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/game"
)

// Help texts shared by several subcommands.
const (
	rulesHelp    = "the `rules`: " + `rows x cols and k in a row, like "3x3k3" or "5x5k4", or the X-O-X variant, like "4x3xox"`
	positionHelp = "start from this `position`: " + `the cells row by row as X, O or -, like "x--/-o-/---", or a shared game, like "3x3k3 b2 a1" (default the empty board)`
	seedHelp     = "`seed` for every random choice, to replay a game exactly (default a random seed)"
)

// levelFlags are the AI level options given on the command line. A nil
// field was not given.
type levelFlags struct {
	depth       *int
	iterations  *int
	budget      *time.Duration
	exploration *float64
}

// register defines -<prefix>depth, -<prefix>iterations, -<prefix>budget
// and -<prefix>exploration on fs; who says whose options they are.
func (l *levelFlags) register(fs *flag.FlagSet, prefix, who string) {
	fs.Func(prefix+"depth", "minimax search depth in `plies` for "+who+", 0 for no limit", func(s string) error {
		v, err := parseDepth(s)
		l.depth = &v
		return err
	})
	fs.Func(prefix+"iterations", "`number` of MCTS iterations per move for "+who+", 0 for the level's default", func(s string) error {
		v, err := parseIterations(s)
		l.iterations = &v
		return err
	})
	fs.Func(prefix+"budget", "thinking time per move for "+who+`, a Go `+"`duration`"+` like "500ms" or "2s", 0 for the level's default`, func(s string) error {
		v, err := parseBudget(s)
		l.budget = &v
		return err
	})
	fs.Func(prefix+"exploration", "MCTS exploration `constant` for "+who+", 0 for the default (sqrt 2)", func(s string) error {
		v, err := parseExploration(s)
		l.exploration = &v
		return err
	})
}

// given reports whether any option was given.
func (l levelFlags) given() bool {
	return l.depth != nil || l.iterations != nil || l.budget != nil || l.exploration != nil
}

// over returns l with base's options filling in the ones l lacks.
func (l levelFlags) over(base levelFlags) levelFlags {
	if l.depth == nil {
		l.depth = base.depth
	}
	if l.iterations == nil {
		l.iterations = base.iterations
	}
	if l.budget == nil {
		l.budget = base.budget
	}
	if l.exploration == nil {
		l.exploration = base.exploration
	}
	return l
}

// options returns the ai.Options with the given values and seed.
func (l levelFlags) options(seed uint64) ai.Options {
	o := ai.Options{Seed: seed}
	if l.depth != nil {
		o.Depth = *l.depth
	}
	if l.iterations != nil {
		o.Iterations = *l.iterations
	}
	if l.budget != nil {
		o.Budget = *l.budget
	}
	if l.exploration != nil {
		o.Exploration = *l.exploration
	}
	return o
}

// describe returns the given options as "depth 3, budget 1s", or "".
func (l levelFlags) describe() string {
	var parts []string
	if l.depth != nil {
		parts = append(parts, fmt.Sprintf("depth %d", *l.depth))
	}
	if l.iterations != nil {
		parts = append(parts, fmt.Sprintf("iterations %d", *l.iterations))
	}
	if l.budget != nil {
		parts = append(parts, fmt.Sprintf("budget %s", *l.budget))
	}
	if l.exploration != nil {
		parts = append(parts, fmt.Sprintf("exploration %g", *l.exploration))
	}
	return strings.Join(parts, ", ")
}

// levelName returns the level's name with its options, as in
// "minimax (depth 3)".
func levelName(name string, l levelFlags) string {
	if d := l.describe(); d != "" {
		return name + " (" + d + ")"
	}
	return name
}

// parseDepth reads a minimax depth: a whole number of plies, 0 or more.
func parseDepth(s string) (int, error) {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || v < 0 {
		return 0, fmt.Errorf("the depth is a whole number of plies, 0 (no limit) or more")
	}
	return v, nil
}

// parseIterations reads an MCTS iteration count: a whole number, 0 or more.
func parseIterations(s string) (int, error) {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || v < 0 {
		return 0, fmt.Errorf("the iterations are a whole number, 0 (the level's default) or more")
	}
	return v, nil
}

// parseBudget reads a time budget: a Go duration, 0 or more.
func parseBudget(s string) (time.Duration, error) {
	v, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || v < 0 {
		return 0, fmt.Errorf(`the budget is a duration with a unit, like "500ms", "2s" or "1m30s", 0 for the level's default`)
	}
	return v, nil
}

// parseExploration reads the UCT exploration constant: a finite number, 0
// or more.
func parseExploration(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("the exploration constant is a number like 1.4, 0 (the default, sqrt 2) or more")
	}
	return v, nil
}

// parseSeed reads a seed: a whole number from 0 to 2^64-1.
func parseSeed(s string) (uint64, error) {
	v, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("the seed is a whole number from 0 to %d", uint64(math.MaxUint64))
	}
	return v, nil
}

// seedFlag is a -seed flag that remembers whether it was given.
type seedFlag struct {
	value uint64
	set   bool
}

// register defines -seed on fs.
func (f *seedFlag) register(fs *flag.FlagSet, usage string) {
	fs.Func("seed", usage, func(s string) error {
		v, err := parseSeed(s)
		f.value, f.set = v, err == nil
		return err
	})
}

// resolve returns the seed given, or a fresh one from e.
func (f *seedFlag) resolve(e *env) uint64 {
	if !f.set {
		f.value, f.set = e.seed(), true
	}
	return f.value
}

// parseGame reads the -rules and -position flag values of fs into the
// starting position, as input errors that name the flag. The position may
// be a whole game in record notation ("3x3k3 b2 a1"), as the bot shares
// games: then play goes on from its last position, under its rules, and
// -rules, when given, must agree with them.
func parseGame(fs *flag.FlagSet, rules, position string) (game.Position, error) {
	r, err := game.ParseRules(rules)
	if err != nil {
		return game.Position{}, badInput("-rules: %s", explain(err))
	}
	if strings.TrimSpace(position) == "" {
		return game.NewPosition(r), nil
	}
	if game.LooksLikeRecord(position) {
		rec, err := game.ParseRecord(position)
		if err != nil {
			return game.Position{}, badInput("-position: %s", explain(err))
		}
		given := false
		fs.Visit(func(f *flag.Flag) { given = given || f.Name == "rules" })
		if given && !rec.Rules.Equal(r) {
			return game.Position{}, badInput("-position is a %s game but -rules says %s; give one of them, or the same rules", rec.Rules, r)
		}
		return rec.Position(), nil
	}
	p, err := game.ParsePosition(r, position)
	if err != nil {
		return game.Position{}, badInput("-position: %s", explain(err))
	}
	return p, nil
}

// newPlayer builds a level from the registry, reporting an unknown level or
// bad options as input errors that name flag.
func (e *env) newPlayer(flag, level string, o ai.Options) (ai.Player, error) {
	if strings.TrimSpace(level) == "" {
		return nil, badInput("%s: no level given; the levels are %s", flag, strings.Join(e.levels.Names(), ", "))
	}
	p, err := e.levels.New(level, o)
	if err != nil {
		return nil, playerError(flag, err)
	}
	return p, nil
}

// playerError classifies an error building a player: an unknown level or
// a bad option is the user's input, anything else a failure.
func playerError(flag string, err error) error {
	if errors.Is(err, ai.ErrUnknownLevel) || errors.Is(err, ai.ErrBadOption) {
		return badInput("%s: %s", flag, explain(err))
	}
	return err
}

// rulesSummary says in words how a game under r is won.
func rulesSummary(r game.Rules) string {
	if r.Variant() == game.XOX {
		return fmt.Sprintf("%s: %dx%d board; X wins when X-O-X appears in a line, O when O-X-O does, whoever made it", r, r.Rows(), r.Cols())
	}
	return fmt.Sprintf("%s: %dx%d board, %d in a row wins", r, r.Rows(), r.Cols(), r.K())
}
