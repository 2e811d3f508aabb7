package bot_test

import (
	"context"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot"
	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/bot/rest"
	"github.com/tttbot/ttt-bot/bot/settings"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// ChannelMessageEditComplex completes the stub's rest.Discord: the stub has
// no messages to edit.
func (s *stubDiscord) ChannelMessageEditComplex(*discordgo.MessageEdit, ...discordgo.RequestOption) (*discordgo.Message, error) {
	return &discordgo.Message{}, nil
}

// ChannelMessageSendComplex completes the stub's rest.Discord: the stub
// posts nowhere.
func (s *stubDiscord) ChannelMessageSendComplex(string, *discordgo.MessageSend, ...discordgo.RequestOption) (*discordgo.Message, error) {
	return &discordgo.Message{}, nil
}

// clock is a settable clock shared by the Bot and the Store.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Now().UTC().Truncate(time.Second)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// tracked waits until the game of board message m has m recorded as its
// message: the bot records a new message just after sending it.
func (e *e2e) tracked(m *fakediscord.Message) *persistence.Session {
	e.t.Helper()
	for {
		s := e.game(m)
		if s.Message == m.ID {
			return s
		}
		select {
		case <-e.ctx.Done():
			e.t.Fatalf("game %s never recorded message %s", s.ID, m.ID)
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// trackedChallenge is tracked for a challenge message.
func (e *e2e) trackedChallenge(m *fakediscord.Message, a customid.Action) *persistence.Session {
	e.t.Helper()
	id, _ := e.button(m, a)
	for {
		s, err := e.store.Game(e.ctx, id.Game)
		if err != nil {
			e.t.Fatal(err)
		}
		if s.Message == m.ID {
			return s
		}
		select {
		case <-e.ctx.Done():
			e.t.Fatalf("challenge %s never recorded message %s", s.ID, m.ID)
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// sweeper runs the bot's RunSweeper until the test ends (or stop is
// called) and returns stop, which waits for it to return.
func (e *e2e) sweeper(every time.Duration) (stop func()) {
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.bot.RunSweeper(ctx, every)
	}()
	stop = func() {
		cancel()
		select {
		case <-done:
		case <-time.After(e2eTimeout):
			e.t.Error("RunSweeper did not return")
		}
	}
	e.t.Cleanup(stop)
	return stop
}

// sweeps waits until the bot's sweeper has finished n more sweeps (each
// with all the work it started), so that a test can show that sweeps did
// not act, without sleeping for a guessed time.
func (e *e2e) sweeps(n int64) {
	e.t.Helper()
	want := e.bot.Sweeps() + n
	deadline := time.Now().Add(e2eTimeout)
	for e.bot.Sweeps() < want {
		if time.Now().After(deadline) {
			e.t.Fatalf("the sweeper did not finish %d sweeps in time", n)
		}
		time.Sleep(time.Millisecond)
	}
}

// waitEdited waits until message id has content containing want.
func (e *e2e) waitEdited(id, want string) fakediscord.Message {
	e.t.Helper()
	m, err := e.srv.WaitMessage(e.ctx, e2eChannel, func(m fakediscord.Message) bool {
		return m.ID == id && strings.Contains(m.Content, want)
	})
	if err != nil {
		cur, _ := e.srv.Message(id)
		e.t.Fatalf("message %s never showed %q; it shows %q", id, want, cur.Content)
	}
	return m
}

// noLiveCells fails if m has an enabled move button.
func (e *e2e) noLiveCells(m fakediscord.Message) {
	e.t.Helper()
	for c, b := range e.cells(&m) {
		if !b.Disabled {
			e.t.Fatalf("board %q still has a live cell %s", m.Content, c)
		}
	}
}

func mentionOf(u string) string { return "<@" + u + ">" }

func opponentOpt(u string) fakediscord.Option {
	return fakediscord.Option{Name: "opponent", Type: discordgo.ApplicationCommandOptionUser, Value: u}
}

// TestE2EResignCommandEditsBoard checks that /ttt resign turns the old
// board into the final one instead of leaving its buttons live.
func TestE2EResignCommandEditsBoard(t *testing.T) {
	t.Parallel()
	e := newE2E(t, bot.Options{Rand: rand.New(rand.NewPCG(7, 8))})
	r, _ := e.command(alice, command.SubVsAI, fakediscord.Option{Name: "level", Value: "random"}, fakediscord.Option{Name: "first", Value: "me"})
	board := r.Message.ID
	s := e.tracked(r.Message)
	if !strings.Contains(r.Message.Content, "<t:") || s.TurnTime != settings.DefaultTurnTime {
		t.Fatalf("board %q, turn time %s: want the turn deadline shown and the default turn time", r.Message.Content, s.TurnTime)
	}
	r, _ = e.command(alice, command.SubResign)
	if r.Message.ID == board || r.Message.Ephemeral {
		t.Fatalf("/ttt resign answered on %s ephemeral %v, want the final board as a new message", r.Message.ID, r.Message.Ephemeral)
	}
	old := e.waitEdited(board, e.cat.Text(i18n.DefaultLocale, "result.resign", "loser", mentionOf(alice), "mark", render.EmojiO, "winner", "🤖 Random"))
	e.noLiveCells(old)
	e.button(&old, customid.ActionRematch)
	e.noFailures()
}

// TestE2ETimeouts runs the sweeper on an injected clock: an unanswered
// challenge expires and says so, the player to move loses on time, the
// board shows it with the rating changes, and the game is counted once
// although two sweepers run.
func TestE2ETimeouts(t *testing.T) {
	t.Parallel()
	clk := newClock()
	e := newE2EStore(t, bot.Options{Rand: rand.New(rand.NewPCG(9, 10)), Now: clk.Now, TurnTime: 2 * time.Minute},
		persistence.Options{Now: clk.Now})
	e.sweeper(5 * time.Millisecond)
	e.sweeper(7 * time.Millisecond) // a second process

	// A challenge nobody answers.
	r, _ := e.command(alice, command.SubChallenge, opponentOpt(bob))
	expires := e.cat.Text(i18n.DefaultLocale, "challenge.expires", "deadline", "<t:"+itoa(clk.Now().Add(5*time.Minute).Unix())+":R>")
	if !strings.Contains(r.Message.Content, expires) {
		t.Fatalf("challenge %q, want %q", r.Message.Content, expires)
	}
	e.trackedChallenge(r.Message, customid.ActionAccept)
	clk.Advance(5*time.Minute + time.Second)
	m := e.waitEdited(r.Message.ID, e.cat.Text(i18n.DefaultLocale, "challenge.expired"))
	if len(m.Buttons()) != 0 {
		t.Fatalf("expired challenge still has %d buttons", len(m.Buttons()))
	}

	// A game where bob does not move in time.
	r, _ = e.command(alice, command.SubChallenge, opponentOpt(bob), fakediscord.Option{Name: "first", Value: "me"})
	msg := r.Message.ID
	_, accept := e.button(r.Message, customid.ActionAccept)
	e.trackedChallenge(r.Message, customid.ActionAccept)
	r, _ = e.click(bob, msg, accept.CustomID)
	r, _ = e.click(alice, msg, e.cells(r.Message)[game.NewCell(1, 1)].CustomID)
	deadline := e.cat.Text(i18n.DefaultLocale, "board.deadline", "mark", render.EmojiO, "player", mentionOf(bob),
		"deadline", "<t:"+itoa(clk.Now().Add(2*time.Minute).Unix())+":R>")
	if !strings.Contains(r.Message.Content, deadline) {
		t.Fatalf("board %q, want %q", r.Message.Content, deadline)
	}
	clk.Advance(time.Minute)
	e.sweeps(2) // sweeps that must not end the game
	if s := e.game(r.Message); s.Status != persistence.StatusActive {
		t.Fatalf("game %s before its deadline", s.Status)
	}
	clk.Advance(time.Minute + time.Second)
	m = e.waitEdited(msg, e.cat.Text(i18n.DefaultLocale, "result.timeout", "loser", mentionOf(bob), "mark", render.EmojiX, "winner", mentionOf(alice)))
	e.noLiveCells(m)
	win := e.cat.Text(i18n.DefaultLocale, "rating.line", "player", mentionOf(alice), "before", "1200", "after", "1216", "delta", "+16")
	if !strings.Contains(m.Content, win) {
		t.Fatalf("timed-out board %q, want the rating line %q", m.Content, win)
	}
	e.sweeps(1) // the sweep that ended the game has recorded it
	if st, err := e.store.Stats(e.ctx, e2eGuild, alice); err != nil || st.Games != 1 || st.Wins != 1 {
		t.Fatalf("alice's stats %+v %v, want one win", st, err)
	}
	// A click on the timed-out board is refused.
	stale := e.cells(&m)[game.NewCell(0, 0)].CustomID
	rr, _ := e.click(bob, e.post(stale), stale)
	e.wantReply(rr, render.KeyGameOver)
	e.noFailures()
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestE2EAIDuel plays a duel to its end through the sweeper loop, one
// edit of the board per move, and stops another cleanly at shutdown.
func TestE2EAIDuel(t *testing.T) {
	t.Parallel()
	e := newE2E(t, bot.Options{Rand: rand.New(rand.NewPCG(11, 12)), DuelStep: 5 * time.Millisecond})
	e.sweeper(time.Hour)
	r, _ := e.command(alice, command.SubAIDuel, fakediscord.Option{Name: "x", Value: "perfect"}, fakediscord.Option{Name: "o", Value: "perfect"})
	if r.Type != int(discordgo.InteractionResponseChannelMessageWithSource) || r.Message.Ephemeral {
		t.Fatalf("/ttt ai-duel answered type %d ephemeral %v, want a public board", r.Type, r.Message.Ephemeral)
	}
	e.noLiveCells(*r.Message)
	m := e.waitEdited(r.Message.ID, e.cat.Text(i18n.DefaultLocale, "result.draw"))
	s := e.game(&m)
	if s.Status != persistence.StatusFinished || s.Result != game.Draw || len(s.Moves) != 9 {
		t.Fatalf("duel ended %s %s after %d moves, want a draw after 9 (perfect against perfect)", s.Status, s.Result, len(s.Moves))
	}
	if cs, err := e.store.CorpusStats(e.ctx, "3x3k3"); err != nil || cs.Count != 1 {
		t.Fatalf("corpus has %d games (%v), want the duel", cs.Count, err)
	}
	// Rematch of a duel: a new duel, sides swapped.
	_, rematch := e.button(&m, customid.ActionRematch)
	r, _ = e.click(bob, m.ID, rematch.CustomID)
	if r.Message.ID == m.ID || !strings.Contains(r.Message.Content, "🤖") {
		t.Fatalf("duel rematch answered %q on %s, want a new duel", r.Message.Content, r.Message.ID)
	}
	e.waitEdited(r.Message.ID, e.cat.Text(i18n.DefaultLocale, "result.draw"))
	e.noFailures()
}

// TestE2EAIDuelShutdown checks that a duel stops cleanly, its board
// saying so, when the sweeper's context ends.
func TestE2EAIDuelShutdown(t *testing.T) {
	t.Parallel()
	e := newE2E(t, bot.Options{Rand: rand.New(rand.NewPCG(13, 14)), DuelStep: time.Hour})
	stop := e.sweeper(time.Hour)
	r, _ := e.command(alice, command.SubAIDuel, fakediscord.Option{Name: "x", Value: "easy"}, fakediscord.Option{Name: "o", Value: "random"},
		fakediscord.Option{Name: "board", Value: "4x4k3"})
	e.tracked(r.Message)
	stop()
	// The duel reaches the sweeper just after its board is shown; if the
	// sweeper stopped first, the handler ends the duel itself once the
	// hand-off times out. Either way the board ends up saying so.
	want := e.cat.Text(i18n.DefaultLocale, "result.duel_stopped")
	m, err := e.srv.WaitMessage(e.ctx, r.Message.ChannelID, func(m fakediscord.Message) bool {
		return m.ID == r.Message.ID && strings.Contains(m.Content, want)
	})
	if err != nil {
		cur, _ := e.srv.Message(r.Message.ID)
		t.Fatalf("stopped duel shows %q, want %q: %v", cur.Content, want, err)
	}
	e.noLiveCells(m)
	if s := e.game(&m); s.Status != persistence.StatusFinished || s.End != persistence.ByModerator {
		t.Fatalf("stopped duel is %s %s, want finished without a result", s.Status, s.End)
	}
	e.noFailures()
}

// TestE2EAdmin covers /ttt-admin: end-game by a member with Manage Server
// (the boards of the channel's games are edited), refused at run time for
// a member without it even where the server shows them the command, model
// and retrain.
func TestE2EAdmin(t *testing.T) {
	t.Parallel()
	e := newE2E(t, bot.Options{Rand: rand.New(rand.NewPCG(15, 16))})
	admin := func(user string, perms int64, sub string, opts ...fakediscord.Option) fakediscord.Response {
		t.Helper()
		a := actor(user)
		a.Permissions = perms
		d, err := e.srv.Command(e.ctx, fakediscord.CommandSpec{Actor: a, Name: command.AdminName,
			Options: []fakediscord.Option{{Name: sub, Type: discordgo.ApplicationCommandOptionSubCommand, Options: opts}}})
		if err != nil {
			t.Fatalf("/ttt-admin %s: %v", sub, err)
		}
		return e.wait(d)
	}
	const mod = discordgo.PermissionManageGuild | fakediscord.DefaultPermissions

	r := admin(alice, mod, command.SubEndGame)
	e.wantReply(r, render.KeyNoGame)

	r, _ = e.command(alice, command.SubVsAI, fakediscord.Option{Name: "level", Value: "random"}, fakediscord.Option{Name: "first", Value: "me"})
	board := r.Message.ID
	e.tracked(r.Message)
	r, _ = e.command(bob, command.SubChallenge)
	challenge := r.Message.ID
	e.trackedChallenge(r.Message, customid.ActionJoin)

	// The server lets everyone see /ttt-admin; the bot still checks.
	cmds := e.bot.Commands()
	for _, c := range cmds {
		if c.Name == command.AdminName {
			c.DefaultMemberPermissions = nil
		}
	}
	if _, err := e.ses.ApplicationCommandBulkOverwrite(e.srv.AppID(), e2eGuild, cmds); err != nil {
		t.Fatal(err)
	}
	r = admin(bob, 0, command.SubEndGame)
	e.wantReply(r, bot.KeyNotModerator)

	r = admin(alice, mod, command.SubEndGame)
	if want := e.cat.Text(i18n.DefaultLocale, "admin.ended", "count", "2"); r.Message.Content != want || !r.Message.Ephemeral {
		t.Fatalf("end-game answered %q, want an ephemeral %q", r.Message.Content, want)
	}
	m := e.waitEdited(board, e.cat.Text(i18n.DefaultLocale, "result.moderator"))
	e.noLiveCells(m)
	m = e.waitEdited(challenge, e.cat.Text(i18n.DefaultLocale, "result.moderator"))
	for _, b := range m.Buttons() {
		if id, _ := e.signer.Decode(b.CustomID); id.Action == customid.ActionJoin || id.Action == customid.ActionMove && !b.Disabled {
			t.Fatalf("ended challenge still has a live %s button", id.Action)
		}
	}

	// Without networks or a retrain job (see TestE2ERetrain for them).
	r = admin(alice, mod, command.SubModel)
	if want := e.cat.Text(i18n.DefaultLocale, "model.none", "rules", e.cat.Text(i18n.DefaultLocale, "rules.kinarow", "rows", "3", "cols", "3", "k", "3")); r.Message.Content != want {
		t.Fatalf("model answered %q, want %q", r.Message.Content, want)
	}
	r = admin(alice, mod, command.SubRetrain)
	e.wantReply(r, render.KeyRetrainOff)
	e.noFailures()
}

// TestE2EAIDuelWithoutSweeper checks that a duel nobody can play (no
// RunSweeper loop) does not leave a live board behind.
func TestE2EAIDuelWithoutSweeper(t *testing.T) {
	t.Parallel()
	e := newE2E(t, bot.Options{Rand: rand.New(rand.NewPCG(17, 18))})
	r, _ := e.command(alice, command.SubAIDuel, fakediscord.Option{Name: "x", Value: "easy"}, fakediscord.Option{Name: "o", Value: "random"})
	e.waitEdited(r.Message.ID, e.cat.Text(i18n.DefaultLocale, "result.duel_stopped"))
	if s := e.game(r.Message); s.Status.Live() {
		t.Fatalf("unplayed duel is %s", s.Status)
	}
}

// TestE2ETrackWithoutRead checks that the board of a new message is
// recorded with a Discord that cannot read a response back (as in HTTP
// interactions mode), so /ttt resign still edits it.
func TestE2ETrackWithoutRead(t *testing.T) {
	t.Parallel()
	e := newE2EWrapped(t, bot.Options{Rand: rand.New(rand.NewPCG(19, 20))}, persistence.Options{},
		func(d rest.Discord) rest.Discord { return struct{ rest.Discord }{d} })
	r, _ := e.command(alice, command.SubVsAI, fakediscord.Option{Name: "level", Value: "random"}, fakediscord.Option{Name: "first", Value: "me"})
	e.tracked(r.Message)
	e.command(alice, command.SubResign)
	e.noLiveCells(e.waitEdited(r.Message.ID, e.cat.Text(i18n.DefaultLocale, "result.resign", "loser", mentionOf(alice), "mark", render.EmojiO, "winner", "🤖 Random")))
	e.noFailures()
}
