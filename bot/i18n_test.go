package bot

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

var keyLiteral = regexp.MustCompile(`"((?:reply|error|result|rating|board|button|challenge|player|rules|help|choice|level|opt|cmd|count|duration|stats|hint|replay|review|retrain|model|history|puzzle|privacy|forget|forget_me|forget_server|settings|setting|log|list|value|verdict|leaderboard|admin)\.[a-z0-9_.-]+)"`)

var textCall = regexp.MustCompile(`\.(?:Text|Reply)\([^,()]+, "([a-z0-9_.-]+)"`)

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
			if strings.HasSuffix(key, ".") || strings.HasSuffix(key, ".png") {
				continue // a prefix joined at run time, or a file name
			}
			n++
			if !c.Has(key) {
				t.Errorf("%s uses %q, which no locale has", f, key)
			}
		}
		for _, m := range textCall.FindAllStringSubmatch(string(src), -1) {
			if len(c.Forms(i18n.DefaultLocale, m[1])) > 1 {
				t.Errorf("%s: %s names a plural text; use Plural with its count", f, m[0])
			}
		}
	}
	if n < 30 {
		t.Errorf("found only %d key literals; is the pattern stale?", n)
	}
}

func TestCatalogError(t *testing.T) {
	c := testCatalog(t)
	optErrPT := &UserError{Key: "error.bad_option", Option: "rows"}
	tests := []struct {
		name string
		loc  discordgo.Locale
		err  error
		want string
	}{
		{"user error", discordgo.EnglishUS, userErr("error.self_challenge"), "You can't challenge yourself."},
		{"wrapped user error", discordgo.EnglishUS, fmt.Errorf("ctx: %w", userErr("error.board_too_big", "rows", "16", "cols", "16", "max", "15")),
			"A 16×16 board is too big here; boards can be at most 15×15."},
		{"option name localised", discordgo.PortugueseBR, optErrPT, "Não consigo ler o valor da opção linhas."},
		{"option name en", discordgo.EnglishUS, optErrPT, "The option rows has a value I can't read."},
		{"forged", discordgo.EnglishUS, fmt.Errorf("click: %w", customid.ErrForged), "This button isn't valid."},
		{"malformed", discordgo.Greek, customid.ErrMalformed, "Αυτό το κουμπί δεν είναι έγκυρο."},
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
			if got := render.ErrorText(c, tt.loc, tt.err); got != tt.want {
				t.Errorf("Error = %q, want %q", got, tt.want)
			}
		})
	}
}
