package fakediscord_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
)

func TestFaults(t *testing.T) {
	srv := fakediscord.New(t, fakediscord.Options{})
	ses, err := srv.Session()
	if err != nil {
		t.Fatal(err)
	}
	const ch = "3000000000000000009"
	m, err := ses.ChannelMessageSend(ch, "v1")
	if err != nil {
		t.Fatal(err)
	}
	edit := func(text string) error {
		_, err := ses.ChannelMessageEdit(ch, m.ID, text)
		return err
	}
	content := func() string {
		got, _ := srv.Message(m.ID)
		return got.Content
	}

	t.Run("html", func(t *testing.T) {
		srv.Fail(fakediscord.Fault{Kind: fakediscord.FaultHTML, Method: "PATCH", Path: "/channels/", Times: 1})
		err := edit("v2")
		var re *discordgo.RESTError
		if !errors.As(err, &re) || re.Response.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(re.ResponseBody), "<html>") {
			t.Fatalf("edit = %v, want a 503 with an HTML body", err)
		}
		if content() != "v1" {
			t.Fatalf("content %q: the failed edit was applied", content())
		}
		if err := edit("v2"); err != nil || content() != "v2" {
			t.Fatalf("second edit = %v, content %q; want it applied", err, content())
		}
	})
	t.Run("reset before", func(t *testing.T) {
		srv.Fail(fakediscord.Fault{Kind: fakediscord.FaultResetBefore, Method: "PATCH", Path: "/channels/", Times: 1})
		if err := edit("v3"); err == nil || content() != "v2" {
			t.Fatalf("edit = %v, content %q; want an error and nothing applied", err, content())
		}
	})
	t.Run("reset after", func(t *testing.T) {
		srv.Fail(fakediscord.Fault{Kind: fakediscord.FaultResetAfter, Method: "PATCH", Path: "/channels/", Times: 1})
		if err := edit("v4"); err == nil || content() != "v4" {
			t.Fatalf("edit = %v, content %q; want an error and the edit applied", err, content())
		}
	})
	t.Run("slow", func(t *testing.T) {
		srv.Fail(fakediscord.Fault{Kind: fakediscord.FaultSlow, Method: "PATCH", Path: "/channels/", Times: 1, Delay: time.Second})
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		if _, err := ses.ChannelMessageEdit(ch, m.ID, "v5", discordgo.WithContext(ctx)); err == nil {
			t.Fatal("a slow edit beat a 50 ms deadline")
		}
	})
	t.Run("share", func(t *testing.T) {
		srv.ClearFaults()
		srv.Fail(fakediscord.Fault{Kind: fakediscord.FaultHTML, Method: "GET", Path: "/channels/", Share: 0.5, Seed: 7})
		failed := 0
		for range 40 {
			if _, err := ses.ChannelMessage(ch, m.ID); err != nil {
				failed++
			}
		}
		if failed < 8 || failed > 32 {
			t.Fatalf("%d of 40 failed with a share of 0.5", failed)
		}
		srv.ClearFaults()
	})
	t.Run("enforced nonce", func(t *testing.T) {
		body := map[string]any{"content": "once", "nonce": "n-1", "enforce_nonce": true}
		var ids []string
		for range 2 {
			raw, err := ses.RequestWithBucketID("POST", discordgo.EndpointChannelMessages(ch), body, discordgo.EndpointChannelMessages(ch))
			if err != nil {
				t.Fatal(err)
			}
			var got discordgo.Message
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, got.ID)
		}
		n := 0
		for _, msg := range srv.Messages(ch) {
			if msg.Content == "once" {
				n++
			}
		}
		if ids[0] != ids[1] || n != 1 {
			t.Fatalf("two posts with one nonce: IDs %v, %d messages", ids, n)
		}
	})
}
