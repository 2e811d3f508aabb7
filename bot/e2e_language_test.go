package bot_test

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot"
	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/bot/settings"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// dora plays with a Greek client.
const dora = "400"

// commandAs runs /ttt <sub> as a in the test channel.
func (e *e2e) commandAs(a fakediscord.Actor, sub string, opts ...fakediscord.Option) fakediscord.Response {
	e.t.Helper()
	d, err := e.srv.Command(e.ctx, fakediscord.CommandSpec{Actor: a, Name: command.Name,
		Options: []fakediscord.Option{{Name: sub, Type: discordgo.ApplicationCommandOptionSubCommand, Options: opts}}})
	if err != nil {
		e.t.Fatalf("/ttt %s: %v", sub, err)
	}
	return e.wait(d)
}

// clickAs clicks a button of message as a.
func (e *e2e) clickAs(a fakediscord.Actor, message, customID string) fakediscord.Response {
	e.t.Helper()
	d, err := e.srv.Click(e.ctx, fakediscord.ClickSpec{Actor: a, MessageID: message, CustomID: customID})
	if err != nil {
		e.t.Fatalf("click %s: %v", customID, err)
	}
	return e.wait(d)
}

// greek is dora with her Greek client.
func greek() fakediscord.Actor {
	a := actor(dora)
	a.Locale = string(discordgo.Greek)
	return a
}

// wantBoardIn checks that r is a public board of its game as it is now,
// in loc.
func (e *e2e) wantBoardIn(r fakediscord.Response, loc discordgo.Locale) *persistence.Session {
	e.t.Helper()
	if r.Message.Ephemeral || len(e.cells(r.Message)) == 0 {
		e.t.Fatalf("answered ephemeral %v %q, want a public board", r.Message.Ephemeral, r.Message.Content)
	}
	s := e.game(r.Message)
	want, err := render.NewRenderer(e.cat, e.signer).Board(loc, settings.LabelsCoordinates, s, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	if r.Message.Content != want.Content {
		e.t.Fatalf("board:\n%s\nwant it in %s:\n%s", r.Message.Content, loc, want.Content)
	}
	return s
}

// wantReplyIn checks that r is an ephemeral reply with the text of key in
// loc.
func (e *e2e) wantReplyIn(r fakediscord.Response, loc discordgo.Locale, key string, vars ...string) {
	e.t.Helper()
	if want := e.cat.Text(loc, key, vars...); !r.Message.Ephemeral || r.Message.Content != want {
		e.t.Fatalf("reply ephemeral %v %q, want an ephemeral %q", r.Message.Ephemeral, r.Message.Content, want)
	}
}

// TestE2ELanguage runs the server's language setting over both
// transports: what everyone in the channel sees (boards, challenges,
// stats, duels, boards a moderator ends) is in the server's language,
// each user's private answers in their own, and without the setting the
// boards follow whoever started them again.
func TestE2ELanguage(t *testing.T) {
	t.Parallel()
	pt := discordgo.PortugueseBR
	scenarios := []scenario{
		{"boards public, refusals private", func(t *testing.T, b *scenarioBed) {
			set(b, settings.Language, "pt-BR")
			r, _ := b.command(alice, command.SubVsAI, fakediscord.Option{Name: "level", Value: "easy"}, fakediscord.Option{Name: "first", Value: "me"})
			b.wantBoardIn(r, pt)
			if _, resign := b.button(r.Message, customid.ActionResign); resign.Label != b.cat.Text(pt, "button.resign") {
				t.Fatalf("Resign button %q, want it in pt-BR", resign.Label)
			}
			board := r.Message.ID
			b.tracked(r.Message)
			// Someone else's click, and a bad option: refused in English.
			c, _ := b.click(bob, board, b.cells(r.Message)[game.NewCell(0, 0)].CustomID)
			b.wantReply(c, render.KeyNotYourGame)
			r2, _ := b.command(alice, command.SubVsAI, fakediscord.Option{Name: "level", Value: "easy"},
				fakediscord.Option{Name: "board", Value: "3x3k3"}, fakediscord.Option{Name: "position", Value: "zz"})
			b.wantReplyIn(r2, i18n.DefaultLocale, "error.bad_position", "rules", "3x3k3", "rows", "3", "example", "X--/---/---")
			r2, _ = b.command(alice, command.SubHelp)
			b.wantReplyIn(r2, i18n.DefaultLocale, "help.text")
			// Her move: the board stays in pt-BR.
			c, _ = b.click(alice, board, b.cells(r.Message)[game.NewCell(1, 1)].CustomID)
			if c.Type != int(discordgo.InteractionResponseUpdateMessage) {
				t.Fatalf("a move answered type %d %q", c.Type, c.Message.Content)
			}
			b.wantBoardIn(c, pt)
			// Stats are public too.
			r2, _ = b.command(bob, command.SubStats)
			if want := b.cat.Text(pt, "stats.none", "player", mentionOf(bob)); r2.Message.Ephemeral || r2.Message.Content != want {
				t.Fatalf("/ttt stats = %q, want a public %q", r2.Message.Content, want)
			}
			// A moderator ends the game: its board says so in pt-BR.
			b.admin(alice, moderatorPerms, command.SubEndGame)
			m := b.waitEdited(board, b.cat.Text(pt, "result.moderator"))
			b.noLiveCells(m)
		}},
		{"back to each user's language", func(t *testing.T, b *scenarioBed) {
			set(b, settings.Language, "pt-BR")
			if r := set(b, settings.Language, "none"); r.Message.Content == "" {
				t.Fatal("set language none answered nothing")
			}
			r := b.commandAs(greek(), command.SubVsAI, fakediscord.Option{Name: "level", Value: "easy"}, fakediscord.Option{Name: "first", Value: "me"})
			b.wantBoardIn(r, discordgo.Greek)
			r, _ = b.command(alice, command.SubVsAI, fakediscord.Option{Name: "level", Value: "easy"}, fakediscord.Option{Name: "first", Value: "me"})
			b.wantBoardIn(r, i18n.DefaultLocale)
		}},
		{"challenge", func(t *testing.T, b *scenarioBed) {
			set(b, settings.Language, "pt-BR")
			r := b.commandAs(greek(), command.SubChallenge, opponentOpt(bob), fakediscord.Option{Name: "first", Value: "me"})
			s := b.trackedChallenge(r.Message, customid.ActionAccept)
			want, err := render.NewRenderer(b.cat, b.signer).Challenge(pt, s, "")
			if err != nil {
				t.Fatal(err)
			}
			if r.Message.Ephemeral || r.Message.Content != want.Content {
				t.Fatalf("challenge:\n%s\nwant it in pt-BR:\n%s", r.Message.Content, want.Content)
			}
			// dora may not accept her own challenge: told in Greek.
			_, accept := b.button(r.Message, customid.ActionAccept)
			c := b.clickAs(greek(), r.Message.ID, accept.CustomID)
			b.wantReplyIn(c, discordgo.Greek, render.KeyOnlyOpponent)
			// bob accepts: the board is in pt-BR.
			c, _ = b.click(bob, r.Message.ID, accept.CustomID)
			b.wantBoardIn(c, pt)
		}},
		{"every Discord locale", func(t *testing.T, b *scenarioBed) {
			// Each of Discord's 32 client languages gets the help, and a
			// board it starts, in its own language.
			for i, loc := range i18n.DiscordLocales() {
				a := actor(strconv.Itoa(500 + i))
				a.Locale = string(loc)
				r := b.commandAs(a, command.SubHelp)
				b.wantReplyIn(r, loc, "help.text")
				if i%8 == 0 {
					b.wantBoardIn(b.commandAs(a, command.SubVsAI, fakediscord.Option{Name: "level", Value: "easy"}, fakediscord.Option{Name: "first", Value: "me"}), loc)
				}
			}
		}},
		{"duel", func(t *testing.T, b *scenarioBed) {
			set(b, settings.Language, "pt-BR")
			r, _ := b.command(alice, command.SubAIDuel, fakediscord.Option{Name: "x", Value: "perfect"}, fakediscord.Option{Name: "o", Value: "perfect"})
			b.wantBoardIn(r, pt)
			m := b.waitEdited(r.Message.ID, b.cat.Text(pt, "result.draw"))
			b.noLiveCells(m)
		}},
	}
	runScenarios(t, 43, bot.Options{RateBurst: -1, ChallengeCooldown: -1, DuelStep: 5 * time.Millisecond}, func(b *scenarioBed) { b.sweeper(time.Second) }, scenarios)
}

// TestE2ELanguageSweeper: a challenge the sweeper expires, outside any
// interaction, says so in the server's language.
func TestE2ELanguageSweeper(t *testing.T) {
	t.Parallel()
	clk := newClock()
	e := newE2EStore(t, bot.Options{Rand: rand.New(rand.NewPCG(13, 14)), Now: clk.Now, RateBurst: -1, ChallengeCooldown: -1},
		persistence.Options{Now: clk.Now})
	e.sweeper(5 * time.Millisecond)
	set(&scenarioBed{e2e: e}, settings.Language, "pt-BR")
	r, _ := e.command(alice, command.SubChallenge, opponentOpt(bob))
	e.trackedChallenge(r.Message, customid.ActionAccept)
	clk.Advance(5*time.Minute + time.Second)
	if m := e.waitEdited(r.Message.ID, e.cat.Text(discordgo.PortugueseBR, "challenge.expired")); len(m.Buttons()) != 0 {
		t.Fatalf("expired challenge still has %d buttons", len(m.Buttons()))
	}
	e.noFailures()
}
