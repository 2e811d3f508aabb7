package persistence

import (
	"errors"
	"fmt"
	"testing"

	"github.com/tttbot/ttt-bot/game"
)

// TestSessionCacheEntries checks the cache's bookkeeping: a hit only at the
// cached version, copies in and out, finished games dropped, the size
// bound kept, and a disabled cache that holds nothing.
func TestSessionCacheEntries(t *testing.T) {
	live := func(id GameID, v int64) *Session {
		return &Session{ID: id, Rules: "3x3k3", Status: StatusActive, Version: v, Moves: []game.Cell{1}}
	}
	c := newSessionCache(2)
	g := live("c.a", 3)
	c.put(g)
	g.Moves[0] = 7 // the caller's copy changes; the cached one must not
	if _, ok := c.get("c.a", 2); ok {
		t.Fatal("hit at another version")
	}
	got, ok := c.get("c.a", 3)
	if !ok || got.Moves[0] != 1 {
		t.Fatalf("get at the cached version: %+v, %v", got, ok)
	}
	got.Moves[0] = 8
	if again, _ := c.get("c.a", 3); again.Moves[0] != 1 {
		t.Fatal("a returned copy shares its moves with the cache")
	}
	fin := live("c.a", 4)
	fin.Status = StatusFinished
	c.put(fin)
	if _, ok := c.get("c.a", 4); ok {
		t.Fatal("a finished game is cached")
	}
	if _, ok := c.get("c.a", 3); ok {
		t.Fatal("the live version outlived the game's end")
	}
	for i := range 10 {
		c.put(live(GameID(fmt.Sprintf("c.%d", i)), 1))
	}
	if n := len(c.m); n != 2 {
		t.Fatalf("%d entries, want the bound 2", n)
	}
	c.forget("c.9")
	off := newSessionCache(-1)
	off.put(live("c.a", 1))
	if _, ok := off.get("c.a", 1); ok {
		t.Fatal("a disabled cache returned a session")
	}
}

// TestRulesCache checks that parsing through the cache gives what
// game.ParseRules gives, errors included, and that it stays bounded.
func TestRulesCache(t *testing.T) {
	var c rulesCache
	for _, s := range []string{"3x3k3", "3x3k3", "4x3xox", "3x3k9", "nonsense"} {
		got, err := c.parse(s)
		want, werr := game.ParseRules(s)
		if (err == nil) != (werr == nil) || err != nil && !errors.Is(err, game.ErrBadRules) {
			t.Fatalf("%q: error %v, want %v", s, err, werr)
		}
		if err == nil && got.String() != want.String() {
			t.Fatalf("%q: %v, want %v", s, got, want)
		}
	}
	for i := range 2 * rulesCacheMax {
		_, _ = c.parse(fmt.Sprintf("%dx%dk3", 3+i%5, 3+i/5)) // some sizes are refused; only the bound matters here
	}
	if n := len(c.m); n > rulesCacheMax {
		t.Fatalf("%d rules cached, want at most %d", n, rulesCacheMax)
	}
}
