package bot_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/redis/go-redis/v9"

	"github.com/tttbot/ttt-bot/bot"
	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

// dana asks to be forgotten. A long ID, as Discord's are, so that
// finding it in the store cannot be a coincidence.
const dana = "918273645546372819"

// modPerms are the permissions of a member who may use /ttt-admin.
const modPerms = discordgo.PermissionManageGuild | fakediscord.DefaultPermissions

// TestE2EPrivacy runs /ttt privacy, /ttt forget-me and /ttt-admin
// forget-server over both transports: who may confirm, what goes and
// what stays, and a second run that finds nothing more. The challenge
// cooldown is long and the rate limit refills slowly, so that both are
// surely still running when the store is scanned after forget-me.
func TestE2EPrivacy(t *testing.T) {
	t.Parallel()
	scenarios := []scenario{
		{"forget me", forgetMeScenario},
		{"forget server", forgetServerScenario},
	}
	runScenarios(t, 41, bot.Options{ChallengeCooldown: time.Hour, RateBurst: 100, RatePerSecond: 0.01}, nil, scenarios)
}

// keptProtections are the key families that keep naming a forgotten
// user, by pseudonym only, because they protect others from them or
// expire by themselves: another user's block of them, their challenge
// cooldown, their rate-limit bucket and the throttle of forget-me itself.
var keptProtections = []string{"ttt:block:", "ttt:cooldown:", "ttt:rate:", "ttt:throttle:"}

func forgetMeScenario(t *testing.T, b *scenarioBed) {
	// dana plays: against the computer, a game won against alice, and a
	// game with alice still in play; and blocks and is blocked.
	b.playVsRandom(dana)
	msg, cur := challengeBetween(b.e2e, dana, alice)
	playScript(b.e2e, msg, cur, []move{{dana, 0, 0}, {alice, 1, 0}, {dana, 0, 1}, {alice, 1, 1}, {dana, 0, 2}})
	live, cur := challengeBetween(b.e2e, alice, dana)
	playScript(b.e2e, live, cur, []move{{alice, 1, 1}})
	// bob blocks dana (his action, not hers) and dana blocks bob.
	for _, bl := range [][2]string{{bob, dana}, {dana, bob}} {
		b.wantText(mustResponse(b.command(bl[0], command.SubBlock, userOpt(bl[1]))), bot.KeyBlockDone, "user", mentionOf(bl[1]))
	}
	pseudonym, err := b.store.Pseudonym(dana)
	if err != nil {
		t.Fatal(err)
	}
	if len(storedAnywhere(b, dana, pseudonym)) == 0 {
		t.Fatal("setup: nothing stored about dana")
	}
	// What forgetting keeps is there to be kept: bob's block, dana's
	// cooldown (her challenge of alice) and her rate-limit bucket.
	for _, family := range keptProtections[:3] {
		if !slices.ContainsFunc(storedAnywhere(b, dana, pseudonym), func(line string) bool { return strings.HasPrefix(line, family) }) {
			t.Fatalf("setup: no %s key names dana", family)
		}
	}

	// What is kept, privately.
	r, _ := b.command(dana, command.SubPrivacy)
	if !r.Message.Ephemeral || r.Message.VisibleTo != dana || !strings.Contains(r.Message.Content, "/ttt forget-me") ||
		!strings.Contains(r.Message.Content, "90 days") {
		t.Fatalf("/ttt privacy answered %q (ephemeral %v)", r.Message.Content, r.Message.Ephemeral)
	}

	// forget-me asks first; nothing is deleted yet.
	r, _ = b.command(dana, command.SubForgetMe)
	if !r.Message.Ephemeral || r.Message.VisibleTo != dana || r.Message.Content != b.cat.Text(i18n.DefaultLocale, "forget_me.confirm") {
		t.Fatalf("/ttt forget-me answered %q (ephemeral %v)", r.Message.Content, r.Message.Ephemeral)
	}
	confirm := r.Message
	id, btn := b.button(confirm, customid.ActionForgetMe)
	if id.Owner != dana || btn.Style != int(discordgo.DangerButton) {
		t.Fatalf("confirm button %+v (style %d), want a red button owned by dana", id, btn.Style)
	}
	if _, err := b.store.Stats(b.ctx, e2eGuild, dana); err != nil {
		t.Fatalf("dana's stats before confirming: %v", err)
	}
	// Someone else pressing it (the button copied into a public message)
	// is refused privately, and deletes nothing.
	rr, _ := b.click(bob, b.post(btn.CustomID), btn.CustomID)
	b.wantReply(rr, bot.KeyNotYourConfirm)
	if rr.Message.VisibleTo != bob {
		t.Fatalf("the refusal is visible to %q, want bob only", rr.Message.VisibleTo)
	}
	if _, err := b.store.Stats(b.ctx, e2eGuild, dana); err != nil {
		t.Fatalf("dana's stats after bob's click: %v", err)
	}

	// dana confirms: the confirmation turns into a note, then the report.
	done := forgetConfirm(b, dana, 0, confirm.ID, btn.CustomID)
	if !strings.HasPrefix(done.Content, b.cat.Text(i18n.DefaultLocale, "forget_me.done")) ||
		!strings.Contains(done.Content, b.cat.Text(i18n.DefaultLocale, "forget.stats", "count", "2")) ||
		!strings.Contains(done.Content, b.cat.Text(i18n.DefaultLocale, "forget.corpus", "count", "2")) {
		t.Fatalf("report %q", done.Content)
	}
	// The game in play ended without a result, its board updated, and
	// alice is free again.
	board := b.waitEdited(live, b.cat.Text(i18n.DefaultLocale, "result.moderator"))
	b.noLiveCells(board)
	if strings.Contains(board.Content, dana) {
		t.Fatalf("the ended board still names dana: %q", board.Content)
	}
	if _, err := b.store.ActiveGame(b.ctx, e2eChannel, alice); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("alice's live game after dana left: %v", err)
	}

	// dana's ID is in no key name and no value, whoever's action stored
	// it: not in bob's block list, nor in the names of her cooldown, her
	// rate-limit bucket or the throttle of the forget-me that just ran.
	if left := storedAnywhere(b, dana); len(left) > 0 {
		t.Fatalf("dana's ID is still stored:\n%s", strings.Join(left, "\n"))
	}
	// Her pseudonym is left only where forgetting keeps it on purpose,
	// and is still there in each: bob's block of her (his protection),
	// her running cooldown and rate limit, which forgetting must not
	// reset, and the forget-me throttle (all three expire by themselves).
	// Her own blocks are gone.
	seen := map[string]bool{}
	for _, line := range storedAnywhere(b, pseudonym) {
		i := slices.IndexFunc(keptProtections, func(f string) bool { return strings.HasPrefix(line, f) })
		if i < 0 || strings.HasPrefix(line, "ttt:block:{u:"+pseudonym+"}") {
			t.Errorf("dana's pseudonym is still stored: %s", line)
			continue
		}
		seen[keptProtections[i]] = true
	}
	for _, family := range keptProtections {
		if !seen[family] {
			t.Errorf("no %s key names dana's pseudonym after forget-me: forgetting must keep it", family)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	// The protections still work: bob's block refuses dana's challenge,
	// and her cooldown still runs.
	if blocked, err := b.store.Blocked(b.ctx, bob, dana); err != nil || !blocked {
		t.Fatalf("bob's block of dana after dana left: %v %v, want kept", blocked, err)
	}
	b.wantText(mustResponse(b.command(dana, command.SubChallenge, opponentOpt(bob))), bot.KeyCantPlay, "user", mentionOf(bob))
	if r, _ := b.command(dana, command.SubChallenge, opponentOpt(carol)); !strings.HasPrefix(r.Message.Content, "You can challenge again <t:") {
		t.Fatalf("dana's challenge after forget-me answered %q, want her cooldown still running", r.Message.Content)
	}
	if left := storedAnywhere(b, dana); len(left) > 0 {
		t.Fatalf("dana's refused challenges stored her ID:\n%s", strings.Join(left, "\n"))
	}
	// alice keeps her side: her stats, and her history with the game
	// against a forgotten player.
	if st, err := b.store.Stats(b.ctx, e2eGuild, alice); err != nil || st.Losses != 1 {
		t.Fatalf("alice's stats %+v %v, want her loss kept", st, err)
	}
	h, n, err := b.store.History(b.ctx, alice, "", "", 0, 10)
	if err != nil || n != 1 || h[0].Opponent.User != persistence.ForgottenUser {
		t.Fatalf("alice's history %+v (%d, %v), want the game against %s", h, n, err, persistence.ForgottenUser)
	}

	// Again at once: refused, since each run reads the whole store (a
	// later run finds nothing more: persistence's TestForgetUser).
	r, _ = b.command(dana, command.SubForgetMe)
	_, btn = b.button(r.Message, customid.ActionForgetMe)
	again, _ := b.click(dana, r.Message.ID, btn.CustomID)
	if !again.Message.Ephemeral || !strings.HasPrefix(again.Message.Content, "That ran moments ago; it can run again <t:") {
		t.Fatalf("a second forget-me at once answered %q", again.Message.Content)
	}
}

func forgetServerScenario(t *testing.T, b *scenarioBed) {
	msg, cur := startChallenge(b.e2e)
	playScript(b.e2e, msg, cur, []move{{alice, 0, 0}, {bob, 1, 0}, {alice, 0, 1}, {bob, 1, 1}, {alice, 0, 2}})
	if _, err := b.store.Stats(b.ctx, e2eGuild, alice); err != nil {
		t.Fatal(err)
	}

	// The server lets everyone see /ttt-admin; the bot still checks.
	ses, err := b.srv.Session()
	if err != nil {
		t.Fatal(err)
	}
	cmds := b.bot.Commands()
	for _, c := range cmds {
		c.DefaultMemberPermissions = nil
	}
	if _, err := ses.ApplicationCommandBulkOverwrite(b.srv.AppID(), e2eGuild, cmds); err != nil {
		t.Fatal(err)
	}
	r, _ := b.admin(bob, 0, command.SubForgetGuild)
	b.wantReply(r, bot.KeyNotModerator)

	r, _ = b.admin(carol, modPerms, command.SubForgetGuild)
	if !r.Message.Ephemeral || r.Message.Content != b.cat.Text(i18n.DefaultLocale, "forget_server.confirm") {
		t.Fatalf("/ttt-admin forget-server answered %q (ephemeral %v)", r.Message.Content, r.Message.Ephemeral)
	}
	confirm := r.Message
	_, btn := b.button(confirm, customid.ActionForgetServer)
	// Another moderator may not press it for carol.
	rr := clickAs(b, alice, modPerms, b.post(btn.CustomID), btn.CustomID)
	b.wantReply(rr, bot.KeyNotYourConfirm)
	// Nor carol, once no longer a moderator.
	rr = clickAs(b, carol, 0, b.post(btn.CustomID), btn.CustomID)
	b.wantReply(rr, bot.KeyNotModerator)
	if _, err := b.store.Stats(b.ctx, e2eGuild, alice); err != nil {
		t.Fatalf("the server's stats went before the confirmation: %v", err)
	}

	done := forgetConfirm(b, carol, modPerms, confirm.ID, btn.CustomID)
	if !strings.HasPrefix(done.Content, b.cat.Text(i18n.DefaultLocale, "forget_server.done")) ||
		!strings.Contains(done.Content, b.cat.Text(i18n.DefaultLocale, "forget.guild_stats", "count", "2")) {
		t.Fatalf("report %q", done.Content)
	}
	for _, u := range []string{alice, bob} {
		if _, err := b.store.Stats(b.ctx, e2eGuild, u); !errors.Is(err, persistence.ErrNotFound) {
			t.Fatalf("%s's stats in the server after forget-server: %v", u, err)
		}
		if st, err := b.store.Stats(b.ctx, "", u); err != nil || st.Games != 1 {
			t.Fatalf("%s's global stats %+v %v, want them kept", u, st, err)
		}
		if _, n, err := b.store.History(b.ctx, u, "", "", 0, 10); err != nil || n != 0 {
			t.Fatalf("%s's history has %d entries (%v), want the server's game gone", u, n, err)
		}
	}
	if left := storedAnywhere(b, "{g:"+e2eGuild+"}"); len(left) > 0 {
		t.Fatalf("the server's keys are left:\n%s", strings.Join(left, "\n"))
	}

	// Again at once: refused.
	r, _ = b.admin(carol, modPerms, command.SubForgetGuild)
	_, btn = b.button(r.Message, customid.ActionForgetServer)
	if again := clickAs(b, carol, modPerms, r.Message.ID, btn.CustomID); !strings.HasPrefix(again.Message.Content, "That ran moments ago") {
		t.Fatalf("a second forget-server at once answered %q", again.Message.Content)
	}
	// The gateway's removal of the bot from a server does the same.
	if err := b.bot.ForgetGuild(b.ctx, e2eGuild); err != nil {
		t.Fatal(err)
	}
}

// challengeBetween has x challenge o with x first and o accept, and
// returns the board's message ID and the board.
func challengeBetween(e *e2e, x, o string) (string, *fakediscord.Message) {
	e.t.Helper()
	r, _ := e.command(x, command.SubChallenge, opponentOpt(o), fakediscord.Option{Name: "first", Value: "me"})
	msg := r.Message.ID
	e.trackedChallenge(r.Message, customid.ActionAccept)
	_, accept := e.button(r.Message, customid.ActionAccept)
	r, _ = e.click(o, msg, accept.CustomID)
	if s := e.game(r.Message); s.Status != persistence.StatusActive || s.Players[0].User != x || s.Players[1].User != o {
		e.t.Fatalf("game %+v, want %s (X) against %s (O), active", s, x, o)
	}
	return msg, r.Message
}

// clickAs clicks a button as user with the member permissions perms and
// returns the first response.
func clickAs(b *scenarioBed, user string, perms int64, message, customID string) fakediscord.Response {
	b.t.Helper()
	a := actor(user)
	a.Permissions = perms
	d, err := b.srv.Click(b.ctx, fakediscord.ClickSpec{Actor: a, MessageID: message, CustomID: customID})
	if err != nil {
		b.t.Fatalf("click %s: %v", customID, err)
	}
	return b.wait(d)
}

// forgetConfirm presses a forget confirmation as user (with perms) and
// returns the report it is edited into, after checking the note shown
// while the deletion ran.
func forgetConfirm(b *scenarioBed, user string, perms int64, message, customID string) *fakediscord.Message {
	b.t.Helper()
	a := actor(user)
	a.Permissions = perms
	d, err := b.srv.Click(b.ctx, fakediscord.ClickSpec{Actor: a, MessageID: message, CustomID: customID})
	if err != nil {
		b.t.Fatalf("confirm: %v", err)
	}
	r := b.wait(d)
	if r.Type != int(discordgo.InteractionResponseUpdateMessage) || r.Message.ID != message ||
		r.Message.Content != b.cat.Text(i18n.DefaultLocale, "forget.working") || len(r.Message.Buttons()) != 0 {
		b.t.Fatalf("confirm answered type %d on %s: %q with %d buttons, want the note on the confirmation, without its button",
			r.Type, r.Message.ID, r.Message.Content, len(r.Message.Buttons()))
	}
	ed, err := d.Wait(b.ctx)
	if err != nil || ed.Kind != fakediscord.KindEditOriginal || ed.Message.ID != message {
		b.t.Fatalf("after the deletion: %+v %v, want the confirmation edited into the report", ed, err)
	}
	if !ed.Message.Ephemeral || len(ed.Message.Buttons()) != 0 {
		b.t.Fatalf("report ephemeral %v with %d buttons, want a private report without buttons", ed.Message.Ephemeral, len(ed.Message.Buttons()))
	}
	return ed.Message
}

// storedAnywhere returns, for every key of the bot's redis whose name or
// value (whatever its type) contains one of needles, a line naming it.
func storedAnywhere(b *scenarioBed, needles ...string) []string {
	b.t.Helper()
	rc := redistest.Client(b.t, b.redis)
	var out []string
	iter := rc.Scan(b.ctx, 0, "*", 1000).Iterator()
	for iter.Next(b.ctx) {
		key := iter.Val()
		typ, err := rc.Type(b.ctx, key).Result()
		if err != nil {
			b.t.Fatal(err)
		}
		var v any
		switch typ {
		case "string":
			v, err = rc.Get(b.ctx, key).Result()
		case "hash":
			v, err = rc.HGetAll(b.ctx, key).Result()
		case "list":
			v, err = rc.LRange(b.ctx, key, 0, -1).Result()
		case "set":
			v, err = rc.SMembers(b.ctx, key).Result()
		case "zset":
			v, err = rc.ZRangeWithScores(b.ctx, key, 0, -1).Result()
		case "stream":
			v, err = rc.XRange(b.ctx, key, "-", "+").Result()
		case "none":
			continue // gone since the scan saw it
		default:
			b.t.Fatalf("key %s of type %s", key, typ)
		}
		if err != nil && !errors.Is(err, redis.Nil) {
			b.t.Fatal(err)
		}
		line := fmt.Sprintf("%s (%s): %v", key, typ, v)
		for _, n := range needles {
			if strings.Contains(line, n) {
				out = append(out, line)
				break
			}
		}
	}
	if err := iter.Err(); err != nil {
		b.t.Fatal(err)
	}
	return out
}
