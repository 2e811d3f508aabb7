package persistence

import (
	"context"
	"fmt"
	"time"
)

// DefaultInteractionTTL is how long a handled interaction ID is remembered
// when FirstDelivery is given no TTL: Discord's interaction tokens last 15
// minutes, so no redelivery can arrive later.
const DefaultInteractionTTL = 15 * time.Minute

// FirstDelivery records that interaction id is being handled and reports
// whether this is the first time it was seen (SET NX with a TTL; ttl 0
// means DefaultInteractionTTL). A duplicate delivery, from this process or
// another, gets false and should do nothing.
func (s *Store) FirstDelivery(ctx context.Context, id string, ttl time.Duration) (bool, error) {
	if id == "" {
		return false, fmt.Errorf("%w: empty interaction ID", ErrInvalid)
	}
	if ttl <= 0 {
		ttl = DefaultInteractionTTL
	}
	ok, err := s.rdb.SetNX(ctx, s.keys.interaction(id), "1", ttl).Result()
	if err != nil {
		return false, fmt.Errorf("persistence: interaction %s: %w", id, err)
	}
	return ok, nil
}
