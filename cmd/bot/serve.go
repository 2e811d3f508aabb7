package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/bot"
	"github.com/tttbot/ttt-bot/persistence"
)

// serveDrainTimeout is how long serve waits, after SIGTERM, for the
// interactions being handled to finish before cancelling them.
const serveDrainTimeout = 10 * time.Second

// serveCommand is "bot serve": the Discord bot itself.
func serveCommand() *command {
	return &command{
		name:     "serve",
		synopsis: "",
		summary:  "run the Discord bot (settings from the environment)",
		about: `Serve runs the Discord bot over the gateway: it registers the slash
commands, answers interactions until SIGINT or SIGTERM, then lets the
interactions in progress finish (up to 10 s) and exits. Settings come from
the environment (see .env.example):

  DISCORD_TOKEN    the bot token (required)
  DISCORD_APP_ID   the application ID (required)
  DEV_GUILD_ID     register the commands in this guild only (instant, for
                   development); empty registers them globally
  REDIS_URL        the Redis to use: redis://, rediss://, host:port, or
                   comma-separated Cluster seeds; empty starts a private
                   redis-server with its data in ./.redis-data
  CUSTOM_ID_KEY    secret that signs button custom IDs, 16+ bytes (required)
  PSEUDONYM_KEY    secret that pseudonymises user IDs in the training
                   corpus, 16+ bytes, never changed once set (required)
  LOG_LEVEL        debug, info (default), warn or error`,
		run: runServe,
	}
}

// serveConfig is serve's configuration, read from the environment.
type serveConfig struct {
	token, appID, devGuild, redisURL string
	customIDKey, pseudonymKey        []byte
	logLevel                         slog.Level
}

// loadServeConfig reads serve's settings with getenv and checks them; the
// error names every setting that is missing or wrong.
func loadServeConfig(getenv func(string) string) (serveConfig, error) {
	get := func(k string) string { return strings.TrimSpace(getenv(k)) }
	c := serveConfig{
		token: get("DISCORD_TOKEN"), appID: get("DISCORD_APP_ID"), devGuild: get("DEV_GUILD_ID"),
		redisURL: get("REDIS_URL"), customIDKey: []byte(get("CUSTOM_ID_KEY")), pseudonymKey: []byte(get("PSEUDONYM_KEY")),
	}
	var problems []string
	if c.token == "" {
		problems = append(problems, "DISCORD_TOKEN is not set")
	}
	if c.appID == "" {
		problems = append(problems, "DISCORD_APP_ID is not set")
	}
	for name, key := range map[string][]byte{"CUSTOM_ID_KEY": c.customIDKey, "PSEUDONYM_KEY": c.pseudonymKey} {
		if len(key) < bot.MinKeyLen {
			problems = append(problems, fmt.Sprintf("%s must be at least %d bytes (try: openssl rand -hex 32)", name, bot.MinKeyLen))
		}
	}
	if lv := get("LOG_LEVEL"); lv != "" {
		if err := c.logLevel.UnmarshalText([]byte(lv)); err != nil {
			problems = append(problems, fmt.Sprintf("LOG_LEVEL %q is not debug, info, warn or error", lv))
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return serveConfig{}, badInput("%s", strings.Join(problems, "; "))
	}
	return c, nil
}

// runServe reads the configuration and serves until ctx is cancelled.
func runServe(ctx context.Context, e *env, cmd *command, args []string) error {
	fs := newFlagSet(cmd)
	if err := e.parseFlags(cmd, fs, args); err != nil {
		return err
	}
	cfg, err := loadServeConfig(os.Getenv)
	if err != nil {
		return err
	}
	return serve(ctx, cfg, e.levels, e.stderr, func(token string) (*discordgo.Session, error) {
		return discordgo.New("Bot " + token)
	})
}

// serve wires the bot: Redis, the Store, the Discord session and the Bot,
// registers the commands, handles interactions until ctx is cancelled, and
// shuts down in order. newSession makes the Discord session (tests point it
// at a fake).
func serve(ctx context.Context, cfg serveConfig, levels *ai.Registry, logOut io.Writer, newSession func(token string) (*discordgo.Session, error)) error {
	log := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: cfg.logLevel}))
	rdb, closeRedis, err := persistence.Open(ctx, persistence.OpenOptions{URL: cfg.redisURL, Logger: log})
	if err != nil {
		return err
	}
	defer func() {
		if err := closeRedis(); err != nil {
			log.Error("serve: closing redis", "err", err)
		}
	}()
	store := persistence.New(rdb, persistence.Options{PseudonymKey: cfg.pseudonymKey})
	cat, err := bot.NewCatalog()
	if err != nil {
		return err
	}
	signer, err := bot.NewSigner(cfg.customIDKey)
	if err != nil {
		return err
	}
	ses, err := newSession(cfg.token)
	if err != nil {
		return fmt.Errorf("discord session: %w", err)
	}
	ses.Identify.Intents = discordgo.IntentsGuilds // interactions need no privileged intent
	b, err := bot.New(bot.Deps{Discord: ses, Store: store, Levels: levels, Catalog: cat,
		Signer: signer, Logger: log, AppID: cfg.appID}, bot.Options{})
	if err != nil {
		return err
	}

	// Interactions in progress get their own context, which outlives the
	// signal by up to serveDrainTimeout so they can answer.
	work, cancelWork := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelWork()
	var (
		mu       sync.Mutex
		closing  bool
		inflight sync.WaitGroup
	)
	remove := ses.AddHandler(func(_ *discordgo.Session, i *discordgo.InteractionCreate) {
		mu.Lock()
		if closing {
			mu.Unlock()
			return
		}
		inflight.Add(1)
		mu.Unlock()
		defer inflight.Done()
		b.HandleInteraction(work, i)
	})
	if err := ses.Open(); err != nil {
		return fmt.Errorf("discord gateway: %w", err)
	}
	if err := b.Register(ctx, cfg.devGuild); err != nil {
		_ = ses.Close()
		return err
	}
	log.Info("serve: ready", "app", cfg.appID, "guild", cfg.devGuild)

	<-ctx.Done()
	log.Info("serve: shutting down")
	mu.Lock()
	closing = true
	mu.Unlock()
	remove()
	drained := make(chan struct{})
	go func() {
		inflight.Wait()
		close(drained)
	}()
	select {
	case <-drained:
	case <-time.After(serveDrainTimeout):
		log.Warn("serve: cancelling interactions still in progress")
		cancelWork()
		<-drained
	}
	if err := ses.Close(); err != nil {
		log.Warn("serve: closing the gateway", "err", err)
	}
	return nil
}
