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

// editRecorder is a Discord that records the edits of first responses.
type editRecorder struct {
	Discord
	edits []*discordgo.WebhookEdit
	files []string // each edit's files, read whole
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
