package nn

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tttbot/ttt-bot/game"
)

// Set holds the live network of each rules key. It is safe for concurrent
// use: Put swaps a rules key's network atomically, so a bot can replace
// models while games are being played and a move in flight keeps the
// network it started with.
type Set struct {
	mu   sync.Mutex                         // serialises writers
	live atomic.Pointer[map[rulesKey]entry] // immutable once published
}

// rulesKey identifies rules without allocating (Rules.String does).
type rulesKey struct {
	rows, cols, k int
	variant       game.Variant
}

// keyOf returns r's key.
func keyOf(r game.Rules) rulesKey {
	return rulesKey{r.Rows(), r.Cols(), r.K(), r.Variant()}
}

// entry is one rules key's network and its metadata.
type entry struct {
	net  *Net
	meta Meta
}

// NewSet returns an empty set.
func NewSet() *Set {
	s := &Set{}
	s.live.Store(&map[rulesKey]entry{})
	return s
}

// Net returns the live network for r, or nil when there is none. It
// allocates nothing. A nil *Set holds no networks.
func (s *Set) Net(r game.Rules) *Net {
	return s.entries()[keyOf(r)].net
}

// Meta returns the metadata of r's live network.
func (s *Set) Meta(r game.Rules) (Meta, bool) {
	e, ok := s.entries()[keyOf(r)]
	return e.meta, ok
}

// entries returns the live map (nil for a nil Set).
func (s *Set) entries() map[rulesKey]entry {
	if s == nil {
		return nil
	}
	return *s.live.Load()
}

// Put makes n the live network of its rules, replacing any other. m's
// Rules and Arch are taken from n. A nil n is ignored.
func (s *Set) Put(n *Net, m Meta) {
	if n == nil {
		return
	}
	m.Rules, m.Arch = n.arch.Rules, n.Arch()
	s.mu.Lock()
	defer s.mu.Unlock()
	old := *s.live.Load()
	next := make(map[rulesKey]entry, len(old)+1)
	for k, v := range old {
		next[k] = v
	}
	next[keyOf(n.rules)] = entry{net: n, meta: m}
	s.live.Store(&next)
}

// Rules returns the rules keys that have a network, sorted.
func (s *Set) Rules() []string {
	var out []string
	for _, e := range s.entries() {
		out = append(out, e.meta.Rules)
	}
	slices.Sort(out)
	return out
}
