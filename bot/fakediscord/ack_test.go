package fakediscord_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
)

// TestAcknowledgementRules checks that the fake refuses what Discord
// refuses: a second acknowledgement, an unknown interaction, an answer after
// the 3 s window, invalid messages, and edits before acknowledging.
func TestAcknowledgementRules(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	clk := newClock()
	srv := fakediscord.New(t, fakediscord.Options{Now: clk.Now})
	b := connect(t, srv)
	registerPlay(t, srv, b.ses)
	play := fakediscord.CommandSpec{Actor: fakediscord.Actor{Guild: "9", Channel: "10"}, Name: "play"}
	message := func(content string, comps ...discordgo.MessageComponent) *discordgo.InteractionResponse {
		return &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Content: content, Components: comps}}
	}

	t.Run("duplicate", func(t *testing.T) {
		d, err := srv.Command(ctx, play)
		if err != nil {
			t.Fatal(err)
		}
		i := b.next(t)
		if _, err := b.ses.InteractionResponseEdit(i, &discordgo.WebhookEdit{Content: ptr("early")}); err == nil {
			t.Fatal("edit before acknowledging succeeded")
		} else if status, code := restCode(t, err); status != 404 || code != fakediscord.CodeUnknownWebhook {
			t.Fatalf("edit before ack: %d %d", status, code)
		}
		if err := b.ses.InteractionRespond(i, message("one")); err != nil {
			t.Fatal(err)
		}
		err = b.ses.InteractionRespond(i, message("two"))
		if status, code := restCode(t, err); status != 400 || code != fakediscord.CodeAlreadyAcknowledged {
			t.Fatalf("second ack: %d %d", status, code)
		}
		if r, err := d.Wait(ctx); err != nil || r.Message.Content != "one" {
			t.Fatalf("%+v %v", r, err)
		}
		if r, err := d.Wait(ctx); !errors.Is(err, fakediscord.ErrRejected) || !strings.Contains(r.Error, "already been acknowledged") {
			t.Fatalf("rejection not recorded: %+v %v", r, err)
		}
	})

	t.Run("unknown", func(t *testing.T) {
		err := b.ses.InteractionRespond(&discordgo.Interaction{ID: "123", Token: "nope"}, message("x"))
		if status, code := restCode(t, err); status != 404 || code != fakediscord.CodeUnknownInteraction {
			t.Fatalf("unknown interaction: %d %d", status, code)
		}
	})

	t.Run("late", func(t *testing.T) {
		d, err := srv.Command(ctx, play)
		if err != nil {
			t.Fatal(err)
		}
		i := b.next(t)
		clk.Advance(3*time.Second + time.Millisecond)
		err = b.ses.InteractionRespond(i, message("too late"))
		if status, code := restCode(t, err); status != 404 || code != fakediscord.CodeUnknownInteraction {
			t.Fatalf("late ack: %d %d", status, code)
		}
		if _, err := d.Wait(ctx); !errors.Is(err, fakediscord.ErrInteractionFailed) || !d.Failed() {
			t.Fatalf("late ack not shown as failed: %v", err)
		}
		if got := srv.Messages("10"); len(got) != 1 {
			t.Fatalf("channel holds %d messages, want only the one from the duplicate test", len(got))
		}
	})

	t.Run("token lifetime", func(t *testing.T) {
		_, err := srv.Command(ctx, play)
		if err != nil {
			t.Fatal(err)
		}
		i := b.next(t)
		if err := b.ses.InteractionRespond(i, message("ok")); err != nil {
			t.Fatal(err)
		}
		clk.Advance(15*time.Minute + time.Second)
		_, err = b.ses.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "late"})
		if status, code := restCode(t, err); status != 401 || code != fakediscord.CodeInvalidWebhookToken {
			t.Fatalf("follow-up after 15 min: %d %d", status, code)
		}
	})

	tooMany := make([]discordgo.MessageComponent, 6)
	for r := range tooMany {
		tooMany[r] = board("a"+string(rune('0'+r)), "b"+string(rune('0'+r)))[0]
	}
	sixButtons := board("1", "2", "3", "4", "5", "6")
	invalid := []struct {
		name  string
		resp  *discordgo.InteractionResponse
		field string
	}{
		{"content over 2000", message(strings.Repeat("x", 2001)), "content"},
		{"six rows", message("x", tooMany...), "components"},
		{"six buttons in a row", message("x", sixButtons...), "components"},
		{"custom id over 100", message("x", board(strings.Repeat("i", 101))...), "custom_id"},
		{"duplicate custom id", message("x", board("a", "a")...), "custom_id"},
		{"empty", message(""), ""},
		{"autocomplete for a command", &discordgo.InteractionResponse{Type: discordgo.InteractionApplicationCommandAutocompleteResult,
			Data: &discordgo.InteractionResponseData{}}, "type"},
		{"modal without title", &discordgo.InteractionResponse{Type: discordgo.InteractionResponseModal,
			Data: &discordgo.InteractionResponseData{CustomID: "m"}}, "title"},
	}
	for _, tc := range invalid {
		t.Run(tc.name, func(t *testing.T) {
			clk.Advance(time.Millisecond)
			d, err := srv.Command(ctx, play)
			if err != nil {
				t.Fatal(err)
			}
			i := b.next(t)
			err = b.ses.InteractionRespond(i, tc.resp)
			if status, _ := restCode(t, err); status != 400 || !strings.Contains(string(err.(*discordgo.RESTError).ResponseBody), tc.field) {
				t.Fatalf("got %v, want 400 naming %q", err, tc.field)
			}
			if r, err := d.Wait(ctx); !errors.Is(err, fakediscord.ErrRejected) {
				t.Fatalf("want a rejection, got %+v %v", r, err)
			}
			// The interaction is still open: a valid answer is accepted.
			if err := b.ses.InteractionRespond(i, message("fine")); err != nil {
				t.Fatalf("valid answer after a rejected one: %v", err)
			}
		})
	}
}

// TestAckTimer checks that an interaction nobody answers fails after the
// deadline, without any clock injection.
func TestAckTimer(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	release := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"type":4,"data":{"content":"too late"}}`)
	})
	bot := newHTTPBot(t, h)
	srv := fakediscord.New(t, fakediscord.Options{AckDeadline: 50 * time.Millisecond, InteractionsURL: bot})
	registerHTTP(t, srv)
	d, err := srv.Command(ctx, fakediscord.CommandSpec{Name: "play"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := d.Wait(ctx)
	close(release)
	if !errors.Is(err, fakediscord.ErrInteractionFailed) || r.Kind != fakediscord.KindFailed {
		t.Fatalf("want failure, got %+v %v", r, err)
	}
}

// TestRESTValidation covers authorization, malformed JSON and routing.
func TestRESTValidation(t *testing.T) {
	t.Parallel()
	srv := fakediscord.New(t, fakediscord.Options{})
	c := srv.Client()
	do := func(method, url, auth, body string) (int, map[string]any) {
		t.Helper()
		req, err := http.NewRequest(method, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	good := "Bot " + srv.Token()
	tests := []struct {
		name, method, url, auth, body string
		status                        int
		code                          float64
	}{
		{"me", "GET", "https://discord.com/api/v9/users/@me", good, "", 200, -1},
		{"me v10 discordapp", "GET", "https://discordapp.com/api/v10/users/@me", good, "", 200, -1},
		{"no auth", "GET", "https://discord.com/api/v9/users/@me", "", "", 401, 0},
		{"no Bot prefix", "GET", "https://discord.com/api/v9/users/@me", srv.Token(), "", 401, 0},
		{"bad json", "POST", "https://discord.com/api/v9/channels/1/messages", good, "{", 400, fakediscord.CodeInvalidJSON},
		{"empty message", "POST", "https://discord.com/api/v9/channels/1/messages", good, "{}", 400, fakediscord.CodeEmptyMessage},
		{"too long", "POST", "https://discord.com/api/v9/channels/1/messages", good, `{"content":"` + strings.Repeat("é", 2001) + `"}`, 400, fakediscord.CodeInvalidFormBody},
		{"2000 runes", "POST", "https://discord.com/api/v9/channels/1/messages", good, `{"content":"` + strings.Repeat("é", 2000) + `"}`, 200, -1},
		{"unknown message", "PATCH", "https://discord.com/api/v9/channels/1/messages/99", good, `{"content":"x"}`, 404, fakediscord.CodeUnknownMessage},
		{"unknown route", "GET", "https://discord.com/api/v9/guilds/1", good, "", 404, 0},
		{"wrong app", "PUT", "https://discord.com/api/v9/applications/1/commands", good, "[]", 403, 50001},
		{"bad command name", "PUT", "https://discord.com/api/v9/applications/" + srv.AppID() + "/commands", good, `[{"name":"Play","description":"d"}]`, 400, fakediscord.CodeInvalidFormBody},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, body := do(tc.method, tc.url, tc.auth, tc.body)
			if status != tc.status {
				t.Fatalf("status %d, want %d (%v)", status, tc.status, body)
			}
			if tc.code >= 0 && body["code"] != tc.code {
				t.Fatalf("code %v, want %v (%v)", body["code"], tc.code, body)
			}
		})
	}
	if _, err := c.Get("https://example.com/"); err == nil || !strings.Contains(err.Error(), "non-Discord host") {
		t.Fatalf("request to another host: %v", err)
	}
	calls := srv.Calls()
	if len(calls) != len(tests) || calls[0].Path != "/users/@me" || calls[0].Status != 200 {
		t.Fatalf("calls %+v", calls)
	}
	if !bytes.Contains(calls[4].Body, []byte("{")) || calls[4].Status != 400 {
		t.Fatalf("bad JSON call recorded as %+v", calls[4])
	}
}
