package persistence

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/game/wide"
)

// commitAnyway is returned by a change function whose next state must be
// committed even though the call fails: the caller gets the committed
// session and err.
type commitAnyway struct{ err error }

// Error returns the wrapped error's message.
func (c commitAnyway) Error() string { return c.err.Error() }

// gameSweepGrace is how long a live game's key outlives its deadline, so the
// sweeper can still mark it expired (and the bot edit its message) before
// Redis drops it. If no sweeper runs, the key simply expires.
const gameSweepGrace = 10 * time.Minute

// gameCommitScript is the compare-and-set behind every change to a game.
//
//	KEYS[1]  the game's hash            KEYS[2]  the channel's active map
//	ARGV[1]  expected version, "0" to create (the key must not exist)
//	ARGV[2]  new status   ARGV[3] new data   ARGV[4] game TTL (ms)
//	ARGV[5]  active-map TTL (ms), "0" when Options.AllowManyGames is on
//	ARGV[6]  this game's suffix         ARGV[7] game-key prefix of the channel
//	ARGV[8]  number of players to claim, then their IDs, then those to release
//
// A player's entry in the active map that names another game is only a
// conflict if that game is still open or active: entries left behind by a
// game that expired in Redis heal themselves here. The other game's key is
// built in the script; it carries the same hash tag, so it is in this slot.
//
// Replies: {"ok", version}, {"conflict", current}, {"notfound"},
// {"exists"} or {"busy", user, suffix}.
var gameCommitScript = redis.NewScript(gameCommitLua)

// gameCommitLua is the source of gameCommitScript.
const gameCommitLua = `
local cur = redis.call('HGET', KEYS[1], 'v')
if ARGV[1] == '0' then
  if cur then return {'exists'} end
elseif not cur then
  return {'notfound'}
elseif cur ~= ARGV[1] then
  return {'conflict', cur}
end
local n = tonumber(ARGV[8])
local useMap = ARGV[5] ~= '0'
if useMap then
  for i = 9, 8 + n do
    local other = redis.call('HGET', KEYS[2], ARGV[i])
    if other and other ~= ARGV[6] then
      local st = redis.call('HGET', ARGV[7] .. other, 's')
      if st == '1' or st == '2' then return {'busy', ARGV[i], other} end
    end
  end
end
local nv = tostring((tonumber(cur) or 0) + 1)
redis.call('HSET', KEYS[1], 'v', nv, 's', ARGV[2], 'd', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
if useMap then
  for i = 9, 8 + n do redis.call('HSET', KEYS[2], ARGV[i], ARGV[6]) end
  for i = 9 + n, #ARGV do
    if redis.call('HGET', KEYS[2], ARGV[i]) == ARGV[6] then redis.call('HDEL', KEYS[2], ARGV[i]) end
  end
  redis.call('PEXPIRE', KEYS[2], ARGV[5])
end
return {'ok', nv}
`

// sessionLiveHumans returns the players whose place in the channel s holds: the
// challenger of an open challenge, every human in an active game, and
// nobody once the game is over.
func sessionLiveHumans(s *Session) []string {
	switch {
	case s == nil:
		return nil
	case s.Status == StatusOpen:
		if u := s.Seat(s.Challenger).User; u != "" {
			return []string{u}
		}
		return nil
	case s.Status == StatusActive:
		return s.humans()
	}
	return nil
}

// sessionMinus returns the elements of a not in b.
func sessionMinus(a, b []string) []string {
	var out []string
	for _, x := range a {
		found := false
		for _, y := range b {
			found = found || x == y
		}
		if !found {
			out = append(out, x)
		}
	}
	return out
}

// schedule sets the deadline the sweeper acts on: an open challenge
// expires its Expiry (else ChallengeTTL) after creation; an active game
// where the computer is to reply to a person is handed to a sweeper
// AIGrace after the last move (see aiReplying); another active game with
// a clock times out TurnTime after the last move, one without is
// abandoned IdleTTL after it; a game that is over has none.
func (s *Store) schedule(ss *Session, now time.Time) {
	if aiReplying(ss) {
		ss.Deadline = now.Add(s.opts.AIGrace)
		return
	}
	switch ss.Status {
	case StatusOpen:
		ttl := s.opts.ChallengeTTL
		if ss.Expiry > 0 {
			ttl = min(ss.Expiry, s.opts.IdleTTL)
		}
		ss.Deadline = ss.Created.Add(ttl)
	case StatusActive:
		if ss.TurnTime > 0 {
			ss.Deadline = now.Add(ss.TurnTime)
		} else {
			ss.Deadline = now.Add(s.opts.IdleTTL)
		}
		if end := ss.GameEnd(); !end.IsZero() && end.Before(ss.Deadline) {
			ss.Deadline = end // the game's whole time runs out first
		}
	default:
		ss.Deadline = time.Time{}
	}
}

// aiReplying reports whether ss is an active game in which the computer
// is to reply to a person (not an AI duel: the duel's own loop plays it).
func aiReplying(ss *Session) bool {
	if ss.Status != StatusActive || !(ss.Players[0].IsAI() != ss.Players[1].IsAI()) {
		return false
	}
	m, err := ss.ToMove()
	return err == nil && ss.Seat(m).IsAI()
}

// keyTTL is how long the game's key lives after this change.
func (s *Store) keyTTL(ss *Session, now time.Time) time.Duration {
	if !ss.Status.Live() {
		return s.opts.FinishedTTL
	}
	ttl := s.opts.IdleTTL
	if d := ss.Deadline.Sub(now); d > ttl {
		ttl = d
	}
	return ttl + gameSweepGrace
}

// mapTTL is how long a channel's active map lives after a change.
func (s *Store) mapTTL() time.Duration {
	return max(s.opts.IdleTTL, s.opts.ChallengeTTL) + gameSweepGrace
}

// commit writes next over old (nil to create) with one compare-and-set on
// old's version, claiming and releasing places in the active map, then
// brings the deadline index up to date. It sets next.Version.
func (s *Store) commit(ctx context.Context, old, next *Session) error {
	ch, suf, err := next.ID.split()
	if err != nil {
		return err
	}
	data, err := next.encode()
	if err != nil {
		return err
	}
	expect := "0"
	if old != nil {
		expect = strconv.FormatInt(old.Version, 10)
	}
	args := s.commitArgs(old, next, expect, data, ch, suf)
	if err := s.indexDeadline(ctx, old, next); err != nil {
		return err
	}
	res, err := s.runCommit(ctx, []string{s.keys.game(ch, suf), s.keys.active(ch)}, args)
	if err != nil {
		return fmt.Errorf("persistence: save game %s: %w", next.ID, err)
	}
	if err := s.committed(next, ch, expect, res); err != nil {
		return err
	}

	// A game that is over leaves the index. The change is committed
	// whatever happens here: if this fails, the entry names a game that is
	// over and the sweeper drops it when it comes due, so the error is not
	// the caller's.
	if old != nil && old.Status.Live() && !next.Status.Live() {
		_ = s.batch.do(ctx, redis.NewIntCmd(ctx, "zrem", s.keys.due(), string(next.ID)))
	}
	return nil
}

// commitArgs returns the arguments of the commit script that writes next,
// encoded as data, over old (the version expect, "0" to create) in
// channel ch under the suffix suf: the version, status, data and TTLs,
// then the humans whose places in the active map it claims and those it
// releases.
func (s *Store) commitArgs(old, next *Session, expect string, data []byte, ch, suf string) []any {
	mapTTL := "0"
	if !s.opts.AllowManyGames {
		mapTTL = strconv.FormatInt(s.mapTTL().Milliseconds(), 10)
	}
	claim := sessionMinus(sessionLiveHumans(next), sessionLiveHumans(old))
	release := sessionMinus(sessionLiveHumans(old), sessionLiveHumans(next))
	args := make([]any, 0, 8+len(claim)+len(release))
	args = append(args, expect, strconv.Itoa(int(next.Status)), data,
		strconv.FormatInt(max(s.keyTTL(next, next.Updated).Milliseconds(), 1), 10), mapTTL,
		suf, s.keys.gamePrefix(ch), strconv.Itoa(len(claim)))
	for _, u := range claim {
		args = append(args, u)
	}
	for _, u := range release {
		args = append(args, u)
	}
	return args
}

// indexDeadline writes next's deadline to the deadline index before the
// commit, when that is needed.
//
// The deadline index must never be later than a live game's deadline
// (see deadline.go). When this change creates a deadline or brings it
// forward, or the old deadline has passed (its entry may have been
// re-indexed later: a computer's overdue reply, see ApplyDue), an entry
// no later than it is written first (ZADD LT), so a crash after the
// compare-and-set cannot leave the index late. A move that only pushes
// the deadline back writes nothing here: the earlier entry stays, and
// when it comes due the sweeper re-reads the game and re-indexes it. That
// costs one claim per turn-time period, instead of an index write on
// every move.
func (s *Store) indexDeadline(ctx context.Context, old, next *Session) error {
	if next.Status.Live() && !next.Deadline.IsZero() && (old == nil || !old.Status.Live() || next.Deadline.Before(old.Deadline) ||
		!old.Deadline.After(next.Updated)) {
		zadd := redis.NewIntCmd(ctx, "zadd", s.keys.due(), "lt", float64(next.Deadline.UnixMilli()), string(next.ID))
		if err := s.batch.do(ctx, zadd); err != nil {
			return fmt.Errorf("persistence: save game %s: deadline index: %w", next.ID, err)
		}
	}
	return nil
}

// committed reads res, the commit script's reply for next in channel ch
// over the version expect: on success it sets next.Version and caches
// next; otherwise it forgets the game's cached session and returns the
// error the reply means.
func (s *Store) committed(next *Session, ch, expect string, res []string) error {
	if len(res) == 0 {
		return fmt.Errorf("%w: save game %s: empty reply", ErrCorrupt, next.ID)
	}
	if res[0] != "ok" {
		s.sessions.forget(next.ID) // whatever is cached is stale or gone
	}
	switch res[0] {
	case "ok":
	case "conflict":
		return fmt.Errorf("%w: game %s is at version %s, not %s", ErrConflict, next.ID, res[1], expect)
	case "notfound":
		return fmt.Errorf("%w: game %s", ErrNotFound, next.ID)
	case "exists":
		return fmt.Errorf("%w: game %s already exists", ErrConflict, next.ID)
	case "busy":
		return &BusyError{User: res[1], Game: GameID(ch + "." + res[2])}
	default:
		return fmt.Errorf("%w: save game %s: reply %q", ErrCorrupt, next.ID, res)
	}
	var err error
	if next.Version, err = strconv.ParseInt(res[1], 10, 64); err != nil {
		return fmt.Errorf("%w: save game %s: version %q", ErrCorrupt, next.ID, res[1])
	}
	s.sessions.put(next)
	return nil
}

// runCommit runs gameCommitScript on keys and args through the batcher:
// EVALSHA, then EVAL if Redis does not have the script (after a restart,
// a failover or SCRIPT FLUSH; a NOSCRIPT reply means nothing ran).
func (s *Store) runCommit(ctx context.Context, keys []string, args []any) ([]string, error) {
	cmd := gameEvalCmd(ctx, "evalsha", gameCommitScript.Hash(), keys, args)
	err := s.batch.do(ctx, cmd)
	if err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") {
		cmd = gameEvalCmd(ctx, "eval", gameCommitLua, keys, args)
		err = s.batch.do(ctx, cmd)
	}
	if err != nil {
		return nil, err
	}
	return cmd.StringSlice()
}

// gameEvalCmd builds an EVAL or EVALSHA command (name) of script, a source
// or a hash, with its first key marked for Cluster routing.
func gameEvalCmd(ctx context.Context, name, script string, keys []string, args []any) *redis.Cmd {
	a := make([]any, 0, 3+len(keys)+len(args))
	a = append(a, name, script, len(keys))
	for _, k := range keys {
		a = append(a, k)
	}
	a = append(a, args...)
	cmd := redis.NewCmd(ctx, a...)
	cmd.SetFirstKeyPos(3)
	return cmd
}

// CreateGame stores a new game in channel and returns it with its ID,
// times, deadline and version 1. g gives the rules, the players, an
// optional start position, the guild, the message and the turn time.
//
// With g.Status StatusOpen it is a challenge from the player on side
// g.Challenger, to anyone (the other seat empty) or to the user in the
// other seat; with StatusActive (or zero) both seats must be filled and the
// game starts at once. Unless Options.AllowManyGames is on, it fails with
// ErrBusy when a human player (the challenger, for a challenge) already has
// a live game in the channel. The game is indexed for the limits on live
// games (ChannelGames, UserGames). A g.ID set by the caller (of channel,
// from NewGameID) is used as it is: a second CreateGame with it fails with
// ErrConflict, so a game reserved ahead is created once.
func (s *Store) CreateGame(ctx context.Context, channel string, g Session) (*Session, error) {
	if err := checkGameChannel(channel); err != nil {
		return nil, err
	}
	next := g.clone()
	next.Moves, next.WideMoves, next.Assisted, next.SwapChosen = nil, nil, [2]bool{}, false
	if next.Status == 0 {
		next.Status = StatusActive
	}
	if err := validateNewGame(next); err != nil {
		return nil, err
	}
	now := s.now()
	next.Created, next.Updated, next.Result, next.End = now, now, game.Ongoing, NotEnded
	s.schedule(next, now)
	if g.ID != "" {
		// A reserved ID (a tournament's pairing): created once; a second
		// call finds it taken.
		if ch, _, err := g.ID.split(); err != nil || ch != channel {
			return nil, fmt.Errorf("%w: create game: %q is not a game ID of channel %s", ErrInvalid, g.ID, channel)
		}
		next.ID = g.ID
		if err := s.commit(ctx, nil, next); err != nil {
			return nil, fmt.Errorf("persistence: create game %s: %w", g.ID, err)
		}
		s.indexLive(ctx, next)
		return next, nil
	}
	for range 3 {
		suf, err := newGameSuffix()
		if err != nil {
			return nil, err
		}
		next.ID = GameID(channel + "." + suf)
		err = s.commit(ctx, nil, next)
		if errors.Is(err, ErrConflict) {
			continue // a suffix collision: draw another
		}
		if err != nil {
			return nil, fmt.Errorf("persistence: create game: %w", err)
		}
		s.indexLive(ctx, next)
		return next, nil
	}
	return nil, fmt.Errorf("persistence: create game: no free game ID after 3 tries")
}

// validateNewGame checks a game about to be created.
func validateNewGame(g *Session) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: create game: "+format, append([]any{ErrInvalid}, a...)...)
	}
	p, err := g.Board()
	if err != nil {
		return bad("%v", err)
	}
	if p.Over() {
		return bad("the start position %q is already decided", g.Start)
	}
	if g.Swap && (!p.IsWide() || p.Ply() > 0) {
		return bad("a swap opening is for a wide board from the empty board, not %s", g.Rules)
	}
	for i, st := range g.Players {
		if st.User != "" && st.IsAI() {
			return bad("seat %d has both a user and an AI", i)
		}
	}
	if u := g.Players[0].User; u != "" && u == g.Players[1].User {
		return bad("user %s cannot play both sides", u)
	}
	switch g.Status {
	case StatusActive:
		if g.Players[0].Empty() || g.Players[1].Empty() {
			return bad("an active game needs both seats filled; create an open challenge instead")
		}
		g.Challenger = game.Empty
	case StatusOpen:
		if g.Challenger != game.X && g.Challenger != game.O || g.Seat(g.Challenger).User == "" {
			return bad("a challenge needs Challenger set to the side of a human player")
		}
		if g.Seat(g.Challenger.Other()).IsAI() {
			return bad("a challenge is to a person; start an AI game as active")
		}
	default:
		return bad("a new game is open or active, not %s", g.Status)
	}
	if g.TurnTime < 0 || g.GameTime < 0 {
		return bad("negative turn time %s or game time %s", g.TurnTime, g.GameTime)
	}
	if len(g.Puzzle) > maxPuzzleKey {
		return bad("puzzle key of %d bytes; at most %d", len(g.Puzzle), maxPuzzleKey)
	}
	return nil
}

// update loads game id, checks that it is at version (0 means whatever
// version it is at now), lets fn change a copy, and commits the copy with a
// compare-and-set, so the change applies exactly once or fails with
// ErrConflict. fn gets the loaded position too.
//
// When the Store has the game cached at version (see sessionCache), fn runs
// on that copy and the load is skipped; if fn refuses the change there, the
// game is loaded and fn runs again, so a refusal always reflects the stored
// game (a stale click gets ErrConflict, not an error about an old board).
func (s *Store) update(ctx context.Context, id GameID, version int64, fn func(cur, next *Session, p Board) error) (*Session, error) {
	if version != 0 {
		if cur, ok := s.sessions.get(id, version); ok {
			if p, err := s.position(cur); err == nil {
				next, anyway, err := s.apply(cur, p, fn)
				if err == nil {
					return s.commitNext(ctx, cur, next, anyway)
				}
			}
		}
	}
	cur, p, err := s.gamePosition(ctx, id)
	if err != nil {
		return nil, err
	}
	if version != 0 && cur.Version != version {
		return nil, fmt.Errorf("%w: game %s is at version %d, not %d", ErrConflict, id, cur.Version, version)
	}
	return s.updateFrom(ctx, cur, p, fn)
}

// updateFrom is update on a session the caller already has: the
// compare-and-set is on cur.Version, so a stale cur fails with ErrConflict.
func (s *Store) updateFrom(ctx context.Context, cur *Session, p Board, fn func(cur, next *Session, p Board) error) (*Session, error) {
	next, anyway, err := s.apply(cur, p, fn)
	if err != nil {
		return nil, err
	}
	return s.commitNext(ctx, cur, next, anyway)
}

// apply lets fn change a copy of cur and returns the copy, next, with
// anyway, the error to report after committing it (see commitAnyway), or
// err, the error that refuses the change.
func (s *Store) apply(cur *Session, p Board, fn func(cur, next *Session, p Board) error) (next *Session, anyway, err error) {
	next = cur.clone()
	next.Updated = s.now()
	var ca commitAnyway
	if err := fn(cur, next, p); err != nil && !errors.As(err, &ca) {
		return nil, nil, err
	}
	return next, ca.err, nil
}

// commitNext commits next over cur and returns it, with anyway (nil, or
// the error a change committed anyway reports).
func (s *Store) commitNext(ctx context.Context, cur, next *Session, anyway error) (*Session, error) {
	if err := s.commit(ctx, cur, next); err != nil {
		return nil, err
	}
	return next, anyway
}

// Accept accepts the open challenge id (at version, or 0 for any) for
// user, who takes the empty seat or the seat the challenge named, and
// starts the game. It fails with ErrNotYourTurn if user is the challenger
// or the challenge names someone else, ErrNotLive if it is no longer open,
// ErrBusy if user already has a live game in the channel, and ErrConflict
// if it changed since version. The game is indexed for the accepting
// player's limit on live games (UserGames).
func (s *Store) Accept(ctx context.Context, id GameID, version int64, user string) (*Session, error) {
	g, err := s.update(ctx, id, version, func(cur, next *Session, _ Board) error {
		if cur.Status != StatusOpen {
			return fmt.Errorf("%w: game %s is %s, not an open challenge", ErrNotLive, id, cur.Status)
		}
		other := cur.Challenger.Other()
		switch seat := cur.Seat(other); {
		case user == "" || cur.Seat(cur.Challenger).User == user:
			return fmt.Errorf("%w: user %q cannot accept their own challenge", ErrNotYourTurn, user)
		case seat.Empty():
			next.Players[int(other)-1] = Seat{User: user}
		case seat.User != user:
			return fmt.Errorf("%w: the challenge in game %s is for user %s", ErrNotYourTurn, id, seat.User)
		}
		next.Status = StatusActive
		s.schedule(next, next.Updated)
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.indexLive(ctx, g)
	return g, nil
}

// Play plays cell c in game id for the player by (a user ID, or "" for the
// AI seated on the side to move) and returns the game after it. The game
// must be at version: of two racing clicks made on the same board, exactly
// one is applied and the other fails with ErrConflict ("the board changed,
// look again"). A move that decides the game finishes it (StatusFinished,
// ByWin or ByDraw) and frees its players' places in the channel.
//
// It fails with ErrNotLive if the game is not active, ErrNotYourTurn if by
// is not the player to move, and ErrInvalid (wrapping the game package's
// error, such as game.ErrCellTaken) for an illegal move. A move made after
// the game's clock ran out (Session.TurnTime) is not played: a person
// loses on time, and Play returns the finished game with ErrTimedOut. The
// computer never loses on time: its move is played however late.
//
// Play loads the game and then commits the move: two round trips, or one
// when this Store last committed or loaded the game at version (see
// Options.SessionCache), which is the common case of a click on the board
// the bot just showed.
func (s *Store) Play(ctx context.Context, id GameID, version int64, by string, c game.Cell) (*Session, error) {
	return s.update(ctx, id, version, s.move(by, c.Row(), c.Col()))
}

// PlayOn is Play on a session the caller already holds (the one the
// previous call returned, say, before the AI replies), which never loads
// it: always one round trip. The compare-and-set is on
// cur.Version, so if cur is stale it fails with ErrConflict and changes
// nothing; cur itself is not modified.
func (s *Store) PlayOn(ctx context.Context, cur *Session, by string, c game.Cell) (*Session, error) {
	p, err := s.position(cur)
	if err != nil {
		return nil, err
	}
	return s.updateFrom(ctx, cur, p, s.move(by, c.Row(), c.Col()))
}

// PlayAt is PlayOn for a cell given by its 0-based row and column, on
// either engine's board (see Board): the way to move on a wide board.
func (s *Store) PlayAt(ctx context.Context, cur *Session, by string, row, col int) (*Session, error) {
	p, err := s.position(cur)
	if err != nil {
		return nil, err
	}
	return s.updateFrom(ctx, cur, p, s.move(by, row, col))
}

// move is the change Play makes.
func (s *Store) move(by string, row, col int) func(cur, next *Session, p Board) error {
	return func(cur, next *Session, p Board) error {
		if cur.Status != StatusActive {
			return fmt.Errorf("%w: game %s is %s", ErrNotLive, cur.ID, cur.Status)
		}
		side := cur.Acting(p)
		seat := cur.Seat(side)
		if by == "" && !seat.IsAI() || by != "" && seat.User != by {
			return fmt.Errorf("%w: game %s: %s is to move", ErrNotYourTurn, cur.ID, side)
		}
		if cur.SwapPending(p) {
			return fmt.Errorf("%w: game %s: %s is to choose a side first", ErrNotYourTurn, cur.ID, side)
		}
		if end := cur.GameEnd(); !end.IsZero() && !next.Updated.Before(end) {
			// The game's whole time ran out: it ends without a result.
			finishSession(next, game.Ongoing, ByExpiry)
			next.Status = StatusExpired
			return commitAnyway{fmt.Errorf("%w: game %s: its whole time ran out at %s", ErrTimedOut, cur.ID, end.Format(time.RFC3339))}
		}
		// The computer never loses on time: its deadline only hands its
		// move to a sweeper (see aiReplying).
		if !seat.IsAI() && cur.TurnTime > 0 && !cur.Deadline.IsZero() && !next.Updated.Before(cur.Deadline) {
			finishSession(next, sessionWinFor(side.Other()), ByTimeout)
			return commitAnyway{fmt.Errorf("%w: game %s: %s's time ran out at %s", ErrTimedOut, cur.ID, side, cur.Deadline.Format(time.RFC3339))}
		}
		after, c, err := p.play(row, col)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		if after.IsWide() {
			next.WideMoves = append(next.WideMoves, wide.Cell(c))
		} else {
			next.Moves = append(next.Moves, game.Cell(c))
		}
		if after.Over() {
			next.Status, next.Result = StatusFinished, after.Result()
			next.End = ByWin
			if after.Result() == game.Draw {
				next.End = ByDraw
			}
		}
		s.schedule(next, next.Updated)
		return nil
	}
}

// ChooseSide ends the swap opening of game id (at version, or 0 for any):
// user, O's player (or the computer, user ""), takes side, game.X (the
// three stones' side: the seats change hands) or game.O (to move now).
// It fails with ErrNotYourTurn when no side is to be chosen or user is
// not the one to choose.
func (s *Store) ChooseSide(ctx context.Context, id GameID, version int64, user string, side game.Mark) (*Session, error) {
	return s.update(ctx, id, version, func(cur, next *Session, p Board) error {
		if cur.Status != StatusActive {
			return fmt.Errorf("%w: game %s is %s", ErrNotLive, id, cur.Status)
		}
		chooser := cur.Seat(game.O)
		switch {
		case !cur.SwapPending(p):
			return fmt.Errorf("%w: game %s has no side to choose", ErrNotYourTurn, id)
		case user == "" && !chooser.IsAI() || user != "" && chooser.User != user:
			return fmt.Errorf("%w: game %s: O's player chooses the side", ErrNotYourTurn, id)
		case side != game.X && side != game.O:
			return fmt.Errorf("%w: side %s", ErrInvalid, side)
		}
		if side == game.X {
			next.Players[0], next.Players[1] = cur.Players[1], cur.Players[0]
		}
		next.SwapChosen = true
		s.schedule(next, next.Updated)
		return nil
	})
}

// Resign ends active game id with a loss for user, who must be seated.
func (s *Store) Resign(ctx context.Context, id GameID, version int64, user string) (*Session, error) {
	return s.update(ctx, id, version, func(cur, next *Session, _ Board) error {
		if cur.Status != StatusActive {
			return fmt.Errorf("%w: game %s is %s", ErrNotLive, id, cur.Status)
		}
		side := cur.SideOf(user)
		if side == game.Empty {
			return fmt.Errorf("%w: user %q does not play in game %s", ErrNotYourTurn, user, id)
		}
		finishSession(next, sessionWinFor(side.Other()), ByResign)
		return nil
	})
}

// Decline ends open challenge id unaccepted: withdrawn by the challenger
// or declined by the user it names. Either may call it.
func (s *Store) Decline(ctx context.Context, id GameID, version int64, user string) (*Session, error) {
	return s.update(ctx, id, version, func(cur, next *Session, _ Board) error {
		if cur.Status != StatusOpen {
			return fmt.Errorf("%w: game %s is %s, not an open challenge", ErrNotLive, id, cur.Status)
		}
		if cur.SideOf(user) == game.Empty {
			return fmt.Errorf("%w: user %q is not part of the challenge in game %s", ErrNotYourTurn, user, id)
		}
		finishSession(next, game.Ongoing, ByDecline)
		return nil
	})
}

// EndByModerator ends live game id without a result (ByModerator); the
// caller checks the moderator's permission.
func (s *Store) EndByModerator(ctx context.Context, id GameID, version int64) (*Session, error) {
	return s.update(ctx, id, version, func(cur, next *Session, _ Board) error {
		if !cur.Status.Live() {
			return fmt.Errorf("%w: game %s is %s", ErrNotLive, id, cur.Status)
		}
		finishSession(next, game.Ongoing, ByModerator)
		return nil
	})
}

// markAssistedTries bounds MarkAssisted's reloads after losing a
// compare-and-set to a concurrent change (a move, the sweeper).
const markAssistedTries = 8

// MarkAssisted records that the player of side (game.X or game.O) in
// active game id took a hint, and returns the game after it. It works at
// any version: it loads the game and compare-and-sets, reloading and trying
// again if another change got in between, so a concurrent move never makes
// it fail. It is idempotent: a side already marked is returned as it is,
// unchanged (same version), so a retry is safe. Marking changes the
// version like any change; use the returned session's Version for the next
// change. It fails with ErrNotLive if the game is not active (over, or a
// challenge not yet accepted), ErrInvalid for a side that is neither X nor
// O, and ErrNotFound for an unknown game.
func (s *Store) MarkAssisted(ctx context.Context, id GameID, side game.Mark) (*Session, error) {
	if side != game.X && side != game.O {
		return nil, fmt.Errorf("%w: mark assisted in game %s: side %s; want X or O", ErrInvalid, id, side)
	}
	var err error
	for range markAssistedTries {
		var cur *Session
		var p Board
		if cur, p, err = s.gamePosition(ctx, id); err != nil {
			return nil, err
		}
		if cur.Status != StatusActive {
			return nil, fmt.Errorf("%w: game %s is %s", ErrNotLive, id, cur.Status)
		}
		if cur.Assisted[side-1] {
			return cur, nil
		}
		var next *Session
		next, err = s.updateFrom(ctx, cur, p, func(_, next *Session, _ Board) error {
			next.Assisted[side-1] = true
			return nil
		})
		if !errors.Is(err, ErrConflict) {
			return next, err
		}
	}
	return nil, err
}

// SetMessage records the Discord message that shows game id's board. It
// changes the version like any change; it does not reset the clock.
func (s *Store) SetMessage(ctx context.Context, id GameID, version int64, message string) (*Session, error) {
	return s.update(ctx, id, version, func(_, next *Session, _ Board) error {
		next.Message = message
		return nil
	})
}

// finishSession marks next finished with result r, ended by how.
func finishSession(next *Session, r game.Result, how Ending) {
	next.Status, next.Result, next.End, next.Deadline = StatusFinished, r, how, time.Time{}
}

// sessionWinFor is the result of a win for side m.
func sessionWinFor(m game.Mark) game.Result {
	if m == game.O {
		return game.OWins
	}
	return game.XWins
}
