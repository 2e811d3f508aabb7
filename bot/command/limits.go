package command

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/ttt-bot/game"
)

// Limits of a board drawn as buttons: a message holds at most
// MaxActionRows rows of MaxRowButtons buttons.
const (
	MaxActionRows = 5
	MaxRowButtons = 5
)

// FitsButtons reports whether a board of r can be drawn as one button per
// cell: at most MaxActionRows rows and MaxRowButtons columns.
func FitsButtons(r game.Rules) bool {
	return r.Valid() && r.Rows() <= MaxActionRows && r.Cols() <= MaxRowButtons
}

// ErrLimit reports a message or command definition that Discord would
// refuse.
var ErrLimit = errors.New("bot: over a Discord limit")

// Discord's limits on application-command definitions.
const (
	MaxCommandNameLen = 32
	MaxCommandDescLen = 100
	MaxCommandOptions = 25
	MaxOptionChoices  = 25
	MaxChoiceNameLen  = 100
	// MaxCommandTotalSize bounds the characters of a command's names,
	// descriptions and choice names and values, each counted with its
	// longest localisation (Discord's rule).
	MaxCommandTotalSize = 8000
)

// commandNameRE is Discord's rule for command, option and their localised
// names: letters and digits of any script, the Devanagari and Thai
// scripts whole (their vowel signs are marks, not letters), "-" and "_".
// (Discord also allows an apostrophe; we do not use one.)
var commandNameRE = regexp.MustCompile(`^[-_\p{L}\p{N}\p{Devanagari}\p{Thai}]{1,32}$`)

// ValidName reports whether n is a name Discord takes for a command or an
// option (or a localisation of one): 1 to 32 lower-case letters, digits,
// "-" or "_".
func ValidName(n string) bool { return commandNameRE.MatchString(n) && strings.ToLower(n) == n }

// CheckCommands reports every way cmds break Discord's rules: names not
// lower case or not matching Discord's name pattern (localised ones too),
// empty or over-long descriptions, more than 25 options or choices,
// required options after optional ones, repeated names on one level (in
// any locale), and a command over 8000 characters counting each text's
// longest localisation.
func CheckCommands(cmds []*discordgo.ApplicationCommand) error {
	var c commandChecker
	names := map[string]bool{}
	for _, cmd := range cmds {
		c.checkName("/"+cmd.Name, cmd.Name)
		if names[cmd.Name] {
			c.bad("/%s: repeated command", cmd.Name)
		}
		names[cmd.Name] = true
		c.checkDesc("/"+cmd.Name, cmd.Description)
		if cmd.DescriptionLocalizations != nil {
			for l, d := range *cmd.DescriptionLocalizations {
				c.checkDesc("/"+cmd.Name+" ["+string(l)+"]", d)
			}
		}
		c.checkOptions("/"+cmd.Name, cmd.Options)
		if n := commandSize(cmd); n > MaxCommandTotalSize {
			c.bad("/%s: %d characters counting each text's longest localisation, limit %d", cmd.Name, n, MaxCommandTotalSize)
		}
	}
	return errors.Join(c.errs...)
}

// commandChecker gathers the broken limits CheckCommands finds, in the
// order it finds them.
type commandChecker struct{ errs []error }

// bad records a broken limit, wrapping ErrLimit.
func (c *commandChecker) bad(format string, a ...any) {
	c.errs = append(c.errs, fmt.Errorf("%w: "+format, append([]any{ErrLimit}, a...)...))
}

// checkName records n if it is not a valid command or option name.
func (c *commandChecker) checkName(where, n string) {
	if !ValidName(n) {
		c.bad("%s: name %q", where, n)
	}
}

// checkDesc records d if it is empty or over MaxCommandDescLen characters.
func (c *commandChecker) checkDesc(where, d string) {
	if n := utf8.RuneCountInString(d); n == 0 || n > MaxCommandDescLen {
		c.bad("%s: description is %d characters, want 1 to %d", where, n, MaxCommandDescLen)
	}
}

// checkOptions checks one level of options under where: their number,
// names and descriptions in every locale, names repeated on the level,
// required options after optional ones and choices; then each option's
// own options.
func (c *commandChecker) checkOptions(where string, opts []*discordgo.ApplicationCommandOption) {
	if len(opts) > MaxCommandOptions {
		c.bad("%s: %d options, limit %d", where, len(opts), MaxCommandOptions)
	}
	seen := map[string]bool{}
	optional := false
	for _, o := range opts {
		w := where + " " + o.Name
		c.checkName(w, o.Name)
		c.checkDesc(w, o.Description)
		if seen["|"+o.Name] {
			c.bad("%s: repeated name", w)
		}
		seen["|"+o.Name] = true
		for l, n := range o.NameLocalizations {
			c.checkName(w+" ["+string(l)+"]", n)
			if seen[string(l)+"|"+n] {
				c.bad("%s: repeated %s name %q", w, string(l), n)
			}
			seen[string(l)+"|"+n] = true
		}
		for l, d := range o.DescriptionLocalizations {
			c.checkDesc(w+" ["+string(l)+"]", d)
		}
		if o.Required && optional {
			c.bad("%s: required option after an optional one", w)
		}
		optional = optional || !o.Required
		c.checkChoices(w, o.Choices)
		c.checkOptions(w, o.Options)
	}
}

// checkChoices checks an option's choices: at most MaxOptionChoices, each
// name (and localised name) 1 to MaxChoiceNameLen characters.
func (c *commandChecker) checkChoices(w string, choices []*discordgo.ApplicationCommandOptionChoice) {
	if len(choices) > MaxOptionChoices {
		c.bad("%s: %d choices, limit %d", w, len(choices), MaxOptionChoices)
	}
	for _, ch := range choices {
		if n := utf8.RuneCountInString(ch.Name); n == 0 || n > MaxChoiceNameLen {
			c.bad("%s: choice %q name length %d", w, ch.Name, n)
		}
		for l, n := range ch.NameLocalizations {
			if k := utf8.RuneCountInString(n); k == 0 || k > MaxChoiceNameLen {
				c.bad("%s: choice %q [%s] name length %d", w, ch.Name, l, k)
			}
		}
	}
}

// commandSize counts the characters of c's names, descriptions and choice
// names and values as Discord does: each text counts with its longest
// version, the default or a localisation.
func commandSize(c *discordgo.ApplicationCommand) int {
	longest := func(def string, m map[discordgo.Locale]string) int {
		n := utf8.RuneCountInString(def)
		for _, s := range m {
			n = max(n, utf8.RuneCountInString(s))
		}
		return n
	}
	var descs, names map[discordgo.Locale]string
	if c.DescriptionLocalizations != nil {
		descs = *c.DescriptionLocalizations
	}
	if c.NameLocalizations != nil {
		names = *c.NameLocalizations
	}
	n := longest(c.Name, names) + longest(c.Description, descs)
	var walk func(opts []*discordgo.ApplicationCommandOption)
	walk = func(opts []*discordgo.ApplicationCommandOption) {
		for _, o := range opts {
			n += longest(o.Name, o.NameLocalizations) + longest(o.Description, o.DescriptionLocalizations)
			for _, ch := range o.Choices {
				n += longest(ch.Name, ch.NameLocalizations) + utf8.RuneCountInString(fmt.Sprint(ch.Value))
			}
			walk(o.Options)
		}
	}
	walk(c.Options)
	return n
}
