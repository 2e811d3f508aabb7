package main

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/bot"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/httpmode"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/retrain"
	"github.com/tttbot/ttt-bot/sched"
	"github.com/tttbot/ttt-bot/weights"
)

// serveDrainTimeout is how long serve waits, after SIGTERM, for the
// interactions being handled to finish before cancelling them.
const serveDrainTimeout = 10 * time.Second

// Modes of serve: how Discord delivers interactions.
const (
	modeGateway = "gateway"
	modeHTTP    = "http"
)

// Defaults of serve's listeners.
const defaultListenAddr = ":8080"

// maxAIWorkers bounds AI_WORKERS: more workers than this many cores would
// only share them.
const maxAIWorkers = 1024

// serveCommand is "bot serve": the Discord bot itself.
func serveCommand() *command {
	return &command{
		name:     "serve",
		synopsis: "",
		summary:  "run the Discord bot (settings from the environment)",
		about: `Serve runs the Discord bot: it registers the slash commands, answers
interactions until SIGINT or SIGTERM, then lets the interactions in
progress finish (up to 10 s) and exits. Interactions arrive over the
gateway (MODE=gateway) or as signed HTTP requests to the bot's own
interactions endpoint (MODE=http; set the portal's Interactions Endpoint
URL to it); any number of http processes may share one Redis behind a
load balancer. At start-up it asks Discord for the application (its ID
and public key), logs the link that invites the bot to a server, and,
while Discord cannot be reached, retries with growing waits; a token
Discord rejects stops it at once. Settings come from the environment (see
.env.example); only DISCORD_TOKEN is required:

  DISCORD_TOKEN       the bot token (required)
  DISCORD_APP_ID      the application ID; default: the one Discord gives
                      for the token
  DEV_GUILD_ID        register the commands in this guild only (instant,
                      for development); empty registers them globally
  MODE                gateway (default) or http
  LISTEN_ADDR         http mode: the interactions endpoint's address
                      (default :8080); it answers on every path
  DISCORD_PUBLIC_KEY  http mode: the application's public key, 64 hex
                      digits, which signs Discord's requests; default: the
                      one Discord gives for the token
  OPS_ADDR            address of /healthz, /readyz and Prometheus /metrics,
                      e.g. 127.0.0.1:9090 (this host only; :9090 would make
                      them public); empty serves none
  REDIS_URL           the Redis to use: redis://, rediss://, host:port, or
                      comma-separated Cluster seeds; empty starts a private
                      redis-server with its data in ./.redis-data
  CUSTOM_ID_KEY       secret that signs button custom IDs, 16+ bytes;
                      default: generated once and kept in Redis
                      (ttt:secret:custom_id_key), shared by every process
  PSEUDONYM_KEY       secret that pseudonymises user IDs in the training
                      corpus, 16+ bytes, never changed once set; default:
                      generated once and kept in Redis
                      (ttt:secret:pseudonym_key), shared by every process
  DISCORD_API_URL     replace Discord's API base URL (a local fake Discord
                      or a proxy); empty talks to discord.com
  LOG_LEVEL           debug, info (default), warn or error
  SHARD_ID            gateway mode: this process's shard, 0 to SHARD_COUNT-1;
                      set both or neither (neither: one process, shard 0 of 1)
  SHARD_COUNT         gateway mode: the number of shards, one process each;
                      only shard 0 registers the commands
  RETRAIN_INTERVAL    how often the retrain job runs, a duration like 24h
                      (default 24h); 0 turns the periodic job off
  RETRAIN_MIN_GAMES   the periodic job skips a board with fewer new
                      finished games since its last run (default 50)
  RETRAIN_TIME_LIMIT  the longest a retrain job may run (default 20m)
  RETRAIN_CPU_SHARE   the share of the cores training may use, over 0 and
                      at most 1 (default 0.5)`,
		run: runServe,
	}
}

// serveConfig is serve's configuration, read from the environment.
type serveConfig struct {
	// token is the only setting serve cannot do without. An empty appID
	// or publicKey is asked of Discord, and empty keys come from Redis
	// (resolveApplication, resolveSecrets).
	token, appID, devGuild, redisURL string
	customIDKey, pseudonymKey        []byte
	logLevel                         slog.Level
	mode, listenAddr, opsAddr        string
	publicKey                        ed25519.PublicKey
	// shardID and shardCount are the gateway shard of this process when
	// SHARD_ID and SHARD_COUNT set them (shardsFixed); without them the
	// process claims shards in Redis among Discord's recommended count.
	shardID, shardCount int
	shardsFixed         bool
	// apiURL, if set (DISCORD_API_URL), replaces Discord's API base URL,
	// for a local fake Discord or a proxy.
	apiURL *url.URL
	// retrain are the retrain job's settings (RETRAIN_*).
	retrain retrainSettings
	// aiWorkers (AI_WORKERS) and aiMaxWait (AI_MAX_WAIT) size the AI
	// work queue; 0 means sched's defaults.
	aiWorkers, aiMaxQueue int
	aiMaxWait             time.Duration
}

// loadServeConfig reads serve's settings with getenv and checks them; the
// error names every setting that is missing or wrong.
func loadServeConfig(getenv func(string) string) (serveConfig, error) {
	get := func(k string) string { return strings.TrimSpace(getenv(k)) }
	c := serveConfig{
		token: get("DISCORD_TOKEN"), appID: get("DISCORD_APP_ID"), devGuild: get("DEV_GUILD_ID"),
		redisURL: get("REDIS_URL"), customIDKey: []byte(get("CUSTOM_ID_KEY")), pseudonymKey: []byte(get("PSEUDONYM_KEY")),
		mode: strings.ToLower(get("MODE")), listenAddr: get("LISTEN_ADDR"), opsAddr: get("OPS_ADDR"),
		shardCount: 1,
	}
	var problems []string
	problems = append(problems, c.loadShard(get("SHARD_ID"), get("SHARD_COUNT"))...)
	var more []string
	c.retrain, more = loadRetrainSettings(getenv)
	problems = append(problems, more...)
	if c.token == "" {
		problems = append(problems, "DISCORD_TOKEN is not set")
	}
	if c.appID != "" && !snowflake(c.appID) {
		problems = append(problems, fmt.Sprintf("DISCORD_APP_ID %q is not an ID (General Information > Application ID), or leave it empty", c.appID))
	}
	for name, key := range map[string][]byte{"CUSTOM_ID_KEY": c.customIDKey, "PSEUDONYM_KEY": c.pseudonymKey} {
		if len(key) > 0 && len(key) < customid.MinKeyLen {
			problems = append(problems, fmt.Sprintf("%s must be at least %d bytes (try: openssl rand -hex 32), or empty to keep a generated one in Redis",
				name, customid.MinKeyLen))
		}
	}
	if raw := get("DISCORD_API_URL"); raw != "" {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			problems = append(problems, fmt.Sprintf("DISCORD_API_URL %q is not an http:// or https:// URL", raw))
		} else {
			c.apiURL = u
		}
	}
	if v := get("AI_WORKERS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxAIWorkers {
			problems = append(problems, fmt.Sprintf("AI_WORKERS %q is not a whole number from 1 to %d, or empty for one fewer than the cores", v, maxAIWorkers))
		}
		c.aiWorkers = n
	}
	if v := get("AI_MAX_QUEUE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			problems = append(problems, fmt.Sprintf("AI_MAX_QUEUE %q is not a whole number, 1 or more, or empty for %d per worker", v, sched.DefaultMaxQueuePerWorker))
		}
		c.aiMaxQueue = n
	}
	if v := get("AI_MAX_WAIT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 100*time.Millisecond {
			problems = append(problems, fmt.Sprintf("AI_MAX_WAIT %q is not a duration of at least 100ms, like 5s", v))
		}
		c.aiMaxWait = d
	}
	if lv := get("LOG_LEVEL"); lv != "" {
		if err := c.logLevel.UnmarshalText([]byte(lv)); err != nil {
			problems = append(problems, fmt.Sprintf("LOG_LEVEL %q is not debug, info, warn or error", lv))
		}
	}
	switch c.mode {
	case "":
		c.mode = modeGateway
	case modeGateway:
	case modeHTTP:
		if c.shardCount != 1 {
			problems = append(problems, "SHARD_ID and SHARD_COUNT apply to MODE=gateway only (HTTP interactions are not sharded)")
		}
		if c.listenAddr == "" {
			c.listenAddr = defaultListenAddr
		}
		if raw := get("DISCORD_PUBLIC_KEY"); raw != "" {
			key, err := httpmode.ParsePublicKey(raw)
			if err != nil {
				problems = append(problems, "DISCORD_PUBLIC_KEY must be the application's public key, 64 hex digits (General Information > Public Key), or empty to ask Discord")
			}
			c.publicKey = key
		}
	default:
		problems = append(problems, fmt.Sprintf("MODE %q is not gateway or http", c.mode))
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return serveConfig{}, badInput("%s", strings.Join(problems, "; "))
	}
	return c, nil
}

// loadShard reads SHARD_ID and SHARD_COUNT into c and returns what is
// wrong with them. Both or neither must be set: a process of a sharded
// fleet that lost one setting must not quietly run as shard 0 of 1.
func (c *serveConfig) loadShard(id, count string) []string {
	switch {
	case id == "" && count == "":
		return nil
	case id == "" || count == "":
		return []string{"SHARD_ID and SHARD_COUNT must be set together"}
	}
	n, err := strconv.Atoi(count)
	if err != nil || n < 1 {
		return []string{fmt.Sprintf("SHARD_COUNT %q is not a whole number of at least 1", count)}
	}
	i, err := strconv.Atoi(id)
	if err != nil || i < 0 || i >= n {
		return []string{fmt.Sprintf("SHARD_ID %q is not a whole number from 0 to SHARD_COUNT-1 (%d)", id, n-1)}
	}
	c.shardID, c.shardCount, c.shardsFixed = i, n, true
	return nil
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
	return serve(ctx, cfg, serveDeps{levels: e.levels, logOut: e.stderr,
		newSession: func(token string) (*discordgo.Session, error) { return discordgo.New("Bot " + token) }})
}

// serveDeps are what serve takes besides its configuration; tests point
// them at fakes.
type serveDeps struct {
	levels *ai.Registry
	logOut io.Writer
	// newSession makes the Discord session.
	newSession func(token string) (*discordgo.Session, error)
	// listen opens the listeners; default net.Listen on TCP.
	listen func(addr string) (net.Listener, error)
	// backoff paces the start-up's attempts to reach Discord; default
	// serveBackoff.
	backoff backoff
}

// serve wires the bot: Redis, the Store, the metrics, the Discord session
// and the Bot, serves the operations endpoints, registers the commands,
// handles interactions (over the gateway or HTTP) until ctx is cancelled,
// and shuts down in order: readiness fails first, then the interactions in
// progress finish, then the connections close.
func serve(ctx context.Context, cfg serveConfig, d serveDeps) error {
	if d.listen == nil {
		d.listen = func(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }
	}
	if d.backoff == (backoff{}) {
		d.backoff = serveBackoff
	}
	log := slog.New(slog.NewTextHandler(d.logOut, &slog.HandlerOptions{Level: cfg.logLevel}))
	// Discord first: a token it rejects stops serve before anything
	// starts, and the application ID and public key may come from it.
	ses, err := d.newSession(cfg.token)
	if err != nil {
		return fmt.Errorf("discord session: %w", err)
	}
	if cfg.apiURL != nil {
		ses.Client = bot.RedirectClient(cfg.apiURL, 20*time.Second)
		log.Info("serve: Discord API redirected", "url", cfg.apiURL.String())
	}
	// Every call to Discord is counted by route kind and outcome.
	reg := bot.NewMetricRegistry()
	ses.Client = bot.CountDiscordCalls(ses.Client, reg)
	if err := resolveApplication(ctx, &cfg, ses, log, d.backoff); err != nil {
		return err
	}
	log.Info("serve: invite the bot to a server with this link", "url", inviteURL(cfg.appID))

	metrics := bot.NewMetrics(reg)
	rdb, closeRedis, err := persistence.Open(ctx, persistence.OpenOptions{URL: cfg.redisURL, Logger: log})
	if err != nil {
		return err
	}
	defer func() {
		if err := closeRedis(); err != nil {
			log.Error("serve: closing redis", "err", err)
		}
	}()
	rdb.AddHook(redisErrors{metrics})
	// The secrets not set in the environment are shared through Redis;
	// the Store is built once the pseudonym key is known.
	where, volatile := redisStorage(cfg.redisURL)
	if err := resolveSecrets(ctx, persistence.New(rdb, persistence.Options{SessionCache: -1}), &cfg, log, where, volatile); err != nil {
		return err
	}
	store := persistence.New(rdb, persistence.Options{PseudonymKey: cfg.pseudonymKey})
	// Blocks are named by pseudonym; those stored by ID before (or by a
	// replica of that version still running) move now, before serving.
	moved, err := store.MigrateBlocks(ctx)
	if err != nil {
		return fmt.Errorf("migrating blocks: %w", err)
	}
	if moved > 0 {
		log.Info("serve: blocks moved to pseudonymous names", "blocks", moved)
	}
	// The networks: the neural levels play the set, which the watcher
	// fills (each board's registry version, else the shipped weights) and
	// keeps in step with the registry until serve returns.
	models := nn.NewSet()
	d.levels.Register(ai.NeuralLevel(models))
	d.levels.Register(ai.HumanlikeLevel(models))
	watcher := retrain.NewModelWatcher(store, models, weights.Load, bot.PresetKeys(), log)
	if err := watcher.Load(ctx); err != nil {
		log.Warn("serve: not every network loaded; the boards without one refuse the neural levels", "err", err)
	}
	watchCtx, stopWatch := context.WithCancel(ctx)
	watching := make(chan struct{})
	go func() {
		defer close(watching)
		watcher.Run(watchCtx)
	}()
	defer func() {
		stopWatch()
		<-watching
	}()
	metrics.InstrumentLevels(d.levels, time.Now)
	pool := sched.New(sched.Options{Workers: cfg.aiWorkers, MaxWait: cfg.aiMaxWait, MaxQueue: cfg.aiMaxQueue})
	rcfg := retrainConfig(cfg.retrain)
	rcfg.Pool = pool
	job := retrain.New(store, rcfg)
	cat, err := i18n.NewCatalog()
	if err != nil {
		return err
	}
	signer, err := customid.NewSigner(cfg.customIDKey)
	if err != nil {
		return err
	}
	var dc bot.Discord = ses
	if cfg.mode == modeHTTP {
		dc = httpmode.NewInlineDiscord(ses)
	}
	b, err := bot.New(bot.Deps{Discord: dc, Store: store, Levels: d.levels, Catalog: cat,
		Signer: signer, Logger: log, AppID: cfg.appID, Models: models, Retrain: job}, bot.Options{Metrics: metrics, Pool: pool})
	if err != nil {
		return err
	}

	health := httpmode.NewHealth(store, 0)
	if cfg.opsAddr != "" {
		ln, err := d.listen(cfg.opsAddr)
		if err != nil {
			return fmt.Errorf("ops listener: %w", err)
		}
		ops := &http.Server{Handler: httpmode.OpsHandler(health, reg), ReadHeaderTimeout: 5 * time.Second}
		go func() {
			if err := ops.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Error("serve: ops listener", "err", err)
			}
		}()
		defer ops.Close()
		log.Info("serve: ops endpoints", "addr", ln.Addr().String())
	}
	// The sweeper loses games on time, expires challenges and plays AI
	// duels. It stops with ctx (a signal), ending running duels while the
	// session is still open, and serve returns only once it has stopped.
	sweepCtx, stopSweep := context.WithCancel(ctx)
	sweeping := make(chan struct{})
	go func() {
		defer close(sweeping)
		b.RunSweeper(sweepCtx, serveSweepEvery)
	}()
	defer func() {
		stopSweep()
		<-sweeping
	}()
	// ttt_active_games is counted here, not at scrape time: a scrape
	// never waits on Redis, and many scrapers cost one count per period.
	countCtx, stopCount := context.WithCancel(ctx)
	counting := make(chan struct{})
	go func() {
		defer close(counting)
		metrics.RefreshActiveGames(countCtx, serveCountEvery, store.LiveGames,
			func(err error) { log.Warn("serve: counting live games", "err", err) })
	}()
	defer func() {
		stopCount()
		<-counting
	}()
	// The periodic retrain job (RETRAIN_INTERVAL, 0 = off). A run in
	// progress at shutdown is cancelled: it publishes nothing, and its
	// lock is released (or frees itself after its lease).
	if cfg.retrain.interval > 0 {
		retrainCtx, stopRetrain := context.WithCancel(ctx)
		retraining := make(chan struct{})
		go func() {
			defer close(retraining)
			job.Periodic(retrainCtx, log)
		}()
		defer func() {
			stopRetrain()
			<-retraining
		}()
		log.Info("serve: periodic retrain job", "interval", cfg.retrain.interval, "min_new_games", cfg.retrain.minGames,
			"time_limit", cfg.retrain.timeLimit, "cpu_share", cfg.retrain.cpuShare)
	}
	if cfg.mode == modeHTTP {
		return serveHTTP(ctx, cfg, b, health, metrics, log, d.listen)
	}
	return serveGateway(ctx, cfg, b, ses, health, reg, store, log, d.backoff)
}

// serveSweepEvery is how often the sweeper looks for passed deadlines and
// plays the next move of each AI duel.
const serveSweepEvery = time.Second

// serveCountEvery is how often ttt_active_games is refreshed.
const serveCountEvery = 5 * time.Second

// serveHTTP serves the interactions endpoint until ctx is cancelled.
func serveHTTP(ctx context.Context, cfg serveConfig, b *bot.Bot, health *httpmode.Health, metrics *bot.Metrics, log *slog.Logger, listen func(string) (net.Listener, error)) error {
	ep, err := httpmode.NewEndpoint(b, b.Inline(), cfg.publicKey, httpmode.EndpointOptions{Logger: log, Metrics: metrics})
	if err != nil {
		return err
	}
	ln, err := listen(cfg.listenAddr)
	if err != nil {
		return fmt.Errorf("interactions listener: %w", err)
	}
	srv := &http.Server{Handler: ep, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	failed := make(chan error, 1)
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			failed <- err
		}
	}()
	if err := b.Register(ctx, cfg.devGuild); err != nil && ctx.Err() == nil { // a signal meanwhile is a shutdown
		_ = srv.Close()
		return err
	}
	log.Info("serve: ready", "mode", cfg.mode, "app", cfg.appID, "guild", cfg.devGuild, "addr", ln.Addr().String())

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-failed:
		log.Error("serve: interactions listener failed", "err", serveErr)
	}
	log.Info("serve: shutting down")
	health.Drain()
	drain, cancel := context.WithTimeout(context.WithoutCancel(ctx), serveDrainTimeout)
	defer cancel()
	if err := srv.Shutdown(drain); err != nil {
		log.Warn("serve: closing the interactions listener", "err", err)
	}
	if err := ep.Shutdown(drain); err != nil {
		log.Warn("serve: cancelled interactions still in progress", "err", err)
	}
	if serveErr != nil {
		return fmt.Errorf("interactions listener: %w", serveErr)
	}
	return nil
}
