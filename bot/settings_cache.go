package bot

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/tttbot/ttt-bot/bot/settings"
)

// settingsCache keeps servers' resolved settings for settingsCacheTTL,
// dropped at once when any replica announces a change. Cached settings.Server
// are never changed: callers get a copy with its own set map.
type settingsCache struct {
	mu sync.Mutex
	m  map[string]cachedSettings
	// gen counts the drops per guild, and all counts every drop of the
	// whole cache: a read that started before a drop must not fill the
	// cache with what it read.
	gen map[string]uint64
	all uint64
}

type cachedSettings struct {
	s  settings.Server
	at time.Time
}

// drop forgets one guild's settings, or every guild's for "".
func (c *settingsCache) drop(guild string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if guild == "" {
		c.m = nil
		c.all++
		return
	}
	delete(c.m, guild)
	if c.gen == nil {
		c.gen = map[string]uint64{}
	}
	c.gen[guild]++
}

// generation is what drop has done to guild so far.
func (c *settingsCache) generation(guild string) (uint64, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen[guild], c.all
}

// settings returns a server's settings (the defaults outside a server),
// from the cache when fresh. A stored value that no longer parses is
// skipped (the default applies) and reported as a warning on c.
func (b *Bot) settings(ctx context.Context, c *call, guild string) (settings.Server, error) {
	def := b.defaultSettings()
	if guild == "" {
		return def, nil
	}
	now := b.now()
	b.settingsCache.mu.Lock()
	e, ok := b.settingsCache.m[guild]
	b.settingsCache.mu.Unlock()
	if ok && now.Sub(e.at) < settingsCacheTTL {
		return e.s.Clone(), nil
	}
	gen, all := b.settingsCache.generation(guild)
	stored, err := b.store.GuildSettings(ctx, guild)
	if err != nil {
		return def, err
	}
	s, errs := settings.Load(def, stored)
	if c != nil {
		for _, err := range errs {
			c.warnings = append(c.warnings, fmt.Errorf("bot: guild %s: %w", guild, err))
		}
	}
	b.settingsCache.mu.Lock()
	if b.settingsCache.gen[guild] == gen && b.settingsCache.all == all {
		// Nothing changed the settings while they were read.
		if b.settingsCache.m == nil {
			b.settingsCache.m = map[string]cachedSettings{}
		}
		b.settingsCache.m[guild] = cachedSettings{s: s.Clone(), at: now}
	}
	b.settingsCache.mu.Unlock()
	return s, nil
}

// WatchSettings applies the settings changes made by any replica within
// moments: it drops a server's cached settings when a change is announced
// (and every server's after a lost subscription), until ctx is done.
// RunSweeper runs it; it returns the subscription's error, if any.
func (b *Bot) WatchSettings(ctx context.Context) error {
	ch, err := b.store.SubscribeSettings(ctx)
	if err != nil {
		return err
	}
	for ev := range ch {
		b.settingsCache.drop(ev.Guild)
	}
	return nil
}
