package persistence

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Forgetting a user (ForgetUser, for a user's request to be deleted) or a
// guild (ForgetGuild, for a server that asks or that removed the bot).
//
// What goes for a user, in every guild:
//
//   - their stats, ratings, puzzle stats and leaderboard places, in every
//     scope, found through the index of the guilds they have stats in
//     (keys.ratingGuilds), plus any left outside it;
//   - their history, the blocks they set, and their open-challenge and
//     live-game indexes;
//   - their game records: a live game or open challenge is first ended
//     without a result (as a moderator would end it: nobody wins, nothing
//     is counted), so that its opponent is free again, then deleted, as
//     are their games finished in the last Options.FinishedTTL (kept only
//     for the buttons of their boards: a Rematch on one then reads as
//     expired);
//   - their ID where a record of someone else keeps a trace of them: in an
//     archived game (its players), another player's history entry (the
//     opponent) and a guild's audit log (the moderator, and mentions of
//     them in the details) it is replaced by ForgottenUser, so that the
//     other player keeps their game and their history, without the
//     forgotten user's ID; the cached reviews of those games are deleted;
//     likewise a kept retrain candidate's report that names them (the
//     moderator who asked for the run);
//   - their pseudonym in the training corpus (see forgetCorpus).
//
// What stays of a user, under their pseudonym (Store.pseudo) and never
// their ID, because it protects others from them or must not be reset
// by forgetting: other users' blocks of them (until those users unblock
// them), and their running challenge cooldowns, rate bucket and
// throttles (forget-me's own included), which expire by themselves
// within the hour. Such state written under IDs before it was keyed by
// pseudonym is moved to the pseudonyms' names here: a block list still
// named by ID is migrated whole (MigrateBlocks), the user's cooldowns,
// rate bucket and throttles move with their values and times to live.
//
// What goes for a guild: its players' stats, puzzle stats and daily
// puzzles, its leaderboards, its settings and audit log, its games (live
// ones ended first), its archived games and their cached reviews, the
// entries of its games in every history, and its cooldowns,
// open-challenge and live-game indexes. The corpus keeps no guild.
//
// How it is found. Where an index exists it is used: the guild index of a
// user's stats, the user's own history and blocks (single keys), the index
// of corpus rules. Archived games, other players' histories, game records,
// active-player maps, audit logs, block lists still named by ID and kept
// retrain candidates have no index by user or guild (an archived game can
// be older than the newest Options.HistoryLimit entries of its players'
// histories), so one SCAN of the Store's prefix finds them, on every
// master of a Cluster. That walks the whole keyspace once per call, which
// is acceptable for these rare requests (a few round trips per thousand
// keys) and keeps the hot paths free of extra index writes.
//
// Both are idempotent: a second run finds nothing more to remove and
// reports zero. Nothing is kept in process, so any replica may run them. A
// game of the user that finishes normally while ForgetUser runs may be
// counted or archived after the step that would have removed it; running
// it again removes that too.

// ForgottenUser is the user ID that stands for a forgotten user where a
// record that belongs to someone else keeps a trace of a game they played
// together: a player of an archived game, the opponent of a history
// entry, the moderator of an audit entry. It is no Discord user's ID.
const ForgottenUser = "0"

// forgetScanCount is the COUNT hint of the SCANs that find what has no
// index, and forgetCorpusPage the page size of a corpus read.
const (
	forgetScanCount  = 1000
	forgetCorpusPage = 500
	// forgetEndTries bounds the retries of ending a live game that keeps
	// changing under the compare-and-set.
	forgetEndTries = 8
)

// ForgetReport counts what ForgetUser or ForgetGuild removed or rewrote,
// by kind. A second run over the same user or guild reports zero.
type ForgetReport struct {
	// Stats counts the stats-and-ratings hashes deleted: a user's, one per
	// scope (each guild, and global); a guild's, one per player.
	Stats int
	// PuzzleStats counts the daily-puzzle stats deleted, likewise.
	PuzzleStats int
	// Leaderboards counts a user's leaderboard places removed (ratings and
	// puzzles, in every scope), or a guild's leaderboards deleted.
	Leaderboards int
	// Puzzles counts a guild's daily puzzles deleted.
	Puzzles int
	// History counts history entries deleted: a user's own, or those of a
	// guild's games in every player's history.
	History int
	// Mentions counts other players' history entries that named the user
	// as their opponent and now name ForgottenUser.
	Mentions int
	// Archives counts archived games rewritten to name ForgottenUser
	// instead of the user, or a guild's archived games deleted.
	Archives int
	// Reviews counts the cached reviews deleted: those of the archived
	// games above.
	Reviews int
	// Games counts game records deleted: live games and open challenges,
	// ended first (they are in Ended), and recently finished ones.
	Games int
	// Corpus counts the user's training records rewritten without their
	// pseudonym (or deleted, when they do not decode).
	Corpus int
	// Blocks counts the blocks the user set, removed (other users' blocks
	// of them stay).
	Blocks int
	// Settings counts a guild's settings deleted.
	Settings int
	// Audit counts audit-log entries: a user's, rewritten to name
	// ForgottenUser (with kept retrain reports naming them); a guild's,
	// deleted.
	Audit int
	// Tournaments counts tournaments: those a user played in, rewritten
	// to name a forgotten player instead; a guild's, deleted.
	Tournaments int
	// Ended are the live games and challenges this call ended, as they
	// ended (a forgotten user's seat naming ForgottenUser), so that the
	// caller can update their boards. Their records are deleted.
	Ended []*Session
}

// Total is the number of things removed or rewritten; 0 means there was
// nothing (left) to forget.
func (r ForgetReport) Total() int {
	return r.Stats + r.PuzzleStats + r.Leaderboards + r.Puzzles + r.History + r.Mentions + r.Archives +
		r.Reviews + r.Games + r.Corpus + r.Blocks + r.Settings + r.Audit + r.Tournaments
}

// Retention says how long the Store keeps what, for telling users (the
// bot's /ttt privacy).
type Retention struct {
	// FinishedGames is how long a finished game's record is kept for the
	// buttons of its board (Options.FinishedTTL).
	FinishedGames time.Duration
	// History is how long archived games and history entries are kept
	// (Options.HistoryTTL), and HistoryLimit how many games a history
	// lists at most.
	History      time.Duration
	HistoryLimit int
	// CorpusMaxAge and CorpusMaxLen trim the training corpus; zero means
	// no such limit.
	CorpusMaxAge time.Duration
	CorpusMaxLen int64
}

// Retention returns the Store's retention settings.
func (s *Store) Retention() Retention {
	return Retention{FinishedGames: s.opts.FinishedTTL, History: s.opts.HistoryTTL, HistoryLimit: s.opts.HistoryLimit,
		CorpusMaxAge: s.opts.CorpusMaxAge, CorpusMaxLen: s.opts.CorpusMaxLen}
}

// checkForgetID accepts a user or guild ID that keys and patterns can be
// built from.
func checkForgetID(what, id string) error {
	if id == "" || id == ForgottenUser || len(id) > 64 || strings.ContainsAny(id, "{}:\x00") {
		return fmt.Errorf("%w: forget %s %q: an ID is 1 to 64 bytes without braces or colons", ErrInvalid, what, id)
	}
	return nil
}

// forgetReplaceScript replaces the string KEYS[1] by ARGV[2] if it still
// holds ARGV[1], keeping its time to live. Replies 1 when replaced.
var forgetReplaceScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ttl)
else
  redis.call('SET', KEYS[1], ARGV[2])
end
return 1
`)

// forgetListScript rewrites elements of the list KEYS[1]: ARGV holds
// pairs of an element and its replacement, an empty replacement removing
// it. An element no longer in the list (it changed or left meanwhile) is
// skipped. The list keeps its order and its time to live. Replies the
// number of elements changed.
var forgetListScript = redis.NewScript(`
local items = redis.call('LRANGE', KEYS[1], 0, -1)
local n = 0
for i = 1, #ARGV, 2 do
  if ARGV[i + 1] ~= '' then
    for j = 1, #items do
      if items[j] == ARGV[i] then
        redis.call('LSET', KEYS[1], j - 1, ARGV[i + 1])
        items[j] = false
        n = n + 1
        break
      end
    end
  end
end
for i = 1, #ARGV, 2 do
  if ARGV[i + 1] == '' then
    n = n + redis.call('LREM', KEYS[1], 1, ARGV[i])
  end
end
return n
`)

// forgetCorpusScript rewrites one corpus entry: if the entry ARGV[1] of
// the stream KEYS[1] still holds the record ARGV[2], it is deleted and the
// record ARGV[3] (game ID ARGV[4]) is appended in its place at the end,
// with the time ARGV[5] (ms) as its ID when Redis allows (as appends do).
// ARGV[6] and ARGV[7] are the field names of the game and the record.
// Replies 1 when rewritten, 0 when the entry changed or left meanwhile.
var forgetCorpusScript = redis.NewScript(`
local e = redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[1])
if #e == 0 then return 0 end
local f = e[1][2]
local rec
for i = 1, #f, 2 do
  if f[i] == ARGV[7] then rec = f[i + 1] end
end
if rec ~= ARGV[2] then return 0 end
redis.call('XDEL', KEYS[1], ARGV[1])
local id = redis.pcall('XADD', KEYS[1], ARGV[5] .. '-*', ARGV[6], ARGV[4], ARGV[7], ARGV[3])
if type(id) == 'table' and id.err then
  redis.call('XADD', KEYS[1], '*', ARGV[6], ARGV[4], ARGV[7], ARGV[3])
end
return 1
`)

// ForgetUser deletes or anonymises everything the Store keeps about a
// Discord user, in every guild, and reports what it did: see the comment
// at the top of forget.go for what goes and how it is found, and
// forgetCorpus for the training corpus. Live games are ended without a
// result before their records go; the sessions in the report's Ended let
// the caller update their boards. Models already trained from the corpus
// are not retrained (they hold no per-user data). It is idempotent (a
// second run reports zero) and keeps no state between calls.
func (s *Store) ForgetUser(ctx context.Context, user string) (ForgetReport, error) {
	var rep ForgetReport
	if err := checkForgetID("user", user); err != nil {
		return rep, err
	}
	if err := s.forgetOwn(ctx, user, &rep); err != nil {
		return rep, err
	}
	if err := s.forgetStats(ctx, user, &rep); err != nil {
		return rep, err
	}
	f := &forgetter{s: s, rep: &rep, user: user, pseudo: s.pseudo(user), p: s.forgetPatterns(user, "")}
	if err := s.scanKeys(ctx, func(keys []string) error { return f.page(ctx, keys) }); err != nil {
		return rep, fmt.Errorf("persistence: forgetting user %s: %w", user, err)
	}
	if err := s.forgetCorpus(ctx, user, &rep); err != nil {
		return rep, err
	}
	if err := s.forgetTournamentPlayer(ctx, user, &rep); err != nil {
		return rep, err
	}
	return rep, nil
}

// ForgetGuild deletes everything the Store keeps about a guild (see the
// comment at the top of forget.go) and reports what it did. Its live games
// are ended without a result before their records go (the report's Ended).
// The players' global stats and the corpus keep the guild's games: they
// name no guild. It is idempotent and keeps no state between calls.
func (s *Store) ForgetGuild(ctx context.Context, guild string) (ForgetReport, error) {
	var rep ForgetReport
	if err := checkForgetID("guild", guild); err != nil {
		return rep, err
	}
	f := &forgetter{s: s, rep: &rep, guild: guild, p: s.forgetPatterns("", guild)}
	if err := s.scanKeys(ctx, func(keys []string) error { return f.page(ctx, keys) }); err != nil {
		return rep, fmt.Errorf("persistence: forgetting guild %s: %w", guild, err)
	}
	// The guild's leaderboards, settings and audit log share its slot.
	pipe := s.rdb.TxPipeline()
	boards := pipe.Del(ctx, s.keys.ratingBoard(guild), s.keys.puzzleBoard(guild))
	settings := pipe.HLen(ctx, s.keys.settings(guild))
	audit := pipe.LLen(ctx, s.keys.audit(guild))
	if _, err := pipe.Exec(ctx); err != nil {
		return rep, fmt.Errorf("persistence: forgetting guild %s: %w", guild, err)
	}
	rep.Leaderboards += int(boards.Val())
	rep.Settings += int(settings.Val())
	rep.Audit += int(audit.Val())
	if err := s.DeleteGuildSettings(ctx, guild); err != nil {
		return rep, err
	}
	if err := s.forgetGuildTournaments(ctx, guild, &rep); err != nil {
		return rep, err
	}
	return rep, nil
}

// forgetOwn deletes the user's history and blocks: the history and the
// blocks from before MigrateBlocks share the user's slot, the blocks
// named by pseudonym have their own.
func (s *Store) forgetOwn(ctx context.Context, user string, rep *ForgetReport) error {
	for _, keys := range [][2]string{{s.keys.history(user), s.keys.blocks(user)}, {"", s.keys.blocks(s.pseudo(user))}} {
		pipe := s.rdb.TxPipeline()
		var hist *redis.IntCmd
		if keys[0] != "" {
			hist = pipe.LLen(ctx, keys[0])
			pipe.Del(ctx, keys[0])
		}
		blocks := pipe.SCard(ctx, keys[1])
		pipe.Del(ctx, keys[1])
		if _, err := pipe.Exec(ctx); err != nil {
			return fmt.Errorf("persistence: deleting the history and blocks of %s: %w", user, err)
		}
		if hist != nil {
			rep.History += int(hist.Val())
		}
		rep.Blocks += int(blocks.Val())
	}
	return nil
}

// forgetStats deletes the user's stats, puzzle stats, leaderboard places,
// cooldowns and open-challenge indexes in every scope the index of their
// guilds names, and globally; each scope's keys share its slot.
func (s *Store) forgetStats(ctx context.Context, user string, rep *ForgetReport) error {
	guilds, err := s.rdb.SMembers(ctx, s.keys.ratingGuilds(user)).Result()
	if err != nil {
		return fmt.Errorf("persistence: deleting stats of %s: %w", user, err)
	}
	for _, guild := range append(guilds, "") {
		if strings.ContainsAny(guild, "{}") {
			continue // never indexed: RecordResult refuses such guilds
		}
		pipe := s.rdb.TxPipeline()
		st := pipe.Del(ctx, s.keys.ratingStats(guild, user))
		ps := pipe.Del(ctx, s.keys.puzzleStats(guild, user))
		rb := pipe.ZRem(ctx, s.keys.ratingBoard(guild), user)
		pb := pipe.ZRem(ctx, s.keys.puzzleBoard(guild), user)
		pipe.Del(ctx, s.keys.openChallenges(guild, user)) // a cooldown runs out by itself
		if guild == "" {
			pipe.Del(ctx, s.keys.ratingGuilds(user))
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return fmt.Errorf("persistence: deleting stats of %s in %s: %w", user, ratingScopeName(guild), err)
		}
		rep.Stats += int(st.Val())
		rep.PuzzleStats += int(ps.Val())
		rep.Leaderboards += int(rb.Val() + pb.Val())
	}
	return nil
}

// forgetCorpus unlinks the user's training records from them. The corpus
// keeps the games (they are the training data, and the other player's
// side of them is theirs), so each record that holds the user's pseudonym
// is rewritten:
//
//   - the pseudonym becomes a fresh random one, drawn for that record
//     alone: it has the form of a real pseudonym, so the side still
//     counts as a person's for training (an "anonymous" constant would do
//     that too, but would make one player of every forgotten user), and
//     neither links the record to the user nor the user's records to one
//     another;
//   - the game ID, which names the channel and sits on the buttons of the
//     board that mentioned the user, becomes a fresh random one ("forgotten-"
//     and hex), and the finishing time is cut to the hour (training only
//     weighs recency, by days);
//
// and a record of the user that does not decode is deleted. A stream
// entry cannot change in place, so the rewritten record is appended anew
// at the end of its rules' stream (its old entry deleted in the same
// script): readers that go by checkpoint see it once more as new, and the
// age trimming (by entry ID) keeps it up to CorpusMaxAge longer, holding
// nothing about the user. The exactly-once set keeps the original game ID,
// so a late second report of the game is still refused. Records are found
// by reading every rules' stream (the index of corpus rules lists them).
// Without a pseudonym key the corpus holds no users, and nothing is done.
func (s *Store) forgetCorpus(ctx context.Context, user string, rep *ForgetReport) error {
	pseudonym, err := s.Pseudonym(user)
	if errors.Is(err, ErrNoPseudonymKey) {
		return nil
	}
	if err != nil {
		return err
	}
	rules, err := s.rdb.SMembers(ctx, s.keys.corpusIndex()).Result()
	if err != nil {
		return fmt.Errorf("persistence: forgetting %s in the corpus: %w", user, err)
	}
	for _, r := range rules {
		stream := s.keys.corpusStream(r)
		start := "-"
		for {
			msgs, err := s.rdb.XRangeN(ctx, stream, start, "+", forgetCorpusPage).Result()
			if err != nil {
				return fmt.Errorf("persistence: forgetting %s in the %s corpus: %w", user, r, err)
			}
			for _, m := range msgs {
				n, err := s.forgetCorpusEntry(ctx, r, m, pseudonym)
				if err != nil {
					return fmt.Errorf("persistence: forgetting %s in the %s corpus: %w", user, r, err)
				}
				rep.Corpus += n
			}
			if len(msgs) < forgetCorpusPage {
				break
			}
			start = "(" + msgs[len(msgs)-1].ID
		}
	}
	return nil
}

// forgetCorpusEntry rewrites (or deletes) entry m of the rules' corpus if
// it holds the pseudonym; it returns 1 if it did.
func (s *Store) forgetCorpusEntry(ctx context.Context, rules string, m redis.XMessage, pseudonym string) (int, error) {
	named := false
	for _, v := range m.Values {
		if str, ok := v.(string); ok && strings.Contains(str, pseudonym) {
			named = true
		}
	}
	if !named {
		return 0, nil
	}
	stream := s.keys.corpusStream(rules)
	rec, err := decodeCorpusEntry(rules, m)
	if err != nil {
		n, err := s.rdb.XDel(ctx, stream, m.ID).Result()
		return int(n), err
	}
	if rec.X.User == pseudonym || rec.O.User == pseudonym {
		fresh, err := randomHex(32)
		if err != nil {
			return 0, err
		}
		for _, p := range []*Player{&rec.X, &rec.O} {
			if p.User == pseudonym {
				p.User = fresh
			}
		}
	}
	id, err := randomHex(12)
	if err != nil {
		return 0, err
	}
	rec.Game = "forgotten-" + id
	rec.Time = rec.Time.UTC().Truncate(time.Hour)
	if err := rec.Validate(); err != nil {
		return 0, err
	}
	line, err := rec.MarshalLine()
	if err != nil {
		return 0, err
	}
	raw, _ := m.Values[corpusFieldRecord].(string) // decodeCorpusEntry read it
	return forgetCorpusScript.Run(ctx, s.rdb, []string{stream}, m.ID, raw, strings.TrimSuffix(string(line), "\n"),
		rec.Game, max(s.now().UnixMilli(), 0), corpusFieldGame, corpusFieldRecord).Int()
}

// randomHex returns n random bytes from crypto/rand in hex.
func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("persistence: random ID: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// wild marks a wildcard where a key function builds a keyPattern.
const wild = "\x00"

// keyPattern is the shape of a family of keys, built by a key function
// called with wild in place of the varying IDs, so that keys are still
// only spelled in keys.go: the literal parts between the wildcards.
type keyPattern []string

// pattern returns the keyPattern of key, built with wild.
func pattern(key string) keyPattern { return strings.Split(key, wild) }

// match reports whether key has the pattern's shape and returns what each
// wildcard stands for: each but the last is the shortest that fits, and
// none is empty or holds a brace, nor, unless colons is set, a colon (IDs
// in keys have neither, so a key of another family never matches).
func (p keyPattern) match(key string, colons bool) ([]string, bool) {
	if !strings.HasPrefix(key, p[0]) {
		return nil, false
	}
	rest := key[len(p[0]):]
	caps := make([]string, 0, len(p)-1)
	for i := 1; i < len(p); i++ {
		var c string
		if i == len(p)-1 {
			if !strings.HasSuffix(rest, p[i]) || len(rest) <= len(p[i]) {
				return nil, false
			}
			c, rest = rest[:len(rest)-len(p[i])], ""
		} else {
			j := strings.Index(rest, p[i])
			if j <= 0 {
				return nil, false
			}
			c, rest = rest[:j], rest[j+len(p[i]):]
		}
		if strings.ContainsAny(c, "{}") || !colons && strings.Contains(c, ":") {
			return nil, false
		}
		caps = append(caps, c)
	}
	return caps, rest == ""
}

// forgetPatterns are the key families a forgetting SCAN looks for.
type forgetPatterns struct {
	archive, game, active, history, audit, blocks, rate, throttle, candidate keyPattern
	// A user's keys outside the index of their guilds (user only).
	userStats, userPuzzle, userCooldown, userOpen, userLive keyPattern
	// A guild's keys (guild only).
	guildStats, guildPuzzle, guildDaily, guildApplied, guildCooldown, guildOpen, guildLive, guildsIndex keyPattern
}

// forgetPatterns builds the patterns for forgetting user or guild.
func (s *Store) forgetPatterns(user, guild string) forgetPatterns {
	k := s.keys
	p := forgetPatterns{
		archive: pattern(k.archive(wild, wild)), game: pattern(k.game(wild, wild)), active: pattern(k.active(wild)),
		history: pattern(k.history(wild)), audit: pattern(k.audit(wild)), blocks: pattern(k.blocks(wild)),
		rate: pattern(k.rateBucket(wild)), throttle: pattern(k.throttle(wild)), candidate: pattern(k.modelCandidateMeta(wild)),
	}
	if user != "" {
		p.userStats, p.userPuzzle = pattern(k.ratingStats(wild, user)), pattern(k.puzzleStats(wild, user))
		p.userCooldown, p.userOpen = pattern(k.challengeCooldown(wild, user)), pattern(k.openChallenges(wild, user))
		p.userLive = pattern(k.userLive(wild, user))
	}
	if guild != "" {
		p.guildStats, p.guildPuzzle = pattern(k.ratingStats(guild, wild)), pattern(k.puzzleStats(guild, wild))
		p.guildDaily, p.guildApplied = pattern(k.puzzleDaily(guild, wild, wild)), pattern(k.ratingApplied(guild, wild))
		p.guildCooldown, p.guildOpen = pattern(k.challengeCooldown(guild, wild)), pattern(k.openChallenges(guild, wild))
		p.guildLive = pattern(k.userLive(guild, wild))
		p.guildsIndex = pattern(k.ratingGuilds(wild))
	}
	return p
}

// globEscape escapes the glob characters of a SCAN MATCH pattern.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\*?[]`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// scanKeys calls page with every batch of the Store's keys (those under
// its prefix) from a SCAN of the server, or of every master of a Cluster;
// page is never called concurrently. A key may come twice (SCAN's
// guarantee), so page must be idempotent.
func (s *Store) scanKeys(ctx context.Context, page func([]string) error) error {
	match := globEscape(s.keys.prefix) + ":*"
	scan := func(ctx context.Context, c redis.Cmdable, page func([]string) error) error {
		var cursor uint64
		for {
			keys, next, err := c.Scan(ctx, cursor, match, forgetScanCount).Result()
			if err != nil {
				return err
			}
			if len(keys) > 0 {
				if err := page(keys); err != nil {
					return err
				}
			}
			if next == 0 {
				return nil
			}
			cursor = next
		}
	}
	if cc, ok := s.rdb.(*redis.ClusterClient); ok {
		var mu sync.Mutex
		return cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
			return scan(ctx, c, func(keys []string) error {
				mu.Lock()
				defer mu.Unlock()
				return page(keys)
			})
		})
	}
	return scan(ctx, s.rdb, page)
}

// forgetter is one ForgetUser (user set) or ForgetGuild (guild set) run
// over the pages of a SCAN.
type forgetter struct {
	s           *Store
	rep         *ForgetReport
	user, guild string
	pseudo      string // the user's pseudonym (Store.pseudo)
	p           forgetPatterns
}

// gameRef is a game's key with its channel and suffix.
type gameRef struct{ key, channel, suffix string }

// statsRef is a stats key of the user outside the index of their guilds.
type statsRef struct {
	key, guild string
	puzzle     bool
}

// keyMove is a string key of the user named by their ID, from before it
// was named by pseudonym, and the name it moves to.
type keyMove struct{ from, to string }

// forgetPage is one page of keys sorted by what is to be done with them.
type forgetPage struct {
	archives, games            []gameRef
	histories, audits, actives []string
	drop                       []string
	ownHistory, ownBlocks      []string
	blockOwners                []string // other users whose blocks are still named by their ID
	moves                      []keyMove
	candidates                 []string // kept retrain candidates' metadata
	stats                      []statsRef
	counted                    []string // keys to delete, each counted in the field of the same index in counts
	counts                     []*int
	unindex                    []string // users' indexes of guilds to take the guild out of
}

// id is the user or the guild being forgotten.
func (f *forgetter) id() string { return f.user + f.guild }

// page handles one page of keys: it sorts them by family, then deals
// with each family in a few pipelined round trips.
func (f *forgetter) page(ctx context.Context, keys []string) error {
	var pg forgetPage
	for _, key := range keys {
		f.sort(&pg, key)
	}
	steps := []func() error{
		func() error { return f.archives(ctx, pg.archives) },
		func() error { return f.games(ctx, pg.games) },
		func() error { return f.histories(ctx, pg.histories) },
		func() error { return f.audits(ctx, pg.audits) },
		func() error { return f.candidates(ctx, pg.candidates) },
		func() error { return f.others(ctx, &pg) },
		func() error { return f.moves(ctx, pg.moves, pg.blockOwners) },
		func() error { return f.userStats(ctx, pg.stats) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// sort files key in pg by what is to be done with it, if anything.
func (f *forgetter) sort(pg *forgetPage, key string) {
	if f.sortGame(pg, key) || f.sortBlocks(pg, key) || f.sortBucket(pg, key) {
		return
	}
	f.sortRest(pg, key)
}

// sortGame files key in pg if it is an archived game, a game or a
// history, and reports whether it was one.
func (f *forgetter) sortGame(pg *forgetPage, key string) bool {
	if c, ok := f.p.archive.match(key, false); ok {
		pg.archives = append(pg.archives, gameRef{key, c[0], c[1]})
		return true
	}
	if c, ok := f.p.game.match(key, false); ok {
		pg.games = append(pg.games, gameRef{key, c[0], c[1]})
		return true
	}
	if c, ok := f.p.history.match(key, false); ok {
		if c[0] == f.user {
			// Deleted first, but written again by a game that finished
			// since.
			pg.ownHistory = append(pg.ownHistory, key)
		} else {
			pg.histories = append(pg.histories, key)
		}
		return true
	}
	return false
}

// sortBlocks files key in pg if it is a list of blocks, and reports
// whether it was one.
//
// The user's own blocks go; other people's blocks of the user are theirs
// (their protection from the user) and stay, or forgetting would undo
// them: they name the user by pseudonym. Those still named by ID (written
// before MigrateBlocks) are migrated now.
func (f *forgetter) sortBlocks(pg *forgetPage, key string) bool {
	c, ok := f.p.blocks.match(key, false)
	if !ok {
		return false
	}
	switch {
	case f.user == "":
	case c[0] == f.user || c[0] == f.pseudo:
		pg.ownBlocks = append(pg.ownBlocks, key)
	case !isPseudonym(c[0]):
		pg.blockOwners = append(pg.blockOwners, c[0])
	}
	return true
}

// sortBucket files key in pg if it is a rate bucket or a throttle, and
// reports whether it was one.
//
// Rate buckets expire in seconds, throttles and cooldowns within the
// hour, and forgetting must not refill or end one early: those of the
// user still named by ID move to their pseudonym's name.
func (f *forgetter) sortBucket(pg *forgetPage, key string) bool {
	for _, fam := range []struct {
		p    keyPattern
		name func(string) string
	}{{f.p.rate, f.s.keys.rateBucket}, {f.p.throttle, f.s.keys.throttle}} {
		if c, ok := fam.p.match(key, true); ok {
			if name, ok := strings.CutSuffix(c[0], ":"+f.user); ok && f.user != "" {
				pg.moves = append(pg.moves, keyMove{key, fam.name(name + ":" + f.pseudo)})
			}
			return true
		}
	}
	return false
}

// sortRest files in pg a key of the other families, if it is one: the
// user's audits, active maps, retrain candidates, challenge cooldowns,
// open challenges and live games, and stats; the guild's stats, puzzles,
// applied ratings, cooldowns, open challenges and live games, and the
// users' indexes of guilds.
func (f *forgetter) sortRest(pg *forgetPage, key string) {
	user, guild := f.user != "", f.guild != ""
	count := func(n *int) { pg.counted, pg.counts = append(pg.counted, key), append(pg.counts, n) }
	switch {
	case user && match1(f.p.audit, key):
		pg.audits = append(pg.audits, key)
	case user && match1(f.p.active, key):
		pg.actives = append(pg.actives, key)
	case user && match1(f.p.candidate, key):
		pg.candidates = append(pg.candidates, key)
	case user && key == f.s.keys.challengeCooldown("", f.user):
		pg.moves = append(pg.moves, keyMove{key, f.s.keys.challengeCooldown("", f.pseudo)})
	case user && match1(f.p.userCooldown, key):
		c, _ := f.p.userCooldown.match(key, false)
		pg.moves = append(pg.moves, keyMove{key, f.s.keys.challengeCooldown(c[0], f.pseudo)})
	case user && match1(f.p.userOpen, key), user && match1(f.p.userLive, key):
		pg.drop = append(pg.drop, key)
	case guild && match1(f.p.guildStats, key):
		count(&f.rep.Stats)
	case guild && match1(f.p.guildPuzzle, key):
		count(&f.rep.PuzzleStats)
	case guild && match1(f.p.guildDaily, key):
		count(&f.rep.Puzzles)
	case guild && (match1(f.p.guildApplied, key) || match1(f.p.guildCooldown, key) || match1(f.p.guildOpen, key) || match1(f.p.guildLive, key)):
		pg.drop = append(pg.drop, key)
	case guild && match1(f.p.guildsIndex, key):
		pg.unindex = append(pg.unindex, key)
	case user:
		if c, ok := f.p.userStats.match(key, false); ok {
			pg.stats = append(pg.stats, statsRef{key: key, guild: c[0]})
		} else if c, ok := f.p.userPuzzle.match(key, false); ok {
			pg.stats = append(pg.stats, statsRef{key: key, guild: c[0], puzzle: true})
		}
	}
}

// match1 reports whether key matches p (a nil p matches nothing).
func match1(p keyPattern, key string) bool {
	if p == nil {
		return false
	}
	_, ok := p.match(key, false)
	return ok
}

// jsonField is how a JSON object spells the field name with the string
// value v: `"name":"v"`, to look for before decoding.
func jsonField(name, v string) string { return `"` + name + `":` + jsonString(v) }

// archives rewrites the user's archived games, or deletes the guild's,
// with their cached reviews.
func (f *forgetter) archives(ctx context.Context, refs []gameRef) error {
	if len(refs) == 0 {
		return nil
	}
	pipe := f.s.rdb.Pipeline()
	cmds := make([]*redis.StringCmd, len(refs))
	for i, r := range refs {
		cmds[i] = pipe.Get(ctx, r.key)
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	needle := jsonField("u", f.user)
	if f.guild != "" {
		needle = jsonField("gu", f.guild)
	}
	for i, r := range refs {
		data := cmds[i].Val()
		if !strings.Contains(data, needle) {
			continue
		}
		var rec archiveRecord
		decoded := json.Unmarshal([]byte(data), &rec) == nil
		var n int
		var err error
		switch {
		case f.guild != "" && decoded && rec.Guild != f.guild:
			continue
		case f.guild != "" || !decoded:
			// The guild's, or a record of the user that does not decode.
			var d int64
			d, err = f.s.rdb.Del(ctx, r.key).Result()
			n = int(d)
		default:
			named := false
			for j := range rec.Players {
				if rec.Players[j].User == f.user {
					rec.Players[j].User, named = ForgottenUser, true
				}
			}
			if !named {
				continue
			}
			b, merr := json.Marshal(rec)
			if merr != nil {
				return fmt.Errorf("persistence: encode archive %s: %w", r.key, merr)
			}
			n, err = forgetReplaceScript.Run(ctx, f.s.rdb, []string{r.key}, data, string(b)).Int()
		}
		if err != nil {
			return err
		}
		f.rep.Archives += n
		d, err := f.s.rdb.Del(ctx, f.s.keys.review(r.channel, r.suffix)).Result()
		if err != nil {
			return err
		}
		f.rep.Reviews += int(d)
	}
	return nil
}

// forgetSession is the part of a game's stored record (sessionRecord)
// that says whom and where it concerns.
type forgetSession struct {
	Players [2]struct {
		User string `json:"u"`
	} `json:"p"`
	Guild string `json:"g"`
}

// games ends the live games of the user or the guild, without a result,
// and deletes their records and those of their finished games.
func (f *forgetter) games(ctx context.Context, refs []gameRef) error {
	if len(refs) == 0 {
		return nil
	}
	pipe := f.s.rdb.Pipeline()
	cmds := make([]*redis.SliceCmd, len(refs))
	for i, r := range refs {
		cmds[i] = pipe.HMGet(ctx, r.key, "s", "d")
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	needle := jsonField("u", f.user)
	if f.guild != "" {
		needle = jsonField("g", f.guild)
	}
	for i, r := range refs {
		vals := cmds[i].Val()
		if len(vals) != 2 {
			continue
		}
		status, _ := vals[0].(string)
		data, _ := vals[1].(string)
		if !strings.Contains(data, needle) {
			continue
		}
		var rec forgetSession
		if json.Unmarshal([]byte(data), &rec) == nil {
			if f.guild != "" && rec.Guild != f.guild || f.user != "" && rec.Players[0].User != f.user && rec.Players[1].User != f.user {
				continue
			}
		}
		id := GameID(r.channel + "." + r.suffix)
		if status == "1" || status == "2" {
			ended, err := f.s.endForForget(ctx, id)
			if err != nil {
				return err
			}
			if ended != nil {
				for j := range ended.Players {
					if f.user != "" && ended.Players[j].User == f.user {
						ended.Players[j].User = ForgottenUser
					}
				}
				f.rep.Ended = append(f.rep.Ended, ended)
			}
		}
		d, err := f.s.rdb.Del(ctx, r.key).Result()
		if err != nil {
			return err
		}
		f.s.sessions.forget(id)
		f.rep.Games += int(d)
	}
	return nil
}

// endForForget ends live game id without a result and returns it as it
// ended; nil when it is no longer live (or does not decode: its record
// goes all the same).
func (s *Store) endForForget(ctx context.Context, id GameID) (*Session, error) {
	var g *Session
	var err error
	for range forgetEndTries {
		if g, err = s.EndByModerator(ctx, id, 0); !errors.Is(err, ErrConflict) {
			break
		}
	}
	switch {
	case errors.Is(err, ErrNotLive), errors.Is(err, ErrNotFound), errors.Is(err, ErrCorrupt):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return g, nil
}

// histories rewrites the entries of other players' histories that name
// the user as their opponent, or removes the entries of the guild's games.
func (f *forgetter) histories(ctx context.Context, keys []string) error {
	needle := jsonField("ou", f.user)
	if f.guild != "" {
		needle = jsonField("gu", f.guild)
	}
	return f.lists(ctx, keys, needle, func(entry string) (string, bool) {
		var rec historyRecord
		if json.Unmarshal([]byte(entry), &rec) != nil {
			return "", f.user != "" // a corrupt entry naming the user goes
		}
		if f.guild != "" {
			return "", rec.Guild == f.guild
		}
		if rec.OppUser != f.user {
			return "", false
		}
		rec.OppUser = ForgottenUser
		b, err := json.Marshal(rec)
		if err != nil {
			return "", false
		}
		return string(b), true
	}, func(n int) {
		if f.guild != "" {
			f.rep.History += n
		} else {
			f.rep.Mentions += n
		}
	})
}

// audits rewrites the audit entries that name the user: as the moderator
// who acted, or in the details.
func (f *forgetter) audits(ctx context.Context, keys []string) error {
	return f.lists(ctx, keys, f.user, func(entry string) (string, bool) {
		if !hasToken(entry, f.user) {
			return "", false
		}
		var e AuditEntry
		if json.Unmarshal([]byte(entry), &e) != nil {
			return "", true
		}
		if e.User == f.user {
			e.User = ForgottenUser
		}
		e.Detail = replaceToken(e.Detail, f.user, ForgottenUser)
		b, err := json.Marshal(e)
		if err != nil || hasToken(string(b), f.user) {
			return "", true // named elsewhere: the entry goes
		}
		return string(b), true
	}, func(n int) { f.rep.Audit += n })
}

// lists reads the lists keys and, in each, replaces every element that
// contains needle by what change returns for it ("" removes it) when
// change says so, adding the number of elements changed with count.
func (f *forgetter) lists(ctx context.Context, keys []string, needle string, change func(string) (string, bool), count func(int)) error {
	if len(keys) == 0 {
		return nil
	}
	pipe := f.s.rdb.Pipeline()
	cmds := make([]*redis.StringSliceCmd, len(keys))
	for i, k := range keys {
		cmds[i] = pipe.LRange(ctx, k, 0, -1)
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	for i, k := range keys {
		var args []any
		for _, e := range cmds[i].Val() {
			if !strings.Contains(e, needle) {
				continue
			}
			if to, ok := change(e); ok {
				args = append(args, e, to)
			}
		}
		if len(args) == 0 {
			continue
		}
		n, err := forgetListScript.Run(ctx, f.s.rdb, []string{k}, args...).Int()
		if err != nil {
			return err
		}
		count(n)
	}
	return nil
}

// others does the rest of a page in one pipeline: it drops the user from
// the channels' active-player maps, deletes the user's own history and
// blocks written again since they went first, the keys to drop, and the
// counted keys (counting them), and takes the guild out of users' indexes
// of guilds.
func (f *forgetter) others(ctx context.Context, pg *forgetPage) error {
	if len(pg.actives)+len(pg.ownHistory)+len(pg.ownBlocks)+len(pg.drop)+len(pg.counted)+len(pg.unindex) == 0 {
		return nil
	}
	pipe := f.s.rdb.Pipeline()
	for _, k := range pg.actives {
		pipe.HDel(ctx, k, f.user)
	}
	var removed []*redis.IntCmd // each counts as a block
	for _, k := range pg.ownBlocks {
		removed = append(removed, pipe.SCard(ctx, k))
		pipe.Del(ctx, k)
	}
	var history []*redis.IntCmd
	for _, k := range pg.ownHistory {
		history = append(history, pipe.LLen(ctx, k))
		pipe.Del(ctx, k)
	}
	for _, k := range pg.drop {
		pipe.Del(ctx, k)
	}
	counted := make([]*redis.IntCmd, len(pg.counted))
	for i, k := range pg.counted {
		counted[i] = pipe.Del(ctx, k)
	}
	for _, k := range pg.unindex {
		pipe.SRem(ctx, k, f.guild)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return err
	}
	for _, c := range removed {
		f.rep.Blocks += int(c.Val())
	}
	for _, c := range history {
		f.rep.History += int(c.Val())
	}
	for i, c := range counted {
		*pg.counts[i] += int(c.Val())
	}
	return nil
}

// moves gives the user's cooldowns, rate buckets and throttles still
// named by their ID the names of their pseudonym, with their values and
// times to live (a newer one already under the new name wins), and
// migrates the blocks of the owners (MigrateBlocks), which other users
// set under their IDs and may hold the user's. Nothing of it is counted:
// nothing goes.
func (f *forgetter) moves(ctx context.Context, moves []keyMove, owners []string) error {
	for _, owner := range owners {
		if _, err := f.s.migrateBlocks(ctx, owner); err != nil {
			return err
		}
	}
	if len(moves) == 0 {
		return nil
	}
	pipe := f.s.rdb.Pipeline()
	vals, ttls := make([]*redis.StringCmd, len(moves)), make([]*redis.DurationCmd, len(moves))
	for i, m := range moves {
		vals[i], ttls[i] = pipe.Get(ctx, m.from), pipe.PTTL(ctx, m.from)
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	pipe = f.s.rdb.Pipeline()
	for i, m := range moves {
		if vals[i].Err() == nil {
			ttl := ttls[i].Val()
			if ttl < 0 {
				ttl = 0 // none: kept without one, as it was
			}
			pipe.SetNX(ctx, m.to, vals[i].Val(), ttl)
		}
		pipe.Del(ctx, m.from) // gone meanwhile, or of another type: it goes all the same
	}
	_, err := pipe.Exec(ctx)
	return err
}

// candidates rewrites the kept retrain candidates whose metadata names
// the user: the job's report (JSON persistence does not otherwise read)
// names the moderator who asked for the run. Every string in it that is
// the user's ID becomes ForgottenUser; numbers and other text are left
// as they are. Metadata that does not decode is left alone.
func (f *forgetter) candidates(ctx context.Context, keys []string) error {
	for _, k := range keys {
		data, err := f.s.rdb.Get(ctx, k).Result()
		if errors.Is(err, redis.Nil) {
			continue
		}
		if err != nil {
			return err
		}
		if !strings.Contains(data, jsonString(f.user)) {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(data))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			continue
		}
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(replaceJSONString(v, f.user, ForgottenUser)); err != nil {
			return fmt.Errorf("persistence: encode %s: %w", k, err)
		}
		n, err := forgetReplaceScript.Run(ctx, f.s.rdb, []string{k}, data, strings.TrimSuffix(b.String(), "\n")).Int()
		if err != nil {
			return err
		}
		f.rep.Audit += n
	}
	return nil
}

// jsonString is s as a JSON string, quotes included.
func jsonString(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}

// replaceJSONString returns v, decoded JSON, with every string equal to
// from (object keys aside) replaced by to.
func replaceJSONString(v any, from, to string) any {
	switch x := v.(type) {
	case string:
		if x == from {
			return to
		}
	case []any:
		for i := range x {
			x[i] = replaceJSONString(x[i], from, to)
		}
	case map[string]any:
		for k := range x {
			x[k] = replaceJSONString(x[k], from, to)
		}
	}
	return v
}

// userStats deletes stats of the user that the index of their guilds
// missed, with their leaderboard places.
func (f *forgetter) userStats(ctx context.Context, refs []statsRef) error {
	for _, r := range refs {
		board := f.s.keys.ratingBoard(r.guild)
		if r.puzzle {
			board = f.s.keys.puzzleBoard(r.guild)
		}
		pipe := f.s.rdb.TxPipeline() // one guild's scope: one slot
		d := pipe.Del(ctx, r.key)
		z := pipe.ZRem(ctx, board, f.user)
		if _, err := pipe.Exec(ctx); err != nil {
			return err
		}
		if r.puzzle {
			f.rep.PuzzleStats += int(d.Val())
		} else {
			f.rep.Stats += int(d.Val())
		}
		f.rep.Leaderboards += int(z.Val())
	}
	return nil
}

// isIDByte reports whether c can be part of an ID token.
func isIDByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '-'
}

// tokenAt reports whether s has tok at i as a whole token: not inside a
// longer run of ID characters.
func tokenAt(s, tok string, i int) bool {
	return (i == 0 || !isIDByte(s[i-1])) && (i+len(tok) == len(s) || !isIDByte(s[i+len(tok)]))
}

// hasToken reports whether s contains tok as a whole token ("100" is in
// "u:100" and "<@100>", not in "1000").
func hasToken(s, tok string) bool {
	if tok == "" {
		return false
	}
	for i := 0; ; {
		j := strings.Index(s[i:], tok)
		if j < 0 {
			return false
		}
		if tokenAt(s, tok, i+j) {
			return true
		}
		i += j + 1
	}
}

// replaceToken replaces every whole-token tok in s by with.
func replaceToken(s, tok, with string) string {
	if tok == "" {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], tok)
		if j < 0 {
			b.WriteString(s[i:])
			break
		}
		if tokenAt(s, tok, i+j) {
			b.WriteString(s[i : i+j])
			b.WriteString(with)
			i += j + len(tok)
			continue
		}
		b.WriteString(s[i : i+j+1])
		i += j + 1
	}
	return b.String()
}
