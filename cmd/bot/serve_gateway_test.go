package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

// readyz returns the status and body of GET /readyz at addr.
func readyz(addr string) (int, string) {
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestServeGatewayRidesOut runs serve against the fake's gateway and
// breaks the connection as Discord does: a close with 4000 and an op 7
// are resumed (at READY's resume_gateway_url) with every command answered
// once; /readyz is ready throughout the resumes; a 4004 mid-session makes
// /readyz unready with the reason, then serve exits with the token
// message, without a single reconnect attempt.
func TestServeGatewayRidesOut(t *testing.T) {
	fake := fakediscord.New(t, fakediscord.Options{HeartbeatInterval: 300 * time.Millisecond})
	rsrv := redistest.Start(t)
	cfg := tokenOnlyEnv(t, fake, rsrv.Addr(), "DEV_GUILD_ID", "42", "OPS_ADDR", "127.0.0.1:0")
	wctx, wcancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer wcancel()
	var (
		opsMu   sync.Mutex
		opsAddr string
	)
	listen := func(addr string) (net.Listener, error) {
		ln, err := net.Listen("tcp", addr)
		if err == nil && addr == "127.0.0.1:0" {
			opsMu.Lock()
			opsAddr = ln.Addr().String()
			opsMu.Unlock()
		}
		return ln, err
	}
	var logs logBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, cfg, serveDeps{levels: ai.NewRegistry(), logOut: &logs, listen: listen,
			newSession: func(token string) (*discordgo.Session, error) { return discordgo.New("Bot " + token) }})
	}()
	waitLog(t, wctx, &logs, done, `msg="serve: ready"`, 1)
	if _, err := fake.WaitGateway(wctx, func(g fakediscord.GatewayState) bool { return g.Connected == 1 }); err != nil {
		t.Fatal(err)
	}
	opsMu.Lock()
	ops := opsAddr
	opsMu.Unlock()
	for code, body := readyz(ops); code != 200; code, body = readyz(ops) {
		if wctx.Err() != nil {
			t.Fatalf("/readyz never ready: %d %q", code, body)
		}
		time.Sleep(10 * time.Millisecond)
	}
	wantHelp(t, wctx, fake)

	// A close with 4000, then an op 7: each resumed at resume_gateway_url.
	for i, brk := range []func(){func() { fake.CloseGateway(4000) }, fake.RequestReconnect} {
		brk()
		if _, err := fake.WaitGateway(wctx, func(g fakediscord.GatewayState) bool { return g.Resumes == i+1 && g.Connected == 1 }); err != nil {
			t.Fatalf("break %d: %v", i, err)
		}
		wantHelp(t, wctx, fake)
	}
	conns := fake.GatewayConns()
	for _, c := range conns[1:] {
		if c.Path != "/ws-resume" || len(c.Resume) == 0 {
			t.Errorf("a reconnection dialled %s (resume %s), want a RESUME at /ws-resume", c.Path, c.Resume)
		}
	}
	if g := fake.GatewayState(); g.Identifies != 1 {
		t.Errorf("%d IDENTIFYs, want 1: the session was resumed each time", g.Identifies)
	}
	// Every command was answered once: three /ttt help, three answers.
	answered := 0
	for _, c := range fake.Calls() {
		if strings.HasSuffix(c.Path, "/callback") {
			answered++
		}
	}
	if answered != 3 {
		t.Errorf("%d interaction responses, want 3", answered)
	}

	// 4004 mid-session: unready with the reason, then exit; no reconnect.
	before := len(fake.GatewayConns())
	fake.CloseGateway(4004)
	sawUnready := ""
	for sawUnready == "" {
		select {
		case err := <-done:
			t.Fatalf("serve exited (%v) before /readyz said why", err)
		case <-wctx.Done():
			t.Fatal("/readyz stayed ready after 4004")
		case <-time.After(5 * time.Millisecond):
		}
		if code, body := readyz(ops); code == http.StatusServiceUnavailable {
			sawUnready = body
		}
	}
	if !strings.Contains(sawUnready, "4004") {
		t.Errorf("/readyz said %q, want the close code", sawUnready)
	}
	select {
	case err := <-done:
		const want = "Discord rejected DISCORD_TOKEN (gateway close 4004)"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("serve returned %v, want %q", err, want)
		}
	case <-wctx.Done():
		t.Fatal("serve did not exit after 4004")
	}
	if n := len(fake.GatewayConns()); n != before {
		t.Errorf("%d connections after 4004, want none (was %d)", n, before)
	}
}

// TestServeShardsTakeOver runs two "bot serve" processes on one Redis
// against a fake Discord that recommends 4 shards: they share them, 2
// each; one is killed (SIGKILL, its leases are not released), and the
// other takes its shards over once their leases run out (within a lease
// and a claim round), then connects them at Discord's identify rate.
func TestServeShardsTakeOver(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and waits out a lease")
	}
	fake := fakediscord.New(t, fakediscord.Options{Shards: 4})
	rsrv := redistest.Start(t)
	bin := buildBot(t)
	wctx, wcancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer wcancel()
	start := func() *exec.Cmd {
		cmd := exec.Command(bin, "serve")
		cmd.Env = append(os.Environ(), "DISCORD_TOKEN="+fake.Token(), "DISCORD_API_URL="+fake.URL(), "REDIS_URL="+rsrv.Addr(),
			"CUSTOM_ID_KEY="+strings.Repeat("k", 32), "PSEUDONYM_KEY="+strings.Repeat("p", 32), "RETRAIN_INTERVAL=0", "OPS_ADDR=")
		out, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { _, _ = io.Copy(io.Discard, bufio.NewReader(out)) }()
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd
	}
	// live returns the shards with an open, identified connection, and
	// how many connections each has.
	live := func(conns []fakediscord.GatewayConn) map[int]int {
		out := map[int]int{}
		for _, c := range conns {
			if c.Closed || len(c.Identify) == 0 {
				continue
			}
			var id struct {
				Shard [2]int `json:"shard"`
			}
			if json.Unmarshal(c.Identify, &id) == nil && id.Shard[1] == 4 {
				out[id.Shard[0]]++
			}
		}
		return out
	}
	all := func(conns []fakediscord.GatewayConn) bool {
		l := live(conns)
		for s := range 4 {
			if l[s] != 1 {
				return false
			}
		}
		return true
	}
	a := start()
	_ = start()
	if _, err := fake.WaitGatewayConns(wctx, all); err != nil {
		t.Fatalf("4 shards never ran once each: %v", err)
	}
	// Both processes hold 2 shards: the leases in Redis name them.
	rdb := redistest.Client(t, rsrv)
	holders := func() map[string]int {
		out := map[string]int{}
		for s := range 4 {
			v, err := rdb.Get(wctx, "ttt:lock:{shard:4:"+strconv.Itoa(s)+"}").Result()
			if err != nil {
				continue
			}
			if _, owner, ok := strings.Cut(v, " "); ok {
				out[owner]++
			} else {
				out[v]++
			}
		}
		return out
	}
	for h := holders(); len(h) != 2 || !all(fake.GatewayConns()); h = holders() {
		if wctx.Err() != nil {
			t.Fatalf("the shards' holders: %v; want two processes with 2 each", h)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for owner, n := range holders() {
		if n != 2 {
			t.Errorf("%s holds %d shards, want 2", owner, n)
		}
	}
	killed := time.Now()
	if err := a.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = a.Wait()
	// The killed process's connections drop; the survivor claims its
	// shards once their leases (15 s) run out, then connects them at
	// Discord's identify rate (one per 5 s per max_concurrency bucket).
	one := func(h map[string]int) bool {
		for _, n := range h {
			return len(h) == 1 && n == 4
		}
		return false
	}
	for h := holders(); !one(h); h = holders() {
		if wctx.Err() != nil {
			t.Fatalf("the shards' holders after the kill: %v, want the survivor with 4", h)
		}
		time.Sleep(50 * time.Millisecond)
	}
	claimed := time.Since(killed)
	// The leases (and the dead process's presence) run out at most a
	// lease (15 s) after the kill; the survivor's next claim round (every
	// third of a lease, jittered by a tenth) takes them.
	if claimed > 23*time.Second {
		t.Errorf("the survivor claimed the shards %v after the kill, want within a lease and a claim round (about 21 s)", claimed)
	}
	if _, err := fake.WaitGatewayConns(wctx, func(conns []fakediscord.GatewayConn) bool {
		return time.Since(killed) > time.Second && all(conns)
	}); err != nil {
		t.Fatalf("the survivor did not take the shards over: %v", err)
	}
	if took := time.Since(killed); took > claimed+15*time.Second {
		t.Errorf("the shards connected %v after the kill, %v after the claim: more than two identify slots", took, took-claimed)
	}
	t.Logf("claimed %v after the kill, connected after %v", claimed.Round(100*time.Millisecond), time.Since(killed).Round(100*time.Millisecond))
}
