package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
	"github.com/tttbot/ttt-bot/bot/gateway"
)

// event is one dispatch as the shard handed it over.
type event struct {
	name string
	raw  json.RawMessage
}

// harness runs a Shard against a fake Discord, with sleeps recorded and
// skipped.
type harness struct {
	t      *testing.T
	srv    *fakediscord.Server
	shard  *gateway.Shard
	events chan event
	done   chan error
	cancel context.CancelFunc
	ready  event // the first READY

	mu       sync.Mutex
	sleeps   []time.Duration
	observed []string
}

func start(t *testing.T, interval time.Duration) *harness {
	t.Helper()
	h := &harness{t: t, events: make(chan event, 1000), done: make(chan error, 1)}
	h.srv = fakediscord.New(t, fakediscord.Options{HeartbeatInterval: interval})
	sh, err := gateway.New(gateway.Config{
		Token:      "Bot " + h.srv.Token(),
		URL:        h.srv.GatewayURL(),
		Intents:    513,
		ShardID:    0,
		ShardCount: 1,
		Dispatch:   func(name string, raw json.RawMessage) { h.events <- event{name, raw} },
		Observe: func(kind string) {
			h.mu.Lock()
			h.observed = append(h.observed, kind)
			h.mu.Unlock()
		},
		Rand: rand.New(rand.NewPCG(1, 2)),
		Sleep: func(ctx context.Context, d time.Duration) error {
			h.mu.Lock()
			h.sleeps = append(h.sleeps, d)
			h.mu.Unlock()
			return ctx.Err()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	h.shard = sh
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	go func() { h.done <- sh.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-h.done:
		case <-time.After(5 * time.Second):
			t.Error("Run did not return after cancel")
		}
	})
	h.ready = h.wait("READY")
	return h
}

// wait returns the next event named name, failing on any other.
func (h *harness) wait(name string) event {
	h.t.Helper()
	select {
	case e := <-h.events:
		if e.name != name {
			h.t.Fatalf("event %s %s, want %s", e.name, e.raw, name)
		}
		return e
	case err := <-h.done:
		h.t.Fatalf("Run returned %v while waiting for %s", err, name)
	case <-time.After(5 * time.Second):
		h.t.Fatalf("no %s", name)
	}
	return event{}
}

// conns waits until the fake has seen n connections, the last one having
// sent IDENTIFY or RESUME, and returns the records.
func (h *harness) conns(n int) []fakediscord.GatewayConn {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cs, err := h.srv.WaitGatewayConns(ctx, func(cs []fakediscord.GatewayConn) bool {
		return len(cs) >= n && (cs[n-1].Identify != nil || cs[n-1].Resume != nil) && cs[n-2].Closed
	})
	if err != nil {
		h.t.Fatalf("waiting for %d connections: %v (have %+v)", n, err, h.srv.GatewayConns())
	}
	return cs
}

func (h *harness) recorded() (sleeps []time.Duration, observed []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.sleeps), slices.Clone(h.observed)
}

func sessionID(t *testing.T, ready event) string {
	t.Helper()
	var r discordgo.Ready
	if err := json.Unmarshal(ready.raw, &r); err != nil || r.SessionID == "" {
		t.Fatalf("READY %s: %v", ready.raw, err)
	}
	return r.SessionID
}

// checkResumed checks that connection i resumed session id at the resume URL.
func checkResumed(t *testing.T, c fakediscord.GatewayConn, id string) {
	t.Helper()
	var r struct {
		Token     string `json:"token"`
		SessionID string `json:"session_id"`
	}
	if c.Path != "/ws-resume" || c.Identify != nil || json.Unmarshal(c.Resume, &r) != nil || r.SessionID != id || r.Token != fakediscord.DefaultToken {
		t.Fatalf("connection after the drop: %+v (resume %s), want a RESUME of %s at /ws-resume", c, c.Resume, id)
	}
}

func TestIdentifyAndDispatch(t *testing.T) {
	t.Parallel()
	h := start(t, time.Minute)
	c := h.srv.GatewayConns()[0]
	var id struct {
		Token      string            `json:"token"`
		Intents    int               `json:"intents"`
		Shard      [2]int            `json:"shard"`
		Properties map[string]string `json:"properties"`
	}
	if err := json.Unmarshal(c.Identify, &id); err != nil {
		t.Fatal(err)
	}
	if c.Path != "/ws" || c.Query != "encoding=json&v=10" || id.Token != fakediscord.DefaultToken || id.Intents != 513 ||
		id.Shard != [2]int{0, 1} || id.Properties["os"] == "" {
		t.Fatalf("connection %+v, identify %+v", c, id)
	}
	if st, _ := h.shard.State(); st != gateway.Ready {
		t.Fatalf("state %v, want ready", st)
	}

	if err := h.srv.Dispatch("42", "INTERACTION_CREATE", map[string]any{
		"id": "9", "type": 2, "guild_id": "42", "token": "tok", "data": map[string]any{"name": "play"}}); err != nil {
		t.Fatal(err)
	}
	e := h.wait("INTERACTION_CREATE")
	var ic discordgo.InteractionCreate
	if err := json.Unmarshal(e.raw, &ic); err != nil || ic.Interaction == nil || ic.ID != "9" || ic.ApplicationCommandData().Name != "play" {
		t.Fatalf("INTERACTION_CREATE %s -> %+v, %v", e.raw, ic.Interaction, err)
	}
	if err := h.srv.Dispatch("42", "GUILD_DELETE", map[string]any{"id": "42", "unavailable": false}); err != nil {
		t.Fatal(err)
	}
	e = h.wait("GUILD_DELETE")
	var gd discordgo.GuildDelete
	if err := json.Unmarshal(e.raw, &gd); err != nil || gd.Guild == nil || gd.ID != "42" || gd.Unavailable {
		t.Fatalf("GUILD_DELETE %s -> %+v, %v", e.raw, gd.Guild, err)
	}
}

func TestZombieIsClosedResumablyAndResumed(t *testing.T) {
	t.Parallel()
	const interval = 200 * time.Millisecond
	h := start(t, interval)
	id := sessionID(t, h.ready)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := h.srv.WaitGatewayConns(ctx, func(cs []fakediscord.GatewayConn) bool { return cs[0].Heartbeats > 0 }); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	h.srv.WithholdACKs()
	cs, err := h.srv.WaitGatewayConns(ctx, func(cs []fakediscord.GatewayConn) bool { return cs[0].Closed })
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(t0); took > 2*interval+100*time.Millisecond {
		t.Errorf("zombie noticed after %v, want within two intervals (%v)", took, 2*interval)
	}
	if cs[0].ClientClose == 1000 || cs[0].ClientClose == 1001 {
		t.Errorf("zombie closed with %d, which ends the session", cs[0].ClientClose)
	}
	h.wait("RESUMED")
	checkResumed(t, h.conns(2)[1], id)
	if _, obs := h.recorded(); !slices.Contains(obs, "zombie") {
		t.Errorf("observed %v, want a zombie", obs)
	}
}

func TestReconnectRequestLosesNothing(t *testing.T) {
	t.Parallel()
	h := start(t, time.Minute)
	id := sessionID(t, h.ready)
	const n = 60
	go func() {
		for i := range n {
			if i == n/3 {
				h.srv.RequestReconnect()
			}
			_ = h.srv.Dispatch("42", "TEST", map[string]int{"n": i}) // the session exists: never ErrNoBot
			time.Sleep(time.Millisecond)
		}
	}()
	var got []int
	resumed := false
	deadline := time.After(10 * time.Second)
	for len(got) < n {
		select {
		case e := <-h.events:
			switch e.name {
			case "RESUMED":
				resumed = true
			case "TEST":
				var d struct{ N int }
				if err := json.Unmarshal(e.raw, &d); err != nil {
					t.Fatal(err)
				}
				got = append(got, d.N)
			default:
				t.Fatalf("unexpected %s", e.name)
			}
		case <-deadline:
			t.Fatalf("got %d events: %v", len(got), got)
		}
	}
	for i, v := range got {
		if v != i {
			t.Fatalf("events %v, want 0..%d each once in order", got, n-1)
		}
	}
	if !resumed {
		t.Fatal("no RESUMED")
	}
	cs := h.conns(2)
	if cs[0].ClientClose == 1000 || cs[0].ClientClose == 1001 {
		t.Errorf("closed for op 7 with %d", cs[0].ClientClose)
	}
	checkResumed(t, cs[1], id)
	if sleeps, obs := h.recorded(); len(sleeps) != 0 || !slices.Contains(obs, "reconnect") {
		t.Errorf("sleeps %v, observed %v: want an immediate reconnect", sleeps, obs)
	}
}

func TestInvalidSession(t *testing.T) {
	t.Parallel()
	t.Run("resumable", func(t *testing.T) {
		t.Parallel()
		h := start(t, time.Minute)
		h.srv.InvalidSession(true)
		h.wait("RESUMED")
		checkResumed(t, h.conns(2)[1], sessionID(t, h.ready))
		if sleeps, _ := h.recorded(); len(sleeps) != 0 {
			t.Errorf("waited %v before resuming", sleeps)
		}
	})
	t.Run("not resumable", func(t *testing.T) {
		t.Parallel()
		h := start(t, time.Minute)
		h.srv.InvalidSession(false)
		second := h.wait("READY")
		if sessionID(t, second) == sessionID(t, h.ready) {
			t.Fatal("same session after op 9 false")
		}
		c := h.conns(2)[1]
		if c.Path != "/ws" || c.Identify == nil || c.Resume != nil {
			t.Fatalf("connection after op 9 false: %+v", c)
		}
		sleeps, obs := h.recorded()
		if len(sleeps) != 1 || sleeps[0] < time.Second || sleeps[0] >= 5*time.Second {
			t.Fatalf("waited %v before identifying, want once in [1s, 5s)", sleeps)
		}
		if !slices.Contains(obs, "invalid_session") {
			t.Errorf("observed %v", obs)
		}
	})
}

func TestFatalCloseCodes(t *testing.T) {
	t.Parallel()
	for _, code := range []int{4004, 4010, 4011, 4012, 4013, 4014} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			t.Parallel()
			h := start(t, time.Minute)
			h.srv.CloseGateway(code)
			var err error
			select {
			case err = <-h.done:
				h.done <- err // for the cleanup
			case <-time.After(5 * time.Second):
				t.Fatal("Run did not return")
			}
			var fe *gateway.FatalError
			if !errors.Is(err, gateway.ErrFatal) || !errors.As(err, &fe) || fe.Code != code || fe.Meaning == "" {
				t.Fatalf("Run returned %v, want a FatalError with code %d", err, code)
			}
			sleeps, obs := h.recorded()
			if n := len(h.srv.GatewayConns()); n != 1 || len(sleeps) != 0 {
				t.Fatalf("%d connections, sleeps %v: want no retry", n, sleeps)
			}
			if !slices.Contains(obs, fmt.Sprintf("close:%d", code)) {
				t.Errorf("observed %v", obs)
			}
			if st, _ := h.shard.State(); st != gateway.Stopped {
				t.Errorf("state %v", st)
			}
		})
	}
}

func TestRetriedCloseCodes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		code   int
		resume bool
	}{{4000, true}, {4008, true}, {4007, false}, {4009, false}} {
		t.Run(fmt.Sprint(tc.code), func(t *testing.T) {
			t.Parallel()
			h := start(t, time.Minute)
			h.srv.CloseGateway(tc.code)
			if tc.resume {
				h.wait("RESUMED")
				checkResumed(t, h.conns(2)[1], sessionID(t, h.ready))
			} else {
				h.wait("READY")
				if c := h.conns(2)[1]; c.Path != "/ws" || c.Identify == nil || c.Resume != nil {
					t.Fatalf("connection after %d: %+v", tc.code, c)
				}
			}
			if sleeps, _ := h.recorded(); len(sleeps) != 1 || sleeps[0] < 500*time.Millisecond || sleeps[0] >= time.Second {
				t.Errorf("waited %v, want one backoff in [0.5s, 1s)", sleeps)
			}
		})
	}
}

func TestBackoffOnNetworkErrors(t *testing.T) {
	t.Parallel()
	h := start(t, time.Minute)
	h.srv.SetUnreachable(true)
	h.srv.DropGateway()
	for deadline := time.Now().Add(10 * time.Second); ; {
		sleeps, _ := h.recorded()
		if len(sleeps) >= 9 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d backoffs in 10s, want 9", len(sleeps))
		}
		time.Sleep(5 * time.Millisecond)
	}
	h.srv.SetUnreachable(false)
	h.wait("RESUMED")
	sleeps, _ := h.recorded()
	base := time.Second
	for i, d := range sleeps {
		if d < base/2 || d >= base {
			t.Errorf("wait %d: %v, want in [%v, %v)", i, d, base/2, base)
		}
		base = min(2*base, time.Minute)
	}
	if st, _ := h.shard.State(); st != gateway.Ready {
		t.Errorf("state %v after resuming", st)
	}

	// After RESUMED the backoff starts again from 1 s.
	h.srv.DropGateway()
	h.wait("RESUMED")
	after, _ := h.recorded()
	if len(after) != len(sleeps)+1 || after[len(sleeps)] < 500*time.Millisecond || after[len(sleeps)] >= time.Second {
		t.Errorf("waits after a resume %v, want one in [0.5s, 1s)", after[len(sleeps):])
	}
}

func TestCancelClosesWith1000(t *testing.T) {
	t.Parallel()
	h := start(t, time.Minute)
	h.cancel()
	select {
	case err := <-h.done:
		h.done <- err
		if err != nil {
			t.Fatalf("Run returned %v, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cs, err := h.srv.WaitGatewayConns(ctx, func(cs []fakediscord.GatewayConn) bool { return cs[0].Closed })
	if err != nil || cs[0].ClientClose != 1000 || len(cs) != 1 {
		t.Fatalf("connections %+v, %v: want one, closed with 1000", cs, err)
	}
	if st, _ := h.shard.State(); st != gateway.Stopped {
		t.Errorf("state %v", st)
	}
}

func TestHeartbeatCarriesLastSeq(t *testing.T) {
	t.Parallel()
	h := start(t, time.Minute) // no timed heartbeat in this test: only the requested ones
	h.srv.RequestHeartbeat()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cs, err := h.srv.WaitGatewayConns(ctx, func(cs []fakediscord.GatewayConn) bool { return cs[0].Heartbeats >= 1 })
	if err != nil || cs[0].Seqs[0] != 1 { // READY was seq 1
		t.Fatalf("heartbeats %v, %v: want one with seq 1 (READY)", cs[0].Seqs, err)
	}
	for range 3 {
		if err := h.srv.Dispatch("42", "TEST", map[string]int{}); err != nil {
			t.Fatal(err)
		}
		h.wait("TEST")
	}
	h.srv.RequestHeartbeat()
	cs, err = h.srv.WaitGatewayConns(ctx, func(cs []fakediscord.GatewayConn) bool { return cs[0].Heartbeats >= 2 })
	if err != nil || cs[0].Seqs[1] != 4 {
		t.Fatalf("heartbeats %v, %v: want the second with seq 4", cs[0].Seqs, err)
	}
}

func TestIdentifyWaitGatesEachIdentify(t *testing.T) {
	t.Parallel()
	srv := fakediscord.New(t, fakediscord.Options{})
	gate := make(chan struct{})
	waiting := make(chan struct{}, 10) // a send each time IdentifyWait is called
	events := make(chan string, 10)
	sh, err := gateway.New(gateway.Config{
		Token: srv.Token(), URL: srv.GatewayURL(),
		Dispatch: func(name string, _ json.RawMessage) { events <- name },
		IdentifyWait: func(ctx context.Context) error {
			waiting <- struct{}{}
			select {
			case <-gate:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		},
		Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() },
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- sh.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	inIdentifyWait := func() {
		t.Helper()
		select {
		case <-waiting:
		case <-time.After(10 * time.Second):
			t.Fatal("IdentifyWait not called within 10s")
		}
	}
	inIdentifyWait()
	if n := len(srv.GatewayConns()); n != 0 {
		t.Fatalf("%d connections before IdentifyWait returned", n)
	}
	if st, _ := sh.State(); st != gateway.Identifying {
		t.Fatalf("state %v while waiting to identify", st)
	}
	gate <- struct{}{}
	if e := <-events; e != "READY" {
		t.Fatalf("first event %s", e)
	}
	srv.DropGateway() // a resume does not wait for the gate
	if e := <-events; e != "RESUMED" {
		t.Fatalf("event %s after a drop", e)
	}
	if n := len(waiting); n != 0 {
		t.Fatalf("IdentifyWait called %d times for a resume", n)
	}
	srv.InvalidSession(false) // a new identify does
	inIdentifyWait()
	if st, _ := sh.State(); st != gateway.Identifying {
		t.Fatalf("state %v while waiting to identify again", st)
	}
	gate <- struct{}{}
	if e := <-events; e != "READY" {
		t.Fatalf("event %s after op 9", e)
	}
}
