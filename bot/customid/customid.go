// Package customid encodes and signs the custom IDs of the bot's buttons
// and menus ("t1:<action>:<game>:<move>:<cell>:<sig>"): which action, on
// which game, at which move, on which cell, signed with a truncated HMAC so
// that a forged or altered ID is refused. The format is stable: boards in
// Discord carry IDs made by earlier builds.
package customid

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// Custom-ID limits and layout.
const (
	// MaxCustomIDLen is Discord's limit on a component's custom ID.
	MaxCustomIDLen = 100
	// MinKeyLen is the shortest HMAC key NewSigner accepts, in bytes.
	MinKeyLen = 16
	// MaxMoveNumber is the largest move number a custom ID carries; an 8x8
	// board has 64 cells, so this leaves ample room.
	MaxMoveNumber = 999

	customIDPrefix = "t1"
	sigBytes       = 9 // 72 bits of HMAC-SHA256, 12 base64url characters
	noCell         = "-"
)

// Errors returned by Signer.Decode and Signer.Encode. Decode errors are
// safe to treat as "this button is not valid" and show no details.
var (
	// ErrMalformed reports a custom ID that is not in the format
	// this bot writes (not ours, truncated, or edited).
	ErrMalformed = errors.New("customid: malformed custom ID")
	// ErrForged reports a well-formed custom ID whose signature
	// does not match: forged, or signed with another key.
	ErrForged = errors.New("customid: custom ID signature mismatch")
	// ErrTooLong reports that a custom ID would exceed
	// MaxCustomIDLen (the game ID is too long).
	ErrTooLong = errors.New("customid: custom ID too long")
	// ErrShortKey reports an HMAC key shorter than MinKeyLen.
	ErrShortKey = errors.New("customid: custom-ID key too short")
)

// Action is what a button does.
type Action uint8

// The button actions. The zero Action is invalid.
const (
	// ActionMove plays a cell.
	ActionMove Action = iota + 1
	// ActionResign resigns the game.
	ActionResign
	// ActionRematch offers a new game with the same players and rules.
	ActionRematch
	// ActionAccept accepts a challenge (opponent only).
	ActionAccept
	// ActionDecline declines a challenge (opponent only).
	ActionDecline
	// ActionCancel withdraws a challenge (challenger only).
	ActionCancel
	// ActionJoin takes the empty seat of an open challenge.
	ActionJoin
	// ActionReplay opens a replay of a finished game (anyone may).
	ActionReplay
	// ActionReview opens the review of a finished game (anyone may).
	ActionReview
	// ActionFirst, ActionBack, ActionNext and ActionLast step a replay
	// from the move it shows (Move) to the start, one move back, one
	// forward or to the end; only its Owner may.
	ActionFirst
	ActionBack
	ActionNext
	ActionLast
	// ActionHistory shows page Move of a history (see HistoryRef); only
	// its Owner may turn the pages.
	ActionHistory
	// ActionForgetMe confirms /ttt forget-me; only its Owner (the user
	// who asked) may press it. Game holds "<owner>.me".
	ActionForgetMe
	// ActionForgetServer confirms /ttt-admin forget-server; only its
	// Owner (the moderator who asked) may press it. Game holds
	// "<guild>.server".
	ActionForgetServer
	// ActionSetting changes a setting from the /ttt-admin settings
	// message; only its Owner may press it. Game holds "<guild>.<setting>"
	// and Move the index of the value chosen.
	ActionSetting
	// ActionTournament joins (Move 1) or leaves (Move 0) a tournament's
	// sign-up; Game holds "<guild>.<tournament ID>".
	ActionTournament
	// ActionColumn is a big board's column menu (the column picked is the
	// menu's value); Move is the board's move number.
	ActionColumn
	// ActionPlace is the row menu of a column of a big board, sent to the
	// player alone: the cell picked (the menu's value, "h8") is played if
	// the board is still at Move.
	ActionPlace
	// ActionTakeX and ActionTakeO choose a side at the end of a swap
	// opening (O's player only), on the board at Move.
	ActionTakeX
	ActionTakeO
)

// actionCodes are the one-letter codes of the actions in a custom ID.
const actionCodes = "?mrnadcjpvfbxlhyzstuweg"

// String returns the action's name ("move", "resign", ...).
func (a Action) String() string {
	switch a {
	case ActionMove:
		return "move"
	case ActionResign:
		return "resign"
	case ActionRematch:
		return "rematch"
	case ActionAccept:
		return "accept"
	case ActionDecline:
		return "decline"
	case ActionCancel:
		return "cancel"
	case ActionJoin:
		return "join"
	case ActionReplay:
		return "replay"
	case ActionReview:
		return "review"
	case ActionFirst:
		return "first"
	case ActionBack:
		return "back"
	case ActionNext:
		return "next"
	case ActionLast:
		return "last"
	case ActionHistory:
		return "history"
	case ActionForgetMe:
		return "forget-me"
	case ActionForgetServer:
		return "forget-server"
	case ActionSetting:
		return "setting"
	case ActionTournament:
		return "tournament"
	case ActionColumn:
		return "column"
	case ActionPlace:
		return "place"
	case ActionTakeX:
		return "take-x"
	case ActionTakeO:
		return "take-o"
	}
	return "action(" + strconv.Itoa(int(a)) + ")"
}

// valid reports whether a is one of the defined actions.
func (a Action) valid() bool { return a >= ActionMove && a <= ActionTakeO }

// owned reports whether a's buttons carry an Owner: those of a replay, a
// history, a confirmation and the settings, which only the user who
// opened them may use.
func (a Action) owned() bool { return a >= ActionFirst && a <= ActionSetting }

// ID is what a button's custom ID carries: the action, the game, the
// number of moves the board showed when it was rendered (so a click on an
// outdated board is recognised and never applied to a newer one) and, for
// ActionMove, the cell.
type ID struct {
	// Action is what the button does.
	Action Action
	// Game is the game the button belongs to.
	Game persistence.GameID
	// Move is the number of moves played when the board was rendered
	// (len(Session.Moves)); a move button plays move Move+1.
	Move int
	// Cell is the cell of an ActionMove button; it is 0 for other actions.
	Cell game.Cell
	// Owner is the user who opened the replay or history a step or page
	// button belongs to (only they may press it); empty for other actions.
	Owner string
}

// HistoryRef is what the game field of an ActionHistory button names: the
// user whose history it is and the board it is filtered to ("" for all),
// written "<user>.<rules>" or "<user>.all".
type HistoryRef struct {
	User, Rules string
}

// ID returns the ref in the game field's form.
func (h HistoryRef) ID() persistence.GameID {
	r := h.Rules
	if r == "" {
		r = "all"
	}
	return persistence.GameID(h.User + "." + r)
}

// ParseHistoryRef reads the game field of an ActionHistory button.
func ParseHistoryRef(id persistence.GameID) (HistoryRef, error) {
	u, r, ok := strings.Cut(string(id), ".")
	if !ok || !Snowflake(u) {
		return HistoryRef{}, fmt.Errorf("%w: history %q", ErrMalformed, id)
	}
	if r == "all" {
		r = ""
	} else if _, err := game.ParseRules(r); err != nil {
		return HistoryRef{}, fmt.Errorf("%w: history board %q", ErrMalformed, r)
	}
	return HistoryRef{User: u, Rules: r}, nil
}

// Signer encodes and decodes signed custom IDs with an HMAC key the bot is
// configured with. A Signer is immutable and safe for concurrent use.
//
// The format is five colon-separated fields and a signature:
//
//	t1:<action>:<game>:<move>:<cell>:<sig>
//
// "t1" names the format version; action is one letter (m move, r resign,
// n rematch, a accept, d decline, c cancel, j join); game is the game ID;
// move is a decimal move number without leading zeros (for a replay's
// step buttons the move shown, for a history's page buttons the page);
// cell is the cell name ("c2") for a move, the owner's user ID for a
// replay's step buttons and a history's page buttons, and "-" otherwise;
// sig is the first 9 bytes of
// HMAC-SHA256 over everything before the last colon, in unpadded base64url
// (12 characters). A 20-digit channel and a 13-character suffix give IDs
// of about 60 characters.
type Signer struct {
	key []byte
}

// NewSigner returns a Signer for key, which must be at least MinKeyLen
// bytes (use 32 random bytes). The key is copied.
func NewSigner(key []byte) (*Signer, error) {
	if len(key) < MinKeyLen {
		return nil, fmt.Errorf("%w: %d bytes, need at least %d", ErrShortKey, len(key), MinKeyLen)
	}
	return &Signer{key: append([]byte(nil), key...)}, nil
}

// Encode returns the signed custom ID for id. It fails with
// ErrMalformed for an invalid action, move number, cell or game ID
// (one containing a colon or space, or without a channel and suffix), and
// with ErrTooLong when the result would not fit in Discord's limit.
func (s *Signer) Encode(id ID) (string, error) {
	if !id.Action.valid() {
		return "", fmt.Errorf("%w: action %d", ErrMalformed, id.Action)
	}
	if id.Move < 0 || id.Move > MaxMoveNumber {
		return "", fmt.Errorf("%w: move number %d outside 0-%d", ErrMalformed, id.Move, MaxMoveNumber)
	}
	if !ValidGameID(string(id.Game)) {
		return "", fmt.Errorf("%w: game ID %q", ErrMalformed, id.Game)
	}
	cell := noCell
	switch {
	case id.Action == ActionMove:
		if id.Cell >= 64 {
			return "", fmt.Errorf("%w: cell %d", ErrMalformed, id.Cell)
		}
		cell = id.Cell.String()
	case id.Cell != 0:
		return "", fmt.Errorf("%w: cell %s on a %s button", ErrMalformed, id.Cell, id.Action)
	case id.Action.owned():
		if !Snowflake(id.Owner) {
			return "", fmt.Errorf("%w: owner %q of a %s button", ErrMalformed, id.Owner, id.Action)
		}
		cell = id.Owner
	}
	if id.Owner != "" && !id.Action.owned() {
		return "", fmt.Errorf("%w: owner on a %s button", ErrMalformed, id.Action)
	}
	body := customIDPrefix + ":" + actionCodes[id.Action:id.Action+1] + ":" + string(id.Game) + ":" +
		strconv.Itoa(id.Move) + ":" + cell
	out := body + ":" + s.sign(body)
	if len(out) > MaxCustomIDLen {
		return "", fmt.Errorf("%w: %d characters for game %q", ErrTooLong, len(out), id.Game)
	}
	return out, nil
}

// Decode checks the signature of a custom ID and returns what it carries.
// It fails with ErrMalformed when s is not in the format and with
// ErrForged when the signature does not match. Every string Decode
// accepts is exactly what Encode returns for the result.
func (s *Signer) Decode(raw string) (ID, error) {
	if len(raw) > MaxCustomIDLen {
		return ID{}, fmt.Errorf("%w: %d characters", ErrMalformed, len(raw))
	}
	i := strings.LastIndexByte(raw, ':')
	if i < 0 {
		return ID{}, fmt.Errorf("%w: no signature", ErrMalformed)
	}
	body, sig := raw[:i], raw[i+1:]
	f := strings.Split(body, ":")
	if len(f) != 5 || f[0] != customIDPrefix || len(f[1]) != 1 {
		return ID{}, fmt.Errorf("%w: not a t1 custom ID", ErrMalformed)
	}
	if want := s.sign(body); !hmac.Equal([]byte(sig), []byte(want)) {
		return ID{}, ErrForged
	}
	// The fields below were written by Encode with our key, but check them
	// anyway so a leaked key or a format bug cannot produce odd values.
	a := Action(strings.IndexByte(actionCodes, f[1][0]))
	if !a.valid() {
		return ID{}, fmt.Errorf("%w: action %q", ErrMalformed, f[1])
	}
	id := ID{Action: a, Game: persistence.GameID(f[2])}
	if !ValidGameID(f[2]) {
		return ID{}, fmt.Errorf("%w: game ID %q", ErrMalformed, f[2])
	}
	n, err := strconv.Atoi(f[3])
	if err != nil || n < 0 || n > MaxMoveNumber || strconv.Itoa(n) != f[3] {
		return ID{}, fmt.Errorf("%w: move number %q", ErrMalformed, f[3])
	}
	id.Move = n
	switch {
	case a == ActionMove:
		c, ok := parseCellName(f[4])
		if !ok {
			return ID{}, fmt.Errorf("%w: cell %q", ErrMalformed, f[4])
		}
		id.Cell = c
	case a.owned():
		if !Snowflake(f[4]) {
			return ID{}, fmt.Errorf("%w: owner %q", ErrMalformed, f[4])
		}
		id.Owner = f[4]
	case f[4] != noCell:
		return ID{}, fmt.Errorf("%w: cell %q on a %s button", ErrMalformed, f[4], a)
	}
	return id, nil
}

// sign returns the truncated, base64url-encoded HMAC of body.
func (s *Signer) sign(body string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(body))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:sigBytes])
}

// validGameID accepts what can sit in the game field: 3 to 80 printable
// ASCII characters without colons or spaces, with a "." between a non-empty
// channel and a non-empty suffix (see persistence.GameID).
func ValidGameID(s string) bool {
	if len(s) < 3 || len(s) > 80 {
		return false
	}
	for i := range len(s) {
		if s[i] <= ' ' || s[i] > '~' || s[i] == ':' {
			return false
		}
	}
	ch, suf, ok := strings.Cut(s, ".")
	return ok && ch != "" && suf != ""
}

// parseCellName reads a canonical cell name of the 8x8 grid, "a1" to "h8".
func parseCellName(s string) (game.Cell, bool) {
	if len(s) != 2 || s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8' {
		return 0, false
	}
	return game.NewCell(int(s[1]-'1'), int(s[0]-'a')), true
}

// Snowflake reports whether s looks like a Discord ID: 1 to 20 digits.
func Snowflake(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
