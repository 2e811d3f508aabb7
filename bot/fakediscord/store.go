package fakediscord

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/bwmarrin/discordgo"
)

// Message flags the fake understands.
const (
	FlagSuppressEmbeds = 1 << 2
	FlagEphemeral      = 1 << 6
	FlagLoading        = 1 << 7
	FlagSuppressNotify = 1 << 12
)

// Component is one message component as a user sees it (a button, a select
// menu, a text input, or an action row holding others).
type Component struct {
	Type        int            // 1 row, 2 button, 3 string select, 4 text input, ...
	Style       int            // button style (1 primary ... 5 link)
	CustomID    string         // developer-defined ID sent back on click
	Label       string         // visible text
	Emoji       string         // emoji name, if any
	URL         string         // link buttons only
	Disabled    bool           // greyed out, cannot be clicked
	Placeholder string         // select menus and text inputs
	Options     []SelectOption // string select menus
	Components  []Component    // children of an action row
}

// SelectOption is one choice of a string select menu.
type SelectOption struct {
	Label   string `json:"label"`
	Value   string `json:"value"`
	Default bool   `json:"default,omitempty"`
}

// Message is a snapshot of a message as the fake holds it.
type Message struct {
	ID          string
	ChannelID   string
	GuildID     string
	Content     string
	Rows        []Component // top-level action rows
	Embeds      []*discordgo.MessageEmbed
	Attachments []Attachment // files uploaded with the message or its edits
	Flags       int
	// AllowedMentions is whom the last create or edit let the message
	// ping (nil if it did not say: Discord's default, everyone named).
	// Discord does not show it in messages; the fake keeps it for tests.
	AllowedMentions *discordgo.MessageAllowedMentions
	Ephemeral       bool   // only VisibleTo can see it
	VisibleTo       string // user ID for ephemeral messages
	Loading         bool   // a deferred "is thinking..." placeholder not yet edited
	InteractionID   string // the interaction this message answers, if any
	// Nonce is the nonce the message was posted with (channel posts).
	Nonce   string
	Created time.Time
	Edited  time.Time // zero if never edited
	Deleted bool
}

// Buttons returns every component inside the message's rows, in order.
func (m Message) Buttons() []Component {
	var out []Component
	for _, r := range m.Rows {
		out = append(out, r.Components...)
	}
	return out
}

// Component returns the component with the given custom ID.
func (m Message) Component(customID string) (Component, bool) {
	for _, c := range m.Buttons() {
		if c.CustomID == customID {
			return c, true
		}
	}
	return Component{}, false
}

// message is the fake's mutable record of a message.
type message struct {
	ID, ChannelID, GuildID string
	Content                string
	Components             json.RawMessage
	Embeds                 json.RawMessage
	Attachments            []Attachment
	Flags                  int
	AllowedMentions        *discordgo.MessageAllowedMentions
	VisibleTo              string
	InteractionID          string
	Nonce                  string
	InteractionType        int
	InteractionName        string
	InteractionUser        string
	Created, Edited        time.Time
	Deleted                bool
}

// wireComponent is a component as it travels in JSON.
type wireComponent struct {
	Type        int             `json:"type"`
	Style       int             `json:"style,omitempty"`
	CustomID    string          `json:"custom_id,omitempty"`
	Label       string          `json:"label,omitempty"`
	URL         string          `json:"url,omitempty"`
	Disabled    bool            `json:"disabled,omitempty"`
	Emoji       *wireEmoji      `json:"emoji,omitempty"`
	Placeholder string          `json:"placeholder,omitempty"`
	Options     []SelectOption  `json:"options,omitempty"`
	MinValues   *int            `json:"min_values,omitempty"`
	MaxValues   int             `json:"max_values,omitempty"`
	Value       string          `json:"value,omitempty"`
	Components  []wireComponent `json:"components,omitempty"`
}

// wireEmoji is a component emoji as it travels in JSON.
type wireEmoji struct {
	ID   string `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
}

func (w wireComponent) component() Component {
	c := Component{Type: w.Type, Style: w.Style, CustomID: w.CustomID, Label: w.Label, URL: w.URL,
		Disabled: w.Disabled, Placeholder: w.Placeholder, Options: w.Options}
	if w.Emoji != nil {
		c.Emoji = w.Emoji.Name
	}
	for _, ch := range w.Components {
		c.Components = append(c.Components, ch.component())
	}
	return c
}

// snapshot converts the record for tests; s.mu must be held by the caller.
func (m *message) snapshot() Message {
	out := Message{ID: m.ID, ChannelID: m.ChannelID, GuildID: m.GuildID, Content: m.Content, Flags: m.Flags,
		Ephemeral: m.Flags&FlagEphemeral != 0, VisibleTo: m.VisibleTo, Loading: m.Flags&FlagLoading != 0,
		InteractionID: m.InteractionID, Nonce: m.Nonce, Created: m.Created, Edited: m.Edited, Deleted: m.Deleted}
	if m.AllowedMentions != nil {
		am := *m.AllowedMentions
		am.Parse, am.Roles, am.Users = slices.Clone(am.Parse), slices.Clone(am.Roles), slices.Clone(am.Users)
		out.AllowedMentions = &am
	}
	var rows []wireComponent
	if len(m.Components) > 0 && json.Unmarshal(m.Components, &rows) == nil {
		for _, r := range rows {
			out.Rows = append(out.Rows, r.component())
		}
	}
	if len(m.Embeds) > 0 {
		_ = json.Unmarshal(m.Embeds, &out.Embeds) // validated on the way in
	}
	for _, a := range m.Attachments {
		a.Data = bytes.Clone(a.Data)
		out.Attachments = append(out.Attachments, a)
	}
	return out
}

// wire renders the message as Discord's REST API and gateway show it.
func (s *Server) wireMessage(m *message) map[string]any {
	w := map[string]any{
		"id": m.ID, "channel_id": m.ChannelID, "content": m.Content, "flags": m.Flags,
		"author":           map[string]any{"id": s.opts.AppID, "username": s.opts.BotName, "discriminator": "0", "bot": true},
		"timestamp":        m.Created.UTC().Format(time.RFC3339Nano),
		"edited_timestamp": nil, "tts": false, "mention_everyone": false, "mentions": []any{},
		"attachments": wireAttachments(m), "pinned": false, "type": 0, "application_id": s.opts.AppID,
		"components": rawOr(m.Components), "embeds": rawOr(m.Embeds),
	}
	if m.GuildID != "" {
		w["guild_id"] = m.GuildID
	}
	if !m.Edited.IsZero() {
		w["edited_timestamp"] = m.Edited.UTC().Format(time.RFC3339Nano)
	}
	if m.InteractionID != "" {
		w["webhook_id"] = s.opts.AppID
		w["interaction"] = map[string]any{"id": m.InteractionID, "type": m.InteractionType, "name": m.InteractionName,
			"user": map[string]any{"id": m.InteractionUser, "username": "user" + m.InteractionUser}}
		if m.InteractionType == interactionCommand {
			w["type"] = 20
		}
	}
	return w
}

func rawOr(r json.RawMessage) any {
	if len(r) == 0 || string(r) == "null" {
		return []any{}
	}
	return r
}

// addMessageLocked stores a new message; s.mu must be held.
func (s *Server) addMessageLocked(m *message) {
	m.ID = s.newIDLocked()
	m.Created = s.now()
	if m.GuildID != "" {
		s.channelGuild[m.ChannelID] = m.GuildID
	}
	s.messages[m.ID] = m
	s.channels[m.ChannelID] = append(s.channels[m.ChannelID], m)
	s.shownLocked(m)
}

// shownLocked records m as it is now in its history (with
// Options.History); s.mu must be held.
func (s *Server) shownLocked(m *message) {
	if !s.opts.History {
		return
	}
	if s.history == nil {
		s.history = map[string][]message{}
	}
	s.history[m.ID] = append(s.history[m.ID], *m)
}

// History returns every state message id was shown in, oldest first:
// as it was created, then after each edit (its Edited says when). It is
// empty unless the Server was made with Options.History.
func (s *Server) History(id string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Message, 0, len(s.history[id]))
	for _, m := range s.history[id] {
		out = append(out, m.snapshot())
	}
	return out
}

// PostMessage stores a message as if the bot had posted it to the channel
// earlier (for example a board from before a restart), and returns it.
// components is the JSON array of action rows; it may be nil.
func (s *Server) PostMessage(guildID, channelID, content string, components json.RawMessage) Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := &message{ChannelID: channelID, GuildID: guildID, Content: content, Components: components}
	s.addMessageLocked(m)
	s.notifyLocked()
	return m.snapshot()
}

// Messages returns the channel's messages that are not deleted, oldest first,
// including ephemeral ones (see Visible).
func (s *Server) Messages(channelID string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Message
	for _, m := range s.channels[channelID] {
		if !m.Deleted {
			out = append(out, m.snapshot())
		}
	}
	return out
}

// Visible returns what userID sees in the channel: non-deleted messages,
// ephemeral ones only if they are addressed to that user.
func (s *Server) Visible(channelID, userID string) []Message {
	var out []Message
	for _, m := range s.Messages(channelID) {
		if !m.Ephemeral || m.VisibleTo == userID {
			out = append(out, m)
		}
	}
	return out
}

// Message returns the message with the given ID, deleted or not.
func (s *Server) Message(id string) (Message, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.messages[id]
	if !ok {
		return Message{}, false
	}
	return m.snapshot(), true
}

// WaitMessage blocks until the channel holds a non-deleted message for which
// match returns true, and returns it. Use it for messages the bot posts or
// edits on its own, such as turn timeouts.
func (s *Server) WaitMessage(ctx context.Context, channelID string, match func(Message) bool) (Message, error) {
	var found Message
	err := s.waitFor(ctx, func() bool {
		for _, m := range s.channels[channelID] {
			if snap := m.snapshot(); !m.Deleted && match(snap) {
				found = snap
				return true
			}
		}
		return false
	})
	return found, err
}

// Commands returns the application commands registered for guildID, or the
// global ones when guildID is "", as the bot last wrote them.
func (s *Server) Commands(guildID string) []*discordgo.ApplicationCommand {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*discordgo.ApplicationCommand, 0, len(s.commands[guildID]))
	for _, c := range s.commands[guildID] {
		cp := *c
		out = append(out, &cp)
	}
	return out
}

// Call is one REST request the bot made.
type Call struct {
	Method string
	Path   string // without the /api/vN prefix, e.g. /interactions/1/tok/callback
	Query  string
	Body   []byte
	Status int
	At     time.Time
}

// Calls returns every REST request made so far, in order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}
