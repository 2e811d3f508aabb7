package persistence

import (
	"context"
	"fmt"
)

// ActiveGame returns the live game (open challenge or active game) user
// has in channel, or ErrNotFound if there is none. The one-game-per-channel
// rule itself is enforced inside the move script (see gameCommitScript):
// CreateGame and Accept claim the players' places atomically with the
// game's write, and the change that ends a game releases them. With
// Options.AllowManyGames on, no places are kept and this always fails with
// ErrNotFound.
func (s *Store) ActiveGame(ctx context.Context, channel, user string) (GameID, error) {
	if err := checkGameChannel(channel); err != nil {
		return "", err
	}
	suf, err := s.rdb.HGet(ctx, s.keys.active(channel), user).Result()
	switch {
	case sessionIsNil(err):
		return "", fmt.Errorf("%w: no live game for user %s in channel %s", ErrNotFound, user, channel)
	case err != nil:
		return "", fmt.Errorf("persistence: active game: %w", err)
	}
	st, err := s.rdb.HGet(ctx, s.keys.game(channel, suf), "s").Result()
	switch {
	case sessionIsNil(err):
		return "", fmt.Errorf("%w: no live game for user %s in channel %s", ErrNotFound, user, channel)
	case err != nil:
		return "", fmt.Errorf("persistence: active game: %w", err)
	}
	if st != "1" && st != "2" {
		return "", fmt.Errorf("%w: no live game for user %s in channel %s", ErrNotFound, user, channel)
	}
	return GameID(channel + "." + suf), nil
}
