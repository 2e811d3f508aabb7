package fakediscord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
)

// Interaction and callback types (Discord's numbering).
const (
	interactionPing         = 1
	interactionCommand      = 2
	interactionComponent    = 3
	interactionAutocomplete = 4
	interactionModalSubmit  = 5

	callbackPong            = 1
	callbackMessage         = 4
	callbackDeferredMessage = 5
	callbackDeferredUpdate  = 6
	callbackUpdateMessage   = 7
	callbackAutocomplete    = 8
	callbackModal           = 9
)

// Default IDs and permissions used when a spec leaves them empty.
const (
	DefaultUserID      = "2000000000000000001"
	DefaultUsername    = "alice"
	DefaultChannelID   = "3000000000000000001"
	DefaultLocale      = "en-US"
	DefaultPermissions = discordgo.PermissionViewChannel | discordgo.PermissionSendMessages |
		discordgo.PermissionReadMessageHistory | discordgo.PermissionAddReactions |
		discordgo.PermissionUseSlashCommands | discordgo.PermissionEmbedLinks
	botPermissions = DefaultPermissions | discordgo.PermissionUseExternalEmojis
)

// ErrRejected wraps the fake's refusal of something the bot sent for an
// interaction (an invalid callback, edit or follow-up); see Delivery.Wait.
var ErrRejected = errors.New("fakediscord: request rejected")

// ErrCommandHidden is returned by Command when the member lacks the
// command's default_member_permissions, so Discord would not offer it.
var ErrCommandHidden = errors.New("fakediscord: member lacks the command's default permissions")

// User is a Discord user acting in a test. The zero value is DefaultUserID.
type User struct {
	ID         string
	Username   string
	GlobalName string
}

func (u User) withDefaults() User {
	if u.ID == "" {
		u.ID = DefaultUserID
	}
	if u.Username == "" {
		u.Username = DefaultUsername
		if u.ID != DefaultUserID {
			u.Username = "user" + u.ID
		}
	}
	return u
}

// Actor is who acts and where: the common part of the interaction specs.
// An empty Guild means a direct message with the bot.
type Actor struct {
	Guild       string
	Channel     string // default: the message's channel, else DefaultChannelID
	User        User
	Permissions int64    // member permissions in the guild; 0 means DefaultPermissions
	Roles       []string // the member's role IDs in the guild
	Locale      string   // the user's client locale; default en-US
	GuildLocale string   // default en-US
}

// ClickSpec describes a click on a message component (button or select).
type ClickSpec struct {
	Actor
	MessageID string   // the message holding the component (required)
	CustomID  string   // the component's custom_id (required)
	Values    []string // selected values, for select menus
}

// Option is one option of a slash command invocation.
type Option struct {
	Name    string
	Type    discordgo.ApplicationCommandOptionType // 0: inferred from Value
	Value   any                                    // string, int, bool or float64
	Focused bool                                   // autocomplete: the option being typed
	Options []Option                               // sub-command and group options
}

// CommandSpec describes a slash command invocation.
type CommandSpec struct {
	Actor
	Name    string
	Options []Option
}

// ModalSpec describes the submission of a modal the bot showed.
type ModalSpec struct {
	Actor
	CustomID  string            // the modal's custom_id
	Fields    map[string]string // text input custom_id -> value
	MessageID string            // the message whose component opened the modal, if any
}

// Kind says what a Response records.
type Kind int

// The kinds of Response, in the order they usually happen.
const (
	KindCallback       Kind = iota + 1 // the initial interaction response
	KindEditOriginal                   // PATCH .../messages/@original
	KindDeleteOriginal                 // DELETE .../messages/@original
	KindFollowup                       // POST /webhooks/{app}/{token}
	KindEditFollowup                   // PATCH .../messages/{id}
	KindDeleteFollowup                 // DELETE .../messages/{id}
	KindRejected                       // the fake refused a request for this interaction
	KindFailed                         // the user saw "This interaction failed"
)

// String names the kind.
func (k Kind) String() string {
	names := [...]string{"?", "callback", "edit-original", "delete-original", "followup", "edit-followup",
		"delete-followup", "rejected", "failed"}
	if k < 0 || int(k) >= len(names) {
		return "kind(" + strconv.Itoa(int(k)) + ")"
	}
	return names[k]
}

// Response is one thing the bot did in answer to an interaction, or the
// fake's verdict on it.
type Response struct {
	Kind    Kind
	Type    int             // callback type (4, 5, 6, 7, 8, 9) for KindCallback
	Message *Message        // the affected message after the change, if any
	Data    json.RawMessage // what the bot sent: callback data, edit or follow-up body
	Error   string          // why, for KindRejected and KindFailed
	At      time.Time
}

// interaction is the fake's record of one delivered interaction.
type interaction struct {
	id, token  string
	kind       int
	name       string
	guildID    string
	channelID  string
	userID     string
	messageID  string
	payload    []byte
	created    time.Time
	acked      bool
	ackType    int
	failed     bool
	originalID string
	followups  map[string]bool
	responses  []Response
	timer      *time.Timer
}

// Delivery is a handle on one injected interaction. Its methods are safe to
// call from any goroutine; Wait's cursor is shared by all callers.
type Delivery struct {
	s    *Server
	ix   *interaction
	next int // guarded by s.mu
}

// ID returns the interaction's ID.
func (d *Delivery) ID() string { return d.ix.id }

// Token returns the interaction's token.
func (d *Delivery) Token() string { return d.ix.token }

// Payload returns the interaction JSON as Discord sent it to the bot.
func (d *Delivery) Payload() []byte { return append([]byte(nil), d.ix.payload...) }

// Wait returns the next Response for this interaction that has not been
// returned yet, blocking until there is one: first the callback, then edits
// and follow-ups in order. For KindFailed it also returns ErrInteractionFailed,
// for KindRejected an error wrapping ErrRejected.
func (d *Delivery) Wait(ctx context.Context) (Response, error) {
	var r Response
	err := d.s.waitFor(ctx, func() bool {
		if d.next < len(d.ix.responses) {
			r = d.ix.responses[d.next]
			d.next++
			return true
		}
		return false
	})
	switch {
	case err != nil:
		return r, err
	case r.Kind == KindFailed:
		return r, fmt.Errorf("%w: %s", ErrInteractionFailed, r.Error)
	case r.Kind == KindRejected:
		return r, fmt.Errorf("%w: %s", ErrRejected, r.Error)
	}
	return r, nil
}

// Responses returns everything recorded for this interaction so far.
func (d *Delivery) Responses() []Response {
	d.s.mu.Lock()
	defer d.s.mu.Unlock()
	return append([]Response(nil), d.ix.responses...)
}

// Failed reports whether the user saw "This interaction failed".
func (d *Delivery) Failed() bool {
	d.s.mu.Lock()
	defer d.s.mu.Unlock()
	return d.ix.failed
}

// Click injects a component click on a message the fake holds, as the user
// would make it: the component must exist, be enabled and be visible to the
// user.
func (s *Server) Click(ctx context.Context, c ClickSpec) (*Delivery, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("fakediscord: click: %w", err)
	}
	u := c.User.withDefaults()
	s.mu.Lock()
	m, ok := s.messages[c.MessageID]
	if !ok || m.Deleted || (m.Flags&FlagEphemeral != 0 && m.VisibleTo != u.ID) {
		s.mu.Unlock()
		return nil, fmt.Errorf("%w: %q", ErrUnknownMessage, c.MessageID)
	}
	comp, ok := m.snapshot().Component(c.CustomID)
	if !ok || comp.Disabled || comp.CustomID == "" {
		s.mu.Unlock()
		return nil, fmt.Errorf("%w: %q", ErrUnknownComponent, c.CustomID)
	}
	if c.Channel == "" {
		c.Channel = m.ChannelID
	}
	if c.Guild == "" {
		c.Guild = m.GuildID
	}
	ix := s.newInteractionLocked(interactionComponent, c.Actor, u)
	ix.messageID = m.ID
	p := s.basePayloadLocked(ix, c.Actor, u)
	p["message"] = s.wireMessage(m)
	data := map[string]any{"custom_id": c.CustomID, "component_type": comp.Type}
	if comp.Type != componentButton {
		data["values"] = append([]string{}, c.Values...)
	}
	p["data"] = data
	ix.payload = mustJSON(p)
	return s.deliverLocked(ix)
}

// Command injects a slash command invocation. The command must have been
// registered by the bot (globally, or for the guild) and the member must
// hold its default_member_permissions.
func (s *Server) Command(ctx context.Context, c CommandSpec) (*Delivery, error) {
	return s.command(ctx, c, interactionCommand)
}

// Autocomplete injects an autocomplete request for a slash command; mark the
// option being typed with Focused.
func (s *Server) Autocomplete(ctx context.Context, c CommandSpec) (*Delivery, error) {
	return s.command(ctx, c, interactionAutocomplete)
}

func (s *Server) command(ctx context.Context, c CommandSpec, kind int) (*Delivery, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("fakediscord: command: %w", err)
	}
	u := c.User.withDefaults()
	s.mu.Lock()
	var cmd *discordgo.ApplicationCommand
	for _, scope := range []string{c.Guild, ""} {
		for _, r := range s.commands[scope] {
			if r.Name == c.Name && (scope == "" || c.Guild != "") {
				cmd = r
			}
		}
		if cmd != nil {
			break
		}
	}
	if cmd == nil {
		s.mu.Unlock()
		return nil, fmt.Errorf("%w: /%s", ErrUnknownCommand, c.Name)
	}
	perms := c.Permissions
	if perms == 0 {
		perms = DefaultPermissions
	}
	if need := cmd.DefaultMemberPermissions; c.Guild != "" && need != nil && perms&discordgo.PermissionAdministrator == 0 && perms&*need != *need {
		s.mu.Unlock()
		return nil, fmt.Errorf("%w: /%s", ErrCommandHidden, c.Name)
	}
	if c.Channel == "" {
		c.Channel = DefaultChannelID
	}
	ix := s.newInteractionLocked(kind, c.Actor, u)
	ix.name = c.Name
	p := s.basePayloadLocked(ix, c.Actor, u)
	data := map[string]any{"id": cmd.ID, "name": cmd.Name, "type": int(cmd.Type), "options": wireOptions(c.Options)}
	if cmd.GuildID != "" {
		data["guild_id"] = cmd.GuildID
	}
	p["data"] = data
	ix.payload = mustJSON(p)
	return s.deliverLocked(ix)
}

func wireOptions(opts []Option) []any {
	out := []any{}
	for _, o := range opts {
		t := o.Type
		if t == 0 {
			switch o.Value.(type) {
			case string:
				t = discordgo.ApplicationCommandOptionString
			case int, int64, int32:
				t = discordgo.ApplicationCommandOptionInteger
			case bool:
				t = discordgo.ApplicationCommandOptionBoolean
			case float64, float32:
				t = discordgo.ApplicationCommandOptionNumber
			default:
				t = discordgo.ApplicationCommandOptionSubCommand
			}
		}
		w := map[string]any{"name": o.Name, "type": int(t)}
		if o.Value != nil {
			w["value"] = o.Value
		}
		if o.Focused {
			w["focused"] = true
		}
		if len(o.Options) > 0 {
			w["options"] = wireOptions(o.Options)
		}
		out = append(out, w)
	}
	return out
}

// SubmitModal injects the submission of a modal with the given field values.
func (s *Server) SubmitModal(ctx context.Context, c ModalSpec) (*Delivery, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("fakediscord: modal: %w", err)
	}
	u := c.User.withDefaults()
	s.mu.Lock()
	var m *message
	if c.MessageID != "" {
		var ok bool
		if m, ok = s.messages[c.MessageID]; !ok || m.Deleted {
			s.mu.Unlock()
			return nil, fmt.Errorf("%w: %q", ErrUnknownMessage, c.MessageID)
		}
		if c.Channel == "" {
			c.Channel = m.ChannelID
		}
		if c.Guild == "" {
			c.Guild = m.GuildID
		}
	}
	if c.Channel == "" {
		c.Channel = DefaultChannelID
	}
	ix := s.newInteractionLocked(interactionModalSubmit, c.Actor, u)
	p := s.basePayloadLocked(ix, c.Actor, u)
	if m != nil {
		ix.messageID = m.ID
		p["message"] = s.wireMessage(m)
	}
	keys := make([]string, 0, len(c.Fields))
	for k := range c.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	rows := []any{}
	for _, k := range keys {
		rows = append(rows, map[string]any{"type": componentActionRow, "components": []any{
			map[string]any{"type": componentTextInput, "custom_id": k, "value": c.Fields[k]}}})
	}
	p["data"] = map[string]any{"custom_id": c.CustomID, "components": rows}
	ix.payload = mustJSON(p)
	return s.deliverLocked(ix)
}

// newInteractionLocked creates the record; s.mu must be held.
func (s *Server) newInteractionLocked(kind int, a Actor, u User) *interaction {
	return &interaction{id: s.newIDLocked(), token: "fake." + randomToken(32), kind: kind,
		guildID: a.Guild, channelID: a.Channel, userID: u.ID, followups: map[string]bool{}}
}

// basePayloadLocked builds the fields every interaction carries.
func (s *Server) basePayloadLocked(ix *interaction, a Actor, u User) map[string]any {
	locale, guildLocale := a.Locale, a.GuildLocale
	if locale == "" {
		locale = DefaultLocale
	}
	if guildLocale == "" {
		guildLocale = DefaultLocale
	}
	perms := a.Permissions
	if perms == 0 {
		perms = DefaultPermissions
	}
	var global any
	if u.GlobalName != "" {
		global = u.GlobalName
	}
	user := map[string]any{"id": u.ID, "username": u.Username, "global_name": global, "discriminator": "0",
		"avatar": nil, "public_flags": 0}
	p := map[string]any{
		"id": ix.id, "application_id": s.opts.AppID, "type": ix.kind, "token": ix.token, "version": 1,
		"channel_id": a.Channel, "locale": locale, "app_permissions": strconv.FormatInt(botPermissions, 10),
		"entitlements": []any{},
	}
	if a.Guild != "" {
		p["guild_id"] = a.Guild
		p["guild_locale"] = guildLocale
		p["channel"] = map[string]any{"id": a.Channel, "type": discordgo.ChannelTypeGuildText, "guild_id": a.Guild}
		roles := []any{}
		for _, r := range a.Roles {
			roles = append(roles, r)
		}
		p["member"] = map[string]any{"user": user, "roles": roles, "permissions": strconv.FormatInt(perms, 10),
			"joined_at": "2024-01-01T00:00:00+00:00", "deaf": false, "mute": false, "flags": 0, "nick": nil}
		p["context"] = discordgo.InteractionContextGuild
		p["authorizing_integration_owners"] = map[string]any{"0": a.Guild}
	} else {
		p["user"] = user
		p["channel"] = map[string]any{"id": a.Channel, "type": discordgo.ChannelTypeDM}
		p["context"] = discordgo.InteractionContextBotDM
		p["authorizing_integration_owners"] = map[string]any{"0": "0"}
	}
	return p
}

// deliverLocked registers ix, starts its acknowledgement timer and sends it
// over the gateway or to the interactions URL. It releases s.mu.
func (s *Server) deliverLocked(ix *interaction) (*Delivery, error) {
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	url := s.interactionsURL
	var ses *gwSession
	if url == "" {
		if ses = s.sessionForLocked(ix.guildID); ses == nil {
			return nil, ErrNoBot
		}
	}
	ix.created = s.now()
	if ix.guildID != "" {
		s.channelGuild[ix.channelID] = ix.guildID
	}
	s.interactions[ix.id] = ix
	s.tokens[ix.token] = ix
	ix.timer = time.AfterFunc(s.opts.AckDeadline, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if !ix.acked {
			s.failLocked(ix, "not acknowledged within "+s.opts.AckDeadline.String())
		}
	})
	if ses != nil {
		s.dispatchLocked(ses, "INTERACTION_CREATE", json.RawMessage(ix.payload))
	} else {
		s.wg.Add(1)
		go s.postInteraction(url, ix)
	}
	s.notifyLocked()
	return &Delivery{s: s, ix: ix}, nil
}

// failLocked records that the user saw "This interaction failed", once.
func (s *Server) failLocked(ix *interaction, why string) {
	if ix.failed {
		return
	}
	ix.failed = true
	ix.responses = append(ix.responses, Response{Kind: KindFailed, Error: why, At: s.now()})
	s.notifyLocked()
}

// rejectLocked records a refused request for ix.
func (s *Server) rejectLocked(ix *interaction, e *apiError) {
	ix.responses = append(ix.responses, Response{Kind: KindRejected, Error: e.Error(), At: s.now()})
	s.notifyLocked()
}

// newInteractionMessageLocked creates a message answering ix.
func (s *Server) newInteractionMessageLocked(ix *interaction, flags int) *message {
	m := &message{ChannelID: ix.channelID, GuildID: ix.guildID, Flags: flags, InteractionID: ix.id,
		InteractionType: ix.kind, InteractionName: ix.name, InteractionUser: ix.userID}
	if flags&FlagEphemeral != 0 {
		m.VisibleTo = ix.userID
	}
	return m
}

// callbackLocked applies an interaction response the way Discord does.
func (s *Server) callbackLocked(ix *interaction, contentType string, body []byte) *apiError {
	if ix.acked {
		return &apiError{Status: http.StatusBadRequest, Code: CodeAlreadyAcknowledged, Message: alreadyAcknowledgedError}
	}
	if ix.failed || s.now().Sub(ix.created) > s.opts.AckDeadline {
		s.failLocked(ix, "acknowledged after "+s.now().Sub(ix.created).String())
		return errUnknownInteraction()
	}
	var cb struct {
		Type int             `json:"type"`
		Data json.RawMessage `json:"data"`
	}
	if e := decodeTyped(contentType, body, &cb); e != nil {
		return e
	}
	var p messagePayload
	if len(cb.Data) > 0 && string(cb.Data) != "null" {
		if err := json.Unmarshal(cb.Data, &p); err != nil {
			return errInvalidJSON()
		}
	}
	files, e := decodeUploads(contentType, body)
	if e != nil {
		return e
	}
	p.files = len(files)
	if !callbackAllowed(ix.kind, cb.Type, ix.messageID != "") {
		return formError("type", "INTERACTION_RESPONSE_TYPE_INVALID",
			fmt.Sprintf("Interaction response type %d is not valid for interaction type %d", cb.Type, ix.kind))
	}
	affected, e := s.applyCallbackLocked(ix, cb.Type, &p, files)
	if e != nil {
		return e
	}
	s.ackLocked(ix, cb.Type, cb.Data, affected)
	return nil
}

// applyCallbackLocked validates a callback of type typ to ix, with payload
// p and the uploaded files, and applies it: a new message, a deferred
// (loading) one, an update of the component's message, or nothing to show
// for an autocomplete or a modal. It returns the message it created or
// changed, if any.
func (s *Server) applyCallbackLocked(ix *interaction, typ int, p *messagePayload, files []upload) (*message, *apiError) {
	switch typ {
	case callbackMessage:
		if e := validateMessage(p, true); e != nil {
			return nil, e
		}
		m := s.newInteractionMessageLocked(ix, flagsOf(p)&allowedMessageFlags)
		applyPayload(m, p, 0)
		if e := s.attachLocked(m, p, files); e != nil {
			return nil, e
		}
		s.addMessageLocked(m)
		ix.originalID = m.ID
		return m, nil
	case callbackDeferredMessage:
		if p.Flags != nil && *p.Flags&^allowedMessageFlags != 0 {
			return nil, formError("data.flags", "MESSAGE_FLAGS_INVALID", "Invalid flags")
		}
		m := s.newInteractionMessageLocked(ix, FlagLoading|flagsOf(p)&allowedMessageFlags)
		s.addMessageLocked(m)
		ix.originalID = m.ID
		return m, nil
	case callbackDeferredUpdate, callbackUpdateMessage:
		m, ok := s.messages[ix.messageID]
		if !ok || m.Deleted {
			return nil, errUnknownMessage()
		}
		if typ == callbackUpdateMessage {
			if e := validateMessage(p, false); e != nil {
				return nil, e
			}
			next := *m
			if e := s.attachLocked(&next, p, files); e != nil {
				return nil, e
			}
			applyPayload(&next, p, FlagSuppressEmbeds)
			next.Edited = s.now()
			*m = next
			s.shownLocked(m)
		}
		ix.originalID = m.ID
		return m, nil
	case callbackAutocomplete:
		if len(p.Choices) > maxChoices {
			return nil, formError("data.choices", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
		}
	case callbackModal:
		if e := validateModal(p); e != nil {
			return nil, e
		}
	}
	return nil, nil
}

// ackLocked marks ix acknowledged by a callback of type typ, stops its
// acknowledgement timer and records the response (data as the bot sent
// it, and a snapshot of the message affected, if any).
func (s *Server) ackLocked(ix *interaction, typ int, data json.RawMessage, affected *message) {
	ix.acked, ix.ackType = true, typ
	if ix.timer != nil {
		ix.timer.Stop()
	}
	r := Response{Kind: KindCallback, Type: typ, Data: data, At: s.now()}
	if affected != nil {
		snap := affected.snapshot()
		r.Message = &snap
	}
	ix.responses = append(ix.responses, r)
	s.notifyLocked()
}

func flagsOf(p *messagePayload) int {
	if p.Flags == nil {
		return 0
	}
	return *p.Flags
}

// callbackAllowed is Discord's table of which response types each
// interaction type accepts.
func callbackAllowed(kind, typ int, fromMessage bool) bool {
	switch kind {
	case interactionAutocomplete:
		return typ == callbackAutocomplete
	case interactionCommand:
		return typ == callbackMessage || typ == callbackDeferredMessage || typ == callbackModal
	case interactionComponent:
		return typ == callbackMessage || typ == callbackDeferredMessage || typ == callbackDeferredUpdate ||
			typ == callbackUpdateMessage || typ == callbackModal
	case interactionModalSubmit:
		return typ == callbackMessage || typ == callbackDeferredMessage ||
			(fromMessage && (typ == callbackDeferredUpdate || typ == callbackUpdateMessage))
	}
	return false
}

func validateModal(p *messagePayload) *apiError {
	if p.CustomID == "" || utf8.RuneCountInString(p.CustomID) > maxCustomID {
		return formError("data.custom_id", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
	}
	if n := utf8.RuneCountInString(p.Title); n < 1 || n > maxModalTitle {
		return formError("data.title", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 45 in length.")
	}
	if !nonEmptyArray(p.Components) {
		return formError("data.components", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 5 in length.")
	}
	return validateRows(*p.Components, componentTextInput)
}

func (s *Server) restCallback(r *http.Request, body []byte) (int, any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ix, ok := s.interactions[r.PathValue("id")]
	if !ok || ix.token != r.PathValue("token") {
		return 0, nil, errUnknownInteraction()
	}
	if e := s.callbackLocked(ix, r.Header.Get("Content-Type"), body); e != nil {
		if e.Code != CodeUnknownInteraction {
			s.rejectLocked(ix, e)
		}
		return 0, nil, e
	}
	return http.StatusNoContent, nil, nil
}

// webhookLocked finds the interaction behind a webhook URL.
func (s *Server) webhookLocked(r *http.Request) (*interaction, *apiError) {
	ix, ok := s.tokens[r.PathValue("token")]
	if !ok || r.PathValue("app") != s.opts.AppID {
		return nil, errUnknownWebhook()
	}
	if s.now().Sub(ix.created) > s.opts.TokenLifetime {
		return nil, &apiError{Status: http.StatusUnauthorized, Code: CodeInvalidWebhookToken, Message: "Invalid Webhook Token"}
	}
	if !ix.acked {
		return nil, errUnknownWebhook()
	}
	return ix, nil
}

// webhookMessageLocked finds @original or a follow-up of ix.
func (s *Server) webhookMessageLocked(ix *interaction, id string) (*message, bool, *apiError) {
	original := id == "@original" || id == ix.originalID
	if id == "@original" {
		id = ix.originalID
	}
	m, ok := s.messages[id]
	if id == "" || !ok || m.Deleted || (!original && !ix.followups[id]) {
		return nil, false, errUnknownMessage()
	}
	return m, original, nil
}

func (s *Server) restFollowup(r *http.Request, body []byte) (int, any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ix, e := s.webhookLocked(r)
	if e != nil {
		return 0, nil, e
	}
	var p messagePayload
	files, e := decodeMessage(r, body, &p, true)
	if e != nil {
		s.rejectLocked(ix, e)
		return 0, nil, e
	}
	m := s.newInteractionMessageLocked(ix, flagsOf(&p)&allowedMessageFlags)
	applyPayload(m, &p, 0)
	if e := s.attachLocked(m, &p, files); e != nil {
		s.rejectLocked(ix, e)
		return 0, nil, e
	}
	s.addMessageLocked(m)
	ix.followups[m.ID] = true
	s.recordLocked(ix, KindFollowup, m, payloadJSON(r.Header.Get("Content-Type"), body))
	if r.URL.Query().Get("wait") != "true" {
		return http.StatusNoContent, nil, nil
	}
	return http.StatusOK, s.wireMessage(m), nil
}

func (s *Server) restWebhookMessage(r *http.Request, _ []byte) (int, any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ix, e := s.webhookLocked(r)
	if e != nil {
		return 0, nil, e
	}
	m, _, e := s.webhookMessageLocked(ix, r.PathValue("msg"))
	if e != nil {
		return 0, nil, e
	}
	return http.StatusOK, s.wireMessage(m), nil
}

func (s *Server) restWebhookEdit(r *http.Request, body []byte) (int, any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ix, e := s.webhookLocked(r)
	if e != nil {
		return 0, nil, e
	}
	m, original, e := s.webhookMessageLocked(ix, r.PathValue("msg"))
	if e == nil {
		e = s.editLocked(m, r, body)
	}
	if e != nil {
		s.rejectLocked(ix, e)
		return 0, nil, e
	}
	kind := KindEditFollowup
	if original {
		kind = KindEditOriginal
	}
	s.recordLocked(ix, kind, m, payloadJSON(r.Header.Get("Content-Type"), body))
	return http.StatusOK, s.wireMessage(m), nil
}

// editLocked applies the edit in body to m, as Discord does: the payload
// is checked, attachments kept or added (see attachLocked), the loading
// flag cleared, and an edit that would leave the message empty is refused
// (m is then unchanged).
func (s *Server) editLocked(m *message, r *http.Request, body []byte) *apiError {
	var p messagePayload
	files, e := decodeMessage(r, body, &p, false)
	if e != nil {
		return e
	}
	next := *m
	if e := s.attachLocked(&next, &p, files); e != nil {
		return e
	}
	applyPayload(&next, &p, FlagSuppressEmbeds)
	next.Flags &^= FlagLoading
	tmp := messagePayload{Content: &next.Content, Components: &next.Components, Embeds: &next.Embeds, files: len(next.Attachments)}
	if !tmp.hasContent() {
		return &apiError{Status: http.StatusBadRequest, Code: CodeEmptyMessage, Message: "Cannot send an empty message"}
	}
	next.Edited = s.now()
	*m = next
	s.shownLocked(m)
	return nil
}

// recordLocked adds a response of kind showing m (as it is now) to the
// interaction's responses and wakes whoever waits for it.
func (s *Server) recordLocked(ix *interaction, kind Kind, m *message, body []byte) {
	snap := m.snapshot()
	ix.responses = append(ix.responses, Response{Kind: kind, Message: &snap, Data: body, At: s.now()})
	s.notifyLocked()
}

func (s *Server) restWebhookDelete(r *http.Request, _ []byte) (int, any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ix, e := s.webhookLocked(r)
	if e != nil {
		return 0, nil, e
	}
	m, original, e := s.webhookMessageLocked(ix, r.PathValue("msg"))
	if e != nil {
		s.rejectLocked(ix, e)
		return 0, nil, e
	}
	m.Deleted = true
	kind := KindDeleteFollowup
	if original {
		kind = KindDeleteOriginal
	}
	s.recordLocked(ix, kind, m, nil)
	return http.StatusNoContent, nil, nil
}
