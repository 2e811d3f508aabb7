package bot_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
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

// tournamentCmd runs /ttt-tournament <sub> as user (with perms).
func (e *e2e) tournamentCmd(user string, perms int64, sub string, opts ...fakediscord.Option) fakediscord.Response {
	e.t.Helper()
	a := actor(user)
	a.Permissions = perms
	d, err := e.srv.Command(e.ctx, fakediscord.CommandSpec{Actor: a, Name: command.TournamentName,
		Options: []fakediscord.Option{{Name: sub, Type: discordgo.ApplicationCommandOptionSubCommand, Options: opts}}})
	if err != nil {
		e.t.Fatalf("/ttt-tournament %s: %v", sub, err)
	}
	return e.wait(d)
}

// staleTournamentCmd runs /ttt tournament <sub>, the path before the group
// became /ttt-tournament, as a client whose cached list of commands is
// stale still sends it: as a (with a's locale).
func (e *e2e) staleTournamentCmd(a fakediscord.Actor, sub string, opts ...fakediscord.Option) fakediscord.Response {
	e.t.Helper()
	d, err := e.srv.Command(e.ctx, fakediscord.CommandSpec{Actor: a, Name: command.Name,
		Options: []fakediscord.Option{{Name: command.SubTournament, Type: discordgo.ApplicationCommandOptionSubCommandGroup,
			Options: []fakediscord.Option{{Name: sub, Type: discordgo.ApplicationCommandOptionSubCommand, Options: opts}}}}})
	if err != nil {
		e.t.Fatalf("/ttt tournament %s: %v", sub, err)
	}
	return e.wait(d)
}

// TestE2ETournamentMoved: a client with a stale list of commands still
// sends /ttt tournament <sub>, the old path of /ttt-tournament <sub>. It
// gets a private answer naming the new command, in the user's language
// and with the subcommand's name as their client shows it, not "unknown
// command"; and nothing is done, whatever the options.
func TestE2ETournamentMoved(t *testing.T) {
	t.Parallel()
	e := newE2E(t, bot.Options{RateBurst: -1, ChallengeCooldown: -1})
	subs := []string{command.TournamentCreate, command.TournamentStart, command.TournamentStatus, command.TournamentStandings,
		command.TournamentLeave, command.TournamentCancel, command.TournamentAddAI}
	for _, loc := range []discordgo.Locale{i18n.DefaultLocale, discordgo.German, discordgo.Japanese} {
		for _, sub := range subs {
			a := actor(alice)
			a.Permissions, a.Locale = moderatorPerms, string(loc)
			var opts []fakediscord.Option
			if sub == command.TournamentCreate {
				opts = []fakediscord.Option{{Name: "name", Value: "Stale Cup"}, {Name: "format", Value: "swiss"}}
			}
			r := e.staleTournamentCmd(a, sub, opts...)
			want := e.cat.Text(loc, render.KeyCommandMoved, "command", "/"+command.TournamentName+" "+e.cat.Text(loc, "cmd."+sub+".name"))
			if !r.Message.Ephemeral || r.Message.Content != want {
				t.Errorf("%s /ttt tournament %s answered ephemeral %v %q, want an ephemeral %q", string(loc), sub, r.Message.Ephemeral, r.Message.Content, want)
			}
		}
	}
	if ts, err := e.store.GuildTournaments(e.ctx, e2eGuild); err != nil || len(ts) != 0 {
		t.Fatalf("the old path did something: tournaments %v, %v", ts, err)
	}
	// The new path does what the old one did.
	r := e.tournamentCmd(alice, moderatorPerms, command.TournamentCreate, fakediscord.Option{Name: "name", Value: "New Cup"},
		fakediscord.Option{Name: "format", Value: "swiss"})
	e.signup("New Cup")
	if !r.Message.Ephemeral || !strings.Contains(r.Message.Content, "**New Cup** is created") {
		t.Fatalf("/ttt-tournament create answered %q", r.Message.Content)
	}
}

// wantUserText checks that r is an ephemeral answer with key's text.
func (e *e2e) wantUserText(r fakediscord.Response, key string, vars ...string) {
	e.t.Helper()
	want := render.ErrorText(e.cat, i18n.DefaultLocale, &bot.UserError{Key: key, Vars: vars})
	if !r.Message.Ephemeral || r.Message.Content != want {
		e.t.Fatalf("answer ephemeral %v %q, want an ephemeral %q", r.Message.Ephemeral, r.Message.Content, want)
	}
}

// signup returns the sign-up message of the tournament called name.
func (e *e2e) signup(name string) fakediscord.Message {
	e.t.Helper()
	m, err := e.srv.WaitMessage(e.ctx, e2eChannel, func(m fakediscord.Message) bool {
		return strings.HasPrefix(m.Content, "🏆 **"+name+"**\n") && !m.Ephemeral
	})
	if err != nil {
		e.t.Fatalf("no sign-up message for %s: %v", name, err)
	}
	return m
}

// tournamentOf waits until the guild's tournament called name satisfies
// ok, and returns it.
func (e *e2e) tournamentOf(name string, what string, ok func(*persistence.Tournament) bool) *persistence.Tournament {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ts, err := e.store.GuildTournaments(e.ctx, e2eGuild)
		if err != nil {
			e.t.Fatal(err)
		}
		for _, t := range ts {
			if t.Name == name && ok(t) {
				return t
			}
		}
		if time.Now().After(deadline) {
			for _, t := range ts { // what held it up
				e.t.Logf("tournament %s: status %d round %d, due %v, outbox %d/%d/%v", t.Name, t.Status, t.Round, t.Due, t.Announced, t.StandingsOf, t.FinalPosted)
				for _, p := range t.Games {
					if p.Game != "" && p.Result == "" {
						g, err := e.store.Game(e.ctx, p.Game)
						e.t.Logf("  open pairing %+v: game %v %v", p, g, err)
					}
				}
			}
			e.t.Fatalf("tournament %s: never %s", name, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// roundPosted waits until tournament name is in round with every game of
// the round created, and returns it.
func (e *e2e) roundPosted(name string, round int) *persistence.Tournament {
	e.t.Helper()
	return e.tournamentOf(name, fmt.Sprintf("in round %d with its games posted", round), func(t *persistence.Tournament) bool {
		if t.Round != round {
			return false
		}
		for _, p := range t.Games {
			if p.Round == round && !p.Bye() && p.Game == "" {
				return false
			}
		}
		return true
	})
}

// slowPost is a Discord whose posts take a while (a busy rate limit), so
// that a sweep outlasts the other process's ticks.
type slowPost struct{ rest.Discord }

func (d slowPost) ChannelMessageSendComplex(channel string, m *discordgo.MessageSend, o ...discordgo.RequestOption) (*discordgo.Message, error) {
	time.Sleep(150 * time.Millisecond)
	return d.Discord.ChannelMessageSendComplex(channel, m, o...)
}

// replica starts another bot process on its own Store against the same
// redis and the same fake Discord (REST only: the gateway goes to the
// first), and runs its sweeper: two processes share the sweeping.
func (e *e2e) replica() (stop func()) {
	t := e.t
	ses, err := e.srv.Session()
	if err != nil {
		t.Fatal(err)
	}
	store := persistence.New(redistest.Client(t, e.redis), persistence.Options{PseudonymKey: e2ePseudonymKey})
	b, err := bot.New(bot.Deps{Discord: slowPost{ses}, Store: store, Levels: ai.NewRegistry(), Catalog: e.cat, Signer: e.signer,
		Logger: slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})), AppID: e.srv.AppID()},
		bot.Options{RateBurst: -1, ChallengeCooldown: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.RunSweeper(ctx, 50*time.Millisecond)
	}()
	stop = func() {
		cancel()
		<-done
	}
	t.Cleanup(stop)
	return stop
}

// playRound finishes every game of the tournament's current round: in
// each, the player to move resigns (a human; the computer has moved
// first where it is X), or, when the human is O against a computer that
// has not moved yet, waits for its move. It returns how many games it
// ended.
func (e *e2e) playTournamentRound(t *persistence.Tournament) int {
	e.t.Helper()
	n := 0
	for _, p := range t.Games {
		if p.Round != t.Round || p.Bye() || p.Result != "" {
			continue
		}
		s := e.waitGame(p.Game, "posted and waiting for a person", func(s *persistence.Session) bool {
			if s.Message == "" {
				return false
			}
			if !s.Status.Live() {
				return true
			}
			m, err := s.ToMove()
			return err == nil && s.Seat(m).User != ""
		})
		if !s.Status.Live() {
			continue
		}
		m, _ := s.ToMove()
		user := s.Seat(m).User
		msg, ok := e.srv.Message(s.Message)
		if !ok {
			e.t.Fatalf("game %s: no board message %s", s.ID, s.Message)
		}
		_, resign := e.button(&msg, customid.ActionResign)
		r, _ := e.click(user, msg.ID, resign.CustomID)
		if r.Message.Ephemeral {
			e.t.Fatalf("%s resigning %s: %q", user, s.ID, r.Message.Content)
		}
		n++
	}
	return n
}

// waitGame waits until game id satisfies ok.
func (e *e2e) waitGame(id persistence.GameID, what string, ok func(*persistence.Session) bool) *persistence.Session {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s, err := e.store.Game(e.ctx, id)
		if err == nil && ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("game %s never %s: %+v %v", id, what, s, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestE2ETournament runs a 9-player Swiss of 4 rounds (eight people and
// a computer player) and a 6-player elimination through the fake Discord:
// sign-up by the Join buttons, refusals, the start, every round's games
// created and posted by the sweepers of two bot processes, a restart of
// the first between rounds, standings after each round and the final
// message with its picture.
func TestE2ETournament(t *testing.T) {
	e := newE2E(t, bot.Options{RateBurst: -1, ChallengeCooldown: -1})
	stopSweeper := e.sweeper(50 * time.Millisecond)
	e.replica()
	users := make([]string, 8)
	for i := range users {
		users[i] = fmt.Sprint(1000 + i)
	}
	const mod = alice

	// Bad input first: nothing to start, a non-moderator creating.
	e.wantUserText(e.tournamentCmd(users[0], 0, command.TournamentStart), "reply.tournament_none")
	e.wantUserText(e.tournamentCmd(users[0], 0, command.TournamentCreate, fakediscord.Option{Name: "name", Value: "Cup"},
		fakediscord.Option{Name: "format", Value: "swiss"}), "reply.tournament_not_allowed")

	r := e.tournamentCmd(mod, moderatorPerms, command.TournamentCreate, fakediscord.Option{Name: "name", Value: "Cup"},
		fakediscord.Option{Name: "format", Value: "swiss"}, fakediscord.Option{Name: "rounds", Value: 4})
	if !r.Message.Ephemeral {
		t.Fatalf("create answered %q publicly", r.Message.Content)
	}
	e.wantUserText(e.tournamentCmd(mod, moderatorPerms, command.TournamentCreate, fakediscord.Option{Name: "name", Value: "cup"},
		fakediscord.Option{Name: "format", Value: "round-robin"}), "reply.tournament_name_taken", "name", "cup")
	e.tournamentCmd(mod, moderatorPerms, command.TournamentCreate, fakediscord.Option{Name: "name", Value: "Solo"},
		fakediscord.Option{Name: "format", Value: "single-elimination"})
	e.wantUserText(e.tournamentCmd(mod, moderatorPerms, command.TournamentStart), "reply.tournament_which", "names", "**Cup**, **Solo**")
	e.wantUserText(e.tournamentCmd(mod, moderatorPerms, command.TournamentStart, fakediscord.Option{Name: "tournament", Value: "Nope"}),
		"reply.tournament_unknown", "name", "Nope", "names", "**Cup**, **Solo**")
	e.wantUserText(e.tournamentCmd(mod, moderatorPerms, command.TournamentStart, fakediscord.Option{Name: "tournament", Value: "Solo"}),
		"reply.tournament_too_few", "name", "Solo", "count", "0")
	e.tournamentCmd(mod, moderatorPerms, command.TournamentCancel, fakediscord.Option{Name: "tournament", Value: "Solo"})

	// Sign-up: eight people by the Join button, and a computer player.
	m := e.signup("Cup")
	_, join := e.button(&m, customid.ActionTournament)
	for i, u := range users {
		r, _ := e.click(u, m.ID, join.CustomID)
		if r.Type != int(discordgo.InteractionResponseUpdateMessage) || !strings.Contains(r.Message.Content, fmt.Sprintf("%d player", i+1)) {
			t.Fatalf("%s joining: type %d %q", u, r.Type, r.Message.Content)
		}
	}
	r, _ = e.click(users[0], m.ID, join.CustomID)
	e.wantUserText(r, "reply.tournament_already_in", "name", "Cup")
	e.tournamentCmd(mod, moderatorPerms, command.TournamentAddAI, fakediscord.Option{Name: "level", Value: "random"})
	e.wantUserText(e.tournamentCmd(users[1], 0, command.TournamentStart), "reply.tournament_not_allowed")

	r = e.tournamentCmd(mod, moderatorPerms, command.TournamentStart)
	if r.Message.Ephemeral || !strings.Contains(r.Message.Content, "round 1 of 4") {
		t.Fatalf("start answered %q", r.Message.Content)
	}
	e.wantUserText(e.tournamentCmd(users[2], 0, command.TournamentLeave), "reply.tournament_started", "name", "Cup")
	if m, _ := e.srv.Message(m.ID); len(m.Buttons()) != 0 {
		t.Fatalf("the sign-up still has buttons after the start: %+v", m.Buttons())
	}

	for round := 1; round <= 4; round++ {
		tn := e.roundPosted("Cup", round)
		if n := e.playTournamentRound(tn); n > 4 {
			t.Fatalf("round %d: %d games resigned, want at most 4", round, n)
		}
		if round == 2 {
			// The first process stops mid-tournament and starts again; the
			// replica sweeps meanwhile.
			stopSweeper()
			if err := e.ses.Close(); err != nil {
				t.Fatal(err)
			}
			store := persistence.New(redistest.Client(t, e.redis), persistence.Options{PseudonymKey: e2ePseudonymKey})
			e.openGateway(store, bot.Options{RateBurst: -1, ChallengeCooldown: -1}, nil)
			stopSweeper = e.sweeper(50 * time.Millisecond)
		}
	}
	tn := e.tournamentOf("Cup", "finished", func(t *persistence.Tournament) bool { return t.Status == persistence.TournamentFinished })
	if len(tn.Games) != 4*5 {
		t.Fatalf("%d pairings, want 4 rounds of 4 games and a bye", len(tn.Games))
	}
	final, err := e.srv.WaitMessage(e.ctx, e2eChannel, func(m fakediscord.Message) bool {
		return strings.HasPrefix(m.Content, "🏆 **Cup** is over")
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(final.Attachments) != 1 || final.Attachments[0].Filename != render.TournamentPictureName {
		t.Fatalf("final message attachments %+v, want the standings picture", final.Attachments)
	}
	standings := 0
	for _, m := range e.srv.Messages(e2eChannel) {
		if len(m.Embeds) == 1 && strings.HasPrefix(m.Embeds[0].Title, "🏆 Cup: standings after round ") {
			standings++
		}
	}
	if standings != 4 {
		t.Fatalf("%d standings messages, want one per round (4)", standings)
	}
	e.exactlyOnce(tn)

	// A 6-player elimination: five people and a computer player; the top
	// two seeds have byes; matches are played as their players are known.
	e.tournamentCmd(mod, moderatorPerms, command.TournamentCreate, fakediscord.Option{Name: "name", Value: "Knockout"},
		fakediscord.Option{Name: "format", Value: "single-elimination"})
	m = e.signup("Knockout")
	_, join = e.button(&m, customid.ActionTournament)
	for _, u := range users[:5] {
		e.click(u, m.ID, join.CustomID)
	}
	e.tournamentCmd(mod, moderatorPerms, command.TournamentAddAI, fakediscord.Option{Name: "level", Value: "easy"},
		fakediscord.Option{Name: "tournament", Value: "Knockout"})
	e.tournamentCmd(mod, moderatorPerms, command.TournamentStart, fakediscord.Option{Name: "tournament", Value: "Knockout"})
	for played := 0; ; {
		tn := e.tournamentOf("Knockout", "with a game to play, or over", func(t *persistence.Tournament) bool {
			if t.Status == persistence.TournamentFinished {
				return true
			}
			for _, p := range t.Games {
				if !p.Bye() && p.Result == "" && p.Game != "" {
					return true
				}
			}
			return false
		})
		if tn.Status == persistence.TournamentFinished {
			if played != 5 {
				t.Fatalf("the elimination finished after %d games, want 5 (6 players)", played)
			}
			break
		}
		for _, p := range tn.Games {
			if p.Bye() || p.Result != "" || p.Game == "" {
				continue
			}
			tn.Round = p.Round
			played += e.playTournamentRound(&persistence.Tournament{Round: p.Round, Games: []persistence.Pairing{p}})
		}
		if played > 5 {
			t.Fatalf("%d games played in a 6-player elimination", played)
		}
	}
	final, err = e.srv.WaitMessage(e.ctx, e2eChannel, func(m fakediscord.Message) bool {
		return strings.HasPrefix(m.Content, "🏆 **Knockout** is over") && strings.Contains(m.Content, "🥇")
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(final.Attachments) != 1 {
		t.Fatalf("final message attachments %+v, want the bracket", final.Attachments)
	}
	e.exactlyOnce(e.tournamentOf("Knockout", "finished", func(t *persistence.Tournament) bool { return t.Status == persistence.TournamentFinished }))
	e.noFailures()
}

// exactlyOnce checks that two processes sweeping (and a restart) posted
// every game of tn exactly one board that pings its players, each round
// one announcement, and one final message; and that every game's result
// is the one its board shows.
func (e *e2e) exactlyOnce(tn *persistence.Tournament) {
	e.t.Helper()
	boards := map[string]int{}
	rounds := map[string]int{}
	finals := 0
	for _, m := range e.srv.Messages(e2eChannel) {
		for _, b := range m.Buttons() {
			if id, err := e.signer.Decode(b.CustomID); err == nil && id.Action != customid.ActionTournament {
				boards[string(id.Game)]++
				break
			}
		}
		if strings.HasPrefix(m.Content, "🏆 **"+tn.Name+"**, round ") {
			rounds[strings.SplitN(m.Content, ":", 2)[0]]++
		}
		if strings.HasPrefix(m.Content, "🏆 **"+tn.Name+"** is over") {
			finals++
		}
	}
	for _, p := range tn.Games {
		if p.Bye() {
			continue
		}
		if n := boards[string(p.Game)]; n != 1 {
			e.t.Errorf("game %s (round %d) has %d boards, want 1", p.Game, p.Round, n)
		}
		s, err := e.store.Game(e.ctx, p.Game)
		if err != nil {
			e.t.Fatal(err)
		}
		want := map[game.Result]string{game.XWins: "x", game.OWins: "o", game.Draw: "draw"}[s.Result]
		if p.Result != want {
			e.t.Errorf("game %s ended %v but the tournament has %q", p.Game, s.Result, p.Result)
		}
	}
	for round, n := range rounds {
		if n != 1 {
			e.t.Errorf("%q announced %d times", round, n)
		}
	}
	if tn.Format != command.FormatElimination && len(rounds) != tn.Rounds {
		e.t.Errorf("%d rounds announced, want %d", len(rounds), tn.Rounds)
	}
	if finals != 1 {
		e.t.Errorf("%d final messages, want 1", finals)
	}
}

// sweepsIdle waits until no sweeper holds a tournament: a test that moves
// a frozen clock on by a claim's lease (a minute) must not do it while a
// step is under way, or a second sweeper would take the tournament too
// (the clock of a real process never jumps).
func (e *e2e) sweepsIdle() {
	e.t.Helper()
	rdb := redistest.Client(e.t, e.redis)
	deadline := time.Now().Add(20 * time.Second)
	for {
		n, err := rdb.ZCard(e.ctx, "ttt:{tournaments}:claimed").Result()
		if err != nil {
			e.t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("%d tournaments still claimed", n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// failingPost is a Discord whose posts fail while a message's text
// contains what it is set to refuse (a missing permission, a rate limit).
type failingPost struct {
	rest.Discord
	refuse *atomic.Pointer[string]
}

func (d failingPost) ChannelMessageSendComplex(channel string, m *discordgo.MessageSend, o ...discordgo.RequestOption) (*discordgo.Message, error) {
	if s := d.refuse.Load(); s != nil && strings.Contains(m.Content, *s) {
		return nil, fmt.Errorf("test: post refused: %q", m.Content)
	}
	return d.Discord.ChannelMessageSendComplex(channel, m, o...)
}

// TestE2ETournamentStartTime: sign-up closes by itself at the start
// time. With enough players the tournament starts and its first round is
// posted; with too few it is cancelled, its sign-up says so and the
// channel is told once, even when the first try to tell it fails.
func TestE2ETournamentStartTime(t *testing.T) {
	t.Parallel()
	clk := newClock()
	refuse := &atomic.Pointer[string]{}
	e := newE2EWrapped(t, bot.Options{Now: clk.Now, RateBurst: -1, ChallengeCooldown: -1}, persistence.Options{Now: clk.Now},
		func(d rest.Discord) rest.Discord { return failingPost{d, refuse} })
	e.sweeper(5 * time.Millisecond)
	const mod = alice
	users := []string{"2001", "2002", "2003"}
	create := func(name, start string) fakediscord.Message {
		t.Helper()
		e.tournamentCmd(mod, moderatorPerms, command.TournamentCreate, fakediscord.Option{Name: "name", Value: name},
			fakediscord.Option{Name: "format", Value: "swiss"}, fakediscord.Option{Name: "start", Value: start})
		m := e.signup(name)
		if want := e.cat.Text(i18n.DefaultLocale, "tournament.signup_open", "start", "<t:"+itoa(clk.Now().Add(30*time.Minute).Unix())+":R>"); !strings.Contains(m.Content, want) {
			t.Fatalf("sign-up %q; want %q", m.Content, want)
		}
		return m
	}
	// A delay, and the same time as a Discord timestamp.
	cup, lone := create("Early", "30m"), create("Lonely", "<t:"+itoa(clk.Now().Add(30*time.Minute).Unix())+":F>")
	_, join := e.button(&cup, customid.ActionTournament)
	for _, u := range users {
		e.click(u, cup.ID, join.CustomID)
	}
	_, join = e.button(&lone, customid.ActionTournament)
	e.click(users[0], lone.ID, join.CustomID)
	notice := e.cat.Text(i18n.DefaultLocale, "tournament.too_few_cancelled", "name", "Lonely")
	refuse.Store(&notice)

	e.sweepsIdle()
	clk.Advance(29 * time.Minute)
	e.sweeps(2) // sweeps that must start nothing
	for _, name := range []string{"Early", "Lonely"} {
		e.tournamentOf(name, "in sign-up before its start time", func(t *persistence.Tournament) bool {
			return t.Status == persistence.TournamentSignup
		})
	}

	e.sweepsIdle()
	clk.Advance(time.Minute)
	e.tournamentOf("Early", "started with its game posted", func(t *persistence.Tournament) bool {
		return t.Status == persistence.TournamentRunning && len(t.Games) == 2 && t.Announced == 1 &&
			slices.ContainsFunc(t.Games, func(p persistence.Pairing) bool { return p.Created })
	})
	if m, _ := e.srv.Message(cup.ID); len(m.Buttons()) != 0 || !strings.Contains(m.Content, e.cat.Text(i18n.DefaultLocale, "tournament.started")) {
		t.Fatalf("the started sign-up: %q with %d buttons", m.Content, len(m.Buttons()))
	}
	tn := e.tournamentOf("Lonely", "cancelled, its notice not yet posted", func(t *persistence.Tournament) bool {
		return t.Status == persistence.TournamentCancelled && t.TooFew
	})
	if m, _ := e.srv.Message(lone.ID); len(m.Buttons()) != 0 || !strings.Contains(m.Content, e.cat.Text(i18n.DefaultLocale, "tournament.state.cancelled")) {
		t.Fatalf("the cancelled sign-up: %q with %d buttons", m.Content, len(m.Buttons()))
	}
	if tn.FinalPosted || tn.Due.IsZero() {
		t.Fatalf("a notice that failed to post: posted %v, due %v; want still due", tn.FinalPosted, tn.Due)
	}

	// The channel can be posted in again: the next look posts the notice.
	refuse.Store(nil)
	e.sweepsIdle()
	clk.Advance(time.Minute)
	e.tournamentOf("Lonely", "with its notice posted", func(t *persistence.Tournament) bool { return t.FinalPosted && t.Due.IsZero() })
	e.sweepsIdle()
	clk.Advance(time.Minute)
	e.sweeps(2) // sweeps that must post nothing more
	n := 0
	for _, m := range e.srv.Messages(e2eChannel) {
		if m.Content == notice {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("the too-few notice was posted %d times; want once", n)
	}
}

// TestE2ETournamentBusyPlayer: a tournament game waits while one of its
// players finishes another game in the channel (one live game per player
// and channel), and starts within seconds of that game's end rather than
// at the tournament's next regular look.
func TestE2ETournamentBusyPlayer(t *testing.T) {
	t.Parallel()
	clk := newClock()
	e := newE2EStore(t, bot.Options{Now: clk.Now, RateBurst: -1, ChallengeCooldown: -1}, persistence.Options{Now: clk.Now})
	e.sweeper(5 * time.Millisecond)
	const mod, busy, other, friend = alice, "3001", "3002", "3003"
	e.tournamentCmd(mod, moderatorPerms, command.TournamentCreate, fakediscord.Option{Name: "name", Value: "Busy"},
		fakediscord.Option{Name: "format", Value: "round-robin"})
	m := e.signup("Busy")
	_, join := e.button(&m, customid.ActionTournament)
	e.click(busy, m.ID, join.CustomID)
	e.click(other, m.ID, join.CustomID)

	// friendly starts a game between user and friend in the channel.
	friendly := func(user, friend string) fakediscord.Response {
		r, _ := e.command(user, command.SubChallenge, opponentOpt(friend))
		_, accept := e.button(r.Message, customid.ActionAccept)
		e.trackedChallenge(r.Message, customid.ActionAccept)
		board, _ := e.click(friend, r.Message.ID, accept.CustomID)
		e.tracked(board.Message)
		return board
	}
	// busy is playing a friendly game in the channel.
	board := friendly(busy, friend)

	e.tournamentCmd(mod, moderatorPerms, command.TournamentStart)
	tn := e.tournamentOf("Busy", "started with its game reserved", func(t *persistence.Tournament) bool {
		return t.Round == 1 && len(t.Games) == 1 && t.Games[0].Game != ""
	})
	e.sweepsIdle()
	clk.Advance(time.Second)
	e.sweeps(2) // sweeps that must not start the game
	if tn = e.tournamentOf("Busy", "running", func(*persistence.Tournament) bool { return true }); tn.Games[0].Created {
		t.Fatalf("the tournament game started while %s was playing another game here", busy)
	}

	_, resign := e.button(board.Message, customid.ActionResign)
	if r, _ := e.click(busy, board.Message.ID, resign.CustomID); r.Message.Ephemeral {
		t.Fatalf("resigning the friendly game: %q", r.Message.Content)
	}
	e.sweepsIdle()
	clk.Advance(10 * time.Second) // well before the regular look, a minute on
	s := e.waitGame(tn.Games[0].Game, "posted", func(s *persistence.Session) bool { return s.Message != "" })
	if s.Tournament != tn.ID || s.Seat(game.X).User == "" || s.Seat(game.O).User == "" {
		t.Fatalf("tournament game %+v", s)
	}

	// A player who stays in the other game for the tournament's time per
	// move forfeits, and the channel is told once, both players pinged.
	// The other player was busy too, first, but stopped: their clock
	// stopped with it.
	const stuck, waiting, pal, pal2 = "3004", "3005", "3006", "3007"
	e.tournamentCmd(mod, moderatorPerms, command.TournamentCreate, fakediscord.Option{Name: "name", Value: "Stuck"},
		fakediscord.Option{Name: "format", Value: "round-robin"}, fakediscord.Option{Name: "turn-time", Value: "2m"})
	m = e.signup("Stuck")
	_, join = e.button(&m, customid.ActionTournament)
	e.click(waiting, m.ID, join.CustomID)
	e.click(stuck, m.ID, join.CustomID)
	friendly(stuck, pal)
	board = friendly(waiting, pal2)
	e.tournamentCmd(mod, moderatorPerms, command.TournamentStart, fakediscord.Option{Name: "tournament", Value: "Stuck"})
	e.tournamentOf("Stuck", "waiting for two busy players", func(t *persistence.Tournament) bool {
		return len(t.Games) == 1 && !t.Games[0].BusyX.IsZero() && !t.Games[0].BusyO.IsZero()
	})
	_, resign = e.button(board.Message, customid.ActionResign)
	e.click(waiting, board.Message.ID, resign.CustomID)
	e.sweepsIdle()
	clk.Advance(10 * time.Second)
	e.tournamentOf("Stuck", "with one busy player left", func(t *persistence.Tournament) bool {
		p := t.Games[0]
		return p.BusyX.IsZero() != p.BusyO.IsZero() && p.Result == ""
	})
	for range 5 { // two minutes, in the steps a sweeper's retries take
		e.sweepsIdle()
		clk.Advance(30 * time.Second)
	}
	tn = e.tournamentOf("Stuck", "over by a forfeit", func(t *persistence.Tournament) bool {
		return t.Status == persistence.TournamentFinished && t.FinalPosted && !t.Games[0].Notice
	})
	if p := tn.Games[0]; p.BusyForfeit != stuck || !p.Forfeit || p.Created || (p.Result == "x") != (p.O == stuck) {
		t.Fatalf("pairing %+v; want %s to lose by forfeit", p, stuck)
	}
	notice := e.cat.Text(i18n.DefaultLocale, "tournament.busy_forfeit", "name", "Stuck", "round", "1",
		"player", mentionOf(stuck), "opponent", mentionOf(waiting), "wait", "2 minutes")
	var posted []fakediscord.Message
	for _, m := range e.srv.Messages(e2eChannel) {
		if m.Content == notice {
			posted = append(posted, m)
		}
	}
	if len(posted) != 1 {
		t.Fatalf("the forfeit notice %q was posted %d times; want once", notice, len(posted))
	}
	if am := posted[0].AllowedMentions; am == nil || !slices.Contains(am.Users, stuck) || !slices.Contains(am.Users, waiting) {
		t.Fatalf("the forfeit notice pings %+v; want both players", posted[0].AllowedMentions)
	}
	if s, err := e.store.Game(e.ctx, tn.Games[0].Game); err == nil {
		t.Fatalf("a forfeited game was created: %+v", s)
	}
}

// TestE2ETournamentCreateAnswer: the moderator who creates a tournament is
// told that it was created, where its sign-up message is (a link to it)
// and how it starts: at its start time, shown as a Discord timestamp, or
// when a moderator runs /ttt-tournament start.
func TestE2ETournamentCreateAnswer(t *testing.T) {
	t.Parallel()
	clk := newClock()
	e := newE2EStore(t, bot.Options{Now: clk.Now, RateBurst: -1, ChallengeCooldown: -1}, persistence.Options{Now: clk.Now})
	const mod = alice
	for _, tc := range []struct {
		name, start string
		want        string
	}{
		{"Friday Cup", "", "/ttt-tournament start"},
		{"Timed Cup", "2h", "<t:" + itoa(clk.Now().Add(2*time.Hour).Unix()) + ":F>"},
	} {
		opts := []fakediscord.Option{{Name: "name", Value: tc.name}, {Name: "format", Value: "swiss"}}
		if tc.start != "" {
			opts = append(opts, fakediscord.Option{Name: "start", Value: tc.start})
		}
		r := e.tournamentCmd(mod, moderatorPerms, command.TournamentCreate, opts...)
		m := e.signup(tc.name)
		link := "https://discord.com/channels/" + e2eGuild + "/" + e2eChannel + "/" + m.ID
		got := r.Message.Content
		if !r.Message.Ephemeral || !strings.Contains(got, "**"+tc.name+"** is created") || !strings.Contains(got, link) || !strings.Contains(got, tc.want) {
			t.Errorf("create %s answered ephemeral %v %q; want that it was created, %s and %q", tc.name, r.Message.Ephemeral, got, link, tc.want)
		}
	}
}
