package persistence

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Lock is a held lock: one training job at a time, say. Token is a fencing
// token, larger for every acquisition of the same name, so a writer can
// refuse a holder whose lease ran out (CheckLock, or compare tokens).
type Lock struct {
	// Name is what is locked.
	Name string
	// Owner identifies the holder (host and process, job ID).
	Owner string
	// Token is the fencing token of this acquisition.
	Token int64
}

// value is what the lock key holds while l holds it.
func (l Lock) value() string { return strconv.FormatInt(l.Token, 10) + " " + l.Owner }

// lockAcquireScript takes KEYS[1] for ARGV[1] (the owner) with a lease of
// ARGV[2] ms if it is free, drawing a token from KEYS[2]; it replies with
// the token, or with "held <value>" if it is taken.
var lockAcquireScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v then return 'held ' .. v end
local t = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], t .. ' ' .. ARGV[1], 'PX', ARGV[2])
return tostring(t)
`)

// lockRenewScript extends KEYS[1]'s lease to ARGV[2] ms if it holds ARGV[1].
var lockRenewScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`)

// lockReleaseScript deletes KEYS[1] if it holds ARGV[1].
var lockReleaseScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)

// checkLockName refuses names that would break the key's hash tag.
func checkLockName(name, owner string) error {
	if name == "" || strings.ContainsAny(name, "{}") || owner == "" {
		return fmt.Errorf("%w: lock %q owner %q: both must be non-empty, and the name without braces", ErrInvalid, name, owner)
	}
	return nil
}

// AcquireLock takes lock name for owner for lease, or fails with
// ErrLockHeld (naming the holder) if someone holds it. The holder must
// renew before the lease runs out.
func (s *Store) AcquireLock(ctx context.Context, name, owner string, lease time.Duration) (Lock, error) {
	if err := checkLockName(name, owner); err != nil {
		return Lock{}, err
	}
	if lease < time.Millisecond {
		return Lock{}, fmt.Errorf("%w: lock %s: lease %s is under a millisecond", ErrInvalid, name, lease)
	}
	res, err := lockAcquireScript.Run(ctx, s.rdb, []string{s.keys.lock(name), s.keys.fence(name)}, owner, lease.Milliseconds()).Text()
	if err != nil {
		return Lock{}, fmt.Errorf("persistence: acquire lock %s: %w", name, err)
	}
	if held, ok := strings.CutPrefix(res, "held "); ok {
		_, holder, _ := strings.Cut(held, " ")
		return Lock{}, fmt.Errorf("%w: lock %s is held by %s", ErrLockHeld, name, holder)
	}
	t, err := strconv.ParseInt(res, 10, 64)
	if err != nil {
		return Lock{}, fmt.Errorf("%w: lock %s: token %q", ErrCorrupt, name, res)
	}
	return Lock{Name: name, Owner: owner, Token: t}, nil
}

// RenewLock extends l's lease to lease from now, only if l still holds the
// lock; otherwise it fails with ErrLockLost.
func (s *Store) RenewLock(ctx context.Context, l Lock, lease time.Duration) error {
	if lease < time.Millisecond {
		return fmt.Errorf("%w: lock %s: lease %s is under a millisecond", ErrInvalid, l.Name, lease)
	}
	n, err := lockRenewScript.Run(ctx, s.rdb, []string{s.keys.lock(l.Name)}, l.value(), lease.Milliseconds()).Int64()
	if err != nil {
		return fmt.Errorf("persistence: renew lock %s: %w", l.Name, err)
	}
	if n == 0 {
		return fmt.Errorf("%w: lock %s token %d", ErrLockLost, l.Name, l.Token)
	}
	return nil
}

// ReleaseLock frees l, only if l still holds it; otherwise it fails with
// ErrLockLost (and changes nothing).
func (s *Store) ReleaseLock(ctx context.Context, l Lock) error {
	n, err := lockReleaseScript.Run(ctx, s.rdb, []string{s.keys.lock(l.Name)}, l.value()).Int64()
	if err != nil {
		return fmt.Errorf("persistence: release lock %s: %w", l.Name, err)
	}
	if n == 0 {
		return fmt.Errorf("%w: lock %s token %d", ErrLockLost, l.Name, l.Token)
	}
	return nil
}

// CheckLock returns nil if l still holds its lock and ErrLockLost if not;
// a writer guarded by the lock calls it before each write. For a check
// that cannot race with the write itself, compare l.Token with the token
// the write's target last accepted and refuse smaller ones: tokens only
// grow.
func (s *Store) CheckLock(ctx context.Context, l Lock) error {
	v, err := s.rdb.Get(ctx, s.keys.lock(l.Name)).Result()
	switch {
	case sessionIsNil(err):
		return fmt.Errorf("%w: lock %s is free", ErrLockLost, l.Name)
	case err != nil:
		return fmt.Errorf("persistence: check lock %s: %w", l.Name, err)
	case v != l.value():
		return fmt.Errorf("%w: lock %s token %d", ErrLockLost, l.Name, l.Token)
	}
	return nil
}
