package bot

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/redis/go-redis/v9"

	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/settings"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

// TestRenderGameLimitsGolden pins the refusals of the limits on live
// games in each locale: private, without pings, within Discord's limits,
// naming the limit.
func TestRenderGameLimitsGolden(t *testing.T) {
	r := testRenderer(t)
	cause := errors.New("cause")
	cases := []struct {
		name, key string
	}{
		{"limit-channel-games", KeyChannelGames},
		{"limit-user-games", KeyUserGames},
	}
	for _, tc := range cases {
		for _, loc := range goldenLocales {
			t.Run(tc.name+"/"+string(loc), func(t *testing.T) {
				d := checked(t, r.Error(loc, &UserError{Key: tc.key, Vars: []string{"count", "3"}, Err: cause}))
				if d.Flags&discordgo.MessageFlagsEphemeral == 0 {
					t.Error("not ephemeral: a refusal is private")
				}
				if d.AllowedMentions == nil || len(d.AllowedMentions.Parse) > 0 || len(d.AllowedMentions.Users) > 0 {
					t.Errorf("allowed mentions %+v: the answer must not ping anyone", d.AllowedMentions)
				}
				if strings.Contains(d.Content, "[[") || strings.Contains(d.Content, "{") || strings.Contains(d.Content, "cause") {
					t.Errorf("unfilled text or a leaked cause: %q", d.Content)
				}
				if !strings.Contains(d.Content, " 3 ") {
					t.Errorf("%q does not say the limit", d.Content)
				}
				goldenFile(t, tc.name+"."+string(loc)+".json", wireJSON(t, d))
			})
		}
	}
}

// TestCheckGameLimits checks the refusals against games in a real Redis:
// per channel (AI duels included, accepting a challenge exempt: it adds
// no game to the channel) and per player across the server's channels.
func TestCheckGameLimits(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	store := persistence.New(redistest.Client(t, redistest.Start(t)), persistence.Options{})
	signer := testSigner(t)
	b := &Bot{store: store, signer: signer}
	const guild = "900"
	create := func(channel string, players [2]persistence.Seat, open bool) *persistence.Session {
		t.Helper()
		g := persistence.Session{Rules: "3x3k3", Players: players, Guild: guild}
		if open {
			g.Status, g.Challenger = persistence.StatusOpen, game.X
		}
		s, err := store.CreateGame(ctx, channel, g)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	ai := persistence.Seat{AI: persistence.AI{Level: "random"}}
	command := func(channel, user string) *call {
		return &call{i: &discordgo.Interaction{Type: discordgo.InteractionApplicationCommand, GuildID: guild, ChannelID: channel}, user: user}
	}
	click := func(channel, user string, a customid.Action, g persistence.GameID) *call {
		raw, err := signer.Encode(customid.ID{Action: a, Game: g})
		if err != nil {
			t.Fatal(err)
		}
		return &call{i: &discordgo.Interaction{Type: discordgo.InteractionMessageComponent, GuildID: guild, ChannelID: channel,
			Data: discordgo.MessageComponentInteractionData{CustomID: raw}}, user: user}
	}
	check := func(c *call, st settings.Server, want string) {
		t.Helper()
		err := b.checkGameLimits(ctx, c, st)
		var ue *UserError
		got := ""
		switch {
		case errors.As(err, &ue):
			got = ue.Key + " " + strings.Join(ue.Vars, " ")
		case err != nil:
			t.Fatalf("checkGameLimits: %v", err)
		}
		if got != want {
			t.Errorf("checkGameLimits = %q, want %q", got, want)
		}
	}
	perChannel := settings.Server{ChannelGames: 2}
	perUser := settings.Server{UserGames: 2}

	check(command("1", "a"), perChannel, "")
	create("1", [2]persistence.Seat{ai, ai}, false) // a duel
	challenge := create("1", [2]persistence.Seat{{User: "a"}, {}}, true)
	check(command("1", "b"), perChannel, KeyChannelGames+" count 2")
	check(command("2", "b"), perChannel, "") // another channel
	check(click("1", "b", customid.ActionRematch, challenge.ID), perChannel, KeyChannelGames+" count 2")
	check(click("1", "b", customid.ActionJoin, challenge.ID), perChannel, "") // joining adds no game
	check(command("1", "b"), settings.Server{ChannelGames: 3}, "")            // room for one more
	check(command("1", "b"), settings.Server{ChannelGames: 2, UserGames: 2}, KeyChannelGames+" count 2")

	// a has the challenge in 1; a second game in 2 fills a's place.
	check(command("2", "a"), perUser, "")
	create("2", [2]persistence.Seat{{User: "a"}, ai}, false)
	check(command("3", "a"), perUser, KeyUserGames+" count 2")
	check(click("1", "a", customid.ActionJoin, challenge.ID), perUser, KeyUserGames+" count 2")
	check(command("3", "b"), perUser, "")
	// b joins a's challenge: one game for b, still two for a.
	if _, err := store.Accept(ctx, challenge.ID, 0, "b"); err != nil {
		t.Fatal(err)
	}
	check(command("3", "b"), settings.Server{UserGames: 1}, KeyUserGames+" count 1")
	check(command("3", "a"), perUser, KeyUserGames+" count 2")
	// It ends: a place for each.
	if _, err := store.Resign(ctx, challenge.ID, 0, "b"); err != nil {
		t.Fatal(err)
	}
	check(command("3", "a"), perUser, "")
	check(command("3", "b"), settings.Server{UserGames: 1}, "")
	check(command("1", "c"), perChannel, "")

	// Without limits nothing is read: not even a Redis that is down
	// stops a game.
	down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	t.Cleanup(func() { _ = down.Close() })
	b.store = persistence.New(down, persistence.Options{})
	check(command("1", "a"), settings.Server{}, "")
	if err := b.checkGameLimits(ctx, command("1", "a"), perChannel); err == nil || errors.As(err, new(*UserError)) {
		t.Errorf("with Redis down and a limit: %v, want the Store's error", err)
	}
}
