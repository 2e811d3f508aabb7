package settings

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/i18n"
)

// defaultCooldown is the bot's default challenge cooldown (its Options').
const defaultCooldown = 30 * time.Second

// testCatalog is the shipped catalog.
func testCatalog(t *testing.T) *i18n.Catalog {
	t.Helper()
	c, err := i18n.NewCatalog()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// refusal is the text a user reads for err in loc.
func refusal(c *i18n.Catalog, loc discordgo.Locale, err error) string {
	var ue *i18n.UserError
	if !errors.As(err, &ue) {
		return ""
	}
	return c.UserText(loc, ue)
}

func TestSettingsApply(t *testing.T) {
	def := Server{TurnTime: 10 * time.Minute, GameTime: DefaultGameTime, Hints: true, Duels: true, AdminRoles: []string{"9"},
		languages: []discordgo.Locale{discordgo.EnglishUS, discordgo.PortugueseBR, discordgo.Greek}}
	tests := []struct {
		name, value string
		canonical   string
		check       func(Server) bool
	}{
		{Channels, "<#1> <#2>, 3 <#1>", "1,2,3", func(s Server) bool { return slices.Equal(s.Channels, []string{"1", "2", "3"}) }},
		{Channels, "ALL", "", func(s Server) bool { return s.Channels == nil }},
		{Channels, "default", "", func(s Server) bool { return s.Channels == nil }},
		{Role, "<@&55>", "55", func(s Server) bool { return s.Role == "55" }},
		{Role, "none", "", func(s Server) bool { return s.Role == "" }},
		{AdminRoles, "<@&1> <@&2>", "1,2", func(s Server) bool { return slices.Equal(s.AdminRoles, []string{"1", "2"}) }},
		{AdminRoles, "none", "none", func(s Server) bool { return len(s.AdminRoles) == 0 }},
		{AdminRoles, "default", "", func(s Server) bool { return slices.Equal(s.AdminRoles, []string{"9"}) }},
		{TurnTime, "90s", "1m30s", func(s Server) bool { return s.TurnTime == 90*time.Second }},
		{TurnTime, "1 h", "1h0m0s", func(s Server) bool { return s.TurnTime == time.Hour }},
		{TurnTime, "default", "", func(s Server) bool { return s.TurnTime == 10*time.Minute }},
		{GameTime, "168h", "168h0m0s", func(s Server) bool { return s.GameTime == 7*24*time.Hour }},
		{GameTime, "default", "", func(s Server) bool { return s.GameTime == DefaultGameTime }},
		{ChallengeExpiry, "2m", "2m0s", func(s Server) bool { return s.ChallengeExpiry == 2*time.Minute }},
		{ChallengeCooldown, "off", "0s", func(s Server) bool { return s.ChallengeCooldown == 0 }},
		{ChallengeCooldown, "45s", "45s", func(s Server) bool { return s.ChallengeCooldown == 45*time.Second }},
		{DefaultBoard, "5X5K4", "5x5k4", func(s Server) bool { return s.Board.String() == "5x5k4" }},
		{DefaultBoard, "default", "", func(s Server) bool { return !s.Board.Valid() }},
		{Hints, "off", "off", func(s Server) bool { return !s.Hints }},
		{Hints, "Yes", "on", func(s Server) bool { return s.Hints }},
		{Duels, "false", "off", func(s Server) bool { return !s.Duels }},
		{Rated, "off", "off", func(s Server) bool { return !s.Rated }},
		{ChannelGames, "12", "12", func(s Server) bool { return s.ChannelGames == 12 }},
		{UserGames, "none", "none", func(s Server) bool { return s.UserGames == 0 }},
		{Language, "PT-br", "pt-BR", func(s Server) bool { return s.Language == discordgo.PortugueseBR }},
		{Language, "none", "none", func(s Server) bool { return s.Language == "" }},
		{BoardLabels, "Compact", "compact", func(s Server) bool { return s.Labels == LabelsCompact }},
		{BoardLabels, "coordinates", "coordinates", func(s Server) bool { return s.Labels == LabelsCoordinates }},
		{BoardLabels, "default", "", func(s Server) bool { return s.Labels == LabelsCoordinates }},
	}
	for _, tt := range tests {
		t.Run(tt.name+"="+tt.value, func(t *testing.T) {
			s := def
			s.Hints, s.Duels = !s.Hints, !s.Duels // so that "on" shows
			got, err := s.Apply(tt.name, tt.value, def)
			if err != nil || got != tt.canonical || !tt.check(s) {
				t.Fatalf("apply = %q, %v; settings %+v", got, err, s)
			}
			// The canonical text reads back to the same
			again := def
			if tt.canonical != "" {
				if _, err := again.Apply(tt.name, tt.canonical, def); err != nil || !tt.check(again) {
					t.Fatalf("canonical %q does not read back: %v %+v", tt.canonical, err, again)
				}
			}
		})
	}
	bad := []struct{ name, value string }{
		{Channels, ""}, {Channels, "#games"}, {Channels, "<#12"}, {Channels, strings.Repeat("<#1> ", 1) + strings.Repeat("2 ", 0) + manyIDs(26)},
		{Role, "<@&1> <@&2>"}, {Role, "<@1>"}, {Role, "admins"},
		{AdminRoles, manyIDs(11)},
		{TurnTime, "10s"}, {TurnTime, "25h"}, {GameTime, "9m"}, {GameTime, "721h"}, {GameTime, "30d"}, {ChallengeExpiry, "30s"}, {ChallengeCooldown, "2h"}, {ChallengeCooldown, "-1s"}, {TurnTime, "1.5s"}, {TurnTime, "soon"},
		{Hints, "maybe"}, {Duels, ""}, {DefaultBoard, "6x6k4"}, {DefaultBoard, "3x3"},
		{ChannelGames, "101"}, {UserGames, "-1"}, {UserGames, "two"}, {Language, "fr"},
		{BoardLabels, "none"}, {BoardLabels, "minimal"},
	}
	cat := testCatalog(t)
	for _, b := range bad {
		s := def
		_, err := s.Apply(b.name, b.value, def)
		var ue *i18n.UserError
		if !errors.As(err, &ue) || ue.Key != "error.bad_setting."+b.name {
			t.Errorf("apply(%s, %q) = %v, want the setting's refusal", b.name, b.value, err)
			continue
		}
		for _, loc := range cat.Locales() {
			if msg := refusal(cat, loc, err); strings.Contains(msg, "[[") || strings.Contains(msg, "{") {
				t.Errorf("%s: refusal %q", string(loc), msg)
			}
		}
	}
	if _, err := (&Server{}).Apply("colour", "red", def); err == nil {
		t.Error("an unknown setting was accepted")
	}
}

// manyIDs is n distinct role IDs.
func manyIDs(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("<@&" + strings.Repeat("1", i+1) + "> ")
	}
	return b.String()
}

// TestSettingsNumeric holds every numeric setting to what its help says
// it takes, at the edges where a number is easy to misread: 0, negative,
// just out of range, the words for "nothing" (none, off) and default. A
// zero that would mean "no limit" while the help says "1 to 100" is
// refused, with the message that gives the values the setting takes.
func TestSettingsNumeric(t *testing.T) {
	def := Server{TurnTime: 10 * time.Minute, ChallengeExpiry: DefaultChallengeExpiry, ChallengeCooldown: defaultCooldown}
	field := map[string]func(Server) int64{
		TurnTime:          func(s Server) int64 { return int64(s.TurnTime) },
		ChallengeExpiry:   func(s Server) int64 { return int64(s.ChallengeExpiry) },
		ChallengeCooldown: func(s Server) int64 { return int64(s.ChallengeCooldown) },
		ChannelGames:      func(s Server) int64 { return int64(s.ChannelGames) },
		UserGames:         func(s Server) int64 { return int64(s.UserGames) },
	}
	const refused = -1
	d := func(v time.Duration) int64 { return int64(v) }
	tests := []struct {
		name, value string
		want        int64 // the setting's value afterwards, or refused
		canonical   string
	}{
		// 30s to 24h; no "off": every game between people has a clock.
		{TurnTime, "0", refused, ""},
		{TurnTime, "0s", refused, ""},
		{TurnTime, "-1m", refused, ""},
		{TurnTime, "29s", refused, ""},
		{TurnTime, "30s", d(30 * time.Second), "30s"},
		{TurnTime, "24h", d(24 * time.Hour), "24h0m0s"},
		{TurnTime, "24h1s", refused, ""},
		{TurnTime, "none", refused, ""},
		{TurnTime, "off", refused, ""},
		{TurnTime, "90", refused, ""},
		{TurnTime, "default", d(10 * time.Minute), ""},
		// 1m to 24h.
		{ChallengeExpiry, "0", refused, ""},
		{ChallengeExpiry, "-5m", refused, ""},
		{ChallengeExpiry, "59s", refused, ""},
		{ChallengeExpiry, "1m", d(time.Minute), "1m0s"},
		{ChallengeExpiry, "24h", d(24 * time.Hour), "24h0m0s"},
		{ChallengeExpiry, "25h", refused, ""},
		{ChallengeExpiry, "none", refused, ""},
		{ChallengeExpiry, "off", refused, ""},
		{ChallengeExpiry, "default", d(DefaultChallengeExpiry), ""},
		// Up to 1h, or off: a cooldown of 0 is no cooldown, which is what
		// off means, so 0 says what it means. The settings message shows
		// it as "none", which is taken too.
		{ChallengeCooldown, "0", 0, "0s"},
		{ChallengeCooldown, "0s", 0, "0s"},
		{ChallengeCooldown, "off", 0, "0s"},
		{ChallengeCooldown, "OFF", 0, "0s"},
		{ChallengeCooldown, "none", 0, "0s"},
		{ChallengeCooldown, "-1s", refused, ""},
		{ChallengeCooldown, "1s", d(time.Second), "1s"},
		{ChallengeCooldown, "1h", d(time.Hour), "1h0m0s"},
		{ChallengeCooldown, "1h1s", refused, ""},
		{ChallengeCooldown, "1.5s", refused, ""},
		{ChallengeCooldown, "default", d(defaultCooldown), ""},
		// 1 to 100, or none (off reads the same): 0 would be a limit of
		// no games at all, which nobody means; refused.
		{ChannelGames, "0", refused, ""},
		{ChannelGames, "00", refused, ""},
		{ChannelGames, "-0", refused, ""},
		{ChannelGames, "-1", refused, ""},
		{ChannelGames, "1", 1, "1"},
		{ChannelGames, "100", 100, "100"},
		{ChannelGames, "101", refused, ""},
		{ChannelGames, "none", 0, "none"},
		{ChannelGames, "off", 0, "none"},
		{ChannelGames, "1.5", refused, ""},
		{ChannelGames, "default", 0, ""},
		{UserGames, "0", refused, ""},
		{UserGames, "-3", refused, ""},
		{UserGames, "1", 1, "1"},
		{UserGames, " 100 ", 100, "100"},
		{UserGames, "1000", refused, ""},
		{UserGames, "None", 0, "none"},
		{UserGames, "off", 0, "none"},
		{UserGames, "unlimited", refused, ""},
		{UserGames, "default", 0, ""},
	}
	cat := testCatalog(t)
	for _, tt := range tests {
		t.Run(tt.name+"="+tt.value, func(t *testing.T) {
			s := def
			s.ChannelGames, s.UserGames = 7, 7 // so that a reset shows
			got, err := s.Apply(tt.name, tt.value, def)
			if tt.want == refused {
				var ue *i18n.UserError
				if !errors.As(err, &ue) || ue.Key != "error.bad_setting."+tt.name {
					t.Fatalf("apply = %q, %v; want the setting's refusal", got, err)
				}
				if msg := refusal(cat, i18n.DefaultLocale, err); !strings.Contains(msg, "from") && !strings.Contains(msg, "up to") {
					t.Errorf("the refusal %q does not give the values the setting takes", msg)
				}
				return
			}
			if err != nil || got != tt.canonical || field[tt.name](s) != tt.want {
				t.Fatalf("apply = %q, %v, value %d; want %q, %d", got, err, field[tt.name](s), tt.canonical, tt.want)
			}
			if got == "" {
				return
			}
			// What is stored reads back to the same value.
			again := def
			if _, err := again.Apply(tt.name, storedText(tt.name, got), def); err != nil || field[tt.name](again) != tt.want {
				t.Fatalf("stored %q reads back as %d, %v", got, field[tt.name](again), err)
			}
		})
	}
}

// TestSettingsStoredZero: before 0 was refused, "none" of the games
// limits was stored as "0"; such a stored value still reads as no limit.
func TestSettingsStoredZero(t *testing.T) {
	for _, name := range []string{ChannelGames, UserGames} {
		s := Server{ChannelGames: 7, UserGames: 7}
		if _, err := s.Apply(name, storedText(name, "0"), Server{}); err != nil || s.ChannelGames+s.UserGames != 7 {
			t.Errorf("stored %s=0: %v, settings %+v; want no limit", name, err, s)
		}
	}
	if got := storedText(TurnTime, "0"); got != "0" {
		t.Errorf("storedSetting changed a turn time: %q", got)
	}
}
