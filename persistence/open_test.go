package persistence_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

func TestOpen(t *testing.T) {
	srv := redistest.Start(t)
	tests := []struct {
		name    string
		o       persistence.OpenOptions
		want    error
		logHas  string
		private bool
	}{
		{"redis URL", persistence.OpenOptions{URL: "redis://" + srv.Addr() + "/0"}, nil, "using Redis", false},
		{"bare address", persistence.OpenOptions{URL: srv.Addr()}, nil, "using Redis", false},
		{"nobody listening", persistence.OpenOptions{URL: "redis://127.0.0.1:1"}, persistence.ErrNoServer, "", false},
		{"bad URL", persistence.OpenOptions{URL: "redis://:x:y/zz"}, persistence.ErrNoServer, "", false},
		{"no redis-server installed", persistence.OpenOptions{Binary: "no-such-redis-server"}, nil, "LOST when this process exits", false},
		{"in memory on request", persistence.OpenOptions{InMemory: true}, nil, "state is lost", false},
		{"private redis-server", persistence.OpenOptions{}, nil, "started a private redis-server", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.private {
				if _, err := exec.LookPath("redis-server"); err != nil {
					t.Skip("redis-server is not installed")
				}
				tt.o.DataDir = filepath.Join(t.TempDir(), "data")
			}
			var logs bytes.Buffer
			tt.o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			rdb, closeFn, err := persistence.Open(ctx, tt.o)
			if !errors.Is(err, tt.want) || (err != nil) != (tt.want != nil) {
				t.Fatalf("Open: %v, want %v", err, tt.want)
			}
			if err != nil {
				return
			}
			defer func() {
				if err := closeFn(); err != nil {
					t.Errorf("close: %v", err)
				}
			}()
			if !strings.Contains(logs.String(), tt.logHas) {
				t.Errorf("logs %q lack %q", logs.String(), tt.logHas)
			}
			// The client serves the Store, scripts included.
			s := persistence.New(rdb, persistence.Options{})
			g, err := s.CreateGame(ctx, "c1", sessHumanGame("x"+tt.name, "o"+tt.name))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Play(ctx, g.ID, g.Version, "x"+tt.name, sessCell(1, 1)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestOpenPrivateKeepsData: a bot restarted without a Redis URL finds its
// games in the private server's data directory.
func TestOpenPrivateKeepsData(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not installed")
	}
	ctx := sessCtx(t)
	dir := filepath.Join(t.TempDir(), ".redis-data")
	rdb, closeFn, err := persistence.Open(ctx, persistence.OpenOptions{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	g, err := persistence.New(rdb, persistence.Options{}).CreateGame(ctx, "c1", sessHumanGame("x", "o"))
	if err != nil {
		t.Fatal(err)
	}
	if err := closeFn(); err != nil {
		t.Fatal(err)
	}
	rdb, closeFn, err = persistence.Open(ctx, persistence.OpenOptions{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	// A second process on the same directory is refused, not allowed to
	// share the append-only file.
	if _, _, err := persistence.Open(ctx, persistence.OpenOptions{DataDir: dir}); !errors.Is(err, persistence.ErrNoServer) {
		t.Fatalf("second Open on one data directory: %v, want ErrNoServer", err)
	}
	if _, err := persistence.New(rdb, persistence.Options{}).Game(ctx, g.ID); err != nil {
		t.Fatalf("after restart: %v", err)
	}
}
