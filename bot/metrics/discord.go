package metrics

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// CountDiscordCalls wraps c's transport so that every HTTP request the bot
// makes to Discord's API is counted in reg's ttt_discord_requests_total by
// route kind, method and outcome: every attempt, the retries that
// discordgo makes on a 429 or a 502 included. The kinds are few and
// fixed (IDs and tokens never become labels): "interaction_callback"
// (the first answer to an interaction), "interaction_original" (its
// @original message), "followup" (other webhook messages), "channel_message"
// (the bot's channel posts and edits), "commands" and "other". The
// outcomes are "ok" (2xx), "429", "5xx", "4xx" and "error" (no answer: a
// reset, a timeout, a refused connection). A nil c gets a new client.
func CountDiscordCalls(c *http.Client, reg *Registry) *http.Client {
	if c == nil {
		c = &http.Client{}
	}
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	out := *c
	out.Transport = &countingTransport{next: next, calls: reg.Counter("ttt_discord_requests_total",
		"HTTP requests to Discord's API by route kind, method and outcome (ok, 429, 5xx, 4xx, error); every attempt is counted.",
		"route", "method", "outcome")}
	return &out
}

// countingTransport counts each request's outcome.
type countingTransport struct {
	next  http.RoundTripper
	calls *Counter
}

// RoundTrip sends r and counts its outcome.
func (t *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(r)
	outcome := "error"
	if err == nil {
		switch s := resp.StatusCode; {
		case s >= 200 && s < 300:
			outcome = "ok"
		case s == http.StatusTooManyRequests:
			outcome = "429"
		case s >= 500:
			outcome = "5xx"
		default:
			outcome = strconv.Itoa(s/100) + "xx"
		}
	}
	t.calls.Inc(routeKind(r.URL.Path), r.Method, outcome)
	return resp, err
}

// routeKind names the kind of an API path (see CountDiscordCalls).
func routeKind(path string) string {
	_, rest, ok := strings.Cut(path, "/api/")
	if ok {
		// "/api/v10/channels/...": drop the version.
		if _, after, ok := strings.Cut(rest, "/"); ok && strings.HasPrefix(rest, "v") {
			rest = after
		}
	} else {
		rest = strings.TrimPrefix(path, "/")
	}
	parts := strings.Split(rest, "/")
	switch {
	case len(parts) >= 4 && parts[0] == "interactions" && parts[3] == "callback":
		return "interaction_callback"
	case len(parts) >= 5 && parts[0] == "webhooks" && parts[3] == "messages" && parts[4] == "@original":
		return "interaction_original"
	case len(parts) >= 3 && parts[0] == "webhooks":
		return "followup"
	case len(parts) >= 3 && parts[0] == "channels" && parts[2] == "messages":
		return "channel_message"
	case len(parts) >= 3 && parts[0] == "applications" && slices.Contains(parts, "commands"):
		return "commands"
	}
	return "other"
}
