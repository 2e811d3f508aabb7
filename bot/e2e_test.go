package bot_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/bot"
	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/bot/rest"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

const (
	e2eTimeout = 20 * time.Second
	e2eGuild   = "42"
	e2eChannel = "7"
	alice      = "100" // plays
	bob        = "200" // watches, and clicks what is not his
)

// e2e is a real Bot on a real discordgo session connected by gateway to a
// fake Discord, with a private redis-server behind the Store.
type e2e struct {
	t      *testing.T
	ctx    context.Context
	srv    *fakediscord.Server
	ses    *discordgo.Session
	bot    *bot.Bot
	store  *persistence.Store
	cat    *i18n.Catalog
	signer *customid.Signer
	logs   *syncBuffer
	// redis is the private redis-server behind store, for a second Store
	// (another process, or the bot after a restart).
	redis *persistence.Server
	// popts are the options of the Stores the test opens besides store
	// (a clock); PseudonymKey is set on each.
	popts persistence.Options

	mu         sync.Mutex
	deliveries []*fakediscord.Delivery
}

// syncBuffer is a log sink safe for the handler goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newE2E(t *testing.T, opts bot.Options) *e2e {
	t.Helper()
	return newE2EStore(t, opts, persistence.Options{})
}

// newE2EStore is newE2E with Store options (a clock).
func newE2EStore(t *testing.T, opts bot.Options, popts persistence.Options) *e2e {
	t.Helper()
	return newE2EWrapped(t, opts, popts, nil)
}

// newE2EWrapped is newE2EStore with the bot's Discord wrapped by wrap.
func newE2EWrapped(t *testing.T, opts bot.Options, popts persistence.Options, wrap func(rest.Discord) rest.Discord) *e2e {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	t.Cleanup(cancel)
	rsrv := redistest.Start(t)
	popts.PseudonymKey = e2ePseudonymKey
	store := persistence.New(redistest.Client(t, rsrv), popts)
	cat, signer := e2eCatalogSigner(t)
	srv := fakediscord.New(t, fakediscord.Options{})
	logs := &syncBuffer{}
	e := &e2e{t: t, ctx: ctx, srv: srv, cat: cat, signer: signer, logs: logs, redis: rsrv, popts: popts}
	e.openGateway(store, opts, wrap)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("bot logs:\n%s", logs.String())
		}
	})
	if err := e.bot.Register(ctx, e2eGuild); err != nil {
		t.Fatalf("Register: %v", err)
	}
	wantCommands(t, e)
	return e
}

// openGateway builds a Bot on store (its Discord wrapped by wrap, if not
// nil) behind a new discordgo session, connects it to the fake's gateway
// and makes it e's bot, session and store: at the start of a test, or as
// the bot process started again after a restart.
func (e *e2e) openGateway(store *persistence.Store, opts bot.Options, wrap func(rest.Discord) rest.Discord) {
	t := e.t
	t.Helper()
	ses, err := e.srv.Session()
	if err != nil {
		t.Fatal(err)
	}
	var dc rest.Discord = ses
	if wrap != nil {
		dc = wrap(ses)
	}
	b, err := bot.New(bot.Deps{
		Discord: dc, Store: store, Levels: ai.NewRegistry(), Catalog: e.cat, Signer: e.signer,
		Logger: slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		AppID:  e.srv.AppID(),
	}, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := e.ctx
	ses.AddHandler(func(_ *discordgo.Session, i *discordgo.InteractionCreate) { b.HandleInteraction(ctx, i) })
	if err := ses.Open(); err != nil {
		t.Fatalf("Open: %v", err)
	}
	srv := e.srv
	t.Cleanup(func() {
		wctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
		defer cancel()
		_, _ = srv.WaitGateway(wctx, func(g fakediscord.GatewayState) bool { return g.ConnHeartbeats > 0 })
		_ = ses.Close()
	})
	if _, err := srv.WaitGateway(ctx, func(g fakediscord.GatewayState) bool { return g.Connected == 1 && g.ConnHeartbeats > 0 }); err != nil {
		t.Fatalf("gateway did not connect: %v", err)
	}
	e.ses, e.bot, e.store = ses, b, store
}

// actor is user acting in the test channel.
func actor(user string) fakediscord.Actor {
	return fakediscord.Actor{Guild: e2eGuild, Channel: e2eChannel, User: fakediscord.User{ID: user}}
}

// command runs /ttt <sub> with options and returns the first response.
func (e *e2e) command(user, sub string, opts ...fakediscord.Option) (fakediscord.Response, *fakediscord.Delivery) {
	e.t.Helper()
	d, err := e.srv.Command(e.ctx, fakediscord.CommandSpec{Actor: actor(user), Name: command.Name,
		Options: []fakediscord.Option{{Name: sub, Type: discordgo.ApplicationCommandOptionSubCommand, Options: opts}}})
	if err != nil {
		e.t.Fatalf("/ttt %s: %v", sub, err)
	}
	return e.wait(d), d
}

// click clicks a button and returns the first response.
func (e *e2e) click(user, message, customID string) (fakediscord.Response, *fakediscord.Delivery) {
	e.t.Helper()
	d, err := e.srv.Click(e.ctx, fakediscord.ClickSpec{Actor: actor(user), MessageID: message, CustomID: customID})
	if err != nil {
		e.t.Fatalf("click %s: %v", customID, err)
	}
	return e.wait(d), d
}

func (e *e2e) wait(d *fakediscord.Delivery) fakediscord.Response {
	e.t.Helper()
	e.mu.Lock()
	e.deliveries = append(e.deliveries, d)
	e.mu.Unlock()
	r, err := d.Wait(e.ctx)
	if err != nil {
		var why []string
		for _, r := range d.Responses() {
			why = append(why, r.Error)
		}
		e.t.Fatalf("interaction %s: %v %q", d.ID(), err, why)
	}
	if r.Kind != fakediscord.KindCallback || r.Message == nil {
		e.t.Fatalf("interaction %s: first response %+v, want a callback with a message", d.ID(), r)
	}
	return r
}

// wantReply checks that r is an ephemeral reply with the text of key.
func (e *e2e) wantReply(r fakediscord.Response, key string) {
	e.t.Helper()
	want := e.cat.Text(i18n.DefaultLocale, key)
	if r.Type != int(discordgo.InteractionResponseChannelMessageWithSource) || !r.Message.Ephemeral || r.Message.Content != want {
		e.t.Fatalf("reply type %d ephemeral %v %q, want an ephemeral %q", r.Type, r.Message.Ephemeral, r.Message.Content, want)
	}
}

// noFailures checks that no interaction of the test showed "This
// interaction failed" or had a request refused, and nothing was logged as
// an internal error.
func (e *e2e) noFailures() {
	e.t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, d := range e.deliveries {
		if d.Failed() {
			e.t.Errorf("interaction %s failed", d.ID())
		}
		for _, r := range d.Responses() {
			if r.Kind == fakediscord.KindRejected || r.Kind == fakediscord.KindFailed {
				e.t.Errorf("interaction %s: %s %s", d.ID(), r.Kind, r.Error)
			}
		}
	}
	if logs := e.logs.String(); strings.Contains(logs, "level=ERROR") {
		e.t.Errorf("errors logged:\n%s", logs)
	}
}

// cells returns the board's move buttons by cell, decoded.
func (e *e2e) cells(m *fakediscord.Message) map[game.Cell]fakediscord.Component {
	e.t.Helper()
	out := map[game.Cell]fakediscord.Component{}
	for _, b := range m.Buttons() {
		id, err := e.signer.Decode(b.CustomID)
		if err != nil {
			e.t.Fatalf("button %q: %v", b.CustomID, err)
		}
		if id.Action == customid.ActionMove {
			out[id.Cell] = b
		}
	}
	return out
}

// button returns the button of action a on m.
func (e *e2e) button(m *fakediscord.Message, a customid.Action) (customid.ID, fakediscord.Component) {
	e.t.Helper()
	for _, b := range m.Buttons() {
		if id, err := e.signer.Decode(b.CustomID); err == nil && id.Action == a {
			return id, b
		}
	}
	e.t.Fatalf("no %s button on %q", a, m.Content)
	return customid.ID{}, fakediscord.Component{}
}

// post puts a message with one button of custom ID id in the channel, as
// an old or doctored board would be, and returns its ID.
func (e *e2e) post(id string) string {
	e.t.Helper()
	rows, err := json.Marshal([]discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		discordgo.Button{CustomID: id, Label: "x", Style: discordgo.SecondaryButton},
	}}})
	if err != nil {
		e.t.Fatal(err)
	}
	return e.srv.PostMessage(e2eGuild, e2eChannel, "board", rows).ID
}

// game returns the stored game of a board message.
func (e *e2e) game(m *fakediscord.Message) *persistence.Session {
	e.t.Helper()
	id, _ := e.button(m, customid.ActionMove)
	s, err := e.store.Game(e.ctx, id.Game)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// redeliver hands the bot the interaction of d again, as a gateway resume
// or a second replica would.
func (e *e2e) redeliver(d *fakediscord.Delivery) {
	e.t.Helper()
	var ic discordgo.InteractionCreate
	if err := json.Unmarshal(d.Payload(), &ic); err != nil {
		e.t.Fatal(err)
	}
	before := len(d.Responses())
	e.bot.HandleInteraction(e.ctx, &ic)
	if got := len(d.Responses()); got != before {
		e.t.Fatalf("redelivered interaction %s answered again: %d responses, want %d", d.ID(), got, before)
	}
}

// TestE2EVsPerfect plays a whole game against the perfect AI through the
// fake Discord, with every kind of bad click along the way.
func TestE2EVsPerfect(t *testing.T) {
	t.Parallel()
	e := newE2E(t, bot.Options{Rand: rand.New(rand.NewPCG(1, 2))})

	r, _ := e.command(alice, command.SubVsAI, fakediscord.Option{Name: "level", Value: "perfect"},
		fakediscord.Option{Name: "first", Value: "me"})
	if r.Type != int(discordgo.InteractionResponseChannelMessageWithSource) || r.Message.Ephemeral {
		t.Fatalf("/ttt vs-ai answered type %d ephemeral %v, want a public board (4)", r.Type, r.Message.Ephemeral)
	}
	board := r.Message.ID
	e.tracked(r.Message)
	first := e.cells(r.Message)
	if len(first) != 9 {
		t.Fatalf("board has %d cells, want 9", len(first))
	}
	start := e.game(r.Message)
	if start.SideOf(alice) != game.X || len(start.Moves) != 0 || !start.Players[1].IsAI() || start.Players[1].AI.Level != "perfect" {
		t.Fatalf("new game %+v, want alice as X against perfect, no moves", start)
	}

	var last *fakediscord.Delivery
	cur := r.Message
	for moves := 0; ; moves++ {
		if moves > 5 {
			t.Fatal("game did not end")
		}
		var pick fakediscord.Component
		for c := range game.Cell(64) {
			if b, ok := e.cells(cur)[c]; ok && !b.Disabled {
				pick = b
				break
			}
		}
		if pick.CustomID == "" {
			break // no empty cell: the game is over
		}
		before := e.game(cur)
		r, last = e.click(alice, board, pick.CustomID)
		if r.Type != int(discordgo.InteractionResponseUpdateMessage) || r.Message.ID != board {
			t.Fatalf("click answered type %d on message %s, want 7 on the board %s", r.Type, r.Message.ID, board)
		}
		cur = r.Message
		after := e.game(cur)
		if after.Status == persistence.StatusActive && len(after.Moves) != len(before.Moves)+2 {
			t.Fatalf("after a click %d moves, want %d (the user's and the AI's)", len(after.Moves), len(before.Moves)+2)
		}
		if id, _ := e.button(cur, customid.ActionMove); id.Move != len(after.Moves) {
			t.Fatalf("board shows move %d, game has %d moves", id.Move, len(after.Moves))
		}

		if moves == 0 {
			// Not alice: bob may not play her game.
			var empty fakediscord.Component
			for _, b := range e.cells(cur) {
				if !b.Disabled {
					empty = b
				}
			}
			r, _ := e.click(bob, board, empty.CustomID)
			e.wantReply(r, render.KeyNotYourGame)
			// A board from before the last move.
			var old string
			for _, b := range first {
				old = b.CustomID
			}
			r, _ = e.click(alice, e.post(old), old)
			e.wantReply(r, render.KeyBoardChanged)
			// A cell already taken, on the current board.
			taken, err := e.signer.Encode(customid.ID{Action: customid.ActionMove, Game: after.ID, Move: len(after.Moves), Cell: after.Moves[0]})
			if err != nil {
				t.Fatal(err)
			}
			r, _ = e.click(alice, e.post(taken), taken)
			e.wantReply(r, render.KeyCellTaken)
			// A custom ID signed with another key.
			other, _ := customid.NewSigner([]byte("not-the-bot-key-0123456789abcdef"))
			eid, _ := e.signer.Decode(empty.CustomID)
			forged, _ := other.Encode(customid.ID{Action: customid.ActionMove, Game: after.ID, Move: len(after.Moves), Cell: eid.Cell})
			r, _ = e.click(alice, e.post(forged), forged)
			e.wantReply(r, render.KeyInvalidButton)
			// None of these changed the game.
			if now := e.game(cur); now.Version != after.Version {
				t.Fatalf("refused clicks changed the game: version %d, was %d", now.Version, after.Version)
			}
			// A duplicate delivery of the click is ignored.
			e.redeliver(last)
			if now := e.game(cur); now.Version != after.Version {
				t.Fatalf("a duplicate delivery changed the game: version %d, was %d", now.Version, after.Version)
			}
		}
	}

	end := e.game(cur)
	if end.Status != persistence.StatusFinished || end.Result == game.XWins {
		t.Fatalf("game ended %s with %q, want a draw or a loss for the user against perfect", end.Status, end.Result)
	}
	for _, b := range cur.Buttons() {
		if id, _ := e.signer.Decode(b.CustomID); id.Action == customid.ActionMove && !b.Disabled {
			t.Fatalf("finished board has an enabled cell %s", id.Cell)
		}
	}
	// The finishing click again: still counted once.
	e.redeliver(last)
	for _, guild := range []string{e2eGuild, ""} {
		st, err := e.store.Stats(e.ctx, guild, alice)
		if err != nil {
			t.Fatalf("stats in %q: %v", guild, err)
		}
		if st.Games != 1 || st.Wins != 0 || st.Losses+st.Draws != 1 || st.VsAI["perfect"] != st.Tally {
			t.Fatalf("stats in %q = %+v, want one game, lost or drawn, against perfect", guild, st)
		}
	}
	cs, err := e.store.CorpusStats(e.ctx, "3x3k3")
	if err != nil || cs.Count != 1 {
		t.Fatalf("corpus has %d games (%v), want 1", cs.Count, err)
	}

	// Rematch: a new board, sides swapped, the old one left as it was.
	_, rematch := e.button(cur, customid.ActionRematch)
	r, _ = e.click(alice, board, rematch.CustomID)
	if r.Type != int(discordgo.InteractionResponseChannelMessageWithSource) || r.Message.ID == board {
		t.Fatalf("rematch answered type %d on message %s, want a new board (4)", r.Type, r.Message.ID)
	}
	if s := e.game(r.Message); s.SideOf(alice) != game.O || s.Players[0].AI.Level != "perfect" || s.ID == end.ID {
		t.Fatalf("rematch %+v, want alice as O against perfect in a new game", s)
	}
	e.noFailures()
}

// TestE2EResignAndSlowAI covers an AI that moves first, an AI whose budget
// exceeds the move timeout (the board is shown, then edited), the Resign
// button, /ttt resign with and without a game, /ttt help in the user's
// language, and stats and the leaderboard.
func TestE2EResignAndSlowAI(t *testing.T) {
	t.Parallel()
	e := newE2E(t, bot.Options{Rand: rand.New(rand.NewPCG(3, 4)), MoveTimeout: 100 * time.Millisecond})

	// time-ms 300 > MoveTimeout: the AI thinks after the first response.
	r, d := e.command(alice, command.SubVsAI, fakediscord.Option{Name: "level", Value: "minimax"},
		fakediscord.Option{Name: "first", Value: "ai"}, fakediscord.Option{Name: "time-ms", Value: 300})
	if r.Type != int(discordgo.InteractionResponseChannelMessageWithSource) {
		t.Fatalf("/ttt vs-ai answered type %d, want 4", r.Type)
	}
	for _, b := range r.Message.Buttons() {
		if id, _ := e.signer.Decode(b.CustomID); id.Action == customid.ActionMove && !b.Disabled {
			t.Fatal("the board is clickable while the AI thinks")
		}
	}
	ed, err := d.Wait(e.ctx)
	if err != nil || ed.Kind != fakediscord.KindEditOriginal {
		t.Fatalf("after the AI moved: %+v %v, want the board edited", ed, err)
	}
	board := ed.Message.ID
	if s := e.game(ed.Message); len(s.Moves) != 1 || s.SideOf(alice) != game.O {
		t.Fatalf("game %+v, want alice as O after the AI's first move", s)
	}
	// One game per player and channel.
	r, _ = e.command(alice, command.SubVsAI, fakediscord.Option{Name: "level", Value: "random"})
	e.wantReply(r, render.KeyBusy)

	var pick string
	for _, b := range e.cells(ed.Message) {
		if !b.Disabled {
			pick = b.CustomID
		}
	}
	r, d = e.click(alice, board, pick)
	if r.Type != int(discordgo.InteractionResponseUpdateMessage) {
		t.Fatalf("click answered type %d, want 7", r.Type)
	}
	if ed, err = d.Wait(e.ctx); err != nil || ed.Kind != fakediscord.KindEditOriginal || ed.Message.ID != board {
		t.Fatalf("after the AI replied: %+v %v, want the board edited", ed, err)
	}
	if s := e.game(ed.Message); len(s.Moves) != 3 {
		t.Fatalf("game has %d moves, want 3", len(s.Moves))
	}

	// Bob may not resign alice's game; alice may.
	_, resign := e.button(ed.Message, customid.ActionResign)
	r, _ = e.click(bob, board, resign.CustomID)
	e.wantReply(r, render.KeyNotYourGame)
	r, _ = e.click(alice, board, resign.CustomID)
	if r.Type != int(discordgo.InteractionResponseUpdateMessage) || r.Message.ID != board {
		t.Fatalf("resign answered type %d, want 7 on the board", r.Type)
	}
	if s := e.game(r.Message); s.Status != persistence.StatusFinished || s.End != persistence.ByResign || s.Result != game.XWins {
		t.Fatalf("after resigning: %s %s %s, want finished, resigned, X (the AI) wins", s.Status, s.End, s.Result)
	}

	r, _ = e.command(alice, command.SubResign)
	e.wantReply(r, render.KeyNoGame)

	r, _ = e.command(alice, command.SubVsAI, fakediscord.Option{Name: "level", Value: "random"}, fakediscord.Option{Name: "first", Value: "me"})
	game2 := e.game(r.Message)
	r, _ = e.command(alice, command.SubResign)
	if r.Type != int(discordgo.InteractionResponseChannelMessageWithSource) || r.Message.Ephemeral {
		t.Fatalf("/ttt resign answered type %d ephemeral %v, want the final board", r.Type, r.Message.Ephemeral)
	}
	if s, err := e.store.Game(e.ctx, game2.ID); err != nil || s.End != persistence.ByResign {
		t.Fatalf("game after /ttt resign: %+v %v", s, err)
	}
	st, err := e.store.Stats(e.ctx, e2eGuild, alice)
	if err != nil || st.Games != 2 || st.Losses != 2 {
		t.Fatalf("stats %+v %v, want two games lost", st, err)
	}

	dh, err := e.srv.Command(e.ctx, fakediscord.CommandSpec{
		Actor: fakediscord.Actor{Guild: e2eGuild, Channel: e2eChannel, User: fakediscord.User{ID: alice}, Locale: "pt-BR"},
		Name:  command.Name, Options: []fakediscord.Option{{Name: command.SubHelp, Type: discordgo.ApplicationCommandOptionSubCommand}}})
	if err != nil {
		t.Fatal(err)
	}
	if r = e.wait(dh); !r.Message.Ephemeral || r.Message.Content != e.cat.Text("pt-BR", "help.text") {
		t.Fatalf("/ttt help in pt-BR = %q", r.Message.Content)
	}
	r, _ = e.command(bob, command.SubStats, fakediscord.Option{Name: "user", Type: discordgo.ApplicationCommandOptionUser, Value: alice})
	if want := e.cat.Plural(i18n.DefaultLocale, "stats.games", 2, "wins", "0", "losses", "2", "draws", "0"); !strings.Contains(r.Message.Content, want) {
		t.Fatalf("/ttt stats user:alice = %q, want a line %q", r.Message.Content, want)
	}
	r, _ = e.command(bob, command.SubStats)
	if want := e.cat.Text(i18n.DefaultLocale, "stats.none", "player", "<@"+bob+">"); r.Message.Content != want {
		t.Fatalf("/ttt stats for bob = %q, want %q", r.Message.Content, want)
	}
	r, _ = e.command(bob, command.SubLeaderboard, fakediscord.Option{Name: "scope", Value: "global"})
	if want := e.cat.Text(i18n.DefaultLocale, "leaderboard.empty"); !strings.Contains(r.Message.Content, want) {
		t.Fatalf("/ttt leaderboard = %q, want it empty (no games between people)", r.Message.Content)
	}
	e.noFailures()
}

// TestE2EChallenge plays a challenge between two people: who may press
// which button, the game itself with a click out of turn, the result in
// the stats and the leaderboard, and open, withdrawn and declined
// challenges.
func TestE2EChallenge(t *testing.T) {
	t.Parallel()
	e := newE2E(t, bot.Options{Rand: rand.New(rand.NewPCG(5, 6)), ChallengeCooldown: -1})
	const carol = "300"
	opponent := func(u string) fakediscord.Option {
		return fakediscord.Option{Name: "opponent", Type: discordgo.ApplicationCommandOptionUser, Value: u}
	}

	r, _ := e.command(alice, command.SubChallenge, opponent(bob), fakediscord.Option{Name: "first", Value: "me"})
	if r.Type != int(discordgo.InteractionResponseChannelMessageWithSource) || r.Message.Ephemeral {
		t.Fatalf("/ttt challenge answered type %d ephemeral %v, want a public challenge", r.Type, r.Message.Ephemeral)
	}
	msg := r.Message.ID
	_, accept := e.button(r.Message, customid.ActionAccept)
	_, cancel := e.button(r.Message, customid.ActionCancel)
	for _, tc := range []struct {
		user, customID, key string
	}{
		{carol, accept.CustomID, render.KeyOnlyOpponent},
		{alice, accept.CustomID, render.KeyOnlyOpponent},
		{bob, cancel.CustomID, render.KeyOnlyChallenger},
	} {
		r, _ := e.click(tc.user, msg, tc.customID)
		e.wantReply(r, tc.key)
	}
	r, _ = e.click(bob, msg, accept.CustomID)
	if r.Type != int(discordgo.InteractionResponseUpdateMessage) || len(e.cells(r.Message)) != 9 {
		t.Fatalf("accepting answered type %d %q, want the board (7)", r.Type, r.Message.Content)
	}
	if s := e.game(r.Message); s.Status != persistence.StatusActive || s.Players[0].User != alice || s.Players[1].User != bob {
		t.Fatalf("game %+v, want alice (X) against bob (O), active", s)
	}

	// X takes the top row while O plays the middle one.
	for i, mv := range []struct {
		user     string
		row, col int
	}{{alice, 0, 0}, {bob, 1, 0}, {alice, 0, 1}, {bob, 1, 1}, {alice, 0, 2}} {
		b := e.cells(r.Message)[game.NewCell(mv.row, mv.col)]
		if i == 1 {
			rr, _ := e.click(alice, msg, b.CustomID)
			e.wantReply(rr, render.KeyNotYourTurn)
		}
		r, _ = e.click(mv.user, msg, b.CustomID)
		if r.Type != int(discordgo.InteractionResponseUpdateMessage) {
			t.Fatalf("move %d answered type %d, want 7", i, r.Type)
		}
	}
	if s := e.game(r.Message); s.Status != persistence.StatusFinished || s.Result != game.XWins {
		t.Fatalf("game ended %s %s, want X (alice) to win", s.Status, s.Result)
	}
	for _, want := range []string{
		e.cat.Text(i18n.DefaultLocale, "rating.line", "player", "<@"+alice+">", "before", "1200", "after", "1216", "delta", "+16"),
		e.cat.Text(i18n.DefaultLocale, "rating.line", "player", "<@"+bob+">", "before", "1200", "after", "1184", "delta", "−16"),
	} {
		if !strings.Contains(r.Message.Content, want) {
			t.Fatalf("final board %q, want the rating change %q", r.Message.Content, want)
		}
	}
	a, err := e.store.Stats(e.ctx, e2eGuild, alice)
	if err != nil || a.Wins != 1 || a.Rated != 1 || a.Rating <= persistence.RatingStart {
		t.Fatalf("alice's stats %+v %v, want a rated win", a, err)
	}
	r, _ = e.command(carol, command.SubLeaderboard)
	if lines := strings.Split(r.Message.Content, "\n"); len(lines) != 3 || !strings.Contains(lines[1], "<@"+alice+">") {
		t.Fatalf("leaderboard %q, want alice first of two", r.Message.Content)
	}

	// An open challenge: not joinable by its author, withdrawn.
	r, _ = e.command(alice, command.SubChallenge)
	msg = r.Message.ID
	_, join := e.button(r.Message, customid.ActionJoin)
	_, cancel = e.button(r.Message, customid.ActionCancel)
	rr, _ := e.click(alice, msg, join.CustomID)
	e.wantReply(rr, render.KeyOwnChallenge)
	r, _ = e.click(alice, msg, cancel.CustomID)
	if want := e.cat.Text(i18n.DefaultLocale, "challenge.cancelled", "challenger", "<@"+alice+">"); r.Type != int(discordgo.InteractionResponseUpdateMessage) ||
		r.Message.Content != want || len(r.Message.Buttons()) != 0 {
		t.Fatalf("withdrawn challenge: type %d %q with %d buttons, want %q without buttons", r.Type, r.Message.Content, len(r.Message.Buttons()), want)
	}

	// Joined by carol, then declined by bob in another challenge.
	r, _ = e.command(alice, command.SubChallenge)
	_, join = e.button(r.Message, customid.ActionJoin)
	r, _ = e.click(carol, r.Message.ID, join.CustomID)
	if s := e.game(r.Message); s.Status != persistence.StatusActive || s.SideOf(carol) == game.Empty {
		t.Fatalf("joined game %+v, want carol seated and the game on", s)
	}
	r, _ = e.command(bob, command.SubChallenge, opponent(carol))
	_, decline := e.button(r.Message, customid.ActionDecline)
	r, _ = e.click(carol, r.Message.ID, decline.CustomID)
	if want := e.cat.Text(i18n.DefaultLocale, "challenge.declined", "opponent", "<@"+carol+">"); r.Message.Content != want {
		t.Fatalf("declined challenge %q, want %q", r.Message.Content, want)
	}
	e.noFailures()
}

// e2ePseudonymKey is the corpus pseudonym key of the end-to-end Stores.
var e2ePseudonymKey = []byte("e2e-pseudonym-key-0123456789abcdef")

// e2eCatalogSigner returns the catalog and the custom-ID signer every
// end-to-end bot uses.
func e2eCatalogSigner(t *testing.T) (*i18n.Catalog, *customid.Signer) {
	t.Helper()
	cat, err := i18n.NewCatalog()
	if err != nil {
		t.Fatal(err)
	}
	signer, err := customid.NewSigner([]byte("e2e-custom-id-key-0123456789abcd"))
	if err != nil {
		t.Fatal(err)
	}
	return cat, signer
}
