package command

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/settings"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/game/wide"
	"github.com/tttbot/ttt-bot/persistence"
)

// options are a subcommand's options by name; each accessor consumes
// the option it reads, so leftovers are options the subcommand lacks.
type options struct {
	unused map[string]*discordgo.ApplicationCommandInteractionDataOption
}

func collect(in []*discordgo.ApplicationCommandInteractionDataOption) (*options, error) {
	o := &options{unused: map[string]*discordgo.ApplicationCommandInteractionDataOption{}}
	for _, opt := range in {
		if opt == nil || opt.Name == "" {
			return nil, i18n.Err("error.unknown_command")
		}
		if _, dup := o.unused[opt.Name]; dup || opt.Value == nil {
			return nil, optErr(opt.Name)
		}
		o.unused[opt.Name] = opt
	}
	return o, nil
}

func (o *options) unusedNames() []string {
	var out []string
	for k := range o.unused {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// take removes and returns the option name if it is present with type t.
func (o *options) take(name string, t discordgo.ApplicationCommandOptionType) (any, bool, error) {
	opt, ok := o.unused[name]
	if !ok {
		return nil, false, nil
	}
	delete(o.unused, name)
	if opt.Type != t {
		return nil, false, optErr(name)
	}
	return opt.Value, true, nil
}

// preset reads the board option, which only takes the preset boards
// (default def).
func (o *options) preset(def game.Rules) (game.Rules, error) {
	b, ok, err := o.str(optBoard)
	if err != nil || !ok {
		return def, err
	}
	rules, known := settings.PresetRules(b)
	if !known {
		return game.Rules{}, optErr(optBoard)
	}
	return rules, nil
}

// game reads the game option: a game ID as the bot shows it
// ("<channel>.<suffix>").
func (o *options) game() (persistence.GameID, error) {
	s, ok, err := o.str(optGame)
	if err != nil {
		return "", err
	}
	s = strings.Trim(strings.TrimSpace(s), "`")
	if !ok || !customid.ValidGameID(s) || !customid.Snowflake(persistence.GameID(s).Channel()) {
		return "", &i18n.UserError{Key: KeyBadGameID, Err: fmt.Errorf("bot: game option %q", s)}
	}
	return persistence.GameID(s), nil
}

// given reports whether any of the named options is present and not yet
// read.
func (o *options) given(names ...string) bool {
	for _, n := range names {
		if _, ok := o.unused[n]; ok {
			return true
		}
	}
	return false
}

func (o *options) str(name string) (string, bool, error) {
	v, ok, err := o.take(name, discordgo.ApplicationCommandOptionString)
	if !ok || err != nil {
		return "", ok, err
	}
	s, isStr := v.(string)
	if !isStr {
		return "", false, optErr(name)
	}
	return s, true, nil
}

func (o *options) boolean(name string) (bool, bool, error) {
	v, ok, err := o.take(name, discordgo.ApplicationCommandOptionBoolean)
	if !ok || err != nil {
		return false, ok, err
	}
	b, isBool := v.(bool)
	if !isBool {
		return false, false, optErr(name)
	}
	return b, true, nil
}

func (o *options) user(name string) (string, bool, error) {
	v, ok, err := o.take(name, discordgo.ApplicationCommandOptionUser)
	if !ok || err != nil {
		return "", ok, err
	}
	s, isStr := v.(string)
	if !isStr || !customid.Snowflake(s) {
		return "", false, optErr(name)
	}
	return s, true, nil
}

// integer reads an integer option within [lo, hi]. Discord sends numbers
// as JSON numbers (float64 after decoding); Go-built data may use ints.
func (o *options) integer(name string, lo, hi int64) (int64, bool, error) {
	v, ok, err := o.take(name, discordgo.ApplicationCommandOptionInteger)
	if !ok || err != nil {
		return 0, ok, err
	}
	var n int64
	switch x := v.(type) {
	case float64:
		if x != math.Trunc(x) || math.IsInf(x, 0) || x < -MaxSeed || x > MaxSeed {
			return 0, false, optErr(name)
		}
		n = int64(x)
	case int:
		n = int64(x)
	case int64:
		n = x
	case json.Number:
		if n, err = x.Int64(); err != nil {
			return 0, false, optErr(name)
		}
	default:
		return 0, false, optErr(name)
	}
	if n < lo || n > hi {
		e := i18n.Err("error.out_of_range", "min", strconv.FormatInt(lo, 10), "max", strconv.FormatInt(hi, 10))
		e.Option = name
		return 0, false, e
	}
	return n, true, nil
}

func (o *options) choice(name string, allowed ...string) (string, bool, error) {
	s, ok, err := o.str(name)
	if !ok || err != nil {
		return "", ok, err
	}
	if !slices.Contains(allowed, s) {
		return "", false, optErr(name)
	}
	return s, true, nil
}

func (o *options) first(other string) (First, error) {
	s, ok, err := o.choice(optFirst, "me", other, "random")
	if !ok || err != nil {
		return FirstRandom, err
	}
	switch s {
	case "me":
		return FirstMe, nil
	case other:
		return FirstOther, nil
	}
	return FirstRandom, nil
}

func (o *options) level(name string, levels []string) (string, error) {
	s, ok, err := o.str(name)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", optErr(name)
	}
	if !slices.Contains(levels, s) {
		return "", i18n.Err("error.unknown_level", "level", s, "levels", strings.Join(levels, ", "))
	}
	return s, nil
}

func (o *options) seed() (uint64, bool, error) {
	n, ok, err := o.integer(optSeed, 0, MaxSeed)
	return uint64(n), ok, err
}

// rules reads the board: a preset, or custom rows, cols and k, or 3x3 by
// default. Boards must fit in buttons.
func (o *options) rules() (game.Rules, error) { return o.rulesOr(game.Classic()) }

// rulesOr is rules with def as the board when none is given: the boards
// of the buttons only (the commands about a board's network, puzzles,
// history, tournaments).
func (o *options) rulesOr(def game.Rules) (game.Rules, error) {
	r, w, err := o.boardRules(def, false)
	if err == nil && (w.Valid() || !FitsButtons(r)) {
		rows, cols := r.Rows(), r.Cols()
		if w.Valid() {
			rows, cols = w.Rows(), w.Cols()
		}
		return game.Rules{}, i18n.Err("error.board_too_big", "rows", strconv.Itoa(rows), "cols", strconv.Itoa(cols), "max", "5")
	}
	return r, err
}

// playRules reads the board of a command that starts a game: a preset of
// the buttons or a big one, or custom rows, cols and k up to 15x15, or def.
// Boards up to 8x8 are game's (r); past them, wide's (w, valid then).
func (o *options) playRules(def game.Rules) (r game.Rules, w wide.Rules, err error) {
	return o.boardRules(def, true)
}

// boardRules reads the board option or the custom rows, cols and k; big
// says whether the big boards (pictures, up to 15x15) are offered.
func (o *options) boardRules(def game.Rules, big bool) (game.Rules, wide.Rules, error) {
	board, hasBoard, err := o.str(optBoard)
	if err != nil {
		return game.Rules{}, wide.Rules{}, err
	}
	var dims [3]int64
	var has [3]bool
	for i, name := range []string{optRows, optCols, optK} {
		// Range is checked below with clearer messages than out_of_range.
		if dims[i], has[i], err = o.integer(name, math.MinInt32, math.MaxInt32); err != nil {
			return game.Rules{}, wide.Rules{}, err
		}
	}
	custom := has[0] || has[1] || has[2]
	switch {
	case hasBoard && custom:
		return game.Rules{}, wide.Rules{}, i18n.Err("error.board_conflict")
	case hasBoard && big && settings.IsBigPreset(board):
		br, err := persistence.ParseBoardRules(board)
		if err != nil {
			return game.Rules{}, wide.Rules{}, optErr(optBoard)
		}
		return br.Small, br.Wide, nil
	case hasBoard:
		r, ok := settings.PresetRules(board)
		if !ok {
			return game.Rules{}, wide.Rules{}, optErr(optBoard)
		}
		return r, wide.Rules{}, nil
	case !custom:
		return def, wide.Rules{}, nil
	}
	rows, cols := dims[0], dims[1]
	switch {
	case !has[0] && !has[1]:
		rows, cols = 3, 3
	case !has[0]:
		rows = cols
	case !has[1]:
		cols = rows
	}
	most := int64(MaxActionRows)
	if big {
		most = MaxBoardSize
	}
	if rows > most || cols > most {
		return game.Rules{}, wide.Rules{}, i18n.Err("error.board_too_big", "rows", strconv.FormatInt(rows, 10), "cols", strconv.FormatInt(cols, 10),
			"max", strconv.FormatInt(most, 10))
	}
	if rows < game.MinSize || cols < game.MinSize {
		return game.Rules{}, wide.Rules{}, i18n.Err("error.board_too_small")
	}
	k := dims[2]
	if !has[2] {
		// The whole side on the buttons' boards; five in a row past them.
		k = min(rows, cols)
		if k > MaxActionRows {
			k = 5
		}
	}
	badK := func(hi int64, err error) error {
		e := i18n.Err("error.bad_k", "rows", strconv.FormatInt(rows, 10), "cols", strconv.FormatInt(cols, 10),
			"max", strconv.FormatInt(hi, 10))
		e.Err = err
		return e
	}
	if rows <= game.MaxSize && cols <= game.MaxSize {
		r, err := game.NewRules(int(rows), int(cols), int(k))
		if err != nil {
			return game.Rules{}, wide.Rules{}, badK(max(rows, cols), err)
		}
		return r, wide.Rules{}, nil
	}
	w, err := wide.NewRules(int(rows), int(cols), int(k), false)
	if err != nil {
		return game.Rules{}, wide.Rules{}, badK(min(wide.MaxK, max(rows, cols)), err)
	}
	return game.Rules{}, w, nil
}

// KeyBadGameID refuses a game option that is not a game ID.
const KeyBadGameID = "reply.bad_game_id"

// optErr reports an option whose value cannot be read.
func optErr(name string) *i18n.UserError {
	e := i18n.Err("error.bad_option")
	e.Option = name
	return e
}
