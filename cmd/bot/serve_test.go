package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/redis/go-redis/v9"

	"github.com/tttbot/ttt-bot/ai"
	slash "github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
	"github.com/tttbot/ttt-bot/persistence"
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
		{"no app ID (asked of Discord)", with("DISCORD_APP_ID", " "), ""},
		{"app ID not a number", with("DISCORD_APP_ID", "my-bot"), `DISCORD_APP_ID "my-bot" is not an ID`},
		{"short custom-ID key", with("CUSTOM_ID_KEY", "short"), "CUSTOM_ID_KEY must be at least 16 bytes"},
		{"short pseudonym key", with("PSEUDONYM_KEY", "0123456789abcde"), "PSEUDONYM_KEY must be at least 16 bytes"},
		{"no keys (kept in Redis)", with("CUSTOM_ID_KEY", "", "PSEUDONYM_KEY", ""), ""},
		{"bad log level", with("LOG_LEVEL", "loud"), `LOG_LEVEL "loud"`},
		{"nothing", map[string]string{}, "DISCORD_TOKEN is not set"},
		{"bad mode", with("MODE", "carrier-pigeon"), `MODE "carrier-pigeon" is not gateway or http`},
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
		{"AI queue set", with("AI_WORKERS", "3", "AI_MAX_WAIT", "10s", "AI_MAX_QUEUE", "500"), ""},
		{"zero AI workers", with("AI_WORKERS", "0"), `AI_WORKERS "0" is not a whole number from 1 to 1024, or empty for one fewer than the cores`},
		{"AI workers not a number", with("AI_WORKERS", "many"), `AI_WORKERS "many"`},
		{"AI max wait too short", with("AI_MAX_WAIT", "10ms"), `AI_MAX_WAIT "10ms" is not a duration of at least 100ms, like 5s`},
		{"AI max wait not a duration", with("AI_MAX_WAIT", "5"), `AI_MAX_WAIT "5"`},
		{"AI max queue zero", with("AI_MAX_QUEUE", "0"), `AI_MAX_QUEUE "0" is not a whole number, 1 or more, or empty for 64 per worker`},
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
	c, err := loadServeConfig(func(k string) string { return with("AI_WORKERS", "3", "AI_MAX_WAIT", "10s", "AI_MAX_QUEUE", "500")[k] })
	if err != nil || c.aiWorkers != 3 || c.aiMaxWait != 10*time.Second || c.aiMaxQueue != 500 {
		t.Fatalf("AI queue settings: %+v, %v; want 3 workers, 10s, 500", c, err)
	}
}

// TestLoadServeConfigTokenOnly: DISCORD_TOKEN alone is a configuration,
// in both modes; what is missing is learnt at start-up.
func TestLoadServeConfigTokenOnly(t *testing.T) {
	for _, mode := range []string{"", "http"} {
		env := map[string]string{"DISCORD_TOKEN": "tok", "MODE": mode}
		c, err := loadServeConfig(func(k string) string { return env[k] })
		if err != nil || c.token != "tok" || c.appID != "" || len(c.customIDKey) != 0 ||
			len(c.pseudonymKey) != 0 || c.publicKey != nil {
			t.Fatalf("MODE=%q: config %+v, %v; want the token and nothing else", mode, c, err)
		}
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
	if _, err := fake.WaitGateway(wctx, func(g fakediscord.GatewayState) bool { return g.Connected == 1 }); err != nil {
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
		shardID: 1, shardCount: 2, shardsFixed: true}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, cfg, serveDeps{levels: ai.NewRegistry(), logOut: io.Discard, newSession: fakeSession(fake)})
	}()
	wctx, wcancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer wcancel()
	g, err := fake.WaitGateway(wctx, func(g fakediscord.GatewayState) bool { return g.Connected == 1 })
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
// answers /healthz, /readyz and /metrics, and cancelling shuts down. The
// application ID and the public key are not configured: serve gets them
// from the fake's GET /applications/@me (the verification proves the key).
func TestServeHTTP(t *testing.T) {
	fake := fakediscord.New(t, fakediscord.Options{})
	rdb := redistest.Start(t)
	cfg := serveConfig{token: fake.Token(), devGuild: "42", redisURL: rdb.Addr(),
		customIDKey: []byte(strings.Repeat("k", 32)), pseudonymKey: []byte(strings.Repeat("p", 32)),
		mode: modeHTTP, listenAddr: "interactions", opsAddr: "ops"}
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
	// The registration's PUT is counted once its answer is read, which
	// may come after serve is listening.
	for !(strings.Contains(metrics, "ttt_interactions_total{") && strings.Contains(metrics, "\nttt_active_games ") &&
		strings.Contains(metrics, `route="commands"}`)) && wctx.Err() == nil {
		time.Sleep(5 * time.Millisecond)
		_, metrics = get("/metrics")
	}
	for _, want := range []string{
		`ttt_interactions_total{outcome="ok",type="ApplicationCommand"} 1`, // labels in name order, as client_golang writes them
		`ttt_http_interactions_total{status="200"} 2`,                      // PING and /ttt help
		`ttt_http_interactions_total{status="401"} 1`,                      // the forged PING
		`ttt_http_first_response_seconds_count{response="inline"} 1`,
		"# TYPE go_goroutines gauge",                 // the standard collectors
		"# TYPE process_resident_memory_bytes gauge", //
		"# TYPE ttt_redis_errors_total counter",
		"\nttt_active_games 0\n",                                                   // counted at start; /ttt help starts no game
		`ttt_discord_requests_total{method="PUT",outcome="ok",route="commands"} 1`, // the registration
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
	goldenText(t, "help-serve.golden", r.stdout)
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
	d, err := fake.Command(ctx, fakediscord.CommandSpec{Actor: fakediscord.Actor{Guild: "42", Channel: "7"}, Name: slash.Name,
		Options: []fakediscord.Option{{Name: slash.SubHelp, Type: discordgo.ApplicationCommandOptionSubCommand}}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := d.Wait(ctx)
	if err != nil || r.Message == nil || !r.Message.Ephemeral || !strings.Contains(r.Message.Content, "/ttt vs-ai") {
		t.Fatalf("/ttt help answered %+v, %v", r, err)
	}
}

// startServe runs serve in the background with a logger writing to logs;
// the returned channel receives serve's result.
func startServe(ctx context.Context, cfg serveConfig, logs io.Writer, bo backoff) <-chan error {
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, cfg, serveDeps{levels: ai.NewRegistry(), logOut: logs, backoff: bo,
			newSession: func(token string) (*discordgo.Session, error) { return discordgo.New("Bot " + token) }})
	}()
	return done
}

// waitLog waits until logs hold fragment at least n times, failing the
// test if serve returns first or wctx ends.
func waitLog(t *testing.T, wctx context.Context, logs *logBuffer, done <-chan error, fragment string, n int) {
	t.Helper()
	for strings.Count(logs.String(), fragment) < n {
		select {
		case err := <-done:
			t.Fatalf("serve returned before logging %q %d times: %v\n%s", fragment, n, err, logs.String())
		case <-wctx.Done():
			t.Fatalf("serve did not log %q %d times:\n%s", fragment, n, logs.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// tokenOnlyAppID is the application of tokenOnlyDeployment's fake
// Discord; its token's first segment names another ID.
const tokenOnlyAppID = "222222222222222222"

// tokenOnlyDeployment is a fake Discord whose token does not name its
// application, a redis-server and the config of a deployment that sets
// DISCORD_TOKEN alone (plus where Discord and Redis are).
func tokenOnlyDeployment(t *testing.T) (*fakediscord.Server, *redis.Client, serveConfig) {
	t.Helper()
	fake := fakediscord.New(t, fakediscord.Options{Token: tokenFor("111111111111111111"), AppID: tokenOnlyAppID})
	rsrv := redistest.Start(t)
	return fake, redistest.Client(t, rsrv), tokenOnlyEnv(t, fake, rsrv.Addr())
}

// tokenOnlyEnv is the environment of a deployment that sets DISCORD_TOKEN
// alone, plus where Discord and Redis are.
func tokenOnlyEnv(t *testing.T, fake *fakediscord.Server, redisAddr string, more ...string) serveConfig {
	t.Helper()
	env := map[string]string{"DISCORD_TOKEN": fake.Token(), "DISCORD_API_URL": fake.URL(), "REDIS_URL": redisAddr}
	for i := 0; i+1 < len(more); i += 2 {
		env[more[i]] = more[i+1]
	}
	cfg, err := loadServeConfig(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// startGame starts /ttt vs-ai against the random level with the user to
// move, and returns the board message.
func startGame(t *testing.T, ctx context.Context, fake *fakediscord.Server) fakediscord.Message {
	t.Helper()
	d, err := fake.Command(ctx, fakediscord.CommandSpec{Actor: fakediscord.Actor{Guild: "42", Channel: "7", User: fakediscord.User{ID: "100"}},
		Name: slash.Name, Options: []fakediscord.Option{{Name: slash.SubVsAI, Type: discordgo.ApplicationCommandOptionSubCommand,
			Options: []fakediscord.Option{{Name: "level", Value: "random"}, {Name: "first", Value: "me"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := d.Wait(ctx)
	if err != nil || r.Message == nil || r.Message.Ephemeral || len(r.Message.Buttons()) == 0 {
		t.Fatalf("/ttt vs-ai answered %+v, %v; want a public board", r, err)
	}
	return *r.Message
}

// clickCell clicks an empty cell of board, found by decoding its buttons
// with signer (so the buttons must be signed with signer's key), and checks
// that the bot played it: the board is updated in place.
func clickCell(t *testing.T, ctx context.Context, fake *fakediscord.Server, signer *customid.Signer, board string) {
	t.Helper()
	m, ok := fake.Message(board)
	if !ok {
		t.Fatalf("no message %s", board)
	}
	for _, b := range m.Buttons() {
		id, err := signer.Decode(b.CustomID)
		if err != nil || id.Action != customid.ActionMove || b.Disabled {
			continue
		}
		d, err := fake.Click(ctx, fakediscord.ClickSpec{Actor: fakediscord.Actor{Guild: "42", Channel: "7", User: fakediscord.User{ID: "100"}},
			MessageID: board, CustomID: b.CustomID})
		if err != nil {
			t.Fatal(err)
		}
		r, err := d.Wait(ctx)
		if err != nil || r.Type != int(discordgo.InteractionResponseUpdateMessage) || r.Message == nil || r.Message.ID != board {
			t.Fatalf("click answered %+v, %v; want the board updated (type 7)", r, err)
		}
		return
	}
	t.Fatalf("no empty cell signed with the key on board %q", m.Content)
}

// TestServeTokenOnly starts serve with DISCORD_TOKEN alone (and where
// Discord and Redis are): the application comes from GET /applications/@me
// (the token's first segment names another ID, as for an old application,
// so a guess from the token would register nothing), the invite link is
// logged, the keys are generated into Redis, and a board works. A second
// process on the same Redis then generates nothing, logs the same keys
// and plays on the first one's board.
func TestServeTokenOnly(t *testing.T) {
	fake, rdb, cfg := tokenOnlyDeployment(t)
	wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer wcancel()

	var logsA logBuffer
	ctxA, cancelA := context.WithCancel(context.Background())
	defer cancelA()
	doneA := startServe(ctxA, cfg, &logsA, backoff{})
	waitLog(t, wctx, &logsA, doneA, `msg="serve: ready"`, 1)
	cmds := fake.Commands("")
	if len(cmds) == 0 || cmds[0].ApplicationID != tokenOnlyAppID {
		t.Fatalf("global commands %+v, want them registered for application %s", cmds, tokenOnlyAppID)
	}
	invite := "https://discord.com/oauth2/authorize?client_id=" + tokenOnlyAppID + "&scope=bot+applications.commands&permissions=2147601408"
	if !strings.Contains(logsA.String(), invite) {
		t.Errorf("logs lack the invite link %s:\n%s", invite, logsA.String())
	}
	customKey, pseudoKey := []byte(rdb.Get(wctx, "ttt:secret:custom_id_key").Val()), []byte(rdb.Get(wctx, "ttt:secret:pseudonym_key").Val())
	for name, key := range map[string][]byte{"CUSTOM_ID_KEY": customKey, "PSEUDONYM_KEY": pseudoKey} {
		if len(key) != 64 || !secretLogged(logsA.String(), name, secretFromGenerated, fingerprint(key)) {
			t.Fatalf("%s: stored %q; logs do not say it was generated:\n%s", name, key, logsA.String())
		}
		if strings.Contains(logsA.String(), string(key)) {
			t.Fatalf("%s's value was logged", name)
		}
	}
	if _, err := fake.WaitGateway(wctx, func(g fakediscord.GatewayState) bool { return g.Connected == 1 }); err != nil {
		t.Fatal(err)
	}
	signer, err := customid.NewSigner(customKey)
	if err != nil {
		t.Fatal(err)
	}
	board := startGame(t, wctx, fake).ID
	clickCell(t, wctx, fake, signer, board)
	stopServe(t, wctx, cancelA, doneA)

	var logsB logBuffer
	ctxB, cancelB := context.WithCancel(context.Background())
	defer cancelB()
	doneB := startServe(ctxB, cfg, &logsB, backoff{})
	waitLog(t, wctx, &logsB, doneB, `msg="serve: ready"`, 1)
	if strings.Contains(logsB.String(), "source="+secretFromGenerated) ||
		!secretLogged(logsB.String(), "CUSTOM_ID_KEY", secretFromRedis, fingerprint(customKey)) ||
		!secretLogged(logsB.String(), "PSEUDONYM_KEY", secretFromRedis, fingerprint(pseudoKey)) {
		t.Fatalf("the second process did not take both keys from Redis:\n%s", logsB.String())
	}
	if rdb.Get(wctx, "ttt:secret:custom_id_key").Val() != string(customKey) || rdb.Get(wctx, "ttt:secret:pseudonym_key").Val() != string(pseudoKey) {
		t.Fatal("the stored keys changed")
	}
	if _, err := fake.WaitGateway(wctx, func(g fakediscord.GatewayState) bool {
		return g.Identifies == 2 && g.Connected == 1
	}); err != nil {
		t.Fatal(err)
	}
	clickCell(t, wctx, fake, signer, board) // the first process's board, played through the second
	stopServe(t, wctx, cancelB, doneB)
}

// TestServeExplicitKeysWin: keys set in the environment are used even
// when Redis holds others, and Redis is left as it was (but for a block
// stored by Discord ID, as before blocks were named by pseudonym, which
// moves to the explicit key's pseudonyms at start).
func TestServeExplicitKeysWin(t *testing.T) {
	fake := fakediscord.New(t, fakediscord.Options{})
	rsrv := redistest.Start(t)
	rdb := redistest.Client(t, rsrv)
	wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer wcancel()
	stored := strings.Repeat("5", 64)
	for _, k := range []string{"ttt:secret:custom_id_key", "ttt:secret:pseudonym_key"} {
		if err := rdb.Set(wctx, k, stored, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	const blocker, blocked = "918273645546372801", "918273645546372802"
	if err := rdb.SAdd(wctx, "ttt:block:{u:"+blocker+"}", blocked).Err(); err != nil {
		t.Fatal(err)
	}
	customKey, pseudoKey := "explicit-custom-id-key-0123456789", "explicit-pseudonym-key-0123456789"
	cfg := tokenOnlyEnv(t, fake, rsrv.Addr(), "CUSTOM_ID_KEY", customKey, "PSEUDONYM_KEY", pseudoKey)
	var logs logBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := startServe(ctx, cfg, &logs, backoff{})
	waitLog(t, wctx, &logs, done, `msg="serve: ready"`, 1)
	if !secretLogged(logs.String(), "CUSTOM_ID_KEY", secretFromEnv, fingerprint([]byte(customKey))) ||
		!secretLogged(logs.String(), "PSEUDONYM_KEY", secretFromEnv, fingerprint([]byte(pseudoKey))) {
		t.Fatalf("logs do not say both keys came from the environment:\n%s", logs.String())
	}
	for _, k := range []string{"ttt:secret:custom_id_key", "ttt:secret:pseudonym_key"} {
		if got := rdb.Get(wctx, k).Val(); got != stored {
			t.Fatalf("%s = %q, want it untouched", k, got)
		}
	}
	if !strings.Contains(logs.String(), `msg="serve: blocks moved to pseudonymous names" blocks=1`) || rdb.Exists(wctx, "ttt:block:{u:"+blocker+"}").Val() != 0 {
		t.Fatalf("the block stored by ID was not moved at start:\n%s", logs.String())
	}
	if ok, err := persistence.New(rdb, persistence.Options{PseudonymKey: []byte(pseudoKey)}).Blocked(wctx, blocker, blocked); err != nil || !ok {
		t.Fatalf("the moved block under the explicit key: %v, %v", ok, err)
	}
	if _, err := fake.WaitGateway(wctx, func(g fakediscord.GatewayState) bool { return g.Connected == 1 }); err != nil {
		t.Fatal(err)
	}
	board := startGame(t, wctx, fake)
	storedSigner, err := customid.NewSigner([]byte(stored))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range board.Buttons() {
		if _, err := storedSigner.Decode(b.CustomID); err == nil {
			t.Fatalf("button %q is signed with the stored key, not the explicit one", b.CustomID)
		}
	}
	envSigner, err := customid.NewSigner([]byte(customKey))
	if err != nil {
		t.Fatal(err)
	}
	clickCell(t, wctx, fake, envSigner, board.ID)
	stopServe(t, wctx, cancel, done)
}

// TestServeUnreachable: serve started while Discord cannot be reached
// retries (each attempt logged) and comes up once Discord answers; a
// cancel while it waits ends it.
func TestServeUnreachable(t *testing.T) {
	fake := fakediscord.New(t, fakediscord.Options{})
	rsrv := redistest.Start(t)
	cfg := tokenOnlyEnv(t, fake, rsrv.Addr(), "DEV_GUILD_ID", "42")
	quick := backoff{first: 5 * time.Millisecond, max: 20 * time.Millisecond}
	wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer wcancel()

	fake.SetUnreachable(true)
	var logs logBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := startServe(ctx, cfg, &logs, quick)
	waitLog(t, wctx, &logs, done, "Discord is unreachable; retrying", 2)
	if !strings.Contains(logs.String(), "attempt=2") {
		t.Fatalf("attempts are not numbered:\n%s", logs.String())
	}
	fake.SetUnreachable(false)
	waitLog(t, wctx, &logs, done, `msg="serve: ready"`, 1)
	if len(fake.Commands("42")) == 0 {
		t.Fatal("no commands registered")
	}
	if _, err := fake.WaitGateway(wctx, func(g fakediscord.GatewayState) bool { return g.Connected == 1 }); err != nil {
		t.Fatal(err)
	}
	wantHelp(t, wctx, fake)
	stopServe(t, wctx, cancel, done)

	t.Run("cancelled while waiting", func(t *testing.T) {
		fake.SetUnreachable(true)
		var logs logBuffer
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := startServe(ctx, cfg, &logs, quick)
		waitLog(t, wctx, &logs, done, "Discord is unreachable; retrying", 1)
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("serve = %v, want context.Canceled", err)
			}
		case <-wctx.Done():
			t.Fatal("serve kept retrying after its context was cancelled")
		}
	})
}

// serveEnv sets the environment of a "bot serve" run: kv, and every other
// setting of serve empty.
func serveEnv(t *testing.T, kv ...string) {
	t.Helper()
	for _, k := range []string{"DISCORD_TOKEN", "DISCORD_APP_ID", "DEV_GUILD_ID", "MODE", "LISTEN_ADDR", "DISCORD_PUBLIC_KEY",
		"OPS_ADDR", "REDIS_URL", "CUSTOM_ID_KEY", "PSEUDONYM_KEY", "DISCORD_API_URL", "LOG_LEVEL", "SHARD_ID", "SHARD_COUNT",
		"RETRAIN_INTERVAL", "RETRAIN_MIN_GAMES", "RETRAIN_TIME_LIMIT", "RETRAIN_CPU_SHARE", "AI_WORKERS", "AI_MAX_WAIT", "AI_MAX_QUEUE"} {
		t.Setenv(k, "")
	}
	for i := 0; i+1 < len(kv); i += 2 {
		t.Setenv(kv[i], kv[i+1])
	}
}

// runServeCommand runs "bot serve" as main would, bounded by a deadline.
func runServeCommand(t *testing.T) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	e, out, errOut := testEnv("")
	code := e.run(ctx, []string{"serve"})
	if ctx.Err() != nil {
		t.Fatalf("serve ran until the deadline:\n%s", errOut.String())
	}
	return result{code, out.String(), errOut.String()}
}

// TestServeTokenRejected: a token Discord refuses ends serve at once, with
// exit code 1 and a message that says what to do; without retrying, and
// before Redis is touched (REDIS_URL names a closed port).
func TestServeTokenRejected(t *testing.T) {
	fake := fakediscord.New(t, fakediscord.Options{})
	serveEnv(t, "DISCORD_TOKEN", "not-the-token", "DISCORD_API_URL", fake.URL(), "REDIS_URL", "127.0.0.1:1")
	r := runServeCommand(t)
	const want = "bot serve: Discord rejected DISCORD_TOKEN (401): check the token in the developer portal, Bot > Token\n"
	if r.code != exitFailure || !strings.HasSuffix(r.stderr, want) || strings.Contains(r.stderr, "retrying") {
		t.Fatalf("exit %d, stderr:\n%s\nwant exit 1 ending in %q, no retry", r.code, r.stderr, want)
	}
	calls := fake.Calls()
	if len(calls) != 1 || calls[0].Path != "/applications/@me" || calls[0].Status != 401 {
		t.Fatalf("calls %+v, want one GET /applications/@me answered 401", calls)
	}
}

// TestServeGatewayRejected: a gateway that closes with 4004 (authentication
// failed) ends serve at once, like a 401; so does a close code that no
// retry can mend (4014, a privileged intent the portal has not enabled).
func TestServeGatewayRejected(t *testing.T) {
	for _, tt := range []struct {
		code int
		want string
	}{
		{4004, "bot serve: Discord rejected DISCORD_TOKEN (gateway close 4004): check the token in the developer portal, Bot > Token\n"},
		{4014, "bot serve: discord gateway: closed with 4014 Disallowed intent(s).\n"},
	} {
		t.Run(strconv.Itoa(tt.code), func(t *testing.T) {
			fake := fakediscord.New(t, fakediscord.Options{})
			fake.FailIdentify(tt.code)
			rsrv := redistest.Start(t)
			serveEnv(t, "DISCORD_TOKEN", fake.Token(), "DISCORD_API_URL", fake.URL(), "REDIS_URL", rsrv.Addr(),
				"CUSTOM_ID_KEY", strings.Repeat("k", 32), "PSEUDONYM_KEY", strings.Repeat("p", 32))
			r := runServeCommand(t)
			if r.code != exitFailure || !strings.HasSuffix(r.stderr, tt.want) || strings.Contains(r.stderr, "retrying") {
				t.Fatalf("exit %d, stderr:\n%s\nwant exit 1 ending in %q, no retry", r.code, r.stderr, tt.want)
			}
		})
	}
}

// TestServeGuildDelete: when the bot leaves a server (GUILD_DELETE), serve
// forgets that server's data; the same event marked unavailable (an
// outage) forgets nothing.
func TestServeGuildDelete(t *testing.T) {
	fake, rdb, cfg := tokenOnlyDeployment(t)
	wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer wcancel()
	var logs logBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := startServe(ctx, cfg, &logs, backoff{})
	waitLog(t, wctx, &logs, done, `msg="serve: ready"`, 1)
	if _, err := fake.WaitGateway(wctx, func(g fakediscord.GatewayState) bool { return g.Connected == 1 }); err != nil {
		t.Fatal(err)
	}
	store := persistence.New(rdb, persistence.Options{})
	for _, g := range []string{"42", "999"} {
		if err := store.SetGuildSetting(wctx, g, "hints", "off", persistence.AuditEntry{User: "1", Action: "set"}); err != nil {
			t.Fatal(err)
		}
	}
	settingsOf := func(g string) map[string]string {
		m, err := store.GuildSettings(wctx, g)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	// An outage: nothing is forgotten.
	if err := fake.Dispatch("42", "GUILD_DELETE", map[string]any{"id": "42", "unavailable": true}); err != nil {
		t.Fatal(err)
	}
	if err := fake.Dispatch("42", "GUILD_DELETE", map[string]any{"id": "42"}); err != nil {
		t.Fatal(err)
	}
	waitLog(t, wctx, &logs, done, `msg="serve: forgot a server the bot left"`, 1)
	if m := settingsOf("42"); len(m) != 0 {
		t.Fatalf("the server's settings survived: %v", m)
	}
	if m := settingsOf("999"); m["hints"] != "off" {
		t.Fatalf("another server's settings went too: %v", m)
	}
	if n := strings.Count(logs.String(), "forgot a server"); n != 1 {
		t.Fatalf("%d servers forgotten, want 1 (the unavailable one is an outage):\n%s", n, logs.String())
	}
	stopServe(t, wctx, cancel, done)
}
