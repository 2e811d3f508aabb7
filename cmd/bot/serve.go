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
	"github.com/tttbot/ttt-bot/bot/metrics"
	"github.com/tttbot/ttt-bot/bot/rest"
	"github.com/tttbot/ttt-bot/bot/settings"
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
	problems = append(problems, c.loadAI(get)...)
	if lv := get("LOG_LEVEL"); lv != "" {
		if err := c.logLevel.UnmarshalText([]byte(lv)); err != nil {
			problems = append(problems, fmt.Sprintf("LOG_LEVEL %q is not debug, info, warn or error", lv))
		}
	}
	problems = append(problems, c.loadMode(get)...)
	if len(problems) > 0 {
		slices.Sort(problems)
		return serveConfig{}, badInput("%s", strings.Join(problems, "; "))
	}
	return c, nil
}

// loadAI reads the AI work queue's settings (AI_WORKERS, AI_MAX_QUEUE,
// AI_MAX_WAIT) with get into c and returns what is wrong with them.
func (c *serveConfig) loadAI(get func(string) string) []string {
	var problems []string
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
	return problems
}

// loadMode checks c.mode (gateway by default) and reads, with get, the
// settings of the HTTP mode (DISCORD_PUBLIC_KEY; LISTEN_ADDR by default
// defaultListenAddr) into c; it returns what is wrong with them. It runs
// after loadShard: the HTTP mode is not sharded.
func (c *serveConfig) loadMode(get func(string) string) []string {
	switch c.mode {
	case "":
		c.mode = modeGateway
	case modeGateway:
	case modeHTTP:
		var problems []string
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
		return problems
	default:
		return []string{fmt.Sprintf("MODE %q is not gateway or http", c.mode)}
	}
	return nil
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

// serve runs one `bot serve` process: it opens it (newServer), runs it
// until ctx is cancelled (Run) and closes it in order (Close).
func serve(ctx context.Context, cfg serveConfig, d serveDeps) error {
	s, err := newServer(ctx, cfg, d)
	if err != nil {
		return err
	}
	defer s.Close()
	return s.Run(ctx)
}

// server is one `bot serve` process: the Discord session, Redis and the
// Store, the networks and their watcher, the metrics and the Bot. Run
// serves the operations endpoints, the sweeper, the live-games count and
// the periodic retrain job, and handles interactions (over the gateway or
// HTTP) until ctx is cancelled; Close stops what Run and newServer
// started, the last started first.
type server struct {
	cfg     serveConfig
	d       serveDeps
	log     *slog.Logger
	ses     *discordgo.Session
	reg     *metrics.Registry
	metrics *metrics.Metrics
	store   *persistence.Store
	job     *retrain.Job
	b       *bot.Bot
	health  *httpmode.Health
	// closers stop what was started, run by Close in reverse order.
	closers []func()
}

// newServer opens a process: Discord first (a token it rejects stops
// serve before anything starts, and the application ID and public key
// may come from it), then Redis, the secrets, the Store, the networks and
// the Bot. What it opened is closed again if a later step fails.
func newServer(ctx context.Context, cfg serveConfig, d serveDeps) (_ *server, err error) {
	if d.listen == nil {
		d.listen = func(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }
	}
	if d.backoff == (backoff{}) {
		d.backoff = serveBackoff
	}
	s := &server{cfg: cfg, d: d, log: slog.New(slog.NewTextHandler(d.logOut, &slog.HandlerOptions{Level: cfg.logLevel}))}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if err := s.openDiscord(ctx); err != nil {
		return nil, err
	}
	if err := s.openStore(ctx); err != nil {
		return nil, err
	}
	if err := s.openBot(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// openDiscord makes the session (its calls counted by route kind and
// outcome) and learns the application behind the token.
func (s *server) openDiscord(ctx context.Context) error {
	ses, err := s.d.newSession(s.cfg.token)
	if err != nil {
		return fmt.Errorf("discord session: %w", err)
	}
	if s.cfg.apiURL != nil {
		ses.Client = rest.RedirectClient(s.cfg.apiURL, 20*time.Second)
		s.log.Info("serve: Discord API redirected", "url", s.cfg.apiURL.String())
	}
	s.reg = metrics.NewRegistry()
	ses.Client = metrics.CountDiscordCalls(ses.Client, s.reg)
	if err := resolveApplication(ctx, &s.cfg, ses, s.log, s.d.backoff); err != nil {
		return err
	}
	s.log.Info("serve: invite the bot to a server with this link", "url", inviteURL(s.cfg.appID))
	s.ses, s.metrics = ses, metrics.New(s.reg)
	return nil
}

// openStore opens Redis, resolves the secrets kept there, builds the
// Store and moves the blocks stored by raw ID to pseudonyms.
func (s *server) openStore(ctx context.Context) error {
	rdb, closeRedis, err := persistence.Open(ctx, persistence.OpenOptions{URL: s.cfg.redisURL, Logger: s.log})
	if err != nil {
		return err
	}
	s.closers = append(s.closers, func() {
		if err := closeRedis(); err != nil {
			s.log.Error("serve: closing redis", "err", err)
		}
	})
	rdb.AddHook(redisErrors{s.metrics})
	// The secrets not set in the environment are shared through Redis;
	// the Store is built once the pseudonym key is known.
	where, volatile := redisStorage(s.cfg.redisURL)
	if err := resolveSecrets(ctx, persistence.New(rdb, persistence.Options{SessionCache: -1}), &s.cfg, s.log, where, volatile); err != nil {
		return err
	}
	s.store = persistence.New(rdb, persistence.Options{PseudonymKey: s.cfg.pseudonymKey})
	// Blocks are named by pseudonym; those stored by ID before (or by a
	// replica of that version still running) move now, before serving.
	moved, err := s.store.MigrateBlocks(ctx)
	if err != nil {
		return fmt.Errorf("migrating blocks: %w", err)
	}
	if moved > 0 {
		s.log.Info("serve: blocks moved to pseudonymous names", "blocks", moved)
	}
	return nil
}

// openBot loads the networks (each board's registry version, else the
// shipped weights) and keeps them in step with the registry, and builds
// the AI queue, the retrain job and the Bot.
func (s *server) openBot(ctx context.Context) error {
	models := nn.NewSet()
	s.d.levels.Register(ai.NeuralLevel(models))
	s.d.levels.Register(ai.HumanlikeLevel(models))
	watcher := retrain.NewModelWatcher(s.store, models, weights.Load, settings.PresetKeys(), s.log)
	if err := watcher.Load(ctx); err != nil {
		s.log.Warn("serve: not every network loaded; the boards without one refuse the neural levels", "err", err)
	}
	s.background(ctx, watcher.Run)
	s.metrics.InstrumentLevels(s.d.levels, time.Now)
	pool := sched.New(sched.Options{Workers: s.cfg.aiWorkers, MaxWait: s.cfg.aiMaxWait, MaxQueue: s.cfg.aiMaxQueue})
	rcfg := retrainConfig(s.cfg.retrain)
	rcfg.Pool = pool
	s.job = retrain.New(s.store, rcfg)
	cat, err := i18n.NewCatalog()
	if err != nil {
		return err
	}
	signer, err := customid.NewSigner(s.cfg.customIDKey)
	if err != nil {
		return err
	}
	var dc rest.Discord = s.ses
	if s.cfg.mode == modeHTTP {
		dc = httpmode.NewInlineDiscord(s.ses)
	}
	s.b, err = bot.New(bot.Deps{Discord: dc, Store: s.store, Levels: s.d.levels, Catalog: cat,
		Signer: signer, Logger: s.log, AppID: s.cfg.appID, Models: models, Retrain: s.job}, bot.Options{Metrics: s.metrics, Pool: pool})
	if err != nil {
		return err
	}
	s.health = httpmode.NewHealth(s.store, 0)
	return nil
}

// background runs run in a goroutine until ctx is cancelled or Close
// stops it, and Close waits for it to return.
func (s *server) background(ctx context.Context, run func(ctx context.Context)) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		run(ctx)
	}()
	s.closers = append(s.closers, func() {
		cancel()
		<-done
	})
}

// Run serves until ctx is cancelled: the operations endpoints, the
// sweeper (deadlines, AI duels, owed boards; it stops with ctx, ending
// running duels while the session is still open), the live-games count,
// the periodic retrain job, and the interactions.
func (s *server) Run(ctx context.Context) error {
	if s.cfg.opsAddr != "" {
		ln, err := s.d.listen(s.cfg.opsAddr)
		if err != nil {
			return fmt.Errorf("ops listener: %w", err)
		}
		ops := &http.Server{Handler: httpmode.OpsHandler(s.health, s.reg), ReadHeaderTimeout: 5 * time.Second}
		go func() {
			if err := ops.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				s.log.Error("serve: ops listener", "err", err)
			}
		}()
		s.closers = append(s.closers, func() { _ = ops.Close() })
		s.log.Info("serve: ops endpoints", "addr", ln.Addr().String())
	}
	s.background(ctx, func(ctx context.Context) { s.b.RunSweeper(ctx, serveSweepEvery) })
	// ttt_active_games is counted here, not at scrape time: a scrape
	// never waits on Redis, and many scrapers cost one count per period.
	s.background(ctx, func(ctx context.Context) {
		s.metrics.RefreshActiveGames(ctx, serveCountEvery, s.store.LiveGames,
			func(err error) { s.log.Warn("serve: counting live games", "err", err) })
	})
	// The periodic retrain job (RETRAIN_INTERVAL, 0 = off). A run in
	// progress at shutdown is cancelled: it publishes nothing, and its
	// lock is released (or frees itself after its lease).
	if r := s.cfg.retrain; r.interval > 0 {
		s.background(ctx, func(ctx context.Context) { s.job.Periodic(ctx, s.log) })
		s.log.Info("serve: periodic retrain job", "interval", r.interval, "min_new_games", r.minGames,
			"time_limit", r.timeLimit, "cpu_share", r.cpuShare)
	}
	if s.cfg.mode == modeHTTP {
		return serveHTTP(ctx, s.cfg, s.b, s.health, s.metrics, s.log, s.d.listen)
	}
	return serveGateway(ctx, s.cfg, s.b, s.ses, s.health, s.reg, s.store, s.log, s.d.backoff)
}

// Close stops what newServer and Run started, the last started first:
// the retrain job, the live-games count, the sweeper, the ops endpoints,
// the model watcher, then Redis.
func (s *server) Close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
}

// serveSweepEvery is how often the sweeper looks for passed deadlines and
// plays the next move of each AI duel.
const serveSweepEvery = time.Second

// serveCountEvery is how often ttt_active_games is refreshed.
const serveCountEvery = 5 * time.Second

// serveHTTP serves the interactions endpoint until ctx is cancelled.
func serveHTTP(ctx context.Context, cfg serveConfig, b *bot.Bot, health *httpmode.Health, metrics *metrics.Metrics, log *slog.Logger, listen func(string) (net.Listener, error)) error {
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
