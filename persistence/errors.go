package persistence

import (
	"errors"
	"fmt"
)

// Sentinel errors; every error returned by a Store wraps one of them or an
// error from the Redis client (a connection failure, a deadline).
var (
	// ErrNotFound reports a key that does not exist (or has expired).
	ErrNotFound = errors.New("persistence: not found")
	// ErrConflict reports a compare-and-set that lost: the record changed
	// since it was read. The caller should reload and look again.
	ErrConflict = errors.New("persistence: changed concurrently")
	// ErrCorrupt reports a stored record that does not decode.
	ErrCorrupt = errors.New("persistence: corrupt record")
	// ErrInvalid reports a record, request or argument the Store refuses:
	// a corpus record whose moves do not replay, a game without an ID, a
	// session that breaks the rules. The message says what was wrong.
	// (Stored data that does not decode is ErrCorrupt instead.)
	ErrInvalid = errors.New("persistence: invalid request")
	// ErrNoServer reports that no Redis server could be started or reached.
	ErrNoServer = errors.New("persistence: no redis server")
	// ErrNoPseudonymKey reports that a game with a human player was appended
	// to the corpus while Options.PseudonymKey is empty: the corpus never holds
	// raw Discord user IDs, and without the key it cannot make pseudonyms.
	ErrNoPseudonymKey = errors.New("persistence: no pseudonym key set")
	// ErrLockHeld reports that another owner holds the lock.
	ErrLockHeld = errors.New("persistence: lock held by another owner")
	// ErrLockLost reports a lock that is no longer held by the caller: its
	// lease ran out and someone else may have taken it. A writer that gets it
	// must stop and not write.
	ErrLockLost = errors.New("persistence: lock lost")
	// ErrNotYourTurn reports a move, resignation or acceptance by someone who
	// may not make it: not the player to move, not seated, or the challenger
	// accepting their own challenge.
	ErrNotYourTurn = errors.New("persistence: not your turn")
	// ErrNotLive reports a change to a game that is already finished or expired,
	// or a move in a challenge not yet accepted.
	ErrNotLive = errors.New("persistence: game is not in play")
	// ErrTimedOut reports a move that came after the mover's time ran out. The
	// move is not played; the game is lost on time instead, at once (the
	// sweeper would have done the same), and Play returns that finished
	// session together with the error.
	ErrTimedOut = errors.New("persistence: out of time")
	// ErrBusy reports that a player already has a live game (or open
	// challenge) in the channel and Options.AllowManyGames is off. The error
	// names the player and the game; the bot can show "finish your game first".
	ErrBusy = errors.New("persistence: player already has a game in this channel")
	// ErrUnavailable reports that Redis could not be reached or did not
	// answer in time (a refused or broken connection, a timeout, no free
	// connection in the pool, a server still loading its data, a context
	// deadline during a call): nothing is known to have changed, and the
	// same call may work moments later. The error also wraps the client's
	// own error.
	ErrUnavailable = errors.New("persistence: redis unavailable")
)

// BusyError is the ErrBusy of a game that cannot be created or joined: it
// names the player and their live game in the channel.
type BusyError struct {
	// User is the player who is busy, and Game their live game.
	User string
	Game GameID
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("%v: user %s is playing game %s", ErrBusy, e.User, e.Game)
}

// Unwrap makes a BusyError an ErrBusy for errors.Is.
func (e *BusyError) Unwrap() error { return ErrBusy }
