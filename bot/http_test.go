package bot_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	mrand "math/rand/v2"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/redis/go-redis/v9"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/bot"
	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
	"github.com/tttbot/ttt-bot/bot/httpmode"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/metrics"
	"github.com/tttbot/ttt-bot/bot/metrics/metricstest"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

// httpProc is one bot process in HTTP interactions mode: its own Store,
// session, Bot, Endpoint and listener.
type httpProc struct {
	bot      *bot.Bot
	endpoint *httpmode.Endpoint
	metrics  *metrics.Metrics
	url      string
}

// served returns how many interactions p handled, from its metrics.
func (p *httpProc) served(t *testing.T) int {
	t.Helper()
	n := 0.0
	for _, s := range scrape(t, p) {
		if s.Name == "ttt_interactions_total" {
			n += s.Value
		}
	}
	return int(n)
}

// newHTTPE2E starts n bot processes in HTTP interactions mode on one
// private redis-server and one fake Discord, which delivers to the first.
// The returned e2e acts through the fake as the gateway tests do.
func newHTTPE2E(t *testing.T, n int, opts bot.Options, eo httpmode.EndpointOptions) (*e2e, []*httpProc) {
	t.Helper()
	return newHTTPE2EStore(t, n, opts, persistence.Options{}, eo)
}

// newHTTPE2EStore is newHTTPE2E with Store options (a clock) for every
// process.
func newHTTPE2EStore(t *testing.T, n int, opts bot.Options, popts persistence.Options, eo httpmode.EndpointOptions) (*e2e, []*httpProc) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	t.Cleanup(cancel)
	rsrv := redistest.Start(t)
	cat, signer := e2eCatalogSigner(t)
	srv := fakediscord.New(t, fakediscord.Options{})
	logs := &syncBuffer{}
	e := &e2e{t: t, ctx: ctx, srv: srv, cat: cat, signer: signer, logs: logs, redis: rsrv, popts: popts}
	var procs []*httpProc
	for k := range n {
		p, store := e.startHTTPProc(k, opts, eo)
		if k == 0 {
			e.bot, e.store = p.bot, store
		}
		procs = append(procs, p)
	}
	srv.SetInteractionsURL(procs[0].url)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("bot logs:\n%s", logs.String())
		}
	})
	if err := e.bot.Register(ctx, e2eGuild); err != nil {
		t.Fatalf("Register: %v", err)
	}
	return e, procs
}

// startHTTPProc starts bot process k in HTTP interactions mode on a new
// Store against e's redis-server, verified by the fake as Discord would,
// and returns it with its Store. The fake still delivers wherever it did.
func (e *e2e) startHTTPProc(k int, opts bot.Options, eo httpmode.EndpointOptions) (*httpProc, *persistence.Store) {
	t := e.t
	t.Helper()
	popts := e.popts
	popts.PseudonymKey = e2ePseudonymKey
	store := persistence.New(redistest.Client(t, e.redis), popts)
	ses, err := e.srv.Session()
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})).With("proc", k)
	p := &httpProc{metrics: opts.Metrics}
	if p.metrics == nil {
		p.metrics = metrics.New(metrics.NewRegistry())
	}
	opts.Metrics = p.metrics
	levels := ai.NewRegistry()
	p.metrics.InstrumentLevels(levels, time.Now)
	p.bot, err = bot.New(bot.Deps{Discord: httpmode.NewInlineDiscord(ses), Store: store, Levels: levels,
		Catalog: e.cat, Signer: e.signer, Logger: log, AppID: e.srv.AppID()}, opts)
	if err != nil {
		t.Fatal(err)
	}
	eo.Metrics = p.metrics
	p.endpoint, err = httpmode.NewEndpoint(p.bot, p.bot.Inline(), e.srv.PublicKey(), eo)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(p.endpoint)
	t.Cleanup(func() {
		hs.Close()
		sctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
		defer cancel()
		if err := p.endpoint.Shutdown(sctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	p.url = hs.URL + "/interactions"
	if err := e.srv.VerifyEndpoint(e.ctx, p.url); err != nil {
		t.Fatalf("process %d: %v", k, err)
	}
	return p, store
}

// playVsAI plays /ttt vs-ai against level to the end by clicking the
// first empty cell, calling before ahead of each interaction, and returns
// the finished game. extra are more options of /ttt vs-ai.
func playVsAI(e *e2e, level string, before func(), extra ...fakediscord.Option) *persistence.Session {
	e.t.Helper()
	before()
	r, _ := e.command(alice, command.SubVsAI, append([]fakediscord.Option{{Name: "level", Value: level},
		{Name: "first", Value: "me"}}, extra...)...)
	if r.Type != int(discordgo.InteractionResponseChannelMessageWithSource) || r.Message.Ephemeral {
		e.t.Fatalf("/ttt vs-ai answered type %d ephemeral %v, want a public board", r.Type, r.Message.Ephemeral)
	}
	board, cur := r.Message.ID, r.Message
	// Click only once the bot has recorded the board's message, so the
	// game's version no longer moves under the first click.
	e.tracked(r.Message)
	for moves := 0; ; moves++ {
		if moves > 5 {
			e.t.Fatal("game did not end")
		}
		free := freeCells(e, cur)
		if len(free) == 0 {
			break
		}
		before()
		r, _ = e.click(alice, board, e.cells(cur)[free[0]].CustomID)
		if r.Type != int(discordgo.InteractionResponseUpdateMessage) || r.Message.ID != board {
			e.t.Fatalf("click answered type %d on %s, want 7 on the board %s", r.Type, r.Message.ID, board)
		}
		cur = r.Message
	}
	return e.game(cur)
}

// drain waits for the interactions in flight in procs to finish (the
// inline answer comes before the end of the handling).
func drain(t *testing.T, e *e2e, procs []*httpProc) {
	t.Helper()
	for _, p := range procs {
		if err := p.endpoint.Shutdown(e.ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// scrape returns the parsed metrics of p.
func scrape(t *testing.T, p *httpProc) []metricstest.Sample {
	t.Helper()
	var b strings.Builder
	if _, err := p.metrics.Registry().WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	s, _ := metricstest.Parse(t, b.String())
	return s
}

// TestHTTPVsAI plays a whole game against the perfect AI in HTTP
// interactions mode: every first response is the HTTP answer.
func TestHTTPVsAI(t *testing.T) {
	t.Parallel()
	e, procs := newHTTPE2E(t, 1, bot.Options{Rand: mrand.New(mrand.NewPCG(1, 2))}, httpmode.EndpointOptions{})
	end := playVsAI(e, "perfect", func() {})
	if end.Status != persistence.StatusFinished || end.Result == game.XWins {
		t.Fatalf("game ended %s with %q, want a draw or a loss against perfect", end.Status, end.Result)
	}
	drain(t, e, procs)
	e.noFailures()
	// The bot learns the board's message ID by reading @original, never by
	// sending the board again: a late re-send could put an older board back
	// over one a click had already updated. Every answer here was inline,
	// so nothing edited @original.
	for _, c := range e.srv.Calls() {
		if c.Method == "PATCH" && strings.HasSuffix(c.Path, "/messages/@original") {
			t.Errorf("the bot edited @original (%s %s): the inline answers needed no edit", c.Method, c.Path)
		}
	}
	samples := scrape(t, procs[0])
	clicks, _ := metricstest.Find(samples, "ttt_interactions_total", "type", discordgo.InteractionMessageComponent.String(), "outcome", metrics.OutcomeOK)
	cmds, _ := metricstest.Find(samples, "ttt_interactions_total", "type", discordgo.InteractionApplicationCommand.String(), "outcome", metrics.OutcomeOK)
	inline, _ := metricstest.Find(samples, "ttt_http_first_response_seconds_count", "response", "inline")
	pongs, _ := metricstest.Find(samples, "ttt_http_first_response_seconds_count", "response", "pong")
	if cmds != 1 || clicks < 3 || inline != cmds+clicks || pongs != 1 {
		t.Fatalf("metrics: %v commands, %v clicks, %v inline answers, %v pongs; want 1, >= 3, all inline, 1", cmds, clicks, inline, pongs)
	}
	if sum, _ := metricstest.Find(samples, "ttt_http_first_response_seconds_sum", "response", "inline"); inline > 0 {
		t.Logf("%v inline answers, mean %.2f ms", inline, 1000*sum/inline)
	}
	if n, _ := metricstest.Find(samples, "ttt_ai_move_seconds_count", "level", "perfect"); n < clicks-1 {
		t.Errorf("%v AI moves timed for %v clicks", n, clicks)
	}
	if n, ok := metricstest.Find(samples, "ttt_http_interactions_total", "status", "401"); !ok || n != 1 {
		t.Errorf("want the one forged PING of VerifyEndpoint counted as 401, got %v", n)
	}
}

// TestHTTPTwoProcesses serves one game from two bot processes (two Bots
// on two Stores on one redis, behind two endpoints), alternating.
func TestHTTPTwoProcesses(t *testing.T) {
	t.Parallel()
	e, procs := newHTTPE2E(t, 2, bot.Options{Rand: mrand.New(mrand.NewPCG(5, 6))}, httpmode.EndpointOptions{})
	n := 0
	end := playVsAI(e, "minimax", func() {
		e.srv.SetInteractionsURL(procs[n%2].url)
		n++
	})
	if end.Status != persistence.StatusFinished || end.Result == game.XWins {
		t.Fatalf("game ended %s with %q, want a draw or a loss against minimax", end.Status, end.Result)
	}
	drain(t, e, procs)
	e.noFailures()
	if a, b := procs[0].served(t), procs[1].served(t); a+b != n || a < 2 || b < 2 {
		t.Fatalf("processes served %d and %d of %d interactions, want them shared", a, b, n)
	}
	for _, guild := range []string{e2eGuild, ""} {
		st, err := e.store.Stats(e.ctx, guild, alice)
		if err != nil || st.Games != 1 {
			t.Fatalf("stats in %q: %+v, %v; want one game recorded once", guild, st, err)
		}
	}
}

// TestHTTPDeferred answers with a deferral when the Bot is slower than
// AnswerWithin; its answer then arrives as an edit.
func TestHTTPDeferred(t *testing.T) {
	t.Parallel()
	e, procs := newHTTPE2E(t, 1, bot.Options{}, httpmode.EndpointOptions{AnswerWithin: time.Nanosecond})
	d, err := e.srv.Command(e.ctx, fakediscord.CommandSpec{Actor: actor(alice), Name: command.Name,
		Options: []fakediscord.Option{{Name: command.SubHelp, Type: discordgo.ApplicationCommandOptionSubCommand}}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := d.Wait(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.Type == int(discordgo.InteractionResponseDeferredChannelMessageWithSource) {
		if r, err = d.Wait(e.ctx); err != nil || r.Kind != fakediscord.KindEditOriginal {
			t.Fatalf("after the deferral: %+v, %v; want an edit", r, err)
		}
	}
	if r.Message == nil || !strings.Contains(r.Message.Content, "/ttt vs-ai") {
		t.Fatalf("help shows %+v", r.Message)
	}
	drain(t, e, procs)
	e.noFailures()
	if deferred, _ := metricstest.Find(scrape(t, procs[0]), "ttt_http_first_response_seconds_count", "response", "deferred"); deferred != 1 {
		t.Logf("the Bot beat a 1 ns deadline: answered inline") // legal, rare
	}
}

// TestEndpointRefuses checks the requests an endpoint must refuse, signed
// with a key of the test's own.
func TestEndpointRefuses(t *testing.T) {
	t.Parallel()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	_, other, _ := ed25519.GenerateKey(rand.Reader)
	now := time.Unix(1_800_000_000, 0)
	cat, _ := i18n.NewCatalog()
	signer, _ := customid.NewSigner([]byte("e2e-custom-id-key-0123456789abcd"))
	// A Store on a Redis that is never reached: nothing here gets that far.
	store := persistence.New(redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}), persistence.Options{})
	b, err := bot.New(bot.Deps{Discord: httpmode.NewInlineDiscord(&stubDiscord{}), Store: store, Levels: ai.NewRegistry(),
		Catalog: cat, Signer: signer, Logger: slog.New(slog.DiscardHandler), AppID: "1"}, bot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ep, err := httpmode.NewEndpoint(b, b.Inline(), pub, httpmode.EndpointOptions{Now: func() time.Time { return now }, MaxBody: 4096})
	if err != nil {
		t.Fatal(err)
	}
	ping := []byte(`{"id":"1","application_id":"1","type":1,"token":"t","version":1}`)
	sign := func(key ed25519.PrivateKey, ts string, body []byte) string {
		return hex.EncodeToString(ed25519.Sign(key, append([]byte(ts), body...)))
	}
	unix := func(d time.Duration) string { return strconv.FormatInt(now.Add(d).Unix(), 10) }
	for _, tt := range []struct {
		name    string
		method  string
		body    []byte
		ts, sig string
		status  int
	}{
		{"signed ping", "POST", ping, unix(0), sign(priv, unix(0), ping), 200},
		{"a minute late", "POST", ping, unix(-time.Minute), sign(priv, unix(-time.Minute), ping), 200},
		{"forged signature", "POST", ping, unix(0), sign(other, unix(0), ping), 401},
		{"signature of another timestamp", "POST", ping, unix(0), sign(priv, unix(-1), ping), 401},
		{"stale timestamp", "POST", ping, unix(-10 * time.Minute), sign(priv, unix(-10*time.Minute), ping), 401},
		{"future timestamp", "POST", ping, unix(10 * time.Minute), sign(priv, unix(10*time.Minute), ping), 401},
		{"no signature", "POST", ping, unix(0), "", 401},
		{"malformed signature", "POST", ping, unix(0), "zz", 401},
		{"timestamp not a number", "POST", ping, "soon", sign(priv, "soon", ping), 401},
		{"oversized body", "POST", bytes.Repeat([]byte(" "), 5000), unix(0), sign(priv, unix(0), bytes.Repeat([]byte(" "), 5000)), 413},
		{"not JSON", "POST", []byte("hello"), unix(0), sign(priv, unix(0), []byte("hello")), 400},
		{"GET", "GET", nil, unix(0), "", 405},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, "/interactions", bytes.NewReader(tt.body))
			req.Header.Set(httpmode.HeaderTimestamp, tt.ts)
			req.Header.Set(httpmode.HeaderSignature, tt.sig)
			rec := httptest.NewRecorder()
			ep.ServeHTTP(rec, req)
			if rec.Code != tt.status {
				t.Fatalf("status %d %q, want %d", rec.Code, rec.Body.String(), tt.status)
			}
			if tt.status == 200 && strings.TrimSpace(rec.Body.String()) != `{"type":1}` {
				t.Fatalf("PING answered %q", rec.Body.String())
			}
		})
	}
}

// TestEndpointStaleClock shows a bot whose clock is far off failing
// Discord's endpoint verification, and NewEndpoint's checks.
func TestEndpointStaleClock(t *testing.T) {
	t.Parallel()
	e, _ := newHTTPE2E(t, 1, bot.Options{}, httpmode.EndpointOptions{})
	b, err := bot.New(bot.Deps{Discord: httpmode.NewInlineDiscord(&stubDiscord{}), Store: e.store, Levels: ai.NewRegistry(),
		Catalog: e.cat, Signer: e.signer, Logger: slog.New(slog.DiscardHandler), AppID: "1"}, bot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	late, err := httpmode.NewEndpoint(b, b.Inline(), e.srv.PublicKey(), httpmode.EndpointOptions{Now: func() time.Time { return time.Now().Add(time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(late)
	t.Cleanup(hs.Close)
	if err := e.srv.VerifyEndpoint(e.ctx, hs.URL); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("an endpoint an hour ahead passed verification: %v", err)
	}
	if _, err := httpmode.NewEndpoint(e.bot, e.bot.Inline(), e.srv.PublicKey()[:8], httpmode.EndpointOptions{}); err == nil {
		t.Error("a short public key was accepted")
	}
	gw, _ := bot.New(bot.Deps{Discord: &stubDiscord{}, Store: e.store, Levels: ai.NewRegistry(),
		Catalog: e.cat, Signer: e.signer, Logger: slog.New(slog.DiscardHandler), AppID: "1"}, bot.Options{})
	if _, err := httpmode.NewEndpoint(gw, gw.Inline(), e.srv.PublicKey(), httpmode.EndpointOptions{}); err == nil {
		t.Error("a Bot without an InlineDiscord was accepted")
	}
	if _, err := httpmode.ParsePublicKey(e.srv.PublicKeyHex()); err != nil {
		t.Errorf("ParsePublicKey: %v", err)
	}
	if _, err := httpmode.ParsePublicKey("abc"); err == nil {
		t.Error("ParsePublicKey accepted abc")
	}
}

// TestHTTPShutdownDrains shuts an endpoint down while an AI thinks after
// the inline answer: Shutdown returns once the board is edited, and later
// requests are refused.
func TestHTTPShutdownDrains(t *testing.T) {
	t.Parallel()
	e, procs := newHTTPE2E(t, 1, bot.Options{Rand: mrand.New(mrand.NewPCG(3, 4)), MoveTimeout: 50 * time.Millisecond}, httpmode.EndpointOptions{})
	r, d := e.command(alice, command.SubVsAI, fakediscord.Option{Name: "level", Value: "minimax"},
		fakediscord.Option{Name: "first", Value: "ai"}, fakediscord.Option{Name: "time-ms", Value: 300})
	if r.Type != int(discordgo.InteractionResponseChannelMessageWithSource) {
		t.Fatalf("first response type %d", r.Type)
	}
	if err := procs[0].endpoint.Shutdown(e.ctx); err != nil {
		t.Fatal(err)
	}
	rs := d.Responses()
	if last := rs[len(rs)-1]; last.Kind != fakediscord.KindEditOriginal {
		t.Fatalf("after Shutdown the last response is %s, want the edit with the AI's move", last.Kind)
	}
	d2, err := e.srv.Command(e.ctx, fakediscord.CommandSpec{Actor: actor(alice), Name: command.Name,
		Options: []fakediscord.Option{{Name: command.SubHelp, Type: discordgo.ApplicationCommandOptionSubCommand}}})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := d2.Wait(e.ctx); err == nil || !strings.Contains(r.Error, "503") {
		t.Fatalf("a command after Shutdown: %+v, %v; want a failure with 503", r, err)
	}
	if n, _ := metricstest.Find(scrape(t, procs[0]), "ttt_ai_move_seconds_count", "level", "minimax"); n != 1 {
		t.Fatalf("%v minimax moves timed, want 1", n)
	}
	e.noFailures()
}

// FuzzEndpoint feeds the endpoint arbitrary requests: it must never
// panic, and never pass one it did not sign.
func FuzzEndpoint(f *testing.F) {
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		f.Fatal(err)
	}
	cat, _ := i18n.NewCatalog()
	signer, _ := customid.NewSigner([]byte("e2e-custom-id-key-0123456789abcd"))
	store := persistence.New(redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}), persistence.Options{})
	b, err := bot.New(bot.Deps{Discord: httpmode.NewInlineDiscord(&stubDiscord{}), Store: store, Levels: ai.NewRegistry(),
		Catalog: cat, Signer: signer, Logger: slog.New(slog.DiscardHandler), AppID: "1"}, bot.Options{})
	if err != nil {
		f.Fatal(err)
	}
	ep, err := httpmode.NewEndpoint(b, b.Inline(), pub, httpmode.EndpointOptions{MaxBody: 1024})
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(`{"type":1}`), "1800000000", strings.Repeat("00", 64))
	f.Add([]byte(`{"type":2,"id":"5"}`), "x", "zz")
	f.Fuzz(func(t *testing.T, body []byte, ts, sig string) {
		req := httptest.NewRequest("POST", "/", bytes.NewReader(body))
		req.Header.Set(httpmode.HeaderTimestamp, ts)
		req.Header.Set(httpmode.HeaderSignature, sig)
		rec := httptest.NewRecorder()
		ep.ServeHTTP(rec, req)
		if rec.Code != 401 && rec.Code != 413 {
			t.Fatalf("an unsigned request got %d", rec.Code)
		}
	})
}

// TestHTTPDeferredClick: every answer is deferred (the Bot is always
// slower than AnswerWithin). A stranger's click on a board, deferred as
// an update of the board, is refused in a private follow-up, and the
// board is left as it was; the player's own click then updates it.
func TestHTTPDeferredClick(t *testing.T) {
	t.Parallel()
	e, procs := newHTTPE2E(t, 1, bot.Options{Rand: mrand.New(mrand.NewPCG(5, 6))}, httpmode.EndpointOptions{AnswerWithin: time.Nanosecond})
	// until waits for d's response that ok accepts.
	until := func(d *fakediscord.Delivery, what string, ok func(fakediscord.Response) bool) fakediscord.Response {
		t.Helper()
		for {
			r, err := d.Wait(e.ctx)
			if err != nil {
				t.Fatalf("waiting for %s: %v", what, err)
			}
			if ok(r) {
				return r
			}
		}
	}
	d, err := e.srv.Command(e.ctx, fakediscord.CommandSpec{Actor: actor(alice), Name: command.Name,
		Options: []fakediscord.Option{{Name: command.SubVsAI, Type: discordgo.ApplicationCommandOptionSubCommand,
			Options: []fakediscord.Option{{Name: "level", Value: "random"}, {Name: "first", Value: "me"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	r := until(d, "the board", func(r fakediscord.Response) bool { return r.Message != nil && len(r.Message.Buttons()) > 0 })
	board := *r.Message
	e.tracked(&board)

	rc, dc := e.click(bob, board.ID, e.cells(&board)[game.NewCell(1, 1)].CustomID)
	if rc.Type != int(discordgo.InteractionResponseDeferredMessageUpdate) {
		t.Fatalf("the stranger's click answered type %d first; want a deferred update", rc.Type)
	}
	refusal := until(dc, "the refusal", func(r fakediscord.Response) bool { return r.Kind != fakediscord.KindCallback })
	want := e.cat.Text(i18n.DefaultLocale, render.KeyNotYourGame)
	if refusal.Kind != fakediscord.KindFollowup || refusal.Message == nil || !refusal.Message.Ephemeral || refusal.Message.Content != want {
		t.Fatalf("the refusal: %s %+v; want a private follow-up %q", refusal.Kind, refusal.Message, want)
	}
	if m, _ := e.srv.Message(board.ID); m.Content != board.Content || len(m.Buttons()) != len(board.Buttons()) {
		t.Fatalf("the refusal changed the board: %q, was %q", m.Content, board.Content)
	}

	_, dm := e.click(alice, board.ID, e.cells(&board)[game.NewCell(1, 1)].CustomID)
	moved := until(dm, "the move", func(r fakediscord.Response) bool { return r.Kind != fakediscord.KindCallback })
	if moved.Kind != fakediscord.KindEditOriginal || moved.Message == nil || moved.Message.ID != board.ID || !moved.Message.Buttons()[4].Disabled {
		t.Fatalf("the move: %s on %+v; want the board %s edited, b2 taken", moved.Kind, moved.Message, board.ID)
	}
	drain(t, e, procs)
	e.noFailures()
}
