package bot_test

import (
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
	"github.com/tttbot/ttt-bot/persistence"
)

// TestE2EAbuse runs the protections of challenged users over both
// transports: blocks against direct challenges and joins, the challenge
// cooldown, the open-challenge limit and the rate limit on commands and
// clicks, next to normal play that none of them may hinder.
func TestE2EAbuse(t *testing.T) {
	t.Parallel()
	scenarios := []struct {
		name string
		opts func(clk *frozenClock) bot.Options
		run  func(t *testing.T, b *scenarioBed, clk *frozenClock)
	}{
		{"block a direct challenge", defaultAbuseOpts, blockDirect},
		{"block a join", defaultAbuseOpts, blockJoin},
		{"cooldown", func(clk *frozenClock) bot.Options {
			return bot.Options{Now: clk.Now, ChallengeCooldown: time.Minute}
		}, cooldownScenario},
		{"open-challenge limit", func(*frozenClock) bot.Options {
			return bot.Options{MaxOpenChallenges: 2, ChallengeCooldown: -1}
		}, openLimitScenario},
		{"rate limit", defaultAbuseOpts, rateLimitScenario},
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			for i, sc := range scenarios {
				t.Run(sc.name, func(t *testing.T) {
					t.Parallel()
					clk := &frozenClock{t: time.Now()}
					opts := sc.opts(clk)
					opts.Rand = rand.New(rand.NewPCG(41, uint64(i)))
					b := tr.start(t, opts)
					sc.run(t, b, clk)
					b.noFailures()
				})
			}
		})
	}
}

// defaultAbuseOpts are the bot's defaults on a clock that stands still
// unless the test moves it, so no rate-limit bucket refills by itself.
func defaultAbuseOpts(clk *frozenClock) bot.Options { return bot.Options{Now: clk.Now} }

// frozenClock is a clock that moves only when told.
type frozenClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *frozenClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *frozenClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// userOpt is the user option of /ttt block and /ttt unblock.
func userOpt(u string) fakediscord.Option {
	return fakediscord.Option{Name: "user", Type: discordgo.ApplicationCommandOptionUser, Value: u}
}

// commandIn runs /ttt <sub> as user in channel of the test guild.
func (e *e2e) commandIn(channel, user, sub string, opts ...fakediscord.Option) fakediscord.Response {
	e.t.Helper()
	d, err := e.srv.Command(e.ctx, fakediscord.CommandSpec{
		Actor: fakediscord.Actor{Guild: e2eGuild, Channel: channel, User: fakediscord.User{ID: user}}, Name: command.Name,
		Options: []fakediscord.Option{{Name: sub, Type: discordgo.ApplicationCommandOptionSubCommand, Options: opts}}})
	if err != nil {
		e.t.Fatalf("/ttt %s in %s: %v", sub, channel, err)
	}
	return e.wait(d)
}

// clickIn clicks a button of message in channel as user.
func (e *e2e) clickIn(channel, user, message, customID string) fakediscord.Response {
	e.t.Helper()
	d, err := e.srv.Click(e.ctx, fakediscord.ClickSpec{
		Actor:     fakediscord.Actor{Guild: e2eGuild, Channel: channel, User: fakediscord.User{ID: user}},
		MessageID: message, CustomID: customID})
	if err != nil {
		e.t.Fatalf("click %s in %s: %v", customID, channel, err)
	}
	return e.wait(d)
}

// wantText checks that r is an ephemeral reply with the text of key
// filled with vars.
func (e *e2e) wantText(r fakediscord.Response, key string, vars ...string) {
	e.t.Helper()
	want := render.ErrorText(e.cat, i18n.DefaultLocale, &bot.UserError{Key: key, Vars: vars})
	if r.Type != int(discordgo.InteractionResponseChannelMessageWithSource) || !r.Message.Ephemeral || r.Message.Content != want {
		e.t.Fatalf("reply type %d ephemeral %v %q, want an ephemeral %q", r.Type, r.Message.Ephemeral, r.Message.Content, want)
	}
}

// wantChallenge checks that r posted a public challenge and returns it.
func (e *e2e) wantChallenge(r fakediscord.Response) *fakediscord.Message {
	e.t.Helper()
	if r.Type != int(discordgo.InteractionResponseChannelMessageWithSource) || r.Message.Ephemeral {
		e.t.Fatalf("/ttt challenge answered type %d ephemeral %v %q, want a public challenge", r.Type, r.Message.Ephemeral, r.Message.Content)
	}
	return r.Message
}

// wantBoard checks that r turned the challenge msg into the board.
func (e *e2e) wantBoard(r fakediscord.Response, msg string) {
	e.t.Helper()
	if r.Type != int(discordgo.InteractionResponseUpdateMessage) || r.Message.ID != msg || len(e.cells(r.Message)) == 0 {
		e.t.Fatalf("answered type %d %q on %s, want the board on %s", r.Type, r.Message.Content, r.Message.ID, msg)
	}
}

// blockDirect: bob blocks alice; her challenges to him (a rematch too)
// are refused, with nothing said to him, until he unblocks her. The
// refusal does not tell her she is blocked: "They aren't told", bob's
// answer says.
func blockDirect(t *testing.T, b *scenarioBed, clk *frozenClock) {
	// A game before the block, for its Rematch button.
	first := b.wantChallenge(mustResponse(b.command(alice, command.SubChallenge, opponentOpt(bob))))
	_, accept := b.button(first, customid.ActionAccept)
	b.wantBoard(mustResponse(b.click(bob, first.ID, accept.CustomID)), first.ID)
	final := resign(b, alice)
	clk.Advance(bot.DefaultChallengeCooldown) // alice may challenge again
	before := map[string]bool{}
	for _, m := range b.srv.Visible(e2eChannel, bob) {
		before[m.ID] = true
	}

	r, _ := b.command(bob, command.SubBlock, userOpt(alice))
	b.wantText(r, bot.KeyBlockDone, "user", mentionOf(alice))
	if !strings.Contains(r.Message.Content, "They aren't told") {
		t.Fatalf("/ttt block answered %q; it promises the blocked are not told", r.Message.Content)
	}
	r, _ = b.command(bob, command.SubBlock, userOpt(alice)) // idempotent
	b.wantText(r, bot.KeyBlockDone, "user", mentionOf(alice))

	r, _ = b.command(alice, command.SubChallenge, opponentOpt(bob))
	b.wantText(r, bot.KeyCantPlay, "user", mentionOf(bob))
	wantNotTold(t, r.Message.Content)
	_, rematch := b.button(final, customid.ActionRematch)
	r, _ = b.click(alice, final.ID, rematch.CustomID)
	b.wantText(r, bot.KeyCantPlay, "user", mentionOf(bob))
	// The block holds in every server.
	if err := b.bot.Register(b.ctx, "43"); err != nil {
		t.Fatal(err)
	}
	d, err := b.srv.Command(b.ctx, fakediscord.CommandSpec{
		Actor: fakediscord.Actor{Guild: "43", Channel: "70", User: fakediscord.User{ID: alice}}, Name: command.Name,
		Options: []fakediscord.Option{{Name: command.SubChallenge, Type: discordgo.ApplicationCommandOptionSubCommand,
			Options: []fakediscord.Option{opponentOpt(bob)}}}})
	if err != nil {
		t.Fatal(err)
	}
	b.wantText(b.wait(d), bot.KeyCantPlay, "user", mentionOf(bob))
	// bob sees nothing of it (his own private answers aside), and carol
	// can still challenge him.
	for _, m := range b.srv.Visible(e2eChannel, bob) {
		if !m.Ephemeral && !before[m.ID] {
			t.Fatalf("bob sees a message: %q", m.Content)
		}
	}
	b.wantChallenge(mustResponse(b.command(carol, command.SubChallenge, opponentOpt(bob))))

	r, _ = b.command(bob, command.SubUnblock, userOpt(alice))
	b.wantText(r, bot.KeyUnblockDone, "user", mentionOf(alice))
	r, _ = b.command(bob, command.SubUnblock, userOpt(alice)) // idempotent
	b.wantText(r, bot.KeyUnblockDone, "user", mentionOf(alice))
	msg := b.wantChallenge(mustResponse(b.command(alice, command.SubChallenge, opponentOpt(bob))))
	_, accept = b.button(msg, customid.ActionAccept)
	r, _ = b.click(bob, msg.ID, accept.CustomID)
	b.wantBoard(r, msg.ID)

	// Blocking oneself is refused when the command is read.
	r, _ = b.command(bob, command.SubBlock, userOpt(bob))
	b.wantReply(r, "error.self_block")
}

// blockJoin: an open challenge cannot be joined by someone its challenger
// blocked (who is not told why), nor by someone who blocked the
// challenger (who is reminded of their block).
func blockJoin(t *testing.T, b *scenarioBed, _ *frozenClock) {
	b.wantText(mustResponse(b.command(alice, command.SubBlock, userOpt(carol))), bot.KeyBlockDone, "user", mentionOf(carol))
	b.wantText(mustResponse(b.command(bob, command.SubBlock, userOpt(alice))), bot.KeyBlockDone, "user", mentionOf(alice))

	msg := b.wantChallenge(mustResponse(b.command(alice, command.SubChallenge)))
	_, join := b.button(msg, customid.ActionJoin)
	r, _ := b.click(carol, msg.ID, join.CustomID)
	b.wantText(r, bot.KeyCantPlay, "user", mentionOf(alice))
	wantNotTold(t, r.Message.Content)
	r, _ = b.click(bob, msg.ID, join.CustomID)
	b.wantText(r, bot.KeyYouBlocked, "user", mentionOf(alice))
	if s := b.trackedChallenge(msg, customid.ActionJoin); s.Status != persistence.StatusOpen {
		t.Fatalf("after refused joins the challenge is %s, want still open", s.Status)
	}
	b.wantText(mustResponse(b.command(bob, command.SubUnblock, userOpt(alice))), bot.KeyUnblockDone, "user", mentionOf(alice))
	r, _ = b.click(bob, msg.ID, join.CustomID)
	b.wantBoard(r, msg.ID)
}

// wantNotTold checks that a refusal seen by a blocked user does not say
// they are blocked, or that the other person refuses them.
func wantNotTold(t *testing.T, text string) {
	t.Helper()
	for _, w := range []string{"block", "isn't taking", "from you", "refuse"} {
		if strings.Contains(strings.ToLower(text), w) {
			t.Fatalf("the refusal %q tells the blocked user (%q)", text, w)
		}
	}
}

// cooldownScenario: a minute between two challenges by one user in a
// server, cancelled or not; a challenge refused for another reason does
// not start it.
func cooldownScenario(t *testing.T, b *scenarioBed, clk *frozenClock) {
	start := clk.Now()
	msg := b.wantChallenge(mustResponse(b.command(alice, command.SubChallenge, opponentOpt(bob))))
	_, cancel := b.button(msg, customid.ActionCancel)
	if r, _ := b.click(alice, msg.ID, cancel.CustomID); r.Type != int(discordgo.InteractionResponseUpdateMessage) {
		t.Fatalf("Cancel answered type %d %q", r.Type, r.Message.Content)
	}
	clk.Advance(20 * time.Second)
	r, _ := b.command(alice, command.SubChallenge, opponentOpt(carol))
	when := "<t:" + strconv.FormatInt((start.Add(time.Minute).UnixMilli()+999)/1000, 10) + ":R>"
	b.wantText(r, bot.KeyCooldown, "when", when)
	if r.Message.Content != "You can challenge again "+when+"." {
		t.Fatalf("cooldown answer %q", r.Message.Content)
	}
	// Others are not held up, and accepting is not a challenge.
	other := b.wantChallenge(mustResponse(b.command(carol, command.SubChallenge, opponentOpt(alice))))
	_, accept := b.button(other, customid.ActionAccept)
	b.wantBoard(mustResponse(b.click(alice, other.ID, accept.CustomID)), other.ID)

	clk.Advance(40 * time.Second)
	// alice is in carol's game in this channel: that refusal gives her
	// cooldown back, so her challenge elsewhere right after goes through.
	b.wantReply(mustResponse(b.command(alice, command.SubChallenge, opponentOpt(bob))), render.KeyBusy)
	b.wantChallenge(b.commandIn("8", alice, command.SubChallenge, opponentOpt(bob)))
	b.wantText(b.commandIn("9", alice, command.SubChallenge, opponentOpt(bob)), bot.KeyCooldown,
		"when", "<t:"+strconv.FormatInt((start.Add(2*time.Minute).UnixMilli()+999)/1000, 10)+":R>")
}

// openLimitScenario: at most two open challenges across the server's
// channels; answering or cancelling one frees a place.
func openLimitScenario(t *testing.T, b *scenarioBed, _ *frozenClock) {
	c7 := b.wantChallenge(b.commandIn("7", alice, command.SubChallenge))
	c8 := b.wantChallenge(b.commandIn("8", alice, command.SubChallenge, opponentOpt(bob)))
	b.wantText(b.commandIn("9", alice, command.SubChallenge), bot.KeyOpenLimit, "count", "2")
	if r := b.commandIn("9", alice, command.SubChallenge); !strings.Contains(r.Message.Content, "Cancel one") {
		t.Fatalf("the limit's answer %q does not say how to free a place", r.Message.Content)
	}
	// Another user is not limited by alice's challenges.
	b.wantChallenge(b.commandIn("9", bob, command.SubChallenge))

	// bob accepts the one in 8: a place is free.
	_, accept := b.button(c8, customid.ActionAccept)
	b.wantBoard(b.clickIn("8", bob, c8.ID, accept.CustomID), c8.ID)
	b.wantChallenge(b.commandIn("10", alice, command.SubChallenge))
	b.wantText(b.commandIn("11", alice, command.SubChallenge), bot.KeyOpenLimit, "count", "2")
	// alice cancels the one in 7: another place.
	_, cancel := b.button(c7, customid.ActionCancel)
	if r := b.clickIn("7", alice, c7.ID, cancel.CustomID); r.Type != int(discordgo.InteractionResponseUpdateMessage) {
		t.Fatalf("Cancel answered type %d %q", r.Type, r.Message.Content)
	}
	b.wantChallenge(b.commandIn("11", alice, command.SubChallenge))
}

// rateLimitScenario: with the defaults and a clock that stands still (no
// refill at all), carol's burst of commands runs out and is answered
// "slow down", clicks included, until time passes, while alice plays a
// whole 5x5 game against the computer as fast as clicks go.
func rateLimitScenario(t *testing.T, b *scenarioBed, clk *frozenClock) {
	slow := b.cat.Text(i18n.DefaultLocale, bot.KeySlowDown)
	for i := range bot.DefaultRateBurst {
		if r := mustResponse(b.command(carol, command.SubHelp)); r.Message.Content == slow {
			t.Fatalf("command %d of the burst was refused", i+1)
		}
	}
	b.wantReply(mustResponse(b.command(carol, command.SubHelp)), bot.KeySlowDown)

	r, _ := b.command(alice, command.SubVsAI, fakediscord.Option{Name: "level", Value: "random"},
		fakediscord.Option{Name: "board", Value: "5x5k4"}, fakediscord.Option{Name: "first", Value: "me"})
	if r.Message.Ephemeral {
		t.Fatalf("/ttt vs-ai answered %q", r.Message.Content)
	}
	board, cur := r.Message.ID, r.Message
	moves := 0
	for {
		var next *fakediscord.Component
		for _, c := range cur.Buttons() {
			if id, err := b.signer.Decode(c.CustomID); err == nil && id.Action == customid.ActionMove && !c.Disabled {
				next = &c
				break
			}
		}
		if next == nil {
			break
		}
		if moves == 1 {
			// A click is limited too: carol gets "slow down", not "this
			// isn't your game".
			b.wantReply(mustResponse(b.click(carol, board, next.CustomID)), bot.KeySlowDown)
		}
		r, _ = b.click(alice, board, next.CustomID)
		if r.Type != int(discordgo.InteractionResponseUpdateMessage) || r.Message.ID != board {
			t.Fatalf("move %d answered type %d %q", moves+1, r.Type, r.Message.Content)
		}
		cur, moves = r.Message, moves+1
	}
	if s := b.game(cur); s.Status.Live() || moves < 4 {
		t.Fatalf("after %d moves the game is %s, want over", moves, s.Status)
	}
	// alice has her own bucket, with room left after the whole game.
	if r := mustResponse(b.command(alice, command.SubHelp)); r.Message.Content == slow {
		t.Fatal("alice was held up")
	}
	// Half a second refills one action at 2 a second, and only one.
	clk.Advance(500 * time.Millisecond)
	if r := mustResponse(b.command(carol, command.SubHelp)); r.Message.Content == slow {
		t.Fatal("no action allowed after the refill")
	}
	b.wantReply(mustResponse(b.command(carol, command.SubHelp)), bot.KeySlowDown)
}

// mustResponse drops the delivery of a command or click helper's result.
func mustResponse(r fakediscord.Response, _ *fakediscord.Delivery) fakediscord.Response { return r }
