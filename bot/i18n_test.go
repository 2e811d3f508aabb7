package bot

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

func TestCatalogLocales(t *testing.T) {
	c := testCatalog(t)
	want := []discordgo.Locale{discordgo.EnglishUS, discordgo.Greek, discordgo.PortugueseBR}
	if got := c.Locales(); !slices.Equal(got, want) {
		t.Errorf("Locales() = %v, want %v", got, want)
	}
}

// TestLocaleCoverage checks what NewCatalog enforces, locale by locale so
// a failure names the gap: every key in every locale, the same
// placeholders, no empty text.
func TestLocaleCoverage(t *testing.T) {
	c := testCatalog(t)
	base := c.texts[DefaultLocale]
	for _, loc := range c.Locales() {
		t.Run(string(loc), func(t *testing.T) {
			texts := c.texts[loc]
			if len(texts) != len(base) {
				t.Errorf("%d keys, %s has %d", len(texts), DefaultLocale, len(base))
			}
			for _, k := range c.Keys() {
				got, ok := texts[k]
				if !ok {
					t.Errorf("missing %q", k)
					continue
				}
				if p, q := Placeholders(got), Placeholders(base[k]); !slices.Equal(p, q) {
					t.Errorf("%q: placeholders %v, want %v", k, p, q)
				}
				if strings.Contains(got, "[[") {
					t.Errorf("%q contains the missing-key marker", k)
				}
			}
		})
	}
}

// keyLiteral matches string literals in the code that look like catalog
// keys.
var keyLiteral = regexp.MustCompile(`"((?:reply|error|result|rating|board|button|challenge|player|rules|help|choice|level|opt|cmd)\.[a-z0-9_.-]+)"`)

// TestKeysInCodeExist scans the package's code for key literals and checks
// each is in the catalog (keys built at run time, like "opt."+name+".name",
// are covered by the command and render tests, which fail on "[[").
func TestKeysInCodeExist(t *testing.T) {
	c := testCatalog(t)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range keyLiteral.FindAllStringSubmatch(string(src), -1) {
			key := m[1]
			if strings.HasSuffix(key, ".") {
				continue // a prefix joined at run time
			}
			n++
			if !c.Has(key) {
				t.Errorf("%s uses %q, which no locale has", f, key)
			}
		}
	}
	if n < 30 {
		t.Errorf("found only %d key literals; is the pattern stale?", n)
	}
}

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
		{discordgo.Japanese, "result.draw", nil, "It's a draw."},
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
		discordgo.EnglishGB:    discordgo.EnglishUS,
		discordgo.PortugueseBR: discordgo.PortugueseBR,
		"pt":                   discordgo.PortugueseBR,
		discordgo.Greek:        discordgo.Greek,
		discordgo.German:       discordgo.EnglishUS,
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

func TestNewCatalogRejectsBadData(t *testing.T) {
	good := `{"a": "A {x}", "b": "B"}`
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

func TestCatalogError(t *testing.T) {
	c := testCatalog(t)
	optErrPT := optErr(optRows)
	tests := []struct {
		name string
		loc  discordgo.Locale
		err  error
		want string
	}{
		{"user error", discordgo.EnglishUS, userErr("error.self_challenge"), "You can't challenge yourself."},
		{"wrapped user error", discordgo.EnglishUS, fmt.Errorf("ctx: %w", userErr("error.board_too_big", "rows", "6", "cols", "6")),
			"A 6×6 board doesn't fit in Discord's buttons; boards can be at most 5×5."},
		{"option name localised", discordgo.PortugueseBR, optErrPT, "Não consigo ler o valor da opção linhas."},
		{"option name en", discordgo.EnglishUS, optErrPT, "The option rows has a value I can't read."},
		{"forged", discordgo.EnglishUS, fmt.Errorf("click: %w", ErrForgedCustomID), "This button isn't valid."},
		{"malformed", discordgo.Greek, ErrMalformedCustomID, "Αυτό το κουμπί δεν είναι έγκυρο."},
		{"cell taken", discordgo.EnglishUS, fmt.Errorf("x: %w", game.ErrCellTaken), "That cell is taken."},
		{"not live", discordgo.EnglishUS, persistence.ErrNotLive, "This game is over."},
		{"game over", discordgo.EnglishUS, game.ErrGameOver, "This game is over."},
		{"not your turn", discordgo.EnglishUS, persistence.ErrNotYourTurn, "It's not your turn."},
		{"conflict", discordgo.EnglishUS, persistence.ErrConflict, "The board has changed since you looked; play on the updated board."},
		{"not found", discordgo.EnglishUS, persistence.ErrNotFound, "This game or challenge has expired."},
		{"timed out", discordgo.EnglishUS, persistence.ErrTimedOut, "This game or challenge has expired."},
		{"busy", discordgo.EnglishUS, persistence.ErrBusy, "You already have a game in this channel."},
		{"internal", discordgo.EnglishUS, errors.New("redis: connection refused"), "Something went wrong; please try again."},
		{"unknown user key", discordgo.EnglishUS, userErr("no.such.key"), "Something went wrong; please try again."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.Error(tt.loc, tt.err); got != tt.want {
				t.Errorf("Error = %q, want %q", got, tt.want)
			}
		})
	}
}

func ExampleCatalog_Text() {
	cat, err := NewCatalog()
	if err != nil {
		panic(err)
	}
	for _, loc := range cat.Locales() {
		fmt.Println(string(loc), cat.Text(loc, "board.turn", "mark", EmojiO, "player", "<@42>"))
	}
	// Output:
	// en-US ⭕ <@42> to move
	// el Παίζει ⭕ <@42>
	// pt-BR Vez de ⭕ <@42>
}
