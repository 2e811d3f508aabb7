package metrics_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tttbot/ttt-bot/bot/metrics"
	"github.com/tttbot/ttt-bot/bot/metrics/metricstest"
)

func TestCountDiscordCalls(t *testing.T) {
	status := map[string]int{"/api/v10/channels/7/messages/9": 502, "/api/v10/channels/7/messages": 429}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s, ok := status[r.URL.Path]; ok {
			w.WriteHeader(s)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	reg := metrics.NewRegistry()
	c := metrics.CountDiscordCalls(&http.Client{}, reg)
	for _, tt := range []struct{ method, path string }{
		{"POST", "/api/v10/interactions/1/tok/callback"},
		{"PATCH", "/api/v10/webhooks/2/tok/messages/@original"},
		{"POST", "/api/v10/webhooks/2/tok"},
		{"PATCH", "/api/v10/channels/7/messages/9"},
		{"POST", "/api/v10/channels/7/messages"},
		{"PUT", "/api/v10/applications/2/guilds/42/commands"},
		{"GET", "/api/v10/gateway/bot"},
	} {
		req, _ := http.NewRequest(tt.method, srv.URL+tt.path, nil)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	// A connection that fails is an "error".
	req, _ := http.NewRequest("PATCH", "http://127.0.0.1:1/api/v10/channels/7/messages/9", nil)
	if _, err := c.Do(req); err == nil {
		t.Fatal("a closed port answered")
	}
	var b strings.Builder
	if _, err := reg.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	samples, _ := metricstest.Parse(t, b.String())
	for _, want := range [][3]string{
		{"interaction_callback", "POST", "ok"},
		{"interaction_original", "PATCH", "ok"},
		{"followup", "POST", "ok"},
		{"channel_message", "PATCH", "5xx"},
		{"channel_message", "POST", "429"},
		{"commands", "PUT", "ok"},
		{"other", "GET", "ok"},
		{"channel_message", "PATCH", "error"},
	} {
		if v, ok := metricstest.Find(samples, "ttt_discord_requests_total", "route", want[0], "method", want[1], "outcome", want[2]); !ok || v != 1 {
			t.Errorf("ttt_discord_requests_total%v = %v (present %v), want 1:\n%s", want, v, ok, b.String())
		}
	}
	if strings.Contains(b.String(), "tok") {
		t.Error("a token became a label")
	}
}
