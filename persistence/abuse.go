package persistence

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// What keeps one user from flooding another (or the bot): blocks, a
// cooldown between challenges, an index of open challenges, and token
// buckets for rate limits. Keys are in keys.go.

// ErrLimit reports a request refused because the caller is at a limit it
// gave (the most blocks a user may keep, say).
var ErrLimit = errors.New("persistence: limit reached")

// openChallengeGrace is how long a user's open-challenge index outlives
// the latest deadline in it.
const openChallengeGrace = time.Minute

// blockScript adds ARGV[1] to the set KEYS[1] unless the set already has
// ARGV[2] members (ARGV[2] "0" for no limit).
// Returns 1 when added, 0 when already there, -1 at the limit.
var blockScript = redis.NewScript(`
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 0 end
local limit = tonumber(ARGV[2])
if limit > 0 and redis.call('SCARD', KEYS[1]) >= limit then return -1 end
redis.call('SADD', KEYS[1], ARGV[1])
return 1
`)

// checkBlockArgs checks the two users of a block.
func checkBlockArgs(user, target string) error {
	switch {
	case user == "" || target == "":
		return fmt.Errorf("%w: block: empty user ID", ErrInvalid)
	case user == target:
		return fmt.Errorf("%w: block: user %s cannot block themselves", ErrInvalid, user)
	}
	return nil
}

// Block records that user refuses challenges from target, everywhere. It
// is idempotent: it reports whether target was newly added, and blocking
// again changes nothing. With limit above zero, a user who already blocks
// limit others cannot block one more: that fails with ErrLimit. Blocks do
// not expire; Unblock or DeleteBlocks removes them.
func (s *Store) Block(ctx context.Context, user, target string, limit int) (added bool, err error) {
	if err := checkBlockArgs(user, target); err != nil {
		return false, err
	}
	n, err := blockScript.Run(ctx, s.rdb, []string{s.keys.blocks(user)}, target, max(limit, 0)).Int()
	switch {
	case err != nil:
		return false, fmt.Errorf("persistence: block: %w", err)
	case n < 0:
		return false, fmt.Errorf("%w: user %s already blocks %d users", ErrLimit, user, limit)
	}
	return n == 1, nil
}

// Unblock undoes Block; it reports whether target was blocked.
func (s *Store) Unblock(ctx context.Context, user, target string) (removed bool, err error) {
	if err := checkBlockArgs(user, target); err != nil {
		return false, err
	}
	n, err := s.rdb.SRem(ctx, s.keys.blocks(user), target).Result()
	if err != nil {
		return false, fmt.Errorf("persistence: unblock: %w", err)
	}
	return n > 0, nil
}

// Blocked reports whether user has blocked target.
func (s *Store) Blocked(ctx context.Context, user, target string) (bool, error) {
	ok, err := s.rdb.SIsMember(ctx, s.keys.blocks(user), target).Result()
	if err != nil {
		return false, fmt.Errorf("persistence: blocked: %w", err)
	}
	return ok, nil
}

// BlockedBetween reports, in one round trip, whether a has blocked b and
// whether b has blocked a.
func (s *Store) BlockedBetween(ctx context.Context, a, b string) (aBlocksB, bBlocksA bool, err error) {
	pipe := s.rdb.Pipeline()
	ab := pipe.SIsMember(ctx, s.keys.blocks(a), b)
	ba := pipe.SIsMember(ctx, s.keys.blocks(b), a)
	if _, err := pipe.Exec(ctx); err != nil {
		return false, false, fmt.Errorf("persistence: blocked between: %w", err)
	}
	return ab.Val(), ba.Val(), nil
}

// BlockCount returns how many users user has blocked.
func (s *Store) BlockCount(ctx context.Context, user string) (int64, error) {
	n, err := s.rdb.SCard(ctx, s.keys.blocks(user)).Result()
	if err != nil {
		return 0, fmt.Errorf("persistence: block count: %w", err)
	}
	return n, nil
}

// DeleteBlocks deletes user's blocks, for a user who asks to be
// forgotten. Other users' blocks of user are theirs and stay.
func (s *Store) DeleteBlocks(ctx context.Context, user string) error {
	if err := s.rdb.Del(ctx, s.keys.blocks(user)).Err(); err != nil {
		return fmt.Errorf("persistence: deleting the blocks of %s: %w", user, err)
	}
	return nil
}

// cooldownScript claims a cooldown: if KEYS[1] holds a time (Unix ms)
// after ARGV[1] (now), it returns that time; otherwise it stores ARGV[2]
// (the end of the new cooldown) with a TTL of ARGV[3] ms and returns 0.
// The stored time, not the TTL, decides, so the caller's clock rules; the
// TTL only clears the key.
var cooldownScript = redis.NewScript(`
local cur = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
if cur > tonumber(ARGV[1]) then return cur end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 0
`)

// releaseScript deletes KEYS[1] if it still holds ARGV[1].
var releaseScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)

// ChallengeCooldown claims user's challenge cooldown in guild ("" for
// direct messages) at now: if the user's last claim there is less than its
// d old, ok is false and until is when the user may challenge again;
// otherwise the new cooldown of d starts, ok is true and until is its end
// (pass it to ReleaseChallengeCooldown to give the claim back). Two
// replicas claiming at once cannot both succeed. A d of zero or less
// never refuses and stores nothing.
func (s *Store) ChallengeCooldown(ctx context.Context, guild, user string, d time.Duration, now time.Time) (ok bool, until time.Time, err error) {
	if d <= 0 {
		return true, now, nil
	}
	end := now.Add(d).UnixMilli()
	res, err := cooldownScript.Run(ctx, s.rdb, []string{s.keys.challengeCooldown(guild, user)},
		now.UnixMilli(), end, max(d.Milliseconds(), 1)).Int64()
	if err != nil {
		return false, time.Time{}, fmt.Errorf("persistence: challenge cooldown: %w", err)
	}
	if res != 0 {
		return false, time.UnixMilli(res), nil
	}
	return true, time.UnixMilli(end), nil
}

// ReleaseChallengeCooldown gives back the cooldown a ChallengeCooldown
// claim that ended at until started (for a challenge that was not made
// after all), unless a later claim has replaced it.
func (s *Store) ReleaseChallengeCooldown(ctx context.Context, guild, user string, until time.Time) error {
	err := releaseScript.Run(ctx, s.rdb, []string{s.keys.challengeCooldown(guild, user)}, until.UnixMilli()).Err()
	if err != nil {
		return fmt.Errorf("persistence: release challenge cooldown: %w", err)
	}
	return nil
}

// openAddScript adds member ARGV[2] with score ARGV[1] (its deadline, ms)
// to the sorted set KEYS[1] and makes the set live until its latest
// deadline plus ARGV[4] ms, counted from ARGV[3] (now, ms).
var openAddScript = redis.NewScript(`
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
local top = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
local ttl = math.max(tonumber(top[2]) - tonumber(ARGV[3]), 0) + tonumber(ARGV[4])
redis.call('PEXPIRE', KEYS[1], math.floor(ttl))
return 1
`)

// AddOpenChallenge indexes the open challenge g (made by the user on side
// g.Challenger in g.Guild) so that OpenChallenges counts it. The bot calls
// it after CreateGame; nothing else needs to: the index is checked against
// the games themselves when counted, so a challenge accepted, declined,
// cancelled, ended by a moderator or expired drops out by itself.
func (s *Store) AddOpenChallenge(ctx context.Context, g *Session) error {
	user := g.Seat(g.Challenger).User
	if g.Status != StatusOpen || user == "" {
		return fmt.Errorf("%w: game %s is not an open challenge", ErrInvalid, g.ID)
	}
	if _, _, err := g.ID.split(); err != nil {
		return err
	}
	err := openAddScript.Run(ctx, s.rdb, []string{s.keys.openChallenges(g.Guild, user)},
		g.Deadline.UnixMilli(), string(g.ID), s.now().UnixMilli(), openChallengeGrace.Milliseconds()).Err()
	if err != nil {
		return fmt.Errorf("persistence: index open challenge %s: %w", g.ID, err)
	}
	return nil
}

// OpenChallenges returns how many challenges user has open (not yet
// answered, cancelled or expired) in guild, across its channels. It reads
// the index AddOpenChallenge keeps and checks each entry against its game,
// dropping the entries of challenges past their deadline or no longer
// open; it costs two or three round trips and a read per open challenge,
// which the bot's limit keeps to a few.
//
// The index is kept per guild and user rather than found by scanning the
// guild's channels because the Store has no list of a guild's channels
// (games are kept by channel), and the answer must not depend on Accept,
// Decline or the sweeper remembering to update a counter.
func (s *Store) OpenChallenges(ctx context.Context, guild, user string) (int, error) {
	key := s.keys.openChallenges(guild, user)
	pipe := s.rdb.Pipeline()
	pipe.ZRemRangeByScore(ctx, key, "-inf", strconv.FormatInt(s.now().UnixMilli(), 10))
	members := pipe.ZRange(ctx, key, 0, -1)
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, fmt.Errorf("persistence: open challenges: %w", err)
	}
	ids := members.Val()
	if len(ids) == 0 {
		return 0, nil
	}
	pipe = s.rdb.Pipeline()
	status := make([]*redis.StringCmd, len(ids))
	for i, id := range ids {
		ch, suf, err := GameID(id).split()
		if err != nil {
			continue // not a game ID: dropped below
		}
		status[i] = pipe.HGet(ctx, s.keys.game(ch, suf), "s")
	}
	if _, err := pipe.Exec(ctx); err != nil && !sessionIsNil(err) {
		return 0, fmt.Errorf("persistence: open challenges: %w", err)
	}
	var gone []any
	n := 0
	for i, id := range ids {
		if status[i] != nil && status[i].Val() == strconv.Itoa(int(StatusOpen)) {
			n++
			continue
		}
		if status[i] != nil && status[i].Err() != nil && !sessionIsNil(status[i].Err()) {
			return 0, fmt.Errorf("persistence: open challenges: %w", status[i].Err())
		}
		gone = append(gone, id)
	}
	if len(gone) > 0 {
		if err := s.rdb.ZRem(ctx, key, gone...).Err(); err != nil {
			return 0, fmt.Errorf("persistence: open challenges: %w", err)
		}
	}
	return n, nil
}

// allowScript is a token bucket kept as the "theoretical arrival time"
// of the generic cell rate algorithm (GCRA), which is the same bucket in
// one integer: a bucket of capacity c refilled by one token every T is
// full when the TAT is at or before now, and has room for one more action
// while TAT + T - now <= c*T. Integers in microseconds keep it exact.
//
// KEYS[1] the bucket; ARGV[1] now (Unix µs), ARGV[2] T (µs), ARGV[3] c*T (µs).
// Returns {1, 0} when allowed (and the action taken), {0, wait µs} when
// refused (and nothing changed).
var allowScript = redis.NewScript(allowLua)

// allowLua is the source of allowScript.
const allowLua = `
local now = tonumber(ARGV[1])
local t = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
if tat < now then tat = now end
local nt = tat + t
if nt - now > window then return {0, nt - window - now} end
redis.call('SET', KEYS[1], string.format('%.0f', nt), 'PX', math.ceil((nt - now) / 1000) + 1)
return {1, 0}
`

// Allow takes one action from the rate-limit bucket named bucket (one per
// user, say "u:<user ID>"), shared by every process on this Redis: a
// bucket of capacity actions, full at first, refilled at perSecond
// actions a second. It reports whether the action is allowed and, when it
// is not, how long until it would be. A refused action takes nothing from
// the bucket. now is passed in (the caller's clock decides, so tests are
// exact); the key lives only until the bucket would be full again. It
// is on the path of every interaction, so it goes through the batcher of
// the game path: one round trip, shared with other callers' under load.
func (s *Store) Allow(ctx context.Context, bucket string, capacity int, perSecond float64, now time.Time) (ok bool, retryAfter time.Duration, err error) {
	if bucket == "" || strings.ContainsAny(bucket, "{}") || capacity < 1 || !(perSecond > 0) || math.IsInf(perSecond, 0) {
		return false, 0, fmt.Errorf("%w: rate bucket %q with capacity %d at %v a second", ErrInvalid, bucket, capacity, perSecond)
	}
	interval := max(int64(math.Round(1e6/perSecond)), 1)
	keys, args := []string{s.keys.rateBucket(bucket)}, []any{now.UnixMicro(), interval, interval * int64(capacity)}
	cmd := gameEvalCmd(ctx, "evalsha", allowScript.Hash(), keys, args)
	err = s.batch.do(ctx, cmd)
	if err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") {
		cmd = gameEvalCmd(ctx, "eval", allowLua, keys, args)
		err = s.batch.do(ctx, cmd)
	}
	var res []int64
	if err == nil {
		res, err = cmd.Int64Slice()
	}
	if err != nil {
		return false, 0, fmt.Errorf("persistence: rate limit %s: %w", bucket, err)
	}
	if len(res) != 2 {
		return false, 0, fmt.Errorf("persistence: rate limit %s: reply %v", bucket, res)
	}
	return res[0] == 1, time.Duration(res[1]) * time.Microsecond, nil
}

// Throttle lets an expensive action named name (a user's or a server's)
// run at most once every d: the first call in a window of d claims it
// (ok true, until its end), later ones are refused with the end of the
// window. It shares the cooldowns' atomic script, so replicas agree. A d
// of zero or less never refuses and stores nothing.
func (s *Store) Throttle(ctx context.Context, name string, d time.Duration, now time.Time) (ok bool, until time.Time, err error) {
	if d <= 0 {
		return true, now, nil
	}
	end := now.Add(d).UnixMilli()
	res, err := cooldownScript.Run(ctx, s.rdb, []string{s.keys.throttle(name)}, now.UnixMilli(), end, max(d.Milliseconds(), 1)).Int64()
	if err != nil {
		return false, time.Time{}, fmt.Errorf("persistence: throttle %s: %w", name, err)
	}
	if res != 0 {
		return false, time.UnixMilli(res), nil
	}
	return true, time.UnixMilli(end), nil
}
