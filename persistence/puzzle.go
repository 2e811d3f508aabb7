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

// PuzzleTTL is how long a day's puzzle is kept after it was drawn: long
// enough for everyone to finish the day's attempts, whatever their time
// zone.
const PuzzleTTL = 3 * 24 * time.Hour

// puzzleDayFormat is the layout of a puzzle day, "2026-11-24".
const puzzleDayFormat = "2006-01-02"

// maxPuzzleKey bounds Session.Puzzle.
const maxPuzzleKey = 64

// puzzleAttemptWindow is how many days, back from the newest day a user has
// an attempt on in a guild, their attempts are remembered for the
// first-attempt rule; an attempt on an earlier day is not counted.
const puzzleAttemptWindow = 7

// puzzleStreakBase separates the two parts of a puzzle leaderboard score:
// solved * puzzleStreakBase + streak, so the board orders by puzzles solved,
// then by streak (which is capped below the base).
const puzzleStreakBase = 1 << 20

// PuzzleStats are one user's daily-puzzle results in one guild.
type PuzzleStats struct {
	// Solved and Failed count first attempts by their outcome (later
	// attempts of the same day's puzzle on the same board do not count).
	Solved, Failed int
	// Streak is the number of consecutive days, ending on LastDay, with at
	// least one puzzle solved, as of the newest day the user has an
	// attempt counted on: 0 when LastDay is before the day before that one
	// (a day without a solve broke it). Use StreakOn to see it from
	// another day, such as today.
	Streak int
	// BestStreak is the longest streak the user has had.
	BestStreak int
	// LastDay is the newest day ("2026-11-24") with a puzzle solved; empty
	// when none was.
	LastDay string
}

// StreakOn returns the streak as seen on day ("YYYY-MM-DD"): Streak while
// LastDay is day or the day before, else 0 (a day passed without a solve).
// A day that does not parse gives 0.
func (p PuzzleStats) StreakOn(day string) int {
	d, err := puzzleDay(day)
	if err != nil || p.LastDay == "" {
		return 0
	}
	last, err := puzzleDay(p.LastDay)
	if err != nil || last < d-1 {
		return 0
	}
	return p.Streak
}

// PuzzleStanding is a place on a guild's puzzle leaderboard.
type PuzzleStanding struct {
	// User is the Discord user ID.
	User string
	// Solved is the number of puzzles the user solved (first attempts).
	Solved int
	// Streak is the user's streak as of their newest attempt (see
	// PuzzleStats.Streak).
	Streak int
}

// puzzleDay parses a day "YYYY-MM-DD" into days since 1970-01-01.
func puzzleDay(day string) (int64, error) {
	t, err := time.Parse(puzzleDayFormat, day)
	if err != nil || t.Format(puzzleDayFormat) != day {
		return 0, fmt.Errorf("%w: puzzle day %q: want YYYY-MM-DD", ErrInvalid, day)
	}
	return t.Unix() / 86400, nil
}

// checkPuzzleArgs validates a guild and a day and returns the day number
// and the rules in canonical notation.
func (s *Store) checkPuzzleArgs(guild, day, rules string) (int64, string, error) {
	if strings.ContainsAny(guild, "{}") || len(guild) > 64 {
		return 0, "", fmt.Errorf("%w: guild %q: a guild ID is at most 64 bytes without braces", ErrInvalid, guild)
	}
	n, err := puzzleDay(day)
	if err != nil {
		return 0, "", err
	}
	r, err := ParseBoardRules(rules)
	if err != nil {
		return 0, "", fmt.Errorf("%w: puzzle rules: %w", ErrInvalid, err)
	}
	return n, r.String(), nil
}

// DailyPuzzle returns the puzzle of a guild, a day ("2026-11-24") and
// rules: the one stored if there is one, else the one make returns, stored
// for PuzzleTTL if no other caller stored one first (SET NX); of two
// racing callers, on one replica or two, both get the value that won. So
// everyone in a guild gets the same puzzle for a day and board. make's
// error is returned wrapped (errors.Is works on it) and nothing is stored.
// What the string holds is the caller's (a position in notation, say); it
// must not be empty. Guild "" is the scope of direct messages.
func (s *Store) DailyPuzzle(ctx context.Context, guild, day, rules string, make func() (string, error)) (string, error) {
	_, rules, err := s.checkPuzzleArgs(guild, day, rules)
	if err != nil {
		return "", err
	}
	if make == nil {
		return "", fmt.Errorf("%w: daily puzzle %s %s: no make function", ErrInvalid, day, rules)
	}
	key := s.keys.puzzleDaily(guild, day, rules)
	v, err := s.rdb.Get(ctx, key).Result()
	if err == nil {
		return v, nil
	}
	if !errors.Is(err, redis.Nil) {
		return "", fmt.Errorf("persistence: daily puzzle %s %s: %w", day, rules, err)
	}
	made, err := make()
	if err != nil {
		return "", fmt.Errorf("persistence: making the daily puzzle %s %s: %w", day, rules, err)
	}
	if made == "" {
		return "", fmt.Errorf("%w: daily puzzle %s %s: make returned an empty puzzle", ErrInvalid, day, rules)
	}
	won, _, err := s.setOrGet(ctx, key, made, PuzzleTTL)
	if err != nil {
		return "", fmt.Errorf("persistence: storing the daily puzzle %s %s: %w", day, rules, err)
	}
	return won, nil
}

// puzzleRecordScript counts a user's first attempt of a day's puzzle on a
// board, in one guild, exactly once, and updates the leaderboard.
//
// KEYS[1] the user's stats hash, KEYS[2] the leaderboard.
// ARGV[1] the day ("YYYY-MM-DD"), ARGV[2] its number (days since 1970),
// ARGV[3] the rules, ARGV[4] "1" solved or "0" failed, ARGV[5] the attempt
// window in days, ARGV[6] the user, ARGV[7] the streak base of the score.
//
// The hash holds solved, failed, streak (the streak ending on the last
// solved day), best, last (that day) and lastn (its number), top (the
// newest day number with an attempt) and one field t:<day number>:<rules>
// per attempt within the window back from top (older ones are pruned when
// top moves on). An attempt on a day at or before top - window is not
// counted: its marker may be gone.
//
// Replies {counted (1 or 0), solved, failed, shown streak, best, last}: the
// shown streak is the streak if last is top or the day before, else 0.
var puzzleRecordScript = redis.NewScript(`
local n = tonumber(ARGV[2])
local w = tonumber(ARGV[5])
local top = tonumber(redis.call('HGET', KEYS[1], 'top'))
local function reply(counted)
  local h = redis.call('HMGET', KEYS[1], 'solved', 'failed', 'streak', 'best', 'last', 'lastn', 'top')
  local streak = tonumber(h[3]) or 0
  local lastn, t = tonumber(h[6]), tonumber(h[7])
  if not lastn or not t or lastn < t - 1 then streak = 0 end
  return {counted, tonumber(h[1]) or 0, tonumber(h[2]) or 0, streak, tonumber(h[4]) or 0, h[5] or ''}
end
if top and n <= top - w then return reply(0) end
if redis.call('HSETNX', KEYS[1], 't:' .. ARGV[2] .. ':' .. ARGV[3], ARGV[4]) == 0 then return reply(0) end
if not top or n > top then
  top = n
  redis.call('HSET', KEYS[1], 'top', ARGV[2])
  for _, f in ipairs(redis.call('HKEYS', KEYS[1])) do
    local d = tonumber(string.match(f, '^t:(%-?%d+):'))
    if d and d <= n - w then redis.call('HDEL', KEYS[1], f) end
  end
end
local lastn = tonumber(redis.call('HGET', KEYS[1], 'lastn'))
local streak = tonumber(redis.call('HGET', KEYS[1], 'streak')) or 0
if ARGV[4] == '1' then
  redis.call('HINCRBY', KEYS[1], 'solved', 1)
  if not lastn or n > lastn then
    if lastn == n - 1 then streak = streak + 1 else streak = 1 end
    lastn = n
    redis.call('HSET', KEYS[1], 'lastn', ARGV[2], 'last', ARGV[1], 'streak', streak)
    if streak > (tonumber(redis.call('HGET', KEYS[1], 'best')) or 0) then
      redis.call('HSET', KEYS[1], 'best', streak)
    end
  end
else
  redis.call('HINCRBY', KEYS[1], 'failed', 1)
end
local solved = tonumber(redis.call('HGET', KEYS[1], 'solved')) or 0
if solved > 0 then
  local shown = streak
  if not lastn or lastn < top - 1 then shown = 0 end
  local base = tonumber(ARGV[7])
  redis.call('ZADD', KEYS[2], string.format('%.0f', solved * base + math.min(shown, base - 1)), ARGV[6])
end
return reply(1)
`)

// RecordPuzzle counts a user's attempt of the daily puzzle of a guild, a
// day ("2026-11-24") and rules, solved or not, and returns their stats in
// the guild with whether this call counted it. Only the first attempt per
// guild, user, day and rules counts, exactly once (one Lua script updates
// the stats and the leaderboard): later attempts, retries and a second
// replica's report return counted false and the stats unchanged.
//
// The streak counts consecutive days, by their day strings, with at least
// one puzzle solved in the guild on any board:
//
//   - a solve on the day after the last solved day adds one; a solve on the
//     same day changes nothing; a solve after a day without one starts a
//     new streak of 1;
//   - a failed attempt changes no streak: another board's puzzle solved the
//     same day keeps it going;
//   - the streak shown (PuzzleStats.Streak, and on the leaderboard) is as
//     of the newest day the user has an attempt counted on: 0 when the
//     last solved day is before the day before it;
//   - a late solve of a day before the last solved day counts in Solved
//     but leaves the streak as it is;
//   - an attempt on a day 7 or more days before the newest day the user
//     has an attempt on is not counted (counted false).
//
// Guild "" is the scope of direct messages.
func (s *Store) RecordPuzzle(ctx context.Context, guild, user, day, rules string, solved bool) (PuzzleStats, bool, error) {
	n, rules, err := s.checkPuzzleArgs(guild, day, rules)
	if err != nil {
		return PuzzleStats{}, false, err
	}
	if user == "" {
		return PuzzleStats{}, false, fmt.Errorf("%w: puzzle attempt without a user", ErrInvalid)
	}
	// The index DeleteUserStats reads goes first, so no stats are ever
	// unindexed (it is a set: adding again changes nothing).
	if guild != "" {
		if err := s.rdb.SAdd(ctx, s.keys.ratingGuilds(user), guild).Err(); err != nil {
			return PuzzleStats{}, false, fmt.Errorf("persistence: puzzle attempt of %s in %s: %w", user, ratingScopeName(guild), err)
		}
	}
	ok := "0"
	if solved {
		ok = "1"
	}
	res, err := puzzleRecordScript.Run(ctx, s.rdb, []string{s.keys.puzzleStats(guild, user), s.keys.puzzleBoard(guild)},
		day, n, rules, ok, puzzleAttemptWindow, user, puzzleStreakBase).Slice()
	if err != nil {
		return PuzzleStats{}, false, fmt.Errorf("persistence: puzzle attempt of %s in %s: %w", user, ratingScopeName(guild), err)
	}
	if len(res) != 6 {
		return PuzzleStats{}, false, fmt.Errorf("%w: puzzle attempt of %s: reply %v", ErrCorrupt, user, res)
	}
	num := func(v any) int { i, _ := v.(int64); return int(i) }
	last, _ := res[5].(string)
	st := PuzzleStats{Solved: num(res[1]), Failed: num(res[2]), Streak: num(res[3]), BestStreak: num(res[4]), LastDay: last}
	return st, num(res[0]) == 1, nil
}

// PuzzleStatsOf returns a user's puzzle stats in a guild ("" for direct
// messages), the streak as RecordPuzzle shows it (see PuzzleStats.Streak).
// It fails with ErrNotFound when the user has no attempt counted there.
func (s *Store) PuzzleStatsOf(ctx context.Context, guild, user string) (PuzzleStats, error) {
	vals, err := s.rdb.HMGet(ctx, s.keys.puzzleStats(guild, user), "solved", "failed", "streak", "best", "last", "lastn", "top").Result()
	if err != nil {
		return PuzzleStats{}, fmt.Errorf("persistence: puzzle stats of %s in %s: %w", user, ratingScopeName(guild), err)
	}
	str := func(i int) string { v, _ := vals[i].(string); return v }
	num := func(i int) int { n, _ := strconv.Atoi(str(i)); return n }
	if str(0) == "" && str(1) == "" {
		return PuzzleStats{}, fmt.Errorf("%w: no puzzle stats of %s in %s", ErrNotFound, user, ratingScopeName(guild))
	}
	st := PuzzleStats{Solved: num(0), Failed: num(1), Streak: num(2), BestStreak: num(3), LastDay: str(4)}
	if str(5) == "" || num(5) < num(6)-1 {
		st.Streak = 0
	}
	return st, nil
}

// PuzzleLeaderboard returns up to limit places of a guild's puzzle
// leaderboard ("" for direct messages): users with at least one puzzle
// solved, by puzzles solved, then by streak (as of each user's newest
// attempt), ties in descending order of user ID.
func (s *Store) PuzzleLeaderboard(ctx context.Context, guild string, limit int) ([]PuzzleStanding, error) {
	if limit <= 0 {
		return nil, fmt.Errorf("%w: puzzle leaderboard of %d places", ErrInvalid, limit)
	}
	zs, err := s.rdb.ZRevRangeWithScores(ctx, s.keys.puzzleBoard(guild), 0, int64(limit)-1).Result()
	if err != nil {
		return nil, fmt.Errorf("persistence: %s puzzle leaderboard: %w", ratingScopeName(guild), err)
	}
	out := make([]PuzzleStanding, len(zs))
	for i, z := range zs {
		u, _ := z.Member.(string)
		score := int64(z.Score)
		out[i] = PuzzleStanding{User: u, Solved: int(score / puzzleStreakBase), Streak: int(score % puzzleStreakBase)}
	}
	return out, nil
}
