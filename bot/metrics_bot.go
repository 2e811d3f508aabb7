package bot

import (
	"context"
	"strconv"
	"time"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/game"
)

// Outcomes of an interaction, the outcome label of ttt_interactions_total.
const (
	OutcomeOK        = "ok"        // answered
	OutcomeRefused   = "refused"   // answered with a refusal the user can act on
	OutcomeError     = "error"     // failed with an internal error
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
}

// NewMetrics registers the bot's metrics in reg:
//
//	ttt_interactions_total{type,outcome}          interactions handled
//	ttt_interaction_duration_seconds{type}        time to handle one
//	ttt_interactions_in_flight                    interactions being handled
//	ttt_http_interactions_total{status}           interactions endpoint answers
//	ttt_http_first_response_seconds{response}     time to the inline answer
//	ttt_ai_move_seconds{level}                    AI thinking time per move
//	ttt_redis_errors_total{command}               failed Redis commands
//	ttt_active_games                              live games, all processes
func NewMetrics(reg *Registry) *Metrics {
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
	}
}

// Registry returns the Registry the metrics live in.
func (m *Metrics) Registry() *Registry { return m.reg }

// begin counts an interaction in flight and returns the function that
// records its end.
func (m *Metrics) begin(typ string, start time.Time, now func() time.Time) func(outcome string) {
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

// httpAnswer records one answer of the interactions endpoint.
func (m *Metrics) httpAnswer(status int, response string, elapsed time.Duration) {
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

// outcomeOf names how an interaction ended, for ttt_interactions_total.
func outcomeOf(err error, duplicate bool) string {
	switch {
	case err != nil && ErrorKey(err) == KeyInternal:
		return OutcomeError
	case err != nil:
		return OutcomeRefused
	case duplicate:
		return OutcomeDuplicate
	}
	return OutcomeOK
}
