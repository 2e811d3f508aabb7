package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/fakediscord"
	"github.com/tttbot/ttt-bot/bot/rest"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

// logBuffer collects a logger's output; safe for concurrent writers.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// logger returns a debug logger writing to l.
func (l *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// tokenFor returns a bot token in Discord's layout whose first segment is
// userID in base64.
func tokenFor(userID string) string {
	return base64.RawStdEncoding.EncodeToString([]byte(userID)) + ".GhIjKl.bm90LWEtcmVhbC1zaWduYXR1cmU"
}

func TestAppIDFromToken(t *testing.T) {
	for _, tt := range []struct {
		name, token, want string
	}{
		{"unpadded", tokenFor("111111111111111111"), "111111111111111111"},
		{"padded", base64.StdEncoding.EncodeToString([]byte("12345678901234567")) + ".x.y", "12345678901234567"},
		{"url alphabet", base64.RawURLEncoding.EncodeToString([]byte("98765432109876543")) + ".x.y", "98765432109876543"},
		{"no segments", base64.RawStdEncoding.EncodeToString([]byte("111111111111111111")), ""},
		{"not an ID", base64.RawStdEncoding.EncodeToString([]byte("hello")) + ".x.y", ""},
		{"not base64", "!!!.x.y", ""},
		{"the fake's token", fakediscord.DefaultToken, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := appIDFromToken(tt.token)
			if got != tt.want || ok != (tt.want != "") {
				t.Fatalf("appIDFromToken(%q) = %q, %v; want %q", tt.token, got, ok, tt.want)
			}
		})
	}
}

func TestInviteURL(t *testing.T) {
	const want = "https://discord.com/oauth2/authorize?client_id=222222222222222222&scope=bot+applications.commands&permissions=2147601408"
	if got := inviteURL("222222222222222222"); got != want {
		t.Fatalf("inviteURL = %s\nwant        %s", got, want)
	}
	// 2147601408 is exactly these six bits: view channel, send messages,
	// embed links, attach files, read message history, use application
	// commands; nothing that manages or mentions.
	var sum int64
	for _, bit := range []int64{10, 11, 14, 15, 16, 31} {
		sum |= 1 << bit
	}
	if invitePermissions != sum {
		t.Errorf("invitePermissions = %d, want %d", invitePermissions, sum)
	}
	const never = discordgo.PermissionAdministrator | discordgo.PermissionManageMessages | discordgo.PermissionManageChannels |
		discordgo.PermissionMentionEveryone | discordgo.PermissionManageRoles
	if invitePermissions&never != 0 {
		t.Errorf("invitePermissions %d asks for more than the bot uses", invitePermissions)
	}
}

func TestRetry(t *testing.T) {
	quick := backoff{first: time.Millisecond, max: 4 * time.Millisecond}
	down := errors.New("connection refused")
	t.Run("waits out failures, doubling up to the cap", func(t *testing.T) {
		var logs logBuffer
		calls := 0
		err := retry(context.Background(), logs.logger(), "probe", quick, func() error {
			if calls++; calls <= 4 {
				return down
			}
			return nil
		})
		if err != nil || calls != 5 {
			t.Fatalf("retry = %v after %d calls, want success after 5", err, calls)
		}
		got := logs.String()
		for i, wait := range []string{"1ms", "2ms", "4ms", "4ms"} {
			want := fmt.Sprintf("step=probe attempt=%d retry_in=%s", i+1, wait)
			if !strings.Contains(got, want) {
				t.Errorf("logs lack %q:\n%s", want, got)
			}
		}
		if !strings.Contains(got, "serve: Discord answered\" step=probe attempts=5") {
			t.Errorf("logs lack the recovery:\n%s", got)
		}
	})
	for _, tt := range []struct {
		name string
		err  error
	}{
		{"a rejected token stops at once", &tokenRejectedError{how: "401"}},
		{"a permanent error stops at once", &permanentError{err: errors.New("invalid shard")}},
		{"an impossible call stops at once", &noApplicationError{err: errors.New("HTTP 404")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var logs logBuffer
			calls := 0
			err := retry(context.Background(), logs.logger(), "probe", quick, func() error { calls++; return tt.err })
			if err != tt.err || calls != 1 || logs.String() != "" {
				t.Fatalf("retry = %v after %d calls, logs %q; want %v after one call, nothing logged", err, calls, logs.String(), tt.err)
			}
		})
	}
	t.Run("cancelling ends the wait", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		calls := 0
		var logs logBuffer
		err := retry(ctx, logs.logger(), "probe", backoff{first: time.Hour, max: time.Hour}, func() error {
			calls++
			go cancel() // while retry waits its hour
			return down
		})
		if !errors.Is(err, context.Canceled) || calls != 1 {
			t.Fatalf("retry = %v after %d calls, want context.Canceled after one", err, calls)
		}
	})
}

// apiReply is one answer of a scripted API host.
type apiReply struct {
	status int
	body   string
}

// scriptedAPI is a Discord API host that answers GET /applications/@me
// with replies in turn (repeating the last) and counts the calls.
type scriptedAPI struct {
	mu      sync.Mutex
	replies []apiReply
	calls   int
}

func (a *scriptedAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !strings.HasSuffix(r.URL.Path, "/applications/@me") {
		http.NotFound(w, r)
		return
	}
	rep := a.replies[min(a.calls, len(a.replies)-1)]
	a.calls++
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rep.status)
	fmt.Fprint(w, rep.body)
}

func (a *scriptedAPI) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.calls
}

// TestResolveApplication covers where the application ID and the public
// key come from: Discord, the environment, or (when the call cannot work)
// the token.
func TestResolveApplication(t *testing.T) {
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	appJSON := fmt.Sprintf(`{"id":"222222222222222222","name":"ttt","verify_key":"%x"}`, []byte(pub))
	ok := apiReply{http.StatusOK, appJSON}
	notFound := apiReply{http.StatusNotFound, `{"message":"404: Not Found","code":0}`}
	tokenID := "111111111111111111" // the bot user's ID in the token: not the application's
	for _, tt := range []struct {
		name      string
		replies   []apiReply
		token     string
		cfg       serveConfig // token, appID, mode, publicKey
		wantApp   string
		wantKey   ed25519.PublicKey
		wantErr   string // a fragment; "" for success
		wantLog   string // a fragment of the logs
		wantCalls int
	}{
		{name: "from Discord, not from the token", replies: []apiReply{ok}, token: tokenFor(tokenID),
			wantApp: "222222222222222222", wantLog: `msg="serve: application from Discord" app=222222222222222222 name=ttt`, wantCalls: 1},
		{name: "a 5xx is waited out", replies: []apiReply{{http.StatusServiceUnavailable, `{}`}, ok}, token: tokenFor(tokenID),
			wantApp: "222222222222222222", wantLog: "attempt=1", wantCalls: 2},
		{name: "DISCORD_APP_ID wins, and a mismatch is logged", replies: []apiReply{ok}, token: tokenFor(tokenID),
			cfg: serveConfig{appID: "333333333333333333"}, wantApp: "333333333333333333",
			wantLog: "DISCORD_APP_ID is not the application of DISCORD_TOKEN", wantCalls: 1},
		{name: "http mode: the public key too", replies: []apiReply{ok}, token: tokenFor(tokenID), cfg: serveConfig{mode: modeHTTP},
			wantApp: "222222222222222222", wantKey: pub, wantLog: "public key from Discord", wantCalls: 1},
		{name: "http mode: DISCORD_PUBLIC_KEY wins, and a mismatch is logged", replies: []apiReply{ok}, token: tokenFor(tokenID),
			cfg: serveConfig{mode: modeHTTP, publicKey: other}, wantApp: "222222222222222222", wantKey: other,
			wantLog: "DISCORD_PUBLIC_KEY is not the application's public key", wantCalls: 1},
		{name: "401", replies: []apiReply{{http.StatusUnauthorized, `{"message":"401: Unauthorized","code":0}`}}, token: tokenFor(tokenID),
			wantErr: "Discord rejected DISCORD_TOKEN (401): check the token in the developer portal, Bot > Token", wantCalls: 1},
		{name: "no such route: the token's ID", replies: []apiReply{notFound}, token: tokenFor(tokenID),
			wantApp: tokenID, wantLog: "using the bot user ID in DISCORD_TOKEN", wantCalls: 1},
		{name: "not an application: the token's ID", replies: []apiReply{{http.StatusOK, `<html>proxy</html>`}}, token: tokenFor(tokenID),
			wantApp: tokenID, wantLog: "using the bot user ID in DISCORD_TOKEN", wantCalls: 1},
		{name: "no such route: DISCORD_APP_ID unchecked", replies: []apiReply{notFound}, token: tokenFor(tokenID),
			cfg: serveConfig{appID: "333333333333333333"}, wantApp: "333333333333333333", wantLog: "using DISCORD_APP_ID unchecked", wantCalls: 1},
		{name: "no such route, no ID in the token", replies: []apiReply{notFound}, token: "opaque-token",
			wantErr: "set DISCORD_APP_ID", wantCalls: 1},
		{name: "no such route, http mode without a key", replies: []apiReply{notFound}, token: tokenFor(tokenID),
			cfg: serveConfig{mode: modeHTTP}, wantErr: "set DISCORD_PUBLIC_KEY", wantCalls: 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			api := &scriptedAPI{replies: tt.replies}
			srv := httptest.NewServer(api)
			defer srv.Close()
			base, err := url.Parse(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			ses, err := discordgo.New("Bot " + tt.token)
			if err != nil {
				t.Fatal(err)
			}
			ses.Client = rest.RedirectClient(base, 5*time.Second)
			cfg := tt.cfg
			cfg.token = tt.token
			var logs logBuffer
			err = resolveApplication(context.Background(), &cfg, ses, logs.logger(), backoff{first: time.Millisecond, max: time.Millisecond})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
			} else if err != nil || cfg.appID != tt.wantApp || !cfg.publicKey.Equal(tt.wantKey) {
				t.Fatalf("app %q key %x, %v; want app %q key %x", cfg.appID, []byte(cfg.publicKey), err, tt.wantApp, []byte(tt.wantKey))
			}
			if !strings.Contains(logs.String(), tt.wantLog) {
				t.Errorf("logs lack %q:\n%s", tt.wantLog, logs.String())
			}
			if n := api.count(); n != tt.wantCalls {
				t.Errorf("%d calls to /applications/@me, want %d", n, tt.wantCalls)
			}
		})
	}
}

// TestResolveSecrets: unset keys are generated once and shared through
// Redis, set ones win and leave Redis alone, the log says where each came
// from (never the value), and a volatile Redis is warned about.
func TestResolveSecrets(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	srv := redistest.Start(t)
	rdb := redistest.Client(t, srv)
	resolve := func(cfg serveConfig, volatile bool) (serveConfig, string) {
		t.Helper()
		var logs logBuffer
		store := persistence.New(redistest.Client(t, srv), persistence.Options{}) // a process of its own
		if err := resolveSecrets(ctx, store, &cfg, logs.logger(), "REDIS_URL", volatile); err != nil {
			t.Fatal(err)
		}
		return cfg, logs.String()
	}
	has := func(logs, name, source string, key []byte) bool {
		return secretLogged(logs, name, source, fingerprint(key))
	}

	first, logs := resolve(serveConfig{}, false)
	for _, k := range [][]byte{first.customIDKey, first.pseudonymKey} {
		if _, err := hex.DecodeString(string(k)); err != nil || len(k) != 64 {
			t.Fatalf("generated key %q, want 64 hex digits", k)
		}
		if strings.Contains(logs, string(k)) {
			t.Fatalf("a secret's value was logged:\n%s", logs)
		}
	}
	if string(first.customIDKey) == string(first.pseudonymKey) {
		t.Fatal("both keys are the same")
	}
	if !has(logs, "CUSTOM_ID_KEY", secretFromGenerated, first.customIDKey) || !has(logs, "PSEUDONYM_KEY", secretFromGenerated, first.pseudonymKey) {
		t.Fatalf("logs do not say both keys were generated:\n%s", logs)
	}
	if got := rdb.Get(ctx, "ttt:secret:custom_id_key").Val(); got != string(first.customIDKey) {
		t.Fatalf("stored custom ID key %q, want %q", got, first.customIDKey)
	}

	second, logs := resolve(serveConfig{}, false)
	if string(second.customIDKey) != string(first.customIDKey) || string(second.pseudonymKey) != string(first.pseudonymKey) {
		t.Fatal("a second process got other keys")
	}
	if strings.Contains(logs, secretFromGenerated) || !has(logs, "CUSTOM_ID_KEY", secretFromRedis, first.customIDKey) ||
		!has(logs, "PSEUDONYM_KEY", secretFromRedis, first.pseudonymKey) {
		t.Fatalf("logs do not say both keys came from Redis:\n%s", logs)
	}

	explicit := []byte("explicit-custom-id-key-0123456789")
	third, logs := resolve(serveConfig{customIDKey: explicit}, true)
	if string(third.customIDKey) != string(explicit) || string(third.pseudonymKey) != string(first.pseudonymKey) {
		t.Fatalf("keys %q %q; want the explicit custom ID key and the stored pseudonym key", third.customIDKey, third.pseudonymKey)
	}
	if !has(logs, "CUSTOM_ID_KEY", secretFromEnv, explicit) || strings.Contains(logs, string(explicit)) {
		t.Fatalf("logs do not say the custom ID key came from the environment, or show it:\n%s", logs)
	}
	if !strings.Contains(logs, "SECRETS WILL BE LOST: PSEUDONYM_KEY live only in the in-memory Redis") {
		t.Fatalf("no loud warning about the in-memory Redis:\n%s", logs)
	}
	if got := rdb.Get(ctx, "ttt:secret:custom_id_key").Val(); got != string(first.customIDKey) {
		t.Fatalf("an explicit key changed the stored one: %q", got)
	}

	_, logs = resolve(serveConfig{customIDKey: explicit, pseudonymKey: explicit}, true)
	if strings.Contains(logs, "LOST") {
		t.Fatalf("warned about losing secrets that are all set in the environment:\n%s", logs)
	}

	if err := rdb.Set(ctx, "ttt:secret:pseudonym_key", "short", 0).Err(); err != nil {
		t.Fatal(err)
	}
	cfg := serveConfig{}
	err := resolveSecrets(ctx, persistence.New(rdb, persistence.Options{}), &cfg, slog.New(slog.DiscardHandler), "REDIS_URL", false)
	if !errors.Is(err, persistence.ErrCorrupt) || !strings.Contains(err.Error(), "PSEUDONYM_KEY") {
		t.Fatalf("short stored key: %v, want ErrCorrupt naming PSEUDONYM_KEY", err)
	}
}

// secretLogged reports whether logs have a "serve: secret" line for name
// with source and fingerprint fp.
func secretLogged(logs, name, source, fp string) bool {
	for l := range strings.Lines(logs) {
		if strings.Contains(l, `msg="serve: secret" name=`+name+" source="+source+" ") && strings.Contains(l, " fingerprint="+fp+"\n") {
			return true
		}
	}
	return false
}
