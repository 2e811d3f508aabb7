package fakediscord_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
)

// newHTTPBot serves h on loopback and returns its URL.
func newHTTPBot(t *testing.T, h http.Handler) string {
	t.Helper()
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return hs.URL + "/interactions"
}

// registerHTTP registers /play through discordgo's REST API only.
func registerHTTP(t *testing.T, srv *fakediscord.Server) *discordgo.Session {
	t.Helper()
	ses, err := srv.Session()
	if err != nil {
		t.Fatal(err)
	}
	registerPlay(t, srv, ses)
	return ses
}

// verifying is a tiny HTTP-interactions bot: it checks the Ed25519
// signature, answers PING with PONG and everything else with answer.
func verifying(t *testing.T, pub ed25519.PublicKey, answer func(*discordgo.Interaction) *discordgo.InteractionResponse) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "read", http.StatusBadRequest)
			return
		}
		sig, err := hex.DecodeString(r.Header.Get(fakediscord.HeaderSignature))
		msg := append([]byte(r.Header.Get(fakediscord.HeaderTimestamp)), body...)
		ok := err == nil && ed25519.Verify(pub, msg, sig)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if ok != discordgo.VerifyInteraction(r, pub) {
			t.Errorf("this handler and discordgo.VerifyInteraction disagree (ours: %v)", ok)
		}
		if !ok {
			http.Error(w, "invalid request signature", http.StatusUnauthorized)
			return
		}
		var i discordgo.Interaction
		if err := json.Unmarshal(body, &i); err != nil {
			http.Error(w, "bad interaction", http.StatusBadRequest)
			return
		}
		resp := &discordgo.InteractionResponse{Type: discordgo.InteractionResponsePong}
		if i.Type != discordgo.InteractionPing {
			resp = answer(&i)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
	})
}

// TestHTTPInteractions runs the HTTP interactions mode end to end: endpoint
// verification, a signed command answered inline, a REST follow-up, and a
// click answered inline with an update.
func TestHTTPInteractions(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	srv := fakediscord.New(t, fakediscord.Options{})
	ses := registerHTTP(t, srv)
	url := newHTTPBot(t, verifying(t, srv.PublicKey(), func(i *discordgo.Interaction) *discordgo.InteractionResponse {
		if i.Type == discordgo.InteractionMessageComponent {
			return &discordgo.InteractionResponse{Type: discordgo.InteractionResponseUpdateMessage,
				Data: &discordgo.InteractionResponseData{Content: "clicked " + i.MessageComponentData().CustomID}}
		}
		return &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Content: "hello " + string(i.Locale), Components: board("go")}}
	}))
	if err := srv.VerifyEndpoint(ctx, url); err != nil {
		t.Fatalf("VerifyEndpoint: %v", err)
	}
	if hex.EncodeToString(srv.PublicKey()) != srv.PublicKeyHex() {
		t.Fatal("PublicKeyHex does not match PublicKey")
	}
	srv.SetInteractionsURL(url)

	d, err := srv.Command(ctx, fakediscord.CommandSpec{Actor: fakediscord.Actor{Locale: "fr", Channel: "dm1"}, Name: "play"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := d.Wait(ctx)
	if err != nil || r.Kind != fakediscord.KindCallback || r.Message.Content != "hello fr" {
		t.Fatalf("inline answer %+v, %v", r, err)
	}
	var i discordgo.Interaction
	if err := json.Unmarshal(d.Payload(), &i); err != nil || i.User == nil || i.Member != nil {
		t.Fatalf("DM interaction payload %s: %v", d.Payload(), err)
	}
	if _, err := ses.FollowupMessageCreate(&i, false, &discordgo.WebhookParams{Content: "and a follow-up"}); err != nil {
		t.Fatalf("follow-up: %v", err)
	}
	if r, err := d.Wait(ctx); err != nil || r.Kind != fakediscord.KindFollowup || r.Message.Content != "and a follow-up" {
		t.Fatalf("follow-up %+v, %v", r, err)
	}
	err = ses.InteractionRespond(&i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Content: "again"}})
	if status, code := restCode(t, err); status != 400 || code != fakediscord.CodeAlreadyAcknowledged {
		t.Fatalf("REST answer after the inline one: %d %d", status, code)
	}

	c, err := srv.Click(ctx, fakediscord.ClickSpec{MessageID: r.Message.ID, CustomID: "go"})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := c.Wait(ctx); err != nil || r.Type != 7 || r.Message.Content != "clicked go" || len(r.Message.Rows) != 1 {
		t.Fatalf("click %+v, %v", r, err)
	}
}

// TestHTTPEndpointChecks shows that a bot which skips signature checks fails
// verification, and that an error answer makes the interaction fail.
func TestHTTPEndpointChecks(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	srv := fakediscord.New(t, fakediscord.Options{})
	registerHTTP(t, srv)
	lax := newHTTPBot(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"type":1}`)
	}))
	if err := srv.VerifyEndpoint(ctx, lax); err == nil || !strings.Contains(err.Error(), "bad signature") {
		t.Fatalf("a bot that accepts forged requests passed: %v", err)
	}
	broken := newHTTPBot(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	}))
	srv.SetInteractionsURL(broken)
	d, err := srv.Command(ctx, fakediscord.CommandSpec{Name: "play"})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := d.Wait(ctx); !errors.Is(err, fakediscord.ErrInteractionFailed) || !strings.Contains(r.Error, "500") {
		t.Fatalf("want failure, got %+v %v", r, err)
	}
	if _, err := srv.Command(ctx, fakediscord.CommandSpec{Name: "nope"}); !errors.Is(err, fakediscord.ErrUnknownCommand) {
		t.Fatalf("unregistered command: %v", err)
	}
	srv.SetInteractionsURL("")
	if _, err := srv.Command(ctx, fakediscord.CommandSpec{Name: "play"}); !errors.Is(err, fakediscord.ErrNoBot) {
		t.Fatalf("no bot: %v", err)
	}
}

// TestModalsAndAutocomplete covers response types 8 and 9 and modal
// submissions, over HTTP interactions.
func TestModalsAndAutocomplete(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	srv := fakediscord.New(t, fakediscord.Options{})
	registerHTTP(t, srv)
	url := newHTTPBot(t, verifying(t, srv.PublicKey(), func(i *discordgo.Interaction) *discordgo.InteractionResponse {
		switch i.Type {
		case discordgo.InteractionApplicationCommandAutocomplete:
			typed := i.ApplicationCommandData().Options[0].StringValue()
			return &discordgo.InteractionResponse{Type: discordgo.InteractionApplicationCommandAutocompleteResult,
				Data: &discordgo.InteractionResponseData{Choices: []*discordgo.ApplicationCommandOptionChoice{{Name: typed + "fect", Value: "perfect"}}}}
		case discordgo.InteractionModalSubmit:
			v := i.ModalSubmitData().Components[0].(*discordgo.ActionsRow).Components[0].(*discordgo.TextInput).Value
			return &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
				Data: &discordgo.InteractionResponseData{Content: "named " + v, Flags: discordgo.MessageFlagsEphemeral}}
		}
		return &discordgo.InteractionResponse{Type: discordgo.InteractionResponseModal, Data: &discordgo.InteractionResponseData{
			CustomID: "name", Title: "Name your game",
			Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
				discordgo.TextInput{CustomID: "title", Label: "Title", Style: discordgo.TextInputShort}}}},
		}}
	}))
	srv.SetInteractionsURL(url)
	guild := fakediscord.Actor{Guild: "5", Channel: "6"}

	ac, err := srv.Autocomplete(ctx, fakediscord.CommandSpec{Actor: guild, Name: "play",
		Options: []fakediscord.Option{{Name: "level", Value: "per", Focused: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := ac.Wait(ctx); err != nil || r.Type != 8 || !strings.Contains(string(r.Data), `"perfect"`) {
		t.Fatalf("autocomplete %+v %s, %v", r, r.Data, err)
	}

	md, err := srv.Command(ctx, fakediscord.CommandSpec{Actor: guild, Name: "play"})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := md.Wait(ctx); err != nil || r.Type != 9 || r.Message != nil {
		t.Fatalf("modal %+v, %v", r, err)
	}
	sd, err := srv.SubmitModal(ctx, fakediscord.ModalSpec{Actor: guild, CustomID: "name", Fields: map[string]string{"title": "Friday"}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := sd.Wait(ctx)
	if err != nil || r.Message == nil || r.Message.Content != "named Friday" || !r.Message.Ephemeral || r.Message.VisibleTo != fakediscord.DefaultUserID {
		t.Fatalf("modal submit %+v, %v", r, err)
	}
	if got := srv.Visible("6", "other"); len(got) != 0 {
		t.Fatalf("another user sees %+v", got)
	}
}
