package bot

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/game"
)

// settingSpec is one per-server setting, as data: its name (what
// /ttt-admin set takes), how a value is read into Settings, and how the
// value is shown. /ttt-admin set, the stored settings, the settings embed,
// the audit log and the reset all read settingSpecs; a new setting is one
// entry there (and a field of Settings) plus its catalog keys:
// setting.<name>, settings.takes.<name>, error.bad_setting.<name>.
type settingSpec struct {
	name string
	// parse reads t (trimmed; reset is true for "default") into s and
	// returns the canonical text to store ("" for the default). A value
	// the setting does not take is a *UserError saying what it takes.
	parse func(s *Settings, name, t string, reset bool, def Settings) (string, error)
	// text shows s's value in loc.
	text func(r *Renderer, loc discordgo.Locale, s Settings) string
}

// settingSpecs are the per-server settings, in the order /ttt-admin
// settings shows them.
var settingSpecs = []settingSpec{
	{SettingChannels, parseChannels, func(r *Renderer, loc discordgo.Locale, s Settings) string {
		if len(s.Channels) == 0 {
			return r.cat.Text(loc, "settings.all_channels")
		}
		return mentionList("<#", s.Channels)
	}},
	{SettingRole, parseRole, func(r *Renderer, loc discordgo.Locale, s Settings) string {
		if s.Role == "" {
			return r.cat.Text(loc, "settings.none")
		}
		return "<@&" + s.Role + ">"
	}},
	{SettingTurnTime, durationSetting(MinTurnTime, MaxTurnTime, func(s *Settings) *time.Duration { return &s.TurnTime }),
		func(r *Renderer, loc discordgo.Locale, s Settings) string { return r.cat.Duration(loc, s.TurnTime) }},
	{SettingChallengeExpiry, durationSetting(MinChallengeExpiry, MaxChallengeExpiry, func(s *Settings) *time.Duration { return &s.ChallengeExpiry }),
		func(r *Renderer, loc discordgo.Locale, s Settings) string {
			return r.cat.Duration(loc, s.ChallengeExpiry)
		}},
	{SettingChallengeCooldown, parseCooldown, func(r *Renderer, loc discordgo.Locale, s Settings) string {
		if s.ChallengeCooldown == 0 {
			return r.cat.Text(loc, "settings.none")
		}
		return r.cat.Duration(loc, s.ChallengeCooldown)
	}},
	{SettingChannelGames, limitSetting(func(s *Settings) *int { return &s.ChannelGames }),
		func(r *Renderer, loc discordgo.Locale, s Settings) string { return r.limitText(loc, s.ChannelGames) }},
	{SettingUserGames, limitSetting(func(s *Settings) *int { return &s.UserGames }),
		func(r *Renderer, loc discordgo.Locale, s Settings) string { return r.limitText(loc, s.UserGames) }},
	{SettingDefaultBoard, parseBoard, func(r *Renderer, loc discordgo.Locale, s Settings) string {
		board := s.Board
		if !board.Valid() {
			board = game.Classic()
		}
		return r.rulesText(loc, board)
	}},
	{SettingBoardLabels, parseLabels, func(r *Renderer, loc discordgo.Locale, s Settings) string {
		return r.cat.Text(loc, "settings.labels."+s.Labels.String())
	}},
	{SettingHints, switchSetting(func(s *Settings) *bool { return &s.Hints }),
		func(r *Renderer, loc discordgo.Locale, s Settings) string { return r.switchText(loc, s.Hints) }},
	{SettingDuels, switchSetting(func(s *Settings) *bool { return &s.Duels }),
		func(r *Renderer, loc discordgo.Locale, s Settings) string { return r.switchText(loc, s.Duels) }},
	{SettingRated, switchSetting(func(s *Settings) *bool { return &s.Rated }),
		func(r *Renderer, loc discordgo.Locale, s Settings) string { return r.switchText(loc, s.Rated) }},
	{SettingLanguage, parseLanguage, func(r *Renderer, loc discordgo.Locale, s Settings) string {
		if s.Language == "" {
			return r.cat.Text(loc, "settings.each_user")
		}
		return string(s.Language)
	}},
	{SettingAdminRoles, parseAdminRoles, func(r *Renderer, loc discordgo.Locale, s Settings) string {
		if len(s.AdminRoles) == 0 {
			return r.cat.Text(loc, "settings.none")
		}
		return mentionList("<@&", s.AdminRoles)
	}},
}

// specOf returns the setting named name.
func specOf(name string) (settingSpec, bool) {
	i := slices.IndexFunc(settingSpecs, func(s settingSpec) bool { return s.name == name })
	if i < 0 {
		return settingSpec{}, false
	}
	return settingSpecs[i], true
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
func (r *Renderer) limitText(loc discordgo.Locale, n int) string {
	if n == 0 {
		return r.cat.Text(loc, "settings.no_limit")
	}
	return r.cat.Number(loc, n)
}

func parseChannels(s *Settings, name, t string, reset bool, _ Settings) (string, error) {
	if reset || strings.EqualFold(t, "all") {
		s.Channels = nil
		return "", nil
	}
	ids, ok := mentions(t, "<#", MaxSettingChannels)
	if !ok {
		return "", settingErr(name)
	}
	s.Channels = ids
	return strings.Join(ids, ","), nil
}

func parseRole(s *Settings, name, t string, reset bool, _ Settings) (string, error) {
	if reset || strings.EqualFold(t, "none") {
		s.Role = ""
		return "", nil
	}
	ids, ok := mentions(t, "<@&", 1)
	if !ok {
		return "", settingErr(name)
	}
	s.Role = ids[0]
	return ids[0], nil
}

func parseAdminRoles(s *Settings, name, t string, reset bool, def Settings) (string, error) {
	if reset {
		s.AdminRoles = slices.Clone(def.AdminRoles)
		return "", nil
	}
	if strings.EqualFold(t, "none") {
		s.AdminRoles = nil
		return "none", nil
	}
	ids, ok := mentions(t, "<@&", MaxSettingRoles)
	if !ok {
		return "", settingErr(name)
	}
	s.AdminRoles = ids
	return strings.Join(ids, ","), nil
}

// durationSetting reads a whole number of seconds within [lo, hi] into
// the field of Settings that field names.
func durationSetting(lo, hi time.Duration, field func(*Settings) *time.Duration) func(*Settings, string, string, bool, Settings) (string, error) {
	return func(s *Settings, name, t string, reset bool, def Settings) (string, error) {
		if reset {
			*field(s) = *field(&def)
			return "", nil
		}
		d, err := time.ParseDuration(strings.ReplaceAll(t, " ", ""))
		if err != nil || d < lo || d > hi || d%time.Second != 0 {
			return "", settingErr(name)
		}
		*field(s) = d
		return d.String(), nil
	}
}

func parseCooldown(s *Settings, name, t string, reset bool, def Settings) (string, error) {
	if reset {
		s.ChallengeCooldown = def.ChallengeCooldown
		return "", nil
	}
	if strings.EqualFold(t, "off") || strings.EqualFold(t, "none") {
		t = "0s" // the settings message shows no cooldown as "none"
	}
	d, err := time.ParseDuration(strings.ReplaceAll(t, " ", ""))
	if err != nil || d < 0 || d > MaxChallengeCooldown || d%time.Second != 0 {
		return "", settingErr(name)
	}
	s.ChallengeCooldown = d
	return d.String(), nil
}

// limitSetting reads a games limit, 1 to MaxGamesLimit or none, into the
// field of Settings that field names (0 is none).
func limitSetting(field func(*Settings) *int) func(*Settings, string, string, bool, Settings) (string, error) {
	return func(s *Settings, name, t string, reset bool, _ Settings) (string, error) {
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
			return "", settingErr(name)
		}
		*field(s) = n
		return strconv.Itoa(n), nil
	}
}

func parseLanguage(s *Settings, name, t string, reset bool, _ Settings) (string, error) {
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
	return "", userErr("error.bad_setting."+name, "locales", strings.Join(codes, ", "))
}

func parseBoard(s *Settings, name, t string, reset bool, def Settings) (string, error) {
	if reset {
		s.Board = def.Board
		return "", nil
	}
	r, ok := presetRules(strings.ToLower(t))
	if !ok {
		return "", settingErr(name)
	}
	s.Board = r
	return r.String(), nil
}

func parseLabels(s *Settings, name, t string, reset bool, def Settings) (string, error) {
	switch {
	case reset:
		s.Labels = def.Labels
		return "", nil
	case strings.EqualFold(t, labelsCoordinates):
		s.Labels = LabelsCoordinates
	case strings.EqualFold(t, labelsCompact):
		s.Labels = LabelsCompact
	default:
		return "", settingErr(name)
	}
	return s.Labels.String(), nil
}

// switchSetting reads on or off into the field of Settings that field
// names; the default is on.
func switchSetting(field func(*Settings) *bool) func(*Settings, string, string, bool, Settings) (string, error) {
	return func(s *Settings, name, t string, reset bool, _ Settings) (string, error) {
		if reset {
			*field(s) = true
			return "", nil
		}
		v, ok := parseSwitch(t)
		if !ok {
			return "", settingErr(name)
		}
		*field(s) = v
		return onOff(v), nil
	}
}
