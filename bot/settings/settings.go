// Package settings holds a server's settings as data: their names, the
// values each takes, how a value is read (from /ttt-admin set, a menu or
// the store) and how it is shown. It does no I/O: package bot loads and
// stores them, and caches them per server.
//
// A new setting is one row of specs (spec.go) and a field of Server, plus
// its catalog keys: setting.<name>, settings.takes.<name> and
// error.bad_setting.<name>.
package settings

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/game"
)

// The per-server settings, by the name /ttt-admin set takes. Each has a
// default from the bot's Options (the environment), used by servers that
// set nothing.
const (
	// Channels are the channels where games may start; default all.
	Channels = "channels"
	// Role is the role a member needs to play; default none.
	Role = "role"
	// TurnTime is the time per move in games between people.
	TurnTime = "turn-time"
	// GameTime is the longest a game may last: past it, the game ends
	// without a result (a long game on a big board left unfinished).
	GameTime = "game-time"
	// ChallengeExpiry is how long a challenge waits for an answer.
	ChallengeExpiry = "challenge-expiry"
	// ChallengeCooldown is the least time between two challenges by one
	// user.
	ChallengeCooldown = "challenge-cooldown"
	// ChannelGames is the most games running at once in a channel.
	ChannelGames = "channel-games"
	// UserGames is the most games one user plays at once.
	UserGames = "user-games"
	// DefaultBoard is the board of a game whose command names none.
	DefaultBoard = "default-board"
	// BoardLabels is what the board's cells show: their coordinates
	// everywhere, or on free cells only.
	BoardLabels = "board-labels"
	// Hints says whether /ttt hint is allowed.
	Hints = "hints"
	// Duels says whether /ttt ai-duel is allowed.
	Duels = "ai-duels"
	// Rated says whether games between people change ratings.
	Rated = "rated"
	// Language is the server's language for messages everyone sees.
	Language = "language"
	// AdminRoles are roles that may use /ttt-admin besides members with
	// Manage Server.
	AdminRoles = "admin-roles"
)

// Names returns the names of the per-server settings that /ttt-admin set
// takes, in the order /ttt-admin settings shows them.
func Names() []string {
	out := make([]string, len(specs))
	for i, spec := range specs {
		out[i] = spec.name
	}
	return out
}

// Bounds of the settings' values.
const (
	// MaxChannels and MaxRoles bound the lists of channels and moderator
	// roles.
	MaxChannels, MaxRoles = 25, 10
	// MinTurnTime and MaxTurnTime bound the time per move.
	MinTurnTime, MaxTurnTime = 30 * time.Second, 24 * time.Hour
	// MinGameTime and MaxGameTime bound the longest a game may last.
	MinGameTime, MaxGameTime = 10 * time.Minute, 30 * 24 * time.Hour
	// DefaultGameTime is the longest a game lasts where the server set
	// nothing: a day, whatever the board.
	DefaultGameTime = 24 * time.Hour
	// MinChallengeExpiry and MaxChallengeExpiry bound how long a
	// challenge waits.
	MinChallengeExpiry, MaxChallengeExpiry = time.Minute, 24 * time.Hour
	// MaxGamesLimit bounds the games-per-channel and games-per-player
	// limits, which take 1 to MaxGamesLimit or none (held as 0).
	MaxGamesLimit = 100
	// MaxChallengeCooldown bounds the challenge cooldown.
	MaxChallengeCooldown = time.Hour
	// DefaultTurnTime is how long a player has for a move before losing
	// on time, where neither the server nor the bot's options say.
	DefaultTurnTime = 10 * time.Minute
	// DefaultChallengeExpiry is how long a challenge waits in a server
	// that set nothing (the Store's ChallengeTTL default).
	DefaultChallengeExpiry = 5 * time.Minute
)

// Server is one server's settings, resolved: what the server set, else
// the bot's defaults (its Options, from the environment).
type Server struct {
	// Channels are the channels where games may start; empty for all.
	Channels []string
	// Role is the role a member needs to start or join a game; "" for none.
	Role string
	// TurnTime is the time per move.
	TurnTime time.Duration
	// GameTime is the longest a game may last.
	GameTime time.Duration
	// ChallengeExpiry is how long a challenge waits for an answer.
	ChallengeExpiry time.Duration
	// ChallengeCooldown is the least time between two challenges by one
	// user; 0 for none.
	ChallengeCooldown time.Duration
	// ChannelGames is the most live games (and open challenges) in one
	// channel, UserGames the most one player has in the server at once;
	// 0 for no limit.
	ChannelGames, UserGames int
	// Language is the server's language for the messages everyone sees
	// (boards, challenges, results); "" for the language of whoever
	// started them. Private answers are in each user's own language.
	Language discordgo.Locale
	// Board is the board of a game whose command names none (a preset);
	// the zero Rules means 3x3.
	Board game.Rules
	// Labels is what the board's cells show; the zero value is
	// LabelsCoordinates.
	Labels Labels
	// Hints and Duels say whether /ttt hint and /ttt ai-duel are allowed.
	Hints, Duels bool
	// Rated says whether games between people change their ratings.
	Rated bool
	// AdminRoles may use /ttt-admin besides members with Manage Server.
	AdminRoles []string
	// set holds the names the server set (the others are defaults).
	set map[string]bool
	// languages are the locales the bot ships, which the language
	// setting takes.
	languages []discordgo.Locale
}

// Defaults returns the settings of a server that set nothing: the given
// turn time, challenge cooldown and moderator roles (the bot's Options),
// challenges waiting DefaultChallengeExpiry, hints, duels and ratings on.
// The language setting takes the given languages.
func Defaults(languages []discordgo.Locale, turnTime, cooldown time.Duration, adminRoles []string) Server {
	return Server{languages: languages, TurnTime: turnTime, GameTime: DefaultGameTime, ChallengeExpiry: DefaultChallengeExpiry, ChallengeCooldown: cooldown,
		Hints: true, Duels: true, Rated: true, AdminRoles: slices.Clone(adminRoles)}
}

// Load returns the settings of a server that stored the given texts (by
// setting name), over def. A stored text a setting no longer takes is
// skipped (the default stays) and returned among the errors.
func Load(def Server, stored map[string]string) (Server, []error) {
	s := def
	s.set = map[string]bool{}
	var errs []error
	for _, name := range Names() {
		text, ok := stored[name]
		if !ok {
			continue
		}
		if _, err := s.Apply(name, storedText(name, text), def); err != nil {
			errs = append(errs, fmt.Errorf("stored setting %s=%q: %w", name, text, err))
			continue
		}
		s.set[name] = true
	}
	return s, errs
}

// StoreExpiry is the Expiry of the server's new challenges: its setting,
// or 0 for the Store's default.
func (s Server) StoreExpiry() time.Duration {
	if !s.IsSet(ChallengeExpiry) {
		return 0
	}
	return s.ChallengeExpiry
}

// IsSet reports whether the server set the named setting.
func (s Server) IsSet(name string) bool { return s.set[name] }

// Clone returns s with its own record of what is set, so that a cached
// value is never written through a copy.
func (s Server) Clone() Server {
	s.set = maps.Clone(s.set)
	return s
}

// optSetting is the /ttt-admin set option that names the setting.
const optSetting = "setting"

// badValue is the refusal of a value a setting does not take.
func badValue(name string) *i18n.UserError {
	return i18n.Err("error.bad_setting." + name)
}

// Apply parses text as the value of setting name (as typed in /ttt-admin
// set, or as stored) into s, and returns its canonical text, which is
// what is stored ("" for the default). A value the setting does not take
// is an *i18n.UserError that says what it takes; specs says how each
// setting reads.
func (s *Server) Apply(name, text string, def Server) (string, error) {
	spec, ok := specOf(name)
	if !ok {
		return "", &i18n.UserError{Key: "error.bad_option", Option: optSetting, Err: fmt.Errorf("bot: unknown setting %q", name)}
	}
	t := strings.TrimSpace(text)
	return spec.parse(s, name, t, strings.EqualFold(t, "default"), def)
}

// Change is Apply of a value the server now stores: afterwards IsSet
// reports whether name is set (its canonical text is not the default's).
func (s *Server) Change(name, text string, def Server) (string, error) {
	canonical, err := s.Apply(name, text, def)
	if err != nil {
		return "", err
	}
	s.set = maps.Clone(s.set)
	if s.set == nil {
		s.set = map[string]bool{}
	}
	s.set[name] = canonical != ""
	return canonical, nil
}

// storedText is the text of a stored setting as Apply reads it today:
// the games limits stored "none" as "0" while Apply took 0 for no limit,
// and Apply now refuses 0.
func storedText(name, text string) string {
	if (name == ChannelGames || name == UserGames) && text == "0" {
		return "none"
	}
	return text
}

// mentions reads a list of 1 to max Discord IDs, written as mentions with
// the given opening ("<#123>", "<@&123>") or bare, separated by spaces or
// commas; duplicates are dropped.
func mentions(t, open string, max int) ([]string, bool) {
	f := strings.FieldsFunc(t, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' || r == '\n' })
	var ids []string
	for _, m := range f {
		id := strings.TrimSuffix(strings.TrimPrefix(m, open), ">")
		if !customid.Snowflake(id) || strings.HasPrefix(m, open) != strings.HasSuffix(m, ">") {
			return nil, false
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids, len(ids) > 0 && len(ids) <= max
}

// parseSwitch reads on/off (and true/false, yes/no, 1/0).
func parseSwitch(t string) (bool, bool) {
	switch strings.ToLower(t) {
	case "on", "true", "yes", "1", "enabled":
		return true, true
	case "off", "false", "no", "0", "disabled":
		return false, true
	}
	return false, false
}

// OnOff is a switch's stored text, which Apply reads back.
func OnOff(v bool) string {
	if v {
		return "on"
	}
	return "off"
}

// Labels says what a board's cell buttons show besides the marks.
// Every cell has a name a screen reader can read: its coordinate, or the
// emoji of its mark, which the reader names ("cross mark").
type Labels int

const (
	// LabelsCoordinates labels every cell with its name in the game's
	// notation (game.Cell.String: "a1", the column letter and the row from
	// 1 at the top), the name that hints, reviews, puzzles and shared
	// games use; a taken cell shows its mark beside it. The default.
	LabelsCoordinates Labels = iota
	// LabelsCompact labels free cells with their names and shows a taken
	// cell's mark alone, so a button is never wider than a mark: for
	// servers whose 5-wide rows come out too wide on phones.
	LabelsCompact
)

// The values of the board-labels setting.
const (
	labelsCoordinates = "coordinates"
	labelsCompact     = "compact"
)

// String returns the name of l, "coordinates" or "compact", which is
// also the value of the board-labels setting that chooses it.
func (l Labels) String() string {
	if l == LabelsCompact {
		return labelsCompact
	}
	return labelsCoordinates
}
