package bot_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tttbot/ttt-bot/bot/httpmode"
	"github.com/tttbot/ttt-bot/bot/metrics"
)

// pinger is a Store stand-in for readiness.
type pinger struct{ err error }

func (p pinger) Ping(context.Context) error { return p.err }

func TestOpsHandler(t *testing.T) {
	reg := metrics.NewRegistry()
	metrics.New(reg)
	up, down := httpmode.NewHealth(pinger{}, 0), httpmode.NewHealth(pinger{errors.New("connection refused")}, 0)
	draining := httpmode.NewHealth(pinger{}, 0)
	draining.Drain()
	gatewayDown := httpmode.NewHealth(pinger{}, 0)
	gatewayDown.SetCheck(func() string { return "gateway: shard 1 of 4 not connected" })
	gatewayUp := httpmode.NewHealth(pinger{}, 0)
	gatewayUp.SetCheck(func() string { return "" })
	for _, tt := range []struct {
		name   string
		h      *httpmode.Health
		method string
		path   string
		status int
		body   string // a fragment
	}{
		{"live", up, "GET", "/healthz", 200, "ok"},
		{"live without redis", down, "GET", "/healthz", 200, "ok"},
		{"ready", up, "GET", "/readyz", 200, "ok"},
		{"not ready without redis", down, "GET", "/readyz", 503, "redis unavailable"},
		{"not ready when draining", draining, "GET", "/readyz", 503, "shutting down"},
		{"not ready while a check fails", gatewayDown, "GET", "/readyz", 503, "gateway: shard 1 of 4 not connected"},
		{"ready when the check passes", gatewayUp, "GET", "/readyz", 200, "ok"},
		{"metrics", up, "GET", "/metrics", 200, "# TYPE ttt_ai_workers gauge"},
		{"no POST", up, "POST", "/healthz", 405, ""},
		{"unknown path", up, "GET", "/", 404, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			httpmode.OpsHandler(tt.h, reg).ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))
			if rec.Code != tt.status || !strings.Contains(rec.Body.String(), tt.body) {
				t.Fatalf("%s %s = %d %q, want %d with %q", tt.method, tt.path, rec.Code, rec.Body.String(), tt.status, tt.body)
			}
			if strings.Contains(rec.Body.String(), "connection refused") {
				t.Fatal("an internal error was shown")
			}
		})
	}
	rec := httptest.NewRecorder()
	httpmode.OpsHandler(up, nil).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusNotFound {
		t.Fatalf("/metrics without a registry = %d, want 404", rec.Code)
	}
}
