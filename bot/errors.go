package bot

import (
	"errors"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// UserError is an error meant for the user (see i18n.UserError).
type UserError = i18n.UserError

// userErr builds a *UserError.
func userErr(key string, vars ...string) *UserError { return i18n.Err(key, vars...) }

// ErrorKey returns the message key for err: the key of a *UserError in
// err's chain, KeyStoreUnavailable when the game store could not be
// reached, the reply for a known sentinel of this package, game or
// persistence (a forged button, a taken cell, a finished game, a lost
// compare-and-set, ...), or KeyInternal for anything else.
func ErrorKey(err error) string {
	var ue *UserError
	switch {
	case errors.As(err, &ue):
		return ue.Key
	case errors.Is(err, persistence.ErrUnavailable):
		return KeyStoreUnavailable
	case errors.Is(err, customid.ErrMalformed), errors.Is(err, customid.ErrForged):
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

// ErrorText returns the message to show a user for err in loc: the text of
// a *UserError in err's chain or of a known sentinel (see ErrorKey), or a
// short generic "something went wrong" for anything else (internal
// details are for logs, never for users).
func ErrorText(c *i18n.Catalog, loc discordgo.Locale, err error) string {
	var ue *UserError
	if errors.As(err, &ue) && c.Has(ue.Key) {
		return c.UserText(loc, ue)
	}
	if key := ErrorKey(err); c.Has(key) && !errors.As(err, &ue) {
		return c.Text(loc, key)
	}
	return c.Text(loc, KeyInternal)
}
