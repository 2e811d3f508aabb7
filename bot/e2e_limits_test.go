package bot_test

import (
	"strings"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/bot"
	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
	"github.com/tttbot/ttt-bot/bot/settings"
)

// TestE2EGameLimits runs the server's limits on live games over both
// transports: a game past the limit of a channel or of a player is
// refused privately, in words that say the rule, the limit and how to
// free a place, and allowed again once a game ends; the counts live in
// Redis, so a restarted bot keeps them.
func TestE2EGameLimits(t *testing.T) {
	t.Parallel()
	scenarios := []scenario{
		{"channel games", channelGamesScenario},
		{"user games", userGamesScenario},
	}
	runScenarios(t, 43, bot.Options{RateBurst: -1, ChallengeCooldown: -1}, func(b *scenarioBed) { b.sweeper(time.Second) }, scenarios)
}

// vsAIIn starts user's game against the easy AI, user first, in channel,
// and returns its board.
func vsAIIn(b *scenarioBed, channel, user string) *fakediscord.Message {
	b.t.Helper()
	r := b.commandIn(channel, user, command.SubVsAI, fakediscord.Option{Name: "level", Value: "easy"}, fakediscord.Option{Name: "first", Value: "me"})
	if r.Message.Ephemeral || len(b.cells(r.Message)) != 9 {
		b.t.Fatalf("/ttt vs-ai in %s answered %q, want a board", channel, r.Message.Content)
	}
	b.tracked(r.Message)
	return r.Message
}

// resign has user resign their game in the test channel and returns the
// final board.
func resign(b *scenarioBed, user string) *fakediscord.Message {
	b.t.Helper()
	r, _ := b.command(user, command.SubResign)
	if r.Message.Ephemeral {
		b.t.Fatalf("/ttt resign answered %q", r.Message.Content)
	}
	return r.Message
}

// channelGamesScenario: with channel-games 1, alice's game against the
// computer fills the test channel; every other way to start a game there
// is refused (a rematch too), not elsewhere, and accepting a challenge is
// not a new game; the count survives a restart; a resignation and a
// moderator's end-game free the channel.
func channelGamesScenario(t *testing.T, b *scenarioBed) {
	set(b, settings.ChannelGames, "1")
	vsAIIn(b, e2eChannel, alice)
	r := b.commandIn(e2eChannel, bob, command.SubChallenge)
	b.wantText(r, bot.KeyChannelGames, "count", "1")
	if !strings.Contains(r.Message.Content, "1 game going") || !strings.Contains(r.Message.Content, "another channel") {
		t.Fatalf("the refusal %q does not say the limit and where to play", r.Message.Content)
	}
	for _, try := range []fakediscord.Response{
		b.commandIn(e2eChannel, bob, command.SubAIDuel, fakediscord.Option{Name: "x", Value: "easy"}, fakediscord.Option{Name: "o", Value: "random"}),
		b.commandIn(e2eChannel, bob, command.SubVsAI, fakediscord.Option{Name: "level", Value: "easy"}),
		b.commandIn(e2eChannel, bob, command.SubPuzzle),
	} {
		b.wantText(try, bot.KeyChannelGames, "count", "1")
	}

	// Another channel has room; carol joins bob's challenge there although
	// it is the channel's one game: accepting adds none.
	c8 := b.wantChallenge(b.commandIn("8", bob, command.SubChallenge))
	_, join := b.button(c8, customid.ActionJoin)
	b.wantBoard(b.clickIn("8", carol, c8.ID, join.CustomID), c8.ID)

	// The count is in Redis: a new bot process sees it.
	b.restart()
	b.wantText(b.commandIn(e2eChannel, carol, command.SubChallenge), bot.KeyChannelGames, "count", "1")

	// alice resigns: a place. bob's challenge takes it, so alice's Rematch
	// is refused.
	final := resign(b, alice)
	ch := b.wantChallenge(b.commandIn(e2eChannel, bob, command.SubChallenge))
	b.trackedChallenge(ch, customid.ActionJoin)
	_, rematch := b.button(final, customid.ActionRematch)
	b.wantText(b.clickIn(e2eChannel, alice, final.ID, rematch.CustomID), bot.KeyChannelGames, "count", "1")

	// A moderator ends it: a place again.
	if r, _ := b.admin(alice, moderatorPerms, command.SubEndGame); !r.Message.Ephemeral {
		t.Fatalf("/ttt-admin end-game answered %q publicly", r.Message.Content)
	}
	vsAIIn(b, e2eChannel, carol)
}

// userGamesScenario: with user-games 1, alice's game against the computer
// in the test channel is her one game in the server: a challenge or a
// join in another channel is refused, and so is a second game of bob,
// whose open challenge is his; when alice resigns she may join.
func userGamesScenario(t *testing.T, b *scenarioBed) {
	set(b, settings.UserGames, "1")
	vsAIIn(b, e2eChannel, alice)
	r := b.commandIn("8", alice, command.SubChallenge)
	b.wantText(r, bot.KeyUserGames, "count", "1")
	if !strings.Contains(r.Message.Content, "1 game going in this server") || !strings.Contains(r.Message.Content, "resign") {
		t.Fatalf("the refusal %q does not say the limit and how to free a place", r.Message.Content)
	}

	c8 := b.wantChallenge(b.commandIn("8", bob, command.SubChallenge))
	b.trackedChallenge(c8, customid.ActionJoin)
	_, join := b.button(c8, customid.ActionJoin)
	b.wantText(b.clickIn("8", alice, c8.ID, join.CustomID), bot.KeyUserGames, "count", "1")
	b.wantText(b.commandIn("9", bob, command.SubVsAI, fakediscord.Option{Name: "level", Value: "easy"}), bot.KeyUserGames, "count", "1")
	// carol is not limited by them.
	vsAIIn(b, "9", carol)
	// Nor is dana, but she cannot challenge alice, who could not accept:
	// the same neutral answer as a block, so that answer alone does not
	// tell a block.
	b.wantText(b.commandIn("9", dana, command.SubChallenge, opponentOpt(alice)), bot.KeyCantPlay, "user", mentionOf(alice))

	resign(b, alice)
	b.wantBoard(b.clickIn("8", alice, c8.ID, join.CustomID), c8.ID)
	b.wantText(b.commandIn(e2eChannel, alice, command.SubPuzzle), bot.KeyUserGames, "count", "1")
}
