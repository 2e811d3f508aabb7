package bot

import (
	"io"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
)

// TestRewindable: a retried request sends its files whole again (an edit
// retried after Unknown Webhook uploaded an empty review chart).
func TestRewindable(t *testing.T) {
	files := []*discordgo.File{{Name: "a.png", Reader: strings.NewReader("PNGDATA")}, nil, {Name: "b"},
		{Name: "c", Reader: io.MultiReader(strings.NewReader("PNG"), strings.NewReader("DATA"))}}
	rewind, err := rewindable(files)
	if err != nil {
		t.Fatal(err)
	}
	for try := range 3 {
		rewind()
		for _, f := range []*discordgo.File{files[0], files[3]} {
			b, err := io.ReadAll(f.Reader)
			if err != nil || string(b) != "PNGDATA" {
				t.Fatalf("try %d read %s: %q %v", try, f.Name, b, err)
			}
		}
	}
}

// editRecorder is a Discord that records the edits of first responses
// and the follow-ups.
type editRecorder struct {
	Discord
	edits     []*discordgo.WebhookEdit
	files     []string // each edit's files, read whole
	followups []*discordgo.WebhookParams
}

func (r *editRecorder) FollowupMessageCreate(_ *discordgo.Interaction, _ bool, data *discordgo.WebhookParams, _ ...discordgo.RequestOption) (*discordgo.Message, error) {
	r.followups = append(r.followups, data)
	return &discordgo.Message{ID: "f"}, nil
}

func (r *editRecorder) InteractionResponseEdit(_ *discordgo.Interaction, edit *discordgo.WebhookEdit, _ ...discordgo.RequestOption) (*discordgo.Message, error) {
	r.edits = append(r.edits, edit)
	for _, f := range edit.Files {
		b, _ := io.ReadAll(f.Reader)
		r.files = append(r.files, f.Name+":"+string(b))
	}
	return &discordgo.Message{ID: "m"}, nil
}

// TestAfterDeferral: a first response that comes after the endpoint
// deferred becomes an edit carrying everything the response had, its
// attachments included (a review chart, a bracket), and a deferral then
// is not sent twice.
func TestAfterDeferral(t *testing.T) {
	rec := &editRecorder{}
	d := NewInlineDiscord(rec)
	i := &discordgo.Interaction{ID: "1", Type: discordgo.InteractionApplicationCommand}
	s := d.expect(i)
	if _, ok := d.deferSlot(i, s); !ok {
		t.Fatal("deferSlot refused a waiting slot")
	}
	embeds := []*discordgo.MessageEmbed{{Title: "Review"}}
	atts := &[]*discordgo.MessageAttachment{}
	resp := &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Content: "text", Embeds: embeds, Attachments: atts,
			Files: []*discordgo.File{{Name: "review.png", ContentType: "image/png", Reader: strings.NewReader("PNG")}}}}
	if err := d.InteractionRespond(i, resp); err != nil {
		t.Fatal(err)
	}
	if err := d.InteractionRespond(i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredChannelMessageWithSource}); err != nil {
		t.Fatal(err)
	}
	if len(rec.edits) != 1 {
		t.Fatalf("%d edits; want 1 (the deferral is not repeated)", len(rec.edits))
	}
	e := rec.edits[0]
	if *e.Content != "text" || e.Embeds == nil || (*e.Embeds)[0].Title != "Review" || e.Attachments != atts {
		t.Fatalf("edit %+v lost part of the response", e)
	}
	if len(rec.files) != 1 || rec.files[0] != "review.png:PNG" {
		t.Fatalf("edit files %q; want the chart", rec.files)
	}
	bad := &discordgo.InteractionResponse{Type: discordgo.InteractionResponseModal}
	if err := d.InteractionRespond(i, bad); err == nil || !strings.Contains(err.Error(), "cannot follow a deferral") {
		t.Fatalf("a modal after a deferral: %v; want refused", err)
	}
}

// TestAfterDeferralClick: a click the endpoint deferred as an update of
// the board, answered with a new private message (a refusal), gets a
// private follow-up and leaves the board alone; answered with an update
// or a public message, the board is edited.
func TestAfterDeferralClick(t *testing.T) {
	rec := &editRecorder{}
	d := NewInlineDiscord(rec)
	i := &discordgo.Interaction{ID: "2", Type: discordgo.InteractionMessageComponent}
	s := d.expect(i)
	if typ, ok := d.deferSlot(i, s); !ok || typ != discordgo.InteractionResponseDeferredMessageUpdate {
		t.Fatalf("deferSlot = %d, %v; want a deferred update", typ, ok)
	}
	refusal := &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Content: "Not your turn.", Flags: discordgo.MessageFlagsEphemeral}}
	if err := d.InteractionRespond(i, refusal); err != nil {
		t.Fatal(err)
	}
	if len(rec.edits) != 0 || len(rec.followups) != 1 || rec.followups[0].Content != "Not your turn." ||
		rec.followups[0].Flags != discordgo.MessageFlagsEphemeral {
		t.Fatalf("edits %d, follow-ups %+v; want one private follow-up and the board untouched", len(rec.edits), rec.followups)
	}
	for n, typ := range []discordgo.InteractionResponseType{discordgo.InteractionResponseUpdateMessage, discordgo.InteractionResponseChannelMessageWithSource} {
		// An update of the board, and a public new message (a rematch's
		// board), which the bot tracks as the original response.
		resp := &discordgo.InteractionResponse{Type: typ, Data: &discordgo.InteractionResponseData{Content: "board"}}
		if err := d.InteractionRespond(i, resp); err != nil {
			t.Fatal(err)
		}
		if len(rec.edits) != n+1 || *rec.edits[n].Content != "board" || len(rec.followups) != 1 {
			t.Fatalf("response type %d: edits %+v, %d follow-ups; want the board edited", typ, rec.edits, len(rec.followups))
		}
	}
}
