package rest

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/httpmode"
)

// Defaults of the retry of the bot's own writes (see retryingDiscord).
const (
	retryAttempts = 4 // attempts in all, the first included
	// DefaultRetryFirst is the pause before the second attempt; it doubles.
	DefaultRetryFirst = 500 * time.Millisecond
	retryBudget       = 15 * time.Second // no attempt starts after this much time
)

// retryingDiscord is the Discord every feature of a Bot talks to: it
// passes everything to the Discord it wraps, and retries the bot's own
// writes that Discord fails now and then (a 5xx, often a Cloudflare HTML
// page; a reset connection; an answer slower than the client's timeout):
// edits of channel messages (boards changed by a timeout, the sweeper, a
// duel, a tournament), edits of an interaction's @original (the
// computer's move after the thinking board) and channel posts
// (tournaments). It retries with jittered, doubling pauses from half a
// second, at most retryAttempts attempts within retryBudget, and never
// beyond the request's context. It never retries a 4xx: discordgo itself
// waits out a 429 and retries a 502 once. A post is retried only when it
// can carry Discord's nonce with enforce_nonce (the wrapped Discord, or
// the REST session under an InlineDiscord, is a *discordgo.Session), so
// that a post applied before its connection was reset is not posted
// twice. A write it gives up on is logged and counted in
// ttt_discord_write_giveups_total{route}.
type retryingDiscord struct {
	Discord
	// raw sends posts with a nonce; nil: posts are not retried.
	raw rawRequester
	// policy decides and paces the retries.
	policy retryPolicy
	// giveUp is told of every write given up on, with its route and the
	// last error.
	giveUp func(route string, attempts int, err error)
	// retried is told of the attempts made again on route.
	retried func(route string, again int)
}

// Retry configures NewRetrying.
type Retry struct {
	// First is the pause before the second attempt of a write; 0 means
	// DefaultRetryFirst.
	First time.Duration
	// Jitter returns a number in [0, 1); a pause is its nominal length
	// times 0.5 + Jitter(). Nil means math/rand.
	Jitter func() float64
	// GiveUp is told of every write given up on, with its route, the
	// attempts made and the last error; nil for none.
	GiveUp func(route string, attempts int, err error)
	// Retried is told of the attempts made again on route; nil for none.
	Retried func(route string, again int)
}

// NewRetrying wraps d so that the bot's own writes are retried (see
// retryingDiscord).
func NewRetrying(d Discord, r Retry) Discord {
	if r.First <= 0 {
		r.First = DefaultRetryFirst
	}
	if r.Jitter == nil {
		r.Jitter = rand.Float64
	}
	if r.GiveUp == nil {
		r.GiveUp = func(string, int, error) {}
	}
	if r.Retried == nil {
		r.Retried = func(string, int) {}
	}
	return &retryingDiscord{Discord: d, raw: restOf(d),
		policy: retryPolicy{attempts: retryAttempts, first: r.First, budget: retryBudget, jitter: r.Jitter, sleep: sleepCtx, now: time.Now},
		giveUp: r.GiveUp, retried: r.Retried}
}

// rawRequester sends a request with a body of the bot's own making;
// *discordgo.Session has it.
type rawRequester interface {
	RequestRaw(method, urlStr, contentType string, b []byte, bucketID string, sequence int, options ...discordgo.RequestOption) ([]byte, error)
}

// retryPolicy says which failures of a write are retried, and when.
type retryPolicy struct {
	attempts int
	first    time.Duration
	budget   time.Duration
	// jitter returns a number in [0, 1); a pause is its nominal length
	// times 0.5 + jitter().
	jitter func() float64
	// sleep waits d or until ctx ends (then it returns ctx's error).
	sleep func(ctx context.Context, d time.Duration) error
	now   func() time.Time
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// retryable reports whether a write that failed with err may be tried
// again: a 5xx, or no answer at all (a reset, a refused connection, a
// client timeout), but not when the request's own context has ended, and
// never a 4xx.
func retryable(ctx context.Context, err error) bool {
	if err == nil || ctx.Err() != nil {
		return false
	}
	var re *discordgo.RESTError
	if errors.As(err, &re) {
		return re.Response != nil && re.Response.StatusCode >= http.StatusInternalServerError
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var ue *url.Error
	return errors.As(err, &ue)
}

// do runs write until it succeeds, fails for good, or the policy gives
// up; it returns the last error and the attempts made.
func (p retryPolicy) do(ctx context.Context, write func() error) (int, error) {
	start := p.now()
	pause := p.first
	for n := 1; ; n++ {
		err := write()
		if err == nil || !retryable(ctx, err) || n >= p.attempts {
			return n, err
		}
		d := time.Duration(float64(pause) * (0.5 + p.jitter()))
		if p.now().Add(d).Sub(start) > p.budget {
			return n, err
		}
		if serr := p.sleep(ctx, d); serr != nil {
			return n, err
		}
		if moved := supersededOf(ctx); moved != nil && moved() {
			return n, ErrSuperseded
		}
		pause *= 2
	}
}

// ErrSuperseded is the error of a write not tried again because what it
// shows is out of date: the game moved on meanwhile, and whoever moved it
// shows (or owes) the newer board. (An attempt whose connection was reset
// after Discord applied it, tried again after the player had already
// clicked the board it showed, would put that old board back over the
// newer one.)
var ErrSuperseded = errors.New("bot: the board changed meanwhile; not written again")

// supersededKey carries a write's staleness check in its context.
type supersededKey struct{}

// WithSuperseded makes the writes made with ctx stop retrying once moved
// reports that what they show is out of date.
func WithSuperseded(ctx context.Context, moved func() bool) context.Context {
	return context.WithValue(ctx, supersededKey{}, moved)
}

// supersededOf is the check withSuperseded put in ctx, or nil.
func supersededOf(ctx context.Context) func() bool {
	f, _ := ctx.Value(supersededKey{}).(func() bool)
	return f
}

// contextOf is the context options give a request (Background if none).
func contextOf(options []discordgo.RequestOption) context.Context {
	cfg := &discordgo.RequestConfig{Request: (&http.Request{}).WithContext(context.Background())}
	for _, o := range options {
		o(cfg)
	}
	return cfg.Request.Context()
}

// retry runs write under the policy and reports a give-up.
func (d *retryingDiscord) retry(route string, options []discordgo.RequestOption, write func() error) error {
	ctx := contextOf(options)
	n, err := d.policy.do(ctx, write)
	if n > 1 && d.retried != nil {
		d.retried(route, n-1)
	}
	if err != nil && d.giveUp != nil && (n > 1 || retryable(ctx, err)) && !errors.Is(err, ErrSuperseded) {
		d.giveUp(route, n, err)
	}
	return err
}

// ChannelMessageEditComplex edits a channel message, retrying as
// retryingDiscord says.
func (d *retryingDiscord) ChannelMessageEditComplex(m *discordgo.MessageEdit, options ...discordgo.RequestOption) (*discordgo.Message, error) {
	var out *discordgo.Message
	err := d.retry("channel_message_edit", options, func() error {
		var err error
		Rewind(m.Files)
		out, err = d.Discord.ChannelMessageEditComplex(m, options...)
		return err
	})
	return out, err
}

// InteractionResponseEdit edits an interaction's @original, retrying as
// retryingDiscord says.
func (d *retryingDiscord) InteractionResponseEdit(i *discordgo.Interaction, edit *discordgo.WebhookEdit, options ...discordgo.RequestOption) (*discordgo.Message, error) {
	var out *discordgo.Message
	err := d.retry("interaction_original", options, func() error {
		var err error
		Rewind(edit.Files)
		out, err = d.Discord.InteractionResponseEdit(i, edit, options...)
		return err
	})
	return out, err
}

// Rewind puts the readers of files back at their start where they can
// seek (the bytes.Reader of a rendered picture can), so that a file sent
// once is whole when sent again: by a retry, or in an edit of the same
// message data.
func Rewind(files []*discordgo.File) {
	for _, f := range files {
		if s, ok := f.Reader.(io.Seeker); ok {
			_, _ = s.Seek(0, io.SeekStart)
		}
	}
}

// noncePost is a channel post with Discord's nonce, which makes it
// idempotent for a few minutes.
type noncePost struct {
	*discordgo.MessageSend
	Nonce        string `json:"nonce"`
	EnforceNonce bool   `json:"enforce_nonce"`
}

// ChannelMessageSendComplex posts a channel message: with a nonce (the
// one withNonce put in the request's context, or a fresh one) and
// retried when the REST session can send one, else once.
func (d *retryingDiscord) ChannelMessageSendComplex(channelID string, data *discordgo.MessageSend, options ...discordgo.RequestOption) (*discordgo.Message, error) {
	if d.raw == nil || data.Embed != nil || data.File != nil {
		return d.Discord.ChannelMessageSendComplex(channelID, data, options...)
	}
	nonce, err := nonceOf(contextOf(options)), error(nil)
	if nonce == "" {
		nonce, err = newNonce()
	}
	if err != nil {
		return d.Discord.ChannelMessageSendComplex(channelID, data, options...)
	}
	for _, e := range data.Embeds {
		if e.Type == "" {
			e.Type = discordgo.EmbedTypeRich
		}
	}
	post := noncePost{MessageSend: data, Nonce: nonce, EnforceNonce: true}
	endpoint := discordgo.EndpointChannelMessages(channelID)
	// The body is made once: the files' readers are read only once.
	contentType, body := "application/json", []byte(nil)
	if len(data.Files) > 0 {
		contentType, body, err = discordgo.MultipartBodyWithJSON(post, data.Files)
	} else {
		body, err = json.Marshal(post)
	}
	if err != nil {
		return nil, fmt.Errorf("bot: encode a post: %w", err)
	}
	var out discordgo.Message
	err = d.retry("channel_message_post", options, func() error {
		raw, err := d.raw.RequestRaw(http.MethodPost, endpoint, contentType, body, endpoint, 0, options...)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(raw, &out); err != nil {
			return fmt.Errorf("bot: decode a posted message: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// newNonce returns a fresh nonce (at most 25 characters, as Discord wants).
func newNonce() (string, error) {
	var b [12]byte
	if _, err := crand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// restOf finds the REST session under dc that can send posts with a
// nonce: dc itself, or the one an InlineDiscord delegates to.
func restOf(dc Discord) rawRequester {
	if r, ok := dc.(rawRequester); ok {
		return r
	}
	if in, ok := dc.(*httpmode.InlineDiscord); ok {
		if r, ok := in.REST.(rawRequester); ok {
			return r
		}
	}
	return nil
}

// nonceKey carries a post's nonce in its context.
type nonceKey struct{}

// WithNonce makes the posts made with ctx carry nonce (at most 25
// characters), so that the same post made twice is one message.
func WithNonce(ctx context.Context, nonce string) context.Context {
	return context.WithValue(ctx, nonceKey{}, nonce)
}

// nonceOf is the nonce WithNonce put in ctx, or "".
func nonceOf(ctx context.Context) string {
	n, _ := ctx.Value(nonceKey{}).(string)
	return n
}
