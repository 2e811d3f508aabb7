package fakediscord

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
)

// Errors returned by the test-side API.
var (
	// ErrClosed is returned by waits and injections once the server is closed.
	ErrClosed = errors.New("fakediscord: server closed")
	// ErrNoBot is returned when an interaction cannot be delivered because no
	// bot has identified on the gateway and no HTTP interactions URL is set.
	ErrNoBot = errors.New("fakediscord: no bot connected (no gateway session and no interactions URL)")
	// ErrUnknownMessage is returned by Click for a message the fake does not hold.
	ErrUnknownMessage = errors.New("fakediscord: unknown message")
	// ErrUnknownComponent is returned by Click for a custom ID that is not a
	// clickable (present and enabled) component of the message.
	ErrUnknownComponent = errors.New("fakediscord: no such enabled component on the message")
	// ErrUnknownCommand is returned by Command for a command the bot has not registered.
	ErrUnknownCommand = errors.New("fakediscord: command not registered")
	// ErrInteractionFailed is returned by Delivery.Wait when the user saw
	// "This interaction failed" (no valid acknowledgement in time).
	ErrInteractionFailed = errors.New("fakediscord: this interaction failed")
)

// Defaults used when the corresponding Options field is zero.
const (
	DefaultToken             = "fake-bot-token"
	DefaultAppID             = "1000000000000000001"
	DefaultBotName           = "ttt-bot"
	DefaultHeartbeatInterval = 41250 * time.Millisecond
	DefaultAckDeadline       = 3 * time.Second
	DefaultTokenLifetime     = 15 * time.Minute
)

// Options are the optional settings of a Server; the zero value is usable.
type Options struct {
	// Token is the bot token the fake accepts, without the "Bot " prefix.
	Token string
	// AppID is the application ID, which is also the bot user's ID.
	AppID string
	// BotName is the bot user's username.
	BotName string
	// HeartbeatInterval is announced in HELLO; keep it short in tests.
	HeartbeatInterval time.Duration
	// AckDeadline is how long after delivery the bot may acknowledge an
	// interaction (Discord: 3 s). When it passes without an acknowledgement
	// the user sees "This interaction failed".
	AckDeadline time.Duration
	// TokenLifetime is how long an interaction token is valid for edits and
	// follow-ups (Discord: 15 min), measured with Now.
	TokenLifetime time.Duration
	// Now is the clock used for timestamps and deadline checks; default time.Now.
	// The failure timer for unacknowledged interactions uses real time.
	Now func() time.Time
	// InteractionsURL, when set, makes the fake deliver interactions by
	// signed HTTP POST to this URL instead of over the gateway.
	InteractionsURL string
	// Shards is the shard count GET /gateway/bot recommends; 0 means 1.
	Shards int
	// History keeps every state each message was shown in (see History).
	History bool
}

// Server is a fake Discord listening on loopback. Create it with New.
type Server struct {
	opts      Options
	now       func() time.Time
	hs        *httptest.Server
	pub       ed25519.PublicKey
	priv      ed25519.PrivateKey
	transport *http.Transport
	restMux   *http.ServeMux
	ctx       context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup

	mu              sync.Mutex
	changed         chan struct{}
	closed          bool
	lastID          uint64
	calls           []Call
	messages        map[string]*message   // by message ID
	channels        map[string][]*message // creation order per channel
	channelGuild    map[string]string     // guild of each channel seen
	guildChannels   map[string][]string   // channels declared by SetGuildChannels
	guildRoles      map[string][]string   // roles declared by SetGuildRoles
	commands        map[string][]*discordgo.ApplicationCommand
	interactions    map[string]*interaction // by interaction ID
	tokens          map[string]*interaction // by interaction token
	sessions        map[string]*gwSession
	conns           map[*gwConn]bool
	lastConn        *gwConn
	connLog         []*GatewayConn
	gw              GatewayState
	interactionsURL string
	unreachable     bool
	identifyClose   int // non-zero: IDENTIFY is answered by this close code
	faults          []*Fault
	nonces          map[string]nonceEntry // enforced nonces of channel posts, by channel and nonce
	history         map[string][]message  // with Options.History: each message's states, oldest first
}

// New starts a fake Discord on a loopback port. If tb is not nil the server
// is closed when the test ends.
func New(tb testing.TB, opts Options) *Server {
	if opts.Token == "" {
		opts.Token = DefaultToken
	}
	if opts.AppID == "" {
		opts.AppID = DefaultAppID
	}
	if opts.BotName == "" {
		opts.BotName = DefaultBotName
	}
	if opts.HeartbeatInterval <= 0 {
		opts.HeartbeatInterval = DefaultHeartbeatInterval
	}
	if opts.AckDeadline <= 0 {
		opts.AckDeadline = DefaultAckDeadline
	}
	if opts.TokenLifetime <= 0 {
		opts.TokenLifetime = DefaultTokenLifetime
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		panic(fmt.Sprintf("fakediscord: generating key: %v", err)) // crypto/rand never fails on supported platforms
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		opts:            opts,
		now:             now,
		pub:             pub,
		priv:            priv,
		ctx:             ctx,
		cancel:          cancel,
		changed:         make(chan struct{}),
		messages:        map[string]*message{},
		channels:        map[string][]*message{},
		channelGuild:    map[string]string{},
		commands:        map[string][]*discordgo.ApplicationCommand{},
		interactions:    map[string]*interaction{},
		tokens:          map[string]*interaction{},
		sessions:        map[string]*gwSession{},
		conns:           map[*gwConn]bool{},
		interactionsURL: opts.InteractionsURL,
		transport:       &http.Transport{},
	}
	s.restMux = s.mux()
	s.hs = httptest.NewServer(http.HandlerFunc(s.serveHTTP))
	if tb != nil {
		tb.Cleanup(s.Close)
	}
	return s
}

// URL returns the base URL of the fake's HTTP side, like http://127.0.0.1:port.
func (s *Server) URL() string { return s.hs.URL }

// GatewayURL returns the WebSocket URL the fake hands out from GET /gateway.
func (s *Server) GatewayURL() string { return "ws" + strings.TrimPrefix(s.hs.URL, "http") + "/ws" }

// GatewayResumeURL returns the resume_gateway_url the fake sends in READY:
// the same listener at path /ws-resume, so GatewayConns tells a client that
// resumes there from one that resumes at GatewayURL.
func (s *Server) GatewayResumeURL() string {
	return "ws" + strings.TrimPrefix(s.hs.URL, "http") + "/ws-resume"
}

// Token returns the bot token the fake accepts, without the "Bot " prefix.
func (s *Server) Token() string { return s.opts.Token }

// AppID returns the application ID (also the bot user's ID).
func (s *Server) AppID() string { return s.opts.AppID }

// PublicKey returns the Ed25519 key that verifies the fake's HTTP interactions.
func (s *Server) PublicKey() ed25519.PublicKey { return s.pub }

// PublicKeyHex returns PublicKey hex-encoded, as the developer portal shows it.
func (s *Server) PublicKeyHex() string { return hex.EncodeToString(s.pub) }

// SetInteractionsURL switches delivery to HTTP interactions mode (url != "")
// or back to the gateway (url == "").
func (s *Server) SetInteractionsURL(url string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.interactionsURL = url
}

// SetUnreachable makes the fake unreachable (true) or reachable again
// (false). While it is unreachable every new HTTP request, REST, gateway
// or CDN, has its connection closed without an answer, as a network
// outage, a DNS failure or a firewall looks to the client; connections
// already upgraded to the gateway stay up (cut them with DropGateway).
func (s *Server) SetUnreachable(down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unreachable = down
}

// Client returns an HTTP client whose transport sends requests for Discord's
// hosts (discord.com, discordapp.com, cdn.discordapp.com, ...) to the fake and
// refuses every other host. Set it as discordgo's session.Client.
func (s *Server) Client() *http.Client {
	return &http.Client{
		Transport: &rewriteTransport{host: strings.TrimPrefix(s.hs.URL, "http://"), base: s.transport},
		Timeout:   20 * time.Second,
	}
}

// Session returns a discordgo session wired to the fake: its token and
// Client are set and its state tracking is left at discordgo's defaults.
// The caller still calls Open (gateway mode) and Close.
func (s *Server) Session() (*discordgo.Session, error) {
	ses, err := discordgo.New("Bot " + s.opts.Token)
	if err != nil {
		return nil, fmt.Errorf("fakediscord: new session: %w", err)
	}
	ses.Client = s.Client()
	return ses, nil
}

// Close shuts the server down: gateway connections are cut, pending HTTP
// deliveries cancelled and timers stopped. It is safe to call twice.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	for _, ix := range s.interactions {
		if ix.timer != nil {
			ix.timer.Stop()
		}
	}
	for c := range s.conns {
		c.kill()
	}
	s.notifyLocked()
	s.mu.Unlock()
	s.cancel()
	s.hs.Close()
	s.wg.Wait()
	s.transport.CloseIdleConnections()
}

// notifyLocked wakes every waiter; s.mu must be held.
func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// waitFor blocks until cond, evaluated with s.mu held, is true.
func (s *Server) waitFor(ctx context.Context, cond func() bool) error {
	for {
		s.mu.Lock()
		ok := cond()
		closed := s.closed
		ch := s.changed
		s.mu.Unlock()
		if ok {
			return nil
		}
		if closed {
			return ErrClosed
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("fakediscord: waiting: %w", ctx.Err())
		}
	}
}

// discordEpoch is the first second of 2015, the origin of Discord snowflakes.
const discordEpoch = 1420070400000

// newIDLocked returns a fresh, increasing snowflake; s.mu must be held.
func (s *Server) newIDLocked() string {
	ms := uint64(s.now().UnixMilli() - discordEpoch)
	id := ms << 22
	if id <= s.lastID {
		id = s.lastID + 1
	}
	s.lastID = id
	return fmt.Sprint(id)
}

// randomToken returns an unguessable token from crypto/rand.
func randomToken(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("fakediscord: crypto/rand: %v", err))
	}
	return hex.EncodeToString(b)
}

// discordHosts are the hosts whose requests Client sends to the fake.
var discordHosts = map[string]bool{
	"discord.com": true, "discordapp.com": true, "canary.discord.com": true, "ptb.discord.com": true,
	"cdn.discordapp.com": true, "media.discordapp.net": true, "gateway.discord.gg": true,
}

// rewriteTransport points requests for Discord hosts at the fake.
type rewriteTransport struct {
	host string
	base http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t *rewriteTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if !discordHosts[strings.ToLower(r.URL.Hostname())] {
		if r.Body != nil {
			r.Body.Close()
		}
		return nil, fmt.Errorf("fakediscord: refusing request to non-Discord host %q", r.URL.Host)
	}
	r2 := r.Clone(r.Context())
	u := *r.URL
	u.Scheme = "http"
	u.Host = t.host
	r2.URL = &u
	r2.Host = t.host
	return t.base.RoundTrip(r2)
}
