package httpmode

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
)

// InlineDiscord is the Discord of a Bot in HTTP interactions mode: the
// first response to an interaction its Endpoint is serving goes back as
// that request's HTTP answer; everything else (edits, follow-ups, command
// registration, and first responses to interactions not being served) is
// delegated to the REST session, edits and follow-ups with a short retry
// in case they overtake the inline answer. Make one with NewInlineDiscord and pass it
// as Deps.Discord.
type InlineDiscord struct {
	// REST is the REST session every call but an inline first response
	// goes to.
	REST

	mu    sync.Mutex
	slots map[*discordgo.Interaction]*inlineSlot
	// redirects are the clicks whose new message went as a follow-up
	// (see afterDeferral), kept as long as their token lives.
	redirects map[*discordgo.Interaction]*redirect
}

// redirect is where the first response of a click went when the endpoint
// had deferred it as an update of the clicked message: a follow-up, which
// the interaction's edits and reads of its original response then reach.
type redirect struct {
	mu      sync.Mutex             // held while the follow-up is created
	flags   discordgo.MessageFlags // of the follow-up (private or not)
	msg     *discordgo.Message     // the follow-up; nil until the first edit of a deferred one
	expires time.Time
}

// followupEditor edits a follow-up message; *discordgo.Session has it.
// Without it, a click's new message replaces the clicked one.
type followupEditor interface {
	FollowupMessageEdit(interaction *discordgo.Interaction, messageID string, data *discordgo.WebhookEdit, options ...discordgo.RequestOption) (*discordgo.Message, error)
}

// Slot states.
const (
	slotWaiting  = iota // the HTTP request waits for the first response
	slotAnswered        // the first response went (or goes) to the HTTP request
	slotDeferred        // the request was answered with a deferral
)

// inlineSlot connects an interaction's first response to its HTTP request.
type inlineSlot struct {
	state   int                                 // guarded by InlineDiscord.mu
	resp    chan *discordgo.InteractionResponse // the first response, cap 1
	written chan error                          // the result of writing it, cap 1
}

// NewInlineDiscord returns an InlineDiscord that sends what is not
// answered inline through rest, normally the *discordgo.Session.
func NewInlineDiscord(rest REST) *InlineDiscord {
	return &InlineDiscord{REST: rest, slots: map[*discordgo.Interaction]*inlineSlot{},
		redirects: map[*discordgo.Interaction]*redirect{}}
}

var _ REST = (*InlineDiscord)(nil)

// expect registers i as served inline and returns its slot.
func (d *InlineDiscord) expect(i *discordgo.Interaction) *inlineSlot {
	s := &inlineSlot{resp: make(chan *discordgo.InteractionResponse, 1), written: make(chan error, 1)}
	d.mu.Lock()
	d.slots[i] = s
	d.mu.Unlock()
	return s
}

// forget ends inline service of i.
func (d *InlineDiscord) forget(i *discordgo.Interaction) {
	d.mu.Lock()
	delete(d.slots, i)
	d.mu.Unlock()
}

// deferSlot marks s deferred and returns the deferral to send, unless the
// first response was given meanwhile (then ok is false and the response is
// in s.resp).
func (d *InlineDiscord) deferSlot(i *discordgo.Interaction, s *inlineSlot) (typ discordgo.InteractionResponseType, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if s.state != slotWaiting {
		return 0, false
	}
	s.state = slotDeferred
	if i.Type == discordgo.InteractionMessageComponent {
		return discordgo.InteractionResponseDeferredMessageUpdate, true
	}
	return discordgo.InteractionResponseDeferredChannelMessageWithSource, true
}

// InteractionRespond sends the first response: as the HTTP answer when
// the interaction is being served inline (it returns once the answer is
// written), as an edit of the original response when the endpoint had to
// defer (a reply's ephemeral flag cannot change then), and over REST
// otherwise.
func (d *InlineDiscord) InteractionRespond(i *discordgo.Interaction, resp *discordgo.InteractionResponse, options ...discordgo.RequestOption) error {
	d.mu.Lock()
	s := d.slots[i]
	if s == nil || s.state == slotAnswered {
		d.mu.Unlock()
		return d.REST.InteractionRespond(i, resp, options...)
	}
	if s.state == slotDeferred {
		d.mu.Unlock()
		return d.afterDeferral(i, resp, options)
	}
	s.state = slotAnswered
	d.mu.Unlock()
	s.resp <- resp
	ctx := requestContext(options)
	select {
	case err := <-s.written:
		return err
	case <-ctx.Done():
		return fmt.Errorf("httpmode: inline response to interaction %s: %w", i.ID, ctx.Err())
	}
}

// afterDeferral turns a first response given after the endpoint deferred
// into what Discord accepts then: an edit of the deferred message, with
// its text, embeds, buttons and attachments (a chart, a bracket). A click
// is deferred as an update of the clicked message (the board); a new
// message answering it (a refusal, a rematch's board, a review) goes as a
// follow-up instead, and the interaction's later edits and reads of its
// original response reach that follow-up (see redirect).
func (d *InlineDiscord) afterDeferral(i *discordgo.Interaction, resp *discordgo.InteractionResponse, options []discordgo.RequestOption) error {
	data := resp.Data
	if data == nil {
		data = &discordgo.InteractionResponseData{}
	}
	_, canRedirect := d.REST.(followupEditor)
	newMessage := resp.Type == discordgo.InteractionResponseChannelMessageWithSource ||
		resp.Type == discordgo.InteractionResponseDeferredChannelMessageWithSource
	if i.Type == discordgo.InteractionMessageComponent && newMessage && canRedirect {
		r := d.redirectTo(i, data.Flags)
		if resp.Type == discordgo.InteractionResponseDeferredChannelMessageWithSource {
			return nil // the first edit creates it
		}
		_, err := r.create(func() (*discordgo.Message, error) {
			return d.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: data.Content, Components: data.Components,
				Embeds: data.Embeds, Files: data.Files, AllowedMentions: data.AllowedMentions, Flags: data.Flags}, options...)
		})
		return err
	}
	switch resp.Type {
	case discordgo.InteractionResponseDeferredChannelMessageWithSource, discordgo.InteractionResponseDeferredMessageUpdate:
		return nil // deferred already
	case discordgo.InteractionResponseChannelMessageWithSource, discordgo.InteractionResponseUpdateMessage:
	default:
		return fmt.Errorf("httpmode: interaction %s: response type %d cannot follow a deferral", i.ID, resp.Type)
	}
	edit := &discordgo.WebhookEdit{Content: &data.Content, Components: &data.Components,
		AllowedMentions: data.AllowedMentions, Files: data.Files, Attachments: data.Attachments}
	if data.Embeds != nil {
		edit.Embeds = &data.Embeds
	}
	_, err := d.InteractionResponseEdit(i, edit, options...)
	return err
}

// redirectTo records that i's first response goes to a follow-up with
// flags, and drops the records whose token has expired.
func (d *InlineDiscord) redirectTo(i *discordgo.Interaction, flags discordgo.MessageFlags) *redirect {
	now := time.Now()
	r := &redirect{flags: flags, expires: now.Add(interactionTokenLife)}
	d.mu.Lock()
	defer d.mu.Unlock()
	for k, old := range d.redirects {
		if now.After(old.expires) {
			delete(d.redirects, k)
		}
	}
	d.redirects[i] = r
	return r
}

// redirectOf returns where i's first response went, or nil for @original.
func (d *InlineDiscord) redirectOf(i *discordgo.Interaction) *redirect {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.redirects[i]
}

// create makes the follow-up with send, once; later calls return it.
func (r *redirect) create(send func() (*discordgo.Message, error)) (*discordgo.Message, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.msg != nil {
		return r.msg, nil
	}
	m, err := send()
	if err != nil {
		return nil, err
	}
	r.msg = m
	return m, nil
}

// message is the follow-up, if it has been created.
func (r *redirect) message() *discordgo.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.msg
}

// Retries of a REST call that Discord refuses because it has not taken in
// the inline answer yet: the first wait and the last.
const (
	firstInlineRetry = 10 * time.Millisecond
	lastInlineRetry  = 640 * time.Millisecond
)

// InteractionResponseEdit edits the first response over REST. For an
// interaction answered inline it retries for about a second while Discord
// answers Unknown Webhook: the edit can overtake the HTTP answer.
func (d *InlineDiscord) InteractionResponseEdit(i *discordgo.Interaction, edit *discordgo.WebhookEdit, options ...discordgo.RequestOption) (*discordgo.Message, error) {
	if r := d.redirectOf(i); r != nil {
		return d.editRedirected(i, r, edit, options)
	}
	var m *discordgo.Message
	err := d.retryFiles(i, options, edit.Files, func() (err error) {
		m, err = d.REST.InteractionResponseEdit(i, edit, options...)
		return err
	})
	return m, err
}

// editRedirected applies an edit of i's original response to the
// follow-up it went to: creating it, for the first edit after a deferred
// new message, else editing it.
func (d *InlineDiscord) editRedirected(i *discordgo.Interaction, r *redirect, edit *discordgo.WebhookEdit, options []discordgo.RequestOption) (*discordgo.Message, error) {
	created := false
	m, err := r.create(func() (*discordgo.Message, error) {
		created = true
		p := &discordgo.WebhookParams{Files: edit.Files, AllowedMentions: edit.AllowedMentions, Flags: r.flags}
		if edit.Content != nil {
			p.Content = *edit.Content
		}
		if edit.Components != nil {
			p.Components = *edit.Components
		}
		if edit.Embeds != nil {
			p.Embeds = *edit.Embeds
		}
		return d.FollowupMessageCreate(i, true, p, options...)
	})
	if err != nil || created {
		return m, err
	}
	fe := d.REST.(followupEditor) // checked by afterDeferral
	var out *discordgo.Message
	err = d.retryFiles(i, options, edit.Files, func() (err error) {
		out, err = fe.FollowupMessageEdit(i, m.ID, edit, options...)
		return err
	})
	return out, err
}

// rewindable reads files whole so that a retried request sends them
// again: the returned rewind puts every file back at its start. (A retry
// that sent the readers as the first try left them would upload empty
// files.)
func rewindable(files []*discordgo.File) (rewind func(), err error) {
	data := make([][]byte, len(files))
	for i, f := range files {
		if f == nil || f.Reader == nil {
			continue
		}
		if _, ok := f.Reader.(io.ReadSeeker); ok {
			continue // rewound by seeking (the bot's files are bytes.Readers)
		}
		if data[i], err = io.ReadAll(f.Reader); err != nil {
			return nil, fmt.Errorf("httpmode: read attachment %s: %w", f.Name, err)
		}
		f.Reader = bytes.NewReader(data[i])
	}
	return func() {
		for _, f := range files {
			if f == nil {
				continue
			}
			if rs, ok := f.Reader.(io.ReadSeeker); ok {
				_, _ = rs.Seek(0, io.SeekStart)
			}
		}
	}, nil
}

// InteractionResponse reads the message of the first response over REST
// (GET @original), retrying like InteractionResponseEdit: the bot reads it
// to learn the board's message ID. Reading, unlike re-sending the board,
// cannot put an older board back over one a click has already updated.
func (d *InlineDiscord) InteractionResponse(i *discordgo.Interaction, options ...discordgo.RequestOption) (*discordgo.Message, error) {
	if r := d.redirectOf(i); r != nil {
		if m := r.message(); m != nil {
			return m, nil
		}
		return nil, fmt.Errorf("httpmode: interaction %s: its response is not sent yet", i.ID)
	}
	f, ok := d.REST.(originalFetcher)
	if !ok {
		return nil, fmt.Errorf("httpmode: %T cannot read an interaction's response", d.REST)
	}
	var m *discordgo.Message
	err := d.retry(i, options, func() (err error) {
		m, err = f.InteractionResponse(i, options...)
		return err
	})
	return m, err
}

// FollowupMessageCreate sends a follow-up over REST, retrying like
// InteractionResponseEdit.
func (d *InlineDiscord) FollowupMessageCreate(i *discordgo.Interaction, wait bool, data *discordgo.WebhookParams, options ...discordgo.RequestOption) (*discordgo.Message, error) {
	var m *discordgo.Message
	err := d.retryFiles(i, options, data.Files, func() (err error) {
		m, err = d.REST.FollowupMessageCreate(i, wait, data, options...)
		return err
	})
	return m, err
}

// retry runs call, and again with growing waits while it fails with
// Unknown Webhook for an interaction answered inline.
func (d *InlineDiscord) retry(i *discordgo.Interaction, options []discordgo.RequestOption, call func() error) error {
	err := call()
	if !isUnknownWebhook(err) {
		return err
	}
	d.mu.Lock()
	s := d.slots[i]
	inline := s != nil && s.state != slotWaiting
	d.mu.Unlock()
	if !inline {
		return err
	}
	ctx := requestContext(options)
	for wait := firstInlineRetry; isUnknownWebhook(err) && wait <= lastInlineRetry; wait *= 2 {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		err = call()
	}
	return err
}

// retryFiles is retry for a call that uploads files: each try sends them
// whole (see rewindable).
func (d *InlineDiscord) retryFiles(i *discordgo.Interaction, options []discordgo.RequestOption, files []*discordgo.File, call func() error) error {
	rewind, err := rewindable(files)
	if err != nil {
		return err
	}
	return d.retry(i, options, func() error {
		rewind()
		return call()
	})
}

// isUnknownWebhook reports whether err is Discord's Unknown Webhook.
func isUnknownWebhook(err error) bool {
	var re *discordgo.RESTError
	return errors.As(err, &re) && re.Message != nil && re.Message.Code == discordgo.ErrCodeUnknownWebhook
}

// requestContext returns the context discordgo.WithContext put in
// options, or context.Background.
func requestContext(options []discordgo.RequestOption) context.Context {
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, "/", nil)
	cfg := &discordgo.RequestConfig{Request: req}
	for _, o := range options {
		o(cfg)
	}
	return cfg.Request.Context()
}

// GuildChannels lists a server's channels through the REST session, when
// it can.
func (d *InlineDiscord) GuildChannels(guildID string, options ...discordgo.RequestOption) ([]*discordgo.Channel, error) {
	gl, ok := d.REST.(guildLister)
	if !ok {
		return nil, fmt.Errorf("%w: the REST session cannot list channels", ErrConfig)
	}
	return gl.GuildChannels(guildID, options...)
}

// GuildRoles lists a server's roles through the REST session, when it can.
func (d *InlineDiscord) GuildRoles(guildID string, options ...discordgo.RequestOption) ([]*discordgo.Role, error) {
	gl, ok := d.REST.(guildLister)
	if !ok {
		return nil, fmt.Errorf("%w: the REST session cannot list roles", ErrConfig)
	}
	return gl.GuildRoles(guildID, options...)
}

// REST is the part of Discord's API an InlineDiscord passes on (the same
// methods as the bot's Discord, so that an InlineDiscord is one):
// *discordgo.Session has it.
type REST interface {
	InteractionRespond(interaction *discordgo.Interaction, resp *discordgo.InteractionResponse, options ...discordgo.RequestOption) error
	InteractionResponseEdit(interaction *discordgo.Interaction, newresp *discordgo.WebhookEdit, options ...discordgo.RequestOption) (*discordgo.Message, error)
	FollowupMessageCreate(interaction *discordgo.Interaction, wait bool, data *discordgo.WebhookParams, options ...discordgo.RequestOption) (*discordgo.Message, error)
	ApplicationCommandBulkOverwrite(appID string, guildID string, commands []*discordgo.ApplicationCommand, options ...discordgo.RequestOption) ([]*discordgo.ApplicationCommand, error)
	ChannelMessageEditComplex(m *discordgo.MessageEdit, options ...discordgo.RequestOption) (*discordgo.Message, error)
	ChannelMessageSendComplex(channelID string, data *discordgo.MessageSend, options ...discordgo.RequestOption) (*discordgo.Message, error)
}

// interactionTokenLife is how long Discord accepts an interaction's token
// for edits and follow-ups.
const interactionTokenLife = 15 * time.Minute

// originalFetcher reads the message of an interaction's first response;
// *discordgo.Session has it.
type originalFetcher interface {
	InteractionResponse(interaction *discordgo.Interaction, options ...discordgo.RequestOption) (*discordgo.Message, error)
}

// guildLister lists a server's channels and roles; *discordgo.Session
// has it.
type guildLister interface {
	GuildChannels(guildID string, options ...discordgo.RequestOption) ([]*discordgo.Channel, error)
	GuildRoles(guildID string, options ...discordgo.RequestOption) ([]*discordgo.Role, error)
}
