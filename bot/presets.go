package bot

import (
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
