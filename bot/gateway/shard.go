// Package gateway is the bot's own Discord gateway connection: one Shard
// keeps one gateway session alive over a WebSocket (API v10, JSON, no
// compression), and hands every dispatched event to a callback.
//
// It replaces discordgo's gateway loop, whose reconnect logic retries a
// rejected token forever, notices a dead link late, never uses
// resume_gateway_url, closes zombie connections with 1000 (which ends the
// session) and re-identifies at once after an invalid session. A Shard
// instead:
//
//   - heartbeats on HELLO's interval, the first one after interval*jitter,
//     and treats a heartbeat that comes due with the previous one still
//     unacknowledged as a zombie link: it closes it with 4000, so the
//     session stays resumable, and resumes at once;
//   - resumes at READY's resume_gateway_url with the session ID and the last
//     sequence number, after op 7 (Reconnect), op 9 with d=true, code 4000
//     and the like, or a network error;
//   - after op 9 with d=false waits a random 1 to 5 s and identifies anew;
//     after close codes 4007 and 4009 identifies anew;
//   - stops for good on close codes 4004, 4010, 4011, 4012, 4013 and 4014
//     (Run returns an error wrapping ErrFatal, see FatalError);
//   - backs off between failed attempts from 1 s, doubling to 60 s,
//     jittered, and starts again from 1 s after each READY or RESUMED.
//
// Events reach Config.Dispatch as the gateway's t and raw d. The d of an
// event decodes into discordgo's event type of the same name, for example:
//
//	case "INTERACTION_CREATE":
//		var ic discordgo.InteractionCreate // its UnmarshalJSON fills the embedded *Interaction
//		if err := json.Unmarshal(raw, &ic); err != nil { ... }
//	case "GUILD_DELETE":
//		var gd discordgo.GuildDelete // gd.Guild.ID; gd.Unavailable is true during an outage
//		if err := json.Unmarshal(raw, &gd); err != nil { ... }
//
// The package never imports bot; the caller wires it to *bot.Bot.
package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// ErrFatal is wrapped by the error Run returns when Discord closed the
// connection with a code that no retry can fix (a rejected token, an
// invalid shard, intents the application may not use). See FatalError.
var ErrFatal = errors.New("gateway: fatal close code")

// FatalError is the error Run returns for a fatal close code; it wraps
// ErrFatal.
type FatalError struct {
	Code    int    // the close code, e.g. 4004
	Meaning string // what Discord documents the code to mean
	Reason  string // the text Discord sent with the close frame
}

// Error says which code closed the gateway and what it means.
func (e *FatalError) Error() string {
	return fmt.Sprintf("gateway: closed with %d (%s): %q", e.Code, e.Meaning, e.Reason)
}

// Unwrap returns ErrFatal.
func (e *FatalError) Unwrap() error { return ErrFatal }

// fatalCodes are the close codes after which Discord says not to reconnect.
var fatalCodes = map[int]string{
	4004: "authentication failed: the bot token is invalid",
	4010: "invalid shard",
	4011: "sharding required: the bot is in too many guilds for this shard count",
	4012: "invalid API version",
	4013: "invalid intents",
	4014: "disallowed intents: a privileged intent is not enabled for the application",
}

// Version is the gateway API version a Shard speaks.
const Version = 10

// Backoff bounds between failed connection attempts.
const (
	backoffMin = time.Second
	backoffMax = 60 * time.Second
)

// Gateway opcodes.
const (
	opDispatch       = 0
	opHeartbeat      = 1
	opIdentify       = 2
	opResume         = 6
	opReconnect      = 7
	opInvalidSession = 9
	opHello          = 10
	opHeartbeatACK   = 11
)

// closeResumable is the close code a Shard sends when it drops a connection
// it means to resume (any code but 1000 and 1001 keeps the session).
const closeResumable = 4000

// helloTimeout bounds the wait for HELLO after connecting.
const helloTimeout = 20 * time.Second

// State is where a Shard's connection stands.
type State int

// The states a Shard goes through.
const (
	Connecting  State = iota // dialling, or waiting for HELLO
	Identifying              // IDENTIFY sent (or waiting for IdentifyWait), READY not yet received
	Resuming                 // RESUME sent, RESUMED not yet received
	Ready                    // READY or RESUMED received: events flow
	Waiting                  // between connections: backing off, or the delay after op 9
	Stopped                  // Run has returned, or has not started
)

// String names the state for logs and health pages.
func (s State) String() string {
	switch s {
	case Connecting:
		return "connecting"
	case Identifying:
		return "identifying"
	case Resuming:
		return "resuming"
	case Ready:
		return "ready"
	case Waiting:
		return "waiting"
	case Stopped:
		return "stopped"
	}
	return "state(" + strconv.Itoa(int(s)) + ")"
}

// Config is what a Shard needs. Token, URL and Dispatch are required.
type Config struct {
	// Token is the bot token (a "Bot " prefix is removed).
	Token string
	// URL is the gateway URL from GET /gateway/bot, e.g. wss://gateway.discord.gg.
	URL string
	// Intents is the gateway intents bit set sent with IDENTIFY.
	Intents int
	// ShardID and ShardCount are sent with IDENTIFY; a ShardCount below 1 counts as 1.
	ShardID, ShardCount int
	// Logger receives connection events; nil discards them.
	Logger *slog.Logger
	// Dispatch is called for every dispatch (op 0), READY and RESUMED
	// included, with its event name and raw d, from Run's goroutine, in
	// order. It should return quickly: heartbeats wait while it runs.
	Dispatch func(event string, raw json.RawMessage)
	// IdentifyWait, if set, blocks before each IDENTIFY until this shard may
	// identify (Discord allows max_concurrency identifies per 5 s across all
	// of a bot's processes). An error other than ctx's counts as a failed
	// attempt and is retried with backoff.
	IdentifyWait func(ctx context.Context) error
	// Observe, if set, is told of each "connect", "identify", "resume",
	// "reconnect" (op 7), "invalid_session" (op 9), "zombie" and
	// "close:<code>" (a close frame from Discord), for metrics.
	Observe func(kind string)
	// Rand draws the heartbeat and backoff jitter and the op 9 delay; nil
	// means a generator seeded from the clock.
	Rand *rand.Rand
	// Now reads the clock for State; nil means time.Now.
	Now func() time.Time
	// Sleep waits d or until ctx is done (then it returns ctx.Err()); it is
	// used for backoff and the op 9 delay. nil means a real timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// Dialer dials the WebSocket; nil means a dialer with a 10 s handshake timeout.
	Dialer *websocket.Dialer
}

// Shard is one gateway connection, kept alive by Run. Create it with New.
type Shard struct {
	cfg   Config
	log   *slog.Logger
	rnd   *rand.Rand // used by Run's goroutine only
	now   func() time.Time
	sleep func(context.Context, time.Duration) error

	// Run's goroutine only:
	sessionID string
	resumeURL string
	seq       int64 // 0: no dispatch seen in this session
	failures  int   // failed attempts since the last READY or RESUMED

	mu    sync.Mutex
	state State
	since time.Time
}

// New returns a Shard for cfg; it does not connect until Run.
func New(cfg Config) (*Shard, error) {
	switch {
	case cfg.Token == "":
		return nil, errors.New("gateway: no token")
	case cfg.URL == "":
		return nil, errors.New("gateway: no gateway URL")
	case cfg.Dispatch == nil:
		return nil, errors.New("gateway: no Dispatch function")
	}
	if _, err := gatewayURL(cfg.URL); err != nil {
		return nil, err
	}
	s := &Shard{cfg: cfg, log: cfg.Logger, rnd: cfg.Rand, now: cfg.Now, sleep: cfg.Sleep}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.log = s.log.With("shard", cfg.ShardID)
	if s.now == nil {
		s.now = time.Now
	}
	if s.rnd == nil {
		seed := uint64(time.Now().UnixNano())
		s.rnd = rand.New(rand.NewPCG(seed, seed>>17^0x9e3779b97f4a7c15))
	}
	if s.sleep == nil {
		s.sleep = sleepCtx
	}
	if s.cfg.Dialer == nil {
		s.cfg.Dialer = &websocket.Dialer{HandshakeTimeout: 10 * time.Second}
	}
	s.state, s.since = Stopped, s.now()
	return s, nil
}

// State returns the connection's state and since when it holds. It is safe
// to call from any goroutine (a readiness probe, for instance).
func (s *Shard) State() (State, time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state, s.since
}

func (s *Shard) setState(st State) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != st {
		s.state, s.since = st, s.now()
	}
}

func (s *Shard) observe(kind string) {
	if s.cfg.Observe != nil {
		s.cfg.Observe(kind)
	}
}

// next says what to do after a connection ends.
type next struct {
	fatal       error // stop and return this
	dropSession bool  // forget the session: identify next time
	wait        wait
}

type wait int

const (
	waitNone    wait = iota // reconnect at once
	waitBackoff             // back off, then reconnect
	waitInvalid             // wait 1 to 5 s (op 9, d=false), then identify
)

// Run keeps the shard connected until ctx is done, then closes the
// connection with 1000 and returns nil. It returns an error wrapping
// ErrFatal when Discord closes with a code that retrying cannot fix. Run
// must not be called twice at once.
func (s *Shard) Run(ctx context.Context) error {
	defer s.setState(Stopped)
	for {
		if ctx.Err() != nil {
			return nil
		}
		n := s.connect(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if n.fatal != nil {
			s.log.Error("gateway: giving up", "err", n.fatal)
			return n.fatal
		}
		if n.dropSession {
			s.sessionID, s.resumeURL, s.seq = "", "", 0
		}
		var d time.Duration
		switch n.wait {
		case waitBackoff:
			d = s.backoff()
			s.failures++
		case waitInvalid:
			d = time.Second + time.Duration(s.rnd.Float64()*float64(4*time.Second))
		}
		if d > 0 {
			s.setState(Waiting)
			s.log.Info("gateway: reconnecting later", "in", d)
			if err := s.sleep(ctx, d); err != nil {
				return nil
			}
		}
	}
}

// backoff is the jittered wait before the next attempt: the base doubles
// from 1 s with each failure up to 60 s, and the wait is drawn from
// [base/2, base).
func (s *Shard) backoff() time.Duration {
	base := backoffMin
	for i := 0; i < s.failures && base < backoffMax; i++ {
		base *= 2
	}
	base = min(base, backoffMax)
	return base/2 + time.Duration(s.rnd.Float64()*float64(base/2))
}

// frame is one gateway payload.
type frame struct {
	Op int             `json:"op"`
	D  json.RawMessage `json:"d"`
	S  *int64          `json:"s,omitempty"`
	T  string          `json:"t,omitempty"`
}

// readResult is what the reader goroutine hands the connection loop.
type readResult struct {
	f   frame
	err error
}

// connect runs one connection from dial to disconnect and says what next.
func (s *Shard) connect(ctx context.Context) next {
	resume := s.sessionID != ""
	target := s.cfg.URL
	if resume && s.resumeURL != "" {
		target = s.resumeURL
	}
	if !resume && s.cfg.IdentifyWait != nil {
		s.setState(Identifying)
		if err := s.cfg.IdentifyWait(ctx); err != nil {
			if ctx.Err() == nil {
				s.log.Warn("gateway: identify wait failed", "err", err)
			}
			return next{wait: waitBackoff}
		}
	}
	s.setState(Connecting)
	u, err := gatewayURL(target)
	if err != nil {
		// Only a resume_gateway_url from Discord can be malformed here.
		s.log.Warn("gateway: bad resume URL, identifying", "url", target, "err", err)
		return next{dropSession: true, wait: waitBackoff}
	}
	ws, _, err := s.cfg.Dialer.DialContext(ctx, u, nil)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("gateway: dial failed", "err", err)
		}
		return next{wait: waitBackoff}
	}
	s.observe("connect")
	c := &conn{ws: ws, done: make(chan struct{})}
	defer c.hangUp()
	reads := make(chan readResult)
	go c.readLoop(reads)
	return s.serve(ctx, c, reads, resume)
}

// gatewayURL adds v=10 and encoding=json to a gateway URL.
func gatewayURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
		return "", fmt.Errorf("gateway: bad gateway URL %q", raw)
	}
	q := u.Query()
	q.Set("v", strconv.Itoa(Version))
	q.Set("encoding", "json")
	q.Del("compress")
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// conn is one WebSocket; only the connection loop writes to it.
type conn struct {
	ws   *websocket.Conn
	done chan struct{} // closed when the connection loop gives the socket up
	once sync.Once
}

func (c *conn) readLoop(out chan<- readResult) {
	for {
		_, data, err := c.ws.ReadMessage()
		var r readResult
		if err != nil {
			r.err = err
		} else if err := json.Unmarshal(data, &r.f); err != nil {
			r.err = fmt.Errorf("gateway: decoding a payload: %w", err)
		}
		select {
		case out <- r:
		case <-c.done:
			return
		}
		if r.err != nil {
			return
		}
	}
}

func (c *conn) write(v any) error {
	_ = c.ws.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return c.ws.WriteJSON(v)
}

// closeWith sends a close frame with code and hangs up.
func (c *conn) closeWith(code int, text string) {
	_ = c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, text), time.Now().Add(time.Second))
	c.hangUp()
}

// hangUp closes the socket without a close frame (a no-op after closeWith).
func (c *conn) hangUp() {
	c.once.Do(func() {
		close(c.done)
		c.ws.Close()
	})
}

// serve runs the connection loop: HELLO, IDENTIFY or RESUME, heartbeats
// and dispatches, until the connection ends.
func (s *Shard) serve(ctx context.Context, c *conn, reads <-chan readResult, resume bool) next {
	hb := &heartbeat{timer: time.NewTimer(helloTimeout), acked: true}
	defer hb.timer.Stop()
	for {
		select {
		case <-ctx.Done():
			c.closeWith(websocket.CloseNormalClosure, "shutting down")
			s.log.Info("gateway: closed for shutdown")
			return next{}

		case <-hb.timer.C:
			if n, done := s.beat(c, hb); done {
				return n
			}

		case r := <-reads:
			if r.err != nil {
				return s.readFailed(r.err)
			}
			if n, done := s.handle(c, r.f, hb, resume); done {
				return n
			}
		}
	}
}

// heartbeat is a connection's heartbeat state.
type heartbeat struct {
	timer    *time.Timer   // the wait for HELLO, then for the next heartbeat
	interval time.Duration // 0 until HELLO
	acked    bool          // the last heartbeat was acknowledged
}

// sendHeartbeat sends a heartbeat with the last sequence number seen.
func (s *Shard) sendHeartbeat(c *conn) error {
	var d any
	if s.seq > 0 {
		d = s.seq
	}
	return c.write(map[string]any{"op": opHeartbeat, "d": d})
}

// beat handles the heartbeat timer: a connection without HELLO in time,
// or whose last heartbeat went unacknowledged (a zombie), is closed;
// otherwise the next heartbeat goes. It reports whether the connection
// ends, and then what next.
func (s *Shard) beat(c *conn, hb *heartbeat) (next, bool) {
	if hb.interval == 0 {
		s.log.Warn("gateway: no HELLO", "after", helloTimeout)
		c.closeWith(closeResumable, "no hello")
		return next{wait: waitBackoff}, true
	}
	if !hb.acked {
		s.observe("zombie")
		s.log.Warn("gateway: heartbeat not acknowledged, reconnecting", "interval", hb.interval)
		c.closeWith(closeResumable, "zombie connection")
		return next{}, true
	}
	if err := s.sendHeartbeat(c); err != nil {
		s.log.Warn("gateway: heartbeat failed", "err", err)
		return next{wait: waitBackoff}, true
	}
	hb.acked = false
	hb.timer.Reset(hb.interval)
	return next{}, false
}

// handle handles a frame from Discord: HELLO starts the heartbeat and
// identifies or resumes (resume), a heartbeat request is answered, a
// reconnect request or an invalid session ends the connection, and
// dispatches go to dispatch. It reports whether the connection ends, and
// then what next.
func (s *Shard) handle(c *conn, f frame, hb *heartbeat, resume bool) (next, bool) {
	switch f.Op {
	case opHello:
		var h struct {
			Interval float64 `json:"heartbeat_interval"`
		}
		if err := json.Unmarshal(f.D, &h); err != nil || h.Interval <= 0 {
			s.log.Warn("gateway: bad HELLO", "d", string(f.D))
			c.closeWith(closeResumable, "bad hello")
			return next{wait: waitBackoff}, true
		}
		hb.interval = time.Duration(h.Interval * float64(time.Millisecond))
		hb.timer.Reset(time.Duration(s.rnd.Float64() * float64(hb.interval)))
		if err := s.hello(c, resume); err != nil {
			s.log.Warn("gateway: sending IDENTIFY/RESUME failed", "err", err)
			return next{wait: waitBackoff}, true
		}
	case opHeartbeat:
		if err := s.sendHeartbeat(c); err != nil {
			s.log.Warn("gateway: heartbeat failed", "err", err)
			return next{wait: waitBackoff}, true
		}
	case opHeartbeatACK:
		hb.acked = true
	case opReconnect:
		s.observe("reconnect")
		s.log.Info("gateway: Discord asked for a reconnect")
		c.closeWith(closeResumable, "reconnect requested")
		return next{}, true
	case opInvalidSession:
		s.observe("invalid_session")
		var resumable bool
		_ = json.Unmarshal(f.D, &resumable) // anything but true: not resumable
		s.log.Info("gateway: invalid session", "resumable", resumable)
		c.closeWith(closeResumable, "invalid session")
		if resumable && s.sessionID != "" {
			return next{}, true
		}
		return next{dropSession: true, wait: waitInvalid}, true
	case opDispatch:
		return s.dispatch(c, f)
	}
	return next{}, false
}

// dispatch handles a dispatch frame: it records its sequence number,
// takes the session from READY (a bad one ends the connection), marks the
// shard ready on READY and RESUMED, and hands the event to
// Config.Dispatch. It reports whether the connection ends, and then what
// next.
func (s *Shard) dispatch(c *conn, f frame) (next, bool) {
	if f.S != nil {
		s.seq = *f.S
	}
	switch f.T {
	case "READY":
		var rd struct {
			SessionID string `json:"session_id"`
			ResumeURL string `json:"resume_gateway_url"`
		}
		if err := json.Unmarshal(f.D, &rd); err != nil || rd.SessionID == "" {
			s.log.Warn("gateway: bad READY", "err", err)
			c.closeWith(closeResumable, "bad ready")
			return next{dropSession: true, wait: waitBackoff}, true
		}
		s.sessionID, s.resumeURL = rd.SessionID, rd.ResumeURL
		s.failures = 0
		s.setState(Ready)
		s.log.Info("gateway: ready", "session", rd.SessionID)
	case "RESUMED":
		s.failures = 0
		s.setState(Ready)
		s.log.Info("gateway: resumed", "session", s.sessionID, "seq", s.seq)
	}
	s.cfg.Dispatch(f.T, f.D)
	return next{}, false
}

// hello sends IDENTIFY or RESUME after HELLO.
func (s *Shard) hello(c *conn, resume bool) error {
	token := strings.TrimPrefix(s.cfg.Token, "Bot ")
	if resume {
		s.setState(Resuming)
		s.observe("resume")
		s.log.Info("gateway: resuming", "session", s.sessionID, "seq", s.seq)
		return c.write(map[string]any{"op": opResume, "d": map[string]any{
			"token": token, "session_id": s.sessionID, "seq": s.seq}})
	}
	s.setState(Identifying)
	s.observe("identify")
	s.seq = 0
	count := max(s.cfg.ShardCount, 1)
	s.log.Info("gateway: identifying", "shards", count)
	return c.write(map[string]any{"op": opIdentify, "d": map[string]any{
		"token":   token,
		"intents": s.cfg.Intents,
		"shard":   [2]int{s.cfg.ShardID, count},
		"properties": map[string]string{
			"os": runtime.GOOS, "browser": "ttt-bot", "device": "ttt-bot"},
	}})
}

// readFailed turns a read error (a close frame or a network error) into
// what to do next.
func (s *Shard) readFailed(err error) next {
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code == websocket.CloseAbnormalClosure {
		s.log.Warn("gateway: connection lost", "err", err)
		return next{wait: waitBackoff}
	}
	s.observe("close:" + strconv.Itoa(ce.Code))
	if meaning, ok := fatalCodes[ce.Code]; ok {
		return next{fatal: &FatalError{Code: ce.Code, Meaning: meaning, Reason: ce.Text}}
	}
	s.log.Warn("gateway: closed by Discord", "code", ce.Code, "reason", ce.Text)
	switch ce.Code {
	case 4007, 4009: // invalid seq, session timed out: the session is gone
		return next{dropSession: true, wait: waitBackoff}
	}
	return next{wait: waitBackoff}
}

// sleepCtx waits d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
