package persistence_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
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

// TestServerRelativeDir starts a server on a data directory given relative
// to the working directory, as Open's default ".redis-data" is.
func TestServerRelativeDir(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil && os.Getenv("CI") == "" {
		t.Skip("redis-server not installed")
	}
	t.Chdir(t.TempDir())
	ctx := context.Background()
	srv, err := persistence.StartServer(ctx, persistence.ServerOptions{Dir: "data", AppendOnly: true})
	if err != nil {
		t.Fatalf("StartServer on a relative directory: %v", err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	if !filepath.IsAbs(srv.Dir()) {
		t.Errorf("Dir() = %q; want an absolute path", srv.Dir())
	}
}
