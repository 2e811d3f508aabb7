package persistence

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tttbot/ttt-bot/game"
)

// How turn deadlines work.
//
// Every live game has one deadline (Session.Deadline): when its challenge
// expires, when the player to move runs out of time, or, without a clock,
// when it counts as abandoned. A global sorted set (keys.due) indexes the
// games by deadline. The index lives in its own slot, so in Cluster it
// cannot change in the same atomic step as the game; instead it is kept
// safe rather than exact:
//
//   - every index write is ZADD LT (add, or lower the score, never raise
//     it). Before a change that creates a deadline or brings it forward
//     (CreateGame, Accept, a person's move that leaves the computer
//     AIGrace to reply, a move made after the old deadline had passed),
//     such an entry is written; a move that only pushes the deadline
//     back writes nothing. So an entry is never later
//     than its game's real deadline, only early, and an early entry costs
//     one wasted claim: ApplyDue re-reads the game, sees the deadline has
//     moved, and re-indexes it. A game that is over is removed from the
//     index after its last change (if that fails, the sweeper drops the
//     entry when it comes due).
//   - ClaimDueDeadlines moves due entries atomically from the index to a
//     claimed set scored by the end of a lease (claimLease). Two sweepers
//     never claim the same entry at once; an entry whose sweeper died
//     comes back when its lease ends, so a deadline is never lost.
//   - ApplyDue ends the game with a compare-and-set on its version, so the
//     timeout applies at most once even if an entry is claimed twice, and
//     a move made meanwhile (a new version, a later deadline) wins: a
//     stale deadline does nothing.
//
// So a player who runs out of time loses on time exactly once, and never
// while their game owes a board (delivery.go): the turn is given its
// whole time again instead.

// claimLease is how long a sweeper owns the entries it claimed before
// another sweeper may claim them again.
const claimLease = time.Minute

// Due is a game whose deadline has passed, claimed by a sweeper.
type Due struct {
	// Game is the game to apply the deadline to.
	Game GameID
	// At is the index score when claimed: the deadline, or the end of an
	// earlier claim's lease that ran out.
	At time.Time
}

// gameClaimScript moves up to ARGV[3] entries scored at most ARGV[1] from
// KEYS[2] (leases that ran out, first) and KEYS[1] (due games) into
// KEYS[2] scored ARGV[2], the end of the new lease, and returns them with
// their old scores.
var gameClaimScript = redis.NewScript(`
local out = {}
local limit = tonumber(ARGV[3])
for _, key in ipairs({KEYS[2], KEYS[1]}) do
  local n = limit - #out / 2
  if n <= 0 then break end
  local items = redis.call('ZRANGEBYSCORE', key, '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, n)
  for i = 1, #items, 2 do
    redis.call('ZREM', key, items[i])
    redis.call('ZADD', KEYS[2], ARGV[2], items[i])
    out[#out + 1] = items[i]
    out[#out + 1] = items[i + 1]
  end
end
return out
`)

// ClaimDueDeadlines claims up to limit games whose deadline is at or
// before now. Each claimed entry belongs to this caller for a lease (one
// minute); pass each to ApplyDue. Entries not applied within the lease
// are claimed again by the next sweep, here or in another process.
func (s *Store) ClaimDueDeadlines(ctx context.Context, now time.Time, limit int) ([]Due, error) {
	if limit <= 0 {
		return nil, nil
	}
	res, err := gameClaimScript.Run(ctx, s.rdb, []string{s.keys.due(), s.keys.claimed()},
		now.UnixMilli(), now.Add(claimLease).UnixMilli(), limit).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("persistence: claim deadlines: %w", err)
	}
	return dueList(res)
}

// ListDue returns up to limit games whose deadline is at or before now,
// without claiming them, for inspection (stale challenges, stuck games).
func (s *Store) ListDue(ctx context.Context, now time.Time, limit int) ([]Due, error) {
	if limit <= 0 {
		return nil, nil
	}
	zs, err := s.rdb.ZRangeByScoreWithScores(ctx, s.keys.due(), &redis.ZRangeBy{
		Min: "-inf", Max: strconv.FormatInt(now.UnixMilli(), 10), Count: int64(limit)}).Result()
	if err != nil {
		return nil, fmt.Errorf("persistence: list deadlines: %w", err)
	}
	out := make([]Due, 0, len(zs))
	for _, z := range zs {
		m, _ := z.Member.(string)
		out = append(out, Due{Game: GameID(m), At: time.UnixMilli(int64(z.Score)).UTC()})
	}
	return out, nil
}

// dueList decodes a member, score, member, score... reply.
func dueList(res []string) ([]Due, error) {
	out := make([]Due, 0, len(res)/2)
	for i := 0; i+1 < len(res); i += 2 {
		ms, err := strconv.ParseFloat(res[i+1], 64)
		if err != nil {
			return nil, fmt.Errorf("%w: deadline score %q", ErrCorrupt, res[i+1])
		}
		out = append(out, Due{Game: GameID(res[i]), At: time.UnixMilli(int64(ms)).UTC()})
	}
	return out, nil
}

// ApplyDue applies a claimed deadline, at the Store's clock: an open
// challenge expires (StatusExpired, ByExpiry), the player to move in a game
// with a clock loses on time (StatusFinished, ByTimeout), and a game
// without a clock is abandoned (StatusExpired, ByExpiry); where the
// computer is to reply to a person, the reply is overdue: the game is
// returned unchanged and active for the caller to play the reply, and
// indexed again AIGrace later; a player whose game owes a board (Owe)
// gets the turn's whole time again instead of losing on time. It reports the game and whether the caller
// must act on it (it was ended, or its reply is overdue); if the deadline
// is stale (a move came first, the game is over or gone) it changes
// nothing and returns false. Either way the claim is released. On an error the claim stays and
// comes back after its lease.
func (s *Store) ApplyDue(ctx context.Context, d Due) (*Session, bool, error) {
	for range 5 {
		cur, err := s.Game(ctx, d.Game)
		switch {
		case errors.Is(err, ErrNotFound):
			return nil, false, s.ack(ctx, d)
		case errors.Is(err, ErrCorrupt):
			// Retrying cannot help; drop the entry and report the record.
			return nil, false, errors.Join(err, s.ack(ctx, d))
		case err != nil:
			return nil, false, err
		}
		now := s.now()
		if !cur.Status.Live() {
			return cur, false, s.ack(ctx, d)
		}
		if cur.Deadline.IsZero() {
			s.schedule(cur, cur.Updated) // a record from before deadlines: give it one
		}
		if cur.Deadline.After(now) {
			// Early or stale entry: index the real deadline, then let go.
			// LT keeps an earlier entry someone added meanwhile (Accept).
			if err := s.reschedule(ctx, cur.ID, cur.Deadline); err != nil {
				return nil, false, err
			}
			return cur, false, s.ack(ctx, d)
		}
		if aiReplying(cur) {
			// The computer's reply is overdue: give the game to the
			// caller to play it, unchanged; the entry comes back after
			// another AIGrace in case the caller fails too.
			if err := s.reschedule(ctx, cur.ID, now.Add(s.opts.AIGrace)); err != nil {
				return nil, false, err
			}
			return cur, true, s.ack(ctx, d)
		}
		if cur.Status == StatusActive && cur.TurnTime > 0 {
			// A player never loses on time a turn whose board may not
			// have reached them: the turn starts again, and the process
			// that shows the board restarts it from then.
			_, owed, err := s.OwedVersion(ctx, cur.ID)
			if err != nil {
				return nil, false, err
			}
			if owed {
				next := cur.clone()
				next.Updated, next.Deadline = now, now.Add(cur.TurnTime)
				err := s.commit(ctx, cur, next)
				if errors.Is(err, ErrConflict) {
					continue
				}
				if err != nil {
					return nil, false, err
				}
				if err := s.reschedule(ctx, cur.ID, next.Deadline); err != nil {
					return nil, false, err
				}
				return next, false, s.ack(ctx, d)
			}
		}
		next, err := overdue(cur, now)
		if err != nil {
			return nil, false, err
		}
		err = s.commit(ctx, cur, next)
		if errors.Is(err, ErrConflict) {
			continue // changed under us: look again
		}
		if err != nil {
			return nil, false, err
		}
		return next, true, s.ack(ctx, d)
	}
	return nil, false, fmt.Errorf("%w: game %s kept changing while its deadline was applied", ErrConflict, d.Game)
}

// reschedule indexes the deadline of game id at at, unless the index
// already holds an earlier one for it (ZADD LT).
func (s *Store) reschedule(ctx context.Context, id GameID, at time.Time) error {
	if err := s.rdb.ZAddLT(ctx, s.keys.due(), redis.Z{Score: float64(at.UnixMilli()), Member: string(id)}).Err(); err != nil {
		return fmt.Errorf("persistence: reschedule %s: %w", id, err)
	}
	return nil
}

// overdue returns cur, a live game past its deadline at now, ended: a
// game under way with a turn time is lost on time by the side to move,
// any other (a challenge, or a game without a turn time gone idle)
// expires.
func overdue(cur *Session, now time.Time) (*Session, error) {
	next := cur.clone()
	next.Updated = now
	switch {
	case cur.Status == StatusActive && !cur.GameEnd().IsZero() && !now.Before(cur.GameEnd()):
		// The game's whole time ran out: it ends without a result.
		finishSession(next, game.Ongoing, ByExpiry)
		next.Status = StatusExpired
	case cur.Status == StatusActive && cur.TurnTime > 0:
		p, err := cur.Board()
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		finishSession(next, sessionWinFor(cur.Acting(p).Other()), ByTimeout)
	default:
		finishSession(next, game.Ongoing, ByExpiry)
		next.Status = StatusExpired
	}
	return next, nil
}

// ack releases a claim.
func (s *Store) ack(ctx context.Context, d Due) error {
	if err := s.rdb.ZRem(ctx, s.keys.claimed(), string(d.Game)).Err(); err != nil {
		return fmt.Errorf("persistence: release claim on %s: %w", d.Game, err)
	}
	return nil
}

// Sweep claims up to limit due games and applies each (ClaimDueDeadlines
// then ApplyDue), returning the games to act on: games lost on time,
// challenges and games that expired, and (still active) games whose
// computer reply is overdue. A bot process runs it every few seconds; any
// number of processes may, and each change happens once (an overdue
// reply is handed to one caller per AIGrace). The
// first error stops the sweep; claims not applied come back after their
// lease.
func (s *Store) Sweep(ctx context.Context, limit int) ([]*Session, error) {
	due, err := s.ClaimDueDeadlines(ctx, s.now(), limit)
	if err != nil {
		return nil, err
	}
	var changed []*Session
	for _, d := range due {
		g, ok, err := s.ApplyDue(ctx, d)
		if err != nil {
			return changed, err
		}
		if ok {
			changed = append(changed, g)
		}
	}
	return changed, nil
}
