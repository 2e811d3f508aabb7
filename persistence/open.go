package persistence

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"strings"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// DefaultDataDir is where Open keeps a private redis-server's data when
// OpenOptions.DataDir is empty: relative to the working directory.
const DefaultDataDir = ".redis-data"

// OpenOptions say which Redis Open connects to or starts.
type OpenOptions struct {
	// URL names the Redis to use: "redis://" or "rediss://" (TLS) URLs for
	// a single node, as redis.ParseURL reads them; a bare "host:port" for a
	// single node without TLS; or two or more comma-separated host:port
	// seeds for a Cluster. Empty means no Redis was given: Open starts one
	// for this process (see Open).
	URL string
	// DataDir is the private redis-server's data directory (its
	// append-only file); default DefaultDataDir.
	DataDir string
	// Binary is the redis-server executable; default "redis-server".
	Binary string
	// InMemory skips redis-server and uses the in-process server even if
	// the binary is there (examples, quick experiments). State is lost on
	// exit.
	InMemory bool
	// Logger receives what Open decided; nil discards it.
	Logger *slog.Logger
}

// Open returns a Redis client and a function that closes it (and stops
// whatever Open started). With a URL it connects and pings. Without one,
// for a single bot process, it starts a private redis-server on loopback
// with its data in DataDir and the append-only file on, so a restart loses
// nothing (one process per data directory: a second one fails with
// ErrNoServer); and if redis-server is not installed, an in-process
// Redis-compatible server (miniredis) with a loud warning, because then
// everything is lost when the process exits. It fails with ErrNoServer if
// the Redis named cannot be reached or the private one cannot start.
func Open(ctx context.Context, o OpenOptions) (redis.UniversalClient, func() error, error) {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if url := strings.TrimSpace(o.URL); url != "" {
		return openURL(ctx, url, log)
	}
	if o.Binary == "" {
		o.Binary = "redis-server"
	}
	if !o.InMemory {
		if _, err := exec.LookPath(o.Binary); err == nil {
			return openPrivate(ctx, o, log)
		}
	}
	return openMemory(ctx, o, log)
}

// openURL connects to the Redis the URL names.
func openURL(ctx context.Context, url string, log *slog.Logger) (redis.UniversalClient, func() error, error) {
	var rdb redis.UniversalClient
	switch {
	case strings.Contains(url, "://"):
		opt, err := redis.ParseURL(url)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: redis URL: %v", ErrNoServer, err)
		}
		rdb = redis.NewClient(opt)
		log.Info("persistence: using Redis", "addr", opt.Addr, "db", opt.DB, "tls", opt.TLSConfig != nil)
	default:
		var addrs []string
		for a := range strings.SplitSeq(url, ",") {
			if a = strings.TrimSpace(a); a != "" {
				addrs = append(addrs, a)
			}
		}
		switch len(addrs) {
		case 0:
			return nil, nil, fmt.Errorf("%w: redis address %q names no host:port", ErrNoServer, url)
		case 1:
			rdb = redis.NewClient(&redis.Options{Addr: addrs[0]})
			log.Info("persistence: using Redis", "addr", addrs[0])
		default:
			rdb = redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
			log.Info("persistence: using Redis Cluster", "seeds", addrs)
		}
	}
	if err := rdb.Ping(ctx).Err(); err != nil {
		_ = rdb.Close()
		return nil, nil, fmt.Errorf("%w: %s: %v", ErrNoServer, redactURL(url), err)
	}
	return rdb, rdb.Close, nil
}

// redactURL hides a password in a redis:// URL for messages and logs.
func redactURL(url string) string {
	scheme, rest, ok := strings.Cut(url, "://")
	if !ok {
		return url
	}
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		rest = "***@" + rest[at+1:]
	}
	return scheme + "://" + rest
}

// openPrivate starts a private redis-server with the append-only file on.
func openPrivate(ctx context.Context, o OpenOptions, log *slog.Logger) (redis.UniversalClient, func() error, error) {
	dir := o.DataDir
	if dir == "" {
		dir = DefaultDataDir
	}
	unlock, err := lockDataDir(dir)
	if err != nil {
		return nil, nil, err
	}
	srv, err := StartServer(ctx, ServerOptions{Binary: o.Binary, Dir: dir, AppendOnly: true})
	if err != nil {
		_ = unlock()
		return nil, nil, err
	}
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	if err := rdb.Ping(ctx).Err(); err != nil {
		_ = rdb.Close()
		_ = srv.Stop()
		_ = unlock()
		return nil, nil, fmt.Errorf("%w: private redis-server on %s: %v", ErrNoServer, srv.Addr(), err)
	}
	log.Info("persistence: no Redis URL given; started a private redis-server for this process",
		"addr", srv.Addr(), "dir", dir, "appendonly", true)
	return rdb, func() error { return errors.Join(rdb.Close(), srv.Stop(), unlock()) }, nil
}

// openMemory starts an in-process Redis-compatible server. Its TTLs follow
// the wall clock, so leases and expiries behave as in Redis.
func openMemory(ctx context.Context, o OpenOptions, log *slog.Logger) (redis.UniversalClient, func() error, error) {
	m := miniredis.NewMiniRedis()
	m.ClockTTL(true)
	if err := m.Start(); err != nil {
		return nil, nil, fmt.Errorf("%w: in-memory server: %v", ErrNoServer, err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr()})
	if err := rdb.Ping(ctx).Err(); err != nil {
		_ = rdb.Close()
		m.Close()
		return nil, nil, fmt.Errorf("%w: in-memory server: %v", ErrNoServer, err)
	}
	if !o.InMemory {
		log.Warn("persistence: NO REDIS: no Redis URL given and redis-server is not installed; "+
			"using an in-memory server, so every game, rating and model is LOST when this process exits. "+
			"Install redis-server or set the Redis URL to keep them.", "binary", o.Binary)
	} else {
		log.Warn("persistence: in-memory Redis requested; state is lost when this process exits")
	}
	return rdb, func() error { err := rdb.Close(); m.Close(); return err }, nil
}
