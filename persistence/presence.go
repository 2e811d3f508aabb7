package persistence

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultIdentifySpacing is how long Discord wants between two IDENTIFYs of
// one max_concurrency bucket: 5 seconds.
const DefaultIdentifySpacing = 5 * time.Second

// heartbeatScript records ARGV[1] as a live member of KEYS[1] until ARGV[2]
// (ms), prunes the members that ran out before ARGV[3] (now, ms), and keeps
// the key itself at least ARGV[4] ms, so a group whose members all died
// disappears by itself.
var heartbeatScript = redis.NewScript(`
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[3])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[4]) then redis.call('PEXPIRE', KEYS[1], ARGV[4]) end
return 1
`)

// checkPresence refuses group and owner names that would break the key's
// hash tag or be ambiguous.
func checkPresence(group, owner string) error {
	if group == "" || strings.ContainsAny(group, "{} \t\r\n") || owner == "" {
		return fmt.Errorf("%w: presence group %q owner %q: both must be non-empty, and the group without braces or spaces", ErrInvalid, group, owner)
	}
	return nil
}

// Heartbeat records owner as a live member of group for ttl from now (the
// Store's clock), and prunes the members whose heartbeat ran out. A member
// heartbeats every fraction of ttl; one that stops (a killed process) drops
// out of Members within ttl.
func (s *Store) Heartbeat(ctx context.Context, group, owner string, ttl time.Duration) error {
	if err := checkPresence(group, owner); err != nil {
		return err
	}
	if ttl < time.Millisecond {
		return fmt.Errorf("%w: heartbeat of %s in %s: ttl %s is under a millisecond", ErrInvalid, owner, group, ttl)
	}
	now := s.now()
	err := heartbeatScript.Run(ctx, s.rdb, []string{s.keys.presence(group)}, owner,
		now.Add(ttl).UnixMilli(), now.UnixMilli(), ttl.Milliseconds()).Err()
	if err != nil {
		return fmt.Errorf("persistence: heartbeat of %s in %s: %w", owner, group, err)
	}
	return nil
}

// Members returns the live members of group (those whose heartbeat has not
// run out by the Store's clock), sorted by name.
func (s *Store) Members(ctx context.Context, group string) ([]string, error) {
	if err := checkPresence(group, "-"); err != nil {
		return nil, err
	}
	now := strconv.FormatInt(s.now().UnixMilli(), 10)
	m, err := s.rdb.ZRangeByScore(ctx, s.keys.presence(group), &redis.ZRangeBy{Min: now, Max: "+inf"}).Result()
	if err != nil {
		return nil, fmt.Errorf("persistence: members of %s: %w", group, err)
	}
	slices.Sort(m)
	return m, nil
}

// Leave removes owner from group at once (a clean shutdown), so the others
// need not wait for its heartbeat to run out.
func (s *Store) Leave(ctx context.Context, group, owner string) error {
	if err := checkPresence(group, owner); err != nil {
		return err
	}
	if err := s.rdb.ZRem(ctx, s.keys.presence(group), owner).Err(); err != nil {
		return fmt.Errorf("persistence: %s leaving %s: %w", owner, group, err)
	}
	return nil
}

// identifyScript takes KEYS[1] for ARGV[1] for ARGV[2] ms if it is free and
// replies 0; otherwise it replies with the ms left until it is free (at
// least 1).
var identifyScript = redis.NewScript(`
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 0 end
local left = redis.call('PTTL', KEYS[1])
if left < 1 then return 1 end
return left
`)

// maxIdentifyPoll caps one wait of WaitIdentify between attempts, so a
// waiter notices a freed bucket (a key deleted by hand) in reasonable time.
const maxIdentifyPoll = time.Second

// WaitIdentify blocks until owner may send an IDENTIFY in bucket (a shard's
// ID modulo the gateway's max_concurrency), then returns nil: across every
// process on this Redis at most one IDENTIFY per bucket is allowed per
// spacing (DefaultIdentifySpacing when spacing is 0 or less). It takes the
// slot with SET NX and, while it is taken, waits for the time the slot has
// left and tries again. It fails with the context's error if ctx ends
// first, and with ErrInvalid for a negative bucket or an empty owner.
func (s *Store) WaitIdentify(ctx context.Context, bucket int, owner string, spacing time.Duration) error {
	if bucket < 0 || owner == "" {
		return fmt.Errorf("%w: identify bucket %d owner %q: the bucket must not be negative and the owner not empty", ErrInvalid, bucket, owner)
	}
	if spacing <= 0 {
		spacing = DefaultIdentifySpacing
	}
	if spacing < time.Millisecond {
		spacing = time.Millisecond
	}
	key := s.keys.identify(bucket)
	for {
		left, err := identifyScript.Run(ctx, s.rdb, []string{key}, owner, spacing.Milliseconds()).Int64()
		if err != nil {
			return fmt.Errorf("persistence: identify bucket %d: %w", bucket, err)
		}
		if left == 0 {
			return nil
		}
		wait := min(time.Duration(left)*time.Millisecond, maxIdentifyPoll)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("persistence: identify bucket %d: %w", bucket, ctx.Err())
		case <-t.C:
		}
	}
}
