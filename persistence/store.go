package persistence

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Options are a Store's settings; the zero value asks for every default.
type Options struct {
	// Prefix starts every key; default "ttt".
	Prefix string
	// Now is the clock; default time.Now. Tests inject their own.
	Now func() time.Time

	// FinishedTTL is how long a finished game is kept; default 7 days.
	FinishedTTL time.Duration
	// IdleTTL removes an active game nobody has touched for this long;
	// default 24 hours.
	IdleTTL time.Duration
	// ChallengeTTL is how long an open challenge waits; default 5 minutes.
	ChallengeTTL time.Duration
	// AllowManyGames lifts the default rule that a player has at most one
	// active game (or open challenge) per channel.
	AllowManyGames bool

	// CorpusMaxLen trims each rules' corpus stream to about this many
	// records; 0 keeps every record (subject to CorpusMaxAge).
	CorpusMaxLen int64
	// CorpusMaxAge trims corpus records older than this; 0 keeps them.
	CorpusMaxAge time.Duration
	// PseudonymKey keys the HMAC that turns Discord user IDs into the
	// pseudonymous IDs stored in the corpus. It must be secret and stable.
	PseudonymKey []byte
	// ModelVersionsKept is how many earlier model versions per rules are
	// kept for rollback; default 5.
	ModelVersionsKept int
}

// Store is the bot's and the training job's view of Redis. It is safe for
// concurrent use; it does not own the client (the caller closes it).
type Store struct {
	rdb  redis.UniversalClient
	keys keys
	now  func() time.Time
	opts Options
}

// New returns a Store on rdb.
func New(rdb redis.UniversalClient, o Options) *Store {
	if o.Prefix == "" {
		o.Prefix = "ttt"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.FinishedTTL == 0 {
		o.FinishedTTL = 7 * 24 * time.Hour
	}
	if o.IdleTTL == 0 {
		o.IdleTTL = 24 * time.Hour
	}
	if o.ChallengeTTL == 0 {
		o.ChallengeTTL = 5 * time.Minute
	}
	if o.ModelVersionsKept == 0 {
		o.ModelVersionsKept = 5
	}
	return &Store{rdb: rdb, keys: keys{prefix: o.Prefix}, now: o.Now, opts: o}
}

// Ping checks that Redis answers, for readiness probes.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.rdb.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("persistence: ping: %w", err)
	}
	return nil
}
