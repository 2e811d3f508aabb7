package persistence

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/game/wide"
)

// ArchivedGame is a finished game as kept for replays, reviews and its
// players' histories (see Store.ArchiveGame), for Options.HistoryTTL.
type ArchivedGame struct {
	// ID names the game; its channel is the archive's hash tag.
	ID GameID
	// Guild is the Discord guild (server) ID; empty in direct messages.
	Guild string
	// Rules is the rules notation in canonical form ("3x3k3").
	Rules string
	// Start is the starting position in position notation; empty for the
	// empty board.
	Start string
	// Moves are the cells played from Start, in order.
	Moves []game.Cell
	// WideMoves are the cells of a game on a wide board (past 8x8; see
	// Board), from the empty board; Moves is empty then.
	WideMoves []wide.Cell
	// Players are the sides, [0] X and [1] O: a user (the raw Discord user
	// ID, not a pseudonym) or an AI level; both empty for an unknown player.
	Players [2]Player
	// Result is XWins, OWins or Draw: games that ended without a result
	// are not archived.
	Result game.Result
	// End says how the game ended: ByWin or ByDraw when the board decided
	// it (NotEnded is read as that), else ByResign, ByTimeout (the other
	// side won), ByModerator or ByExpiry.
	End Ending
	// Finished is when the game ended; the zero time means now.
	Finished time.Time
	// Ratings are each side's rating change, [0] X and [1] O.
	Ratings [2]RatingChange
	// Assisted says, per side, whether its player took a hint.
	Assisted [2]bool
}

// Record is the game's record: its rules, start and moves. It fails if
// they do not replay (a record damaged in the store).
func (g *ArchivedGame) Record() (game.Record, error) {
	if len(g.WideMoves) > 0 {
		return game.Record{}, fmt.Errorf("%w: archived game %s is on a %s board, past game's 8x8 (see WideRecord)", ErrInvalid, g.ID, g.Rules)
	}
	rules, err := game.ParseRules(g.Rules)
	if err != nil {
		return game.Record{}, fmt.Errorf("persistence: archived game %s: %w", g.ID, err)
	}
	start := game.NewPosition(rules)
	if g.Start != "" {
		if start, err = game.ParsePosition(rules, g.Start); err != nil {
			return game.Record{}, fmt.Errorf("persistence: archived game %s: %w", g.ID, err)
		}
	}
	rec, err := game.NewRecord(start, g.Moves)
	if err != nil {
		return game.Record{}, fmt.Errorf("persistence: archived game %s: %w", g.ID, err)
	}
	return rec, nil
}

// WideRecord is the record of a game on a wide board: its rules and moves.
// It fails for a game on game's boards, or one that does not replay.
func (g *ArchivedGame) WideRecord() (wide.Record, error) {
	rules, err := wide.ParseRules(g.Rules)
	if err != nil {
		return wide.Record{}, fmt.Errorf("persistence: archived game %s: %w", g.ID, err)
	}
	rec, err := wide.NewRecord(wide.NewPosition(rules), g.WideMoves)
	if err != nil {
		return wide.Record{}, fmt.Errorf("persistence: archived game %s: %w", g.ID, err)
	}
	return rec, nil
}

// IsWide reports whether the game is on a wide board (past 8x8).
func (g *ArchivedGame) IsWide() bool { return IsWideRules(g.Rules) }

// RatingChange is one player's rating around one game.
type RatingChange struct {
	// Rated is whether the game changed the player's rating; Before and
	// After are zero when it did not.
	Rated bool
	// Before and After are the rating before and after the game, kept to
	// four decimals as the ratings are.
	Before, After float64
}

// HistoryEntry is one line of a user's history: self-contained, so that a
// page of history needs no other read.
type HistoryEntry struct {
	// Game is the game's ID, for a replay or review of its archive.
	Game GameID
	// Guild is the guild the game was played in; empty in direct messages.
	Guild string
	// Rules is the rules notation in canonical form.
	Rules string
	// Side is the user's side, game.X or game.O.
	Side game.Mark
	// Opponent is the other side: a user or an AI level (the user
	// themselves in a game against themselves).
	Opponent Player
	// Result is the game's result (XWins, OWins or Draw; compare with
	// Side to tell a win from a loss).
	Result game.Result
	// End says how the game ended.
	End Ending
	// Moves is the number of moves played.
	Moves int
	// Finished is when the game ended.
	Finished time.Time
	// Rating is the user's rating change.
	Rating RatingChange
	// Assisted says whether the user took a hint.
	Assisted bool
}

// Won reports whether the entry's user won the game.
func (e HistoryEntry) Won() bool {
	return e.Result == game.XWins && e.Side == game.X || e.Result == game.OWins && e.Side == game.O
}

// CorruptHistoryError reports entries of a user's history that do not
// decode. History skips them and returns it together with the valid
// entries and their count, which are usable as they are: a caller that
// shows the history should show them and log the error.
type CorruptHistoryError struct {
	// User is whose history it is.
	User string
	// Skipped is the number of entries skipped.
	Skipped int
	// Err says what is wrong with the first; it wraps ErrCorrupt.
	Err error
}

// Error says how many entries were skipped and why the first was.
func (e *CorruptHistoryError) Error() string {
	return fmt.Sprintf("persistence: history of %s: %d corrupt entries skipped, the first: %v", e.User, e.Skipped, e.Err)
}

// Unwrap returns the first entry's error, which wraps ErrCorrupt.
func (e *CorruptHistoryError) Unwrap() error { return e.Err }

// historyPlayer is the stored form of a Player in an archive.
type historyPlayer struct {
	User string `json:"u,omitempty"`
	AI   string `json:"a,omitempty"`
}

// archiveRecord is the stored form of an ArchivedGame (the ID is in the
// key), JSON with short names.
type archiveRecord struct {
	Guild    string           `json:"gu,omitempty"`
	Rules    string           `json:"r"`
	Start    string           `json:"st,omitempty"`
	Moves    []int            `json:"m,omitempty"`
	Players  [2]historyPlayer `json:"p"`
	Result   uint8            `json:"re"`
	End      uint8            `json:"e"`
	Finished int64            `json:"f"`            // Unix milliseconds
	RatingX  []float64        `json:"rx,omitempty"` // before, after; only when rated
	RatingO  []float64        `json:"ro,omitempty"`
	Assisted uint8            `json:"as,omitempty"` // bit 0 X, bit 1 O
}

// historyRecord is the stored form of a HistoryEntry: JSON with short
// names, about 150 bytes. Game must stay the first field and Finished the
// second: historyPushScript recognises an entry's game by the prefix
// historyPrefix builds, and reads the finishing time after it.
type historyRecord struct {
	Game     string    `json:"g"`
	Finished int64     `json:"f"` // Unix milliseconds
	Guild    string    `json:"gu,omitempty"`
	Rules    string    `json:"r"`
	Side     uint8     `json:"s"`
	OppUser  string    `json:"ou,omitempty"`
	OppAI    string    `json:"oa,omitempty"`
	Result   uint8     `json:"re"`
	End      uint8     `json:"e"`
	Moves    int       `json:"m"`
	Rating   []float64 `json:"rt,omitempty"` // before, after; only when rated
	Assisted bool      `json:"as,omitempty"`
}

// historyPrefix is how every stored entry of game id begins.
func historyPrefix(id GameID) string {
	b, _ := json.Marshal(string(id)) // a string always marshals
	return `{"g":` + string(b) + `,"f":`
}

// setOrGetScript stores ARGV[1] in KEYS[1] with a TTL of ARGV[2] ms unless
// the key exists; it replies with the value already there, or nil when it
// stored ARGV[1]. (SET NX GET needs Redis 7; this works everywhere.)
var setOrGetScript = redis.NewScript(`
local old = redis.call('GET', KEYS[1])
if old then return old end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false
`)

// setOrGet runs setOrGetScript: it returns the value that won, ours or the
// one stored before, and whether it is ours.
func (s *Store) setOrGet(ctx context.Context, key, value string, ttl time.Duration) (string, bool, error) {
	old, err := setOrGetScript.Run(ctx, s.rdb, []string{key}, value, max(ttl.Milliseconds(), 1)).Text()
	if errors.Is(err, redis.Nil) {
		return value, true, nil
	}
	if err != nil {
		return "", false, err
	}
	return old, false, nil
}

// historyPushScript adds one entry to a user's history, once per game.
//
// KEYS[1] the history list.
// ARGV[1] the entry's prefix, which identifies its game (historyPrefix),
// ARGV[2] its finishing time (ms), ARGV[3] the entry, ARGV[4] how many
// entries to keep, ARGV[5] the list's TTL (ms), ARGV[6] the cutoff (ms):
// entries that finished before it leave.
//
// It replies 0, changing nothing, when an entry of the game is already in
// the list (a retry, another replica), else 1. The entry is inserted in
// order of finishing time, newest first, so a late report lands where it
// belongs; entries are found by their prefix and time by plain string
// matching (in a JSON string a comma is never followed by a bare quote, so
// the first `,"f":` is the field). Entries that do not decode are kept in
// place and passed over.
var historyPushScript = redis.NewScript(`
local f = tonumber(ARGV[2])
local pivot
for _, e in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  if string.sub(e, 1, #ARGV[1]) == ARGV[1] then return 0 end
  if not pivot then
    local ef = tonumber(string.match(e, ',"f":(%-?%d+)'))
    if ef and ef <= f then pivot = e end
  end
end
if pivot then
  redis.call('LINSERT', KEYS[1], 'BEFORE', pivot, ARGV[3])
else
  redis.call('RPUSH', KEYS[1], ARGV[3])
end
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[4]) - 1)
local cutoff = tonumber(ARGV[6])
while true do
  local last = redis.call('LINDEX', KEYS[1], -1)
  if not last then break end
  local lf = tonumber(string.match(last, ',"f":(%-?%d+)'))
  if not lf or lf >= cutoff then break end
  redis.call('RPOP', KEYS[1])
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`)

// reviewSaveScript stores a review (ARGV[1]) in KEYS[2] with the TTL the
// archive KEYS[1] has left; it replies 0, storing nothing, when there is
// no archive.
var reviewSaveScript = redis.NewScript(`
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 then return 0 end
if ttl < 0 then
  redis.call('SET', KEYS[2], ARGV[1])
else
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ttl)
end
return 1
`)

// checkHistoryUser accepts a user ID that can serve as a hash tag.
func checkHistoryUser(user string) error {
	if user == "" || len(user) > 64 || strings.ContainsAny(user, "{}") {
		return fmt.Errorf("%w: user %q: a user ID is 1 to 64 bytes without braces", ErrInvalid, user)
	}
	return nil
}

// roundRating keeps four decimals, as the ratings do.
func roundRating(r float64) float64 { return math.Round(r*1e4) / 1e4 }

// checkArchive validates g by replaying it and returns it normalized:
// canonical rules and start, End ByWin or ByDraw for a board that decided
// the game, ratings rounded, Finished set (zero means now) and in UTC to
// the millisecond, Moves copied. Errors wrap ErrInvalid and say what is
// wrong.
func (s *Store) checkArchive(g ArchivedGame) (ArchivedGame, error) {
	bad := func(format string, a ...any) (ArchivedGame, error) {
		return ArchivedGame{}, fmt.Errorf("%w: archive game %q: %s", ErrInvalid, string(g.ID), fmt.Sprintf(format, a...))
	}
	if _, _, err := g.ID.split(); err != nil {
		return bad("not a game ID (<channel>.<suffix>)")
	}
	rules, err := s.rules.parse(g.Rules)
	if err != nil {
		w, werr := wide.ParseRules(g.Rules)
		if werr != nil {
			return bad("%v", err)
		}
		return s.checkWideArchive(g, w, bad)
	}
	if len(g.WideMoves) > 0 {
		return bad("wide-board moves in a %s game", g.Rules)
	}
	g.Rules = rules.String()
	pos := game.NewPosition(rules)
	if g.Start != "" {
		if pos, err = game.ParsePosition(rules, g.Start); err != nil {
			return bad("start: %v", err)
		}
		if pos.Over() {
			return bad("the start position %s is already decided", g.Start)
		}
		g.Start = ""
		if pos.Ply() > 0 {
			g.Start = pos.String()
		}
	}
	g.Moves = append([]game.Cell(nil), g.Moves...)
	for i, c := range g.Moves {
		if pos, err = pos.Play(c); err != nil {
			return bad("move %d (%s): %v", i+1, c, err)
		}
	}
	if err := checkArchiveEnd(&g, pos.Over(), pos.Outcome().Result); err != nil {
		return bad("%s", err)
	}
	return s.checkArchiveRest(g, bad)
}

// checkWideArchive is checkArchive for a game on a wide board: it starts
// from the empty board, and its moves are WideMoves.
func (s *Store) checkWideArchive(g ArchivedGame, rules wide.Rules, bad func(string, ...any) (ArchivedGame, error)) (ArchivedGame, error) {
	if g.Start != "" || len(g.Moves) > 0 {
		return bad("a %s game has a start position or small-board moves", g.Rules)
	}
	g.Rules = rules.String()
	pos := wide.NewPosition(rules)
	g.WideMoves = append([]wide.Cell(nil), g.WideMoves...)
	for i, c := range g.WideMoves {
		var err error
		if pos, err = pos.Play(c); err != nil {
			return bad("move %d (%s): %v", i+1, c, err)
		}
	}
	if err := checkArchiveEnd(&g, pos.Over(), pos.Outcome().Result); err != nil {
		return bad("%s", err)
	}
	return s.checkArchiveRest(g, bad)
}

// checkArchiveRest is the end of checkArchive: the sides and the time.
func (s *Store) checkArchiveRest(g ArchivedGame, bad func(string, ...any) (ArchivedGame, error)) (ArchivedGame, error) {
	if err := checkArchiveSides(&g); err != nil {
		return bad("%s", err)
	}
	if g.Finished.IsZero() {
		g.Finished = s.now()
	}
	g.Finished = g.Finished.UTC().Truncate(time.Millisecond)
	return g, nil
}

// checkArchiveEnd checks g's result and ending against pos, the position
// its moves reach, and sets End ByWin or ByDraw when the board decided
// the game. Its error says what is wrong.
func checkArchiveEnd(g *ArchivedGame, over bool, board game.Result) error {
	if g.Result != game.XWins && g.Result != game.OWins && g.Result != game.Draw {
		return fmt.Errorf("result %q; want X wins, O wins or draw (games without a result are not archived)", g.Result)
	}
	if !over {
		switch g.End {
		case ByResign, ByTimeout:
			if g.Result == game.Draw {
				return fmt.Errorf("a game ended by %s has a winner", g.End)
			}
		case ByModerator, ByExpiry:
		default:
			return fmt.Errorf("the moves do not finish the game, and it ended by %s; want resign, timeout, moderator or expired", g.End)
		}
		return nil
	}
	decided := ByWin
	if board == game.Draw {
		decided = ByDraw
	}
	switch {
	case g.Result != board:
		return fmt.Errorf("result %q, but the moves give %q", g.Result, board)
	case g.End != NotEnded && g.End != decided:
		return fmt.Errorf("the board decided the game (%s), so it ended by %s, not %s", board, decided, g.End)
	}
	g.End = decided
	return nil
}

// checkArchiveSides checks g's players (a user, an AI level or unknown)
// and their rating changes, rounding them, and clears the changes of
// unrated sides. Its error says what is wrong.
func checkArchiveSides(g *ArchivedGame) error {
	for i, p := range g.Players {
		side := game.Mark(i + 1)
		if p.User != "" && p.AI != "" {
			return fmt.Errorf("side %s is a user or an AI level, not both", side)
		}
		if p.User != "" {
			if err := checkHistoryUser(p.User); err != nil {
				return fmt.Errorf("side %s: %v", side, err)
			}
		}
		rc := &g.Ratings[i]
		if !rc.Rated {
			*rc = RatingChange{}
			continue
		}
		if p.User == "" {
			return fmt.Errorf("side %s is rated but is not a user", side)
		}
		if math.IsNaN(rc.Before) || math.IsInf(rc.Before, 0) || math.IsNaN(rc.After) || math.IsInf(rc.After, 0) {
			return fmt.Errorf("side %s: rating %v to %v", side, rc.Before, rc.After)
		}
		rc.Before, rc.After = roundRating(rc.Before), roundRating(rc.After)
	}
	return nil
}

// encodeArchive returns the stored form of a checked game.
func encodeArchive(g ArchivedGame) (string, error) {
	r := archiveRecord{Guild: g.Guild, Rules: g.Rules, Start: g.Start, Result: uint8(g.Result), End: uint8(g.End),
		Finished: g.Finished.UnixMilli(), Assisted: assistedBits(g.Assisted)}
	for i, p := range g.Players {
		r.Players[i] = historyPlayer{User: p.User, AI: p.AI}
	}
	for _, c := range g.Moves {
		r.Moves = append(r.Moves, int(c))
	}
	for _, c := range g.WideMoves { // a wide game's: its rules tell them apart
		r.Moves = append(r.Moves, int(c))
	}
	if rc := g.Ratings[0]; rc.Rated {
		r.RatingX = []float64{rc.Before, rc.After}
	}
	if rc := g.Ratings[1]; rc.Rated {
		r.RatingO = []float64{rc.Before, rc.After}
	}
	b, err := json.Marshal(r)
	if err != nil {
		return "", fmt.Errorf("persistence: encode archive of game %s: %w", g.ID, err)
	}
	return string(b), nil
}

// decodeArchive rebuilds an archived game from its stored form and checks
// it; anything wrong is ErrCorrupt.
func (s *Store) decodeArchive(id GameID, data string) (*ArchivedGame, error) {
	var r archiveRecord
	if err := json.Unmarshal([]byte(data), &r); err != nil {
		return nil, fmt.Errorf("%w: archive of game %s: %v", ErrCorrupt, id, err)
	}
	g := ArchivedGame{ID: id, Guild: r.Guild, Rules: r.Rules, Start: r.Start, Result: game.Result(r.Result),
		End: Ending(r.End), Finished: time.UnixMilli(r.Finished).UTC(),
		Assisted: [2]bool{r.Assisted&1 != 0, r.Assisted&2 != 0}}
	for i, p := range r.Players {
		g.Players[i] = Player{User: p.User, AI: p.AI}
	}
	isWide := g.IsWide()
	for _, c := range r.Moves {
		switch {
		case !isWide && c >= 0 && c <= 63:
			g.Moves = append(g.Moves, game.Cell(c))
		case isWide && c >= 0 && c <= 255:
			g.WideMoves = append(g.WideMoves, wide.Cell(c))
		default:
			return nil, fmt.Errorf("%w: archive of game %s: move %d off any board", ErrCorrupt, id, c)
		}
	}
	for i, rt := range [2][]float64{r.RatingX, r.RatingO} {
		switch len(rt) {
		case 0:
		case 2:
			g.Ratings[i] = RatingChange{Rated: true, Before: rt[0], After: rt[1]}
		default:
			return nil, fmt.Errorf("%w: archive of game %s: rating %v", ErrCorrupt, id, rt)
		}
	}
	if r.Finished == 0 || r.Assisted > 3 {
		return nil, fmt.Errorf("%w: archive of game %s: no finishing time, or assisted sides out of range", ErrCorrupt, id)
	}
	checked, err := s.checkArchive(g)
	if err != nil {
		return nil, fmt.Errorf("%w: archive of game %s: %v", ErrCorrupt, id, err)
	}
	return &checked, nil
}

// historyEntries returns the history entries a checked game makes, one per
// distinct human player (none for a user who asked to be forgotten, whose
// ID is ForgottenUser), with the users they go to.
func historyEntries(g *ArchivedGame) (users []string, entries []HistoryEntry) {
	for i, p := range g.Players {
		if p.User == "" || p.User == ForgottenUser || i == 1 && p.User == g.Players[0].User {
			continue // no history for an AI, a forgotten user, or twice for one user
		}
		users = append(users, p.User)
		entries = append(entries, HistoryEntry{
			Game: g.ID, Guild: g.Guild, Rules: g.Rules, Side: game.Mark(i + 1), Opponent: g.Players[1-i],
			Result: g.Result, End: g.End, Moves: len(g.Moves) + len(g.WideMoves), Finished: g.Finished,
			Rating: g.Ratings[i], Assisted: g.Assisted[i],
		})
	}
	return users, entries
}

// encodeHistory returns the stored form of a history entry.
func encodeHistory(e HistoryEntry) (string, error) {
	r := historyRecord{Game: string(e.Game), Finished: e.Finished.UnixMilli(), Guild: e.Guild, Rules: e.Rules,
		Side: uint8(e.Side), OppUser: e.Opponent.User, OppAI: e.Opponent.AI, Result: uint8(e.Result),
		End: uint8(e.End), Moves: e.Moves, Assisted: e.Assisted}
	if e.Rating.Rated {
		r.Rating = []float64{e.Rating.Before, e.Rating.After}
	}
	b, err := json.Marshal(r)
	if err != nil {
		return "", fmt.Errorf("persistence: encode history entry of game %s: %w", e.Game, err)
	}
	return string(b), nil
}

// decodeHistory rebuilds a history entry; anything wrong is ErrCorrupt.
func decodeHistory(data string) (HistoryEntry, error) {
	var r historyRecord
	if err := json.Unmarshal([]byte(data), &r); err != nil {
		return HistoryEntry{}, fmt.Errorf("%w: history entry: %v", ErrCorrupt, err)
	}
	e := HistoryEntry{Game: GameID(r.Game), Finished: time.UnixMilli(r.Finished).UTC(), Guild: r.Guild, Rules: r.Rules,
		Side: game.Mark(r.Side), Opponent: Player{User: r.OppUser, AI: r.OppAI}, Result: game.Result(r.Result),
		End: Ending(r.End), Moves: r.Moves, Assisted: r.Assisted}
	switch len(r.Rating) {
	case 0:
	case 2:
		e.Rating = RatingChange{Rated: true, Before: r.Rating[0], After: r.Rating[1]}
	default:
		return HistoryEntry{}, fmt.Errorf("%w: history entry of game %q: rating %v", ErrCorrupt, r.Game, r.Rating)
	}
	if _, _, err := e.Game.split(); err != nil || r.Rules == "" || r.Finished == 0 ||
		e.Side != game.X && e.Side != game.O || e.Result < game.XWins || e.Result > game.Draw ||
		e.End > ByExpiry || e.Moves < 0 || e.Moves > wide.MaxSize*wide.MaxSize {
		return HistoryEntry{}, fmt.Errorf("%w: history entry of game %q: missing or out-of-range fields", ErrCorrupt, r.Game)
	}
	return e, nil
}

// ArchiveGame keeps a finished game for Options.HistoryTTL under its ID,
// for replays and reviews (ArchivedGame), and adds an entry to the history
// of each of its human players (AI and unknown seats have none; a user who
// played themselves gets one), each history keeping its user's newest
// Options.HistoryLimit games and living HistoryTTL after the last one was
// added. The game is validated first (its moves must replay to its result:
// ErrInvalid says what is wrong) and stored normalized (see ArchivedGame).
//
// It is exactly-once per game and user, also when retried after a crash
// between its steps or called by two replicas at once: the archive is
// written only if absent (the first report wins, and the entries are made
// from the archive that won), and each history's script adds the game only
// if the history has no entry of it. A history entry is recognised for as
// long as it is in the history: a report of a game older than the user's
// newest HistoryLimit games would be added and trimmed again at once. An
// archive already stored under the ID that does not decode fails the call
// with ErrCorrupt.
func (s *Store) ArchiveGame(ctx context.Context, g ArchivedGame) error {
	return s.archiveGame(ctx, g, -1)
}

// archiveGame is ArchiveGame that stops after adding users history entries
// (all of them for users < 0), so tests can cut it short as a crash would.
func (s *Store) archiveGame(ctx context.Context, g ArchivedGame, users int) error {
	c, err := s.checkArchive(g)
	if err != nil {
		return err
	}
	data, err := encodeArchive(c)
	if err != nil {
		return err
	}
	ch, suf, _ := c.ID.split() // checkArchive checked the ID
	won, ours, err := s.setOrGet(ctx, s.keys.archive(ch, suf), data, s.opts.HistoryTTL)
	if err != nil {
		return fmt.Errorf("persistence: archive game %s: %w", c.ID, err)
	}
	stored := &c
	if !ours {
		if stored, err = s.decodeArchive(c.ID, won); err != nil {
			return fmt.Errorf("persistence: archive game %s: the archive already stored: %w", c.ID, err)
		}
	}
	who, entries := historyEntries(stored)
	cutoff := s.now().Add(-s.opts.HistoryTTL).UnixMilli()
	for i, e := range entries {
		if users >= 0 && i >= users {
			break
		}
		line, err := encodeHistory(e)
		if err != nil {
			return err
		}
		err = historyPushScript.Run(ctx, s.rdb, []string{s.keys.history(who[i])},
			historyPrefix(e.Game), e.Finished.UnixMilli(), line, s.opts.HistoryLimit,
			max(s.opts.HistoryTTL.Milliseconds(), 1), cutoff).Err()
		if err != nil {
			return fmt.Errorf("persistence: archive game %s: history of %s: %w", c.ID, who[i], err)
		}
	}
	return nil
}

// ArchivedGame loads an archived game. It fails with ErrNotFound when the
// game was never archived or its archive expired (an ID that cannot name a
// game included), and ErrCorrupt when the archive does not decode.
func (s *Store) ArchivedGame(ctx context.Context, id GameID) (*ArchivedGame, error) {
	ch, suf, err := id.split()
	if err != nil {
		return nil, err
	}
	data, err := s.rdb.Get(ctx, s.keys.archive(ch, suf)).Result()
	if errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("%w: archived game %s", ErrNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("persistence: load archived game %s: %w", id, err)
	}
	return s.decodeArchive(id, data)
}

// History returns a page of a user's history, newest first: the entries
// of games in guild (every guild, and direct messages, for guild "") on
// the rules (every board for rules ""; rules are compared in canonical
// notation), skipping the first offset of those and returning at most
// limit, with the number of entries that match. A user without a history
// has none (no error). Entries that do not decode are skipped: History
// then returns the page and count of the valid ones together with a
// *CorruptHistoryError (errors.Is ErrCorrupt).
func (s *Store) History(ctx context.Context, user, guild, rules string, offset, limit int) ([]HistoryEntry, int, error) {
	if err := checkHistoryUser(user); err != nil {
		return nil, 0, err
	}
	if offset < 0 || limit <= 0 {
		return nil, 0, fmt.Errorf("%w: history page at %d of %d entries", ErrInvalid, offset, limit)
	}
	if rules != "" {
		if r, err := s.rules.parse(rules); err == nil {
			rules = r.String()
		}
	}
	raw, err := s.rdb.LRange(ctx, s.keys.history(user), 0, -1).Result()
	if err != nil {
		return nil, 0, fmt.Errorf("persistence: history of %s: %w", user, err)
	}
	var page []HistoryEntry
	var corrupt *CorruptHistoryError
	total := 0
	for _, line := range raw {
		e, err := decodeHistory(line)
		if err != nil {
			if corrupt == nil {
				corrupt = &CorruptHistoryError{User: user, Err: err}
			}
			corrupt.Skipped++
			continue
		}
		if guild != "" && e.Guild != guild || rules != "" && e.Rules != rules {
			continue
		}
		if total >= offset && len(page) < limit {
			page = append(page, e)
		}
		total++
	}
	if corrupt != nil {
		return page, total, corrupt
	}
	return page, total, nil
}

// SaveReview caches a computed review of archived game id (opaque bytes,
// as the caller encodes it) for as long as the archive is kept. It fails
// with ErrNotFound when the game is not archived (or its archive expired).
func (s *Store) SaveReview(ctx context.Context, id GameID, data []byte) error {
	ch, suf, err := id.split()
	if err != nil {
		return err
	}
	n, err := reviewSaveScript.Run(ctx, s.rdb, []string{s.keys.archive(ch, suf), s.keys.review(ch, suf)}, data).Int()
	if err != nil {
		return fmt.Errorf("persistence: save review of game %s: %w", id, err)
	}
	if n == 0 {
		return fmt.Errorf("%w: archived game %s", ErrNotFound, id)
	}
	return nil
}

// Review returns the cached review of game id. It fails with ErrNotFound
// when there is none (never saved, or expired with the archive).
func (s *Store) Review(ctx context.Context, id GameID) ([]byte, error) {
	ch, suf, err := id.split()
	if err != nil {
		return nil, err
	}
	b, err := s.rdb.Get(ctx, s.keys.review(ch, suf)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("%w: review of game %s", ErrNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("persistence: load review of game %s: %w", id, err)
	}
	return b, nil
}
