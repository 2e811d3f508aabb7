package fakediscord_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
)

// TestSessionRoundTrip drives a real discordgo session through the gateway
// handshake, command registration, a slash command answered with a message,
// an edit and a follow-up, and a button click answered with an update.
func TestSessionRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	srv := fakediscord.New(t, fakediscord.Options{})
	b := connect(t, srv)

	if b.ready.User == nil || b.ready.User.ID != srv.AppID() || !b.ready.User.Bot {
		t.Fatalf("READY user = %+v, want the bot %s", b.ready.User, srv.AppID())
	}
	if b.ready.Application == nil || b.ready.Application.ID != srv.AppID() || b.ready.SessionID == "" {
		t.Fatalf("READY = %+v, want application %s and a session ID", b.ready, srv.AppID())
	}
	st := srv.GatewayState()
	if st.Identifies != 1 || st.Connected != 1 || st.Version != discordgo.APIVersion || st.Encoding != "json" || !st.Compress {
		t.Fatalf("gateway state %+v", st)
	}
	if st.Intents != int(discordgo.IntentsAllWithoutPrivileged) {
		t.Fatalf("intents %d, want discordgo's default %d", st.Intents, discordgo.IntentsAllWithoutPrivileged)
	}
	if _, err := srv.WaitGateway(ctx, func(g fakediscord.GatewayState) bool { return g.Heartbeats > 0 }); err != nil {
		t.Fatalf("no heartbeat: %v", err)
	}

	registerPlay(t, srv, b.ses)
	if _, err := b.ses.ApplicationCommandBulkOverwrite(srv.AppID(), "42", []*discordgo.ApplicationCommand{{Name: "admin", Description: "Guild admin"}}); err != nil {
		t.Fatal(err)
	}
	if got := srv.Commands(""); len(got) != 1 || got[0].Name != "play" || got[0].ID == "" || len(got[0].Options) != 1 {
		t.Fatalf("global commands = %+v", got)
	}
	if got := srv.Commands("42"); len(got) != 1 || got[0].Name != "admin" || got[0].GuildID != "42" {
		t.Fatalf("guild commands = %+v", got)
	}

	d, err := srv.Command(ctx, fakediscord.CommandSpec{
		Actor:   fakediscord.Actor{Guild: "42", Channel: "7", Locale: "de"},
		Name:    "play",
		Options: []fakediscord.Option{{Name: "level", Value: "perfect"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	i := b.next(t)
	if i.ID != d.ID() || i.Type != discordgo.InteractionApplicationCommand || i.Locale != "de" || i.GuildID != "42" ||
		i.Member == nil || i.Member.User.ID != fakediscord.DefaultUserID {
		t.Fatalf("interaction as the bot sees it: %+v", i)
	}
	if data := i.ApplicationCommandData(); data.Name != "play" || data.Options[0].StringValue() != "perfect" {
		t.Fatalf("command data %+v", data)
	}

	err = b.ses.InteractionRespond(i, &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Content: "new game", Components: board("c0", "c1")},
	})
	if err != nil {
		t.Fatalf("InteractionRespond: %v", err)
	}
	r, err := d.Wait(ctx)
	if err != nil || r.Kind != fakediscord.KindCallback || r.Type != 4 || r.Message == nil || r.Message.Content != "new game" {
		t.Fatalf("first response %+v, %v", r, err)
	}
	boardID := r.Message.ID

	if _, err := b.ses.InteractionResponseEdit(i, &discordgo.WebhookEdit{Content: ptr("your move")}); err != nil {
		t.Fatalf("InteractionResponseEdit: %v", err)
	}
	fm, err := b.ses.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "psst", Flags: discordgo.MessageFlagsEphemeral})
	if err != nil || fm == nil || fm.ID == "" {
		t.Fatalf("FollowupMessageCreate: %v, %v", fm, err)
	}
	if r, err := d.Wait(ctx); err != nil || r.Kind != fakediscord.KindEditOriginal || r.Message.Content != "your move" || len(r.Message.Buttons()) != 2 {
		t.Fatalf("second response %+v, %v", r, err)
	}
	if r, err := d.Wait(ctx); err != nil || r.Kind != fakediscord.KindFollowup || !r.Message.Ephemeral || r.Message.ID != fm.ID {
		t.Fatalf("third response %+v, %v", r, err)
	}
	if got := srv.Visible("7", "someone-else"); len(got) != 1 || got[0].ID != boardID {
		t.Fatalf("another user sees %+v, want only the board", got)
	}
	if got := srv.Visible("7", fakediscord.DefaultUserID); len(got) != 2 {
		t.Fatalf("the player sees %d messages, want 2", len(got))
	}

	if _, err := srv.Click(ctx, fakediscord.ClickSpec{MessageID: boardID, CustomID: "nope"}); !errors.Is(err, fakediscord.ErrUnknownComponent) {
		t.Fatalf("click on a missing button: %v", err)
	}
	bob := fakediscord.User{ID: "555", Username: "bob"}
	click, err := srv.Click(ctx, fakediscord.ClickSpec{Actor: fakediscord.Actor{User: bob}, MessageID: boardID, CustomID: "c1"})
	if err != nil {
		t.Fatal(err)
	}
	ci := b.next(t)
	if ci.MessageComponentData().CustomID != "c1" || ci.Message == nil || ci.Message.ID != boardID || ci.Member.User.ID != "555" || ci.ChannelID != "7" {
		t.Fatalf("click as the bot sees it: %+v", ci)
	}
	disabled := discordgo.ActionsRow{Components: []discordgo.MessageComponent{discordgo.Button{Label: "X", CustomID: "c1", Style: discordgo.SecondaryButton, Disabled: true}}}
	err = b.ses.InteractionRespond(ci, &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseUpdateMessage,
		Data: &discordgo.InteractionResponseData{Content: "bob played", Components: []discordgo.MessageComponent{disabled}},
	})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if r, err := click.Wait(ctx); err != nil || r.Type != 7 || r.Message.ID != boardID || r.Message.Content != "bob played" {
		t.Fatalf("click response %+v, %v", r, err)
	}
	m, _ := srv.Message(boardID)
	if c, ok := m.Component("c1"); !ok || !c.Disabled || m.Edited.IsZero() {
		t.Fatalf("board after the click: %+v", m)
	}
	if _, err := srv.Click(ctx, fakediscord.ClickSpec{MessageID: boardID, CustomID: "c1"}); !errors.Is(err, fakediscord.ErrUnknownComponent) {
		t.Fatalf("click on a disabled button: %v", err)
	}

	// Bot-initiated edits through the channel API, as a turn timeout would.
	if _, err := b.ses.ChannelMessageEdit("7", boardID, "timed out"); err != nil {
		t.Fatalf("ChannelMessageEdit: %v", err)
	}
	if _, err := srv.WaitMessage(ctx, "7", func(m fakediscord.Message) bool { return m.Content == "timed out" }); err != nil {
		t.Fatal(err)
	}
	if _, err := b.ses.ChannelMessageEdit("7", fm.ID, "x"); err == nil {
		t.Fatal("editing an ephemeral message through the channel API succeeded")
	} else if status, code := restCode(t, err); status != 404 || code != fakediscord.CodeUnknownMessage {
		t.Fatalf("ephemeral channel edit: %d %d", status, code)
	}
	sent, err := b.ses.ChannelMessageSendComplex("7", &discordgo.MessageSend{Content: "AI duel", Components: board("d0")})
	if err != nil || sent.GuildID != "42" || sent.Author == nil || sent.Author.ID != srv.AppID() {
		t.Fatalf("ChannelMessageSendComplex: %+v, %v", sent, err)
	}
	if got, err := b.ses.ChannelMessage("7", sent.ID); err != nil || got.Content != "AI duel" || len(got.Components) != 1 {
		t.Fatalf("ChannelMessage: %+v, %v", got, err)
	}
	for _, c := range srv.Calls() {
		if c.Status >= 300 && c.Path != "/channels/7/messages/"+fm.ID {
			t.Errorf("unexpected failed call %s %s: %d %s", c.Method, c.Path, c.Status, c.Body)
		}
	}
}

// TestResumeAfterDrop cuts the connection while an interaction is injected;
// discordgo reconnects, resumes, and receives the replayed event.
func TestResumeAfterDrop(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	srv := fakediscord.New(t, fakediscord.Options{})
	b := connect(t, srv)
	registerPlay(t, srv, b.ses)

	if n := srv.DropGateway(); n != 1 {
		t.Fatalf("dropped %d connections, want 1", n)
	}
	if _, err := srv.WaitGateway(ctx, func(g fakediscord.GatewayState) bool { return g.Connected == 0 }); err != nil {
		t.Fatal(err)
	}
	d, err := srv.Command(ctx, fakediscord.CommandSpec{Actor: fakediscord.Actor{Guild: "1"}, Name: "play"})
	if err != nil {
		t.Fatalf("command while disconnected: %v", err)
	}
	i := b.next(t) // replayed after RESUME
	if i.ID != d.ID() {
		t.Fatalf("replayed %s, want %s", i.ID, d.ID())
	}
	st, err := srv.WaitGateway(ctx, func(g fakediscord.GatewayState) bool { return g.Resumes == 1 && g.Connected == 1 })
	if err != nil || st.Identifies != 1 {
		t.Fatalf("gateway state after drop: %+v, %v", st, err)
	}
	if err := b.ses.InteractionRespond(i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredChannelMessageWithSource}); err != nil {
		t.Fatal(err)
	}
	if r, err := d.Wait(ctx); err != nil || r.Type != 5 || !r.Message.Loading {
		t.Fatalf("deferred: %+v, %v", r, err)
	}
	if _, err := b.ses.InteractionResponseEdit(i, &discordgo.WebhookEdit{Content: ptr("done")}); err != nil {
		t.Fatal(err)
	}
	if r, err := d.Wait(ctx); err != nil || r.Message.Loading || r.Message.Content != "done" {
		t.Fatalf("edit after deferral: %+v, %v", r, err)
	}
}

// TestReconnectAndInvalidSession covers op 7 (the bot resumes) and an
// invalidated session (the bot identifies again), then deferred answers on
// a board the bot posted before a restart.
func TestReconnectAndInvalidSession(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	srv := fakediscord.New(t, fakediscord.Options{})
	b := connect(t, srv)

	srv.RequestReconnect()
	if st, err := srv.WaitGateway(ctx, func(g fakediscord.GatewayState) bool { return g.Resumes == 1 }); err != nil || st.Identifies != 1 {
		t.Fatalf("after op 7: %+v, %v", st, err)
	}
	settle(t, srv, 1)
	srv.InvalidateSessions()
	srv.DropGateway()
	if _, err := srv.WaitGateway(ctx, func(g fakediscord.GatewayState) bool { return g.Identifies == 2 }); err != nil {
		t.Fatalf("no new IDENTIFY after an invalid session: %v", err)
	}
	settle(t, srv, 1)

	old := srv.PostMessage("8", "9", "board", json.RawMessage(`[{"type":1,"components":[{"type":2,"style":1,"label":"1","custom_id":"cell:1"}]}]`))
	d, err := srv.Click(ctx, fakediscord.ClickSpec{MessageID: old.ID, CustomID: "cell:1"})
	if err != nil {
		t.Fatal(err)
	}
	i := b.next(t)
	if i.GuildID != "8" || i.ChannelID != "9" {
		t.Fatalf("click on the restored board: %+v", i)
	}
	if err := b.ses.InteractionRespond(i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredMessageUpdate}); err != nil {
		t.Fatal(err)
	}
	if r, err := d.Wait(ctx); err != nil || r.Type != 6 || r.Message.ID != old.ID || r.Message.Content != "board" {
		t.Fatalf("deferred update: %+v, %v", r, err)
	}
	if _, err := b.ses.InteractionResponseEdit(i, &discordgo.WebhookEdit{Content: ptr("board after move")}); err != nil {
		t.Fatal(err)
	}
	if r, err := d.Wait(ctx); err != nil || r.Kind != fakediscord.KindEditOriginal || r.Message.ID != old.ID || len(r.Message.Rows) != 1 {
		t.Fatalf("edit of the clicked message: %+v, %v", r, err)
	}
	fm, err := b.ses.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "oops"})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.ses.FollowupMessageDelete(i, fm.ID); err != nil {
		t.Fatal(err)
	}
	if err := b.ses.InteractionResponseDelete(i); err != nil {
		t.Fatal(err)
	}
	var kinds []fakediscord.Kind
	for _, r := range d.Responses() {
		kinds = append(kinds, r.Kind)
	}
	want := []fakediscord.Kind{fakediscord.KindCallback, fakediscord.KindEditOriginal, fakediscord.KindFollowup,
		fakediscord.KindDeleteFollowup, fakediscord.KindDeleteOriginal}
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Fatalf("responses %v, want %v", kinds, want)
	}
	if got := srv.Messages("9"); len(got) != 0 {
		t.Fatalf("channel still shows %+v", got)
	}
	if err := srv.Dispatch("8", "GUILD_CREATE", map[string]any{"id": "8", "name": "g", "unavailable": false}); err != nil {
		t.Fatal(err)
	}
}
