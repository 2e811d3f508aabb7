package persistence

import "strconv"

// keys builds every Redis key the Store uses; no key is spelled anywhere
// else. Keys that must change together in one atomic step share a hash tag
// (the part in braces), so they live in one Cluster slot.
type keys struct{ prefix string }

// tag wraps s as a hash tag.
func tag(s string) string { return "{" + s + "}" }

// --- sessions, moves, deadlines, active games, idempotency, locks ---

// Hash-tag design for sessions. Everything about a game lives in its
// Discord channel's slot: the tag is the channel ID. A GameID is
// "<channel>.<suffix>", so the key of a game is computed from its ID alone,
// and the game record and the channel's active-player map share a slot; the
// move script (compare-and-set on the version, plus claiming or releasing
// the players' places in the active map) is then one atomic step, on a
// single node and in Cluster alike:
//
//	ttt:{<channel>}:g:<suffix>   hash: v (version), s (status), d (record)
//	ttt:{<channel>}:active       hash: user ID -> suffix of their live game
//
// The turn-deadline index is global (a sweeper must find every due game
// without knowing the channels), so it has its own tag and is updated in a
// second step after the game's compare-and-set; deadline.go explains why a
// lost or stale index entry is harmless:
//
//	ttt:{deadlines}:due          zset: game ID, scored by its deadline (ms)
//	ttt:{deadlines}:claimed      zset: game ID, scored by its claim's lease end
//
// Boards owed to the screen (delivery.go) have their own tag too:
//
//	ttt:{delivery}:owed          zset: game ID, scored by its next try (ms)
//	ttt:{delivery}:versions      hash: game ID -> highest version owed
//
// Interaction IDs and locks are single keys (a lock and its fencing counter
// share the lock's name as their tag):
//
//	ttt:ix:<interaction>         string, SET NX with a TTL
//	ttt:lock:{<name>}            string "<token> <owner>", with the lease as TTL
//	ttt:lock:{<name>}:fence      integer, INCR on every acquire

// gamePrefix is the part of a game key before the suffix; the move script
// builds the keys of a player's other games in the channel from it.
func (k keys) gamePrefix(channel string) string { return k.prefix + ":" + tag(channel) + ":g:" }

// game is a game session's key.
func (k keys) game(channel, suffix string) string { return k.gamePrefix(channel) + suffix }

// active is a channel's map from player to live game.
func (k keys) active(channel string) string { return k.prefix + ":" + tag(channel) + ":active" }

// due is the index of games by deadline.
func (k keys) due() string { return k.prefix + ":" + tag("deadlines") + ":due" }

// claimed holds the due entries a sweeper has claimed, scored by lease end.
func (k keys) claimed() string { return k.prefix + ":" + tag("deadlines") + ":claimed" }

// owed indexes the games whose board may not be on screen, scored by when
// a sweeper tries to show them next (see delivery.go).
func (k keys) owed() string { return k.prefix + ":" + tag("delivery") + ":owed" }

// owedVersions holds, per owed game, the highest version owed.
func (k keys) owedVersions() string { return k.prefix + ":" + tag("delivery") + ":versions" }

// interaction marks a Discord interaction ID as handled.
func (k keys) interaction(id string) string { return k.prefix + ":ix:" + id }

// lock is a named lock.
func (k keys) lock(name string) string { return k.prefix + ":lock:" + tag(name) }

// fence is a named lock's fencing-token counter.
func (k keys) fence(name string) string { return k.lock(name) + ":fence" }

// --- corpus, ratings and stats, model registry ---

// Corpus: one stream per rules (the hash tag), and beside it, in the same
// slot, the game IDs already appended (for exactly-once appends) and the
// readers' checkpoints.
func (k keys) corpusStream(rules string) string { return k.prefix + ":corpus:" + tag(rules) }

// corpusSeen is a sorted set of appended game IDs scored by append time.
func (k keys) corpusSeen(rules string) string { return k.corpusStream(rules) + ":seen" }

// corpusCheckpoints is a hash from consumer name to the last stream ID it consumed.
func (k keys) corpusCheckpoints(rules string) string { return k.corpusStream(rules) + ":ckpt" }

// corpusIndex is the set of rules keys that have a corpus (its own slot;
// it only lists streams, nothing depends on it atomically).
func (k keys) corpusIndex() string { return k.prefix + ":corpus-rules" }

// ratingScope is the hash tag of one scope of ratings and stats: a guild
// ("g:" and its ID) or the global scope (guild ""). All keys a finished game
// changes in one scope share it, so each scope's update is one script on
// one slot; the guild and global scopes are updated separately.
func ratingScope(guild string) string {
	if guild == "" {
		return tag("global")
	}
	return tag("g:" + guild)
}

// ratingStats is a hash of one user's results and rating in one scope.
func (k keys) ratingStats(guild, user string) string {
	return k.prefix + ":rating:" + ratingScope(guild) + ":user:" + user
}

// ratingBoard is a scope's leaderboard: a sorted set of users by rating.
func (k keys) ratingBoard(guild string) string {
	return k.prefix + ":rating:" + ratingScope(guild) + ":board"
}

// ratingApplied marks a game as counted in a scope (expires after ratingMarkerTTL).
func (k keys) ratingApplied(guild, gameID string) string {
	return k.prefix + ":rating:" + ratingScope(guild) + ":applied:" + gameID
}

// ratingGuilds is the set of guilds a user has stats in, kept in the global
// scope so that deleting a user's stats can find them all.
func (k keys) ratingGuilds(user string) string {
	return k.prefix + ":rating:" + ratingScope("") + ":guilds:" + user
}

// Model registry: per rules (the hash tag) the current version, the kept
// versions, a version counter, and each version's metadata and blob.
func (k keys) modelBase(rules string) string { return k.prefix + ":model:" + tag(rules) }

// modelCurrent holds the current version number.
func (k keys) modelCurrent(rules string) string { return k.modelBase(rules) + ":current" }

// modelVersions is a sorted set of the kept versions, scored by number.
func (k keys) modelVersions(rules string) string { return k.modelBase(rules) + ":versions" }

// modelSeq hands out version numbers.
func (k keys) modelSeq(rules string) string { return k.modelBase(rules) + ":seq" }

// modelMeta holds one version's metadata as JSON.
func (k keys) modelMeta(rules string, v int64) string {
	return k.modelBase(rules) + ":meta:" + modelVersionString(v)
}

// modelBlob holds one version's weights.
func (k keys) modelBlob(rules string, v int64) string {
	return k.modelBase(rules) + ":blob:" + modelVersionString(v)
}

// modelChannel is the pub/sub channel (not a key) on which publishes and
// rollbacks are announced.
func (k keys) modelChannel() string { return k.prefix + ":models" }

// --- archive, reviews, histories, daily puzzles ---

// A finished game's archive and its cached review live in the game's
// channel slot, beside the game itself (a review is only stored while the
// archive exists, checked and written in one script):
//
//	ttt:{<channel>}:a:<suffix>              string: the archived game (JSON, short names)
//	ttt:{<channel>}:rv:<suffix>             string: a cached review, with the archive's TTL
//
// A user's history is one list in the user's own slot; the push script
// checks for the game and inserts the entry in one step:
//
//	ttt:history:{u:<user>}                  list: entries (JSON, short names), newest first
//
// Daily puzzles, puzzle stats and the puzzle leaderboard share the
// guild's scope tag with its ratings (ratingScope: {g:<guild>}, or
// {global} outside guilds), so one script updates a user's stats and the
// leaderboard, and DeleteUserStats clears ratings and puzzles of a guild
// in one transaction:
//
//	ttt:puzzle:{g:<guild>}:day:<day>:<rules>  string: the day's puzzle, set once
//	ttt:puzzle:{g:<guild>}:user:<user>        hash: counts, streak, recent attempts
//	ttt:puzzle:{g:<guild>}:board              zset: users by solved and streak
//
// The guilds a user has puzzle stats in are added to ratingGuilds, the
// index DeleteUserStats reads.

// archive is a finished game's archived record.
func (k keys) archive(channel, suffix string) string {
	return k.prefix + ":" + tag(channel) + ":a:" + suffix
}

// review is a finished game's cached review.
func (k keys) review(channel, suffix string) string {
	return k.prefix + ":" + tag(channel) + ":rv:" + suffix
}

// history is a user's list of games, newest first.
func (k keys) history(user string) string { return k.prefix + ":history:" + tag("u:"+user) }

// puzzleDaily is the puzzle of one day and rules in a guild.
func (k keys) puzzleDaily(guild, day, rules string) string {
	return k.prefix + ":puzzle:" + ratingScope(guild) + ":day:" + day + ":" + rules
}

// puzzleStats is a user's puzzle stats in a guild.
func (k keys) puzzleStats(guild, user string) string {
	return k.prefix + ":puzzle:" + ratingScope(guild) + ":user:" + user
}

// puzzleBoard is a guild's puzzle leaderboard.
func (k keys) puzzleBoard(guild string) string {
	return k.prefix + ":puzzle:" + ratingScope(guild) + ":board"
}

// --- per-guild settings and audit log ---

// settings is a guild's settings hash (setting name to value text); it
// shares the guild's ratings tag, so a guild's data can go in one step.
func (k keys) settings(guild string) string {
	return k.prefix + ":settings:" + ratingScope(guild)
}

// audit is a guild's audit log: a list of JSON entries, newest first.
func (k keys) audit(guild string) string { return k.settings(guild) + ":audit" }

// settingsChannel is the pub/sub channel (not a key) on which settings
// changes are announced, with the guild ID as the message.
func (k keys) settingsChannel() string { return k.prefix + ":settings" }

// --- blocks, challenge limits, rate limits ---

// A user's blocks are one set in its own slot, named, like its members,
// by pseudonym (Store.pseudo), never by Discord ID: other users' blocks
// of a forgotten user stay, and so must not hold their ID. The challenge
// cooldown and the open-challenge index are per guild and user, in the
// guild's scope; the cooldown names the user by pseudonym (it outlives a
// forgetting, expiring by itself), the open-challenge index by ID (a
// forgetting deletes it). The rate-limit buckets are single keys with
// their own tag; a user's (Store.AllowUser) is "u:" and their pseudonym.
// Every script on them touches one key:
//
//	ttt:block:{u:<pseudonym>}               set: pseudonyms of the users the user refuses challenges from
//	ttt:cooldown:{g:<guild>}:<pseudonym>    string: when the user may challenge again (Unix ms), with that TTL
//	ttt:open:{g:<guild>}:<user>             zset: game IDs of the user's challenges, scored by deadline (ms)
//	ttt:rate:{<bucket>}                     string: the bucket's theoretical arrival time (Unix µs), with a TTL
//
// Before blocks were named by pseudonym they were ttt:block:{u:<user>}
// holding user IDs; Store.MigrateBlocks moves them.

// blocks is the set of users (pseudonyms) the user with pseudonym owner
// has blocked.
func (k keys) blocks(owner string) string { return k.prefix + ":block:" + tag("u:"+owner) }

// challengeCooldown holds when the user with pseudonym owner may next
// challenge in guild.
func (k keys) challengeCooldown(guild, owner string) string {
	return k.prefix + ":cooldown:" + ratingScope(guild) + ":" + owner
}

// openChallenges indexes user's challenges in guild by deadline.
func (k keys) openChallenges(guild, user string) string {
	return k.prefix + ":open:" + ratingScope(guild) + ":" + user
}

// rateBucket is the state of one rate-limit bucket.
func (k keys) rateBucket(bucket string) string { return k.prefix + ":rate:" + tag(bucket) }

// --- shared secrets ---

// secret is a secret shared by every process on this Redis (the HMAC keys
// serve generates when they are not configured), kept without a TTL:
//
//	ttt:secret:<name>            string: the secret's bytes, set once
func (k keys) secret(name string) string { return k.prefix + ":secret:" + name }

// --- live-game indexes (the per-server limits on games) ---

// What the limits on games per channel and per player count (limits.go):
// an index of a channel's games in the channel's slot, beside the games
// (so the game keys can be built from the suffixes it holds), and an
// index of a player's games per guild, in the guild's scope. Both are
// written by CreateGame and Accept and checked against the games when
// counted:
//
//	ttt:{<channel>}:live                    zset: suffixes of the channel's games, scored by when indexed (ms)
//	ttt:live:{g:<guild>}:<user>             zset: IDs of the user's games in the guild, likewise

// channelLive indexes a channel's games.
func (k keys) channelLive(channel string) string { return k.prefix + ":" + tag(channel) + ":live" }

// userLive indexes user's games in guild.
func (k keys) userLive(guild, user string) string {
	return k.prefix + ":live:" + ratingScope(guild) + ":" + user
}

// throttle marks the window in which an expensive action named name (a
// server's forget, or a user's, "<action>:<pseudonym>": Store.ThrottleUser)
// may not run again; it expires with it.
func (k keys) throttle(name string) string { return k.prefix + ":throttle:" + tag(name) }

// --- tournaments ---

// A tournament is one record in its own slot; its guild's list and the
// due index are separate keys, kept safe rather than exact (tournament.go):
//
//	ttt:tn:{<id>}                hash: v (version), d (JSON record)
//	ttt:tn-guild:{g:<guild>}     set: the guild's tournament IDs
//	ttt:tn-names:{g:<guild>}     hash: folded name -> the ID of the tournament that last took it
//	ttt:{tournaments}:due        zset: tournament ID, scored by its Due (ms)
//	ttt:{tournaments}:claimed    zset: tournament ID, scored by its claim's lease end
//	ttt:{tournaments}:poked      zset: a claimed tournament's next Due, for its Ack

// tournament is a tournament's record.
func (k keys) tournament(id string) string { return k.prefix + ":tn:" + tag(id) }

// guildTournaments is the set of a guild's tournament IDs.
func (k keys) guildTournaments(guild string) string { return k.prefix + ":tn-guild:" + tag("g:"+guild) }

// tournamentNames maps the names of a guild's tournaments (case folded)
// to their IDs, in the slot of guildTournaments.
func (k keys) tournamentNames(guild string) string { return k.prefix + ":tn-names:" + tag("g:"+guild) }

// tournamentsDue is the index of tournaments by Due.
func (k keys) tournamentsDue() string { return k.prefix + ":" + tag("tournaments") + ":due" }

// tournamentsClaimed holds the due tournaments a sweeper has claimed.
func (k keys) tournamentsClaimed() string { return k.prefix + ":" + tag("tournaments") + ":claimed" }

// tournamentsPoked holds the times claimed tournaments came due again
// during their claim, for AckTournament to index them at.
func (k keys) tournamentsPoked() string { return k.prefix + ":" + tag("tournaments") + ":poked" }

// --- process presence and the identify limiter (bot/shards) ---

// Presence: each group of cooperating processes is one sorted set in its
// own slot, from owner to the end of its heartbeat (Unix ms); members whose
// heartbeat ran out are pruned on every heartbeat and read. Shard leases
// are ordinary locks named "shard:<count>:<id>" (ttt:lock:{shard:<count>:<id>}).
// The identify limiter is one key per bucket, SET NX with the spacing as
// its TTL, so at most one IDENTIFY per bucket per spacing across processes:
//
//	ttt:presence:{<group>}       zset: owner -> heartbeat expiry (ms)
//	ttt:identify:{<bucket>}      string: the owner of the last IDENTIFY, with the spacing as TTL

// presence is a group's set of live members.
func (k keys) presence(group string) string { return k.prefix + ":presence:" + tag(group) }

// identify is the identify limiter of one max_concurrency bucket.
func (k keys) identify(bucket int) string {
	return k.prefix + ":identify:" + tag(strconv.Itoa(bucket))
}
