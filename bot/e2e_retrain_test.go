package bot_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/ai/nn/nntest"
	"github.com/tttbot/ttt-bot/ai/train"
	"github.com/tttbot/ttt-bot/bot"
	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/bot/rest"
	"github.com/tttbot/ttt-bot/bot/settings"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
	"github.com/tttbot/ttt-bot/retrain"
	"github.com/tttbot/ttt-bot/sched"
)

// retrainTimeout bounds the retrain end-to-end test, which trains twice.
const retrainTimeout = 90 * time.Second

// settableClock is a clock the test moves forward (the fake Discord's, to
// expire interaction tokens).
type settableClock struct {
	mu sync.Mutex
	d  time.Duration
}

func (c *settableClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.d)
}

func (c *settableClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.d += d
}

// modelProcess is one bot process's networks: its own Store, nn.Set and
// ModelWatcher, and an AI registry with the neural levels on that set.
type modelProcess struct {
	store  *persistence.Store
	set    *nn.Set
	levels *ai.Registry
}

// startModelProcess starts a process's ModelWatcher on the test's Redis
// until the test ends.
func startModelProcess(t *testing.T, ctx context.Context, rsrv *persistence.Server, defaults func(string) ([]byte, error), logs *syncBuffer) *modelProcess {
	t.Helper()
	store := persistence.New(redistest.Client(t, rsrv), persistence.Options{PseudonymKey: e2ePseudonymKey})
	set := nn.NewSet()
	w := retrain.NewModelWatcher(store, set, defaults, settings.PresetKeys(), slog.New(slog.NewTextHandler(logs, nil)))
	if err := w.Load(ctx); err != nil {
		t.Fatalf("ModelWatcher.Load: %v", err)
	}
	wctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.Run(wctx)
	}()
	t.Cleanup(func() {
		stop()
		<-done
	})
	reg := ai.NewRegistry()
	reg.Register(ai.NeuralLevel(set))
	reg.Register(ai.HumanlikeLevel(set))
	return &modelProcess{store: store, set: set, levels: reg}
}

// retrainJobConfig is a retrain small enough for a test: a tiny network,
// three epochs, no self-play, two gate games against random, and a margin
// that promotes every candidate.
func retrainJobConfig(owner string, defaults func(string) ([]byte, error)) retrain.Config {
	return retrain.Config{
		Owner:    owner,
		Lease:    5 * time.Second,
		CPUShare: 0.5,
		Gate:     retrain.Gate{Games: 2, Margin: 1, Baselines: []string{"random"}},
		Train: train.Config{Arch: nn.Arch{Hidden: []int{8}}, Epochs: 3, SelfPlay: -1, Seed: 7,
			EvalGames: -1, MCTSIterations: 50},
		Defaults: defaults,
	}
}

// newRetrainE2E builds the bot of process 1 (gateway to the fake Discord,
// networks, a retrain job with cfg, a running RunSweeper loop) and returns
// it with the fake's clock and the function that stops the loop. The
// bot's Discord is the session, or what wrap makes of it if wrap is set.
func newRetrainE2E(t *testing.T, ctx context.Context, rsrv *persistence.Server, p *modelProcess, cfg retrain.Config, wrap func(rest.Discord) rest.Discord) (*e2e, *settableClock, func()) {
	t.Helper()
	clk := &settableClock{}
	cat, signer := e2eCatalogSigner(t)
	srv := fakediscord.New(t, fakediscord.Options{Now: clk.Now})
	logs := &syncBuffer{}
	e := &e2e{t: t, ctx: ctx, srv: srv, cat: cat, signer: signer, logs: logs, redis: rsrv, store: p.store}
	ses, err := srv.Session()
	if err != nil {
		t.Fatal(err)
	}
	var dc rest.Discord = ses
	if wrap != nil {
		dc = wrap(ses)
	}
	b, err := bot.New(bot.Deps{
		Discord: dc, Store: p.store, Levels: p.levels, Catalog: cat, Signer: signer,
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		AppID:  srv.AppID(), Models: p.set, Retrain: retrain.New(p.store, cfg),
	}, bot.Options{Rand: rand.New(rand.NewPCG(41, 42)), ProgressEvery: 20 * time.Millisecond, RateBurst: -1})
	if err != nil {
		t.Fatal(err)
	}
	ses.AddHandler(func(_ *discordgo.Session, i *discordgo.InteractionCreate) { b.HandleInteraction(ctx, i) })
	if err := ses.Open(); err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		wctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
		defer cancel()
		_, _ = srv.WaitGateway(wctx, func(g fakediscord.GatewayState) bool { return g.ConnHeartbeats > 0 })
		_ = ses.Close()
	})
	if _, err := srv.WaitGateway(ctx, func(g fakediscord.GatewayState) bool { return g.Connected == 1 && g.ConnHeartbeats > 0 }); err != nil {
		t.Fatalf("gateway did not connect: %v", err)
	}
	e.ses, e.bot = ses, b
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("bot logs:\n%s", logs.String())
		}
	})
	if err := b.Register(ctx, e2eGuild); err != nil {
		t.Fatal(err)
	}
	stop := e.sweeper(50 * time.Millisecond)
	return e, clk, stop
}

// admin runs /ttt-admin sub as user with perms and returns the delivery
// and its first response.
func (e *e2e) admin(user string, perms int64, sub string, opts ...fakediscord.Option) (fakediscord.Response, *fakediscord.Delivery) {
	e.t.Helper()
	a := actor(user)
	a.Permissions = perms
	d, err := e.srv.Command(e.ctx, fakediscord.CommandSpec{Actor: a, Name: command.AdminName,
		Options: []fakediscord.Option{{Name: sub, Type: discordgo.ApplicationCommandOptionSubCommand, Options: opts}}})
	if err != nil {
		e.t.Fatalf("/ttt-admin %s: %v", sub, err)
	}
	return e.wait(d), d
}

// playVsRandom plays a whole game as user against the random level,
// clicking the first empty cell each turn.
func (e *e2e) playVsRandom(user string) {
	e.t.Helper()
	r, _ := e.command(user, command.SubVsAI, fakediscord.Option{Name: "level", Value: "random"}, fakediscord.Option{Name: "first", Value: "me"})
	cur := r.Message
	for range 10 {
		var pick fakediscord.Component
		for c := range game.Cell(64) {
			if b, ok := e.cells(cur)[c]; ok && !b.Disabled {
				pick = b
				break
			}
		}
		if pick.CustomID == "" {
			return
		}
		r, _ = e.click(user, cur.ID, pick.CustomID)
		cur = r.Message
	}
	e.t.Fatal("game did not end")
}

// waitReport follows d's edits until one shows an embed (the report),
// checking that some progress was shown before, and returns it.
func (e *e2e) waitReport(d *fakediscord.Delivery) fakediscord.Response {
	e.t.Helper()
	progress := 0
	for {
		r, err := d.Wait(e.ctx)
		if err != nil {
			e.t.Fatalf("retrain message: %v (after %d progress edits)", err, progress)
		}
		if r.Kind != fakediscord.KindEditOriginal {
			e.t.Fatalf("retrain message: %s, want edits of the original", r.Kind)
		}
		if len(r.Message.Embeds) > 0 {
			if progress == 0 {
				e.t.Error("the report came without any progress shown before")
			}
			return r
		}
		if !strings.Contains(r.Message.Content, "🧠") {
			e.t.Fatalf("progress edit %q", r.Message.Content)
		}
		progress++
	}
}

// wantChartReport checks that m shows a promoted report as version v
// with the PNG chart attached and shown as the embed's image.
func (e *e2e) wantChartReport(m *fakediscord.Message, v int64) {
	e.t.Helper()
	if len(m.Embeds) != 1 {
		e.t.Fatalf("report has %d embeds, want 1", len(m.Embeds))
	}
	em := m.Embeds[0]
	if want := e.cat.Text(i18n.DefaultLocale, "retrain.promoted", "version", fmt.Sprint(v)); em.Description != want {
		e.t.Fatalf("report says %q, want %q (fields %+v)", em.Description, want, em.Fields)
	}
	if em.Image == nil || em.Image.URL != "attachment://"+render.ChartName {
		e.t.Fatalf("report image %+v, want attachment://%s", em.Image, render.ChartName)
	}
	a, ok := m.Attachment(render.ChartName)
	if !ok || a.ContentType != "image/png" || !bytes.HasPrefix(a.Data, []byte("\x89PNG\r\n\x1a\n")) {
		e.t.Fatalf("attachment %s: %v %q %d bytes, want a PNG", render.ChartName, ok, a.ContentType, len(a.Data))
	}
	if m.Content != "" {
		e.t.Fatalf("report content %q, want the progress text gone", m.Content)
	}
}

// TestE2ERetrain is the learning loop end to end with the fake Discord and
// a private redis-server: people play, a moderator retrains (a member may
// not; a second trigger while one runs is refused), the command answers
// at once, shows progress and ends with the report and its chart; both
// bot processes switch to the new network, the neural level plays it,
// a retrain that outlives the interaction token still ends with its
// report, and a rollback takes both processes back.
func TestE2ERetrain(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), retrainTimeout)
	defer cancel()
	rsrv := redistest.Start(t)
	defaults := nntest.Shipped(t, "3x3k3")
	watchLogs := &syncBuffer{}
	p1 := startModelProcess(t, ctx, rsrv, defaults, watchLogs)
	p2 := startModelProcess(t, ctx, rsrv, defaults, watchLogs) // another bot process
	for _, p := range []*modelProcess{p1, p2} {
		if got := nntest.LiveVersion(p.set, "3x3k3"); got != "shipped-test" {
			t.Fatalf("at start the 3x3 network is %q, want the shipped one", got)
		}
	}
	e, clk, _ := newRetrainE2E(t, ctx, rsrv, p1, retrainJobConfig("bot-1", defaults), nil)
	wantCommands(t, e)
	const mod = discordgo.PermissionManageGuild | fakediscord.DefaultPermissions

	// People play.
	e.playVsRandom(alice)
	e.playVsRandom(bob)

	// No network for 4x4: the neural level says so, and where it plays.
	r, _ := e.command(alice, command.SubVsAI, fakediscord.Option{Name: "level", Value: "neural"}, fakediscord.Option{Name: "board", Value: "4x4k4"})
	if want := e.cat.Text(i18n.DefaultLocale, "error.no_model_boards", "level", e.cat.Text(i18n.DefaultLocale, "level.neural"),
		"rules", rulesText(t, e.cat, i18n.DefaultLocale, "4x4k4"), "boards", rulesText(t, e.cat, i18n.DefaultLocale, "3x3k3")); r.Message.Content != want || !r.Message.Ephemeral {
		t.Fatalf("neural on 4x4 answered %q, want an ephemeral %q", r.Message.Content, want)
	}

	// A member who is not a moderator is refused even where the server
	// shows them the command.
	cmds := e.bot.Commands()
	for _, c := range cmds {
		if c.Name == command.AdminName {
			c.DefaultMemberPermissions = nil
		}
	}
	if _, err := e.ses.ApplicationCommandBulkOverwrite(e.srv.AppID(), e2eGuild, cmds); err != nil {
		t.Fatal(err)
	}
	r, _ = e.admin(bob, 0, command.SubRetrain)
	e.wantReply(r, bot.KeyNotModerator)
	r, _ = e.admin(bob, 0, command.SubModel, fakediscord.Option{Name: "rollback", Value: true})
	e.wantReply(r, bot.KeyNotModerator)

	// Two games are fewer than the job's minimum: every retrain here is
	// forced (TestE2ERetrainTooFewGames has the refusals).
	force := fakediscord.Option{Name: "force", Value: true}

	// Another process is retraining: refused at once.
	lock, err := p2.store.AcquireLock(ctx, retrain.LockName, "bot-2", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	r, _ = e.admin(alice, mod, command.SubRetrain, force)
	e.wantReply(r, render.KeyRetrainRunning)
	if err := p2.store.ReleaseLock(ctx, lock); err != nil {
		t.Fatal(err)
	}

	// The retrain: an answer at once, progress, then the report.
	r, d := e.admin(alice, mod, command.SubRetrain, force)
	rules := e.cat.Text(i18n.DefaultLocale, "rules.kinarow", "rows", "3", "cols", "3", "k", "3")
	if want := e.cat.Text(i18n.DefaultLocale, "retrain.started", "rules", rules, "user", mentionOf(alice)); r.Message.Content != want || r.Message.Ephemeral {
		t.Fatalf("retrain answered %q (ephemeral %v), want a public %q", r.Message.Content, r.Message.Ephemeral, want)
	}
	report := e.waitReport(d)
	e.wantChartReport(report.Message, 1)
	games := e.cat.Text(i18n.DefaultLocale, "retrain.games", "games", e.cat.Plural(i18n.DefaultLocale, "count.games", 2), "new", "2", "human", "2")
	if f := report.Message.Embeds[0].Fields; len(f) == 0 || f[0].Value != games {
		t.Fatalf("report fields %+v, want first %q", f, games)
	}
	// The server's audit log says the retrain was forced.
	if log, err := p1.store.AuditLog(ctx, e2eGuild, 1); err != nil || len(log) != 1 || log[0].Action != "retrain" || log[0].Detail != "3x3k3 forced" {
		t.Fatalf("audit log %+v %v, want the forced retrain of 3x3k3 last", log, err)
	}
	for i, p := range []*modelProcess{p1, p2} {
		nntest.WaitVersion(t, ctx, p.set, "3x3k3", "redis-1")
		if p.set.Net(game.Classic()).Arch().Hidden[0] != 8 {
			t.Fatalf("process %d plays a network of shape %v, want the retrained [8]", i+1, p.set.Net(game.Classic()).Arch().Hidden)
		}
	}
	// The second process's neural level plays the new network.
	pl, err := p2.levels.New("neural", ai.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pl.Move(ctx, game.NewPosition(game.Classic())); err != nil {
		t.Fatalf("neural move in process 2: %v", err)
	}
	r, _ = e.command(alice, command.SubVsAI, fakediscord.Option{Name: "level", Value: "neural"}, fakediscord.Option{Name: "first", Value: "ai"})
	if r.Message.Ephemeral || len(e.cells(r.Message)) != 9 {
		t.Fatalf("neural on 3x3 answered %q, want a board", r.Message.Content)
	}
	e.command(alice, command.SubResign)

	// A retrain that outlives its interaction token (15 minutes) still
	// ends with its report.
	e.playVsRandom(alice)
	e.retrainPastToken(clk, 2)
	for _, p := range []*modelProcess{p1, p2} {
		nntest.WaitVersion(t, ctx, p.set, "3x3k3", "redis-2")
	}

	// /ttt-admin model shows it; rollback takes every process back.
	r, _ = e.admin(alice, mod, command.SubModel)
	if !r.Message.Ephemeral || !strings.Contains(r.Message.Content, "version 2, published") {
		t.Fatalf("model answered %q", r.Message.Content)
	}
	r, _ = e.admin(alice, mod, command.SubModel, fakediscord.Option{Name: "rollback", Value: true})
	if !strings.HasPrefix(r.Message.Content, "↩️ "+mentionOf(alice)) || !strings.Contains(r.Message.Content, "version 1") || r.Message.Ephemeral {
		t.Fatalf("rollback answered %q, want a public message naming version 1", r.Message.Content)
	}
	for _, p := range []*modelProcess{p1, p2} {
		nntest.WaitVersion(t, ctx, p.set, "3x3k3", "redis-1")
	}
	r, _ = e.admin(alice, mod, command.SubModel, fakediscord.Option{Name: "rollback", Value: true})
	if want := e.cat.Text(i18n.DefaultLocale, "model.no_rollback", "rules", rules); r.Message.Content != want || !r.Message.Ephemeral {
		t.Fatalf("second rollback answered %q, want %q", r.Message.Content, want)
	}
	e.noFailures()
	if l := watchLogs.String(); strings.Contains(l, "level=ERROR") {
		t.Fatalf("the model watchers logged errors:\n%s", l)
	}
}

// TestE2ERetrainShutdown checks that a retrain running when the bot shuts
// down (its RunSweeper loop stops) is stopped promptly, publishes
// nothing, releases the lock, and says so on its message.
func TestE2ERetrainShutdown(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), retrainTimeout)
	defer cancel()
	rsrv := redistest.Start(t)
	p := startModelProcess(t, ctx, rsrv, nil, &syncBuffer{})
	cfg := retrainJobConfig("bot-1", nil)
	cfg.Train.Epochs = 1_000_000 // it never ends on its own
	e, _, stop := newRetrainE2E(t, ctx, rsrv, p, cfg, nil)
	e.playVsRandom(alice)
	const mod = discordgo.PermissionManageGuild | fakediscord.DefaultPermissions
	_, d := e.admin(alice, mod, command.SubRetrain, fakediscord.Option{Name: "force", Value: true}) // one game
	for {
		r, err := d.Wait(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(r.Message.Content, e.cat.Text(i18n.DefaultLocale, "retrain.stage.training")) {
			break
		}
	}
	start := time.Now()
	stop() // waits for RunSweeper, which waits for the retrain
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("shutdown took %s with a retrain running", took)
	}
	var last fakediscord.Response
	for _, r := range d.Responses() {
		last = r
	}
	if last.Message == nil || len(last.Message.Embeds) != 1 || last.Message.Embeds[0].Description != e.cat.Text(i18n.DefaultLocale, "retrain.stopped") {
		t.Fatalf("after shutdown the retrain message is %+v", last.Message)
	}
	if _, err := p.store.CurrentModelVersion(ctx, "3x3k3"); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("a stopped retrain published a model: %v", err)
	}
	lock, err := p.store.AcquireLock(ctx, retrain.LockName, "bot-2", time.Minute)
	if err != nil {
		t.Fatalf("the retrain lock was not released: %v", err)
	}
	_ = p.store.ReleaseLock(ctx, lock)
	e.noFailures()
}

// TestE2ERetrainTooFewGames checks the refusal of an unforced retrain on a
// board with fewer new games than the job's minimum: answered privately
// before anything starts when the bot's own count sees it, and on the
// public message when the job sees it only under its lock (the games were
// used by another run in between); either way nothing is trained or
// published, and the lock is free again.
func TestE2ERetrainTooFewGames(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), retrainTimeout)
	defer cancel()
	rsrv := redistest.Start(t)
	p := startModelProcess(t, ctx, rsrv, nil, &syncBuffer{})
	cfg := retrainJobConfig("bot-1", nil)
	cfg.MinNewGames = 2
	// The job runs on a one-slot queue the test can hold, to let another
	// run use the games between the bot's count and the job's.
	pool := sched.New(sched.Options{Workers: 1})
	cfg.Pool = pool
	e, _, _ := newRetrainE2E(t, ctx, rsrv, p, cfg, nil)
	const mod = discordgo.PermissionManageGuild | fakediscord.DefaultPermissions
	rules := e.cat.Text(i18n.DefaultLocale, "rules.kinarow", "rows", "3", "cols", "3", "k", "3")
	nothingPublished := func() {
		t.Helper()
		if _, err := p.store.CurrentModelVersion(ctx, "3x3k3"); !errors.Is(err, persistence.ErrNotFound) {
			t.Fatalf("a refused retrain published a model: %v", err)
		}
		if metas, _, err := p.store.ModelVersions(ctx, "3x3k3"); err != nil || len(metas) != 0 {
			t.Fatalf("a refused retrain kept a model: %+v %v", metas, err)
		}
	}

	// One new game, two needed: refused privately at once; nothing shown
	// in the channel, nothing audited.
	e.playVsRandom(alice)
	r, d := e.admin(alice, mod, command.SubRetrain)
	e.wantReplyIn(r, i18n.DefaultLocale, render.KeyRetrainTooFew, "rules", rules, "new", "1", "min", "2")
	if n := len(d.Responses()); n != 1 {
		t.Fatalf("the refused retrain has %d responses, want only the reply", n)
	}
	if log, err := p.store.AuditLog(ctx, e2eGuild, 10); err != nil || len(log) != 0 {
		t.Fatalf("audit log %+v %v, want nothing for a refused retrain", log, err)
	}
	nothingPublished()

	// Two new games when the bot counts them, none by the time the job
	// reads them: the message that said "started" says why nothing was
	// trained.
	e.playVsRandom(bob)
	hold, held := make(chan struct{}), make(chan struct{})
	go func() {
		_ = pool.Do(ctx, sched.Job{Class: sched.Interactive, User: "test"}, func(context.Context, sched.Start) error {
			close(held)
			<-hold
			return nil
		})
	}()
	<-held
	r, d = e.admin(alice, mod, command.SubRetrain)
	if want := e.cat.Text(i18n.DefaultLocale, "retrain.started", "rules", rules, "user", mentionOf(alice)); r.Message.Content != want {
		t.Fatalf("retrain answered %q, want %q", r.Message.Content, want)
	}
	last, err := p.store.ScanCorpus(ctx, "3x3k3", "0", func(persistence.CorpusEntry) error { return nil }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.store.AdvanceCheckpoint(ctx, "3x3k3", retrain.Consumer, last); err != nil {
		t.Fatal(err)
	}
	close(hold)
	want := e.cat.Text(i18n.DefaultLocale, render.KeyRetrainTooFew, "rules", rules, "new", "0", "min", "2")
	for {
		r, err := d.Wait(ctx)
		if err != nil {
			t.Fatalf("the refusal never replaced the retrain message: %v", err)
		}
		if r.Message.Content == want && len(r.Message.Embeds) == 0 {
			break
		}
		if !strings.Contains(r.Message.Content, "🧠") {
			t.Fatalf("retrain message %q, want progress, then %q", r.Message.Content, want)
		}
	}
	nothingPublished()
	lock, err := p.store.AcquireLock(ctx, retrain.LockName, "bot-2", time.Minute)
	if err != nil {
		t.Fatalf("the retrain lock was not released: %v", err)
	}
	_ = p.store.ReleaseLock(ctx, lock)
	e.noFailures()
}

// retrainPastToken runs a retrain whose interaction token expires while
// it runs (the fake's clock jumps 16 minutes once progress shows) and
// checks that the report still replaces the message, through the channel
// API, as version v.
func (e *e2e) retrainPastToken(clk *settableClock, v int64) {
	e.t.Helper()
	const mod = discordgo.PermissionManageGuild | fakediscord.DefaultPermissions
	r, d := e.admin(alice, mod, command.SubRetrain, fakediscord.Option{Name: "board", Value: "3x3k3"}, fakediscord.Option{Name: "force", Value: true})
	msg := r.Message.ID
	if pr, err := d.Wait(e.ctx); err != nil || pr.Kind != fakediscord.KindEditOriginal {
		e.t.Fatalf("no progress before the token expired: %+v %v", pr, err)
	}
	clk.Advance(16 * time.Minute)
	m, err := e.srv.WaitMessage(e.ctx, e2eChannel, func(m fakediscord.Message) bool { return m.ID == msg && len(m.Embeds) > 0 })
	if err != nil {
		e.t.Fatalf("the report of a retrain past its token never showed: %v", err)
	}
	e.wantChartReport(&m, v)
	viaChannel := false
	for _, c := range e.srv.Calls() {
		viaChannel = viaChannel || c.Method == "PATCH" && c.Path == "/channels/"+e2eChannel+"/messages/"+msg && c.Status == 200
	}
	if !viaChannel {
		e.t.Fatal("the report did not go through the channel API")
	}
}

// TestE2ERetrainWithoutRead is the token expiry of TestE2ERetrain with a
// Discord that cannot read a response back (as in HTTP interactions
// mode): the bot learns the message's ID from its first edit.
func TestE2ERetrainWithoutRead(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), retrainTimeout)
	defer cancel()
	rsrv := redistest.Start(t)
	p := startModelProcess(t, ctx, rsrv, nil, &syncBuffer{})
	e, clk, _ := newRetrainE2E(t, ctx, rsrv, p, retrainJobConfig("bot-1", nil),
		func(d rest.Discord) rest.Discord { return struct{ rest.Discord }{d} })
	e.playVsRandom(alice)
	e.retrainPastToken(clk, 1)
	nntest.WaitVersion(t, ctx, p.set, "3x3k3", "redis-1")
	e.noFailures()
}
