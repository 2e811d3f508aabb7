package bot

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/persistence"
)

func TestSettingsApply(t *testing.T) {
	def := Settings{TurnTime: 10 * time.Minute, Hints: true, Duels: true, AdminRoles: []string{"9"},
		languages: []discordgo.Locale{discordgo.EnglishUS, discordgo.PortugueseBR, discordgo.Greek}}
	tests := []struct {
		name, value string
		canonical   string
		check       func(Settings) bool
	}{
		{SettingChannels, "<#1> <#2>, 3 <#1>", "1,2,3", func(s Settings) bool { return slices.Equal(s.Channels, []string{"1", "2", "3"}) }},
		{SettingChannels, "ALL", "", func(s Settings) bool { return s.Channels == nil }},
		{SettingChannels, "default", "", func(s Settings) bool { return s.Channels == nil }},
		{SettingRole, "<@&55>", "55", func(s Settings) bool { return s.Role == "55" }},
		{SettingRole, "none", "", func(s Settings) bool { return s.Role == "" }},
		{SettingAdminRoles, "<@&1> <@&2>", "1,2", func(s Settings) bool { return slices.Equal(s.AdminRoles, []string{"1", "2"}) }},
		{SettingAdminRoles, "none", "none", func(s Settings) bool { return len(s.AdminRoles) == 0 }},
		{SettingAdminRoles, "default", "", func(s Settings) bool { return slices.Equal(s.AdminRoles, []string{"9"}) }},
		{SettingTurnTime, "90s", "1m30s", func(s Settings) bool { return s.TurnTime == 90*time.Second }},
		{SettingTurnTime, "1 h", "1h0m0s", func(s Settings) bool { return s.TurnTime == time.Hour }},
		{SettingTurnTime, "default", "", func(s Settings) bool { return s.TurnTime == 10*time.Minute }},
		{SettingChallengeExpiry, "2m", "2m0s", func(s Settings) bool { return s.ChallengeExpiry == 2*time.Minute }},
		{SettingChallengeCooldown, "off", "0s", func(s Settings) bool { return s.ChallengeCooldown == 0 }},
		{SettingChallengeCooldown, "45s", "45s", func(s Settings) bool { return s.ChallengeCooldown == 45*time.Second }},
		{SettingDefaultBoard, "5X5K4", "5x5k4", func(s Settings) bool { return s.Board.String() == "5x5k4" }},
		{SettingDefaultBoard, "default", "", func(s Settings) bool { return !s.Board.Valid() }},
		{SettingHints, "off", "off", func(s Settings) bool { return !s.Hints }},
		{SettingHints, "Yes", "on", func(s Settings) bool { return s.Hints }},
		{SettingDuels, "false", "off", func(s Settings) bool { return !s.Duels }},
		{SettingRated, "off", "off", func(s Settings) bool { return !s.Rated }},
		{SettingChannelGames, "12", "12", func(s Settings) bool { return s.ChannelGames == 12 }},
		{SettingUserGames, "none", "none", func(s Settings) bool { return s.UserGames == 0 }},
		{SettingLanguage, "PT-br", "pt-BR", func(s Settings) bool { return s.Language == discordgo.PortugueseBR }},
		{SettingLanguage, "none", "none", func(s Settings) bool { return s.Language == "" }},
		{SettingBoardLabels, "Compact", "compact", func(s Settings) bool { return s.Labels == LabelsCompact }},
		{SettingBoardLabels, "coordinates", "coordinates", func(s Settings) bool { return s.Labels == LabelsCoordinates }},
		{SettingBoardLabels, "default", "", func(s Settings) bool { return s.Labels == LabelsCoordinates }},
	}
	for _, tt := range tests {
		t.Run(tt.name+"="+tt.value, func(t *testing.T) {
			s := def
			s.Hints, s.Duels = !s.Hints, !s.Duels // so that "on" shows
			got, err := s.apply(tt.name, tt.value, def)
			if err != nil || got != tt.canonical || !tt.check(s) {
				t.Fatalf("apply = %q, %v; settings %+v", got, err, s)
			}
			// The canonical text reads back to the same settings.
			again := def
			if tt.canonical != "" {
				if _, err := again.apply(tt.name, tt.canonical, def); err != nil || !tt.check(again) {
					t.Fatalf("canonical %q does not read back: %v %+v", tt.canonical, err, again)
				}
			}
		})
	}
	bad := []struct{ name, value string }{
		{SettingChannels, ""}, {SettingChannels, "#games"}, {SettingChannels, "<#12"}, {SettingChannels, strings.Repeat("<#1> ", 1) + strings.Repeat("2 ", 0) + manyIDs(26)},
		{SettingRole, "<@&1> <@&2>"}, {SettingRole, "<@1>"}, {SettingRole, "admins"},
		{SettingAdminRoles, manyIDs(11)},
		{SettingTurnTime, "10s"}, {SettingTurnTime, "25h"}, {SettingChallengeExpiry, "30s"}, {SettingChallengeCooldown, "2h"}, {SettingChallengeCooldown, "-1s"}, {SettingTurnTime, "1.5s"}, {SettingTurnTime, "soon"},
		{SettingHints, "maybe"}, {SettingDuels, ""}, {SettingDefaultBoard, "6x6k4"}, {SettingDefaultBoard, "3x3"},
		{SettingChannelGames, "101"}, {SettingUserGames, "-1"}, {SettingUserGames, "two"}, {SettingLanguage, "fr"},
		{SettingBoardLabels, "none"}, {SettingBoardLabels, "minimal"},
	}
	cat := testCatalog(t)
	for _, b := range bad {
		s := def
		_, err := s.apply(b.name, b.value, def)
		var ue *UserError
		if !errors.As(err, &ue) || ue.Key != "error.bad_setting."+b.name {
			t.Errorf("apply(%s, %q) = %v, want the setting's refusal", b.name, b.value, err)
			continue
		}
		for _, loc := range cat.Locales() {
			if msg := ErrorText(cat, loc, err); strings.Contains(msg, "[[") || strings.Contains(msg, "{") {
				t.Errorf("%s: refusal %q", string(loc), msg)
			}
		}
	}
	if _, err := (&Settings{}).apply("colour", "red", def); err == nil {
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

func TestRenderSettingsGolden(t *testing.T) {
	r := testRenderer(t)
	def := Settings{TurnTime: 10 * time.Minute, Hints: true, Duels: true}
	custom := Settings{Channels: []string{"111", "222"}, Role: "333", TurnTime: 90 * time.Second, Hints: false, Duels: true,
		AdminRoles: []string{"444"}, Labels: LabelsCompact, set: map[string]bool{SettingChannels: true, SettingRole: true,
			SettingTurnTime: true, SettingHints: true, SettingAdminRoles: true, SettingBoardLabels: true}}
	entries := []persistence.AuditEntry{
		{Time: fixedNow, User: alice, Action: "set", Detail: "hints=off"},
		{Time: fixedNow.Add(-time.Hour), User: bob, Action: "end-game", Detail: "<#7> 1"},
		{Time: fixedNow.Add(-2 * time.Hour), User: alice, Action: "reset", Detail: "turn-time"},
	}
	for _, loc := range goldenLocales {
		t.Run(string(loc), func(t *testing.T) {
			for name, st := range map[string]Settings{"default": def, "custom": custom} {
				d, err := r.Settings(loc, "900", alice, st)
				if err != nil {
					t.Fatal(err)
				}
				if d.Flags&discordgo.MessageFlagsEphemeral == 0 {
					t.Error("settings are not private")
				}
				goldenFile(t, "settings-"+name+"."+string(loc)+".json", wireJSON(t, checked(t, d)))
			}
			goldenFile(t, "settings-changed."+string(loc)+".json", wireJSON(t, checked(t, r.SettingChanged(loc, SettingChannels, custom))))
			goldenFile(t, "log."+string(loc)+".json", wireJSON(t, checked(t, r.AuditLog(loc, entries))))
			goldenFile(t, "log-empty."+string(loc)+".json", wireJSON(t, checked(t, r.AuditLog(loc, nil))))
		})
	}
}

// TestRenderAuditLogLongest: 25 entries with the longest details fit.
func TestRenderAuditLogLongest(t *testing.T) {
	r := testRenderer(t)
	var entries []persistence.AuditEntry
	for range 30 {
		entries = append(entries, persistence.AuditEntry{Time: fixedNow, User: strings.Repeat("9", 20), Action: "forget-server", Detail: strings.Repeat("x", 2000)})
	}
	for _, loc := range testCatalog(t).Locales() {
		checked(t, r.AuditLog(loc, entries))
	}
}

// TestSettingsCacheCopies: what settings returns is the caller's own, so
// a handler that changes it (clickSetting) cannot race another reading
// the cache.
func TestSettingsCacheCopies(t *testing.T) {
	b := &Bot{lc: newLifecycle(Options{}), now: time.Now, cat: testCatalog(t)}
	cached := b.defaultSettings()
	cached.set = map[string]bool{SettingHints: true}
	b.settingsCache.m = map[string]cachedSettings{"42": {s: cached, at: time.Now()}}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := b.settings(context.Background(), nil, "42")
			if err != nil {
				t.Error(err)
				return
			}
			st.set[SettingRated] = true // a handler's own change
			_ = st.IsSet(SettingHints)
		}()
	}
	wg.Wait()
	if got := b.settingsCache.m["42"].s.set; len(got) != 1 || !got[SettingHints] {
		t.Fatalf("the cached settings were changed through a copy: %v", got)
	}
}

// TestSettingsCacheGeneration: a drop during a read keeps that read out
// of the cache.
func TestSettingsCacheGeneration(t *testing.T) {
	var c settingsCache
	g0, a0 := c.generation("42")
	c.drop("42")
	if g, a := c.generation("42"); g == g0 || a != a0 {
		t.Fatalf("a guild's drop: generation %d/%d, was %d/%d", g, a, g0, a0)
	}
	g1, _ := c.generation("43")
	c.drop("")
	if g, a := c.generation("43"); g != g1 || a == a0 {
		t.Fatalf("a drop of everything: generation %d/%d", g, a)
	}
}

// TestSettingsNumeric holds every numeric setting to what its help says
// it takes, at the edges where a number is easy to misread: 0, negative,
// just out of range, the words for "nothing" (none, off) and default. A
// zero that would mean "no limit" while the help says "1 to 100" is
// refused, with the message that gives the values the setting takes.
func TestSettingsNumeric(t *testing.T) {
	def := Settings{TurnTime: 10 * time.Minute, ChallengeExpiry: DefaultChallengeExpiry, ChallengeCooldown: DefaultChallengeCooldown}
	field := map[string]func(Settings) int64{
		SettingTurnTime:          func(s Settings) int64 { return int64(s.TurnTime) },
		SettingChallengeExpiry:   func(s Settings) int64 { return int64(s.ChallengeExpiry) },
		SettingChallengeCooldown: func(s Settings) int64 { return int64(s.ChallengeCooldown) },
		SettingChannelGames:      func(s Settings) int64 { return int64(s.ChannelGames) },
		SettingUserGames:         func(s Settings) int64 { return int64(s.UserGames) },
	}
	const refused = -1
	d := func(v time.Duration) int64 { return int64(v) }
	tests := []struct {
		name, value string
		want        int64 // the setting's value afterwards, or refused
		canonical   string
	}{
		// 30s to 24h; no "off": every game between people has a clock.
		{SettingTurnTime, "0", refused, ""},
		{SettingTurnTime, "0s", refused, ""},
		{SettingTurnTime, "-1m", refused, ""},
		{SettingTurnTime, "29s", refused, ""},
		{SettingTurnTime, "30s", d(30 * time.Second), "30s"},
		{SettingTurnTime, "24h", d(24 * time.Hour), "24h0m0s"},
		{SettingTurnTime, "24h1s", refused, ""},
		{SettingTurnTime, "none", refused, ""},
		{SettingTurnTime, "off", refused, ""},
		{SettingTurnTime, "90", refused, ""},
		{SettingTurnTime, "default", d(10 * time.Minute), ""},
		// 1m to 24h.
		{SettingChallengeExpiry, "0", refused, ""},
		{SettingChallengeExpiry, "-5m", refused, ""},
		{SettingChallengeExpiry, "59s", refused, ""},
		{SettingChallengeExpiry, "1m", d(time.Minute), "1m0s"},
		{SettingChallengeExpiry, "24h", d(24 * time.Hour), "24h0m0s"},
		{SettingChallengeExpiry, "25h", refused, ""},
		{SettingChallengeExpiry, "none", refused, ""},
		{SettingChallengeExpiry, "off", refused, ""},
		{SettingChallengeExpiry, "default", d(DefaultChallengeExpiry), ""},
		// Up to 1h, or off: a cooldown of 0 is no cooldown, which is what
		// off means, so 0 says what it means. The settings message shows
		// it as "none", which is taken too.
		{SettingChallengeCooldown, "0", 0, "0s"},
		{SettingChallengeCooldown, "0s", 0, "0s"},
		{SettingChallengeCooldown, "off", 0, "0s"},
		{SettingChallengeCooldown, "OFF", 0, "0s"},
		{SettingChallengeCooldown, "none", 0, "0s"},
		{SettingChallengeCooldown, "-1s", refused, ""},
		{SettingChallengeCooldown, "1s", d(time.Second), "1s"},
		{SettingChallengeCooldown, "1h", d(time.Hour), "1h0m0s"},
		{SettingChallengeCooldown, "1h1s", refused, ""},
		{SettingChallengeCooldown, "1.5s", refused, ""},
		{SettingChallengeCooldown, "default", d(DefaultChallengeCooldown), ""},
		// 1 to 100, or none (off reads the same): 0 would be a limit of
		// no games at all, which nobody means; refused.
		{SettingChannelGames, "0", refused, ""},
		{SettingChannelGames, "00", refused, ""},
		{SettingChannelGames, "-0", refused, ""},
		{SettingChannelGames, "-1", refused, ""},
		{SettingChannelGames, "1", 1, "1"},
		{SettingChannelGames, "100", 100, "100"},
		{SettingChannelGames, "101", refused, ""},
		{SettingChannelGames, "none", 0, "none"},
		{SettingChannelGames, "off", 0, "none"},
		{SettingChannelGames, "1.5", refused, ""},
		{SettingChannelGames, "default", 0, ""},
		{SettingUserGames, "0", refused, ""},
		{SettingUserGames, "-3", refused, ""},
		{SettingUserGames, "1", 1, "1"},
		{SettingUserGames, " 100 ", 100, "100"},
		{SettingUserGames, "1000", refused, ""},
		{SettingUserGames, "None", 0, "none"},
		{SettingUserGames, "off", 0, "none"},
		{SettingUserGames, "unlimited", refused, ""},
		{SettingUserGames, "default", 0, ""},
	}
	cat := testCatalog(t)
	for _, tt := range tests {
		t.Run(tt.name+"="+tt.value, func(t *testing.T) {
			s := def
			s.ChannelGames, s.UserGames = 7, 7 // so that a reset shows
			got, err := s.apply(tt.name, tt.value, def)
			if tt.want == refused {
				var ue *UserError
				if !errors.As(err, &ue) || ue.Key != "error.bad_setting."+tt.name {
					t.Fatalf("apply = %q, %v; want the setting's refusal", got, err)
				}
				if msg := ErrorText(cat, i18n.DefaultLocale, err); !strings.Contains(msg, "from") && !strings.Contains(msg, "up to") {
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
			if _, err := again.apply(tt.name, storedSetting(tt.name, got), def); err != nil || field[tt.name](again) != tt.want {
				t.Fatalf("stored %q reads back as %d, %v", got, field[tt.name](again), err)
			}
		})
	}
}

// TestSettingsStoredZero: before 0 was refused, "none" of the games
// limits was stored as "0"; such a stored value still reads as no limit.
func TestSettingsStoredZero(t *testing.T) {
	for _, name := range []string{SettingChannelGames, SettingUserGames} {
		s := Settings{ChannelGames: 7, UserGames: 7}
		if _, err := s.apply(name, storedSetting(name, "0"), Settings{}); err != nil || s.ChannelGames+s.UserGames != 7 {
			t.Errorf("stored %s=0: %v, settings %+v; want no limit", name, err, s)
		}
	}
	if got := storedSetting(SettingTurnTime, "0"); got != "0" {
		t.Errorf("storedSetting changed a turn time: %q", got)
	}
}
