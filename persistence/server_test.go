package persistence_test

import (
	"context"
	"testing"

	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

// TestServerRestartKeepsData stops and restarts a private server on the
// same directory: with the append-only file on, acknowledged writes survive.
func TestServerRestartKeepsData(t *testing.T) {
	srv := redistest.Start(t)
	c := redistest.Client(t, srv)
	ctx := context.Background()
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := c.Ping(ctx).Err(); err == nil {
		t.Fatal("ping succeeded with the server stopped")
	}
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Get(ctx, "k").Result(); err != nil || got != "v" {
		t.Fatalf("after restart: %q, %v; want \"v\"", got, err)
	}
	if err := persistence.New(c, persistence.Options{}).Ping(ctx); err != nil {
		t.Fatal(err)
	}
}
