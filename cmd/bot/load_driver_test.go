package main

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot"
	slash "github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

// This file is the load driver of load_bench_test.go: real `bot serve`
// processes in HTTP mode on one private redis-server, the fake Discord
// signing and POSTing interactions to them (through a round-robin proxy
// when there are several), and simulated users playing through the fake
// as people would: a command, then a click whenever the board shows it is
// their turn.

// The secrets every replica shares (they must agree to accept each
// other's buttons); the driver decodes the buttons with the same key.
var (
	loadCustomIDKey  = strings.Repeat("load-custom-id-key-", 2)
	loadPseudonymKey = strings.Repeat("load-pseudonym-key-", 2)
)

// Timeouts of the set-up.
const (
	loadBuildTimeout = 5 * time.Minute
	loadReadyTimeout = time.Minute
	loadStopWait     = 30 * time.Second // SIGTERM to SIGKILL (serve drains for 10 s)
)

// loadBin runs the benchmarks against a bot binary built elsewhere (an
// older commit, for a before-and-after comparison) instead of this
// package's code.
var loadBin = flag.String("load.bin", "", "load benchmarks: the bot binary to run (default: go build of this package)")

// loadEnv sets more of the replicas' environment in BenchmarkFlood, as
// KEY=VALUE pairs separated by commas ("AI_MAX_WAIT=2500ms"): a setting
// measured against its default.
var loadEnv = flag.String("load.env", "", "BenchmarkFlood: more of the replicas' environment, KEY=VALUE pairs separated by commas (AI_MAX_WAIT=2500ms)")

// loadBinary is the bot binary, built once (go build, cached by the go
// command) on first use into the directory of the top-level benchmark,
// or the one -load.bin names.
type loadBinary struct {
	dir  string
	once sync.Once
	path string
	err  error
}

// get returns the binary's path, building it the first time.
func (lb *loadBinary) get(tb testing.TB) string {
	tb.Helper()
	lb.once.Do(func() {
		if *loadBin != "" {
			lb.path, lb.err = filepath.Abs(*loadBin)
			return
		}
		goBin, err := exec.LookPath("go")
		if err != nil {
			goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		ctx, cancel := context.WithTimeout(context.Background(), loadBuildTimeout)
		defer cancel()
		path := filepath.Join(lb.dir, "bot")
		out, err := exec.CommandContext(ctx, goBin, "build", "-o", path, ".").CombinedOutput()
		if err != nil {
			lb.err = fmt.Errorf("go build of cmd/bot: %w\n%s", err, out)
			return
		}
		lb.path = path
	})
	if lb.err != nil {
		tb.Fatal(lb.err)
	}
	return lb.path
}

// loadReplica is one `bot serve` process.
type loadReplica struct {
	name     string
	cmd      *exec.Cmd
	endpoint string // http://127.0.0.1:port, the interactions endpoint
	ops      string // http://127.0.0.1:port, /readyz and /metrics
	logPath  string // its stdout and stderr
	pinned   string // the core taskset pins it to, or why it is not pinned
	done     chan struct{}
	stopped  time.Duration // how long it took to exit after SIGTERM
}

// loadCluster is everything a flood runs against.
type loadCluster struct {
	fake   *fakediscord.Server
	signer *customid.Signer
	cat    *i18n.Catalog
	// turn is what a live board's text says ("to move", en-US).
	turn     string
	replicas []*loadReplica
	proxy    *loadProxy // nil: the fake posts to the one replica directly
	dir      string
	// store reads the games the flood played (their final boards).
	store *persistence.Store
}

// loadPort returns a free loopback port.
func loadPort(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// replicaEnv is the environment of a replica: the test's own without the
// settings a case may vary, then serve's settings, then extra.
func replicaEnv(fake *fakediscord.Server, redisAddr, listen, ops string, extra []string) []string {
	set := []string{
		"MODE=http", "LISTEN_ADDR=" + listen, "OPS_ADDR=" + ops,
		"DISCORD_TOKEN=" + fake.Token(), "DISCORD_APP_ID=" + fake.AppID(), "DISCORD_PUBLIC_KEY=" + fake.PublicKeyHex(),
		"DISCORD_API_URL=" + fake.URL(),
		// Global commands: the flood spans several guilds, and the fake
		// offers a guild's commands in that guild only.
		"DEV_GUILD_ID=",
		"REDIS_URL=" + redisAddr, "CUSTOM_ID_KEY=" + loadCustomIDKey, "PSEUDONYM_KEY=" + loadPseudonymKey,
		"LOG_LEVEL=error",
		// No retrain job may start in the middle of a measurement.
		"RETRAIN_INTERVAL=0",
	}
	set = append(set, extra...)
	ours := map[string]bool{"GOMAXPROCS": true}
	for _, kv := range set {
		k, _, _ := strings.Cut(kv, "=")
		ours[k] = true
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if ours[k] || strings.HasPrefix(k, "AI_") || strings.HasPrefix(k, "RETRAIN_") || strings.HasPrefix(k, "SHARD_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, set...)
}

// startLoadCluster starts redis-server, the fake Discord and c.replicas
// serve processes, waits until each is ready and has registered the
// commands, and points the fake at them. Everything stops when tb ends.
func startLoadCluster(tb testing.TB, bin string, c floodCase) *loadCluster {
	tb.Helper()
	rdb := redistest.Start(tb)
	fake := fakediscord.New(tb, fakediscord.Options{})
	signer, err := customid.NewSigner([]byte(loadCustomIDKey))
	if err != nil {
		tb.Fatal(err)
	}
	cat, err := i18n.NewCatalog()
	if err != nil {
		tb.Fatal(err)
	}
	cl := &loadCluster{fake: fake, signer: signer, cat: cat, dir: tb.TempDir(),
		turn:  strings.TrimSpace(cat.Text(i18n.DefaultLocale, "board.turn", "mark", "", "player", "")),
		store: persistence.New(redistest.Client(tb, rdb), persistence.Options{PseudonymKey: []byte(loadPseudonymKey)})}
	_, tasksetErr := exec.LookPath("taskset")
	for i := range c.replicas {
		r := &loadReplica{name: fmt.Sprintf("replica%d", i+1), endpoint: "http://" + loadPort(tb), ops: "http://" + loadPort(tb),
			logPath: filepath.Join(cl.dir, fmt.Sprintf("replica%d.log", i+1)), done: make(chan struct{})}
		args := []string{bin, "serve"}
		switch {
		case !c.pin:
			r.pinned = "not pinned"
		case tasksetErr != nil:
			r.pinned = "not pinned: taskset is not installed (util-linux)"
		case i >= runtime.NumCPU():
			r.pinned = fmt.Sprintf("not pinned: core %d does not exist", i)
		default:
			r.pinned = "core " + strconv.Itoa(i)
			args = append([]string{"taskset", "-c", strconv.Itoa(i)}, args...)
		}
		startReplica(tb, r, args, replicaEnv(fake, rdb.Addr(), strings.TrimPrefix(r.endpoint, "http://"),
			strings.TrimPrefix(r.ops, "http://"), c.env), cl.dir)
		cl.replicas = append(cl.replicas, r)
	}
	ctx, cancel := context.WithTimeout(context.Background(), loadReadyTimeout)
	defer cancel()
	for _, r := range cl.replicas {
		if err := r.waitReady(ctx, fake); err != nil {
			tb.Fatalf("%s did not become ready: %v\n%s", r.name, err, r.logTail(40))
		}
	}
	target := cl.replicas[0].endpoint
	if c.proxy || len(cl.replicas) > 1 {
		cl.proxy = startLoadProxy(tb, cl.replicas)
		target = cl.proxy.url
	}
	if err := fake.VerifyEndpoint(ctx, target); err != nil {
		tb.Fatalf("the interactions endpoint %s fails Discord's check: %v", target, err)
	}
	fake.SetInteractionsURL(target)
	injectLoadFaults(fake, *loadFaults)
	return cl
}

// startReplica starts r as args with env; SIGTERM stops it when tb ends.
func startReplica(tb testing.TB, r *loadReplica, args, env []string, dir string) {
	tb.Helper()
	logf, err := os.Create(r.logPath)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = env, dir, logf, logf
	var term time.Time
	cmd.Cancel = func() error {
		term = time.Now()
		return cmd.Process.Signal(syscall.SIGTERM)
	}
	cmd.WaitDelay = loadStopWait
	if err := cmd.Start(); err != nil {
		cancel()
		logf.Close()
		tb.Fatalf("starting %s: %v", r.name, err)
	}
	r.cmd = cmd
	go func() {
		_ = cmd.Wait() // the exit status is read from ProcessState
		if !term.IsZero() {
			r.stopped = time.Since(term)
		}
		close(r.done)
	}()
	tb.Cleanup(func() {
		cancel()
		<-r.done
		logf.Close()
		if code := cmd.ProcessState.ExitCode(); code != 0 {
			tb.Logf("%s exited with status %d (%s) %v after SIGTERM; its log:\n%s", r.name, code, cmd.ProcessState, r.stopped, r.logTail(40))
		}
	})
}

// waitReady waits for /readyz to answer 200, the commands to be
// registered and the endpoint to pass Discord's check.
func (r *loadReplica) waitReady(ctx context.Context, fake *fakediscord.Server) error {
	client := &http.Client{Timeout: 2 * time.Second}
	for {
		select {
		case <-r.done:
			return fmt.Errorf("it exited: %s", r.cmd.ProcessState)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.ops+"/readyz", nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			continue
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || len(fake.Commands("")) == 0 {
			continue
		}
		if err := fake.VerifyEndpoint(ctx, r.endpoint); err == nil {
			return nil
		}
	}
}

// logTail returns the last n lines of the replica's log.
func (r *loadReplica) logTail(n int) string {
	b, err := os.ReadFile(r.logPath)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// loadSample is what a replica reports of itself at one moment.
type loadSample struct {
	goroutines, heapInuse float64 // NaN-free: valid only with the have* flags
	haveGoroutines        bool
	haveHeap              bool
	rss                   int64   // VmRSS from /proc, bytes; 0 if unknown
	httpInteractions      float64 // ttt_http_interactions_total, all series
	// queueWait is ttt_ai_queue_wait_seconds{class="interactive"}.
	queueWait   histogram
	metricNames []string
}

// sample scrapes the replica's /metrics and reads its resident set.
func (r *loadReplica) sample(ctx context.Context) (loadSample, error) {
	var s loadSample
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.ops+"/metrics", nil)
	if err != nil {
		return s, err
	}
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		return s, fmt.Errorf("%s /metrics: %w", r.name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return s, fmt.Errorf("%s /metrics answered %s", r.name, resp.Status)
	}
	seen := map[string]bool{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		v, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			continue
		}
		name, _, _ := strings.Cut(f[0], "{")
		seen[name] = true
		switch name {
		case "go_goroutines":
			s.goroutines, s.haveGoroutines = v, true
		case "go_memstats_heap_inuse_bytes":
			s.heapInuse, s.haveHeap = v, true
		case "ttt_http_interactions_total":
			s.httpInteractions += v
		case "ttt_ai_queue_wait_seconds_bucket", "ttt_ai_queue_wait_seconds_sum", "ttt_ai_queue_wait_seconds_count":
			if strings.Contains(f[0], `class="interactive"`) {
				s.queueWait.add(name, f[0], v)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return s, fmt.Errorf("%s /metrics: %w", r.name, err)
	}
	for n := range seen {
		s.metricNames = append(s.metricNames, n)
	}
	slices.Sort(s.metricNames)
	s.rss = procRSS(r.cmd.Process.Pid)
	return s, nil
}

// procRSS returns the resident set of process pid in bytes, 0 if unknown.
func procRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

// samples scrapes every replica.
func (cl *loadCluster) samples(ctx context.Context) ([]loadSample, error) {
	out := make([]loadSample, len(cl.replicas))
	for i, r := range cl.replicas {
		s, err := r.sample(ctx)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// loadProxy is a round-robin reverse proxy on loopback: the load balancer
// in front of the replicas.
type loadProxy struct {
	url    string
	srv    *http.Server
	tr     *http.Transport
	next   atomic.Uint64
	errors atomic.Int64
}

// startLoadProxy starts a proxy sending each request to the next replica.
func startLoadProxy(tb testing.TB, replicas []*loadReplica) *loadProxy {
	tb.Helper()
	targets := make([]*url.URL, len(replicas))
	for i, r := range replicas {
		u, err := url.Parse(r.endpoint)
		if err != nil {
			tb.Fatal(err)
		}
		targets[i] = u
	}
	p := &loadProxy{tr: &http.Transport{MaxIdleConns: 2048, MaxIdleConnsPerHost: 1024, IdleConnTimeout: 30 * time.Second}}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(targets[(p.next.Add(1)-1)%uint64(len(targets))])
			pr.SetXForwarded()
		},
		Transport: p.tr,
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, _ error) {
			p.errors.Add(1)
			w.WriteHeader(http.StatusBadGateway)
		},
		ErrorLog: log.New(io.Discard, "", 0),
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p.url = "http://" + ln.Addr().String()
	p.srv = &http.Server{Handler: rp, ReadHeaderTimeout: 5 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = p.srv.Serve(ln) // ends with ErrServerClosed
	}()
	tb.Cleanup(func() {
		_ = p.srv.Close()
		<-served
		p.tr.CloseIdleConnections()
	})
	return p
}

// The states of a board as its user sees it.
type boardState int

const (
	stateNone     boardState = iota // not a board (text)
	stateTurn                       // the user's turn: empty cells are enabled
	stateThinking                   // the AI's turn: the cells are disabled
	stateOver                       // the game is over
)

// boardView is what a user reads off a board message.
type boardView struct {
	state  boardState
	free   []string // custom IDs of the enabled empty cells
	filled int      // cells with a mark
	move   int      // the number of moves played (from the cells' custom IDs)
}

// view reads a board message. The game is live while its text says whose
// turn it is ("❌ alice to move"); cells with a mark show an emoji.
func (cl *loadCluster) view(m *fakediscord.Message) boardView {
	v := boardView{move: -1}
	cells := 0
	for _, c := range m.Buttons() {
		if c.CustomID == "" {
			continue
		}
		id, err := cl.signer.Decode(c.CustomID)
		if err != nil || id.Action != customid.ActionMove {
			continue
		}
		cells++
		v.move = id.Move
		switch {
		case c.Emoji != "":
			v.filled++
		case !c.Disabled:
			v.free = append(v.free, c.CustomID)
		}
	}
	switch {
	case cells == 0:
		v.state = stateNone
	case !strings.Contains(m.Content, cl.turn):
		v.state = stateOver
	case len(v.free) > 0:
		v.state = stateTurn
	default:
		v.state = stateThinking
	}
	return v
}

// observed is what a user saw in answer to one interaction.
type observed struct {
	t0     time.Time     // when it was injected
	acked  bool          // a first response (callback) came in time
	first  time.Duration // injection to the first response
	failed bool          // "This interaction failed"
	// abandoned is set when a deferred answer ("thinking…") was never
	// completed within loadDeferPatience.
	abandoned bool
	deferred  bool     // the first response was a deferral
	rejected  []string // requests for it the fake refused
	text      string   // an answer without a board (ephemeral or not)
	board     *fakediscord.Message
	view      boardView
	at        time.Time // when board was shown
	via       string    // how board came: the first answer, an edit of it, a follow-up, an edit of the message
}

// Polling of a delivery's responses: the fake records when each came
// (Response.At), so the pace of polling changes no measurement, only how
// soon a user reacts.
const (
	pollFirst    = 2 * time.Millisecond
	pollMax      = 40 * time.Millisecond
	messageCheck = time.Second // how often a long wait also re-reads the board message
	// loadDeferPatience is how long a user waits for a deferred answer
	// to be completed before giving up on it (the bot bounds a handler
	// to 30 s); an interim board with the AI thinking is waited for
	// until the game counts as stuck.
	loadDeferPatience = 2 * time.Minute
)

// await follows the interaction dl, injected at t0, until the user has
// an answer to act on: a text, a board whose game is over, or a board on
// which it is the user's turn (an interim board with the AI thinking is
// waited through, whether the AI's move comes as an edit of the answer or
// of the board message). prevMove is the move number of the board clicked
// (-1 for a command). It returns early, with ctx's error, when ctx ends.
func (cl *loadCluster) await(ctx context.Context, dl *fakediscord.Delivery, t0 time.Time, boardID string, prevMove int) (observed, error) {
	o := observed{t0: t0, view: boardView{move: -1}}
	var seen []string // what came, for a user cut short
	next, wait := 0, pollFirst
	var deferredAt time.Time
	lastCheck := time.Now()
	take := func(m *fakediscord.Message, at time.Time, via string) {
		if m == nil || m.Deleted {
			return
		}
		v := cl.view(m)
		if v.state == stateNone {
			if !m.Loading {
				o.text = messageText(m)
			}
			return
		}
		if o.board == nil || v.move >= o.view.move {
			o.board, o.view, o.at, o.via = m, v, at, via
		}
	}
	for {
		progressed := false
		for rs := dl.Responses(); next < len(rs); next++ {
			r := rs[next]
			progressed = true
			seen = append(seen, describeResponse(r))
			switch r.Kind {
			case fakediscord.KindFailed:
				o.failed = true
				return o, nil
			case fakediscord.KindRejected:
				o.rejected = append(o.rejected, r.Error)
			case fakediscord.KindCallback:
				o.acked, o.first = true, r.At.Sub(t0)
				switch r.Type {
				case int(discordgo.InteractionResponseDeferredChannelMessageWithSource):
					o.deferred, deferredAt = true, r.At
					if r.Message != nil && boardID == "" {
						boardID = r.Message.ID // the "thinking" message an edit will fill
					}
				case int(discordgo.InteractionResponseDeferredMessageUpdate):
					o.deferred, deferredAt = true, r.At // the board is unchanged until an edit
				default:
					take(r.Message, r.At, fmt.Sprintf("callback type %d", r.Type))
				}
			case fakediscord.KindEditOriginal, fakediscord.KindFollowup, fakediscord.KindEditFollowup:
				take(r.Message, r.At, r.Kind.String())
			}
		}
		// A board the bot shows in answer is acted on even when it is not
		// newer than the one clicked (the user clicks again); a deferred
		// update leaves the board as it was until an edit, and the
		// message itself is only read when it is newer.
		if o.acked && (o.text != "" || o.board != nil && o.view.state != stateThinking) {
			return o, nil
		}
		if o.deferred && o.board == nil && time.Since(deferredAt) > loadDeferPatience {
			o.abandoned = true
			return o, nil
		}
		// A board edited outside this interaction's responses (a channel
		// message edit) is read from the message itself.
		if id := cmp.Or(boardOf(o.board), boardID); o.acked && id != "" && time.Since(lastCheck) >= messageCheck {
			lastCheck = time.Now()
			if m, ok := cl.fake.Message(id); ok {
				if v := cl.view(&m); v.state != stateNone && v.move > max(prevMove, o.view.move) {
					at := m.Edited
					if at.IsZero() {
						at = m.Created
					}
					take(&m, at, "message edit")
					continue
				}
			}
		}
		if progressed {
			wait = pollFirst
		} else {
			wait = min(2*wait, pollMax)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return o, fmt.Errorf("%w while waiting for %s (seen: %s)", ctx.Err(), o.waitingFor(), strings.Join(seen, ", "))
		case <-t.C:
		}
	}
}

// describeResponse names a response for a report: its kind and type
// and, for a board, its state.
func describeResponse(r fakediscord.Response) string {
	s := r.Kind.String()
	if r.Kind == fakediscord.KindCallback {
		s += " " + strconv.Itoa(r.Type)
	}
	if r.Message != nil {
		switch {
		case r.Message.Loading:
			s += " (loading)"
		case len(r.Message.Buttons()) > 0:
			s += fmt.Sprintf(" (%d buttons)", len(r.Message.Buttons()))
		default:
			s += " (text)"
		}
	}
	return s
}

// waitingFor describes what a user cut short was still waiting for.
func (o observed) waitingFor() string {
	switch {
	case !o.acked:
		return "a first answer"
	case o.deferred && o.board == nil && o.text == "":
		return "the completion of a deferred answer"
	case o.board != nil && o.view.state == stateThinking:
		return "the AI's move on an interim board (cells disabled), shown by " + o.via
	}
	return "an answer to act on"
}

// messageText is what a message without a board says: its content, else
// its first embed's title and description.
func messageText(m *fakediscord.Message) string {
	switch {
	case m.Content != "":
		return m.Content
	case len(m.Embeds) > 0:
		return strings.TrimSpace("[embed] " + m.Embeds[0].Title + " " + m.Embeds[0].Description)
	}
	return fmt.Sprintf("[a message with no text, %d components, %d attachments]", len(m.Buttons()), len(m.Attachments))
}

// boardOf is the ID of m, or "" for nil.
func boardOf(m *fakediscord.Message) string {
	if m == nil {
		return ""
	}
	return m.ID
}

// loadPlayer is one simulated user.
type loadPlayer struct {
	actor     fakediscord.Actor
	rng       *rand.Rand
	bystander bool
	think     time.Duration // pause before each click
	// thinkMax, if more than think, makes each pause uniform from think
	// up to thinkMax.
	thinkMax time.Duration
	// opts are the options of the player's /ttt vs-ai.
	opts []fakediscord.Option
}

// thinkTime is p's pause before a click.
func (p *loadPlayer) thinkTime() time.Duration {
	if p.thinkMax <= p.think {
		return p.think
	}
	return p.think + time.Duration(p.rng.Int64N(int64(p.thinkMax-p.think)))
}

// How a player's game ended.
type gameEnd int

const (
	endFinished    gameEnd = iota // the board shows the result
	endShed                       // /ttt vs-ai was answered without a board
	endStranded                   // a click failed or was never answered, and the board stayed stale; the user resigned
	endFailedStart                // /ttt vs-ai failed or was never answered, every time
	endStuck                      // neither in the time allowed
	endCancelled                  // a bystander stopped at the end of the flood
	endError                      // the driver could not go on (see the recorded errors)
	numEnds
)

var gameEndNames = [numEnds]string{"finished", "shed", "stranded", "failed-start", "stuck", "cancelled", "error"}

// The most attempts at one step (starting a game, one move) before a
// user gives up on the game.
const loadAttempts = 3

// loadDriver plays the simulated users' games against a cluster.
type loadDriver struct {
	cl  *loadCluster
	rec *loadRecorder
}

// command injects /ttt sub with opts for p and follows it.
func (d *loadDriver) command(ctx context.Context, p *loadPlayer, sub string, opts ...fakediscord.Option) (observed, error) {
	t0 := time.Now()
	dl, err := d.cl.fake.Command(ctx, fakediscord.CommandSpec{Actor: p.actor, Name: slash.Name,
		Options: []fakediscord.Option{{Name: sub, Type: discordgo.ApplicationCommandOptionSubCommand, Options: opts}}})
	if err != nil {
		return observed{}, fmt.Errorf("/ttt %s: %w", sub, err)
	}
	o, err := d.cl.await(ctx, dl, t0, "", -1)
	d.rec.interaction(p, o)
	return o, err
}

// click clicks customID on board for p and follows it.
func (d *loadDriver) click(ctx context.Context, p *loadPlayer, board *fakediscord.Message, v boardView, customID string) (observed, error) {
	t0 := time.Now()
	dl, err := d.cl.fake.Click(ctx, fakediscord.ClickSpec{Actor: p.actor, MessageID: board.ID, CustomID: customID})
	if err != nil {
		return observed{}, fmt.Errorf("click: %w", err)
	}
	o, err := d.cl.await(ctx, dl, t0, board.ID, v.move)
	d.rec.interaction(p, o)
	return o, err
}

// play plays one game for p: /ttt vs-ai, then a random empty cell each
// time the board shows it is p's turn, until the game is over.
func (d *loadDriver) play(ctx context.Context, p *loadPlayer) gameEnd {
	var o observed
	for attempt := 1; ; attempt++ {
		var err error
		if o, err = d.command(ctx, p, slash.SubVsAI, p.opts...); err != nil {
			return d.stopped(ctx, p, err)
		}
		broken := o.failed || o.abandoned
		if !broken && o.text == d.cl.busyText() && attempt > 1 {
			// The failed attempt made a game after all: end it, as a user
			// would, and start again.
			broken = true
		}
		if !broken {
			break
		}
		if attempt == loadAttempts {
			return endFailedStart
		}
		if pause(ctx, time.Second) != nil {
			return d.stopped(ctx, p, ctx.Err())
		}
		if _, err := d.command(ctx, p, slash.SubResign); err != nil {
			return d.stopped(ctx, p, err)
		}
	}
	if o.board == nil {
		d.rec.text(p, "vs-ai", o.text)
		return endShed
	}
	board, v := o.board, o.view
	for tries := 0; ; {
		switch v.state {
		case stateOver:
			if !p.bystander {
				d.rec.finished(board.ID)
			}
			return endFinished
		case stateTurn:
		case stateThinking:
			// A board read from the message while the AI thinks: wait
			// for its next edit.
			if pause(ctx, messageCheck) != nil {
				return d.stopped(ctx, p, fmt.Errorf("%w while waiting for the AI's move on a board read again", ctx.Err()))
			}
			if m, ok := d.cl.fake.Message(board.ID); ok {
				board, v = &m, d.cl.view(&m)
			}
			continue
		default:
			d.rec.fail(p, fmt.Errorf("board %s in state %d after an answer: %q", board.ID, v.state, board.Content))
			return endError
		}
		if pause(ctx, p.thinkTime()) != nil {
			return d.stopped(ctx, p, ctx.Err())
		}
		o, err := d.click(ctx, p, board, v, v.free[p.rng.IntN(len(v.free))])
		if err != nil {
			if ctx.Err() == nil && errors.Is(err, fakediscord.ErrUnknownComponent) {
				// The board changed under the user: read it again.
				if m, ok := d.cl.fake.Message(board.ID); ok {
					board, v = &m, d.cl.view(&m)
					continue
				}
			}
			return d.stopped(ctx, p, err)
		}
		answered := !o.failed && !o.abandoned && o.text == ""
		if answered && o.view.move > v.move {
			tries = 0
			if o.view.filled >= v.filled+2 {
				d.rec.aiReply(p, o)
			}
			board, v = o.board, o.view
			continue
		}
		if answered {
			d.rec.text(p, "click", "[the board again, without the move]")
		}
		if o.text != "" {
			d.rec.text(p, "click", o.text)
			if o.text == d.cl.slowDownText() {
				if pause(ctx, time.Second) != nil {
					return d.stopped(ctx, p, ctx.Err())
				}
				continue
			}
		}
		// Failed, abandoned or refused: look at the board again, as a user
		// would, then try again; a board that stays stale strands the game.
		if pause(ctx, time.Second) != nil {
			return d.stopped(ctx, p, ctx.Err())
		}
		if m, ok := d.cl.fake.Message(board.ID); ok {
			if nv := d.cl.view(&m); nv.move > v.move {
				board, v = &m, nv
				continue
			}
		}
		if tries++; tries == loadAttempts {
			if _, err := d.command(ctx, p, slash.SubResign); err != nil {
				return d.stopped(ctx, p, err)
			}
			return endStranded
		}
	}
}

// stopped classifies a game cut short by err.
func (d *loadDriver) stopped(ctx context.Context, p *loadPlayer, err error) gameEnd {
	switch {
	case p.bystander && ctx.Err() != nil:
		return endCancelled // bystanders play until the flood ends, or the time allowed
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		d.rec.text(p, "game", "stuck: "+err.Error())
		return endStuck
	case ctx.Err() != nil:
		return endCancelled
	}
	d.rec.fail(p, err)
	return endError
}

// busyText and slowDownText are the bot's answers (en-US, the fake's
// default locale) to a second game in a channel and to a user over the
// rate limit.
func (cl *loadCluster) busyText() string     { return cl.cat.Text(i18n.DefaultLocale, render.KeyBusy) }
func (cl *loadCluster) slowDownText() string { return cl.cat.Text(i18n.DefaultLocale, bot.KeySlowDown) }

// pause sleeps for d unless ctx ends first.
func pause(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// loadRecorder collects the measurements of a flood; safe for the
// players' goroutines.
type loadRecorder struct {
	mu sync.Mutex
	// first answers (acknowledged interactions), all and bystanders'.
	first, byFirst []time.Duration
	// aiReplies are the flood's AI reply latencies: click to the board
	// showing the user's turn (or the end) with the AI's move on it;
	// aiReplyAt when each was shown.
	aiReplies []time.Duration
	aiReplyAt []time.Time
	// interactions followed, failed, deferred, deferred and never
	// completed, with refused requests; bystanders' separately too.
	interactions, failed, deferred, abandoned, rejected int
	byInteractions, byFailed                            int
	// texts counts the answers without a board, by what they answered.
	texts map[string]int
	// errs are the driver's own failures (the first few).
	errs   []string
	nErrs  int
	ends   [numEnds]int // flood games
	byEnds [numEnds]int // bystander games
	// finishedBoards are the board messages of the flood games seen
	// finished.
	finishedBoards []string
	// arrivals are the flood users' arrivals (from the start of the
	// flood) and how their games ended.
	arrivals []floodArrival
}

// floodArrival is when a flood user arrived and how their game ended.
type floodArrival struct {
	at  time.Duration
	end gameEnd
}

func (r *loadRecorder) arrived(at time.Duration, e gameEnd) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.arrivals = append(r.arrivals, floodArrival{at: at, end: e})
}

func (r *loadRecorder) finished(board string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finishedBoards = append(r.finishedBoards, board)
}

func newLoadRecorder() *loadRecorder { return &loadRecorder{texts: map[string]int{}} }

func (r *loadRecorder) interaction(p *loadPlayer, o observed) {
	if !o.acked && !o.failed {
		return // cut short by the end of the flood, never answered or failed
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.interactions++
	if p.bystander {
		r.byInteractions++
	}
	switch {
	case o.failed:
		r.failed++
		if p.bystander {
			r.byFailed++
		}
	default:
		r.first = append(r.first, o.first)
		if p.bystander {
			r.byFirst = append(r.byFirst, o.first)
		}
	}
	if o.deferred {
		r.deferred++
	}
	if o.abandoned {
		r.abandoned++
	}
	if len(o.rejected) > 0 {
		r.rejected++
		for _, e := range o.rejected {
			r.texts["rejected by the fake: "+e]++
		}
	}
}

func (r *loadRecorder) aiReply(p *loadPlayer, o observed) {
	if p.bystander {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.aiReplies = append(r.aiReplies, o.at.Sub(o.t0))
	r.aiReplyAt = append(r.aiReplyAt, o.at)
	r.texts["flood AI reply shown by "+o.via]++
}

func (r *loadRecorder) text(p *loadPlayer, what, text string) {
	who := "flood"
	if p.bystander {
		who = "bystander"
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.texts[fmt.Sprintf("%s %s answered %q", who, what, text)]++
}

func (r *loadRecorder) fail(p *loadPlayer, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.nErrs++
	if len(r.errs) < 10 {
		r.errs = append(r.errs, fmt.Sprintf("user %s: %v", p.actor.User.ID, err))
	}
}

func (r *loadRecorder) end(p *loadPlayer, e gameEnd) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p.bystander {
		r.byEnds[e]++
	} else {
		r.ends[e]++
	}
}

// quantile returns the q-quantile of ds by nearest rank (0 for none).
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(math.Ceil(float64(len(s))*q)) - 1
	return s[min(max(i, 0), len(s)-1)]
}
