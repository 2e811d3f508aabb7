package persistence

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
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
//
// Blocks, cooldowns, the rate buckets of AllowUser and the throttles of
// ThrottleUser name users by pseudonym (see pseudo), never by Discord ID,
// in key names and in values alike: they are what ForgetUser keeps of a
// forgotten user on purpose (another user's block of them, a cooldown or
// limit still running), and so they must not hold the ID. The
// open-challenge index keeps the ID in its name; ForgetUser deletes it.

// unkeyedPseudonymKey keys pseudo when Options.PseudonymKey is empty
// (tests and tools; serve always has a key): the names still hold no
// Discord ID, but anyone can compute them from one.
var unkeyedPseudonymKey = []byte("ttt-bot persistence: no pseudonym key")

// pseudo is the name under which the Store keys user's blocks,
// cooldowns, rate buckets and throttles: Pseudonym(user), or, without a
// pseudonym key, the same HMAC keyed with unkeyedPseudonymKey.
// Changing the key loses them all (blocks included).
func (s *Store) pseudo(user string) string {
	key := s.opts.PseudonymKey
	if len(key) == 0 {
		key = unkeyedPseudonymKey
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(user))
	return hex.EncodeToString(m.Sum(nil))
}

// isPseudonym reports whether s has the shape of a pseudonym (64
// lowercase hex digits), which no Discord ID has: how MigrateBlocks tells
// the entries written before blocks were pseudonymised.
func isPseudonym(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

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
// not expire; Unblock or DeleteBlocks removes them. Both users are stored
// as pseudonyms (see pseudo).
func (s *Store) Block(ctx context.Context, user, target string, limit int) (added bool, err error) {
	if err := checkBlockArgs(user, target); err != nil {
		return false, err
	}
	n, err := blockScript.Run(ctx, s.rdb, []string{s.keys.blocks(s.pseudo(user))}, s.pseudo(target), max(limit, 0)).Int()
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
	n, err := s.rdb.SRem(ctx, s.keys.blocks(s.pseudo(user)), s.pseudo(target)).Result()
	if err != nil {
		return false, fmt.Errorf("persistence: unblock: %w", err)
	}
	return n > 0, nil
}

// Blocked reports whether user has blocked target.
func (s *Store) Blocked(ctx context.Context, user, target string) (bool, error) {
	ok, err := s.rdb.SIsMember(ctx, s.keys.blocks(s.pseudo(user)), s.pseudo(target)).Result()
	if err != nil {
		return false, fmt.Errorf("persistence: blocked: %w", err)
	}
	return ok, nil
}

// BlockedBetween reports, in one round trip, whether a has blocked b and
// whether b has blocked a.
func (s *Store) BlockedBetween(ctx context.Context, a, b string) (aBlocksB, bBlocksA bool, err error) {
	pa, pb := s.pseudo(a), s.pseudo(b)
	pipe := s.rdb.Pipeline()
	ab := pipe.SIsMember(ctx, s.keys.blocks(pa), pb)
	ba := pipe.SIsMember(ctx, s.keys.blocks(pb), pa)
	if _, err := pipe.Exec(ctx); err != nil {
		return false, false, fmt.Errorf("persistence: blocked between: %w", err)
	}
	return ab.Val(), ba.Val(), nil
}

// BlockCount returns how many users user has blocked.
func (s *Store) BlockCount(ctx context.Context, user string) (int64, error) {
	n, err := s.rdb.SCard(ctx, s.keys.blocks(s.pseudo(user))).Result()
	if err != nil {
		return 0, fmt.Errorf("persistence: block count: %w", err)
	}
	return n, nil
}

// DeleteBlocks deletes user's blocks, for a user who asks to be
// forgotten. Other users' blocks of user are theirs and stay.
func (s *Store) DeleteBlocks(ctx context.Context, user string) error {
	if err := s.rdb.Del(ctx, s.keys.blocks(s.pseudo(user))).Err(); err != nil {
		return fmt.Errorf("persistence: deleting the blocks of %s: %w", user, err)
	}
	if err := s.rdb.Del(ctx, s.keys.blocks(user)).Err(); err != nil { // from before MigrateBlocks
		return fmt.Errorf("persistence: deleting the blocks of %s: %w", user, err)
	}
	return nil
}

// MigrateBlocks moves the blocks stored before blocks were keyed by
// pseudonym: each set named by a Discord ID goes to the set named by its
// pseudonym, its members that are Discord IDs turned into theirs, so
// those blocks keep refusing challenges. (Sets named by a pseudonym only
// ever get pseudonyms.) serve runs it at every start, before it serves,
// so that blocks a replica of the earlier version writes during a rolling
// upgrade are moved by the next start. It is idempotent (a second run
// finds nothing) and safe beside other replicas: members are added to the
// new set before they leave the old one, so a block is never missing,
// only briefly in both. It reads every key once (SCAN, every master of a
// Cluster) and reports how many blocks it moved.
func (s *Store) MigrateBlocks(ctx context.Context) (int, error) {
	p := pattern(s.keys.blocks(wild))
	var owners []string
	err := s.scanKeys(ctx, func(page []string) error {
		for _, k := range page {
			if c, ok := p.match(k, false); ok && !isPseudonym(c[0]) {
				owners = append(owners, c[0])
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("persistence: migrating blocks: %w", err)
	}
	moved := 0
	for _, owner := range owners {
		n, err := s.migrateBlocks(ctx, owner)
		if err != nil {
			return moved, fmt.Errorf("persistence: migrating the blocks of %s: %w", owner, err)
		}
		moved += n
	}
	return moved, nil
}

// migrateBlocks moves the blocks in the set named by the Discord ID user
// to the set named by user's pseudonym and returns how many it moved.
// The two sets are in different slots: two steps, adding first.
func (s *Store) migrateBlocks(ctx context.Context, user string) (int, error) {
	from := s.keys.blocks(user)
	members, err := s.rdb.SMembers(ctx, from).Result()
	if err != nil || len(members) == 0 {
		return 0, err
	}
	add, drop := make([]any, len(members)), make([]any, len(members))
	for i, m := range members {
		add[i], drop[i] = m, m
		if !isPseudonym(m) {
			add[i] = s.pseudo(m)
		}
	}
	if err := s.rdb.SAdd(ctx, s.keys.blocks(s.pseudo(user)), add...).Err(); err != nil {
		return 0, err
	}
	n, err := s.rdb.SRem(ctx, from, drop...).Result()
	return int(n), err
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
// never refuses and stores nothing. The key names the user by pseudonym.
func (s *Store) ChallengeCooldown(ctx context.Context, guild, user string, d time.Duration, now time.Time) (ok bool, until time.Time, err error) {
	if d <= 0 {
		return true, now, nil
	}
	end := now.Add(d).UnixMilli()
	res, err := cooldownScript.Run(ctx, s.rdb, []string{s.keys.challengeCooldown(guild, s.pseudo(user))},
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
	err := releaseScript.Run(ctx, s.rdb, []string{s.keys.challengeCooldown(guild, s.pseudo(user))}, until.UnixMilli()).Err()
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

// userBucketPrefix starts the name of a user's rate-limit bucket in
// AllowUser, before their pseudonym.
const userBucketPrefix = "u:"

// AllowUser takes one action from user's own rate-limit bucket, as Allow
// does; the bucket is named by the user's pseudonym, so the key that
// holds it never names the user (and outlives a ForgetUser, expiring by
// itself: forgetting must not refill it).
func (s *Store) AllowUser(ctx context.Context, user string, capacity int, perSecond float64, now time.Time) (ok bool, retryAfter time.Duration, err error) {
	if user == "" {
		return false, 0, fmt.Errorf("%w: rate limit of an empty user ID", ErrInvalid)
	}
	return s.Allow(ctx, userBucketPrefix+s.pseudo(user), capacity, perSecond, now)
}

// Allow takes one action from the rate-limit bucket named bucket (a name
// that holds no user ID: AllowUser names a user's), shared by every
// process on this Redis: a bucket of capacity actions, full at first,
// refilled at perSecond actions a second. It reports whether the action
// is allowed and, when it is not, how long until it would be. A refused
// action takes nothing from the bucket. now is passed in (the caller's
// clock decides, so tests are exact); the key lives only until the
// bucket would be full again. It is on the path of every interaction, so
// it goes through the batcher of the game path: one round trip, shared
// with other callers' under load.
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

// ThrottleUser is Throttle for an action of one user (such as
// "forget-me"): the throttle's key names the user by pseudonym, so it
// can outlive a ForgetUser (and expire by itself) without naming them.
func (s *Store) ThrottleUser(ctx context.Context, action, user string, d time.Duration, now time.Time) (ok bool, until time.Time, err error) {
	if action == "" || user == "" {
		return false, time.Time{}, fmt.Errorf("%w: throttle %q of user %q", ErrInvalid, action, user)
	}
	return s.Throttle(ctx, action+":"+s.pseudo(user), d, now)
}

// Throttle lets an expensive action named name (a server's, say: a name
// that holds no user ID; ThrottleUser names a user's) run at most once
// every d: the first call in a window of d claims it (ok true, until its
// end), later ones are refused with the end of the window. It shares the cooldowns' atomic script, so replicas agree. A d
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
