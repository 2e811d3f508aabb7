// Package i18n holds the bot's texts in every language Discord speaks:
// one JSON catalog per locale (locales/*.json, embedded), their plural
// rules (CLDR, from golang.org/x/text), number and duration formats, and
// UserError, the one error type that carries a catalog key to the user.
package i18n

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"
	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/number"
)

// DefaultLocale is the locale of the canonical texts and the fallback for
// locales the catalog does not have.
const DefaultLocale = discordgo.EnglishUS

// ErrLocale reports locale data that is malformed or incomplete: a file
// that does not parse, a key missing from a locale or present only there,
// a text whose placeholders differ from the default locale's, or a plural
// text without the forms its language's CLDR rules need.
var ErrLocale = errors.New("i18n: bad locale data")

//go:embed locales/*.json
var localeFiles embed.FS

// DiscordLocales returns the 32 locales Discord's clients offer, in the
// order of Discord's documentation. The catalog ships every one of them.
func DiscordLocales() []discordgo.Locale { return slices.Clone(discordLocales) }

// discordLocales are DiscordLocales.
var discordLocales = []discordgo.Locale{
	Indonesian, discordgo.Danish, discordgo.German, discordgo.EnglishGB, discordgo.EnglishUS,
	discordgo.SpanishES, discordgo.SpanishLATAM, discordgo.French, discordgo.Croatian, discordgo.Italian,
	discordgo.Lithuanian, discordgo.Hungarian, discordgo.Dutch, discordgo.Norwegian, discordgo.Polish,
	discordgo.PortugueseBR, discordgo.Romanian, discordgo.Finnish, discordgo.Swedish, discordgo.Vietnamese,
	discordgo.Turkish, discordgo.Czech, discordgo.Greek, discordgo.Bulgarian, discordgo.Russian,
	discordgo.Ukrainian, discordgo.Hindi, discordgo.Thai, discordgo.ChineseCN, discordgo.Japanese,
	discordgo.ChineseTW, discordgo.Korean,
}

// Indonesian is Discord's locale for Indonesian, which discordgo v0.29.0
// does not name.
const Indonesian discordgo.Locale = "id"

// formNames are the CLDR plural categories as the locale files name them.
var formNames = map[plural.Form]string{
	plural.Zero: "zero", plural.One: "one", plural.Two: "two",
	plural.Few: "few", plural.Many: "many", plural.Other: "other",
}

// cldrOrder is the order CLDR lists plural categories in.
var cldrOrder = []plural.Form{plural.Zero, plural.One, plural.Two, plural.Few, plural.Many, plural.Other}

// entry is one text of a locale: plain, or one form per CLDR plural
// category of the locale's language.
type entry struct {
	text  string                 // the text; for a plural, its "other" form
	forms map[plural.Form]string // nil for a plain text
}

// localeData is one locale of a Catalog.
type localeData struct {
	entries  map[string]entry // every key, the fallback's included
	own      map[string]bool  // keys the locale's own file writes
	fallback discordgo.Locale // "" or the locale it reads the rest from
	same     map[string]bool  // keys intentionally the same as the default
	glossary map[string]string
	note     string
	tag      language.Tag
	forms    []plural.Form // the plural categories its integers use, Other included
	printer  *message.Printer
}

// Catalog holds the localised texts, one table per Discord locale, each
// with exactly the keys and placeholders of DefaultLocale (NewCatalog
// checks). Texts name their placeholders in braces, like "{player}". A
// text may instead be a set of CLDR plural forms ({"one": "{count} game",
// "other": "{count} games"}), chosen by Plural for a number that fills
// {count}. A locale file may read the keys it leaves out from another
// locale ("$fallback": "es-ES"). Numbers and durations are formatted for
// the locale (golang.org/x/text supplies CLDR's plural rules and number
// formats). A Catalog is immutable and safe for concurrent use; build it
// once.
type Catalog struct {
	locs    map[discordgo.Locale]*localeData
	locales []discordgo.Locale // sorted, DefaultLocale first
	matcher language.Matcher   // over locales' tags, in that order
}

// NewCatalog returns the catalog of the embedded locales (locales/*.json,
// one per Discord locale). It fails with ErrLocale if they are incomplete.
func NewCatalog() (*Catalog, error) {
	return newCatalogFS(localeFiles, "locales")
}

// newCatalogFS reads every <locale>.json in dir of fsys and checks that
// all locales carry the keys, kinds and placeholders of DefaultLocale and
// the plural forms their languages need.
func newCatalogFS(fsys fs.FS, dir string) (*Catalog, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrLocale, err)
	}
	c := &Catalog{locs: map[discordgo.Locale]*localeData{}}
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrLocale, err)
		}
		loc := discordgo.Locale(strings.TrimSuffix(path.Base(name), ".json"))
		ld, err := parseLocale(loc, b)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrLocale, name, err)
		}
		c.locs[loc] = ld
		c.locales = append(c.locales, loc)
	}
	base, ok := c.locs[DefaultLocale]
	if !ok {
		return nil, fmt.Errorf("%w: no %s texts", ErrLocale, string(DefaultLocale))
	}
	if base.fallback != "" {
		return nil, fmt.Errorf("%w: %s cannot have a fallback", ErrLocale, string(DefaultLocale))
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
	tags := make([]language.Tag, len(c.locales))
	for i, loc := range c.locales {
		tags[i] = c.locs[loc].tag
	}
	c.matcher = language.NewMatcher(tags)
	var problems []string
	for _, loc := range c.locales {
		if err := c.inherit(loc); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if len(problems) == 0 {
		for _, loc := range c.locales {
			problems = append(problems, compareLocale(loc, base, c.locs[loc])...)
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrLocale, strings.Join(problems, "; "))
	}
	return c, nil
}

// parseLocale reads one locale file: texts and plural objects by key, and
// the "$note", "$glossary", "$same" and "$fallback" fields.
func parseLocale(loc discordgo.Locale, b []byte) (*localeData, error) {
	tag, err := localeTag(loc)
	if err != nil {
		return nil, err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	ld := &localeData{entries: map[string]entry{}, own: map[string]bool{}, same: map[string]bool{},
		tag: tag, forms: pluralForms(tag), printer: message.NewPrinter(tag)}
	for k, v := range raw {
		var err error
		switch k {
		case "$note":
			err = json.Unmarshal(v, &ld.note)
		case "$glossary":
			err = json.Unmarshal(v, &ld.glossary)
		case "$fallback":
			err = json.Unmarshal(v, &ld.fallback)
		case "$same":
			var keys []string
			err = json.Unmarshal(v, &keys)
			for _, s := range keys {
				ld.same[s] = true
			}
		default:
			if strings.HasPrefix(k, "$") {
				return nil, fmt.Errorf("unknown field %q (the $ fields are $note, $glossary, $same and $fallback)", k)
			}
			var e entry
			if e, err = parseEntry(v); err == nil {
				ld.entries[k] = e
				ld.own[k] = true
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%q: %w", k, err)
		}
	}
	return ld, nil
}

// parseEntry reads a text or a plural object.
func parseEntry(v json.RawMessage) (entry, error) {
	var s string
	if err := json.Unmarshal(v, &s); err == nil {
		return entry{text: s}, nil
	}
	var m map[string]string
	if err := json.Unmarshal(v, &m); err != nil {
		return entry{}, errors.New("want a text or an object of plural forms")
	}
	e := entry{forms: map[plural.Form]string{}}
	for name, t := range m {
		f, ok := formByName(name)
		if !ok {
			return entry{}, fmt.Errorf("unknown plural form %q (the CLDR forms are zero, one, two, few, many, other)", name)
		}
		e.forms[f] = t
	}
	e.text = e.forms[plural.Other]
	return e, nil
}

func formByName(name string) (plural.Form, bool) {
	for f, n := range formNames {
		if n == name {
			return f, true
		}
	}
	return 0, false
}

// localeTag is the BCP 47 tag of a Discord locale: Discord's "no" is
// Norwegian Bokmål.
func localeTag(loc discordgo.Locale) (language.Tag, error) {
	if loc == discordgo.Norwegian {
		return language.MustParse("nb"), nil
	}
	tag, err := language.Parse(string(loc))
	if err != nil {
		return language.Und, fmt.Errorf("%q is not a locale: %w", string(loc), err)
	}
	return tag, nil
}

// pluralForms lists the plural categories the language of tag uses for
// whole numbers, in CLDR order, and "other", which every language has.
func pluralForms(tag language.Tag) []plural.Form {
	seen := map[plural.Form]bool{plural.Other: true}
	for n := range 2000 {
		seen[plural.Cardinal.MatchPlural(tag, n, 0, 0, 0, 0)] = true
	}
	for _, n := range []int{1_000_000, 2_000_000, 1_000_000_000} {
		seen[plural.Cardinal.MatchPlural(tag, n, 0, 0, 0, 0)] = true
	}
	var out []plural.Form
	for _, f := range cldrOrder {
		if seen[f] {
			out = append(out, f)
		}
	}
	return out
}

// inherit fills a locale's missing keys from its fallback.
func (c *Catalog) inherit(loc discordgo.Locale) error {
	ld := c.locs[loc]
	seen := map[discordgo.Locale]bool{loc: true}
	for fb := ld.fallback; fb != ""; fb = c.locs[fb].fallback {
		src, ok := c.locs[fb]
		switch {
		case !ok:
			return fmt.Errorf("%s: the fallback %q is not a locale of the catalog", string(loc), string(fb))
		case seen[fb]:
			return fmt.Errorf("%s: the fallbacks go round in a circle", string(loc))
		}
		seen[fb] = true
		for k, e := range src.entries {
			if _, ok := ld.entries[k]; !ok {
				ld.entries[k] = e
			}
		}
	}
	return nil
}

// compareLocale lists how a locale differs from base: missing, extra or
// empty keys, a plain text where base has plural forms or the other way
// round, plural forms that are not the language's, and placeholders that
// differ from base's (in every form).
func compareLocale(loc discordgo.Locale, base, ld *localeData) []string {
	var out []string
	bad := func(format string, a ...any) { out = append(out, string(loc)+": "+fmt.Sprintf(format, a...)) }
	for _, k := range sortedKeys(base.entries) {
		e, ok := ld.entries[k]
		b := base.entries[k]
		want := Placeholders(b.text)
		switch {
		case !ok:
			bad("missing %q", k)
			continue
		case (e.forms == nil) != (b.forms == nil):
			if b.forms == nil {
				bad("%q must be a text, not plural forms", k)
			} else {
				bad("%q must be plural forms (%s), not a text", k, formList(ld.forms))
			}
			continue
		}
		if e.forms == nil {
			if strings.TrimSpace(e.text) == "" {
				bad("%q is empty", k)
			} else if got := Placeholders(e.text); !slices.Equal(got, want) {
				bad("%q has placeholders %v, want %v", k, got, want)
			}
			continue
		}
		var got []plural.Form
		for _, f := range cldrOrder {
			if _, ok := e.forms[f]; ok {
				got = append(got, f)
			}
		}
		if !slices.Equal(got, ld.forms) {
			bad("%q has plural forms %s, want %s", k, formList(got), formList(ld.forms))
		}
		for _, f := range got {
			t := e.forms[f]
			if strings.TrimSpace(t) == "" {
				bad("%q (%s) is empty", k, formNames[f])
			} else if p := Placeholders(t); !slices.Equal(p, want) {
				bad("%q (%s) has placeholders %v, want %v", k, formNames[f], p, want)
			}
		}
	}
	for _, k := range sortedKeys(ld.entries) {
		if _, ok := base.entries[k]; !ok {
			bad("%q is not in %s", k, string(DefaultLocale))
		}
	}
	for _, k := range sortedKeys(ld.same) {
		if _, ok := base.entries[k]; !ok {
			bad("$same lists %q, which is not a key", k)
		}
	}
	return out
}

func formList(forms []plural.Form) string {
	names := make([]string, len(forms))
	for i, f := range forms {
		names[i] = formNames[f]
	}
	return strings.Join(names, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
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
func (c *Catalog) Keys() []string { return sortedKeys(c.locs[DefaultLocale].entries) }

// Has reports whether key names a text.
func (c *Catalog) Has(key string) bool {
	_, ok := c.locs[DefaultLocale].entries[key]
	return ok
}

// Resolve returns the catalog locale used for a Discord locale: the locale
// itself, else the closest by CLDR's language matching ("pt" and "pt-PT"
// read pt-BR, "es-MX" es-419, "zh-HK" zh-TW, "nb" no), else DefaultLocale.
func (c *Catalog) Resolve(loc discordgo.Locale) discordgo.Locale {
	if _, ok := c.locs[loc]; ok {
		return loc
	}
	tag, err := language.Parse(string(loc))
	if err != nil {
		return DefaultLocale
	}
	if _, i, conf := c.matcher.Match(tag); conf != language.No {
		return c.locales[i]
	}
	return DefaultLocale
}

// locale returns the data for loc, resolved.
func (c *Catalog) locale(loc discordgo.Locale) *localeData { return c.locs[c.Resolve(loc)] }

// Text returns the text of key in loc with its placeholders filled in from
// vars, given as name, value pairs: Text(loc, "result.win", "mark", "❌",
// "player", "<@1>"). Values are inserted as they are, never re-expanded;
// placeholders without a value stay as written. An unknown key returns the
// key in double brackets, "[[key]]", so a missing text shows in tests. For
// plural forms Text uses "other"; Plural picks the form for a number.
func (c *Catalog) Text(loc discordgo.Locale, key string, vars ...string) string {
	e, ok := c.locale(loc).entries[key]
	if !ok {
		return "[[" + key + "]]"
	}
	return Fill(e.text, vars)
}

// Plural returns the text of key in loc in the CLDR plural form for n,
// with {count} filled by n formatted for the locale and the other
// placeholders from vars: Plural("pl", "count.games", 5) is "5 gier".
func (c *Catalog) Plural(loc discordgo.Locale, key string, n int, vars ...string) string {
	ld := c.locale(loc)
	e, ok := ld.entries[key]
	if !ok {
		return "[[" + key + "]]"
	}
	t := e.text
	if e.forms != nil {
		abs := n
		if abs < 0 {
			abs = -abs
		}
		if f, ok := e.forms[plural.Cardinal.MatchPlural(ld.tag, abs, 0, 0, 0, 0)]; ok {
			t = f
		}
	}
	return Fill(t, append([]string{"count", c.Number(loc, n)}, vars...))
}

// Fill replaces the placeholders of t by vars (name, value pairs).
func Fill(t string, vars []string) string {
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
		name, val := t[i+1:i+j], t[i:i+j+1]
		if !placeholderName(name) {
			// A brace that opens no placeholder ("a { b {x}") is text, as
			// Placeholders reads it: write it and look on after it.
			b.WriteString(t[:i+1])
			t = t[i+1:]
			continue
		}
		b.WriteString(t[:i])
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

// Number formats an integer for loc: 1,234 in en-US, 1.234 in de, 1 234
// (with a no-break space) in ru.
func (c *Catalog) Number(loc discordgo.Locale, n int) string {
	return c.locale(loc).printer.Sprint(number.Decimal(n))
}

// Decimal formats f for loc with exactly digits fraction digits: 0.25 in
// en-US, 0,25 in de.
func (c *Catalog) Decimal(loc discordgo.Locale, f float64, digits int) string {
	return c.locale(loc).printer.Sprint(number.Decimal(f, number.MinFractionDigits(digits), number.MaxFractionDigits(digits)))
}

// Percent formats a fraction as a percentage with exactly digits fraction
// digits for loc: 0.87 is 87% in en-US, 87 % in de, %87 in tr.
func (c *Catalog) Percent(loc discordgo.Locale, f float64, digits int) string {
	return c.locale(loc).printer.Sprint(number.Percent(f, number.MinFractionDigits(digits), number.MaxFractionDigits(digits)))
}

// Duration writes d in words for loc, every unit that is not zero from
// days to seconds, joined by the locale's "duration.pair": "1 hour 30
// minutes", "45 seconds", "1 hour 5 seconds", "2 Tage". Parts of a second
// are dropped.
func (c *Catalog) Duration(loc discordgo.Locale, d time.Duration) string {
	if d < time.Second {
		return c.Plural(loc, "duration.seconds", 0)
	}
	var out string
	for _, u := range []struct {
		key  string
		size time.Duration
	}{{"duration.days", 24 * time.Hour}, {"duration.hours", time.Hour}, {"duration.minutes", time.Minute}, {"duration.seconds", time.Second}} {
		n := d / u.size
		if n == 0 {
			continue
		}
		d -= n * u.size
		part := c.Plural(loc, u.key, int(n))
		if out == "" {
			out = part
		} else {
			out = c.Text(loc, "duration.pair", "first", out, "second", part)
		}
	}
	return out
}

// Localizations returns the text of key in every locale whose text
// differs from DefaultLocale's, as the name and description localisations
// of an application command want them (Discord shows the default text
// for a locale left out).
func (c *Catalog) Localizations(key string) map[discordgo.Locale]string {
	out := map[discordgo.Locale]string{}
	def := c.Text(DefaultLocale, key)
	for _, l := range c.locales {
		if t := c.Text(l, key); l != DefaultLocale && t != def {
			out[l] = t
		}
	}
	return out
}

// Glossary returns the locale's words for the game's terms, by English
// term (the file's "$glossary"; a locale that falls back reads its
// fallback's where it has none).
func (c *Catalog) Glossary(loc discordgo.Locale) map[string]string {
	for ld := c.locale(loc); ld != nil; ld = c.locs[ld.fallback] {
		if ld.glossary != nil {
			return maps.Clone(ld.glossary)
		}
		if ld.fallback == "" {
			break
		}
	}
	return nil
}

// Note returns the locale's note on how it was translated and checked.
func (c *Catalog) Note(loc discordgo.Locale) string { return c.locale(loc).note }

// Fallback returns the locale loc reads the keys it leaves out from, or "".
func (c *Catalog) Fallback(loc discordgo.Locale) discordgo.Locale { return c.locale(loc).fallback }

// Own reports whether loc's own file writes key (rather than reading it
// from its fallback).
func (c *Catalog) Own(loc discordgo.Locale, key string) bool { return c.locale(loc).own[key] }

// Intentional reports whether loc lists key in "$same": its text is meant
// to be the same as DefaultLocale's.
func (c *Catalog) Intentional(loc discordgo.Locale, key string) bool { return c.locale(loc).same[key] }

// Forms returns every form of key in loc by CLDR category name ("one",
// "few", ...; a plain text is its "other"), or nil for an unknown key.
func (c *Catalog) Forms(loc discordgo.Locale, key string) map[string]string {
	e, ok := c.locale(loc).entries[key]
	if !ok {
		return nil
	}
	if e.forms == nil {
		return map[string]string{"other": e.text}
	}
	out := map[string]string{}
	for f, t := range e.forms {
		out[formNames[f]] = t
	}
	return out
}

// PluralForms returns the CLDR categories loc's plural texts carry: "one",
// "other" in English; "one", "few", "many", "other" in Polish; "other" in
// Japanese.
func (c *Catalog) PluralForms(loc discordgo.Locale) []string {
	forms := c.locale(loc).forms
	out := make([]string, len(forms))
	for i, f := range forms {
		out[i] = formNames[f]
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
	s := "i18n: " + e.Key
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

// UserText is the text of ue in loc: its key filled from its vars (a
// plural text takes the form for the integer in its "count" var), with
// {option} the name, in loc, of the command option at fault.
func (c *Catalog) UserText(loc discordgo.Locale, ue *UserError) string {
	vars := ue.Vars
	if ue.Option != "" {
		name := ue.Option
		if key := "opt." + name + ".name"; c.Has(key) {
			name = c.Text(loc, key)
		}
		vars = append(slices.Clone(vars), "option", name)
	}
	if e := c.locale(loc).entries[ue.Key]; e.forms != nil {
		for i := 0; i+1 < len(vars); i += 2 {
			if n, err := strconv.Atoi(vars[i+1]); vars[i] == "count" && err == nil {
				return c.Plural(loc, ue.Key, n, vars...)
			}
		}
	}
	return c.Text(loc, ue.Key, vars...)
}

// Err builds a *UserError for key with its placeholder values.
func Err(key string, vars ...string) *UserError { return &UserError{Key: key, Vars: vars} }
