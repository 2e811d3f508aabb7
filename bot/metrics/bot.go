package metrics

import (
	"context"
	rtmetrics "runtime/metrics"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/sched"
)

// Outcomes of an interaction, the outcome label of ttt_interactions_total.
const (
	OutcomeOK        = "ok"        // answered
	OutcomeRefused   = "refused"   // answered with a refusal the user can act on
	OutcomeError     = "error"     // failed with an internal error, or the game store was out of reach
	OutcomePanic     = "panic"     // the handler panicked
	OutcomeDuplicate = "duplicate" // a redelivery, ignored
)

// latencyBuckets returns the upper bounds, in seconds, of the latency
// histograms: Discord's 3 s window sits in the middle.
func latencyBuckets() []float64 {
	return []float64{.005, .01, .025, .05, .1, .25, .5, 1, 1.5, 2, 3, 5, 10, 30}
}

// Metrics are the bot's metrics, registered in one Registry. A nil
// *Metrics records nothing, so a Bot without metrics pays nothing.
type Metrics struct {
	reg          *Registry
	interactions *Counter
	latency      *Histogram
	inFlight     *Gauge
	httpRequests *Counter
	inline       *Histogram
	aiMove       *Histogram
	redisErrors  *Counter
	activeGames  *Gauge
	queueWait    *Histogram
	shrunk       *Counter
	shedTotal    *Counter
	giveUps      *Counter
	retries      *Counter
	deliveries   *Counter
	backlog      *Gauge
	// pool is the AI queue the gauges read (watchPool); nil until a Bot
	// is built.
	pool atomic.Pointer[sched.Pool]
}

// New registers the bot's metrics in reg:
//
//	ttt_interactions_total{type,outcome}          interactions handled
//	ttt_interaction_duration_seconds{type}        time to handle one
//	ttt_interactions_in_flight                    interactions being handled
//	ttt_http_interactions_total{status}           interactions endpoint answers
//	ttt_http_first_response_seconds{response}     time to the inline answer
//	ttt_ai_move_seconds{level}                    AI thinking time per move
//	ttt_redis_errors_total{command}               failed Redis commands
//	ttt_active_games                              live games, all processes
//	ttt_ai_queue_wait_seconds{class}              time AI work waited for a worker
//	ttt_ai_budget_shrunk_total{level}             AI moves made on a shrunk budget
//	ttt_ai_shed_total{kind}                       heavy work refused as busy
//	ttt_discord_write_giveups_total{route}        writes to Discord given up after retries
//	ttt_discord_write_retries_total{route}        writes to Discord made again after a 5xx or reset
//	ttt_board_deliveries_total{outcome}           owed boards shown late, given up, clocks restarted
//	ttt_boards_undelivered                        games whose board may not be on screen, all processes
//	ttt_ai_workers, ttt_ai_workers_busy           the AI queue's workers
//	ttt_ai_queue_length, ttt_ai_queue_reserved    AI work waiting, games admitted
//	go_*, process_* (the standard collectors),
//	go_gc_heap_live_bytes                         the process
func New(reg *Registry) *Metrics {
	m := newMetrics(reg)
	stat := func(f func(sched.Stats) float64) func() float64 {
		return func() float64 {
			p := m.pool.Load()
			if p == nil {
				return 0
			}
			return f(p.Stats())
		}
	}
	reg.GaugeFunc("ttt_ai_workers", "Workers of the AI queue.", stat(func(s sched.Stats) float64 { return float64(s.Workers) }))
	reg.GaugeFunc("ttt_ai_workers_busy", "Workers of the AI queue running a job now.", stat(func(s sched.Stats) float64 { return float64(s.Running) }))
	reg.GaugeFunc("ttt_ai_queue_length", "AI work waiting for a worker, all classes.", stat(func(s sched.Stats) float64 { return float64(s.Waiting()) }))
	reg.GaugeFunc("ttt_ai_queue_reserved", "New heavy games admitted whose first AI move is not queued yet.", stat(func(s sched.Stats) float64 { return float64(s.Reserved) }))
	// go_goroutines and go_memstats_heap_inuse_bytes come from the Go
	// collector of the registry.
	reg.GaugeFunc("go_gc_heap_live_bytes", "Heap bytes marked live by the last garbage collection.", heapLive)
	return m
}

// heapLive reads the heap the last collection found live: unlike
// heapInUse it does not count garbage not yet collected.
func heapLive() float64 {
	s := []rtmetrics.Sample{{Name: "/gc/heap/live:bytes"}}
	rtmetrics.Read(s)
	if s[0].Value.Kind() != rtmetrics.KindUint64 {
		return 0
	}
	return float64(s[0].Value.Uint64())
}

// newMetrics registers the metrics that are not functions.
func newMetrics(reg *Registry) *Metrics {
	return &Metrics{
		reg: reg,
		interactions: reg.Counter("ttt_interactions_total",
			"Interactions handled, by interaction type and outcome.", "type", "outcome"),
		latency: reg.Histogram("ttt_interaction_duration_seconds",
			"Time to handle one interaction, follow-ups included.", latencyBuckets(), "type"),
		inFlight: reg.Gauge("ttt_interactions_in_flight", "Interactions being handled now."),
		httpRequests: reg.Counter("ttt_http_interactions_total",
			"Requests to the HTTP interactions endpoint, by HTTP status.", "status"),
		inline: reg.Histogram("ttt_http_first_response_seconds",
			"Time from a request to the interactions endpoint to its answer, by kind of answer (inline, deferred, none, pong).",
			latencyBuckets(), "response"),
		aiMove: reg.Histogram("ttt_ai_move_seconds", "Time an AI level took to choose a move.",
			[]float64{.0005, .001, .005, .01, .05, .1, .25, .5, 1, 1.5, 3, 5, 10}, "level"),
		redisErrors: reg.Counter("ttt_redis_errors_total",
			"Redis commands that failed (not counting a missing key), by command.", "command"),
		activeGames: reg.Gauge("ttt_active_games",
			"Live games (open challenges and games in progress) in the shared Redis, as last counted."),
		queueWait: reg.Histogram("ttt_ai_queue_wait_seconds", "Time AI work waited for a worker of the AI queue, by class.",
			latencyBuckets(), "class"),
		shrunk: reg.Counter("ttt_ai_budget_shrunk_total",
			"AI moves made on a budget shrunk because the AI queue was long, by level.", "level"),
		giveUps: reg.Counter("ttt_discord_write_giveups_total",
			"Writes to Discord (board edits, posts) given up on after retrying a 5xx or a lost connection, by route (channel_message_edit, channel_message_post, interaction_original).", "route"),
		retries: reg.Counter("ttt_discord_write_retries_total",
			"Attempts of writes to Discord made again after a 5xx or a lost connection, by route.", "route"),
		deliveries: reg.Counter("ttt_board_deliveries_total",
			"Boards owed to the screen (a write given up on, a process stopped) by what became of them: shown by a sweeper (shown), given up because the game or channel is gone or Discord refused (given_up), shown late so the turn's clock started again (clock_restarted).", "outcome"),
		backlog: reg.Gauge("ttt_boards_undelivered",
			"Games whose board may not be on screen yet (owed to the screen), in the shared Redis, as last counted."),
		shedTotal: reg.Counter("ttt_ai_shed_total",
			"Heavy work refused with a busy answer because the AI queue was long, by kind (game, review, hint, puzzle, duel).", "kind"),
	}
}

// WatchPool makes the AI queue gauges read p.
func (m *Metrics) WatchPool(p *sched.Pool) {
	if m == nil {
		return
	}
	m.pool.Store(p)
}

// Queued records how long AI work of class waited for a worker.
func (m *Metrics) Queued(class sched.Class, waited time.Duration) {
	if m == nil {
		return
	}
	m.queueWait.Observe(waited.Seconds(), class.String())
}

// Shrink counts an AI move of level made on a shrunk budget.
func (m *Metrics) Shrink(level string) {
	if m == nil {
		return
	}
	m.shrunk.Inc(level)
}

// Shed counts heavy work of kind refused as busy.
func (m *Metrics) Shed(kind string) {
	if m == nil {
		return
	}
	m.shedTotal.Inc(kind)
}

// DiscordGiveUp counts a write to Discord on route given up on.
func (m *Metrics) DiscordGiveUp(route string) {
	if m == nil {
		return
	}
	m.giveUps.Inc(route)
}

// DiscordRetried counts again attempts of a write to Discord on route.
func (m *Metrics) DiscordRetried(route string, again int) {
	if m == nil {
		return
	}
	m.retries.Add(float64(again), route)
}

// DeliveryDone counts an owed board shown by a sweeper.
func (m *Metrics) DeliveryDone() {
	if m == nil {
		return
	}
	m.deliveries.Inc("shown")
}

// DeliveryGivenUp counts an owed board given up.
func (m *Metrics) DeliveryGivenUp() {
	if m == nil {
		return
	}
	m.deliveries.Inc("given_up")
}

// DeliveryLate counts a board shown late whose turn started again.
func (m *Metrics) DeliveryLate() {
	if m == nil {
		return
	}
	m.deliveries.Inc("clock_restarted")
}

// Undelivered records the backlog of owed boards.
func (m *Metrics) Undelivered(n int64) {
	if m == nil {
		return
	}
	m.backlog.Set(float64(n))
}

// Registry returns the Registry the metrics live in.
func (m *Metrics) Registry() *Registry { return m.reg }

// Begin counts an interaction in flight and returns the function that
// records its end.
func (m *Metrics) Begin(typ string, start time.Time, now func() time.Time) func(outcome string) {
	if m == nil {
		return func(string) {}
	}
	m.inFlight.Add(1)
	return func(outcome string) {
		m.inFlight.Add(-1)
		m.interactions.Inc(typ, outcome)
		m.latency.Observe(now().Sub(start).Seconds(), typ)
	}
}

// HTTPAnswer records one answer of the interactions endpoint
// (httpmode.AnswerCounter).
func (m *Metrics) HTTPAnswer(status int, response string, elapsed time.Duration) {
	if m == nil {
		return
	}
	m.httpRequests.Inc(strconv.Itoa(status))
	if response != "" {
		m.inline.Observe(elapsed.Seconds(), response)
	}
}

// RedisError counts a failed Redis command; the Redis hook of the wiring
// calls it.
func (m *Metrics) RedisError(command string) {
	if m == nil {
		return
	}
	m.redisErrors.Inc(command)
}

// SetActiveGames sets ttt_active_games.
func (m *Metrics) SetActiveGames(n int64) {
	if m == nil {
		return
	}
	m.activeGames.Set(float64(n))
}

// activeGamesTimeout bounds one count of the live games.
const activeGamesTimeout = 2 * time.Second

// RefreshActiveGames sets ttt_active_games from count now and then every
// interval until ctx is done. The value is cached rather than counted at
// scrape time, so a scrape never waits on Redis and any number of scrapers
// cost one count per interval. A failed count keeps the last value (the
// failure shows in ttt_redis_errors_total) and is passed to onErr if set.
func (m *Metrics) RefreshActiveGames(ctx context.Context, every time.Duration, count func(context.Context) (int64, error), onErr func(error)) {
	if m == nil {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		// A tick and the end of ctx can be ready together and select picks
		// either: check first, so no count starts after ctx is done.
		if ctx.Err() != nil {
			return
		}
		cctx, cancel := context.WithTimeout(ctx, activeGamesTimeout)
		n, err := count(cctx)
		cancel()
		switch {
		case err == nil:
			m.SetActiveGames(n)
		case onErr != nil && ctx.Err() == nil:
			onErr(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// InstrumentLevels replaces every level of r with one whose players
// report their thinking time in ttt_ai_move_seconds. now is the clock.
func (m *Metrics) InstrumentLevels(r *ai.Registry, now func() time.Time) {
	if m == nil {
		return
	}
	for _, l := range r.Levels() {
		inner, name := l.New, l.Name
		l.New = func(o ai.Options) (ai.Player, error) {
			p, err := inner(o)
			if err != nil {
				return nil, err
			}
			return timedPlayer{p: p, level: name, hist: m.aiMove, now: now}, nil
		}
		r.Register(l)
	}
}

// timedPlayer times the moves of an AI player.
type timedPlayer struct {
	p     ai.Player
	level string
	hist  *Histogram
	now   func() time.Time
}

// Move asks the wrapped player and records how long it took.
func (t timedPlayer) Move(ctx context.Context, p game.Position) (game.Cell, error) {
	start := t.now()
	c, err := t.p.Move(ctx, p)
	t.hist.Observe(t.now().Sub(start).Seconds(), t.level)
	return c, err
}
