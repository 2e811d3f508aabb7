package persistence

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// How boards reach the screen.
//
// A game's board is a Discord message that Discord's API may fail to
// change now and then. What the screen should show is the game as it is;
// what it last showed is known only to the process that wrote it. When a
// process cannot be sure its write of version V of a game reached Discord
// (it is about to make one outside an interaction's answer, or it gave up
// on one), it records that the game owes a board: Owe(id, V, retryAt).
// Any process's sweeper claims owed games that are due (ClaimOwed, with a
// lease like the deadlines' claims), shows each game as it then is, and
// records the delivery (Delivered), which clears the debt of every
// version up to the one shown. So a failed write, a stopped process or a
// long outage of Discord delays a board but never loses it.
//
//	ttt:{delivery}:owed          zset: game ID, scored by when to try next (ms)
//	ttt:{delivery}:versions      hash: game ID -> the highest version owed
//
// While a game owes a board, the player to move may not have seen their
// turn: ApplyDue does not make them lose on time then, but gives the turn
// its whole time again (see ApplyDue), and the process that finally shows
// the board restarts the turn's clock from that moment (RestartClock).

// owedLease is how long a claimed owed game belongs to its claimer before
// another sweeper may claim it again: longer than a write's retries.
const owedLease = 45 * time.Second

// Owed is a game whose board, or a tournament whose sign-up message,
// may not be on screen.
type Owed struct {
	// Game is the game; empty for a tournament.
	Game GameID
	// Tournament is the tournament; empty for a game.
	Tournament string
	// Version is the highest version of the game that is owed.
	Version int64
}

// owedTournament is the prefix of a tournament's member in the owed index
// (a game ID never starts with it: it starts with a channel ID).
const owedTournament = "tn:"

// OweTournament records that tournament id's sign-up message may not show
// the tournament as it is, to be shown by a sweeper at retryAt at the
// latest.
func (s *Store) OweTournament(ctx context.Context, id string, retryAt time.Time) error {
	return s.Owe(ctx, GameID(owedTournament+id), 0, retryAt)
}

// TournamentShown records that tournament id's sign-up message shows it
// as it is.
func (s *Store) TournamentShown(ctx context.Context, id string) error {
	_, err := s.Delivered(ctx, GameID(owedTournament+id), 0)
	return err
}

// oweScript records that KEYS[1]'s member ARGV[1] owes version ARGV[2]
// (keeping a higher version owed) and is to be tried at ARGV[3] at the
// latest (an earlier time already set wins).
var oweScript = redis.NewScript(`
local cur = redis.call('HGET', KEYS[2], ARGV[1])
if not cur or tonumber(cur) < tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
end
redis.call('ZADD', KEYS[1], 'LT', ARGV[3], ARGV[1])
return 1
`)

// deliveredScript clears member ARGV[1]'s debt if the version shown,
// ARGV[2], is at least the version owed; it returns 1 if it did.
var deliveredScript = redis.NewScript(`
local cur = redis.call('HGET', KEYS[2], ARGV[1])
if not cur then return 0 end
if tonumber(cur) > tonumber(ARGV[2]) then return 0 end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[1], ARGV[1])
return 1
`)

// owedClaimScript leases up to ARGV[3] members of KEYS[1] scored at most
// ARGV[1] until ARGV[2] and returns them with their owed versions.
var owedClaimScript = redis.NewScript(`
local out = {}
local items = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, id in ipairs(items) do
  redis.call('ZADD', KEYS[1], ARGV[2], id)
  out[#out + 1] = id
  out[#out + 1] = redis.call('HGET', KEYS[2], id) or '0'
end
return out
`)

// Owe records that game id may not show version (or a later one) on
// screen, to be shown by a sweeper at retryAt at the latest: a time
// already set that is earlier is kept, and so is a higher version owed.
func (s *Store) Owe(ctx context.Context, id GameID, version int64, retryAt time.Time) error {
	err := oweScript.Run(ctx, s.rdb, []string{s.keys.owed(), s.keys.owedVersions()},
		string(id), version, retryAt.UnixMilli()).Err()
	if err != nil {
		return fmt.Errorf("persistence: record that game %s owes a board: %w", id, err)
	}
	return nil
}

// Delivered records that version of game id is on screen: the debt is
// cleared if no later version is owed. It reports whether a debt was
// cleared.
func (s *Store) Delivered(ctx context.Context, id GameID, version int64) (bool, error) {
	n, err := deliveredScript.Run(ctx, s.rdb, []string{s.keys.owed(), s.keys.owedVersions()},
		string(id), version).Int()
	if err != nil {
		return false, fmt.Errorf("persistence: record that game %s's board is shown: %w", id, err)
	}
	return n == 1, nil
}

// ClaimOwed claims up to limit owed games due at now: each is leased to
// the caller for owedLease (another sweeper claims it after that unless
// the caller calls Delivered, RetryOwed or DropOwed first).
func (s *Store) ClaimOwed(ctx context.Context, now time.Time, limit int) ([]Owed, error) {
	if limit <= 0 {
		return nil, nil
	}
	res, err := owedClaimScript.Run(ctx, s.rdb, []string{s.keys.owed(), s.keys.owedVersions()},
		now.UnixMilli(), now.Add(owedLease).UnixMilli(), limit).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("persistence: claim owed boards: %w", err)
	}
	out := make([]Owed, 0, len(res)/2)
	for i := 0; i+1 < len(res); i += 2 {
		v, err := strconv.ParseInt(res[i+1], 10, 64)
		if err != nil {
			return out, fmt.Errorf("%w: owed version %q of game %s", ErrCorrupt, res[i+1], res[i])
		}
		if t, ok := strings.CutPrefix(res[i], owedTournament); ok {
			out = append(out, Owed{Tournament: t})
			continue
		}
		out = append(out, Owed{Game: GameID(res[i]), Version: v})
	}
	return out, nil
}

// member is o's member of the owed index.
func (o Owed) member() string {
	if o.Tournament != "" {
		return owedTournament + o.Tournament
	}
	return string(o.Game)
}

// RetryOwed sets when o is tried next (one no longer owed stays so).
func (s *Store) RetryOwed(ctx context.Context, o Owed, at time.Time) error {
	err := s.rdb.ZAddXX(ctx, s.keys.owed(), redis.Z{Score: float64(at.UnixMilli()), Member: o.member()}).Err()
	if err != nil {
		return fmt.Errorf("persistence: reschedule the owed message of %s: %w", o.member(), err)
	}
	return nil
}

// DropOwed forgets that o is owed (it cannot be shown: the game, the
// tournament or its channel is gone).
func (s *Store) DropOwed(ctx context.Context, o Owed) error {
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.ZRem(ctx, s.keys.owed(), o.member())
		p.HDel(ctx, s.keys.owedVersions(), o.member())
		return nil
	})
	if err != nil {
		return fmt.Errorf("persistence: drop the owed message of %s: %w", o.member(), err)
	}
	return nil
}

// OwedCount is how many games owe a board now: the undelivered backlog.
func (s *Store) OwedCount(ctx context.Context) (int64, error) {
	n, err := s.rdb.ZCard(ctx, s.keys.owed()).Result()
	if err != nil {
		return 0, fmt.Errorf("persistence: count owed boards: %w", err)
	}
	return n, nil
}

// OwedVersion returns the highest version of game id owed, and whether
// the game owes a board at all.
func (s *Store) OwedVersion(ctx context.Context, id GameID) (int64, bool, error) {
	v, err := s.rdb.HGet(ctx, s.keys.owedVersions(), string(id)).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("persistence: read the owed board of game %s: %w", id, err)
	}
	return v, true, nil
}

// RestartClock starts the turn of the person to move in game id again at
// from, when the board showing their turn reached the screen only then:
// the deadline becomes from plus the turn time, unless it is later
// already. It changes nothing (and returns the game as it is) for a game
// not at version (0: any), not active, without a clock, or with the
// computer to move.
func (s *Store) RestartClock(ctx context.Context, id GameID, version int64, from time.Time) (*Session, error) {
	var unchanged *Session
	next, err := s.update(ctx, id, version, func(cur, next *Session, p Board) error {
		if cur.Status != StatusActive || cur.TurnTime <= 0 || cur.Seat(cur.Acting(p)).IsAI() ||
			!cur.Deadline.Before(from.Add(cur.TurnTime)) {
			unchanged = cur
			return errUnchanged
		}
		next.Deadline = from.Add(cur.TurnTime)
		if end := cur.GameEnd(); !end.IsZero() && end.Before(next.Deadline) {
			next.Deadline = end // the game's whole time still runs out first
		}
		return nil
	})
	if errors.Is(err, errUnchanged) {
		return unchanged, nil
	}
	// The deadline only moved back: the index entry, early now, is
	// rescheduled when it comes due (see deadline.go).
	return next, err
}

// errUnchanged stops an update that has nothing to change.
var errUnchanged = errors.New("persistence: nothing to change")
