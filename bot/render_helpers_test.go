package bot

import (
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/internal/golden"
	"github.com/tttbot/ttt-bot/persistence"
)

// updating reports whether -update was given (package golden's flag).
func updating() bool { return golden.Updating() }

// testKey is the HMAC key of the tests' customid.Signer.
var testKey = []byte("0123456789abcdef0123456789abcdef")

// fixedNow is the tests' clock reading.
var fixedNow = time.Date(2026, 11, 21, 20, 0, 0, 0, time.UTC)

const testGame = persistence.GameID("112233445566778899.abcdefghijklm")

func testCatalog(t testing.TB) *i18n.Catalog {
	t.Helper()
	c, err := i18n.NewCatalog()
	if err != nil {
		t.Fatalf("NewCatalog: %v", err)
	}
	return c
}

func testSigner(t testing.TB) *customid.Signer {
	t.Helper()
	s, err := customid.NewSigner(testKey)
	if err != nil {
		t.Fatalf("NewSigner: %v", err)
	}
	return s
}

func testRenderer(t testing.TB) *render.Renderer {
	t.Helper()
	return render.NewRenderer(testCatalog(t), testSigner(t))
}

// cells parses cell names for rules.
func cells(t testing.TB, rules string, names ...string) []game.Cell {
	t.Helper()
	r, err := game.ParseRules(rules)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]game.Cell, len(names))
	for i, n := range names {
		if out[i], err = r.ParseCell(n); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// wireJSON returns v as discordgo sends it (encoding/json, HTML-escaped),
// indented for reading; indenting changes only whitespace.
func wireJSON(t testing.TB, v any) []byte {
	t.Helper()
	return golden.JSON(t, v)
}

// goldenFile compares got with testdata/name, rewriting it under -update.
func goldenFile(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Equal(t, name, got)
}

// Two players' Discord IDs.
const (
	alice = "111111111111111111"
	bob   = "222222222222222222"
)

// goldenLocales are the locales whose messages are pinned by golden
// files: English, and two that stress plurals and scripts.
var goldenLocales = []discordgo.Locale{discordgo.EnglishUS, discordgo.PortugueseBR, discordgo.Greek}

// checked fails t when d breaks Discord's limits.
func checked(t *testing.T, d *discordgo.InteractionResponseData) *discordgo.InteractionResponseData {
	t.Helper()
	if err := render.CheckMessage(d); err != nil {
		t.Errorf("CheckMessage:\n%v", err)
	}
	return d
}
