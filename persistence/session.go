package persistence

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/game/wide"
)

// GameID names a game session. It is "<channel>.<suffix>": the Discord
// channel that shows the board, then a random suffix from crypto/rand. The
// channel part is the game's hash tag (see keys.go), so the ID alone says
// where the game lives. It fits in a Discord custom ID.
type GameID string

// Channel returns the channel part of the ID.
func (id GameID) Channel() string {
	ch, _, _ := strings.Cut(string(id), ".")
	return ch
}

// split returns the channel and the suffix, or ErrNotFound for an ID that
// cannot name a game (so a forged custom ID reads as "no such game").
func (id GameID) split() (channel, suffix string, err error) {
	ch, suf, ok := strings.Cut(string(id), ".")
	if !ok || checkGameChannel(ch) != nil || suf == "" || strings.ContainsAny(suf, "{}.:") || len(suf) > 32 {
		return "", "", fmt.Errorf("%w: game %q: not a game ID", ErrNotFound, string(id))
	}
	return ch, suf, nil
}

// checkGameChannel accepts a channel ID that can serve as a hash tag.
func checkGameChannel(ch string) error {
	if ch == "" || len(ch) > 64 || strings.ContainsAny(ch, "{}.: ") {
		return fmt.Errorf("%w: channel %q: a channel ID is 1 to 64 characters without braces, dots, colons or spaces", ErrInvalid, ch)
	}
	return nil
}

// NewGameID returns a new random game ID in channel, for a game created
// later with it (CreateGame).
func NewGameID(channel string) (GameID, error) {
	if err := checkGameChannel(channel); err != nil {
		return "", err
	}
	suf, err := newGameSuffix()
	if err != nil {
		return "", err
	}
	return GameID(channel + "." + suf), nil
}

// newGameSuffix returns a random, unguessable game-ID suffix.
func newGameSuffix() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("persistence: game id: %w", err)
	}
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:])), nil
}

// Status is where a game is in its life.
type Status uint8

// The statuses. Open and Active games are live: their players count
// against the one-game-per-channel rule and they can expire.
const (
	// StatusOpen is a challenge waiting to be accepted.
	StatusOpen Status = iota + 1
	// StatusActive is a game being played.
	StatusActive
	// StatusFinished is a decided game: won, drawn, resigned, lost on time
	// or ended by a moderator. It is kept for Options.FinishedTTL.
	StatusFinished
	// StatusExpired is a challenge nobody accepted in time or a game
	// abandoned for Options.IdleTTL. It is kept for Options.FinishedTTL.
	StatusExpired
)

// String returns "open", "active", "finished" or "expired".
func (s Status) String() string {
	switch s {
	case StatusOpen:
		return "open"
	case StatusActive:
		return "active"
	case StatusFinished:
		return "finished"
	case StatusExpired:
		return "expired"
	}
	return "status(" + strconv.Itoa(int(s)) + ")"
}

// Live reports whether the game is an open challenge or being played.
func (s Status) Live() bool { return s == StatusOpen || s == StatusActive }

// Ending says how a game ended.
type Ending uint8

// The ways a game ends.
const (
	// NotEnded: the game has not ended.
	NotEnded Ending = iota
	// ByWin: a player completed a winning line.
	ByWin
	// ByDraw: the board filled without a win.
	ByDraw
	// ByResign: a player resigned.
	ByResign
	// ByTimeout: the player to move ran out of time.
	ByTimeout
	// ByModerator: a moderator ended the game.
	ByModerator
	// ByDecline: the challenge was declined or withdrawn.
	ByDecline
	// ByExpiry: the challenge or the game expired unattended.
	ByExpiry
)

// String returns a short lower-case name ("win", "timeout", ...).
func (e Ending) String() string {
	switch e {
	case NotEnded:
		return "none"
	case ByWin:
		return "win"
	case ByDraw:
		return "draw"
	case ByResign:
		return "resign"
	case ByTimeout:
		return "timeout"
	case ByModerator:
		return "moderator"
	case ByDecline:
		return "declined"
	case ByExpiry:
		return "expired"
	}
	return "end(" + strconv.Itoa(int(e)) + ")"
}

// AI is an AI player's level and options, as the ai package reads them.
type AI struct {
	// Level is the registry name ("random", "easy", "minimax", ...).
	Level string
	// Seed makes the player's random choices reproducible.
	Seed uint64
	// Depth limits minimax search in plies; 0 means no limit.
	Depth int
	// Iterations caps MCTS iterations per move; 0 means the default.
	Iterations int
	// Budget is the thinking time per move; 0 means the default.
	Budget time.Duration
	// Exploration is the UCT constant; 0 means the default.
	Exploration float64
}

// Seat is who plays one side: a Discord user or an AI. The zero Seat is an
// empty seat, which an open challenge to anyone has until it is accepted.
type Seat struct {
	// User is the Discord user ID of a human player.
	User string
	// AI is set (Level non-empty) for an AI player.
	AI AI
}

// IsAI reports whether an AI plays this seat.
func (s Seat) IsAI() bool { return s.AI.Level != "" }

// Empty reports whether nobody holds the seat yet.
func (s Seat) Empty() bool { return s.User == "" && s.AI.Level == "" }

// Session is everything needed to render and continue one game. It is a
// value the Store loads and returns; changing it changes nothing in Redis
// (use the Store's methods, which compare-and-set on Version).
type Session struct {
	// ID names the game; it is assigned by CreateGame.
	ID GameID
	// Rules is the rules notation, as game.ParseRules reads it ("3x3k3").
	Rules string
	// Players are the seats: Players[0] plays X (moves first), Players[1] O.
	Players [2]Seat
	// Challenger is the side of the player who issued an open challenge
	// (game.X or game.O), or game.Empty when the game did not start as one.
	Challenger game.Mark
	// Start is an optional starting position in position notation (an AI
	// game from a position, an X-O-X opening); empty means the empty board.
	Start string
	// Moves are the cells played from Start, in order, on the boards game
	// plays (up to 8x8).
	Moves []game.Cell
	// WideMoves are the cells played on a wide board (rules past game's,
	// see Board), in order from the empty board; Moves is empty then.
	WideMoves []wide.Cell
	// Guild is the Discord guild (server) ID; empty in direct messages.
	Guild string
	// Message is the Discord message that shows the board.
	Message string
	// Created and Updated are the times of creation and the last change.
	Created, Updated time.Time
	// Status is where the game is in its life.
	Status Status
	// Result is the outcome once the game is over (game.Ongoing before).
	Result game.Result
	// End says how the game ended (NotEnded while it is live).
	End Ending
	// TurnTime is the time each player has per move; 0 means no clock.
	TurnTime time.Duration
	// GameTime is the longest the game may last from its creation; past
	// it, the game ends without a result (ByExpiry). 0 means no limit.
	GameTime time.Duration
	// Expiry is how long the game waits as an open challenge; 0 means the
	// Store's ChallengeTTL. It is capped at the Store's IdleTTL.
	Expiry time.Duration
	// Assisted says, per side ([0] X, [1] O), whether its player took a
	// hint during the game (see Store.MarkAssisted): their moves are not
	// all their own, so the history shows it and the corpus keeps those
	// moves out of the human-move training.
	Assisted [2]bool
	// Puzzle is the daily-puzzle key ("2026-11-24") of a puzzle attempt,
	// empty for a normal game.
	Puzzle string
	// Tournament is the ID of the tournament the game is a pairing of,
	// empty for a game outside any.
	Tournament string
	// Swap opens the game with swap1 (gomoku's tournament opening; wide
	// boards only): X's player places the first three stones, X, O and X;
	// then O's player chooses a side (Store.ChooseSide), and the game goes
	// on with O to move. SwapChosen is set once the side is chosen.
	Swap, SwapChosen bool
	// Unrated keeps a game between people out of the ratings whatever
	// the server's setting (a game of an unrated tournament).
	Unrated bool
	// Deadline is when the sweeper acts on the game: an open challenge
	// expires, the player to move in a game with a clock loses on time, a
	// game without one is abandoned (Options.IdleTTL after its last move).
	// Zero once the game is over.
	Deadline time.Time
	// Version increases by one with every change; moves compare-and-set it.
	Version int64
}

// GameEnd is when the game's whole time (GameTime) runs out; the zero
// time when it has none.
func (s *Session) GameEnd() time.Time {
	if s.GameTime <= 0 {
		return time.Time{}
	}
	return s.Created.Add(s.GameTime)
}

// Channel returns the Discord channel that shows the board.
func (s *Session) Channel() string { return s.ID.Channel() }

// Position replays the moves from the start position and returns the
// board now. A session the Store returned always replays (loading checks
// it, and a record that does not is ErrCorrupt); for one built or changed
// by hand, bad rules, start or moves fail with ErrInvalid. A game on a
// wide board (see Board) has no game.Position: ErrInvalid.
func (s *Session) Position() (game.Position, error) {
	b, err := s.boardWith(game.ParseRules)
	if err == nil && b.IsWide() {
		err = fmt.Errorf("%w: game %s is on a %s board, past game's 8x8", ErrInvalid, s.ID, s.Rules)
	}
	return b.Small(), err
}

// Board replays the game on either engine (see Board), with Position's
// errors.
func (s *Session) Board() (Board, error) { return s.boardWith(game.ParseRules) }

// Ply returns the number of moves played from the start position, on
// either engine.
func (s *Session) Ply() int { return len(s.Moves) + len(s.WideMoves) }

// boardWith is Board with game's rules parsed by parse (a Store's cache).
func (s *Session) boardWith(parse func(string) (game.Rules, error)) (Board, error) {
	r, err := parse(s.Rules)
	if err != nil {
		w, werr := wide.ParseRules(s.Rules)
		if werr != nil {
			return Board{}, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		return s.wideBoard(w)
	}
	if len(s.WideMoves) > 0 {
		return Board{}, fmt.Errorf("%w: wide-board moves in a %s game", ErrInvalid, s.Rules)
	}
	p := game.NewPosition(r)
	if s.Start != "" {
		if p, err = game.ParsePosition(r, s.Start); err != nil {
			return Board{}, fmt.Errorf("%w: start position: %w", ErrInvalid, err)
		}
	}
	for i, c := range s.Moves {
		if p, err = p.Play(c); err != nil {
			return Board{}, fmt.Errorf("%w: move %d: %w", ErrInvalid, i+1, err)
		}
	}
	return Board{small: p}, nil
}

// wideBoard replays a game on a wide board: from Start (a daily puzzle's
// position) or the empty board, its moves are WideMoves.
func (s *Session) wideBoard(r wide.Rules) (Board, error) {
	if len(s.Moves) > 0 {
		return Board{}, fmt.Errorf("%w: small-board moves in a %s game", ErrInvalid, s.Rules)
	}
	p := wide.NewPosition(r)
	if s.Start != "" {
		var err error
		if p, err = wide.ParsePosition(r, s.Start); err != nil {
			return Board{}, fmt.Errorf("%w: start position: %w", ErrInvalid, err)
		}
	}
	for i, c := range s.WideMoves {
		var err error
		if p, err = p.Play(c); err != nil {
			return Board{}, fmt.Errorf("%w: move %d: %w", ErrInvalid, i+1, err)
		}
	}
	return Board{wide: p, isWide: true}, nil
}

// ToMove returns the side whose player is to act (see Acting), from the
// replayed position.
func (s *Session) ToMove() (game.Mark, error) {
	p, err := s.Board()
	if err != nil {
		return game.Empty, err
	}
	return s.Acting(p), nil
}

// Acting returns the side whose player is to act on b, the session's
// board: the side to move, except in a swap opening, where X's player
// places the first three stones and O's player then chooses a side.
func (s *Session) Acting(b Board) game.Mark {
	switch {
	case !s.Swap || s.SwapChosen || b.Ply() > 3:
		return b.ToMove()
	case b.Ply() < 3:
		return game.X
	}
	return game.O
}

// SwapPending reports whether the swap opening's three stones are placed
// and O's player is to choose a side.
func (s *Session) SwapPending(b Board) bool { return s.Swap && !s.SwapChosen && b.Ply() == 3 }

// Seat returns the seat of side m (game.X or game.O).
func (s *Session) Seat(m game.Mark) Seat {
	switch m {
	case game.X:
		return s.Players[0]
	case game.O:
		return s.Players[1]
	}
	return Seat{}
}

// Duel reports whether two AIs play s.
func (s *Session) Duel() bool { return s.Seat(game.X).IsAI() && s.Seat(game.O).IsAI() }

// SideOf returns the side user plays, or game.Empty if none.
func (s *Session) SideOf(user string) game.Mark {
	switch {
	case user == "":
		return game.Empty
	case s.Players[0].User == user:
		return game.X
	case s.Players[1].User == user:
		return game.O
	}
	return game.Empty
}

// humans returns the distinct human user IDs seated.
func (s *Session) humans() []string {
	var out []string
	for _, p := range s.Players {
		if p.User != "" && (len(out) == 0 || out[0] != p.User) {
			out = append(out, p.User)
		}
	}
	return out
}

// clone returns a deep copy.
func (s *Session) clone() *Session {
	c := *s
	c.Moves = append([]game.Cell(nil), s.Moves...)
	c.WideMoves = append([]wide.Cell(nil), s.WideMoves...)
	return &c
}

// sessionRecord is the stored form of a session's data, JSON with short names to
// keep a 3x3 game well under 1 KB of Redis memory. The version and status
// are stored beside it as their own hash fields (the move script reads
// them); the channel is in the key.
type sessionRecord struct {
	Rules      string         `json:"r"`
	Players    [2]sessionSeat `json:"p"`
	Challenger uint8          `json:"ch,omitempty"`
	Start      string         `json:"st,omitempty"`
	Moves      []int          `json:"m,omitempty"`
	Guild      string         `json:"g,omitempty"`
	Message    string         `json:"mg,omitempty"`
	Created    int64          `json:"c"`
	Updated    int64          `json:"u"`
	Result     uint8          `json:"res,omitempty"`
	End        uint8          `json:"e,omitempty"`
	TurnTime   int64          `json:"tt,omitempty"` // milliseconds
	GameTime   int64          `json:"gt,omitempty"` // milliseconds
	Expiry     int64          `json:"ce,omitempty"` // milliseconds
	Deadline   int64          `json:"dl,omitempty"` // Unix milliseconds
	Assisted   uint8          `json:"as,omitempty"` // bit 0 X, bit 1 O
	Puzzle     string         `json:"pz,omitempty"`
	Tournament string         `json:"tn,omitempty"`
	Unrated    bool           `json:"ur,omitempty"`
	Swap       bool           `json:"sw,omitempty"`
	SwapChosen bool           `json:"sc,omitempty"`
}

// sessionSeat is the stored form of a Seat.
type sessionSeat struct {
	User        string  `json:"u,omitempty"`
	Level       string  `json:"l,omitempty"`
	Seed        uint64  `json:"sd,omitempty"`
	Depth       int     `json:"d,omitempty"`
	Iterations  int     `json:"i,omitempty"`
	Budget      int64   `json:"b,omitempty"` // nanoseconds
	Exploration float64 `json:"x,omitempty"`
}

// encode returns the stored data of s (not its version or status).
func (s *Session) encode() ([]byte, error) {
	r := sessionRecord{
		Rules: s.Rules, Challenger: uint8(s.Challenger), Start: s.Start, Guild: s.Guild, Message: s.Message,
		Created: s.Created.UnixMilli(), Updated: s.Updated.UnixMilli(),
		Result: uint8(s.Result), End: uint8(s.End), TurnTime: s.TurnTime.Milliseconds(), GameTime: s.GameTime.Milliseconds(), Expiry: s.Expiry.Milliseconds(),
		Assisted: assistedBits(s.Assisted), Puzzle: s.Puzzle, Tournament: s.Tournament, Unrated: s.Unrated,
		Swap: s.Swap, SwapChosen: s.SwapChosen,
	}
	if !s.Deadline.IsZero() {
		r.Deadline = s.Deadline.UnixMilli()
	}
	for i, p := range s.Players {
		r.Players[i] = sessionSeat{User: p.User, Level: p.AI.Level, Seed: p.AI.Seed, Depth: p.AI.Depth,
			Iterations: p.AI.Iterations, Budget: int64(p.AI.Budget), Exploration: p.AI.Exploration}
	}
	for _, c := range s.Moves {
		r.Moves = append(r.Moves, int(c))
	}
	for _, c := range s.WideMoves { // a wide game's moves: its rules tell them apart
		r.Moves = append(r.Moves, int(c))
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("persistence: encode game %s: %w", s.ID, err)
	}
	return b, nil
}

// assistedBits packs per-side flags ([0] X, [1] O) into bits 0 and 1.
func assistedBits(a [2]bool) uint8 {
	var b uint8
	if a[0] {
		b |= 1
	}
	if a[1] {
		b |= 2
	}
	return b
}

// decodeSession rebuilds a session from its stored fields: the version,
// the status and the data. Anything that does not decode, or a game that
// does not replay, is ErrCorrupt.
func decodeSession(id GameID, version, status string, data []byte) (*Session, error) {
	s, _, err := decodeSessionBoard(id, version, status, data, game.ParseRules)
	return s, err
}

// decodeSessionBoard is decodeSession that also returns the replayed
// board, so a move does not replay the game twice; parse parses game's
// rules.
func decodeSessionBoard(id GameID, version, status string, data []byte, parse func(string) (game.Rules, error)) (*Session, Board, error) {
	corrupt := func(what string, err error) error {
		if err != nil {
			return fmt.Errorf("%w: game %s: %s: %v", ErrCorrupt, id, what, err)
		}
		return fmt.Errorf("%w: game %s: %s", ErrCorrupt, id, what)
	}
	v, err := strconv.ParseInt(version, 10, 64)
	if err != nil || v < 1 {
		return nil, Board{}, corrupt("version "+strconv.Quote(version), nil)
	}
	st, err := strconv.Atoi(status)
	if err != nil || !Status(st).Live() && Status(st) != StatusFinished && Status(st) != StatusExpired {
		return nil, Board{}, corrupt("status "+strconv.Quote(status), nil)
	}
	var r sessionRecord
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, Board{}, corrupt("data", err)
	}
	s := &Session{
		ID: id, Rules: r.Rules, Challenger: game.Mark(r.Challenger), Start: r.Start, Guild: r.Guild, Message: r.Message,
		Created: time.UnixMilli(r.Created).UTC(), Updated: time.UnixMilli(r.Updated).UTC(),
		Status: Status(st), Result: game.Result(r.Result), End: Ending(r.End),
		TurnTime: time.Duration(r.TurnTime) * time.Millisecond, GameTime: time.Duration(r.GameTime) * time.Millisecond, Expiry: time.Duration(r.Expiry) * time.Millisecond, Version: v,
		Assisted: [2]bool{r.Assisted&1 != 0, r.Assisted&2 != 0}, Puzzle: r.Puzzle, Tournament: r.Tournament, Unrated: r.Unrated,
		Swap: r.Swap, SwapChosen: r.SwapChosen,
	}
	if r.Deadline != 0 {
		s.Deadline = time.UnixMilli(r.Deadline).UTC()
	}
	for i, p := range r.Players {
		s.Players[i] = Seat{User: p.User, AI: AI{Level: p.Level, Seed: p.Seed, Depth: p.Depth,
			Iterations: p.Iterations, Budget: time.Duration(p.Budget), Exploration: p.Exploration}}
	}
	_, smallErr := parse(r.Rules)
	for _, c := range r.Moves {
		switch {
		case smallErr == nil && c >= 0 && c <= 63:
			s.Moves = append(s.Moves, game.Cell(c))
		case smallErr != nil && c >= 0 && c <= 255:
			s.WideMoves = append(s.WideMoves, wide.Cell(c))
		default:
			return nil, Board{}, corrupt("move "+strconv.Itoa(c)+" off any board", nil)
		}
	}
	if s.Challenger > game.O || s.Result > game.Draw || s.End > ByExpiry || r.Assisted > 3 {
		return nil, Board{}, corrupt("challenger, result, end or assisted sides out of range", nil)
	}
	p, err := s.boardWith(parse)
	if err != nil {
		return nil, Board{}, corrupt("replay", err)
	}
	return s, p, nil
}

// Game loads a game session. It fails with ErrNotFound if the game does not
// exist (or has expired) and ErrCorrupt if its record does not decode.
func (s *Store) Game(ctx context.Context, id GameID) (*Session, error) {
	g, _, err := s.gamePosition(ctx, id)
	return g, err
}

// gamePosition is Game that also returns the replayed position.
func (s *Store) gamePosition(ctx context.Context, id GameID) (*Session, Board, error) {
	ch, suf, err := id.split()
	if err != nil {
		return nil, Board{}, err
	}
	cmd := redis.NewSliceCmd(ctx, "hmget", s.keys.game(ch, suf), "v", "s", "d")
	if err := s.batch.do(ctx, cmd); err != nil { // cmd is not ours to read then
		return nil, Board{}, fmt.Errorf("persistence: load game %s: %w", id, err)
	}
	vals := cmd.Val()
	if len(vals) != 3 || vals[0] == nil && vals[1] == nil && vals[2] == nil {
		return nil, Board{}, fmt.Errorf("%w: game %s", ErrNotFound, id)
	}
	v, ok1 := vals[0].(string)
	st, ok2 := vals[1].(string)
	d, ok3 := vals[2].(string)
	if !ok1 || !ok2 || !ok3 {
		return nil, Board{}, fmt.Errorf("%w: game %s: missing fields", ErrCorrupt, id)
	}
	g, p, err := decodeSessionBoard(id, v, st, []byte(d), s.rules.parse)
	if err == nil {
		s.sessions.put(g)
	}
	return g, p, err
}

// position is g.Position with the Store's parsed rules.
func (s *Store) position(g *Session) (Board, error) { return g.boardWith(s.rules.parse) }

// sessionIsNil reports the client's "no such key" reply, which never leaves the
// package.
func sessionIsNil(err error) bool { return errors.Is(err, redis.Nil) }
