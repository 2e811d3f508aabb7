package fakediscord_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
)

// testTimeout bounds every wait in these tests.
const testTimeout = 8 * time.Second

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// bot is a real discordgo session connected to the fake that hands every
// interaction it receives to the test.
type bot struct {
	ses   *discordgo.Session
	ready *discordgo.Ready
	got   chan *discordgo.Interaction
}

// connect opens a discordgo session against srv and waits for READY.
//
// Tests keep the default 41.25 s heartbeat interval on purpose: discordgo's
// Close sleeps a second while holding the session lock, and a heartbeat
// that ticks inside that second later writes to the old connection and
// closes the new one, so short intervals make reconnect tests flaky (a
// discordgo race, not a fake one). The first heartbeat is sent at once.
func connect(t *testing.T, srv *fakediscord.Server) *bot {
	t.Helper()
	ses, err := srv.Session()
	if err != nil {
		t.Fatal(err)
	}
	b := &bot{ses: ses, got: make(chan *discordgo.Interaction, 16)}
	readyc := make(chan *discordgo.Ready, 4)
	ses.AddHandler(func(_ *discordgo.Session, r *discordgo.Ready) { readyc <- r })
	ses.AddHandler(func(_ *discordgo.Session, i *discordgo.InteractionCreate) { b.got <- i.Interaction })
	if err := ses.Open(); err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { closeSettled(srv, ses) })
	select {
	case b.ready = <-readyc:
	case <-time.After(testTimeout):
		t.Fatal("no READY")
	}
	settle(t, srv, 1)
	return b
}

// settle waits until n connections are attached and the newest has sent a
// heartbeat (see GatewayState.ConnHeartbeats).
func settle(t *testing.T, srv *fakediscord.Server, n int) fakediscord.GatewayState {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	st, err := srv.WaitGateway(ctx, func(g fakediscord.GatewayState) bool { return g.Connected == n && g.ConnHeartbeats > 0 })
	if err != nil {
		t.Fatalf("gateway did not settle: %v", err)
	}
	return st
}

// closeSettled closes ses once its newest connection has sent a heartbeat,
// so that no late first heartbeat reopens the session after Close.
func closeSettled(srv *fakediscord.Server, ses *discordgo.Session) {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	_, _ = srv.WaitGateway(ctx, func(g fakediscord.GatewayState) bool { return g.ConnHeartbeats > 0 }) // best effort
	_ = ses.Close()
}

// next returns the next interaction the bot received.
func (b *bot) next(t *testing.T) *discordgo.Interaction {
	t.Helper()
	select {
	case i := <-b.got:
		return i
	case <-time.After(testTimeout):
		t.Fatal("bot received no interaction")
		return nil
	}
}

// restCode returns the HTTP status and Discord JSON code of a discordgo error.
func restCode(t *testing.T, err error) (int, int) {
	t.Helper()
	var re *discordgo.RESTError
	if !errors.As(err, &re) {
		t.Fatalf("want a *discordgo.RESTError, got %v", err)
	}
	code := -1
	if re.Message != nil {
		code = re.Message.Code
	}
	return re.Response.StatusCode, code
}

// clock is an injectable clock for deadline tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func ptr[T any](v T) *T { return &v }

// board returns one action row with the given buttons.
func board(ids ...string) []discordgo.MessageComponent {
	var row discordgo.ActionsRow
	for _, id := range ids {
		row.Components = append(row.Components, discordgo.Button{Label: id, CustomID: id, Style: discordgo.PrimaryButton})
	}
	return []discordgo.MessageComponent{row}
}

// registerPlay registers a /play command globally.
func registerPlay(t *testing.T, srv *fakediscord.Server, ses *discordgo.Session) {
	t.Helper()
	_, err := ses.ApplicationCommandBulkOverwrite(srv.AppID(), "", []*discordgo.ApplicationCommand{{
		Name: "play", Description: "Start a game",
		Options: []*discordgo.ApplicationCommandOption{{Type: discordgo.ApplicationCommandOptionString, Name: "level", Description: "AI level", Autocomplete: true}},
	}})
	if err != nil {
		t.Fatalf("ApplicationCommandBulkOverwrite: %v", err)
	}
}
