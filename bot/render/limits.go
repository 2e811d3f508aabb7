package render

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
)

// Discord's message limits that CheckMessage enforces.
const (
	MaxContentLen     = 2000
	MaxButtonLabelLen = 80
	// A select menu's options, option labels and values, and placeholder.
	MaxSelectOptions     = 25
	MaxSelectOptionLen   = 100
	MaxSelectPlaceholder = 150
	MaxEmbeds            = 10
	MaxEmbedTitleLen     = 256
	MaxEmbedDescLen      = 4096
	MaxEmbedFields       = 25
	MaxEmbedFieldName    = 256
	MaxEmbedFieldValue   = 1024
	MaxEmbedFooterLen    = 2048
	MaxEmbedAuthorLen    = 256
	MaxEmbedTotalLen     = 6000
)

// CheckMessage reports every way d breaks Discord's limits: content over
// 2000 characters, more than 5 action rows or 5 buttons in a row, a
// component outside an action row, a select menu sharing its row or with
// too many or over-long options, a button without a label or emoji or
// with a label over 80 characters, a missing, over-long or repeated custom
// ID, and embeds over their limits. It returns nil for a valid message.
func CheckMessage(d *discordgo.InteractionResponseData) error {
	if d == nil {
		return fmt.Errorf("%w: no message", command.ErrLimit)
	}
	var errs []error
	bad := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{command.ErrLimit}, a...)...))
	}
	if n := utf8.RuneCountInString(d.Content); n > MaxContentLen {
		bad("content is %d characters, limit %d", n, MaxContentLen)
	}
	if len(d.Components) > command.MaxActionRows {
		bad("%d action rows, limit %d", len(d.Components), command.MaxActionRows)
	}
	ids := map[string]bool{}
	for i, c := range d.Components {
		row, ok := asRow(c)
		if !ok {
			bad("component %d is %T, not an action row", i, c)
			continue
		}
		if len(row.Components) == 0 || len(row.Components) > command.MaxRowButtons {
			bad("row %d has %d components, want 1 to %d", i, len(row.Components), command.MaxRowButtons)
		}
		for j, c := range row.Components {
			if sm, ok := asSelect(c); ok {
				if len(row.Components) != 1 {
					bad("row %d holds a select menu and %d other components; a select menu needs a row of its own", i, len(row.Components)-1)
				}
				if n := len(sm.Options); n == 0 || n > MaxSelectOptions {
					bad("select %d has %d options, want 1 to %d", i, n, MaxSelectOptions)
				}
				if n := utf8.RuneCountInString(sm.Placeholder); n > MaxSelectPlaceholder {
					bad("select %d placeholder is %d characters, limit %d", i, n, MaxSelectPlaceholder)
				}
				for k, o := range sm.Options {
					if n := utf8.RuneCountInString(o.Label); n == 0 || n > MaxSelectOptionLen || len(o.Value) == 0 || len(o.Value) > MaxSelectOptionLen {
						bad("select %d option %d: label of %d characters and value of %d bytes, want 1 to %d", i, k, n, len(o.Value), MaxSelectOptionLen)
					}
				}
				switch {
				case sm.CustomID == "" || len(sm.CustomID) > customid.MaxCustomIDLen:
					bad("select %d custom ID is %d characters, want 1 to %d", i, len(sm.CustomID), customid.MaxCustomIDLen)
				case ids[sm.CustomID]:
					bad("select %d repeats custom ID %q", i, sm.CustomID)
				}
				ids[sm.CustomID] = true
				continue
			}
			b, ok := asButton(c)
			if !ok {
				bad("row %d component %d is %T, not a button or a select menu", i, j, c)
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
			case len(b.CustomID) > customid.MaxCustomIDLen:
				bad("button %d.%d custom ID is %d characters, limit %d", i, j, len(b.CustomID), customid.MaxCustomIDLen)
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

func asSelect(c discordgo.MessageComponent) (discordgo.SelectMenu, bool) {
	switch m := c.(type) {
	case discordgo.SelectMenu:
		return m, true
	case *discordgo.SelectMenu:
		return *m, m != nil
	}
	return discordgo.SelectMenu{}, false
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
