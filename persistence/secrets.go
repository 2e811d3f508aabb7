package persistence

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// MinSecretLen is the shortest secret Secret hands out or stores: 16
// bytes, 128 bits, the least an HMAC key should have.
const MinSecretLen = 16

// secretScript stores ARGV[1] at KEYS[1] unless the key exists (no TTL),
// and returns what the key holds then: ARGV[1] for the first caller, the
// stored value for every later one. One script, so that a caller that loses
// the race never sees the key empty.
var secretScript = redis.NewScript(`
redis.call('SET', KEYS[1], ARGV[1], 'NX')
return redis.call('GET', KEYS[1])
`)

// Secret returns the secret called name that every process on this Redis
// shares: the stored one, or, when there is none yet, the value gen makes,
// stored for good (it never expires). Concurrent first calls, from one
// process or many, agree: the first value stored wins and the other callers
// get it (their generated values are dropped). gen is only called when no
// value is stored.
//
// A secret lasts as long as Redis keeps its data: with persistence off a
// restart of Redis loses it, and the next call stores a new one. Delete the
// key (see keys.go) to rotate it.
//
// It fails with ErrInvalid for a name that is empty or holds braces or
// spaces, or a generated value shorter than MinSecretLen, and with
// ErrCorrupt if the stored value is shorter than MinSecretLen.
func (s *Store) Secret(ctx context.Context, name string, gen func() ([]byte, error)) ([]byte, error) {
	if name == "" || strings.ContainsAny(name, "{} \t\r\n") {
		return nil, fmt.Errorf("%w: secret name %q: must be non-empty, without braces or spaces", ErrInvalid, name)
	}
	key := s.keys.secret(name)
	v, err := s.rdb.Get(ctx, key).Bytes()
	switch {
	case err == nil:
		return checkSecret(name, v)
	case !errors.Is(err, redis.Nil):
		return nil, fmt.Errorf("persistence: secret %s: %w", name, err)
	}
	fresh, err := gen()
	if err != nil {
		return nil, fmt.Errorf("persistence: generating secret %s: %w", name, err)
	}
	if len(fresh) < MinSecretLen {
		return nil, fmt.Errorf("%w: generated secret %s has %d bytes, under %d", ErrInvalid, name, len(fresh), MinSecretLen)
	}
	stored, err := secretScript.Run(ctx, s.rdb, []string{key}, fresh).Text()
	if err != nil {
		if errors.Is(err, redis.Nil) { // nothing at the key right after SET: not a Redis we can trust
			return nil, fmt.Errorf("%w: secret %s was not kept", ErrCorrupt, name)
		}
		return nil, fmt.Errorf("persistence: secret %s: %w", name, err)
	}
	return checkSecret(name, []byte(stored))
}

// checkSecret refuses a stored secret too short to be one (an empty or
// hand-edited key).
func checkSecret(name string, v []byte) ([]byte, error) {
	if len(v) < MinSecretLen {
		return nil, fmt.Errorf("%w: stored secret %s has %d bytes, under %d", ErrCorrupt, name, len(v), MinSecretLen)
	}
	return v, nil
}
