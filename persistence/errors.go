package persistence

import "errors"

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
	// ErrNoServer reports that no Redis server could be started or reached.
	ErrNoServer = errors.New("persistence: no redis server")
)
