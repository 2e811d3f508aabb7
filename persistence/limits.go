package persistence

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// What the per-server limits on live games count: the live games of a
// channel (open challenges and games in play, AI duels included), and
// those a player has in a guild, across its channels. Each has an index
// (keys.go), written by CreateGame and Accept just after their
// compare-and-set, and checked against the games themselves when counted:
// an entry whose game is over, expired or gone is dropped then. So a game
// that ends in any way (a move, a resignation, a decline or cancel, the
// sweeper, a moderator, or Redis dropping its key) stops counting without
// any of those paths knowing about the indexes.
//
// The Store has no list of a guild's channels (games are kept by channel),
// hence an index per guild and player rather than a scan of the channels.
//
// Counting and then creating are two steps: two games started at the same
// instant may both be counted short of the limit and both be created, so a
// limit can be passed by the number of such simultaneous starts (in
// practice one). The same holds for a game whose index write failed after
// its commit (see indexLive): it is not counted until it ends.

const (
	// liveIndexTTL is how long an index outlives its last write or count.
	// It only clears the index of a channel or player that stopped
	// playing: a game still live that long after the last game started in
	// its channel (or by its player) would no longer be counted, far past
	// how long games last (an unmoved game expires after Options.IdleTTL).
	liveIndexTTL = 30 * 24 * time.Hour
	// liveIndexCap bounds an index: a write past it drops the oldest
	// entries. Where no limit is set nothing counts (and prunes) an index,
	// so this is what keeps it small; a game is missed only if this many
	// games were indexed after it while it stayed live.
	liveIndexCap = 256
	// liveCountSlack is read beyond the limit in one page of a count, for
	// the entries of games that ended since the last count; liveCountPage
	// is the page of a count without a limit.
	liveCountSlack, liveCountPage = 8, 64
)

// indexLive adds g, just created or accepted, to the index of its channel
// and, in a guild, to the index of each player whose place it holds (the
// challenger of an open challenge; every person once it is being played),
// in one round trip. Adding again only refreshes an entry.
//
// It reports no error: the game is committed by then and must be shown,
// and a failed write only means that the limits miss this game until it
// ends, as with two games started at the same instant.
func (s *Store) indexLive(ctx context.Context, g *Session) {
	ch, suf, err := g.ID.split()
	if err != nil {
		return // CreateGame made the ID: cannot happen
	}
	score := float64(s.now().UnixMilli())
	pipe := s.rdb.Pipeline()
	add := func(key, member string) {
		pipe.ZAdd(ctx, key, redis.Z{Score: score, Member: member})
		pipe.ZRemRangeByRank(ctx, key, 0, -liveIndexCap-1)
		pipe.PExpire(ctx, key, liveIndexTTL)
	}
	add(s.keys.channelLive(ch), suf)
	if liveGuild(g.Guild) {
		for _, u := range sessionLiveHumans(g) {
			add(s.keys.userLive(g.Guild, u), string(g.ID))
		}
	}
	_, _ = pipe.Exec(ctx) // see above: the limits miss the game until it ends
}

// liveGuild reports whether the games of guild are indexed by player:
// those of a guild, not of direct messages (the limits are per server),
// whose ID can sit in a hash tag.
func liveGuild(guild string) bool { return guild != "" && !strings.ContainsAny(guild, "{}") }

// ChannelGames returns how many live games (open challenges and games in
// play, AI duels included) channel has. With atMost above zero it stops
// counting at atMost, which is all a limit of atMost needs to know, and
// reads only about that many games (plus those that ended since the last
// count, which it drops from the index); 0 counts them all. A game stops
// counting as soon as it is over or expired.
func (s *Store) ChannelGames(ctx context.Context, channel string, atMost int) (int, error) {
	if err := checkGameChannel(channel); err != nil {
		return 0, err
	}
	n, err := s.countLive(ctx, s.keys.channelLive(channel), atMost, func(suffix string) (string, bool) {
		ch, suf, err := GameID(channel + "." + suffix).split()
		return s.keys.game(ch, suf), err == nil
	})
	if err != nil {
		return 0, fmt.Errorf("persistence: live games of channel %s: %w", channel, err)
	}
	return n, nil
}

// UserGames returns how many live games user has in guild, across its
// channels: their open challenges and the games they play (not challenges
// to them not yet accepted). atMost is as for ChannelGames. Games outside
// a guild are not indexed by player: it returns 0 for guild "".
func (s *Store) UserGames(ctx context.Context, guild, user string, atMost int) (int, error) {
	if !liveGuild(guild) || user == "" {
		return 0, nil
	}
	n, err := s.countLive(ctx, s.keys.userLive(guild, user), atMost, func(id string) (string, bool) {
		ch, suf, err := GameID(id).split()
		return s.keys.game(ch, suf), err == nil
	})
	if err != nil {
		return 0, fmt.Errorf("persistence: live games of %s in guild %s: %w", user, guild, err)
	}
	return n, nil
}

// countLive counts the entries of the index key whose games are live,
// oldest first, a page at a time, up to atMost (0 for all), and drops
// those whose games are not: over, expired, gone, or not games at all
// (gameKey reports false). It refreshes the index's TTL. It costs two
// round trips per page, plus one when it drops entries.
func (s *Store) countLive(ctx context.Context, key string, atMost int, gameKey func(member string) (string, bool)) (int, error) {
	page := int64(liveCountPage)
	if atMost > 0 {
		page = int64(atMost) + liveCountSlack
	}
	open, active := strconv.Itoa(int(StatusOpen)), strconv.Itoa(int(StatusActive))
	n := 0
	var dead []any
	for start := int64(0); ; start += page {
		pipe := s.rdb.Pipeline()
		if start == 0 {
			pipe.PExpire(ctx, key, liveIndexTTL)
		}
		members := pipe.ZRange(ctx, key, start, start+page-1)
		if _, err := pipe.Exec(ctx); err != nil {
			return 0, err
		}
		ids := members.Val()
		status := make([]*redis.StringCmd, len(ids))
		pipe = s.rdb.Pipeline()
		for i, m := range ids {
			if k, ok := gameKey(m); ok {
				status[i] = pipe.HGet(ctx, k, "s")
			}
		}
		if pipe.Len() > 0 {
			if _, err := pipe.Exec(ctx); err != nil && !sessionIsNil(err) {
				return 0, err
			}
		}
		for i, m := range ids {
			if status[i] != nil {
				if err := status[i].Err(); err != nil && !sessionIsNil(err) {
					return 0, err
				}
				if st := status[i].Val(); st == open || st == active {
					n++
					if atMost > 0 && n >= atMost {
						break
					}
					continue
				}
			}
			dead = append(dead, m)
		}
		if atMost > 0 && n >= atMost || int64(len(ids)) < page {
			break
		}
	}
	if len(dead) > 0 {
		if err := s.rdb.ZRem(ctx, key, dead...).Err(); err != nil {
			return 0, err
		}
	}
	return n, nil
}
