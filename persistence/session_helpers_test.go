package persistence_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

// waitUntil polls cond until it holds, failing the test if it does not
// within timeout (which bounds a failure only).
func waitUntil(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(timeout); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", timeout, what)
		}
		time.Sleep(time.Millisecond)
	}
}

// env is a private redis-server, a client and a Store on it.
type sessEnv struct {
	srv   *persistence.Server
	rdb   *redis.Client
	store *persistence.Store
	clk   *testClock
}

func newSessEnv(t testing.TB, o persistence.Options) *sessEnv {
	t.Helper()
	srv := redistest.Start(t)
	rdb := redistest.Client(t, srv)
	clk := newTestClock()
	if o.Now == nil {
		o.Now = clk.Now
	}
	return &sessEnv{srv: srv, rdb: rdb, store: persistence.New(rdb, o), clk: clk}
}

// ctx returns a context that ends with the test, within 20 seconds.
func sessCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// humanGame is an active 3x3 game between two users.
func sessHumanGame(x, o string) persistence.Session {
	return persistence.Session{Rules: "3x3k3", Players: [2]persistence.Seat{{User: x}, {User: o}}, Guild: "g1"}
}

// cell is row, col on the game's 8-wide grid.
func sessCell(row, col int) game.Cell { return game.NewCell(row, col) }
