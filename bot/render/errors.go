package render

import (
	"errors"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// ErrorKey returns the message key for err: the key of a *i18n.UserError in
// err's chain, KeyStoreUnavailable when the game store could not be
// reached, the reply for a known sentinel of this package, game or
// persistence (a forged button, a taken cell, a finished game, a lost
// compare-and-set, ...), or KeyInternal for anything else.
func ErrorKey(err error) string {
	var ue *i18n.UserError
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
// a *i18n.UserError in err's chain or of a known sentinel (see ErrorKey), or a
// short generic "something went wrong" for anything else (internal
// details are for logs, never for users).
func ErrorText(c *i18n.Catalog, loc discordgo.Locale, err error) string {
	var ue *i18n.UserError
	if errors.As(err, &ue) && c.Has(ue.Key) {
		return c.UserText(loc, ue)
	}
	if key := ErrorKey(err); c.Has(key) && !errors.As(err, &ue) {
		return c.Text(loc, key)
	}
	return c.Text(loc, KeyInternal)
}

// KeyRetrainTooFew refuses a retrain without the force option on a
// board with fewer new games since the last retrain than the job's
// minimum ({rules}, {new}, {min}); nothing was trained.
const KeyRetrainTooFew = "retrain.too_few"

// KeyNoModel refuses a neural level on a board without a network.
const KeyNoModel = "reply.no_model"

// Keys of the replies to /ttt-admin retrain and model, and to levels that
// need a network.
const (
	// KeyRetrainRunning refuses a retrain while another one runs, in this
	// process or another.
	KeyRetrainRunning = "reply.retrain_running"
	// KeyRetrainOff refuses a retrain on a bot without a retrain job or
	// without a running RunSweeper loop.
	KeyRetrainOff = "reply.retrain_off"
	// KeyNoModelLevel is KeyNoModel naming the level and the board.
	KeyNoModelLevel = "error.no_model"
	// KeyNoModelBoards is KeyNoModelLevel listing the boards that have a
	// network.
	KeyNoModelBoards = "error.no_model_boards"
	// KeyNoRollback says there is no earlier version to roll back to.
	KeyNoRollback = "model.no_rollback"
)
