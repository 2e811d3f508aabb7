package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/bot"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

func TestLoadServeConfig(t *testing.T) {
	good := map[string]string{
		"DISCORD_TOKEN": "tok", "DISCORD_APP_ID": "1", "CUSTOM_ID_KEY": strings.Repeat("k", 32),
		"PSEUDONYM_KEY": strings.Repeat("p", 32), "LOG_LEVEL": "debug", "DEV_GUILD_ID": "42",
	}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for a, b := range good {
			m[a] = b
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, tt := range []struct {
		name string
		env  map[string]string
		want string // a fragment of the error, or "" for success
	}{
		{"complete", good, ""},
		{"no token", with("DISCORD_TOKEN", ""), "DISCORD_TOKEN is not set"},
		{"no app", with("DISCORD_APP_ID", " "), "DISCORD_APP_ID is not set"},
		{"short custom-ID key", with("CUSTOM_ID_KEY", "short"), "CUSTOM_ID_KEY must be at least 16 bytes"},
		{"no pseudonym key", with("PSEUDONYM_KEY", ""), "PSEUDONYM_KEY must be at least 16 bytes"},
		{"bad log level", with("LOG_LEVEL", "loud"), `LOG_LEVEL "loud"`},
		{"nothing", map[string]string{}, "CUSTOM_ID_KEY must"},
		{"bad mode", with("MODE", "carrier-pigeon"), `MODE "carrier-pigeon" is not gateway or http`},
		{"http without a public key", with("MODE", "http"), "DISCORD_PUBLIC_KEY must be"},
		{"http with a short public key", with("MODE", "HTTP", "DISCORD_PUBLIC_KEY", "abcd"), "DISCORD_PUBLIC_KEY must be"},
		{"shard id without a count", with("SHARD_ID", "0"), "SHARD_ID and SHARD_COUNT must be set together"},
		{"shard count without an id", with("SHARD_COUNT", "2"), "SHARD_ID and SHARD_COUNT must be set together"},
		{"shard id equals the count", with("SHARD_ID", "2", "SHARD_COUNT", "2"), `SHARD_ID "2" is not a whole number from 0 to SHARD_COUNT-1 (1)`},
		{"negative shard id", with("SHARD_ID", "-1", "SHARD_COUNT", "2"), `SHARD_ID "-1"`},
		{"shard id not a number", with("SHARD_ID", "one", "SHARD_COUNT", "2"), `SHARD_ID "one"`},
		{"zero shards", with("SHARD_ID", "0", "SHARD_COUNT", "0"), `SHARD_COUNT "0" is not a whole number of at least 1`},
		{"shards in http mode", with("MODE", "http", "DISCORD_PUBLIC_KEY", strings.Repeat("ab", 32), "SHARD_ID", "0", "SHARD_COUNT", "2"),
			"SHARD_ID and SHARD_COUNT apply to MODE=gateway only"},
		{"api url without a scheme", with("DISCORD_API_URL", "localhost:8080"), `DISCORD_API_URL "localhost:8080" is not an http:// or https:// URL`},
		{"api url of another scheme", with("DISCORD_API_URL", "ftp://example.org"), `DISCORD_API_URL "ftp://example.org"`},
		{"bad retrain interval", with("RETRAIN_INTERVAL", "daily"), `RETRAIN_INTERVAL "daily" is not a duration of at least 1m`},
		{"bad retrain cpu share", with("RETRAIN_CPU_SHARE", "2"), `RETRAIN_CPU_SHARE "2" is not a number over 0 and at most 1`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := loadServeConfig(func(k string) string { return tt.env[k] })
			if tt.want == "" {
				if err != nil || c.token != "tok" || c.devGuild != "42" || c.logLevel.String() != "DEBUG" || c.mode != modeGateway ||
					c.shardID != 0 || c.shardCount != 1 || c.retrain.interval != defaultRetrainInterval || c.retrain.cpuShare != defaultRetrainCPUShare {
					t.Fatalf("config %+v, %v", c, err)
				}
				return
			}
			var in *inputError
			if !errors.As(err, &in) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want input error mentioning %q", err, tt.want)
			}
		})
	}
}

// TestServe runs the whole serve wiring against a fake Discord and a
// private redis-server, reaching the fake the way a deployment would, via
// DISCORD_API_URL and a plain discordgo session: commands are registered,
// an interaction is answered, and cancelling the context shuts down
// cleanly.
func TestServe(t *testing.T) {
	fake := fakediscord.New(t, fakediscord.Options{})
	rdb := redistest.Start(t)
	env := map[string]string{"DISCORD_TOKEN": fake.Token(), "DISCORD_APP_ID": fake.AppID(), "DEV_GUILD_ID": "42",
		"REDIS_URL": rdb.Addr(), "CUSTOM_ID_KEY": strings.Repeat("k", 32), "PSEUDONYM_KEY": strings.Repeat("p", 32),
		"DISCORD_API_URL": fake.URL()}
	cfg, err := loadServeConfig(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, cfg, serveDeps{levels: ai.NewRegistry(), logOut: io.Discard,
			newSession: func(token string) (*discordgo.Session, error) { return discordgo.New("Bot " + token) }})
	}()
	wctx, wcancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer wcancel()
	for len(fake.Commands("42")) == 0 {
		select {
		case err := <-done:
			t.Fatalf("serve returned early: %v", err)
		case <-wctx.Done():
			t.Fatal("commands were never registered")
		case <-time.After(10 * time.Millisecond):
		}
	}
	if _, err := fake.WaitGateway(wctx, func(g fakediscord.GatewayState) bool { return g.Connected == 1 && g.ConnHeartbeats > 0 }); err != nil {
		t.Fatal(err)
	}
	wantHelp(t, wctx, fake)
	stopServe(t, wctx, cancel, done)
}

// TestLoadServeConfigShard checks that SHARD_ID and SHARD_COUNT are read.
func TestLoadServeConfigShard(t *testing.T) {
	env := map[string]string{
		"DISCORD_TOKEN": "tok", "DISCORD_APP_ID": "1", "CUSTOM_ID_KEY": strings.Repeat("k", 32),
		"PSEUDONYM_KEY": strings.Repeat("p", 32), "SHARD_ID": " 3 ", "SHARD_COUNT": "4",
	}
	c, err := loadServeConfig(func(k string) string { return env[k] })
	if err != nil || c.shardID != 3 || c.shardCount != 4 {
		t.Fatalf("config %+v, %v; want shard 3 of 4", c, err)
	}
}

// TestServeShard runs serve as shard 1 of 2: the gateway IDENTIFY carries
// the shard, and only shard 0 registers the commands, so this one does not.
func TestServeShard(t *testing.T) {
	fake := fakediscord.New(t, fakediscord.Options{})
	rdb := redistest.Start(t)
	cfg := serveConfig{token: fake.Token(), appID: fake.AppID(), devGuild: "42", redisURL: rdb.Addr(),
		customIDKey: []byte(strings.Repeat("k", 32)), pseudonymKey: []byte(strings.Repeat("p", 32)),
		shardID: 1, shardCount: 2}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, cfg, serveDeps{levels: ai.NewRegistry(), logOut: io.Discard, newSession: fakeSession(fake)})
	}()
	wctx, wcancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer wcancel()
	g, err := fake.WaitGateway(wctx, func(g fakediscord.GatewayState) bool { return g.Connected == 1 && g.ConnHeartbeats > 0 })
	if err != nil {
		t.Fatal(err)
	}
	if g.Shard != [2]int{1, 2} {
		t.Errorf("IDENTIFY shard %v, want [1 2]", g.Shard)
	}
	if cmds := fake.Commands("42"); len(cmds) != 0 {
		t.Errorf("shard 1 registered %d commands, want none (shard 0 does)", len(cmds))
	}
	stopServe(t, wctx, cancel, done)
}

func TestLoadServeConfigHTTP(t *testing.T) {
	env := map[string]string{
		"DISCORD_TOKEN": "tok", "DISCORD_APP_ID": "1", "CUSTOM_ID_KEY": strings.Repeat("k", 32),
		"PSEUDONYM_KEY": strings.Repeat("p", 32), "MODE": " http ", "OPS_ADDR": ":9090",
		"DISCORD_PUBLIC_KEY": strings.Repeat("ab", 32),
	}
	c, err := loadServeConfig(func(k string) string { return env[k] })
	if err != nil || c.mode != modeHTTP || c.listenAddr != defaultListenAddr || c.opsAddr != ":9090" || len(c.publicKey) != 32 {
		t.Fatalf("config %+v, %v", c, err)
	}
}

// fakeSession makes discordgo sessions that talk to fake.
func fakeSession(fake *fakediscord.Server) func(string) (*discordgo.Session, error) {
	return func(token string) (*discordgo.Session, error) {
		s, err := discordgo.New("Bot " + token)
		if err == nil {
			s.Client = fake.Client()
		}
		return s, err
	}
}

// TestServeHTTP runs serve in HTTP interactions mode: the endpoint passes
// Discord's verification, answers /ttt help inline, the ops listener
// answers /healthz, /readyz and /metrics, and cancelling shuts down.
func TestServeHTTP(t *testing.T) {
	fake := fakediscord.New(t, fakediscord.Options{})
	rdb := redistest.Start(t)
	cfg := serveConfig{token: fake.Token(), appID: fake.AppID(), devGuild: "42", redisURL: rdb.Addr(),
		customIDKey: []byte(strings.Repeat("k", 32)), pseudonymKey: []byte(strings.Repeat("p", 32)),
		mode: modeHTTP, listenAddr: "interactions", opsAddr: "ops", publicKey: fake.PublicKey()}
	var mu sync.Mutex
	addrs := map[string]string{}
	listen := func(name string) (net.Listener, error) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err == nil {
			mu.Lock()
			addrs[name] = "http://" + ln.Addr().String()
			mu.Unlock()
		}
		return ln, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, cfg, serveDeps{levels: ai.NewRegistry(), logOut: io.Discard, newSession: fakeSession(fake), listen: listen})
	}()
	wctx, wcancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer wcancel()
	for len(fake.Commands("42")) == 0 {
		select {
		case err := <-done:
			t.Fatalf("serve returned early: %v", err)
		case <-wctx.Done():
			t.Fatal("commands were never registered")
		case <-time.After(10 * time.Millisecond):
		}
	}
	mu.Lock()
	endpoint, ops := addrs["interactions"], addrs["ops"]
	mu.Unlock()
	if err := fake.VerifyEndpoint(wctx, endpoint); err != nil {
		t.Fatal(err)
	}
	fake.SetInteractionsURL(endpoint)
	wantHelp(t, wctx, fake)
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(ops + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		if code, body := get(path); code != 200 || body != "ok\n" {
			t.Errorf("GET %s = %d %q", path, code, body)
		}
	}
	// The interaction is counted when its handling ends, just after the
	// inline answer.
	_, metrics := get("/metrics")
	for !(strings.Contains(metrics, "ttt_interactions_total{") && strings.Contains(metrics, "\nttt_active_games ")) && wctx.Err() == nil {
		time.Sleep(5 * time.Millisecond)
		_, metrics = get("/metrics")
	}
	for _, want := range []string{
		`ttt_interactions_total{type="ApplicationCommand",outcome="ok"} 1`,
		`ttt_http_interactions_total{status="200"} 2`, // PING and /ttt help
		`ttt_http_interactions_total{status="401"} 1`, // the forged PING
		`ttt_http_first_response_seconds_count{response="inline"} 1`,
		"# TYPE ttt_ai_move_seconds histogram",
		"# TYPE ttt_redis_errors_total counter",
		"\nttt_active_games 0\n", // counted at start; /ttt help starts no game
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s:\n%s", want, metrics)
		}
	}
	stopServe(t, wctx, cancel, done)
}

// TestServeHelp pins serve's help text, which lists its settings.
func TestServeHelp(t *testing.T) {
	r := runFixed(t, "", "help", "serve")
	if r.code != exitOK || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", r.code, r.stderr)
	}
	example, err := os.ReadFile("../../.env.example")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"DISCORD_TOKEN", "DISCORD_APP_ID", "DEV_GUILD_ID", "MODE", "LISTEN_ADDR", "DISCORD_PUBLIC_KEY",
		"OPS_ADDR", "REDIS_URL", "CUSTOM_ID_KEY", "PSEUDONYM_KEY", "LOG_LEVEL", "SHARD_ID", "SHARD_COUNT"} {
		if !strings.Contains(r.stdout, "  "+k+" ") {
			t.Errorf("help serve does not list %s", k)
		}
		if !strings.Contains(string(example), "\n"+k+"=") {
			t.Errorf(".env.example does not set %s", k)
		}
	}
	golden(t, "help-serve.golden", r.stdout)
}

// stopServe cancels serve's context and waits (until wctx ends) for serve
// to return without an error.
func stopServe(t *testing.T, wctx context.Context, cancel context.CancelFunc, done <-chan error) {
	t.Helper()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-wctx.Done():
		t.Fatal("serve did not shut down")
	}
}

// wantHelp sends /ttt help through fake and checks that the bot answered
// with the private help text.
func wantHelp(t *testing.T, ctx context.Context, fake *fakediscord.Server) {
	t.Helper()
	d, err := fake.Command(ctx, fakediscord.CommandSpec{Actor: fakediscord.Actor{Guild: "42", Channel: "7"}, Name: bot.CommandName,
		Options: []fakediscord.Option{{Name: bot.SubHelp, Type: discordgo.ApplicationCommandOptionSubCommand}}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := d.Wait(ctx)
	if err != nil || r.Message == nil || !r.Message.Ephemeral || !strings.Contains(r.Message.Content, "/ttt vs-ai") {
		t.Fatalf("/ttt help answered %+v, %v", r, err)
	}
}
