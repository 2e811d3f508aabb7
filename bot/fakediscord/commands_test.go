package fakediscord_test

import (
	"errors"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
)

// TestCommandRegistration covers create, list, overwrite (IDs kept by name),
// delete, and permission-gated commands.
func TestCommandRegistration(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	srv := fakediscord.New(t, fakediscord.Options{})
	ses := registerHTTP(t, srv) // global /play
	app := srv.AppID()
	playID := srv.Commands("")[0].ID

	admin := int64(discordgo.PermissionManageGuild)
	created, err := ses.ApplicationCommandCreate(app, "77", &discordgo.ApplicationCommand{
		Name: "reset", Description: "Reset the leaderboard", DefaultMemberPermissions: &admin})
	if err != nil || created.ID == "" || created.GuildID != "77" || created.ApplicationID != app {
		t.Fatalf("create: %+v, %v", created, err)
	}
	list, err := ses.ApplicationCommands(app, "77")
	if err != nil || len(list) != 1 || list[0].ID != created.ID {
		t.Fatalf("list: %+v, %v", list, err)
	}
	again, err := ses.ApplicationCommandBulkOverwrite(app, "", []*discordgo.ApplicationCommand{
		{Name: "play", Description: "Start a game, again"}, {Name: "stats", Description: "Show statistics"}})
	if err != nil || len(again) != 2 || again[0].ID != playID || again[1].ID == playID {
		t.Fatalf("overwrite keeps IDs by name: %+v, %v", again, err)
	}

	member := fakediscord.Actor{Guild: "77"}
	if _, err := srv.Command(ctx, fakediscord.CommandSpec{Actor: member, Name: "reset"}); !errors.Is(err, fakediscord.ErrCommandHidden) {
		t.Fatalf("member ran an admin command: %v", err)
	}
	if _, err := srv.Command(ctx, fakediscord.CommandSpec{Actor: fakediscord.Actor{Guild: "78"}, Name: "reset"}); !errors.Is(err, fakediscord.ErrUnknownCommand) {
		t.Fatalf("guild command used in another guild: %v", err)
	}
	if err := ses.ApplicationCommandDelete(app, "77", created.ID); err != nil {
		t.Fatal(err)
	}
	if err := ses.ApplicationCommandDelete(app, "77", created.ID); err == nil {
		t.Fatal("second delete succeeded")
	} else if status, code := restCode(t, err); status != 404 || code != fakediscord.CodeUnknownCommand {
		t.Fatalf("second delete: %d %d", status, code)
	}
	if got := srv.Commands("77"); len(got) != 0 {
		t.Fatalf("guild commands after delete: %+v", got)
	}
}
