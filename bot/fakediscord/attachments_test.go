package fakediscord_test

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
)

// pngMagic starts every PNG file.
var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// TestAttachments checks that files the bot uploads with an edit of its
// response, a follow-up and a channel message are recorded with their
// names, types and bytes, served at their CDN addresses, kept or dropped by
// later edits as Discord does, and that an embed can show one as
// attachment://name.
func TestAttachments(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	srv := fakediscord.New(t, fakediscord.Options{})
	b := connect(t, srv)
	registerPlay(t, srv, b.ses)
	d, err := srv.Command(ctx, fakediscord.CommandSpec{Actor: fakediscord.Actor{Guild: "9", Channel: "10"}, Name: "play"})
	if err != nil {
		t.Fatal(err)
	}
	i := b.next(t)
	if err := b.ses.InteractionRespond(i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Content: "working"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Wait(ctx); err != nil {
		t.Fatal(err)
	}

	chart := append(append([]byte(nil), pngMagic...), "chart bytes"...)
	embeds := []*discordgo.MessageEmbed{{Title: "Report", Image: &discordgo.MessageEmbedImage{URL: "attachment://chart.png"}}}
	msg, err := b.ses.InteractionResponseEdit(i, &discordgo.WebhookEdit{Content: ptr("done"), Embeds: &embeds,
		Files: []*discordgo.File{{Name: "chart.png", ContentType: "image/png", Reader: bytes.NewReader(chart)}}})
	if err != nil {
		t.Fatalf("edit with a file: %v", err)
	}
	if len(msg.Attachments) != 1 || msg.Attachments[0].Filename != "chart.png" || msg.Attachments[0].Size != len(chart) ||
		msg.Attachments[0].ContentType != "image/png" {
		t.Fatalf("edited message attachments %+v", msg.Attachments)
	}
	r, err := d.Wait(ctx)
	if err != nil || r.Kind != fakediscord.KindEditOriginal {
		t.Fatalf("edit recorded as %+v %v", r, err)
	}
	var sent struct {
		Content string `json:"content"`
	}
	if err := json.Unmarshal(r.Data, &sent); err != nil || sent.Content != "done" {
		t.Fatalf("Response.Data %q (%v), want the payload JSON", r.Data, err)
	}
	a, ok := r.Message.Attachment("chart.png")
	if !ok || a.ContentType != "image/png" || !bytes.Equal(a.Data, chart) {
		t.Fatalf("attachment %+v %v, want chart.png as image/png with its bytes", a, ok)
	}
	if len(r.Message.Embeds) != 1 || r.Message.Embeds[0].Image == nil || r.Message.Embeds[0].Image.URL != "attachment://chart.png" {
		t.Fatalf("embeds %+v", r.Message.Embeds)
	}

	// The CDN address serves the bytes.
	resp, err := srv.Client().Get(msg.Attachments[0].URL)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" || !bytes.Equal(got, chart) {
		t.Fatalf("GET %s: %d %q %q", msg.Attachments[0].URL, resp.StatusCode, resp.Header.Get("Content-Type"), got)
	}

	// An edit without attachments keeps them; one listing none drops them.
	if _, err := b.ses.InteractionResponseEdit(i, &discordgo.WebhookEdit{Content: ptr("again")}); err != nil {
		t.Fatal(err)
	}
	if m, _ := srv.Message(msg.ID); len(m.Attachments) != 1 || m.Content != "again" {
		t.Fatalf("after a text edit %q with %d attachments, want 1 kept", m.Content, len(m.Attachments))
	}
	if _, err := b.ses.InteractionResponseEdit(i, &discordgo.WebhookEdit{Attachments: &[]*discordgo.MessageAttachment{}}); err != nil {
		t.Fatal(err)
	}
	if m, _ := srv.Message(msg.ID); len(m.Attachments) != 0 {
		t.Fatalf("after attachments: [] %d attachments, want none", len(m.Attachments))
	}

	// A follow-up made only of a file, and a channel message with one.
	fu, err := b.ses.FollowupMessageCreate(i, true, &discordgo.WebhookParams{
		Files: []*discordgo.File{{Name: "data.json", ContentType: "application/json", Reader: strings.NewReader(`{"a":1}`)}}})
	if err != nil {
		t.Fatalf("follow-up with only a file: %v", err)
	}
	if m, _ := srv.Message(fu.ID); len(m.Attachments) != 1 || string(m.Attachments[0].Data) != `{"a":1}` {
		t.Fatalf("follow-up attachments %+v", m.Attachments)
	}
	cm, err := b.ses.ChannelMessageSendComplex("10", &discordgo.MessageSend{Content: "posted",
		Files: []*discordgo.File{{Name: "chart.png", Reader: bytes.NewReader(chart)}}})
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := srv.Message(cm.ID); len(m.Attachments) != 1 || m.Attachments[0].ContentType != "application/octet-stream" {
		t.Fatalf("channel message attachments %+v, want one of type application/octet-stream", m.Attachments)
	}
	// And a channel edit adds one.
	if _, err := b.ses.ChannelMessageEditComplex(&discordgo.MessageEdit{ID: cm.ID, Channel: "10",
		Files: []*discordgo.File{{Name: "b.png", ContentType: "image/png", Reader: bytes.NewReader(chart)}}}); err != nil {
		t.Fatal(err)
	}
	if m, _ := srv.Message(cm.ID); len(m.Attachments) != 2 || m.Attachments[1].Filename != "b.png" {
		t.Fatalf("after a channel edit with a file: %+v", m.Attachments)
	}

	// More than ten files are refused.
	var many []*discordgo.File
	for range 11 {
		many = append(many, &discordgo.File{Name: "f.txt", Reader: strings.NewReader("x")})
	}
	if _, err := b.ses.ChannelMessageSendComplex("10", &discordgo.MessageSend{Content: "x", Files: many}); err == nil {
		t.Fatal("eleven files accepted")
	} else if status, code := restCode(t, err); status != 400 || code != fakediscord.CodeInvalidFormBody {
		t.Fatalf("eleven files: %d %d", status, code)
	}
}
