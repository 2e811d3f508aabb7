package httpmode

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"
)

// DefaultReadyTimeout bounds the Redis check of a readiness probe.
const DefaultReadyTimeout = 2 * time.Second

// Pinger is what readiness checks: the Store.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Health answers the liveness and readiness probes of a bot process:
// /healthz says the process serves HTTP at all, /readyz that it should get
// traffic (Redis answers, it is not shutting down, and the condition of
// SetCheck holds: in gateway mode, its shards are connected).
type Health struct {
	store    Pinger
	timeout  time.Duration
	draining atomic.Bool
	check    atomic.Pointer[func() string]
}

// SetCheck adds a readiness condition besides Redis: fn returns "" while
// the process should get traffic, else the reason it should not (the
// gateway is not connected, say). A later call replaces the condition.
func (h *Health) SetCheck(fn func() string) { h.check.Store(&fn) }

// NewHealth returns the probes of a process using store; timeout bounds
// the Redis check (DefaultReadyTimeout if zero).
func NewHealth(store Pinger, timeout time.Duration) *Health {
	if timeout <= 0 {
		timeout = DefaultReadyTimeout
	}
	return &Health{store: store, timeout: timeout}
}

// Drain makes readiness fail from now on, so that a load balancer stops
// sending traffic while the process finishes what it has.
func (h *Health) Drain() { h.draining.Store(true) }

// Live answers the liveness probe: 200 while the process can answer.
func (h *Health) Live(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok\n"))
}

// Ready answers the readiness probe: 200 when Redis answers a PING in
// time and the process is not draining, 503 otherwise. The reason is in
// the body; internal details are not.
func (h *Health) Ready(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if h.draining.Load() {
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
		return
	}
	if fn := h.check.Load(); fn != nil {
		if why := (*fn)(); why != "" {
			http.Error(w, why, http.StatusServiceUnavailable)
			return
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	if err := h.store.Ping(ctx); err != nil {
		http.Error(w, "redis unavailable", http.StatusServiceUnavailable)
		return
	}
	_, _ = w.Write([]byte("ok\n"))
}

// OpsHandler serves the operations endpoints: /healthz and /readyz from h
// and /metrics from metrics (omitted if nil).
func OpsHandler(h *Health, metrics http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", h.Live)
	mux.HandleFunc("GET /readyz", h.Ready)
	if metrics != nil {
		mux.Handle("GET /metrics", metrics)
	}
	return mux
}
