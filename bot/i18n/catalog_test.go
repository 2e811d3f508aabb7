package i18n

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/bwmarrin/discordgo"
)

// keyLiteral matches string literals in the code that look like catalog
// keys.
// textCall matches a Text or Reply call with a literal key, which must not
// be a plural text (Plural picks its form; Text would give "other").
// TestKeysInCodeExist scans the package's code for key literals and checks
// each is in the catalog (keys built at run time, like "opt."+name+".name",
// are covered by the command and render tests, which fail on "[[").
func TestCatalogText(t *testing.T) {
	c := testCatalog(t)
	tests := []struct {
		loc  discordgo.Locale
		key  string
		vars []string
		want string
	}{
		{discordgo.EnglishUS, "result.win", []string{"mark", "❌", "player", "<@1>"}, "❌ <@1> wins!"},
		{discordgo.EnglishGB, "result.win", []string{"mark", "❌", "player", "<@1>"}, "❌ <@1> wins!"},
		{discordgo.PortugueseBR, "result.win", []string{"mark", "❌", "player", "<@1>"}, "❌ <@1> venceu!"},
		{discordgo.Greek, "result.win", []string{"mark", "❌", "player", "<@1>"}, "Κερδίζει ❌ <@1>!"},
		{"xx", "result.draw", nil, "It's a draw."},
		{"", "result.draw", nil, "It's a draw."},
		{discordgo.EnglishUS, "result.win", []string{"mark", "{player}", "player", "P"}, "{player} P wins!"}, // no re-expansion
		{discordgo.EnglishUS, "result.win", []string{"mark", "X"}, "X {player} wins!"},                       // missing value stays
		{discordgo.EnglishUS, "result.win", []string{"mark"}, "{mark} {player} wins!"},                       // odd vars
		{discordgo.EnglishUS, "no.such.key", nil, "[[no.such.key]]"},
	}
	for _, tt := range tests {
		t.Run(string(tt.loc)+"/"+tt.key, func(t *testing.T) {
			if got := c.Text(tt.loc, tt.key, tt.vars...); got != tt.want {
				t.Errorf("Text = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCatalogResolve(t *testing.T) {
	c := testCatalog(t)
	for in, want := range map[discordgo.Locale]discordgo.Locale{
		discordgo.EnglishUS:    discordgo.EnglishUS,
		discordgo.EnglishGB:    discordgo.EnglishGB,
		discordgo.PortugueseBR: discordgo.PortugueseBR,
		"pt":                   discordgo.PortugueseBR,
		"pt-PT":                discordgo.PortugueseBR,
		"es":                   discordgo.SpanishES,
		"es-MX":                discordgo.SpanishLATAM,
		"fr-CA":                discordgo.French,
		"zh-HK":                discordgo.ChineseTW,
		"zh-Hans":              discordgo.ChineseCN,
		"nb":                   discordgo.Norwegian,
		"en":                   discordgo.EnglishUS,
		discordgo.Greek:        discordgo.Greek,
		discordgo.German:       discordgo.German,
		"xx":                   discordgo.EnglishUS,
		"":                     discordgo.EnglishUS,
	} {
		if got := c.Resolve(in); got != want {
			t.Errorf("Resolve(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPlaceholders(t *testing.T) {
	for in, want := range map[string][]string{
		"":                     nil,
		"plain":                nil,
		"{a} and {b} and {a}":  {"a", "b"},
		"{b}{a}":               {"a", "b"},
		"{not valid} {x_1}":    {"x_1"},
		"{unclosed":            nil,
		"{{a}}":                {"a"},
		"`{Upper}` {lower}{0}": {"0", "lower"},
	} {
		if got := Placeholders(in); !slices.Equal(got, want) {
			t.Errorf("Placeholders(%q) = %v, want %v", in, got, want)
		}
	}
}

// fakeCatalog builds a catalog of en-US, pl, ja, es-ES and es-419 texts
// for the mechanics of plurals, numbers, durations and fallbacks.
func fakeCatalog(t *testing.T) *Catalog {
	t.Helper()
	units := func(forms string) string {
		var b strings.Builder
		for _, u := range []string{"seconds", "minutes", "hours", "days"} {
			fmt.Fprintf(&b, `, "duration.%s": %s`, u, strings.ReplaceAll(forms, "U", u[:1]))
		}
		return b.String()
	}
	en := `{"g": {"one": "{count} game by {who}", "other": "{count} games by {who}"}, "t": "T", "duration.pair": "{first} {second}"` +
		units(`{"one": "{count} U", "other": "{count} UU"}`) + `}`
	pl := `{"g": {"one": "{count} gra {who}", "few": "{count} gry {who}", "many": "{count} gier {who}", "other": "{count} gry (ułamek) {who}"}, "t": "T-pl", "duration.pair": "{first} {second}"` +
		units(`{"one": "{count} U", "few": "{count} Uf", "many": "{count} Um", "other": "{count} Uo"}`) + `}`
	ja := `{"g": {"other": "{count}局 {who}"}, "t": "T-ja", "duration.pair": "{first}{second}"` + units(`{"other": "{count}U"}`) + `}`
	es := `{"g": {"one": "{count} partida de {who}", "other": "{count} partidas de {who}"}, "t": "T-es", "duration.pair": "{first} y {second}"` +
		units(`{"one": "{count} U", "other": "{count} UU"}`) + `}`
	c, err := newCatalogFS(fstest.MapFS{
		"l/en-US.json":  {Data: []byte(en)},
		"l/pl.json":     {Data: []byte(pl)},
		"l/ja.json":     {Data: []byte(ja)},
		"l/es-ES.json":  {Data: []byte(es)},
		"l/es-419.json": {Data: []byte(`{"$fallback": "es-ES", "t": "T-419"}`)},
	}, "l")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCatalogPlural(t *testing.T) {
	c := fakeCatalog(t)
	tests := []struct {
		loc  discordgo.Locale
		n    int
		want string
	}{
		{discordgo.EnglishUS, 0, "0 games by W"},
		{discordgo.EnglishUS, 1, "1 game by W"},
		{discordgo.EnglishUS, 2, "2 games by W"},
		{discordgo.EnglishUS, 1234, "1,234 games by W"},
		{discordgo.EnglishUS, -1, "-1 game by W"},
		{discordgo.Polish, 1, "1 gra W"},
		{discordgo.Polish, 2, "2 gry W"},
		{discordgo.Polish, 4, "4 gry W"},
		{discordgo.Polish, 5, "5 gier W"},
		{discordgo.Polish, 12, "12 gier W"},
		{discordgo.Polish, 21, "21 gier W"},
		{discordgo.Polish, 22, "22 gry W"},
		{discordgo.Polish, 112, "112 gier W"},
		{discordgo.Polish, 1500, "1\u00a0500 gier W"},
		{discordgo.Japanese, 1, "1局 W"},
		{discordgo.Japanese, 1000, "1,000局 W"},
		{discordgo.SpanishES, 1, "1 partida de W"},
		{discordgo.SpanishLATAM, 3, "3 partidas de W"}, // from its fallback
		{discordgo.SpanishLATAM, 1000, "1,000 partidas de W"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%d", string(tt.loc), tt.n), func(t *testing.T) {
			if got := c.Plural(tt.loc, "g", tt.n, "who", "W"); got != tt.want {
				t.Errorf("Plural = %q, want %q", got, tt.want)
			}
		})
	}
	if got := c.Text(discordgo.Polish, "g", "who", "W"); got != "{count} gry (ułamek) W" {
		t.Errorf("Text of a plural = %q, want its other form", got)
	}
	if got := c.Text(discordgo.SpanishLATAM, "t"); got != "T-419" {
		t.Errorf("es-419's own text = %q", got)
	}
	if got, want := c.PluralForms(discordgo.Polish), []string{"one", "few", "many", "other"}; !slices.Equal(got, want) {
		t.Errorf("PluralForms(pl) = %v, want %v", got, want)
	}
	if got := c.Localizations("t"); len(got) != 4 || got[discordgo.SpanishLATAM] != "T-419" {
		t.Errorf("Localizations = %v", got)
	}
}

func TestCatalogNumbers(t *testing.T) {
	c := fakeCatalog(t)
	for _, tt := range []struct {
		loc              discordgo.Locale
		n                int
		f                float64
		number, dec, pct string
	}{
		{discordgo.EnglishUS, 1234567, 0.8766, "1,234,567", "0.877", "87.7%"},
		{discordgo.Polish, 1234567, 0.8766, "1\u00a0234\u00a0567", "0,877", "87,7%"},
		{discordgo.SpanishES, 1234567, 0.5, "1.234.567", "0,500", "50,0\u00a0%"},
		{discordgo.Japanese, 1234567, 0.5, "1,234,567", "0.500", "50.0%"},
	} {
		if got := c.Number(tt.loc, tt.n); got != tt.number {
			t.Errorf("Number(%s) = %q, want %q", string(tt.loc), got, tt.number)
		}
		if got := c.Decimal(tt.loc, tt.f, 3); got != tt.dec {
			t.Errorf("Decimal(%s) = %q, want %q", string(tt.loc), got, tt.dec)
		}
		if got := c.Percent(tt.loc, tt.f, 1); got != tt.pct {
			t.Errorf("Percent(%s) = %q, want %q", string(tt.loc), got, tt.pct)
		}
	}
}

func TestCatalogDuration(t *testing.T) {
	c := fakeCatalog(t)
	for _, tt := range []struct {
		loc  discordgo.Locale
		d    time.Duration
		want string
	}{
		{discordgo.EnglishUS, 0, "0 ss"},
		{discordgo.EnglishUS, 1500 * time.Millisecond, "1 s"},
		{discordgo.EnglishUS, 45 * time.Second, "45 ss"},
		{discordgo.EnglishUS, 90 * time.Second, "1 m 30 ss"},
		{discordgo.EnglishUS, time.Hour + 5*time.Second, "1 h 5 ss"},
		{discordgo.EnglishUS, 26*time.Hour + time.Minute + time.Second, "1 d 2 hh 1 m 1 s"},
		{discordgo.Polish, 2 * time.Hour, "2 hf"},
		{discordgo.Polish, 5*time.Minute + time.Second, "5 mm 1 s"},
		{discordgo.Japanese, 90 * time.Minute, "1h30m"},
		{discordgo.SpanishLATAM, 61 * time.Second, "1 m y 1 s"},
	} {
		if got := c.Duration(tt.loc, tt.d); got != tt.want {
			t.Errorf("Duration(%s, %s) = %q, want %q", string(tt.loc), tt.d, got, tt.want)
		}
	}
}

func TestNewCatalogRejectsBadData(t *testing.T) {
	good := `{"a": "A {x}", "b": "B"}`
	plurals := `{"p": {"one": "{count} P", "other": "{count} Ps"}}`
	tests := []struct {
		name  string
		files fstest.MapFS
		want  string
	}{
		{"no default", fstest.MapFS{"l/el.json": {Data: []byte(good)}}, "no en-US"},
		{"bad json", fstest.MapFS{"l/en-US.json": {Data: []byte(good)}, "l/el.json": {Data: []byte("{")}}, "el.json"},
		{"missing key", fstest.MapFS{"l/en-US.json": {Data: []byte(good)}, "l/el.json": {Data: []byte(`{"a": "Α {x}"}`)}}, `missing "b"`},
		{"extra key", fstest.MapFS{"l/en-US.json": {Data: []byte(good)}, "l/el.json": {Data: []byte(`{"a": "Α {x}", "b": "Β", "c": "Γ"}`)}}, `"c" is not in en-US`},
		{"placeholder", fstest.MapFS{"l/en-US.json": {Data: []byte(good)}, "l/el.json": {Data: []byte(`{"a": "Α {y}", "b": "Β"}`)}}, "placeholders [y]"},
		{"empty", fstest.MapFS{"l/en-US.json": {Data: []byte(good)}, "l/el.json": {Data: []byte(`{"a": "Α {x}", "b": " "}`)}}, `"b" is empty`},
		{"plural for text", fstest.MapFS{"l/en-US.json": {Data: []byte(good)}, "l/el.json": {Data: []byte(`{"a": {"one": "Α {x}", "other": "Α {x}"}, "b": "Β"}`)}}, `"a" must be a text`},
		{"text for plural", fstest.MapFS{"l/en-US.json": {Data: []byte(plurals)}, "l/el.json": {Data: []byte(`{"p": "{count} Π"}`)}}, `"p" must be plural forms (one, other)`},
		{"forms missing", fstest.MapFS{"l/en-US.json": {Data: []byte(plurals)}, "l/pl.json": {Data: []byte(`{"p": {"one": "{count} a", "other": "{count} b"}}`)}}, `"p" has plural forms one, other, want one, few, many, other`},
		{"forms extra", fstest.MapFS{"l/en-US.json": {Data: []byte(plurals)}, "l/ja.json": {Data: []byte(`{"p": {"one": "{count} a", "other": "{count} b"}}`)}}, `want other`},
		{"form placeholder", fstest.MapFS{"l/en-US.json": {Data: []byte(plurals)}, "l/el.json": {Data: []byte(`{"p": {"one": "ένα", "other": "{count} b"}}`)}}, `"p" (one) has placeholders []`},
		{"unknown form", fstest.MapFS{"l/en-US.json": {Data: []byte(plurals)}, "l/el.json": {Data: []byte(`{"p": {"single": "{count} a", "other": "{count} b"}}`)}}, `unknown plural form "single"`},
		{"unknown field", fstest.MapFS{"l/en-US.json": {Data: []byte(good)}, "l/el.json": {Data: []byte(`{"$notes": "x", "a": "Α {x}", "b": "Β"}`)}}, `unknown field "$notes"`},
		{"no fallback", fstest.MapFS{"l/en-US.json": {Data: []byte(good)}, "l/es-419.json": {Data: []byte(`{"$fallback": "es-ES"}`)}}, `fallback "es-ES" is not a locale`},
		{"fallback loop", fstest.MapFS{"l/en-US.json": {Data: []byte(good)}, "l/es-419.json": {Data: []byte(`{"$fallback": "es-ES"}`)}, "l/es-ES.json": {Data: []byte(`{"$fallback": "es-419"}`)}}, `circle`},
		{"fallback fills", fstest.MapFS{"l/en-US.json": {Data: []byte(good)}, "l/en-GB.json": {Data: []byte(`{"$fallback": "en-US", "c": "C"}`)}}, `"c" is not in en-US`},
		{"same unknown", fstest.MapFS{"l/en-US.json": {Data: []byte(good)}, "l/el.json": {Data: []byte(`{"$same": ["z"], "a": "Α {x}", "b": "Β"}`)}}, `$same lists "z"`},
		{"bad locale", fstest.MapFS{"l/en-US.json": {Data: []byte(good)}, "l/not a locale.json": {Data: []byte(good)}}, `is not a locale`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newCatalogFS(tt.files, "l")
			if !errors.Is(err, ErrLocale) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("newCatalogFS = %v, want ErrLocale mentioning %q", err, tt.want)
			}
		})
	}
}

func ExampleCatalog_Text() {
	cat, err := NewCatalog()
	if err != nil {
		panic(err)
	}
	for _, loc := range []discordgo.Locale{discordgo.EnglishUS, discordgo.German, discordgo.Japanese} {
		fmt.Println(string(loc), cat.Text(loc, "board.turn", "mark", "⭕", "player", "<@42>"))
	}
	// Output:
	// en-US ⭕ <@42> to move
	// de ⭕ <@42> ist am Zug
	// ja ⭕ <@42> の手番です
}

func ExampleCatalog_Plural() {
	cat, err := NewCatalog()
	if err != nil {
		panic(err)
	}
	for _, loc := range []discordgo.Locale{discordgo.EnglishUS, discordgo.Polish, discordgo.Russian} {
		var out []string
		for _, n := range []int{1, 2, 5, 21, 22, 1500} {
			out = append(out, cat.Plural(loc, "count.games", n))
		}
		fmt.Println(string(loc), strings.Join(out, " / "))
	}
	// Output:
	// en-US 1 game / 2 games / 5 games / 21 games / 22 games / 1,500 games
	// pl 1 partia / 2 partie / 5 partii / 21 partii / 22 partie / 1 500 partii
	// ru 1 партия / 2 партии / 5 партий / 21 партия / 22 партии / 1 500 партий
}

// TestCatalogConcurrent formats from many goroutines at once (run under
// -race): a Catalog is shared by every handler.
func TestCatalogConcurrent(t *testing.T) {
	c := fakeCatalog(t)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				loc := []discordgo.Locale{discordgo.EnglishUS, discordgo.Polish, discordgo.Japanese, discordgo.SpanishLATAM}[(g+i)%4]
				if s := c.Plural(loc, "g", i, "who", "W") + c.Number(loc, i*1000) + c.Percent(loc, float64(i)/200, 1) +
					c.Decimal(loc, float64(i)/7, 2) + c.Duration(loc, time.Duration(i)*time.Minute); strings.Contains(s, "{") {
					t.Errorf("unfilled: %q", s)
				}
			}
		})
	}
	wg.Wait()
}

// FuzzFill checks that filling every placeholder Placeholders finds
// leaves none of them in the text, whatever stray braces it has.
func FuzzFill(f *testing.F) {
	for _, s := range []string{"", "{a}", "a { b {x}", "{{a}}", "{a}{b} {c", "}{a{b}", "`{Upper}` {lower}{0}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		names := Placeholders(text)
		var vars []string
		for _, n := range names {
			vars = append(vars, n, "\x00")
		}
		got := Fill(text, vars)
		for _, n := range names {
			if strings.Contains(got, "{"+n+"}") && !strings.Contains(text, "{{"+n+"}}") {
				t.Errorf("Fill(%q) = %q still has {%s}", text, got, n)
			}
		}
	})
}

// FuzzParseLocale checks that no locale file makes parseLocale panic, and
// that what it accepts has only known plural forms.
func FuzzParseLocale(f *testing.F) {
	for _, s := range []string{`{"a": "A"}`, `{"$note": "n", "p": {"one": "{count}", "other": "{count}s"}}`, `{"$fallback": 1}`, `{"p": {"single": "x"}}`, `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ld, err := parseLocale(discordgo.Polish, b)
		if err != nil {
			return
		}
		for k, e := range ld.entries {
			for form := range e.forms {
				if _, ok := formNames[form]; !ok {
					t.Errorf("%q has form %v", k, form)
				}
			}
		}
	})
}

func BenchmarkCatalogPlural(b *testing.B) {
	c := fakeCatalog(&testing.T{})
	for b.Loop() {
		c.Plural(discordgo.Polish, "g", 1234, "who", "W")
	}
}

// testCatalog is the embedded catalog.
func testCatalog(t testing.TB) *Catalog {
	t.Helper()
	c, err := NewCatalog()
	if err != nil {
		t.Fatal(err)
	}
	return c
}
