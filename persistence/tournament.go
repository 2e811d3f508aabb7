package persistence

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/redis/go-redis/v9"
)

// How tournaments are stored and advanced.
//
// A tournament is one record (keys.tournament: a hash of its version and
// its JSON data) changed only by compare-and-set on the version, so two
// bot processes that advance it at once cannot both win: the loser
// reloads and finds the work done. The games of a round are ordinary game
// sessions whose Session.Tournament names the tournament; the record
// holds their IDs and results.
//
// A tournament that needs attention at a time (sign-up closing at its
// start time, a round whose games may be over) has Tournament.Due set.
// Like game deadlines (deadline.go), a global index (keys.tournamentsDue)
// holds it, written with ZADD LT after the record (an index entry is
// never later than the record's Due, only early, and an early one costs a
// wasted claim), claimed with a lease (ClaimDueTournaments) so that one
// sweeper at a time looks at a tournament, and re-indexed from the record
// when the sweeper is done (AckTournament). A sweeper that dies loses its
// lease and the next one claims the tournament again.

// TournamentStatus is where a tournament is in its life.
type TournamentStatus uint8

// The tournament statuses.
const (
	// TournamentSignup takes sign-ups (Join, Leave) until it starts.
	TournamentSignup TournamentStatus = iota + 1
	// TournamentRunning plays its rounds.
	TournamentRunning
	// TournamentFinished has played every round; the standings are final.
	TournamentFinished
	// TournamentCancelled was cancelled by a moderator or its creator, or
	// had too few players at its start time.
	TournamentCancelled
)

// Over reports whether the tournament will not change any more.
func (s TournamentStatus) Over() bool { return s == TournamentFinished || s == TournamentCancelled }

// Tournament is a server's tournament: its settings, its players and the
// games of its rounds.
type Tournament struct {
	// ID identifies the tournament (unguessable, from crypto/rand).
	ID string `json:"id"`
	// Guild and Channel are where it runs: the sign-up message, the
	// boards and the standings go to Channel.
	Guild   string `json:"g"`
	Channel string `json:"c"`
	// Name is what its creator called it.
	Name string `json:"n"`
	// Format is "swiss", "single-elimination" or "round-robin".
	Format string `json:"f"`
	// Rules is the board of every game, in rules notation ("3x3k3").
	Rules string `json:"r"`
	// Rounds is how many rounds it plays (Swiss and round-robin; 0 means
	// the format's default, fixed when it starts).
	Rounds int `json:"rn,omitempty"`
	// Double has every round-robin pair play twice, colours swapped.
	Double bool `json:"dbl,omitempty"`
	// TurnTime is each player's time per move in its games.
	TurnTime time.Duration `json:"tt,omitempty"`
	// Rated says whether its games count for ratings and history.
	Rated bool `json:"rt,omitempty"`
	// Creator is the Discord ID of who created it.
	Creator string `json:"by"`
	// Status is where it is in its life.
	Status TournamentStatus `json:"st"`
	// Created is when it was created; StartAt, if set, when sign-up
	// closes by itself.
	Created time.Time `json:"ct"`
	StartAt time.Time `json:"sa,omitzero"`
	// Players are the entrants in the order they joined.
	Players []Entrant `json:"p,omitempty"`
	// Round is the round being played (1-based; 0 before the start).
	Round int `json:"rd,omitempty"`
	// Games are the pairings of every round so far.
	Games []Pairing `json:"gm,omitempty"`
	// Message is the Discord message of the sign-up (its live player
	// count is edited there).
	Message string `json:"m,omitempty"`
	// Due is when a sweeper should look at it next; zero for never.
	Due time.Time `json:"due,omitzero"`
	// The outbox: the rounds whose announcement and whose standings have
	// been posted, and whether the final message has. A sweeper posts
	// what the record has and these do not yet say, then marks it, so a
	// message a stopped process did not post is posted by the next.
	// FinalPosted also says, of a tournament cancelled at its start time
	// for want of players (TooFew), that the notice of it was posted.
	Announced   int  `json:"an,omitempty"`
	StandingsOf int  `json:"sto,omitempty"`
	FinalPosted bool `json:"fin,omitempty"`
	// TooFew says it was cancelled by itself at its start time, with
	// fewer than two players.
	TooFew bool `json:"few,omitempty"`
	// Version increases with every change; updates compare-and-set it.
	Version int64 `json:"-"`
}

// Entrant is a tournament player: a person or a computer level.
type Entrant struct {
	// ID is the Discord user ID, or "ai:<level>" for a computer player.
	ID string `json:"id"`
	// Name is a display name; the bot keeps none (pictures show seed
	// numbers, messages mention IDs), so that no names are stored.
	Name string `json:"n,omitempty"`
	// Rating is the player's rating when the tournament started (seeding).
	Rating float64 `json:"r,omitempty"`
	// Withdrawn players are no longer paired (they left after the start,
	// or forfeited by not showing).
	Withdrawn bool `json:"w,omitempty"`
}

// Pairing is one game, or bye, of a round.
type Pairing struct {
	// Round is its round (1-based).
	Round int `json:"rd"`
	// X and O are the entrants' IDs; O is empty for a bye.
	X string `json:"x"`
	O string `json:"o,omitempty"`
	// Game is the game session's ID, reserved before the game is created
	// with it; empty for a bye. Created says the game was created: a
	// created game that is gone (deleted, expired) is not created again.
	Game    GameID `json:"gm,omitempty"`
	Created bool   `json:"cr,omitempty"`
	// Result is "", "x", "o" or "draw"; a bye's is "x".
	Result string `json:"res,omitempty"`
	// Forfeit says the loser lost by not playing (a no-show or time).
	Forfeit bool `json:"ff,omitempty"`
	// CoinFlip marks the coin flip that decided an elimination match
	// drawn twice (its replay, X and O swapped, is a pairing of its own).
	CoinFlip bool `json:"coin,omitempty"`
	// BusyX and BusyO are since when X and O have kept its game from
	// starting by having another live game in the channel (zero while
	// they do not).
	BusyX time.Time `json:"bx,omitzero"`
	BusyO time.Time `json:"bo,omitzero"`
	// BusyForfeit names the player who forfeited by staying in that other
	// game too long; Notice says the channel is still to be told (the
	// outbox).
	BusyForfeit string `json:"bff,omitempty"`
	Notice      bool   `json:"ntc,omitempty"`
}

// Bye reports whether the pairing is a bye.
func (p Pairing) Bye() bool { return p.O == "" }

// ErrTournamentExists reports a tournament ID already taken.
var ErrTournamentExists = errors.New("persistence: tournament exists")

// ErrTournamentNameTaken reports that another tournament of the guild that
// is not over has the name (compared without case).
var ErrTournamentNameTaken = errors.New("persistence: tournament name taken")

// tournamentNameScript gives name ARGV[1] in the guild's names KEYS[1] to
// tournament ARGV[2], if it is free or still held by ARGV[3] (a
// tournament the caller found over or gone; "" for none), and lists the
// tournament in the guild's set KEYS[2]. It returns "" when it did, or
// the ID that holds the name.
var tournamentNameScript = redis.NewScript(`
local held = redis.call('HGET', KEYS[1], ARGV[1])
if held and held ~= ARGV[3] then return held end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('SADD', KEYS[2], ARGV[2])
return ''
`)

// foldName is the form of a tournament name that names are compared in:
// each character replaced by the least of its case folds, so that two
// names fold alike exactly when strings.EqualFold says they are equal.
func foldName(name string) string {
	var b strings.Builder
	for _, r := range name {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(least)
	}
	return b.String()
}

// takeTournamentName gives t's name in its guild to t, atomically: it is
// ErrTournamentNameTaken while a tournament that is not over holds it.
func (s *Store) takeTournamentName(ctx context.Context, t *Tournament) error {
	keys := []string{s.keys.tournamentNames(t.Guild), s.keys.guildTournaments(t.Guild)}
	name, stale := foldName(t.Name), ""
	for range maxTournamentRetries {
		held, err := tournamentNameScript.Run(ctx, s.rdb, keys, name, t.ID, stale).Text()
		if err != nil {
			return fmt.Errorf("persistence: name tournament %s: %w", t.ID, err)
		}
		if held == "" {
			return nil
		}
		other, err := s.Tournament(ctx, held)
		switch {
		case errors.Is(err, ErrNotFound), errors.Is(err, ErrCorrupt):
		case err != nil:
			return err
		case !other.Status.Over() && other.Guild == t.Guild:
			return fmt.Errorf("%w: %q is tournament %s", ErrTournamentNameTaken, t.Name, held)
		}
		stale = held // over or gone: the name is free unless taken meanwhile
	}
	return fmt.Errorf("%w: naming tournament %s, %d tries", ErrConflict, t.ID, maxTournamentRetries)
}

// maxTournamentRetries bounds UpdateTournament's compare-and-set retries.
const maxTournamentRetries = 16

// tournamentCreateScript stores a new tournament record if KEYS[1] does
// not exist: version 1, data ARGV[1], to live ARGV[2] ms (until named).
// It returns 1, or 0 if it exists.
var tournamentCreateScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'v', 1, 'd', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`)

// tournamentKeepScript keeps a new tournament record KEYS[1] for good if
// it is still at version 1 (an update since has set its life already: a
// cancel, its retention time).
var tournamentKeepScript = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'v') == '1' then redis.call('PERSIST', KEYS[1]) end
return 1
`)

// tournamentUnnamedTTL is how long a new tournament's record lives until
// its name is taken: a process that stops between the two leaves nothing
// for long.
const tournamentUnnamedTTL = 10 * time.Minute

// tournamentUpdateScript replaces the data of KEYS[1] with ARGV[2] if its
// version is ARGV[1], and returns the new version; -1 if the version
// differs, 0 if there is no record. ARGV[3], if not 0, is the record's
// time to live in ms (a tournament that is over); 0 keeps it for good
// (which also ends the short life of a record created but not yet named).
var tournamentUpdateScript = redis.NewScript(`
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return 0 end
if v ~= ARGV[1] then return -1 end
local n = redis.call('HINCRBY', KEYS[1], 'v', 1)
redis.call('HSET', KEYS[1], 'd', ARGV[2])
if ARGV[3] ~= '0' then redis.call('PEXPIRE', KEYS[1], ARGV[3]) else redis.call('PERSIST', KEYS[1]) end
return n
`)

// CreateTournament stores a new tournament (t.ID set by the caller) at
// version 1, lists it under its guild and indexes its Due. It is
// ErrTournamentExists if the ID is taken and ErrInvalid without an ID,
// guild or channel.
func (s *Store) CreateTournament(ctx context.Context, t *Tournament) error {
	if t.ID == "" || t.Guild == "" || t.Channel == "" {
		return fmt.Errorf("%w: a tournament needs an ID, a guild and a channel", ErrInvalid)
	}
	if t.Created.IsZero() {
		t.Created = s.now().UTC()
	}
	b, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("persistence: encode tournament %s: %w", t.ID, err)
	}
	// The record first, unlisted and short-lived; then the name, which
	// lists it under the guild (so a listed ID always has had a record,
	// and GuildTournaments may drop those whose record is gone); then it
	// is kept for good and indexed.
	key := s.keys.tournament(t.ID)
	ok, err := tournamentCreateScript.Run(ctx, s.rdb, []string{key}, b, tournamentUnnamedTTL.Milliseconds()).Int()
	if err != nil {
		return fmt.Errorf("persistence: create tournament %s: %w", t.ID, err)
	}
	if ok == 0 {
		return fmt.Errorf("%w: %s", ErrTournamentExists, t.ID)
	}
	if err := s.takeTournamentName(ctx, t); err != nil {
		if errors.Is(err, ErrTournamentNameTaken) {
			s.rdb.Del(ctx, key) // nobody knows its ID; else it expires
		}
		return err
	}
	if err := tournamentKeepScript.Run(ctx, s.rdb, []string{key}).Err(); err != nil {
		return fmt.Errorf("persistence: keep tournament %s: %w", t.ID, err)
	}
	t.Version = 1
	return s.indexTournament(ctx, t)
}

// tournamentIndexScript indexes tournament ARGV[2] at ARGV[1] (ms), never
// later than an entry already there: in the due index KEYS[1], or, while
// a sweeper holds it (it is in KEYS[2], claimed), in KEYS[3], which
// AckTournament reads when the claim ends. So no second sweeper claims a
// tournament while one works on it.
var tournamentIndexScript = redis.NewScript(`
if redis.call('ZSCORE', KEYS[2], ARGV[2]) then
  redis.call('ZADD', KEYS[3], 'LT', ARGV[1], ARGV[2])
  return 0
end
redis.call('ZADD', KEYS[1], 'LT', ARGV[1], ARGV[2])
return 1
`)

// indexAt indexes tournament id to come due at at.
func (s *Store) indexAt(ctx context.Context, id string, at time.Time) error {
	err := tournamentIndexScript.Run(ctx, s.rdb, []string{s.keys.tournamentsDue(), s.keys.tournamentsClaimed(), s.keys.tournamentsPoked()},
		at.UnixMilli(), id).Err()
	if err != nil {
		return fmt.Errorf("persistence: index tournament %s: %w", id, err)
	}
	return nil
}

// indexTournament writes t's Due to the index (see indexAt). A tournament
// without one is not indexed; one that is over keeps it only while it has
// work left (a cancelled one's games to end).
func (s *Store) indexTournament(ctx context.Context, t *Tournament) error {
	if t.Due.IsZero() {
		return nil
	}
	return s.indexAt(ctx, t.ID, t.Due)
}

// Tournament returns the tournament id, or ErrNotFound.
func (s *Store) Tournament(ctx context.Context, id string) (*Tournament, error) {
	m, err := s.rdb.HGetAll(ctx, s.keys.tournament(id)).Result()
	if err != nil {
		return nil, fmt.Errorf("persistence: tournament %s: %w", id, err)
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("%w: tournament %s", ErrNotFound, id)
	}
	return decodeTournament(id, m["v"], m["d"])
}

// decodeTournament rebuilds a tournament from its stored fields.
func decodeTournament(id, version, data string) (*Tournament, error) {
	v, err := strconv.ParseInt(version, 10, 64)
	if err != nil || v < 1 {
		return nil, fmt.Errorf("%w: tournament %s: version %q", ErrCorrupt, id, version)
	}
	var t Tournament
	if err := json.Unmarshal([]byte(data), &t); err != nil {
		return nil, fmt.Errorf("%w: tournament %s: %v", ErrCorrupt, id, err)
	}
	if t.ID != id {
		return nil, fmt.Errorf("%w: tournament %s holds %q", ErrCorrupt, id, t.ID)
	}
	t.Version = v
	return &t, nil
}

// UpdateTournament changes the tournament id with fn and stores the result
// (kept Options.HistoryTTL once it is over) by compare-and-set: when another process changed it meanwhile, it loads
// it again and calls fn again (fn must be safe to repeat, and should only
// change t). An error from fn is returned as it is, with nothing stored.
// It returns the stored tournament and indexes its Due.
func (s *Store) UpdateTournament(ctx context.Context, id string, fn func(t *Tournament) error) (*Tournament, error) {
	for range maxTournamentRetries {
		t, err := s.Tournament(ctx, id)
		if err != nil {
			return nil, err
		}
		if err := fn(t); err != nil {
			return nil, err
		}
		if t.ID != id {
			return nil, fmt.Errorf("%w: tournament %s renamed to %q", ErrInvalid, id, t.ID)
		}
		b, err := json.Marshal(t)
		if err != nil {
			return nil, fmt.Errorf("persistence: encode tournament %s: %w", id, err)
		}
		ttl := int64(0)
		if t.Status.Over() {
			ttl = s.opts.HistoryTTL.Milliseconds() // kept as long as its archived games
		}
		v, err := tournamentUpdateScript.Run(ctx, s.rdb, []string{s.keys.tournament(id)}, t.Version, b, ttl).Int64()
		switch {
		case err != nil:
			return nil, fmt.Errorf("persistence: update tournament %s: %w", id, err)
		case v == 0:
			return nil, fmt.Errorf("%w: tournament %s", ErrNotFound, id)
		case v < 0:
			continue // changed meanwhile: load it again
		}
		t.Version = v
		return t, s.indexTournament(ctx, t)
	}
	return nil, fmt.Errorf("%w: tournament %s, %d tries", ErrConflict, id, maxTournamentRetries)
}

// tournamentsGoneScript takes the tournament IDs ARGV, whose records are
// gone (expired, deleted), off the guild's set KEYS[1] and frees the
// names they hold in KEYS[2].
var tournamentsGoneScript = redis.NewScript(`
local gone = {}
for _, id in ipairs(ARGV) do
  gone[id] = true
  redis.call('SREM', KEYS[1], id)
end
local names = redis.call('HGETALL', KEYS[2])
for i = 1, #names, 2 do
  if gone[names[i + 1]] then redis.call('HDEL', KEYS[2], names[i]) end
end
return 1
`)

// GuildTournaments returns the guild's tournaments, oldest first; IDs
// whose record is gone are dropped from the list, and their names freed.
func (s *Store) GuildTournaments(ctx context.Context, guild string) ([]*Tournament, error) {
	ids, err := s.rdb.SMembers(ctx, s.keys.guildTournaments(guild)).Result()
	if err != nil {
		return nil, fmt.Errorf("persistence: tournaments of guild %s: %w", guild, err)
	}
	var out []*Tournament
	var gone []any
	defer func() {
		if len(gone) > 0 { // best effort: the next listing tries again
			_ = tournamentsGoneScript.Run(ctx, s.rdb, []string{s.keys.guildTournaments(guild), s.keys.tournamentNames(guild)}, gone...).Err()
		}
	}()
	for _, id := range ids {
		t, err := s.Tournament(ctx, id)
		if errors.Is(err, ErrNotFound) {
			gone = append(gone, id)
			continue
		}
		if err != nil {
			return nil, err
		}
		if t.Guild != guild {
			continue // listed by a create that failed
		}
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b *Tournament) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out, nil
}

// TournamentClaim is a due tournament a sweeper holds until Lease (see
// ClaimDueTournaments).
type TournamentClaim struct {
	// ID is the tournament.
	ID string
	// Lease is when the claim ends; it also tells this claim from a later
	// one of the same tournament.
	Lease time.Time
}

// ClaimDueTournaments claims up to limit tournaments whose Due is at or
// before now, for a lease of one minute: no other sweeper gets them until
// it ends. Pass each to AckTournament when done with it.
func (s *Store) ClaimDueTournaments(ctx context.Context, now time.Time, limit int) ([]TournamentClaim, error) {
	if limit <= 0 {
		return nil, nil
	}
	lease := now.Add(claimLease)
	res, err := gameClaimScript.Run(ctx, s.rdb, []string{s.keys.tournamentsDue(), s.keys.tournamentsClaimed()},
		now.UnixMilli(), lease.UnixMilli(), limit).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("persistence: claim tournaments: %w", err)
	}
	out := make([]TournamentClaim, 0, len(res)/2)
	for i := 0; i+1 < len(res); i += 2 {
		out = append(out, TournamentClaim{ID: res[i], Lease: time.UnixMilli(lease.UnixMilli())})
	}
	if len(out) > 0 {
		// The claimer reads the tournaments after this: earlier pokes are
		// its work now.
		members := make([]any, len(out))
		for i, c := range out {
			members[i] = c.ID
		}
		if err := s.rdb.ZRem(ctx, s.keys.tournamentsPoked(), members...).Err(); err != nil {
			return nil, fmt.Errorf("persistence: claim tournaments: %w", err)
		}
	}
	return out, nil
}

// PokeTournament brings the tournament id's Due forward to now, so that a
// sweeper looks at it at once (a game of it has ended). It changes only
// the index, never the record.
func (s *Store) PokeTournament(ctx context.Context, id string) error {
	return s.indexAt(ctx, id, s.now())
}

// PokeTournamentAt brings the tournament id's Due forward to at, if it is
// later (a step to try again soon). Like PokeTournament it changes only
// the index.
func (s *Store) PokeTournamentAt(ctx context.Context, id string, at time.Time) error {
	return s.indexAt(ctx, id, at)
}

// tournamentAckScript ends the claim of tournament ARGV[1] whose lease
// ends at ARGV[3] (ms): if it still holds (KEYS[2] has that score; a
// later claim by another sweeper is left alone), it leaves KEYS[2] and is
// indexed in KEYS[1] at the earlier of ARGV[2] (its record's Due in ms, or
// "" for none) and a time it was poked to during the claim (KEYS[3]), but
// not before ARGV[4] (ms; 0 for no bound).
var tournamentAckScript = redis.NewScript(`
local held = redis.call('ZSCORE', KEYS[2], ARGV[1])
if not held or tonumber(held) ~= tonumber(ARGV[3]) then return 0 end
local at = ARGV[2]
local poked = redis.call('ZSCORE', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if poked and (at == '' or tonumber(poked) < tonumber(at)) then at = poked end
if at == '' then return 1 end
if tonumber(at) < tonumber(ARGV[4]) then at = ARGV[4] end
redis.call('ZADD', KEYS[1], 'LT', at, ARGV[1])
return 1
`)

// AckTournament ends claim c, if it still holds (a claim that outlived
// its lease may have been taken by another sweeper, whose claim stays):
// the tournament is indexed again at its record's Due, or earlier if it
// was poked meanwhile (a game of it ended, or the step itself brought
// the Due forward), but not before notBefore: a step that failed is
// retried later, not at every sweep, whatever poked it.
func (s *Store) AckTournament(ctx context.Context, c TournamentClaim, notBefore time.Time) error {
	at := ""
	t, err := s.Tournament(ctx, c.ID)
	switch {
	case errors.Is(err, ErrNotFound):
	case err != nil:
		return err
	case !t.Due.IsZero():
		at = strconv.FormatInt(t.Due.UnixMilli(), 10)
	}
	var bound int64
	if !notBefore.IsZero() {
		bound = notBefore.UnixMilli()
	}
	err = tournamentAckScript.Run(ctx, s.rdb, []string{s.keys.tournamentsDue(), s.keys.tournamentsClaimed(), s.keys.tournamentsPoked()},
		c.ID, at, c.Lease.UnixMilli(), bound).Err()
	if err != nil {
		return fmt.Errorf("persistence: release tournament %s: %w", c.ID, err)
	}
	return nil
}

// ForgottenPrefix starts the entrant ID that stands for a forgotten user
// in a tournament's record ("forgotten:<hex>"): unique within the
// tournament, as the pairing engine needs, and no Discord user's ID.
const ForgottenPrefix = "forgotten:"

// forgetTournamentPlayer rewrites every tournament that names user (as a
// player, in a pairing or as its creator) to name a forgotten player
// instead, withdrawn from later pairings. Tournaments have no index by
// player, so the keys are scanned (every node of a Cluster).
func (s *Store) forgetTournamentPlayer(ctx context.Context, user string, rep *ForgetReport) error {
	var ids []string
	start := s.keys.prefix + ":tn:{"
	if err := s.scanKeys(ctx, func(keys []string) error {
		for _, k := range keys {
			if rest, ok := strings.CutPrefix(k, start); ok && strings.HasSuffix(rest, "}") {
				ids = append(ids, strings.TrimSuffix(rest, "}"))
			}
		}
		return nil
	}); err != nil {
		return fmt.Errorf("persistence: forgetting %s in tournaments: %w", user, err)
	}
	for _, id := range ids {
		stand, err := randomHex(8)
		if err != nil {
			return err
		}
		changed := false
		_, err = s.UpdateTournament(ctx, id, func(t *Tournament) error {
			changed = false
			for i := range t.Players {
				if t.Players[i].ID == user {
					t.Players[i].ID, t.Players[i].Name, t.Players[i].Withdrawn, changed = ForgottenPrefix+stand, "", true, true
				}
			}
			for i := range t.Games {
				if t.Games[i].X == user {
					t.Games[i].X, changed = ForgottenPrefix+stand, true
				}
				if t.Games[i].O == user {
					t.Games[i].O, changed = ForgottenPrefix+stand, true
				}
			}
			if t.Creator == user {
				t.Creator, changed = ForgottenUser, true
			}
			if !changed {
				return errTournamentSame
			}
			return nil
		})
		switch {
		case errors.Is(err, errTournamentSame), errors.Is(err, ErrNotFound), errors.Is(err, ErrCorrupt):
		case err != nil:
			return fmt.Errorf("persistence: forgetting %s in tournament %s: %w", user, id, err)
		default:
			rep.Tournaments++
		}
	}
	return nil
}

// errTournamentSame ends an update that has nothing to change.
var errTournamentSame = errors.New("persistence: tournament unchanged")

// forgetGuildTournaments deletes the guild's tournaments and their list.
func (s *Store) forgetGuildTournaments(ctx context.Context, guild string, rep *ForgetReport) error {
	ids, err := s.rdb.SMembers(ctx, s.keys.guildTournaments(guild)).Result()
	if err != nil {
		return fmt.Errorf("persistence: forgetting the tournaments of %s: %w", guild, err)
	}
	for _, id := range ids {
		n, err := s.rdb.Del(ctx, s.keys.tournament(id)).Result()
		if err != nil {
			return fmt.Errorf("persistence: forgetting tournament %s: %w", id, err)
		}
		rep.Tournaments += int(n)
		s.rdb.ZRem(ctx, s.keys.tournamentsDue(), id)
		s.rdb.ZRem(ctx, s.keys.tournamentsClaimed(), id)
		s.rdb.ZRem(ctx, s.keys.tournamentsPoked(), id)
	}
	if err := s.rdb.Del(ctx, s.keys.guildTournaments(guild), s.keys.tournamentNames(guild)).Err(); err != nil {
		return fmt.Errorf("persistence: forgetting the tournaments of %s: %w", guild, err)
	}
	return nil
}
