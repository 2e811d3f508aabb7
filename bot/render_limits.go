package bot

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
)

// Discord's message limits that CheckMessage enforces.
const (
	MaxContentLen      = 2000
	MaxButtonLabelLen  = 80
	MaxEmbeds          = 10
	MaxEmbedTitleLen   = 256
	MaxEmbedDescLen    = 4096
	MaxEmbedFields     = 25
	MaxEmbedFieldName  = 256
	MaxEmbedFieldValue = 1024
	MaxEmbedFooterLen  = 2048
	MaxEmbedAuthorLen  = 256
	MaxEmbedTotalLen   = 6000
)

// ErrLimit reports a message or command definition that Discord would
// refuse.
var ErrLimit = errors.New("bot: over a Discord limit")

// CheckMessage reports every way d breaks Discord's limits: content over
// 2000 characters, more than 5 action rows or 5 buttons in a row, a
// component outside an action row, a button without a label or emoji or
// with a label over 80 characters, a missing, over-long or repeated custom
// ID, and embeds over their limits. It returns nil for a valid message.
func CheckMessage(d *discordgo.InteractionResponseData) error {
	if d == nil {
		return fmt.Errorf("%w: no message", ErrLimit)
	}
	var errs []error
	bad := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrLimit}, a...)...))
	}
	if n := utf8.RuneCountInString(d.Content); n > MaxContentLen {
		bad("content is %d characters, limit %d", n, MaxContentLen)
	}
	if len(d.Components) > MaxActionRows {
		bad("%d action rows, limit %d", len(d.Components), MaxActionRows)
	}
	ids := map[string]bool{}
	for i, c := range d.Components {
		row, ok := asRow(c)
		if !ok {
			bad("component %d is %T, not an action row", i, c)
			continue
		}
		if len(row.Components) == 0 || len(row.Components) > MaxRowButtons {
			bad("row %d has %d components, want 1 to %d", i, len(row.Components), MaxRowButtons)
		}
		for j, c := range row.Components {
			b, ok := asButton(c)
			if !ok {
				bad("row %d component %d is %T, not a button", i, j, c)
				continue
			}
			if b.Label == "" && b.Emoji == nil {
				bad("button %d.%d has neither label nor emoji", i, j)
			}
			if n := utf8.RuneCountInString(b.Label); n > MaxButtonLabelLen {
				bad("button %d.%d label is %d characters, limit %d", i, j, n, MaxButtonLabelLen)
			}
			if b.Style == discordgo.LinkButton {
				continue
			}
			switch {
			case b.CustomID == "":
				bad("button %d.%d has no custom ID", i, j)
			case len(b.CustomID) > MaxCustomIDLen:
				bad("button %d.%d custom ID is %d characters, limit %d", i, j, len(b.CustomID), MaxCustomIDLen)
			case ids[b.CustomID]:
				bad("button %d.%d repeats custom ID %q", i, j, b.CustomID)
			}
			ids[b.CustomID] = true
		}
	}
	if len(d.Embeds) > MaxEmbeds {
		bad("%d embeds, limit %d", len(d.Embeds), MaxEmbeds)
	}
	total := 0
	for i, e := range d.Embeds {
		if e == nil {
			bad("embed %d is nil", i)
			continue
		}
		check := func(what, s string, limit int) {
			n := utf8.RuneCountInString(s)
			total += n
			if n > limit {
				bad("embed %d %s is %d characters, limit %d", i, what, n, limit)
			}
		}
		check("title", e.Title, MaxEmbedTitleLen)
		check("description", e.Description, MaxEmbedDescLen)
		if e.Footer != nil {
			check("footer", e.Footer.Text, MaxEmbedFooterLen)
		}
		if e.Author != nil {
			check("author", e.Author.Name, MaxEmbedAuthorLen)
		}
		if len(e.Fields) > MaxEmbedFields {
			bad("embed %d has %d fields, limit %d", i, len(e.Fields), MaxEmbedFields)
		}
		for _, f := range e.Fields {
			check("field name", f.Name, MaxEmbedFieldName)
			check("field value", f.Value, MaxEmbedFieldValue)
		}
	}
	if total > MaxEmbedTotalLen {
		bad("embeds total %d characters, limit %d", total, MaxEmbedTotalLen)
	}
	return errors.Join(errs...)
}

func asRow(c discordgo.MessageComponent) (discordgo.ActionsRow, bool) {
	switch r := c.(type) {
	case discordgo.ActionsRow:
		return r, true
	case *discordgo.ActionsRow:
		return *r, r != nil
	}
	return discordgo.ActionsRow{}, false
}

func asButton(c discordgo.MessageComponent) (discordgo.Button, bool) {
	switch b := c.(type) {
	case discordgo.Button:
		return b, true
	case *discordgo.Button:
		return *b, b != nil
	}
	return discordgo.Button{}, false
}
