package persistence_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/internal/golden"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

// corpusUpdate reports whether -update was given (package golden's flag).
func corpusUpdate() bool { return golden.Updating() }

// testClock is a settable clock for Options.Now.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock() *testClock {
	return &testClock{t: time.Date(2026, 11, 21, 18, 0, 0, 0, time.UTC)}
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// corpusEnv is a private redis-server, a client, a clock and a Store.
type corpusEnv struct {
	srv   *persistence.Server
	rdb   *redis.Client
	clk   *testClock
	store *persistence.Store
	opts  persistence.Options
}

// corpusTestKey is the pseudonym key of the tests.
var corpusTestKey = []byte("test pseudonym key")

func newCorpusEnv(t testing.TB, o persistence.Options) *corpusEnv {
	t.Helper()
	srv := redistest.Start(t)
	rdb := redistest.Client(t, srv)
	clk := newTestClock()
	if o.Now == nil {
		o.Now = clk.Now
	}
	if o.PseudonymKey == nil {
		o.PseudonymKey = corpusTestKey
	}
	return &corpusEnv{srv: srv, rdb: rdb, clk: clk, store: persistence.New(rdb, o), opts: o}
}

// another returns a second Store on the same server, with its own client
// (as a second replica of the bot has).
func (e *corpusEnv) another(t testing.TB) *persistence.Store {
	return persistence.New(redistest.Client(t, e.srv), e.opts)
}

func corpusCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// cells parses "r c" cells for the classic board.
func corpusCells(t testing.TB, rules game.Rules, moves ...string) []game.Cell {
	t.Helper()
	out := make([]game.Cell, len(moves))
	for i, m := range moves {
		c, err := rules.ParseCell(m)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = c
	}
	return out
}

// corpusGame returns a finished classic game: X (user ux) wins on the top
// row against O (user uo) in guild g.
func corpusGame(t testing.TB, id, g, ux, uo string) persistence.FinishedGame {
	rules := game.Classic()
	return persistence.FinishedGame{
		ID: id, Guild: g, Rules: rules,
		Moves:  corpusCells(t, rules, "0 0", "1 0", "0 1", "1 1", "0 2"),
		X:      persistence.Player{User: ux},
		O:      persistence.Player{User: uo},
		Result: game.XWins,
	}
}
