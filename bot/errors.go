package bot

import (
	"github.com/tttbot/ttt-bot/bot/i18n"
)

// UserError is an error meant for the user (see i18n.UserError).
type UserError = i18n.UserError

// userErr builds a *UserError.
func userErr(key string, vars ...string) *UserError { return i18n.Err(key, vars...) }
