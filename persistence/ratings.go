package persistence

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tttbot/ttt-bot/game"
)

// Elo settings of the ratings of human-vs-human games. A player's expected
// score against an opponent is E = 1 / (1 + 10^((Ro - R) / 400)); after a
// game with score S (1 win, 0.5 draw, 0 loss) the rating becomes
// R + RatingK * (S - E). Ratings are kept per guild and globally.
const (
	// RatingStart is the rating of a player's first rated game.
	RatingStart = 1200.0
	// RatingK is the K-factor: the most a rating moves in one game is K.
	// 32 suits a casual game with few games per player.
	RatingK = 32.0
)

// ratingMarkerTTL is how long a scope remembers that it counted a game, so
// that a retry (after a timeout, from a second replica) counts it once. It
// is far longer than any retry.
const ratingMarkerTTL = 30 * 24 * time.Hour

// ratingScript counts one finished game in one scope (a guild or global),
// exactly once: it sets the scope's applied-marker for the game and does
// nothing if it was already set. All keys are in the scope's slot.
//
// KEYS[1] applied marker, KEYS[2] leaderboard, KEYS[3] stats of user A,
// KEYS[4] stats of user B (human games; else unused), KEYS[5], KEYS[6]
// guild indexes of A and B (global scope only).
// ARGV[1] marker TTL in seconds, ARGV[2] "hh" (human vs human, rated),
// "hn" (human vs human, not rated: results counted, ratings kept) or "ha"
// (human A vs AI), ARGV[3] A's result "w", "l" or "d", ARGV[4] A, ARGV[5]
// B, ARGV[6] AI level, ARGV[7] K, ARGV[8] start rating, ARGV[9] guild to
// index ("" for none).
// Returns 1 when counted, 0 when the game was already counted here.
var ratingScript = redis.NewScript(`
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1]) then
  return 0
end
local res = ARGV[3]
local field = {w = 'wins', l = 'losses', d = 'draws'}
local opp = {w = 'l', l = 'w', d = 'd'}
local function count(key, r)
  redis.call('HINCRBY', key, 'games', 1)
  redis.call('HINCRBY', key, field[r], 1)
end
if ARGV[2] == 'ha' then
  count(KEYS[3], res)
  redis.call('HINCRBY', KEYS[3], 'ai:' .. ARGV[6] .. ':' .. res, 1)
  if #KEYS >= 5 and ARGV[9] ~= '' then
    redis.call('SADD', KEYS[5], ARGV[9])
  end
  return 1
end
count(KEYS[3], res)
count(KEYS[4], opp[res])
if ARGV[2] == 'hn' then
  if #KEYS >= 6 and ARGV[9] ~= '' then
    redis.call('SADD', KEYS[5], ARGV[9])
    redis.call('SADD', KEYS[6], ARGV[9])
  end
  return 1
end
local start = tonumber(ARGV[8])
local ra = tonumber(redis.call('HGET', KEYS[3], 'rating') or start)
local rb = tonumber(redis.call('HGET', KEYS[4], 'rating') or start)
local k = tonumber(ARGV[7])
local ea = 1 / (1 + 10 ^ ((rb - ra) / 400))
local sa = ({w = 1, l = 0, d = 0.5})[res]
local na = string.format('%.4f', ra + k * (sa - ea))
local nb = string.format('%.4f', rb + k * ((1 - sa) - (1 - ea)))
redis.call('HSET', KEYS[3], 'rating', na)
redis.call('HSET', KEYS[4], 'rating', nb)
redis.call('HINCRBY', KEYS[3], 'rated', 1)
redis.call('HINCRBY', KEYS[4], 'rated', 1)
redis.call('ZADD', KEYS[2], na, ARGV[4])
redis.call('ZADD', KEYS[2], nb, ARGV[5])
if #KEYS >= 6 and ARGV[9] ~= '' then
  redis.call('SADD', KEYS[5], ARGV[9])
  redis.call('SADD', KEYS[6], ARGV[9])
end
return 1
`)

// RecordResult counts a finished game in its guild's and the global stats:
// wins, losses and draws of each human player, their results against each
// AI level, and, for a game between two humans, their Elo ratings and
// leaderboard places. It is exactly-once per game ID in each scope, also
// when retried after a timeout or reported by two replicas at once: each
// scope is one Lua script on its own slot with its own applied-marker. The
// guild scope is counted first and the global scope last; the result
// reports whether this call counted the game in the global scope, so of
// any number of concurrent or repeated reports of one game exactly one
// returns true (two racing calls may each count one scope, but only one
// counts the global scope). Games between two
// AIs, against an unknown player, or of a user against themselves change
// nothing.
func (s *Store) RecordResult(ctx context.Context, g FinishedGame) (bool, error) {
	if g.ID == "" || strings.ContainsAny(g.Guild, "{}") {
		return false, fmt.Errorf("%w: result of game %q in guild %q: a game ID is required and a guild ID has no braces", ErrInvalid, g.ID, g.Guild)
	}
	var xs string // X's result: w, l or d
	switch g.Result {
	case game.XWins:
		xs = "w"
	case game.OWins:
		xs = "l"
	case game.Draw:
		xs = "d"
	default:
		return false, fmt.Errorf("%w: game %q: result %q; want X wins, O wins or draw", ErrInvalid, g.ID, g.Result)
	}
	flip := map[string]string{"w": "l", "l": "w", "d": "d"}
	var mode, a, b, level, res string
	switch {
	case g.X.User != "" && g.O.User != "" && g.X.User != g.O.User && g.Unrated:
		mode, a, b, res = "hn", g.X.User, g.O.User, xs
	case g.X.User != "" && g.O.User != "" && g.X.User != g.O.User:
		mode, a, b, res = "hh", g.X.User, g.O.User, xs
	case g.X.User != "" && g.O.User == "" && g.O.AI != "":
		mode, a, level, res = "ha", g.X.User, g.O.AI, xs
	case g.O.User != "" && g.X.User == "" && g.X.AI != "":
		mode, a, level, res = "ha", g.O.User, g.X.AI, flip[xs]
	default:
		return false, nil
	}
	scopes := []string{""}
	if g.Guild != "" {
		scopes = []string{g.Guild, ""}
	}
	counted := false
	for _, guild := range scopes {
		// scopes ends with the global scope, "".
		keys := []string{s.keys.ratingApplied(guild, g.ID), s.keys.ratingBoard(guild), s.keys.ratingStats(guild, a), s.keys.ratingStats(guild, b)}
		if guild == "" {
			keys = append(keys, s.keys.ratingGuilds(a), s.keys.ratingGuilds(b))
		}
		n, err := ratingScript.Run(ctx, s.rdb, keys,
			int64(ratingMarkerTTL/time.Second), mode, res, a, b, level,
			RatingK, RatingStart, g.Guild).Int()
		if err != nil {
			return counted, fmt.Errorf("persistence: counting game %q in %s stats: %w", g.ID, ratingScopeName(guild), err)
		}
		counted = guild == "" && n == 1
	}
	return counted, nil
}

// ratingScopeName names a scope in messages.
func ratingScopeName(guild string) string {
	if guild == "" {
		return "global"
	}
	return "guild " + guild
}

// Tally counts wins, losses and draws.
type Tally struct {
	// Wins, Losses and Draws count games by their result for the player.
	Wins, Losses, Draws int64
}

// Stats are one user's results in one scope (a guild, or global).
type Stats struct {
	// User is the Discord user ID.
	User string
	// Guild is the guild, "" for the global stats.
	Guild string
	// Games is the number of games counted.
	Games int64
	// Tally counts their results.
	Tally
	// Rating is the Elo rating from games against humans (RatingStart
	// before the first).
	Rating float64
	// Rated is the number of games against humans.
	Rated int64
	// VsAI are the results against each AI level, by level name.
	VsAI map[string]Tally
}

// Stats returns a user's stats in a guild, or the global ones for guild
// "". It fails with ErrNotFound when the user has no counted game there.
func (s *Store) Stats(ctx context.Context, guild, user string) (Stats, error) {
	h, err := s.rdb.HGetAll(ctx, s.keys.ratingStats(guild, user)).Result()
	if err != nil {
		return Stats{}, fmt.Errorf("persistence: stats of %s in %s: %w", user, ratingScopeName(guild), err)
	}
	if len(h) == 0 {
		return Stats{}, fmt.Errorf("%w: no stats of %s in %s", ErrNotFound, user, ratingScopeName(guild))
	}
	st := Stats{User: user, Guild: guild, Rating: RatingStart, VsAI: map[string]Tally{}}
	num := func(v string) int64 { n, _ := strconv.ParseInt(v, 10, 64); return n }
	for f, v := range h {
		switch f {
		case "games":
			st.Games = num(v)
		case "wins":
			st.Wins = num(v)
		case "losses":
			st.Losses = num(v)
		case "draws":
			st.Draws = num(v)
		case "rated":
			st.Rated = num(v)
		case "rating":
			r, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return Stats{}, fmt.Errorf("%w: rating %q of %s in %s", ErrCorrupt, v, user, ratingScopeName(guild))
			}
			st.Rating = r
		default:
			rest, ok := strings.CutPrefix(f, "ai:")
			i := strings.LastIndexByte(rest, ':')
			if !ok || i < 0 {
				continue
			}
			level, t := rest[:i], st.VsAI[rest[:i]]
			switch rest[i+1:] {
			case "w":
				t.Wins = num(v)
			case "l":
				t.Losses = num(v)
			case "d":
				t.Draws = num(v)
			}
			st.VsAI[level] = t
		}
	}
	return st, nil
}

// Standing is a place on a leaderboard.
type Standing struct {
	// Rank is the 1-based place, highest rating first.
	Rank int64
	// User is the Discord user ID.
	User string
	// Rating is the user's rating.
	Rating float64
}

// Leaderboard returns up to limit places of a guild's leaderboard (the
// global one for guild ""), highest rating first, skipping the first
// offset places: page p of size n is offset p*n, limit n.
func (s *Store) Leaderboard(ctx context.Context, guild string, offset, limit int64) ([]Standing, error) {
	if offset < 0 || limit <= 0 {
		return nil, fmt.Errorf("%w: leaderboard page at %d of %d places", ErrInvalid, offset, limit)
	}
	zs, err := s.rdb.ZRevRangeWithScores(ctx, s.keys.ratingBoard(guild), offset, offset+limit-1).Result()
	if err != nil {
		return nil, fmt.Errorf("persistence: %s leaderboard: %w", ratingScopeName(guild), err)
	}
	out := make([]Standing, len(zs))
	for i, z := range zs {
		u, _ := z.Member.(string)
		out[i] = Standing{Rank: offset + int64(i) + 1, User: u, Rating: z.Score}
	}
	return out, nil
}

// Rank returns a user's place on a guild's leaderboard (global for guild
// ""). It fails with ErrNotFound when the user has no rated game there.
func (s *Store) Rank(ctx context.Context, guild, user string) (Standing, error) {
	key := s.keys.ratingBoard(guild)
	pipe := s.rdb.Pipeline()
	rank := pipe.ZRevRank(ctx, key, user)
	score := pipe.ZScore(ctx, key, user)
	if _, err := pipe.Exec(ctx); errors.Is(err, redis.Nil) {
		return Standing{}, fmt.Errorf("%w: %s is not on the %s leaderboard", ErrNotFound, user, ratingScopeName(guild))
	} else if err != nil {
		return Standing{}, fmt.Errorf("persistence: rank of %s in %s: %w", user, ratingScopeName(guild), err)
	}
	return Standing{Rank: rank.Val() + 1, User: user, Rating: score.Val()}, nil
}

// DeleteUserStats deletes what the Store keeps about a user under their
// ID, for a user who asks to be forgotten: their stats and leaderboard
// places in every guild and globally, their puzzle stats and puzzle
// leaderboard places likewise, and their game history. The games stay
// counted for their opponents. What it cannot reach stays until it
// expires: archived games and their reviews name the user until
// Options.HistoryTTL after the game, their opponents' history entries name
// them as the opponent until those are trimmed or expire, and the corpus
// holds only pseudonyms. A game of the user that finishes while this runs
// may be counted (or archived) again afterwards; run it again then.
func (s *Store) DeleteUserStats(ctx context.Context, user string) error {
	guilds, err := s.rdb.SMembers(ctx, s.keys.ratingGuilds(user)).Result()
	if err != nil {
		return fmt.Errorf("persistence: deleting stats of %s: %w", user, err)
	}
	for _, guild := range append(guilds, "") {
		// The guild's ratings and puzzles share its scope's slot.
		pipe := s.rdb.TxPipeline()
		pipe.Del(ctx, s.keys.ratingStats(guild, user), s.keys.puzzleStats(guild, user))
		pipe.ZRem(ctx, s.keys.ratingBoard(guild), user)
		pipe.ZRem(ctx, s.keys.puzzleBoard(guild), user)
		if guild == "" {
			pipe.Del(ctx, s.keys.ratingGuilds(user))
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return fmt.Errorf("persistence: deleting stats of %s in %s: %w", user, ratingScopeName(guild), err)
		}
	}
	if err := s.rdb.Del(ctx, s.keys.history(user)).Err(); err != nil {
		return fmt.Errorf("persistence: deleting the history of %s: %w", user, err)
	}
	return nil
}

// RecordGame is what the bot calls when a game ends: it counts the game in
// the stats and ratings (RecordResult) and appends it to the training
// corpus (AppendGame). Both steps are exactly-once by game ID, so on an
// error the whole call can simply be retried. A game whose moves do not
// replay to its result is refused (ErrInvalid) before anything is counted.
func (s *Store) RecordGame(ctx context.Context, g FinishedGame) error {
	r, err := s.corpusRecord(g)
	if err != nil {
		return err
	}
	if _, err := s.RecordResult(ctx, g); err != nil {
		return err
	}
	if _, _, err := s.AppendRecord(ctx, r); err != nil {
		return err
	}
	return nil
}
