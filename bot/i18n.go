package bot

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// DefaultLocale is the locale of the canonical texts and the fallback for
// locales the catalog does not have.
const DefaultLocale = discordgo.EnglishUS

// ErrLocale reports locale data that is malformed or incomplete: a file
// that does not parse, a key missing from a locale or present only there,
// or a text whose placeholders differ from the default locale's.
var ErrLocale = errors.New("bot: bad locale data")

//go:embed locales/*.json
var localeFiles embed.FS

// Catalog holds the localised texts, one table per Discord locale, each
// with exactly the keys and placeholders of DefaultLocale (NewCatalog
// checks). Texts name their placeholders in braces, like "{player}". A
// Catalog is immutable and safe for concurrent use; build it once.
type Catalog struct {
	texts   map[discordgo.Locale]map[string]string
	locales []discordgo.Locale // sorted, DefaultLocale first
}

// NewCatalog returns the catalog of the embedded locales (locales/*.json:
// en-US, pt-BR and el). It fails with ErrLocale if they are incomplete.
func NewCatalog() (*Catalog, error) {
	return newCatalogFS(localeFiles, "locales")
}

// newCatalogFS reads every <locale>.json in dir of fsys and checks that
// all locales carry the keys and placeholders of DefaultLocale.
func newCatalogFS(fsys fs.FS, dir string) (*Catalog, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrLocale, err)
	}
	c := &Catalog{texts: map[discordgo.Locale]map[string]string{}}
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrLocale, err)
		}
		var m map[string]string
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrLocale, name, err)
		}
		loc := discordgo.Locale(strings.TrimSuffix(path.Base(name), ".json"))
		c.texts[loc] = m
		c.locales = append(c.locales, loc)
	}
	base, ok := c.texts[DefaultLocale]
	if !ok {
		return nil, fmt.Errorf("%w: no %s texts", ErrLocale, string(DefaultLocale))
	}
	slices.SortFunc(c.locales, func(a, b discordgo.Locale) int {
		switch {
		case a == b:
			return 0
		case a == DefaultLocale:
			return -1
		case b == DefaultLocale:
			return 1
		}
		return strings.Compare(string(a), string(b))
	})
	var problems []string
	for _, loc := range c.locales {
		problems = append(problems, compareLocale(loc, base, c.texts[loc])...)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrLocale, strings.Join(problems, "; "))
	}
	return c, nil
}

// compareLocale lists how texts differ from base in keys and placeholders.
func compareLocale(loc discordgo.Locale, base, texts map[string]string) []string {
	var out []string
	for _, k := range sortedKeys(base) {
		t, ok := texts[k]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s: missing %q", string(loc), k))
		case strings.TrimSpace(t) == "":
			out = append(out, fmt.Sprintf("%s: %q is empty", string(loc), k))
		case !slices.Equal(Placeholders(t), Placeholders(base[k])):
			out = append(out, fmt.Sprintf("%s: %q has placeholders %v, want %v", string(loc), k, Placeholders(t), Placeholders(base[k])))
		}
	}
	for _, k := range sortedKeys(texts) {
		if _, ok := base[k]; !ok {
			out = append(out, fmt.Sprintf("%s: %q is not in %s", string(loc), k, string(DefaultLocale)))
		}
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Placeholders returns the distinct placeholder names of a text, sorted:
// "{b} and {a} and {b}" gives [a b]. A placeholder is a brace-enclosed run
// of lower-case ASCII letters, digits and underscores.
func Placeholders(text string) []string {
	var out []string
	for rest := text; ; {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			break
		}
		rest = rest[i+1:]
		j := strings.IndexByte(rest, '}')
		if j < 0 {
			break
		}
		if name := rest[:j]; placeholderName(name) {
			out = append(out, name)
			rest = rest[j+1:]
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func placeholderName(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// Locales returns the catalog's locales, DefaultLocale first.
func (c *Catalog) Locales() []discordgo.Locale { return slices.Clone(c.locales) }

// Keys returns every message key, sorted.
func (c *Catalog) Keys() []string { return sortedKeys(c.texts[DefaultLocale]) }

// Has reports whether key names a text.
func (c *Catalog) Has(key string) bool {
	_, ok := c.texts[DefaultLocale][key]
	return ok
}

// Resolve returns the catalog locale used for a Discord locale: the locale
// itself, else one of the same language ("en-GB" reads en-US, "pt" pt-BR),
// else DefaultLocale.
func (c *Catalog) Resolve(loc discordgo.Locale) discordgo.Locale {
	if _, ok := c.texts[loc]; ok {
		return loc
	}
	lang, _, _ := strings.Cut(string(loc), "-")
	for _, l := range c.locales {
		if l2, _, _ := strings.Cut(string(l), "-"); strings.EqualFold(l2, lang) {
			return l
		}
	}
	return DefaultLocale
}

// Text returns the text of key in loc with its placeholders filled in from
// vars, given as name, value pairs: Text(loc, "result.win", "mark", "❌",
// "player", "<@1>"). Values are inserted as they are, never re-expanded;
// placeholders without a value stay as written. An unknown key returns the
// key in double brackets, "[[key]]", so a missing text shows in tests.
func (c *Catalog) Text(loc discordgo.Locale, key string, vars ...string) string {
	t, ok := c.texts[c.Resolve(loc)][key]
	if !ok {
		return "[[" + key + "]]"
	}
	if len(vars) < 2 || !strings.Contains(t, "{") {
		return t
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(t, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(t[i:], '}')
		if j < 0 {
			break
		}
		b.WriteString(t[:i])
		name, val := t[i+1:i+j], t[i:i+j+1]
		for v := 0; v+1 < len(vars); v += 2 {
			if vars[v] == name {
				val = vars[v+1]
				break
			}
		}
		b.WriteString(val)
		t = t[i+j+1:]
	}
	b.WriteString(t)
	return b.String()
}

// Localizations returns the text of key in every locale but DefaultLocale,
// as the name and description localisations of an application command
// want them.
func (c *Catalog) Localizations(key string) map[discordgo.Locale]string {
	out := map[discordgo.Locale]string{}
	for _, l := range c.locales {
		if l != DefaultLocale {
			out[l] = c.Text(l, key)
		}
	}
	return out
}

// UserError is an error meant for the user: a message key with its
// placeholder values, shown in the user's locale by Catalog.Error. Err,
// if set, is the underlying cause, for logs only.
type UserError struct {
	// Key is the catalog key of the message.
	Key string
	// Vars are the placeholder values as name, value pairs.
	Vars []string
	// Option, if set, is the canonical name of the command option at
	// fault; Catalog.Error fills the {option} placeholder with its name in
	// the user's locale.
	Option string
	// Err is the cause, if any; it is logged, never shown.
	Err error
}

// Error returns the key and values, for logs.
func (e *UserError) Error() string {
	s := "bot: " + e.Key
	if e.Option != "" {
		s += " (option " + e.Option + ")"
	}
	if len(e.Vars) > 0 {
		s += " " + fmt.Sprint(e.Vars)
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *UserError) Unwrap() error { return e.Err }

// userErr builds a *UserError.
func userErr(key string, vars ...string) *UserError { return &UserError{Key: key, Vars: vars} }

// ErrorKey returns the message key for err: the key of a *UserError in
// err's chain, the reply for a known sentinel of this package, game or
// persistence (a forged button, a taken cell, a finished game, a lost
// compare-and-set, ...), or KeyInternal for anything else.
func ErrorKey(err error) string {
	var ue *UserError
	switch {
	case errors.As(err, &ue):
		return ue.Key
	case errors.Is(err, ErrMalformedCustomID), errors.Is(err, ErrForgedCustomID):
		return KeyInvalidButton
	case errors.Is(err, game.ErrCellTaken):
		return KeyCellTaken
	case errors.Is(err, persistence.ErrTimedOut), errors.Is(err, persistence.ErrNotFound):
		return KeyExpired
	case errors.Is(err, game.ErrGameOver), errors.Is(err, persistence.ErrNotLive):
		return KeyGameOver
	case errors.Is(err, persistence.ErrNotYourTurn):
		return KeyNotYourTurn
	case errors.Is(err, persistence.ErrConflict):
		return KeyBoardChanged
	case errors.Is(err, persistence.ErrBusy):
		return KeyBusy
	case errors.Is(err, ai.ErrNoModel):
		return KeyNoModel
	}
	return KeyInternal
}

// Error returns the message to show a user for err in loc: the text of a
// *UserError in err's chain or of a known sentinel (see ErrorKey), or a
// short generic "something went wrong" for anything else (internal
// details are for logs, never for users).
func (c *Catalog) Error(loc discordgo.Locale, err error) string {
	var ue *UserError
	if errors.As(err, &ue) && c.Has(ue.Key) {
		vars := ue.Vars
		if ue.Option != "" {
			name := ue.Option
			if key := "opt." + name + ".name"; c.Has(key) {
				name = c.Text(loc, key)
			}
			vars = append(slices.Clone(vars), "option", name)
		}
		return c.Text(loc, ue.Key, vars...)
	}
	if key := ErrorKey(err); c.Has(key) && !errors.As(err, &ue) {
		return c.Text(loc, key)
	}
	return c.Text(loc, KeyInternal)
}
