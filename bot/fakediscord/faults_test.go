package fakediscord_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
			if msg.Content == "once" && msg.Nonce == "n-1" {
				n++
			}
		}
		if ids[0] != ids[1] || n != 1 {
			t.Fatalf("two posts with one nonce: IDs %v, %d messages", ids, n)
		}
	})
}

// TestFaultRateLimit answers with Discord's 429s, per route and global:
// discordgo waits retry_after and sends the request again, which is
// applied once.
func TestFaultRateLimit(t *testing.T) {
	for _, global := range []bool{false, true} {
		t.Run(map[bool]string{false: "route", true: "global"}[global], func(t *testing.T) {
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
			const wait = 200 * time.Millisecond
			srv.Fail(fakediscord.Fault{Kind: fakediscord.FaultRateLimit, Method: "PATCH", Path: "/channels/", Times: 1,
				RetryAfter: wait, Global: global})
			start := time.Now()
			if _, err := ses.ChannelMessageEdit(ch, m.ID, "v2"); err != nil {
				t.Fatalf("edit after a 429: %v", err)
			}
			if took := time.Since(start); took < wait {
				t.Fatalf("the edit was sent again after %v, before retry_after (%v)", took, wait)
			}
			if got, _ := srv.Message(m.ID); got.Content != "v2" {
				t.Fatalf("content %q, want v2", got.Content)
			}
			var statuses []int
			for _, c := range srv.Calls() {
				if c.Method == "PATCH" {
					statuses = append(statuses, c.Status)
				}
			}
			if len(statuses) != 2 || statuses[0] != http.StatusTooManyRequests || statuses[1] != http.StatusOK {
				t.Fatalf("edits answered %v, want a 429 then a 200", statuses)
			}
		})
	}
	t.Run("headers and body", func(t *testing.T) {
		srv := fakediscord.New(t, fakediscord.Options{})
		srv.Fail(fakediscord.Fault{Kind: fakediscord.FaultRateLimit, Times: 1, RetryAfter: 1500 * time.Millisecond, Global: true})
		req, err := http.NewRequest("GET", srv.URL()+"/api/v10/users/@me", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bot "+srv.Token())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body struct {
			Message    string  `json:"message"`
			RetryAfter float64 `json:"retry_after"`
			Global     bool    `json:"global"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		h := resp.Header
		if resp.StatusCode != http.StatusTooManyRequests || body.RetryAfter != 1.5 || !body.Global ||
			h.Get("X-RateLimit-Remaining") != "0" || h.Get("X-RateLimit-Reset-After") != "1.500" ||
			h.Get("X-RateLimit-Global") != "true" || h.Get("X-RateLimit-Scope") != "global" || h.Get("Retry-After") != "2" {
			t.Fatalf("429: status %d, body %+v, headers %v", resp.StatusCode, body, h)
		}
	})
}

// TestFaultMixAndOutage draws each failing call's kind from a mix, and
// fails every REST call during an outage until it ends.
func TestFaultMixAndOutage(t *testing.T) {
	srv := fakediscord.New(t, fakediscord.Options{History: true})
	ses, err := srv.Session()
	if err != nil {
		t.Fatal(err)
	}
	ses.MaxRestRetries = 0
	const ch = "3000000000000000009"
	m, err := ses.ChannelMessageSend(ch, "v0")
	if err != nil {
		t.Fatal(err)
	}

	remove := srv.Fail(fakediscord.Fault{Mix: []fakediscord.FaultKind{fakediscord.FaultHTML, fakediscord.FaultResetBefore},
		Method: "GET", Path: "/channels/", Share: 1, Seed: 3})
	kinds := map[int]int{}
	for range 40 {
		if _, err := ses.ChannelMessage(ch, m.ID); err == nil {
			t.Fatal("a GET passed a fault with a share of 1")
		}
	}
	for _, c := range srv.Calls() {
		if c.Method == "GET" {
			kinds[c.Status]++
		}
	}
	if kinds[503] < 5 || kinds[0] < 5 || len(kinds) != 2 {
		t.Fatalf("40 calls failed as %v (status: count), want both 503s and resets", kinds)
	}
	remove()
	if _, err := ses.ChannelMessage(ch, m.ID); err != nil {
		t.Fatalf("a GET after the fault was removed: %v", err)
	}

	end := srv.Outage(9)
	for i := range 20 {
		_, err1 := ses.ChannelMessageEdit(ch, m.ID, fmt.Sprint("v", i+1))
		_, err2 := ses.ChannelMessageSend(ch, "during")
		_, err3 := ses.User("@me")
		if err1 == nil || err2 == nil || err3 == nil {
			t.Fatalf("calls during the outage: %v, %v, %v; want all failed", err1, err2, err3)
		}
	}
	statuses := map[int]bool{}
	for _, c := range srv.Calls() {
		statuses[c.Status] = true
	}
	for _, want := range []int{0, 500, 502, 503} {
		if !statuses[want] {
			t.Errorf("no call answered %d during the outage (got %v)", want, statuses)
		}
	}
	if got, _ := srv.Message(m.ID); got.Content != "v0" || len(srv.Messages(ch)) != 1 {
		t.Fatalf("the outage applied writes: %q, %d messages", got.Content, len(srv.Messages(ch)))
	}
	end()
	if _, err := ses.ChannelMessageEdit(ch, m.ID, "after"); err != nil {
		t.Fatalf("an edit after the outage: %v", err)
	}
	var shown []string
	for _, h := range srv.History(m.ID) {
		shown = append(shown, h.Content)
	}
	if strings.Join(shown, ",") != "v0,after" {
		t.Fatalf("the message was shown as %v, want v0 then after", shown)
	}
}
