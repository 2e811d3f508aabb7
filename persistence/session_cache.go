package persistence

import (
	"sync"

	"github.com/tttbot/ttt-bot/game"
)

// sessionCache remembers the last version this Store committed or loaded of
// recently used live games, so that a change at the version the caller
// names (a click on the board this process last showed) can skip loading
// the game: the change is one round trip, the compare-and-set, instead of
// two.
//
// It is only ever a shortcut to what loading would give. The
// compare-and-set is on the version the caller named, exactly as after a
// load: if the game moved on (another process, the sweeper), the script
// refuses with ErrConflict and nothing changes. An entry is trusted only
// at its own version, and a change that the cached record refuses (not
// your turn, not live, an illegal move) is re-checked on a fresh load, so
// the caller gets the error the stored game gives. This relies on a game
// and a version naming one record, which every write keeps true (each
// goes through the compare-and-set and bumps the version), as PlayOn
// already does.
//
// It holds at most max entries; when full, an arbitrary entry makes room.
type sessionCache struct {
	mu  sync.Mutex
	m   map[GameID]*Session
	max int
}

// newSessionCache returns a cache of up to n sessions; n <= 0 gives one
// that never holds anything.
func newSessionCache(n int) *sessionCache {
	return &sessionCache{m: make(map[GameID]*Session, min(max(n, 0), 1024)), max: n}
}

// get returns a copy of game id if it is cached at version.
func (c *sessionCache) get(id GameID, version int64) (*Session, bool) {
	if c.max <= 0 {
		return nil, false
	}
	c.mu.Lock()
	g := c.m[id]
	c.mu.Unlock()
	if g == nil || g.Version != version {
		return nil, false
	}
	return g.clone(), true
}

// put remembers g (a copy) if it is live and forgets its game otherwise.
// The latest put wins: g was just read from or written to Redis.
func (c *sessionCache) put(g *Session) {
	if c.max <= 0 {
		return
	}
	if !g.Status.Live() {
		c.forget(g.ID)
		return
	}
	g = g.clone()
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[g.ID]; !ok && len(c.m) >= c.max {
		for k := range c.m { // map order is arbitrary: evict whatever comes first
			delete(c.m, k)
			break
		}
	}
	c.m[g.ID] = g
}

// forget drops game id.
func (c *sessionCache) forget(id GameID) {
	if c.max <= 0 {
		return
	}
	c.mu.Lock()
	delete(c.m, id)
	c.mu.Unlock()
}

// rulesCache keeps parsed rules by their notation: parsing builds the
// board's line tables, and every load and move needs them. Rules are
// immutable values, so one parse serves every caller. It keeps at most
// rulesCacheMax notations (the bot offers a handful); others are parsed
// each time.
type rulesCache struct {
	mu sync.RWMutex
	m  map[string]game.Rules
}

// rulesCacheMax bounds a rulesCache, so stored records with odd notations
// cannot grow it without end.
const rulesCacheMax = 64

// parse returns game.ParseRules(s), from the cache when it can.
func (c *rulesCache) parse(s string) (game.Rules, error) {
	c.mu.RLock()
	r, ok := c.m[s]
	c.mu.RUnlock()
	if ok {
		return r, nil
	}
	r, err := game.ParseRules(s)
	if err != nil {
		return r, err
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = make(map[string]game.Rules)
	}
	if len(c.m) < rulesCacheMax {
		c.m[s] = r
	}
	c.mu.Unlock()
	return r, nil
}
