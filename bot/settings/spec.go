package settings

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/game"
)

// Texts is what a setting's value is shown with: the catalog's words,
// numbers and durations, and the bot's names of boards and switches
// (bot/render's).
type Texts interface {
	Text(loc discordgo.Locale, key string, vars ...string) string
	Number(loc discordgo.Locale, n int) string
	Duration(loc discordgo.Locale, d time.Duration) string
	// Rules is the name of a board.
	Rules(loc discordgo.Locale, r game.Rules) string
	// Switch shows an on/off value.
	Switch(loc discordgo.Locale, v bool) string
}

// spec is one per-server setting, as data: its name (what
// /ttt-admin set takes), how a value is read into Server, and how the
// value is shown. /ttt-admin set, the stored settings, the settings embed,
// the audit log and the reset all read specs; a new setting is one
// entry there (and a field of Server) plus its catalog keys:
// setting.<name>, settings.takes.<name>, error.bad_setting.<name>.
type spec struct {
	name string
	// parse reads t (trimmed; reset is true for "default") into s and
	// returns the canonical text to store ("" for the default). A value
	// the setting does not take is a *UserError saying what it takes.
	parse func(s *Server, name, t string, reset bool, def Server) (string, error)
	// text shows s's value in loc.
	text func(t Texts, loc discordgo.Locale, s Server) string
}

// specs are the per-server settings, in the order /ttt-admin
// settings shows them.
var specs = []spec{
	{Channels, parseChannels, func(t Texts, loc discordgo.Locale, s Server) string {
		if len(s.Channels) == 0 {
			return t.Text(loc, "settings.all_channels")
		}
		return mentionList("<#", s.Channels)
	}},
	{Role, parseRole, func(t Texts, loc discordgo.Locale, s Server) string {
		if s.Role == "" {
			return t.Text(loc, "settings.none")
		}
		return "<@&" + s.Role + ">"
	}},
	{TurnTime, durationSetting(MinTurnTime, MaxTurnTime, func(s *Server) *time.Duration { return &s.TurnTime }),
		func(t Texts, loc discordgo.Locale, s Server) string { return t.Duration(loc, s.TurnTime) }},
	{GameTime, durationSetting(MinGameTime, MaxGameTime, func(s *Server) *time.Duration { return &s.GameTime }),
		func(t Texts, loc discordgo.Locale, s Server) string { return t.Duration(loc, s.GameTime) }},
	{ChallengeExpiry, durationSetting(MinChallengeExpiry, MaxChallengeExpiry, func(s *Server) *time.Duration { return &s.ChallengeExpiry }),
		func(t Texts, loc discordgo.Locale, s Server) string {
			return t.Duration(loc, s.ChallengeExpiry)
		}},
	{ChallengeCooldown, parseCooldown, func(t Texts, loc discordgo.Locale, s Server) string {
		if s.ChallengeCooldown == 0 {
			return t.Text(loc, "settings.none")
		}
		return t.Duration(loc, s.ChallengeCooldown)
	}},
	{ChannelGames, limitSetting(func(s *Server) *int { return &s.ChannelGames }),
		func(t Texts, loc discordgo.Locale, s Server) string { return limitText(t, loc, s.ChannelGames) }},
	{UserGames, limitSetting(func(s *Server) *int { return &s.UserGames }),
		func(t Texts, loc discordgo.Locale, s Server) string { return limitText(t, loc, s.UserGames) }},
	{DefaultBoard, parseBoard, func(t Texts, loc discordgo.Locale, s Server) string {
		board := s.Board
		if !board.Valid() {
			board = game.Classic()
		}
		return t.Rules(loc, board)
	}},
	{BoardLabels, parseLabels, func(t Texts, loc discordgo.Locale, s Server) string {
		return t.Text(loc, "settings.labels."+s.Labels.String())
	}},
	{Hints, switchSetting(func(s *Server) *bool { return &s.Hints }),
		func(t Texts, loc discordgo.Locale, s Server) string { return t.Switch(loc, s.Hints) }},
	{Duels, switchSetting(func(s *Server) *bool { return &s.Duels }),
		func(t Texts, loc discordgo.Locale, s Server) string { return t.Switch(loc, s.Duels) }},
	{Rated, switchSetting(func(s *Server) *bool { return &s.Rated }),
		func(t Texts, loc discordgo.Locale, s Server) string { return t.Switch(loc, s.Rated) }},
	{Language, parseLanguage, func(t Texts, loc discordgo.Locale, s Server) string {
		if s.Language == "" {
			return t.Text(loc, "settings.each_user")
		}
		return string(s.Language)
	}},
	{AdminRoles, parseAdminRoles, func(t Texts, loc discordgo.Locale, s Server) string {
		if len(s.AdminRoles) == 0 {
			return t.Text(loc, "settings.none")
		}
		return mentionList("<@&", s.AdminRoles)
	}},
}

// specOf returns the setting named name.
func specOf(name string) (spec, bool) {
	i := slices.IndexFunc(specs, func(s spec) bool { return s.name == name })
	if i < 0 {
		return spec{}, false
	}
	return specs[i], true
}

// mentionList shows IDs as mentions with the given opening ("<#", "<@&").
func mentionList(open string, ids []string) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = open + id + ">"
	}
	return strings.Join(out, " ")
}

// limitText shows a games limit (0: none).
func limitText(t Texts, loc discordgo.Locale, n int) string {
	if n == 0 {
		return t.Text(loc, "settings.no_limit")
	}
	return t.Number(loc, n)
}

// Text shows s's value of setting name in loc ("" for an unknown name).
func Text(t Texts, loc discordgo.Locale, name string, s Server) string {
	if spec, ok := specOf(name); ok {
		return spec.text(t, loc, s)
	}
	return ""
}

func parseChannels(s *Server, name, t string, reset bool, _ Server) (string, error) {
	if reset || strings.EqualFold(t, "all") {
		s.Channels = nil
		return "", nil
	}
	ids, ok := mentions(t, "<#", MaxChannels)
	if !ok {
		return "", badValue(name)
	}
	s.Channels = ids
	return strings.Join(ids, ","), nil
}

func parseRole(s *Server, name, t string, reset bool, _ Server) (string, error) {
	if reset || strings.EqualFold(t, "none") {
		s.Role = ""
		return "", nil
	}
	ids, ok := mentions(t, "<@&", 1)
	if !ok {
		return "", badValue(name)
	}
	s.Role = ids[0]
	return ids[0], nil
}

func parseAdminRoles(s *Server, name, t string, reset bool, def Server) (string, error) {
	if reset {
		s.AdminRoles = slices.Clone(def.AdminRoles)
		return "", nil
	}
	if strings.EqualFold(t, "none") {
		s.AdminRoles = nil
		return "none", nil
	}
	ids, ok := mentions(t, "<@&", MaxRoles)
	if !ok {
		return "", badValue(name)
	}
	s.AdminRoles = ids
	return strings.Join(ids, ","), nil
}

// durationSetting reads a whole number of seconds within [lo, hi] into
// the field of Server that field names.
func durationSetting(lo, hi time.Duration, field func(*Server) *time.Duration) func(*Server, string, string, bool, Server) (string, error) {
	return func(s *Server, name, t string, reset bool, def Server) (string, error) {
		if reset {
			*field(s) = *field(&def)
			return "", nil
		}
		d, err := time.ParseDuration(strings.ReplaceAll(t, " ", ""))
		if err != nil || d < lo || d > hi || d%time.Second != 0 {
			return "", badValue(name)
		}
		*field(s) = d
		return d.String(), nil
	}
}

func parseCooldown(s *Server, name, t string, reset bool, def Server) (string, error) {
	if reset {
		s.ChallengeCooldown = def.ChallengeCooldown
		return "", nil
	}
	if strings.EqualFold(t, "off") || strings.EqualFold(t, "none") {
		t = "0s" // the settings message shows no cooldown as "none"
	}
	d, err := time.ParseDuration(strings.ReplaceAll(t, " ", ""))
	if err != nil || d < 0 || d > MaxChallengeCooldown || d%time.Second != 0 {
		return "", badValue(name)
	}
	s.ChallengeCooldown = d
	return d.String(), nil
}

// limitSetting reads a games limit, 1 to MaxGamesLimit or none, into the
// field of Server that field names (0 is none).
func limitSetting(field func(*Server) *int) func(*Server, string, string, bool, Server) (string, error) {
	return func(s *Server, name, t string, reset bool, _ Server) (string, error) {
		if reset || strings.EqualFold(t, "none") || strings.EqualFold(t, "off") {
			*field(s) = 0
			if reset {
				return "", nil
			}
			return "none", nil
		}
		// 0 is refused, not read as no limit: the help says 1 to 100 or
		// none, and a limit of 0 games would stop every game.
		n, err := strconv.Atoi(t)
		if err != nil || n < 1 || n > MaxGamesLimit {
			return "", badValue(name)
		}
		*field(s) = n
		return strconv.Itoa(n), nil
	}
}

func parseLanguage(s *Server, name, t string, reset bool, _ Server) (string, error) {
	if reset || strings.EqualFold(t, "none") {
		s.Language = ""
		if reset {
			return "", nil
		}
		return "none", nil
	}
	for _, l := range s.languages {
		if strings.EqualFold(string(l), t) {
			s.Language = l
			return string(l), nil
		}
	}
	codes := make([]string, len(s.languages))
	for i, l := range s.languages {
		codes[i] = string(l)
	}
	return "", i18n.Err("error.bad_setting."+name, "locales", strings.Join(codes, ", "))
}

func parseBoard(s *Server, name, t string, reset bool, def Server) (string, error) {
	if reset {
		s.Board = def.Board
		return "", nil
	}
	r, ok := PresetRules(strings.ToLower(t))
	if !ok {
		return "", badValue(name)
	}
	s.Board = r
	return r.String(), nil
}

func parseLabels(s *Server, name, t string, reset bool, def Server) (string, error) {
	switch {
	case reset:
		s.Labels = def.Labels
		return "", nil
	case strings.EqualFold(t, labelsCoordinates):
		s.Labels = LabelsCoordinates
	case strings.EqualFold(t, labelsCompact):
		s.Labels = LabelsCompact
	default:
		return "", badValue(name)
	}
	return s.Labels.String(), nil
}

// switchSetting reads on or off into the field of Server that field
// names; the default is on.
func switchSetting(field func(*Server) *bool) func(*Server, string, string, bool, Server) (string, error) {
	return func(s *Server, name, t string, reset bool, _ Server) (string, error) {
		if reset {
			*field(s) = true
			return "", nil
		}
		v, ok := parseSwitch(t)
		if !ok {
			return "", badValue(name)
		}
		*field(s) = v
		return OnOff(v), nil
	}
}
