package persistence

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultAIGrace is the default Options.AIGrace: longer than a bot's
// handler waits for the AI queue, so the sweeper steps in only when that
// failed.
const DefaultAIGrace = 3 * time.Minute

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
	// AIGrace is how long the computer may take to reply to a person
	// before a sweeper is given its move (Sweep returns the game, still
	// active): a process that stopped with the reply queued, or a queue
	// that could not serve it, never leaves a game stuck or loses it on
	// time. Default DefaultAIGrace.
	AIGrace time.Duration
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

	// HistoryTTL is how long an archived game (for replays and reviews)
	// is kept, and how long a user's history lives after their last
	// archived game; entries older than it leave the history. Default 90
	// days.
	HistoryTTL time.Duration
	// HistoryLimit is how many of their newest games a user's history
	// keeps; default 200.
	HistoryLimit int

	// MaxPipelines is how many round trips the game path (loading a game,
	// the compare-and-set, the deadline index) keeps in flight at once;
	// default 4. While that many are out, the commands of other callers
	// queue and go out together, as one pipeline, when one comes back: under
	// load that saves most of the per-command system calls, and a lone
	// command waits for nothing. 1 gives the deepest pipelines; a larger
	// value the most parallel round trips. It is not a connection limit
	// (that is the client's pool size).
	MaxPipelines int
	// SessionCache is how many recently used live games the Store
	// remembers at the version it last committed or loaded, so that a
	// change at that version (Play, Accept, Resign... with the version of
	// the board this process last showed) skips loading the game: one
	// round trip instead of two. Default 4096 (a few hundred bytes each);
	// negative turns it off. Correctness never depends on it: the
	// compare-and-set decides, as it does after a load.
	SessionCache int
}

// maxPipelineBatch caps the commands in one pipeline of the game path.
const maxPipelineBatch = 256

// Store is the bot's and the training job's view of Redis. It is safe for
// concurrent use; it does not own the client (the caller closes it).
type Store struct {
	rdb      redis.UniversalClient
	batch    *batcher      // the game path's commands, coalesced under load
	sessions *sessionCache // live games at their last known version
	rules    rulesCache    // parsed rules by notation
	keys     keys
	now      func() time.Time
	opts     Options
}

// New returns a Store on rdb. It adds a hook to rdb that marks the errors
// saying Redis could not be reached as ErrUnavailable (see unavailable),
// for the Store's calls and any other caller's on the same client.
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
	if o.AIGrace <= 0 {
		o.AIGrace = DefaultAIGrace
	}
	if o.ModelVersionsKept == 0 {
		o.ModelVersionsKept = 5
	}
	if o.HistoryTTL <= 0 {
		o.HistoryTTL = 90 * 24 * time.Hour
	}
	if o.HistoryLimit <= 0 {
		o.HistoryLimit = 200
	}
	if o.MaxPipelines <= 0 {
		o.MaxPipelines = 4
	}
	if o.SessionCache == 0 {
		o.SessionCache = 4096
	}
	if rdb != nil { // a Store without a client serves only its Options (tests)
		rdb.AddHook(unavailableHook{})
	}
	return &Store{rdb: rdb, batch: newBatcher(rdb, o.MaxPipelines, maxPipelineBatch),
		sessions: newSessionCache(o.SessionCache), keys: keys{prefix: o.Prefix}, now: o.Now, opts: o}
}

// Ping checks that Redis answers, for readiness probes.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.rdb.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("persistence: ping: %w", err)
	}
	return nil
}
