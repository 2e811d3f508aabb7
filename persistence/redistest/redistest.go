// Package redistest starts a private redis-server for tests, on a free
// loopback port in a temporary directory (never the machine's shared
// server). When redis-server cannot be started the test is skipped, except
// under CI=true, where it fails: CI must never pass by skipping.
package redistest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tttbot/ttt-bot/persistence"
)

// Start starts redis-server with the append-only file on and stops it when
// the test ends.
func Start(t testing.TB) *persistence.Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	srv, err := persistence.StartServer(ctx, persistence.ServerOptions{Dir: t.TempDir(), AppendOnly: true})
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("redistest: CI=true and redis-server cannot be started: %v", err)
		}
		t.Skipf("redistest: redis-server cannot be started (install it to run this test): %v", err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	return srv
}

// Client returns a client for srv, closed when the test ends.
func Client(t testing.TB, srv *persistence.Server) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	t.Cleanup(func() { _ = c.Close() })
	return c
}
