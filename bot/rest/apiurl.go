package rest

import (
	"net/http"
	"net/url"
	"strings"
	"time"
)

// RedirectClient returns an HTTP client for a discordgo session that sends
// every request meant for Discord's API hosts (discord.com, discordapp.com
// and their subdomains) to base instead: its scheme and host, with base's
// path put before the request's path. It is how the Discord API base URL is
// configured (DISCORD_API_URL), for example to point the bot at a local fake
// Discord or a proxy, without changing discordgo's package-level endpoint
// variables. The gateway address follows, since discordgo asks the API for
// it. Requests for other hosts pass through unchanged.
func RedirectClient(base *url.URL, timeout time.Duration) *http.Client {
	return &http.Client{Transport: &redirectTransport{base: base, next: http.DefaultTransport}, Timeout: timeout}
}

// redirectTransport rewrites requests for Discord's hosts to base.
type redirectTransport struct {
	base *url.URL
	next http.RoundTripper
}

// RoundTrip sends r, redirected to the base when it is meant for Discord.
func (t *redirectTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if !discordHost(r.URL.Hostname()) {
		return t.next.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host = t.base.Scheme, t.base.Host
	r.URL.Path = strings.TrimSuffix(t.base.Path, "/") + r.URL.Path
	if r.URL.RawPath != "" {
		r.URL.RawPath = strings.TrimSuffix(t.base.EscapedPath(), "/") + r.URL.RawPath
	}
	r.Host = t.base.Host
	return t.next.RoundTrip(r)
}

// discordHost reports whether host is one of Discord's API hosts.
func discordHost(host string) bool {
	for _, d := range []string{"discord.com", "discordapp.com"} {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}
