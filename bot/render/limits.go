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
	// MaxFiles is the most files a message carries.
	MaxFiles = 10
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
	c := messageChecker{ids: map[string]bool{}}
	if n := utf8.RuneCountInString(d.Content); n > MaxContentLen {
		c.bad("content is %d characters, limit %d", n, MaxContentLen)
	}
	if len(d.Components) > command.MaxActionRows {
		c.bad("%d action rows, limit %d", len(d.Components), command.MaxActionRows)
	}
	for i, comp := range d.Components {
		row, ok := asRow(comp)
		if !ok {
			c.bad("component %d is %T, not an action row", i, comp)
			continue
		}
		c.checkRow(i, row)
	}
	c.checkEmbeds(d.Embeds)
	if len(d.Files) > MaxFiles {
		c.bad("%d files, limit %d", len(d.Files), MaxFiles)
	}
	return errors.Join(c.errs...)
}

// messageChecker gathers the broken limits CheckMessage finds, in the
// order it finds them, and the custom IDs seen so far.
type messageChecker struct {
	errs []error
	ids  map[string]bool
}

// bad records a broken limit, wrapping command.ErrLimit.
func (c *messageChecker) bad(format string, a ...any) {
	c.errs = append(c.errs, fmt.Errorf("%w: "+format, append([]any{command.ErrLimit}, a...)...))
}

// checkRow checks action row i: its number of components and each of
// them, a select menu or a button.
func (c *messageChecker) checkRow(i int, row discordgo.ActionsRow) {
	if len(row.Components) == 0 || len(row.Components) > command.MaxRowButtons {
		c.bad("row %d has %d components, want 1 to %d", i, len(row.Components), command.MaxRowButtons)
	}
	for j, comp := range row.Components {
		if sm, ok := asSelect(comp); ok {
			c.checkSelect(i, len(row.Components), sm)
			continue
		}
		b, ok := asButton(comp)
		if !ok {
			c.bad("row %d component %d is %T, not a button or a select menu", i, j, comp)
			continue
		}
		c.checkButton(i, j, b)
	}
}

// checkSelect checks the select menu of row i, a row of rowLen
// components: alone in its row, its options, its placeholder and its
// custom ID.
func (c *messageChecker) checkSelect(i, rowLen int, sm discordgo.SelectMenu) {
	if rowLen != 1 {
		c.bad("row %d holds a select menu and %d other components; a select menu needs a row of its own", i, rowLen-1)
	}
	if n := len(sm.Options); n == 0 || n > MaxSelectOptions {
		c.bad("select %d has %d options, want 1 to %d", i, n, MaxSelectOptions)
	}
	if n := utf8.RuneCountInString(sm.Placeholder); n > MaxSelectPlaceholder {
		c.bad("select %d placeholder is %d characters, limit %d", i, n, MaxSelectPlaceholder)
	}
	for k, o := range sm.Options {
		if n := utf8.RuneCountInString(o.Label); n == 0 || n > MaxSelectOptionLen || len(o.Value) == 0 || len(o.Value) > MaxSelectOptionLen {
			c.bad("select %d option %d: label of %d characters and value of %d bytes, want 1 to %d", i, k, n, len(o.Value), MaxSelectOptionLen)
		}
		if n := utf8.RuneCountInString(o.Description); n > MaxSelectOptionLen {
			c.bad("select %d option %d: description of %d characters, limit %d", i, k, n, MaxSelectOptionLen)
		}
	}
	switch {
	case sm.CustomID == "" || len(sm.CustomID) > customid.MaxCustomIDLen:
		c.bad("select %d custom ID is %d characters, want 1 to %d", i, len(sm.CustomID), customid.MaxCustomIDLen)
	case c.ids[sm.CustomID]:
		c.bad("select %d repeats custom ID %q", i, sm.CustomID)
	}
	c.ids[sm.CustomID] = true
}

// checkButton checks button j of row i: a label or an emoji, the label's
// length and, unless it is a link, its custom ID.
func (c *messageChecker) checkButton(i, j int, b discordgo.Button) {
	if b.Label == "" && b.Emoji == nil {
		c.bad("button %d.%d has neither label nor emoji", i, j)
	}
	if n := utf8.RuneCountInString(b.Label); n > MaxButtonLabelLen {
		c.bad("button %d.%d label is %d characters, limit %d", i, j, n, MaxButtonLabelLen)
	}
	if b.Style == discordgo.LinkButton {
		return
	}
	switch {
	case b.CustomID == "":
		c.bad("button %d.%d has no custom ID", i, j)
	case len(b.CustomID) > customid.MaxCustomIDLen:
		c.bad("button %d.%d custom ID is %d characters, limit %d", i, j, len(b.CustomID), customid.MaxCustomIDLen)
	case c.ids[b.CustomID]:
		c.bad("button %d.%d repeats custom ID %q", i, j, b.CustomID)
	}
	c.ids[b.CustomID] = true
}

// checkEmbeds checks the embeds: their number, each one's texts and the
// characters of all of them together.
func (c *messageChecker) checkEmbeds(embeds []*discordgo.MessageEmbed) {
	if len(embeds) > MaxEmbeds {
		c.bad("%d embeds, limit %d", len(embeds), MaxEmbeds)
	}
	total := 0
	for i, e := range embeds {
		if e == nil {
			c.bad("embed %d is nil", i)
			continue
		}
		total += c.checkEmbed(i, e)
	}
	if total > MaxEmbedTotalLen {
		c.bad("embeds total %d characters, limit %d", total, MaxEmbedTotalLen)
	}
}

// checkEmbed checks embed i's title, description, footer, author and
// fields against their limits and returns its characters, which count
// towards the total.
func (c *messageChecker) checkEmbed(i int, e *discordgo.MessageEmbed) int {
	total := 0
	check := func(what, s string, limit int) {
		n := utf8.RuneCountInString(s)
		total += n
		if n > limit {
			c.bad("embed %d %s is %d characters, limit %d", i, what, n, limit)
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
		c.bad("embed %d has %d fields, limit %d", i, len(e.Fields), MaxEmbedFields)
	}
	for _, f := range e.Fields {
		check("field name", f.Name, MaxEmbedFieldName)
		check("field value", f.Value, MaxEmbedFieldValue)
	}
	return total
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
