package command

import (
	"errors"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/i18n"
)

// testCatalog is the shipped catalog.
func testCatalog(t testing.TB) *i18n.Catalog {
	t.Helper()
	c, err := i18n.NewCatalog()
	if err != nil {
		t.Fatalf("NewCatalog: %v", err)
	}
	return c
}

// parseCommand is Parse without the path.
func parseCommand(data *discordgo.ApplicationCommandInteractionData, pc ParseContext) (Request, error) {
	_, req, err := Parse(data, pc)
	return req, err
}

// errorText is what a user reads for a parse error in loc ("" for an
// error that is no *i18n.UserError, which Parse never returns).
func errorText(c *i18n.Catalog, loc discordgo.Locale, err error) string {
	var ue *i18n.UserError
	if !errors.As(err, &ue) {
		return ""
	}
	return c.UserText(loc, ue)
}

// errorKey is the catalog key of a parse error ("" for none).
func errorKey(err error) string {
	var ue *i18n.UserError
	if !errors.As(err, &ue) {
		return ""
	}
	return ue.Key
}
