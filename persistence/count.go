package persistence

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// LiveGames returns how many games are live (open challenges and games in
// progress) across all channels, for a gauge. It counts the turn-deadline
// index (see deadline.go): every live game has one entry, either due
// (keys.due) or claimed by a sweeper (keys.claimed), so the count costs two
// ZCARDs on one slot, however many games there are. It is an estimate, not
// an audit: for a moment a game can be in both sets (a stale claim being
// put back) or linger after it ended (its removal failed and the sweeper
// has not dropped it yet), so it may be a little high, never low.
func (s *Store) LiveGames(ctx context.Context) (int64, error) {
	var due, claimed *redis.IntCmd
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		due = p.ZCard(ctx, s.keys.due())
		claimed = p.ZCard(ctx, s.keys.claimed())
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("persistence: count live games: %w", err)
	}
	return due.Val() + claimed.Val(), nil
}
