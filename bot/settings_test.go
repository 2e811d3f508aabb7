package bot

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/settings"
	"github.com/tttbot/ttt-bot/persistence"
)

func TestRenderSettingsGolden(t *testing.T) {
	r := testRenderer(t)
	def := settings.Server{TurnTime: 10 * time.Minute, Hints: true, Duels: true}
	custom, errs := settings.Load(def, map[string]string{settings.Channels: "111,222", settings.Role: "333", settings.TurnTime: "1m30s",
		settings.Hints: "off", settings.AdminRoles: "444", settings.BoardLabels: "compact"})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	entries := []persistence.AuditEntry{
		{Time: fixedNow, User: alice, Action: "set", Detail: "hints=off"},
		{Time: fixedNow.Add(-time.Hour), User: bob, Action: "end-game", Detail: "<#7> 1"},
		{Time: fixedNow.Add(-2 * time.Hour), User: alice, Action: "reset", Detail: "turn-time"},
	}
	for _, loc := range goldenLocales {
		t.Run(string(loc), func(t *testing.T) {
			for name, st := range map[string]settings.Server{"default": def, "custom": custom} {
				d, err := r.Settings(loc, "900", alice, st)
				if err != nil {
					t.Fatal(err)
				}
				if d.Flags&discordgo.MessageFlagsEphemeral == 0 {
					t.Error("settings are not private")
				}
				goldenFile(t, "settings-"+name+"."+string(loc)+".json", wireJSON(t, checked(t, d)))
			}
			goldenFile(t, "settings-changed."+string(loc)+".json", wireJSON(t, checked(t, r.SettingChanged(loc, settings.Channels, custom))))
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
	def := b.defaultSettings()
	cached, _ := settings.Load(def, map[string]string{settings.Hints: "off"})
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
			if _, err := st.Change(settings.Rated, "off", def); err != nil { // a handler's own change
				t.Error(err)
			}
			_ = st.IsSet(settings.Hints)
		}()
	}
	wg.Wait()
	if got := b.settingsCache.m["42"].s; !got.IsSet(settings.Hints) || got.IsSet(settings.Rated) || !got.Rated {
		t.Fatalf("the cached settings were changed through a copy: %+v", got)
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
