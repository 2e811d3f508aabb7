// Package httpmode serves Discord's interactions endpoint (HTTP
// interactions mode): each request's Ed25519 signature, timestamp and size
// are checked, PING is answered, and the interaction goes to a Handler
// whose first response is written as the HTTP answer (inline) or, when the
// handler needs longer than Discord's window, as a deferral followed by
// edits and follow-ups over REST (InlineDiscord). It also serves the
// liveness and readiness probes and /metrics (OpsHandler). It knows
// nothing of the bot's features: it takes a small Handler interface.
package httpmode

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
)

// Headers of Discord's signed HTTP interactions.
const (
	HeaderSignature = "X-Signature-Ed25519"
	HeaderTimestamp = "X-Signature-Timestamp"
)

// Defaults of EndpointOptions.
const (
	// DefaultMaxBody bounds the body of one interaction request. Discord's
	// interactions are a few KiB; resolved users and messages can make them
	// larger, never near this.
	DefaultMaxBody = 1 << 20
	// DefaultMaxSkew is how far a request's signed timestamp may be from
	// the clock before the request is refused as a replay.
	DefaultMaxSkew = 5 * time.Minute
	// DefaultAnswerWithin is how long the endpoint waits for the Bot's
	// first response before answering with a deferral: inside Discord's
	// 3 s window with room for the network.
	DefaultAnswerWithin = 2500 * time.Millisecond
)

// Errors of request verification; both are answered with 401.
var (
	ErrBadSignature = errors.New("httpmode: bad interaction signature")
	ErrStaleRequest = errors.New("httpmode: interaction timestamp out of range")
)

// EndpointOptions are an Endpoint's optional settings; the zero value asks
// for the defaults.
type EndpointOptions struct {
	// Now is the clock for timestamp checks and timing; default time.Now.
	Now func() time.Time
	// MaxBody bounds a request body; larger requests get 413. Default
	// DefaultMaxBody.
	MaxBody int64
	// MaxSkew is how old (or how far in the future) a signed timestamp
	// may be; default DefaultMaxSkew.
	MaxSkew time.Duration
	// AnswerWithin is how long to wait for the first response before
	// deferring; default DefaultAnswerWithin.
	AnswerWithin time.Duration
	// Logger receives refused requests at debug level; default
	// slog.Default().
	Logger *slog.Logger
	// Metrics count the endpoint's answers; nil records nothing.
	Metrics AnswerCounter
}

// Handler handles one interaction; the bot's *bot.Bot is one. Its first
// response must go through the InlineDiscord given to NewEndpoint.
type Handler interface {
	HandleInteraction(ctx context.Context, ic *discordgo.InteractionCreate)
}

// AnswerCounter counts the endpoint's answers: the HTTP status, the kind
// of answer ("inline", "deferred", "none", "pong"; "" for a refusal) and
// the time to it. The bot's *metrics.Metrics is one.
type AnswerCounter interface {
	HTTPAnswer(status int, response string, elapsed time.Duration)
}

// ErrConfig reports an endpoint that cannot work as configured.
var ErrConfig = errors.New("httpmode: bad configuration")

// Endpoint is Discord's interactions endpoint served by the bot itself
// (HTTP interactions mode): an http.Handler that checks each request's
// Ed25519 signature, timestamp and size, answers PING, and hands the
// interaction to the Bot, writing the Bot's first response as the HTTP
// answer. Edits and follow-ups go over REST. The Bot must have been built
// with an *InlineDiscord as its Deps.Discord. Any number of processes may
// serve the same application behind a load balancer: the games live in the
// Store.
type Endpoint struct {
	h       Handler
	dc      *InlineDiscord
	pub     ed25519.PublicKey
	log     *slog.Logger
	metrics AnswerCounter
	now     func() time.Time
	maxBody int64
	maxSkew time.Duration
	within  time.Duration

	mu       sync.Mutex // guards closing and the Add of inflight
	closing  bool
	inflight sync.WaitGroup
	stop     chan struct{} // closed to cancel the interactions in flight
	stopOnce sync.Once
}

// NewEndpoint returns the interactions endpoint of h, which answers
// through dc (the InlineDiscord h's first responses go through) and checks
// requests against the application's public key pub.
func NewEndpoint(h Handler, dc *InlineDiscord, pub ed25519.PublicKey, o EndpointOptions) (*Endpoint, error) {
	if h == nil || dc == nil {
		return nil, fmt.Errorf("%w: no handler, or no InlineDiscord to answer inline", ErrConfig)
	}
	if len(pub) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: the public key has %d bytes, want %d", ErrConfig, len(pub), ed25519.PublicKeySize)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.MaxSkew <= 0 {
		o.MaxSkew = DefaultMaxSkew
	}
	if o.AnswerWithin <= 0 {
		o.AnswerWithin = DefaultAnswerWithin
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Endpoint{h: h, dc: dc, pub: pub, log: o.Logger, metrics: o.Metrics, now: o.Now,
		maxBody: o.MaxBody, maxSkew: o.MaxSkew, within: o.AnswerWithin, stop: make(chan struct{})}, nil
}

// ParsePublicKey decodes the application's public key as the developer
// portal shows it (64 hex digits).
func ParsePublicKey(s string) (ed25519.PublicKey, error) {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: the public key must be %d hex digits", ErrConfig, 2*ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(b), nil
}

// ServeHTTP answers one request of Discord's.
func (e *Endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := e.now()
	handed := false
	status, kind := e.serve(w, r, &handed)
	if e.metrics != nil {
		e.metrics.HTTPAnswer(status, kind, e.now().Sub(start))
	}
	if handed {
		e.inflight.Done() // Shutdown waits for the answer to be counted too
	}
}

// serve answers a request and returns the status and the kind of answer
// for the metrics. An interaction it hands to the Bot (it sets *handed) is
// in flight twice, so that Shutdown waits for it: until the Bot is done,
// and until ServeHTTP has counted the answer.
func (e *Endpoint) serve(w http.ResponseWriter, r *http.Request, handed *bool) (int, string) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		return refuse(w, http.StatusMethodNotAllowed, "method not allowed")
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, e.maxBody))
	if err != nil {
		if errors.As(err, new(*http.MaxBytesError)) {
			return refuse(w, http.StatusRequestEntityTooLarge, "request body too large")
		}
		return refuse(w, http.StatusBadRequest, "could not read the request body")
	}
	if err := e.verify(r.Header, body); err != nil {
		e.log.Debug("httpmode: interaction request refused", "err", err, "remote", r.RemoteAddr)
		return refuse(w, http.StatusUnauthorized, "invalid request signature")
	}
	var ic discordgo.InteractionCreate
	if err := json.Unmarshal(body, &ic); err != nil || ic.Interaction == nil {
		return refuse(w, http.StatusBadRequest, "not an interaction")
	}
	if ic.Type == discordgo.InteractionPing {
		writeResponse(w, &discordgo.InteractionResponse{Type: discordgo.InteractionResponsePong})
		return http.StatusOK, "pong"
	}

	e.mu.Lock()
	if e.closing {
		e.mu.Unlock()
		return refuse(w, http.StatusServiceUnavailable, "shutting down")
	}
	e.inflight.Add(2) // the Bot's handling and this request
	*handed = true
	e.mu.Unlock()
	slot := e.dc.expect(ic.Interaction)
	done := make(chan struct{})
	go e.handle(r.Context(), &ic, done)

	timer := time.NewTimer(e.within)
	defer timer.Stop()
	select {
	case resp := <-slot.resp:
		slot.written <- writeResponse(w, resp)
		return http.StatusOK, "inline"
	case <-done:
		select {
		case resp := <-slot.resp: // answered, then gave up waiting for the write
			slot.written <- writeResponse(w, resp)
			return http.StatusOK, "inline"
		default:
		}
		// Nothing to say (a redelivery, a kind of interaction the Bot
		// ignores): Discord shows its own notice if need be.
		w.WriteHeader(http.StatusNoContent)
		return http.StatusNoContent, "none"
	case <-timer.C:
		if typ, ok := e.dc.deferSlot(ic.Interaction, slot); ok {
			_ = writeResponse(w, &discordgo.InteractionResponse{Type: typ})
			return http.StatusOK, "deferred"
		}
		resp := <-slot.resp // answered just now
		slot.written <- writeResponse(w, resp)
		return http.StatusOK, "inline"
	}
}

// handle runs the Bot on one interaction, in a context that outlives the
// HTTP request (edits and follow-ups come after the answer) and ends at
// Shutdown's deadline.
func (e *Endpoint) handle(reqCtx context.Context, ic *discordgo.InteractionCreate, done chan struct{}) {
	defer e.inflight.Done()
	defer close(done)
	defer e.dc.forget(ic.Interaction)
	ctx, cancel := context.WithCancel(context.WithoutCancel(reqCtx))
	defer cancel()
	go func() {
		select {
		case <-e.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	e.h.HandleInteraction(ctx, ic)
}

// Shutdown makes the endpoint refuse new interactions with 503 and waits
// for those in flight to finish, edits and follow-ups included. When ctx
// ends first it cancels them, waits for them to return and reports
// ctx's error. Shut the http.Server down first so that no request is cut.
func (e *Endpoint) Shutdown(ctx context.Context) error {
	e.mu.Lock()
	e.closing = true
	e.mu.Unlock()
	drained := make(chan struct{})
	go func() {
		e.inflight.Wait()
		close(drained)
	}()
	select {
	case <-drained:
		return nil
	case <-ctx.Done():
		e.stopOnce.Do(func() { close(e.stop) })
		<-drained
		return fmt.Errorf("httpmode: interactions cancelled at shutdown: %w", ctx.Err())
	}
}

// verify checks the signature of the timestamp and body, then the
// timestamp's freshness.
func (e *Endpoint) verify(h http.Header, body []byte) error {
	sig, err := hex.DecodeString(h.Get(HeaderSignature))
	if err != nil || len(sig) != ed25519.SignatureSize {
		return fmt.Errorf("%w: malformed %s header", ErrBadSignature, HeaderSignature)
	}
	ts := h.Get(HeaderTimestamp)
	msg := make([]byte, 0, len(ts)+len(body))
	if !ed25519.Verify(e.pub, append(append(msg, ts...), body...), sig) {
		return ErrBadSignature
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: %q is not a Unix time", ErrStaleRequest, ts)
	}
	if skew := e.now().Sub(time.Unix(sec, 0)); skew > e.maxSkew || skew < -e.maxSkew {
		return fmt.Errorf("%w: %s off", ErrStaleRequest, skew.Round(time.Second))
	}
	return nil
}

// refuse answers with an error status.
func refuse(w http.ResponseWriter, status int, msg string) (int, string) {
	http.Error(w, msg, status)
	return status, ""
}

// writeResponse writes resp as the HTTP answer and flushes it: JSON, or
// with files (a board's picture) multipart/form-data, as Discord takes
// either.
func writeResponse(w http.ResponseWriter, resp *discordgo.InteractionResponse) error {
	contentType := "application/json"
	var b []byte
	var err error
	if resp.Data != nil && len(resp.Data.Files) > 0 {
		contentType, b, err = discordgo.MultipartBodyWithJSON(resp, resp.Data.Files)
	} else {
		b, err = json.Marshal(resp)
	}
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return fmt.Errorf("httpmode: encoding the inline response: %w", err)
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("httpmode: writing the inline response: %w", err)
	}
	if err := http.NewResponseController(w).Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return fmt.Errorf("httpmode: flushing the inline response: %w", err)
	}
	return nil
}
