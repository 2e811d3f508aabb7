package rest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/fakediscord"
)

// restErr is discordgo's error for an answer with status.
func restErr(status int) error {
	return &discordgo.RESTError{Response: &http.Response{StatusCode: status}, ResponseBody: []byte("<html>")}
}

func TestRetryPolicy(t *testing.T) {
	reset := &url.Error{Op: "Patch", URL: "https://discord.com/api/v9/channels/1/messages/2", Err: io.EOF}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name     string
		ctx      context.Context
		errs     []error // the attempts' results in order; past the end: nil
		budget   time.Duration
		attempts int // wanted
		pauses   []time.Duration
		wantErr  bool
	}{
		{name: "ok at once", attempts: 1},
		{name: "503 then ok", errs: []error{restErr(503)}, attempts: 2, pauses: []time.Duration{500 * time.Millisecond}},
		{name: "500 and a reset then ok", errs: []error{restErr(500), reset}, attempts: 3,
			pauses: []time.Duration{500 * time.Millisecond, time.Second}},
		{name: "5xx every time: gives up after 4", errs: []error{restErr(502), restErr(503), restErr(504), restErr(500), nil},
			attempts: 4, pauses: []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second}, wantErr: true},
		{name: "budget ends it", errs: []error{reset, reset, reset, reset}, budget: 1200 * time.Millisecond,
			attempts: 2, pauses: []time.Duration{500 * time.Millisecond}, wantErr: true},
		{name: "404 never retried", errs: []error{restErr(404)}, attempts: 1, wantErr: true},
		{name: "403 never retried", errs: []error{restErr(403)}, attempts: 1, wantErr: true},
		{name: "429 left to discordgo", errs: []error{restErr(429)}, attempts: 1, wantErr: true},
		{name: "not a transport error", errs: []error{errors.New("cannot specify both File and Files")}, attempts: 1, wantErr: true},
		{name: "deadline of the request", errs: []error{&url.Error{Op: "Post", Err: context.DeadlineExceeded}}, attempts: 1, wantErr: true},
		{name: "context canceled", ctx: canceled, errs: []error{restErr(503)}, attempts: 1, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			clock := time.Unix(0, 0)
			var pauses []time.Duration
			p := retryPolicy{attempts: retryAttempts, first: DefaultRetryFirst, budget: retryBudget,
				jitter: func() float64 { return 0.5 }, now: func() time.Time { return clock },
				sleep: func(_ context.Context, d time.Duration) error {
					pauses = append(pauses, d)
					clock = clock.Add(d)
					return nil
				}}
			if tt.budget > 0 {
				p.budget = tt.budget
			}
			calls := 0
			n, err := p.do(ctx, func() error {
				calls++
				if calls <= len(tt.errs) {
					return tt.errs[calls-1]
				}
				return nil
			})
			if n != tt.attempts || calls != tt.attempts || (err != nil) != tt.wantErr {
				t.Fatalf("do = %d attempts (%d calls), %v; want %d attempts, error %v", n, calls, err, tt.attempts, tt.wantErr)
			}
			if fmt.Sprint(pauses) != fmt.Sprint(tt.pauses) {
				t.Fatalf("pauses %v, want %v", pauses, tt.pauses)
			}
		})
	}
}

func TestRetryPolicyJitterAndCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var pauses []time.Duration
	p := retryPolicy{attempts: retryAttempts, first: DefaultRetryFirst, budget: retryBudget,
		jitter: func() float64 { return 0.99 }, now: time.Now,
		sleep: func(ctx context.Context, d time.Duration) error {
			pauses = append(pauses, d)
			cancel() // the caller gives up during the pause
			return ctx.Err()
		}}
	calls := 0
	n, err := p.do(ctx, func() error { calls++; return restErr(503) })
	if n != 1 || calls != 1 || err == nil {
		t.Fatalf("do = %d attempts (%d calls), %v; want 1 attempt and its error", n, calls, err)
	}
	if want := time.Duration(float64(DefaultRetryFirst) * 1.49); len(pauses) != 1 || pauses[0] != want {
		t.Fatalf("pauses %v, want [%v] (jitter 0.99 of half to one and a half times)", pauses, want)
	}
}

func TestContextOf(t *testing.T) {
	type key struct{}
	ctx := context.WithValue(context.Background(), key{}, 1)
	if got := contextOf([]discordgo.RequestOption{discordgo.WithContext(ctx)}); got.Value(key{}) != 1 {
		t.Fatal("contextOf lost the request's context")
	}
	if got := contextOf(nil); got == nil || got.Err() != nil {
		t.Fatal("contextOf without options is not a live background context")
	}
}

// testRetrying is a retryingDiscord on ses with short real pauses.
func testRetrying(ses *discordgo.Session, raw rawRequester, gaveUp *[]string) *retryingDiscord {
	return &retryingDiscord{Discord: ses, raw: raw,
		policy: retryPolicy{attempts: retryAttempts, first: time.Millisecond, budget: retryBudget,
			jitter: func() float64 { return 0 }, sleep: sleepCtx, now: time.Now},
		giveUp: func(route string, _ int, _ error) { *gaveUp = append(*gaveUp, route) }}
}

func TestRetryingPostOnce(t *testing.T) {
	srv := fakediscord.New(t, fakediscord.Options{})
	ses, err := srv.Session()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		files []*discordgo.File
	}{
		{name: "json"},
		{name: "multipart", files: []*discordgo.File{{Name: "b.png", ContentType: "image/png", Reader: strings.NewReader("png")}}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch := fmt.Sprintf("30000000000000001%02d", i)
			var gaveUp []string
			d := testRetrying(ses, ses, &gaveUp)
			// Not applied, then applied but reset, then the nonce's answer.
			srv.Fail(fakediscord.Fault{Kind: fakediscord.FaultHTML, Method: "POST", Path: "/channels/", Times: 1})
			srv.Fail(fakediscord.Fault{Kind: fakediscord.FaultResetAfter, Method: "POST", Path: "/channels/", Times: 1})
			m, err := d.ChannelMessageSendComplex(ch, &discordgo.MessageSend{Content: "round 1", Files: tt.files},
				discordgo.WithContext(context.Background()))
			if err != nil {
				t.Fatal(err)
			}
			got := srv.Messages(ch)
			if len(got) != 1 || got[0].ID != m.ID || got[0].Content != "round 1" || len(got[0].Attachments) != len(tt.files) {
				t.Fatalf("posted %+v, channel has %d messages; want the one post", m, len(got))
			}
			if len(tt.files) > 0 {
				if data := got[0].Attachments[0].Data; string(data) != "png" {
					t.Fatalf("the retried post's file holds %q, want %q", data, "png")
				}
			}
			if len(gaveUp) != 0 {
				t.Fatalf("gave up %v", gaveUp)
			}
		})
	}
	t.Run("no nonce: not retried", func(t *testing.T) {
		const ch = "3000000000000000199"
		var gaveUp []string
		d := testRetrying(ses, nil, &gaveUp)
		srv.Fail(fakediscord.Fault{Kind: fakediscord.FaultResetAfter, Method: "POST", Path: "/channels/", Times: 1})
		if _, err := d.ChannelMessageSendComplex(ch, &discordgo.MessageSend{Content: "once"}); err == nil {
			t.Fatal("a reset post reported success")
		}
		if got := srv.Messages(ch); len(got) != 1 {
			t.Fatalf("channel has %d messages, want the one applied before the reset", len(got))
		}
	})
	t.Run("edit gives up", func(t *testing.T) {
		const ch = "3000000000000000198"
		var gaveUp []string
		d := testRetrying(ses, ses, &gaveUp)
		m, err := d.ChannelMessageSendComplex(ch, &discordgo.MessageSend{Content: "v1"})
		if err != nil {
			t.Fatal(err)
		}
		srv.Fail(fakediscord.Fault{Kind: fakediscord.FaultResetBefore, Method: "PATCH", Path: "/channels/", Times: retryAttempts})
		text := "v2"
		if _, err := d.ChannelMessageEditComplex(&discordgo.MessageEdit{ID: m.ID, Channel: ch, Content: &text}); err == nil {
			t.Fatal("an edit reset every time reported success")
		}
		if fmt.Sprint(gaveUp) != "[channel_message_edit]" {
			t.Fatalf("gave up %v, want [channel_message_edit]", gaveUp)
		}
		if _, err := d.ChannelMessageEditComplex(&discordgo.MessageEdit{ID: m.ID, Channel: ch, Content: &text}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestRetrySuperseded: a write whose board the game has moved on from
// is not tried again (its first attempt may have been applied, reset,
// and the board clicked since), and that is not a give-up.
func TestRetrySuperseded(t *testing.T) {
	srv := fakediscord.New(t, fakediscord.Options{})
	ses, err := srv.Session()
	if err != nil {
		t.Fatal(err)
	}
	m, err := ses.ChannelMessageSend("9", "move 4")
	if err != nil {
		t.Fatal(err)
	}
	var gaveUp []string
	d := testRetrying(ses, ses, &gaveUp)
	srv.Fail(fakediscord.Fault{Kind: fakediscord.FaultResetAfter, Method: "PATCH", Times: 1})
	checks := 0
	ctx := WithSuperseded(context.Background(), func() bool {
		checks++
		// The player saw the edit applied and played on.
		if _, err := ses.ChannelMessageEdit("9", m.ID, "move 6"); err != nil {
			t.Error(err)
		}
		return true
	})
	text := "move 4 again"
	_, err = d.ChannelMessageEditComplex(&discordgo.MessageEdit{ID: m.ID, Channel: "9", Content: &text}, discordgo.WithContext(ctx))
	if !errors.Is(err, ErrSuperseded) || checks != 1 {
		t.Fatalf("edit = %v after %d checks; want ErrSuperseded after one", err, checks)
	}
	if got, _ := srv.Message(m.ID); got.Content != "move 6" {
		t.Fatalf("the board shows %q, want the newer move 6", got.Content)
	}
	if len(gaveUp) != 0 {
		t.Fatalf("give-ups %v for a superseded write", gaveUp)
	}
}
