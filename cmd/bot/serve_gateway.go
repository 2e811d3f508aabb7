package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot"
	"github.com/tttbot/ttt-bot/bot/gateway"
	"github.com/tttbot/ttt-bot/bot/httpmode"
	"github.com/tttbot/ttt-bot/bot/metrics"
	"github.com/tttbot/ttt-bot/bot/shards"
	"github.com/tttbot/ttt-bot/persistence"
)

// resumeGrace is how long a shard that was ready may be resuming or
// reconnecting before /readyz says the process is not ready: a resume
// takes a moment, and an orchestrator should not route away for it.
const resumeGrace = 15 * time.Second

// gatewayStatus tracks the shards this process runs, for /readyz, and a
// fatal close that is about to end the process.
type gatewayStatus struct {
	mu     sync.Mutex
	shards map[int]*shardStatus
	count  int
	fatal  string
	now    func() time.Time
}

// shardStatus is one running shard: its connection and whether it has
// been ready since it started.
type shardStatus struct {
	shard *gateway.Shard
	ready bool
}

// reason is "" while every shard of the process is connected (or resuming
// within resumeGrace of having been ready), else why not.
func (g *gatewayStatus) reason() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.fatal != "" {
		return g.fatal
	}
	ids := make([]int, 0, len(g.shards))
	for id := range g.shards {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		st := g.shards[id]
		state, since := st.shard.State()
		switch {
		case state == gateway.Ready:
			st.ready = true
		case st.ready && state != gateway.Stopped && g.now().Sub(since) < resumeGrace:
		default:
			return fmt.Sprintf("gateway: shard %d of %d is %s", id, g.count, state)
		}
	}
	return ""
}

// serveGateway handles interactions from Discord's gateway until ctx is
// cancelled or Discord refuses the connection for good. It runs its own
// gateway client (package bot/gateway) for each shard the process holds:
// the shard given by SHARD_ID and SHARD_COUNT, or, without them, the
// shards it claims in Redis among Discord's recommended count (see
// runShards). discordgo is used for REST and for the events' types only.
func serveGateway(ctx context.Context, cfg serveConfig, b *bot.Bot, ses *discordgo.Session, health *httpmode.Health, reg *metrics.Registry, store *persistence.Store, log *slog.Logger, bo backoff) error {
	info, err := gatewayBot(ctx, ses, log, bo)
	if err != nil {
		return err
	}
	events := reg.Counter("ttt_gateway_events_total",
		"Gateway connection events by kind: connect, identify, resume, reconnect, invalid_session, zombie, close:<code>.", "kind")
	handlers := newGatewayHandlers(ctx, b, log)
	defer handlers.cancel()

	count, fixed := cfg.shardCount, cfg.shardsFixed
	if !fixed {
		count = max(info.Shards, 1)
	}
	status := &gatewayStatus{shards: map[int]*shardStatus{}, count: count, now: time.Now}
	health.SetCheck(status.reason)
	host, _ := os.Hostname()
	sr := &shardRunner{
		cfg: cfg, url: info.URL, count: count, fixed: fixed,
		maxConcurrency: max(info.SessionStartLimit.MaxConcurrency, 1),
		owner:          fmt.Sprintf("%s/%d", host, os.Getpid()),
		store:          store, handlers: handlers, events: events, status: status, log: log,
	}

	// The commands belong to the application, not to a shard: a process
	// of a fixed fleet registers them only if it runs shard 0 (N shards
	// starting together would only spend the rate limit on N identical
	// overwrites); a process that claims its shards registers them once
	// at start (an overwrite, the same every time).
	if !fixed || cfg.shardID == 0 {
		if err := b.Register(ctx, cfg.devGuild); err != nil && ctx.Err() == nil { // a signal meanwhile is a shutdown
			return err
		}
	}
	log.Info("serve: ready", "mode", cfg.mode, "app", cfg.appID, "guild", cfg.devGuild,
		"shards", count, "fixed_shard", fixed, "max_concurrency", sr.maxConcurrency)
	var runErr error
	if fixed {
		runErr = sr.run(ctx, cfg.shardID)
	} else {
		runErr = runShards(ctx, store, count, sr.maxConcurrency, sr.owner, sr.run, log)
	}
	fe := status.holdFatal(ctx, runErr, log)

	log.Info("serve: shutting down")
	health.Drain()
	handlers.drain(serveDrainTimeout)
	switch {
	case fe != nil && fe.Code == 4004:
		return &tokenRejectedError{how: "gateway close 4004"}
	case fe != nil:
		return &permanentError{err: fmt.Errorf("discord gateway: closed with %d %s", fe.Code, fe.Reason)}
	case runErr != nil && ctx.Err() == nil:
		return runErr
	}
	return nil
}

// shardRunner runs the gateway shards of this process.
type shardRunner struct {
	cfg            serveConfig
	url            string // the gateway's
	count          int    // the shards of the application
	fixed          bool   // the shard is given (SHARD_ID), not claimed in Redis
	maxConcurrency int    // identifies at once
	owner          string // this process, for the identify limiter and the leases
	store          *persistence.Store
	handlers       *gatewayHandlers
	events         *metrics.Counter
	status         *gatewayStatus
	log            *slog.Logger
}

// run runs shard id until ctx ends (nil) or Discord refuses it for good
// (an error wrapping gateway.ErrFatal), listed in the status meanwhile.
func (sr *shardRunner) run(ctx context.Context, id int) error {
	// The shard manager waits for the identify slot before it starts a
	// shard; the shard waits for its later identifies itself.
	waited := !sr.fixed
	sh, err := gateway.New(gateway.Config{
		Token: sr.cfg.token, URL: sr.url, Intents: int(discordgo.IntentsGuilds), // interactions need no privileged intent
		ShardID: id, ShardCount: sr.count, Logger: sr.log.With("shard", id),
		Dispatch: sr.handlers.dispatch(id),
		IdentifyWait: func(ctx context.Context) error {
			if waited {
				waited = false
				return nil
			}
			return sr.store.WaitIdentify(ctx, id%sr.maxConcurrency, sr.owner, 0)
		},
		Observe: func(kind string) { sr.events.Inc(kind) },
		Rand:    rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(id))), // heartbeat jitter, op 9 waits
	})
	if err != nil {
		return err
	}
	status := sr.status
	status.mu.Lock()
	status.shards[id] = &shardStatus{shard: sh}
	status.mu.Unlock()
	defer func() {
		status.mu.Lock()
		delete(status.shards, id)
		status.mu.Unlock()
	}()
	sr.log.Info("serve: gateway shard starting", "shard", id, "shards", sr.count)
	return sh.Run(ctx)
}

// holdFatal returns the fatal close that runErr wraps, or nil. For one,
// it first makes the process not ready, saying why, and waits fatalHold
// (or until ctx ends), so that a probe sees why before the process exits.
func (g *gatewayStatus) holdFatal(ctx context.Context, runErr error, log *slog.Logger) *gateway.FatalError {
	var fe *gateway.FatalError
	if !errors.As(runErr, &fe) {
		return nil
	}
	g.mu.Lock()
	g.fatal = fmt.Sprintf("gateway: Discord closed the connection with %d (%s)", fe.Code, fe.Meaning)
	g.mu.Unlock()
	log.Error("serve: Discord refused the gateway connection for good; stopping", "code", fe.Code, "meaning", fe.Meaning, "reason", fe.Reason)
	select {
	case <-ctx.Done():
	case <-time.After(fatalHold):
	}
	return fe
}

// gatewayHandlers hand the gateway's events to the bot, each in a
// goroutine of its own (a slow handler never holds up a shard's
// heartbeats), counted so that a shutdown waits for them (drain). They run
// in a context of their own, which outlives the signal by up to the drain
// timeout so that interactions in progress can answer.
type gatewayHandlers struct {
	b      *bot.Bot
	log    *slog.Logger
	work   context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	closing  bool
	inflight sync.WaitGroup
}

// newGatewayHandlers returns the handlers of b, whose work outlives ctx
// until cancel.
func newGatewayHandlers(ctx context.Context, b *bot.Bot, log *slog.Logger) *gatewayHandlers {
	work, cancel := context.WithCancel(context.WithoutCancel(ctx))
	return &gatewayHandlers{b: b, log: log, work: work, cancel: cancel}
}

// enter counts an event handler in, unless the process is closing.
func (h *gatewayHandlers) enter() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closing {
		return false
	}
	h.inflight.Add(1)
	return true
}

// dispatch returns shard's dispatch function: interactions go to the bot;
// a GUILD_DELETE that is a departure (not an outage) forgets the server.
func (h *gatewayHandlers) dispatch(shard int) func(string, json.RawMessage) {
	return func(t string, raw json.RawMessage) {
		switch t {
		case "INTERACTION_CREATE":
			var i discordgo.InteractionCreate
			if err := json.Unmarshal(raw, &i); err != nil || i.Interaction == nil {
				h.log.Warn("serve: an interaction that does not decode", "shard", shard, "err", err)
				return
			}
			if !h.enter() {
				return
			}
			go func() {
				defer h.inflight.Done()
				h.b.HandleInteraction(h.work, &i)
			}()
		case "GUILD_DELETE":
			// When the bot leaves a server (is removed or the server is
			// deleted), forget the server's data. Discord sends the same
			// event, marked unavailable, during outages: those are not
			// departures.
			var g discordgo.GuildDelete
			if err := json.Unmarshal(raw, &g); err != nil || g.Guild == nil || g.Unavailable || !h.enter() {
				return
			}
			go func() {
				defer h.inflight.Done()
				if err := h.b.ForgetGuild(h.work, g.ID); err != nil {
					h.log.Error("serve: forgetting a server the bot left", "guild", g.ID, "err", err)
					return
				}
				h.log.Info("serve: forgot a server the bot left", "guild", g.ID)
			}()
		}
	}
}

// drain takes no new events and waits for the handlers in progress, for
// at most timeout; then it cancels them and waits for them to return.
func (h *gatewayHandlers) drain(timeout time.Duration) {
	h.mu.Lock()
	h.closing = true
	h.mu.Unlock()
	drained := make(chan struct{})
	go func() {
		h.inflight.Wait()
		close(drained)
	}()
	select {
	case <-drained:
	case <-time.After(timeout):
		h.log.Warn("serve: cancelling interactions still in progress")
		h.cancel()
		<-drained
	}
}

// fatalHold is how long serve stays up, unready with the reason, after
// Discord refused the gateway connection for good, before it exits.
const fatalHold = 2 * time.Second

// runShards runs the shards this process claims among count, with leases
// in Redis (package bot/shards): each process takes a fair share of the
// shards, a process that joins gets its share from the others, and the
// shards of a process that dies are taken over once their leases run out.
// A shard that Discord refuses for good (gateway.ErrFatal) ends it.
func runShards(ctx context.Context, store *persistence.Store, count, maxConcurrency int, owner string, start func(context.Context, int) error, log *slog.Logger) error {
	m, err := shards.New(shards.Config{
		Count: count, Owner: owner, Store: store, Start: start, MaxConcurrency: maxConcurrency,
		Fatal:  func(err error) bool { return errors.Is(err, gateway.ErrFatal) },
		Logger: log,
	})
	if err != nil {
		return err
	}
	return m.Run(ctx)
}

// gatewayBot asks Discord for the gateway's URL, the recommended number of
// shards and the identify concurrency (GET /gateway/bot), waiting (with
// bo) while Discord cannot be reached. A 401 is a rejected token.
func gatewayBot(ctx context.Context, ses *discordgo.Session, log *slog.Logger, bo backoff) (*discordgo.GatewayBotResponse, error) {
	var info *discordgo.GatewayBotResponse
	err := retry(ctx, log, "gateway", bo, func() error {
		g, err := ses.GatewayBot(discordgo.WithContext(ctx))
		var re *discordgo.RESTError
		switch {
		case err == nil:
			if g.URL == "" {
				return errors.New("discord: GET /gateway/bot gave no URL")
			}
			info = g
			return nil
		case errors.As(err, &re) && re.Response != nil && re.Response.StatusCode == http.StatusUnauthorized:
			return &tokenRejectedError{how: "401"}
		}
		return fmt.Errorf("discord: GET /gateway/bot: %w", err)
	})
	return info, err
}
