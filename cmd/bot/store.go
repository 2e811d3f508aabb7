package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"

	"github.com/tttbot/ttt-bot/persistence"
)

// redisHelp documents REDIS_URL for the subcommands that use the bot's
// Redis (corpus, retrain), as serve reads it.
const redisHelp = `The Redis is the one serve uses: REDIS_URL (redis://, rediss://,
host:port, or comma-separated Cluster seeds), or, when it is empty, the
private redis-server with its data in ./.redis-data (which only one process
may run at a time: while serve runs on it, give both the same REDIS_URL).`

// errNoRedis reports that no lasting Redis is available: REDIS_URL is
// empty and redis-server is not installed, so the only store would be an
// in-memory one that starts empty and loses what is written to it.
var errNoRedis = errors.New("no Redis to use: REDIS_URL is empty and redis-server is not on the PATH; " +
	"set REDIS_URL to the bot's Redis (an in-memory store would start empty and lose everything)")

// openStore opens the Redis that REDIS_URL names (or the private
// redis-server serve would start) and returns a Store on it and a function
// that closes both. Unlike serve it never falls back to an in-memory store:
// the corpus and the models must outlive the command. Warnings from
// persistence go to logOut.
func (e *env) openStore(ctx context.Context, logOut io.Writer) (*persistence.Store, func() error, error) {
	url := strings.TrimSpace(os.Getenv("REDIS_URL"))
	if url == "" {
		if _, err := exec.LookPath("redis-server"); err != nil {
			return nil, nil, errNoRedis
		}
	}
	log := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: slog.LevelWarn}))
	rdb, closeRedis, err := persistence.Open(ctx, persistence.OpenOptions{URL: url, Logger: log})
	if err != nil {
		return nil, nil, err
	}
	store := persistence.New(rdb, persistence.Options{Now: e.now})
	return store, closeRedis, nil
}

// explainStore returns a persistence error's message without the
// "persistence: invalid request: " (or similar) prefixes, for showing to a
// user beside the line or setting it concerns.
func explainStore(err error) string {
	msg := err.Error()
	for _, p := range []string{"persistence: invalid request: ", "persistence: no redis server: ", "persistence: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return msg
}
