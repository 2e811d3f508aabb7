package bot_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai/nn/nntest"
	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

// TestE2ENetworkLevels: a network level on a board without a network is
// refused by /ttt vs-ai, /ttt ai-duel and /ttt-tournament add-ai with a
// private answer, in the reader's language, that lists the boards where
// it plays, and nothing is posted or signed up. The boards are the live
// set's: a version published to the model registry adds its board at
// once, and the level then plays there.
func TestE2ENetworkLevels(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	rsrv := redistest.Start(t)
	p := startModelProcess(t, ctx, rsrv, nntest.Shipped(t, "3x3k3"), &syncBuffer{})
	e, _, _ := newRetrainE2E(t, ctx, rsrv, p, retrainJobConfig("bot-1", nil), nil)
	opt := func(name string, v any) fakediscord.Option { return fakediscord.Option{Name: name, Value: v} }
	const mod = alice

	// refused checks that r is a private refusal of level on board, in
	// loc, listing boards, and that nothing was posted for everyone.
	public := func() int {
		n := 0
		for _, m := range e.srv.Messages(e2eChannel) {
			if !m.Ephemeral {
				n++
			}
		}
		return n
	}
	posted := public()
	refused := func(what string, r fakediscord.Response, loc discordgo.Locale, level, board string, boards ...string) {
		t.Helper()
		var names []string
		for _, b := range boards {
			names = append(names, rulesText(t, e.cat, loc, b))
		}
		want := e.cat.Text(loc, "error.no_model_boards", "level", e.cat.Text(loc, "level."+level),
			"rules", rulesText(t, e.cat, loc, board), "boards", strings.Join(names, " · "))
		if !r.Message.Ephemeral || r.Message.Content != want {
			t.Fatalf("%s: answered (ephemeral %v) %q\nwant an ephemeral %q", what, r.Message.Ephemeral, r.Message.Content, want)
		}
		if n := public(); n != posted {
			t.Fatalf("%s: %d messages posted in the channel, want none", what, n-posted)
		}
	}

	// Only 3x3 has a network (shipped).
	r, _ := e.command(alice, command.SubVsAI, opt("level", "neural"), opt("board", "5x5k4"))
	refused("vs-ai neural 5x5k4", r, i18n.DefaultLocale, "neural", "5x5k4", "3x3k3")
	r, _ = e.command(alice, command.SubVsAI, opt("level", "humanlike"), opt("position", "4x4k3 b2 c3"))
	refused("vs-ai humanlike, a shared 4x4k3 game", r, i18n.DefaultLocale, "humanlike", "4x4k3", "3x3k3")
	r, _ = e.command(bob, command.SubAIDuel, opt("x", "random"), opt("o", "humanlike"), opt("board", "4x4k4"))
	refused("ai-duel random-humanlike 4x4k4", r, i18n.DefaultLocale, "humanlike", "4x4k4", "3x3k3")

	// A version published to the registry: its board joins the list.
	m, err := p.store.PublishModel(ctx, "4x4k3", persistence.ModelMeta{}, nntest.TinyBlob(t, "4x4k3", 3, "job"))
	if err != nil {
		t.Fatal(err)
	}
	nntest.WaitVersion(t, ctx, p.set, "4x4k3", fmt.Sprintf("redis-%d", m.Version))
	german := actor(bob)
	german.Locale = string(discordgo.German)
	d, err := e.srv.Command(ctx, fakediscord.CommandSpec{Actor: german, Name: command.Name,
		Options: []fakediscord.Option{{Name: command.SubAIDuel, Type: discordgo.ApplicationCommandOptionSubCommand,
			Options: []fakediscord.Option{opt("x", "neural"), opt("o", "easy"), opt("board", "5x5k5")}}}})
	if err != nil {
		t.Fatal(err)
	}
	refused("ai-duel neural-easy 5x5k5, in German", e.wait(d), discordgo.German, "neural", "5x5k5", "3x3k3", "4x4k3")

	// Tournaments: add-ai refuses the level for the tournament's board.
	e.tournamentCmd(mod, moderatorPerms, command.TournamentCreate, opt("name", "Open"), opt("format", "round-robin"), opt("board", "5x5k4"))
	posted = public() // the sign-up message
	r = e.tournamentCmd(mod, moderatorPerms, command.TournamentAddAI, opt("level", "neural"))
	refused("add-ai neural 5x5k4", r, i18n.DefaultLocale, "neural", "5x5k4", "3x3k3", "4x4k3")
	e.tournamentCmd(mod, moderatorPerms, command.TournamentAddAI, opt("level", "easy"))
	tour := e.tournamentOf("Open", "easy signed up", func(t *persistence.Tournament) bool { return len(t.Players) > 0 })
	if len(tour.Players) != 1 || tour.Players[0].ID != "ai:easy" {
		t.Fatalf("players %+v, want only ai:easy", tour.Players)
	}

	// Where there is a network, the level plays: the published 4x4k3.
	r, _ = e.command(alice, command.SubVsAI, opt("level", "neural"), opt("board", "4x4k3"), opt("first", "me"))
	if r.Message.Ephemeral || len(e.cells(r.Message)) != 16 {
		t.Fatalf("vs-ai neural 4x4k3: answered (ephemeral %v) %q with %d cells, want the board", r.Message.Ephemeral, r.Message.Content, len(e.cells(r.Message)))
	}
	e.noFailures()
}

// rulesText is how cat names the board of rules key in loc, as the bot
// shows it ("4×4, 3 in a row").
func rulesText(t *testing.T, cat *i18n.Catalog, loc discordgo.Locale, key string) string {
	t.Helper()
	r, err := game.ParseRules(key)
	if err != nil {
		t.Fatal(err)
	}
	if r.Variant() == game.XOX {
		return cat.Text(loc, "rules.xox", "rows", strconv.Itoa(r.Rows()), "cols", strconv.Itoa(r.Cols()))
	}
	return cat.Text(loc, "rules.kinarow", "rows", strconv.Itoa(r.Rows()), "cols", strconv.Itoa(r.Cols()), "k", strconv.Itoa(r.K()))
}
