package bot_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/bot/rest"
)

func TestRedirectClient(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Host+" "+r.URL.Path)
		_, _ = io.WriteString(w, "ok")
	}))
	defer srv.Close()
	tests := []struct {
		base, request, want string
	}{
		{srv.URL, "https://discord.com/api/v9/users/@me", "/api/v9/users/@me"},
		{srv.URL + "/proxy/", "https://discord.com/api/v9/gateway", "/proxy/api/v9/gateway"},
		{srv.URL, "https://canary.discord.com/api/v9/gateway/bot", "/api/v9/gateway/bot"},
		{srv.URL, "https://discordapp.com/api/webhooks/1/tok", "/api/webhooks/1/tok"},
	}
	for _, tt := range tests {
		t.Run(tt.request, func(t *testing.T) {
			base, err := url.Parse(tt.base)
			if err != nil {
				t.Fatal(err)
			}
			got = nil
			resp, err := rest.RedirectClient(base, 5*time.Second).Get(tt.request)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if want := base.Host + " " + tt.want; len(got) != 1 || got[0] != want {
				t.Fatalf("server saw %v, want [%s]", got, want)
			}
		})
	}
	// Other hosts are not redirected: this one does not exist, so the
	// request fails rather than reaching the server.
	base, _ := url.Parse(srv.URL)
	got = nil
	if _, err := rest.RedirectClient(base, time.Second).Get("http://not-discord.invalid/x"); err == nil || len(got) != 0 {
		t.Fatalf("a request for another host reached the server (%v, %v)", got, err)
	}
}
