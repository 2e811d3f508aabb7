package bot_test

import (
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot"
	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
	"github.com/tttbot/ttt-bot/bot/httpmode"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/settings"
)

// moderatorPerms are a moderator's permissions: Manage Server.
const moderatorPerms = discordgo.PermissionManageGuild | discordgo.PermissionViewChannel | discordgo.PermissionSendMessages

// set runs /ttt-admin set as a moderator and checks the private answer.
func set(b *scenarioBed, setting, value string) fakediscord.Response {
	b.t.Helper()
	r, _ := b.admin(alice, moderatorPerms, command.SubSet, fakediscord.Option{Name: "setting", Value: setting}, fakediscord.Option{Name: "value", Value: value})
	if !r.Message.Ephemeral {
		b.t.Fatalf("/ttt-admin set answered publicly: %q", r.Message.Content)
	}
	return r
}

// TestE2ESettings runs each per-server setting over both transports: the
// refusal it causes, in words that say which rule and where to play, and
// the settings message, its buttons and the audit log.
func TestE2ESettings(t *testing.T) {
	t.Parallel()
	scenarios := []scenario{
		{"channels", func(t *testing.T, b *scenarioBed) {
			r := set(b, settings.Channels, "<#70> <#71>")
			if !strings.Contains(r.Message.Content, "<#70> <#71>") {
				t.Fatalf("set answered %q", r.Message.Content)
			}
			for _, sub := range []string{command.SubChallenge, command.SubPuzzle} {
				r, _ = b.command(bob, sub)
				if !r.Message.Ephemeral || r.Message.Content != "Games can be started in <#70> and <#71>." {
					t.Fatalf("/ttt %s in another channel answered %q", sub, r.Message.Content)
				}
			}
			r, _ = b.command(bob, command.SubVsAI, fakediscord.Option{Name: "level", Value: "easy"})
			if r.Message.Content != "Games can be started in <#70> and <#71>." {
				t.Fatalf("/ttt vs-ai answered %q", r.Message.Content)
			}
			// Back to every channel.
			set(b, settings.Channels, "all")
			startChallenge(b.e2e)
		}},
		{"role", func(t *testing.T, b *scenarioBed) {
			set(b, settings.Role, "<@&555>")
			r, _ := b.command(bob, command.SubVsAI, fakediscord.Option{Name: "level", Value: "easy"})
			if r.Message.Content != "You need the <@&555> role to play here." {
				t.Fatalf("without the role: %q", r.Message.Content)
			}
			a := actor(bob)
			a.Roles = []string{"555"}
			d, err := b.srv.Command(b.ctx, fakediscord.CommandSpec{Actor: a, Name: command.Name,
				Options: []fakediscord.Option{{Name: command.SubVsAI, Type: discordgo.ApplicationCommandOptionSubCommand,
					Options: []fakediscord.Option{{Name: "level", Value: "easy"}}}}})
			if err != nil {
				t.Fatal(err)
			}
			if r := b.wait(d); r.Message.Ephemeral || len(r.Message.Buttons()) < 9 {
				t.Fatalf("with the role: %q", r.Message.Content)
			}
		}},
		{"turn time", func(t *testing.T, b *scenarioBed) {
			set(b, settings.TurnTime, "45s")
			_, cur := startChallenge(b.e2e)
			if s := b.game(cur); s.TurnTime != 45*time.Second {
				t.Fatalf("a new game has %s per move, want 45s", s.TurnTime)
			}
			r := set(b, settings.TurnTime, "5s")
			b.wantReply(r, "error.bad_setting.turn-time")
			set(b, settings.ChallengeExpiry, "2m")
			r, _ = b.command(carol, command.SubChallenge) // alice and bob are playing
			if s := b.trackedChallenge(r.Message, customid.ActionJoin); s.Deadline.Sub(s.Created) != 2*time.Minute {
				t.Fatalf("a challenge waits %s, want 2m", s.Deadline.Sub(s.Created))
			}
		}},
		{"default board", func(t *testing.T, b *scenarioBed) {
			set(b, settings.DefaultBoard, "4x4k3")
			r, _ := b.command(alice, command.SubChallenge, opponentOpt(bob))
			if s := b.trackedChallenge(r.Message, customid.ActionAccept); s.Rules != "4x4k3" {
				t.Fatalf("a challenge without a board is on %s, want 4x4k3", s.Rules)
			}
			r, _ = b.command(bob, command.SubVsAI, fakediscord.Option{Name: "level", Value: "easy"}, fakediscord.Option{Name: "board", Value: "3x3k3"})
			if s := b.game(r.Message); s.Rules != "3x3k3" {
				t.Fatalf("a game naming its board is on %s, want 3x3k3", s.Rules)
			}
		}},
		{"challenge cooldown", func(t *testing.T, b *scenarioBed) {
			challengeAndCancel := func() fakediscord.Response {
				t.Helper()
				r, _ := b.command(carol, command.SubChallenge)
				if r.Message.Ephemeral {
					return r
				}
				b.trackedChallenge(r.Message, customid.ActionCancel)
				_, cancel := b.button(r.Message, customid.ActionCancel)
				b.click(carol, r.Message.ID, cancel.CustomID)
				return r
			}
			set(b, settings.ChallengeCooldown, "off")
			for range 2 {
				if r := challengeAndCancel(); r.Message.Ephemeral {
					t.Fatalf("with no cooldown a challenge was refused: %q", r.Message.Content)
				}
			}
			set(b, settings.ChallengeCooldown, "10m")
			challengeAndCancel()
			if r := challengeAndCancel(); !r.Message.Ephemeral || !strings.HasPrefix(r.Message.Content, "You can challenge again <t:") {
				t.Fatalf("within the server's cooldown: %q", r.Message.Content)
			}
		}},
		{"board labels", func(t *testing.T, b *scenarioBed) {
			// labels checks that every cell of the board is labelled with
			// its name, a taken cell only when marks is false.
			labels := func(m *fakediscord.Message, marks bool) {
				t.Helper()
				taken := 0
				for c, btn := range b.cells(m) {
					want := c.String()
					if btn.Emoji != "" {
						taken++
						if marks {
							want = ""
						}
					}
					if btn.Label != want {
						t.Fatalf("cell %s (emoji %q) labelled %q, want %q", c, btn.Emoji, btn.Label, want)
					}
				}
				if taken == 0 {
					t.Fatal("no cell is taken")
				}
			}
			play := func(m *fakediscord.Message) *fakediscord.Message {
				t.Helper()
				r, _ := b.click(alice, m.ID, b.cells(m)[freeCells(b.e2e, m)[0]].CustomID)
				return r.Message
			}
			r, _ := b.command(alice, command.SubVsAI, fakediscord.Option{Name: "level", Value: "easy"}, fakediscord.Option{Name: "first", Value: "me"})
			b.tracked(r.Message)
			cur := play(r.Message)
			labels(cur, false)
			set(b, settings.BoardLabels, "compact")
			labels(play(cur), true)
			b.wantReply(set(b, settings.BoardLabels, "minimal"), "error.bad_setting.board-labels")
		}},
		{"unrated", func(t *testing.T, b *scenarioBed) {
			set(b, settings.Rated, "off")
			msg, cur := startChallenge(b.e2e)
			cur = playScript(b.e2e, msg, cur, []move{{alice, 0, 0}, {bob, 1, 0}, {alice, 0, 1}, {bob, 1, 1}, {alice, 0, 2}})
			if strings.Contains(cur.Content, "rating") {
				t.Fatalf("an unrated game shows rating changes:\n%s", cur.Content)
			}
			st, err := b.store.Stats(b.ctx, e2eGuild, alice)
			if err != nil || st.Wins != 1 || st.Rated != 0 {
				t.Fatalf("alice's stats %+v %v, want one win and no rated game", st, err)
			}
		}},
		{"hints and duels", func(t *testing.T, b *scenarioBed) {
			set(b, settings.Hints, "off")
			set(b, settings.Duels, "off")
			r, _ := b.command(bob, command.SubAIDuel, fakediscord.Option{Name: "x", Value: "easy"}, fakediscord.Option{Name: "o", Value: "random"})
			b.wantReply(r, bot.KeyDuelsOff)
			r, _ = b.command(alice, command.SubVsAI, fakediscord.Option{Name: "level", Value: "easy"}, fakediscord.Option{Name: "first", Value: "me"})
			b.tracked(r.Message)
			r, _ = b.command(alice, command.SubHint)
			b.wantReply(r, bot.KeyHintsOff)
			// The settings message switches them back on, for its owner only.
			r, _ = b.admin(alice, moderatorPerms, command.SubSettings)
			if !r.Message.Ephemeral || len(r.Message.Embeds) != 1 || !strings.Contains(settingField(r.Message, "hints"), "off") {
				t.Fatalf("settings message %+v", r.Message.Embeds)
			}
			var on string
			for _, btn := range r.Message.Buttons() {
				if btn.Label == "Turn on: Hints" {
					on = btn.CustomID
				}
			}
			if on == "" {
				t.Fatalf("no Turn on: Hints button in %+v", r.Message.Buttons())
			}
			// (The message is private: nobody else can see its buttons.
			// Who presses must still be a moderator.)
			c, _ := b.click(alice, r.Message.ID, on)
			b.wantReply(c, bot.KeyNotModerator)
			mod := actor(alice)
			mod.Permissions = moderatorPerms
			d, err := b.srv.Click(b.ctx, fakediscord.ClickSpec{Actor: mod, MessageID: r.Message.ID, CustomID: on})
			if err != nil {
				t.Fatal(err)
			}
			c = b.wait(d)
			if c.Type != int(discordgo.InteractionResponseUpdateMessage) || !strings.Contains(settingField(c.Message, "hints"), "✅") {
				t.Fatalf("switching hints on answered type %d %+v", c.Type, c.Message.Embeds)
			}
			r, _ = b.command(alice, command.SubHint)
			if r.Type != int(discordgo.InteractionResponseDeferredChannelMessageWithSource) {
				t.Fatalf("hint after switching hints on answered type %d %q", r.Type, r.Message.Content)
			}
			settled(b, r)
			// The menus choose the default board and the language.
			var boardMenu string
			for _, comp := range c.Message.Buttons() {
				if id, err := b.signer.Decode(comp.CustomID); err == nil && id.Action == customid.ActionSetting && strings.HasSuffix(string(id.Game), ".default-board") {
					boardMenu = comp.CustomID
				}
			}
			if boardMenu == "" {
				t.Fatalf("no default-board menu in %+v", c.Message.Buttons())
			}
			d, err = b.srv.Click(b.ctx, fakediscord.ClickSpec{Actor: mod, MessageID: c.Message.ID, CustomID: boardMenu, Values: []string{"5x5k4"}})
			if err != nil {
				t.Fatal(err)
			}
			if c = b.wait(d); !strings.Contains(settingField(c.Message, "default-board"), "5×5, 4 in a row") {
				t.Fatalf("after choosing 5x5k4: %q", settingField(c.Message, "default-board"))
			}
			if st, _ := b.store.GuildSettings(b.ctx, e2eGuild); st["default-board"] != "5x5k4" {
				t.Fatalf("stored settings %v", st)
			}
			// Discord's 32 languages take two menus of at most 25 options;
			// Thai is in the second.
			var langMenus []string
			for _, comp := range c.Message.Buttons() {
				if id, err := b.signer.Decode(comp.CustomID); err == nil && id.Action == customid.ActionSetting && strings.HasSuffix(string(id.Game), ".language") {
					langMenus = append(langMenus, comp.CustomID)
				}
			}
			if len(langMenus) != 2 {
				t.Fatalf("%d language menus, want 2", len(langMenus))
			}
			d, err = b.srv.Click(b.ctx, fakediscord.ClickSpec{Actor: mod, MessageID: c.Message.ID, CustomID: langMenus[1], Values: []string{"th"}})
			if err != nil {
				t.Fatal(err)
			}
			if c = b.wait(d); c.Type != int(discordgo.InteractionResponseUpdateMessage) || !strings.Contains(settingField(c.Message, "language"), "th") {
				t.Fatalf("after choosing th: type %d %q", c.Type, settingField(c.Message, "language"))
			}
			if st, _ := b.store.GuildSettings(b.ctx, e2eGuild); st["language"] != "th" {
				t.Fatalf("stored settings %v", st)
			}
			b.wantBoardIn(b.commandAs(actor("600"), command.SubVsAI, fakediscord.Option{Name: "level", Value: "easy"}, fakediscord.Option{Name: "first", Value: "me"}), discordgo.Thai)
		}},
		{"admin roles and log", func(t *testing.T, b *scenarioBed) {
			// (Who holds a moderator role is checked by TestModerator: the
			// fake Discord, like Discord, shows /ttt-admin only to members
			// with Manage Server unless the server allows the role in its
			// integration settings, which the fake does not model.)
			set(b, settings.AdminRoles, "<@&777>")
			r, _ := b.admin(alice, moderatorPerms, command.SubLog)
			if !r.Message.Ephemeral || !strings.Contains(r.Message.Content, "**set** `admin-roles=777`") {
				t.Fatalf("/ttt-admin log:\n%s", r.Message.Content)
			}
			// A moderator action is logged too.
			startChallenge(b.e2e)
			b.admin(alice, moderatorPerms, command.SubEndGame)
			r, _ = b.admin(alice, moderatorPerms, command.SubLog)
			lines := strings.Split(r.Message.Content, "\n")
			if len(lines) != 3 || !strings.Contains(lines[1], "**end-game**") || !strings.Contains(lines[2], "**set**") {
				t.Fatalf("audit log, newest first:\n%s", r.Message.Content)
			}
		}},
		{"bad values", func(t *testing.T, b *scenarioBed) {
			for _, tc := range []struct{ setting, value, key string }{
				{settings.Channels, "#games", "error.bad_setting.channels"},
				{settings.Role, "admins", "error.bad_setting.role"},
				{settings.Hints, "maybe", "error.bad_setting.hints"},
			} {
				b.wantReply(set(b, tc.setting, tc.value), tc.key)
			}
			// Channels and roles the server does not have.
			r := set(b, settings.Channels, "<#70> <#404>")
			if r.Message.Content != "I can't find <#404> among this server's text channels that I can see; name a channel where I can post." {
				t.Fatalf("an unknown channel: %q", r.Message.Content)
			}
			for _, setting := range []string{settings.Role, settings.AdminRoles} {
				if r := set(b, setting, "<@&404>"); r.Message.Content != "<@&404> isn't a role of this server; name one of its roles." {
					t.Fatalf("an unknown role for %s: %q", setting, r.Message.Content)
				}
			}
			if m, err := b.store.GuildSettings(b.ctx, e2eGuild); err != nil || len(m) != 0 {
				t.Fatalf("refused values were stored: %v %v", m, err)
			}
		}},
	}
	runScenarios(t, 41, bot.Options{}, func(b *scenarioBed) {
		b.sweeper(time.Second)
		b.srv.SetGuildChannels(e2eGuild, e2eChannel, "70", "71")
		b.srv.SetGuildRoles(e2eGuild, "555", "777")
	}, scenarios)
}

// TestE2ESettingsSecondReplica: a change made through one bot process is
// applied by another within moments, although that one had the old
// settings cached.
func TestE2ESettingsSecondReplica(t *testing.T) {
	t.Parallel()
	e, procs := newHTTPE2E(t, 2, bot.Options{RateBurst: -1}, httpmode.EndpointOptions{})
	for _, p := range procs {
		go p.bot.RunSweeper(e.ctx, time.Second)
	}
	// The second process answers, and caches the server's settings.
	e.srv.SetInteractionsURL(procs[1].url)
	r, _ := e.command(bob, command.SubAIDuel, fakediscord.Option{Name: "x", Value: "easy"}, fakediscord.Option{Name: "o", Value: "random"})
	if r.Message.Ephemeral {
		t.Fatalf("a duel before the change: %q", r.Message.Content)
	}
	// The first process changes them.
	e.srv.SetInteractionsURL(procs[0].url)
	r, _ = e.admin(alice, moderatorPerms, command.SubSet, fakediscord.Option{Name: "setting", Value: settings.Duels}, fakediscord.Option{Name: "value", Value: "off"})
	if !strings.Contains(r.Message.Content, "AI duels") {
		t.Fatalf("set answered %q", r.Message.Content)
	}
	// The second process refuses duels now, within seconds.
	e.srv.SetInteractionsURL(procs[1].url)
	deadline := time.Now().Add(5 * time.Second)
	for {
		r, _ = e.command(carol, command.SubAIDuel, fakediscord.Option{Name: "x", Value: "easy"}, fakediscord.Option{Name: "o", Value: "random"})
		if r.Message.Ephemeral && r.Message.Content == e.cat.Text(i18n.DefaultLocale, bot.KeyDuelsOff) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the second process still runs duels 5 s after the change: %q", r.Message.Content)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// settingField is the value shown for a setting in a settings message.
func settingField(m *fakediscord.Message, name string) string {
	if len(m.Embeds) == 0 {
		return ""
	}
	for _, f := range m.Embeds[0].Fields {
		if strings.HasSuffix(f.Name, "`"+name+"`") {
			return f.Value
		}
	}
	return ""
}
