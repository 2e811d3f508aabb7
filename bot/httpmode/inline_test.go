package httpmode

import (
	"fmt"
	"io"
	"slices"
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
	REST
	edits     []*discordgo.WebhookEdit
	files     []string // each edit's files, read whole
	followups []*discordgo.WebhookParams
}

func (r *editRecorder) FollowupMessageCreate(_ *discordgo.Interaction, _ bool, data *discordgo.WebhookParams, _ ...discordgo.RequestOption) (*discordgo.Message, error) {
	r.followups = append(r.followups, data)
	return &discordgo.Message{ID: fmt.Sprint("f", len(r.followups)), Content: data.Content}, nil
}

// followupRecorder is an editRecorder that can also edit follow-ups, as
// the real session can.
type followupRecorder struct {
	editRecorder
	followupEdits []string // "<message ID>:<content>"
}

func (r *followupRecorder) FollowupMessageEdit(_ *discordgo.Interaction, id string, edit *discordgo.WebhookEdit, _ ...discordgo.RequestOption) (*discordgo.Message, error) {
	r.followupEdits = append(r.followupEdits, id+":"+*edit.Content)
	return &discordgo.Message{ID: id, Content: *edit.Content}, nil
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
// the clicked message (the board) and answered with a new message goes
// to a follow-up, which the interaction's later edits and reads of its
// original response then reach; the board is left alone. An update is
// an edit of the board. Without follow-up edits, the old way: the board
// is edited.
func TestAfterDeferralClick(t *testing.T) {
	ephemeral := discordgo.MessageFlagsEphemeral
	tests := []struct {
		name          string
		typ           discordgo.InteractionResponseType
		flags         discordgo.MessageFlags
		edits         []string // then edits of the original response
		wantFollowups []string // contents of follow-ups created
		wantFUEdits   []string // edits of follow-ups, "<id>:<content>"
		wantEdits     []string // edits of @original (the board)
		wantRead      string   // the original response's ID, as the bot reads it
	}{
		{"private refusal", discordgo.InteractionResponseChannelMessageWithSource, ephemeral, nil,
			[]string{"answer"}, nil, nil, "f1"},
		{"rematch board, then a move on it", discordgo.InteractionResponseChannelMessageWithSource, 0, []string{"moved"},
			[]string{"answer"}, []string{"f1:moved"}, nil, "f1"},
		{"deferred review, then its text twice", discordgo.InteractionResponseDeferredChannelMessageWithSource, ephemeral, []string{"review", "review+"},
			[]string{"review"}, []string{"f1:review+"}, nil, "f1"},
		{"board update", discordgo.InteractionResponseUpdateMessage, 0, []string{"again"},
			nil, nil, []string{"answer", "again"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &followupRecorder{}
			d := NewInlineDiscord(rec)
			i := &discordgo.Interaction{ID: "2", Type: discordgo.InteractionMessageComponent}
			s := d.expect(i)
			if typ, ok := d.deferSlot(i, s); !ok || typ != discordgo.InteractionResponseDeferredMessageUpdate {
				t.Fatalf("deferSlot = %d, %v; want a deferred update", typ, ok)
			}
			resp := &discordgo.InteractionResponse{Type: tt.typ, Data: &discordgo.InteractionResponseData{Content: "answer", Flags: tt.flags}}
			if err := d.InteractionRespond(i, resp); err != nil {
				t.Fatal(err)
			}
			for _, e := range tt.edits {
				if _, err := d.InteractionResponseEdit(i, &discordgo.WebhookEdit{Content: &e}); err != nil {
					t.Fatal(err)
				}
			}
			var followups, edits []string
			for _, f := range rec.followups {
				followups = append(followups, f.Content)
				if f.Flags != tt.flags {
					t.Errorf("follow-up %q flags %d; want %d", f.Content, f.Flags, tt.flags)
				}
			}
			for _, e := range rec.edits {
				edits = append(edits, *e.Content)
			}
			if !slices.Equal(followups, tt.wantFollowups) || !slices.Equal(rec.followupEdits, tt.wantFUEdits) || !slices.Equal(edits, tt.wantEdits) {
				t.Fatalf("follow-ups %q, their edits %q, board edits %q; want %q, %q, %q",
					followups, rec.followupEdits, edits, tt.wantFollowups, tt.wantFUEdits, tt.wantEdits)
			}
			if tt.wantRead != "" {
				if m, err := d.InteractionResponse(i); err != nil || m.ID != tt.wantRead {
					t.Fatalf("the original response reads as %+v, %v; want %s", m, err, tt.wantRead)
				}
			}
		})
	}

	// A Discord that cannot edit follow-ups: the board is edited.
	rec := &editRecorder{}
	d := NewInlineDiscord(rec)
	i := &discordgo.Interaction{ID: "3", Type: discordgo.InteractionMessageComponent}
	d.deferSlot(i, d.expect(i))
	if err := d.InteractionRespond(i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Content: "answer"}}); err != nil {
		t.Fatal(err)
	}
	if len(rec.edits) != 1 || len(rec.followups) != 0 {
		t.Fatalf("without follow-up edits: %d edits, %d follow-ups; want the board edited", len(rec.edits), len(rec.followups))
	}
}
