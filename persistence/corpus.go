package persistence

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/tttbot/ttt-bot/game"
)

// CorpusVersion is the schema version of CorpusRecord, written in its "v"
// field. Readers refuse other versions.
const CorpusVersion = 1

// corpusEnds are the values of CorpusRecord.End for a game the board did
// not decide (the names of the End values), each with whether such a game
// must have a winner.
var corpusEnds = map[string]bool{
	"resign":    true,
	"timeout":   true,
	"moderator": false,
	"expired":   false,
}

// corpusEnd returns the CorpusRecord.End value for a FinishedGame.End: ""
// when the board decided the game ("", "none", "win", "draw"), else the
// reason itself.
func corpusEnd(reason string) string {
	switch reason {
	case "none", "win", "draw":
		return ""
	}
	return reason
}

// Player is one side of a game: a human (User) or an AI level (AI); both
// empty means unknown (as in games imported from games.txt). In a
// FinishedGame, User is the Discord user ID; in a CorpusRecord it is the
// pseudonym the Store made of it (see Pseudonym).
type Player struct {
	// User identifies a human player.
	User string `json:"user,omitempty"`
	// AI names the AI level that played this side ("perfect", "mcts", ...).
	AI string `json:"ai,omitempty"`
}

// FinishedGame is a game as the bot reports it when it ends. AppendGame
// stores it in the training corpus and RecordResult counts it in the
// stats and ratings; both are idempotent by ID.
type FinishedGame struct {
	// ID identifies the game; reporting the same ID again changes nothing.
	ID string
	// Guild is the Discord guild (server) ID; "" for a game outside any
	// guild, which counts in the global stats only.
	Guild string
	// Rules are the game's rules.
	Rules game.Rules
	// Start is the starting position; the zero Position means the empty
	// board.
	Start game.Position
	// Moves are the cells played, in order, from Start.
	Moves []game.Cell
	// X and O are the two sides; User holds raw Discord user IDs, which the
	// corpus replaces by pseudonyms.
	X, O Player
	// Result is XWins, OWins or Draw.
	Result game.Result
	// End says how the game ended: "" (or "win", "draw") when the board
	// decided it, else "resign", "timeout" (the other side won),
	// "moderator" or "expired". These are the names of the session
	// Ending values, so the bot can pass Ending.String().
	End string
	// Finished is when the game ended; the zero time means now.
	Finished time.Time
	// Unrated says a game between two people changes no ratings (its
	// server turned rated games off); results are still counted.
	Unrated bool
	// Assisted says, per side ([0] X, [1] O), whether its player took a
	// hint (Session.Assisted); the corpus records it so that training does
	// not take those moves for the player's own.
	Assisted [2]bool
}

// CorpusRecord is one game of the training corpus, as stored in Redis and
// as one line of the JSON Lines export (schema version CorpusVersion):
//
//	{"v":1,"game":"g1","rules":"3x3k3","start":"X--/---/---","moves":["1 1","0 2"],
//	 "x":{"user":"<pseudonym>"},"o":{"ai":"perfect"},"result":"X wins",
//	 "time":"2026-11-21T18:00:00Z","source":"bot","assisted":["x"]}
//
// v is the schema version; game the game ID (unique per rules); rules the
// rules notation; start the starting position in position notation
// (omitted for the empty board); moves the cells as "row col", 0-based
// (cell names like "c2" are accepted on input); x and o the players (user:
// a pseudonym, never a Discord ID; ai: an AI level; both omitted: unknown);
// the side to move alternates from start, so the player of each move
// follows from x and o; result "X wins", "O wins" or "draw"; end omitted
// when the board decided the game, else "resign" or "timeout" (the other
// side won), "moderator" or "expired" (any result); time when the game
// finished (RFC 3339, UTC); source where the record came from ("bot",
// "games.txt"); assisted, optional (omitted when nobody was), the sides
// whose player took a hint during the game, "x" and/or "o": their moves
// are not all the player's own, so training must not learn them as human
// moves. Readers of version 1 that predate assisted refuse records that
// have it (unknown field); records without it read the same as before.
type CorpusRecord struct {
	// Version is the schema version, CorpusVersion.
	Version int `json:"v"`
	// Game is the game ID, the key of exactly-once appends.
	Game string `json:"game"`
	// Rules is the rules notation in canonical form ("3x3k3").
	Rules string `json:"rules"`
	// Start is the starting position; empty for the empty board.
	Start string `json:"start,omitempty"`
	// Moves are the cells played from Start, as "row col".
	Moves []string `json:"moves"`
	// X and O are the players; a user is a pseudonym.
	X Player `json:"x"`
	O Player `json:"o"`
	// Result is "X wins", "O wins" or "draw".
	Result string `json:"result"`
	// End is why an undecided board ended; empty when the board decided.
	End string `json:"end,omitempty"`
	// Time is when the game finished, in UTC.
	Time time.Time `json:"time"`
	// Source says where the record came from ("bot", "games.txt").
	Source string `json:"source,omitempty"`
	// Assisted lists the sides, "x" and "o", whose player took a hint;
	// empty when nobody did.
	Assisted []string `json:"assisted,omitempty"`
}

// corpusMaxGameID bounds the length of a game ID.
const corpusMaxGameID = 200

// Pseudonym returns the pseudonymous ID the corpus stores for a Discord
// user ID: the hex HMAC-SHA256 of the ID keyed with Options.PseudonymKey.
// Blocks, cooldowns, rate buckets and throttles name users by it too
// (abuse.go). It fails with ErrNoPseudonymKey when the key is empty.
func (s *Store) Pseudonym(user string) (string, error) {
	if len(s.opts.PseudonymKey) == 0 {
		return "", ErrNoPseudonymKey
	}
	return s.pseudo(user), nil
}

// corpusRecord turns a finished game into its corpus record, replacing
// Discord user IDs by pseudonyms, and validates it.
func (s *Store) corpusRecord(g FinishedGame) (CorpusRecord, error) {
	if !g.Rules.Valid() {
		return CorpusRecord{}, fmt.Errorf("%w: game %q has no rules", ErrInvalid, g.ID)
	}
	r := CorpusRecord{
		Version: CorpusVersion,
		Game:    g.ID,
		Rules:   g.Rules.String(),
		Moves:   make([]string, len(g.Moves)),
		Result:  g.Result.String(),
		End:     corpusEnd(g.End),
		Time:    g.Finished,
		Source:  "bot",
	}
	if g.Start.Rules().Valid() && g.Start.Ply() > 0 {
		r.Start = g.Start.String()
	}
	for i, side := range [2]string{"x", "o"} {
		if g.Assisted[i] {
			r.Assisted = append(r.Assisted, side)
		}
	}
	for i, c := range g.Moves {
		r.Moves[i] = c.RowCol()
	}
	var err error
	if r.X, err = s.corpusPlayer(g.X); err != nil {
		return CorpusRecord{}, err
	}
	if r.O, err = s.corpusPlayer(g.O); err != nil {
		return CorpusRecord{}, err
	}
	if r.Time.IsZero() {
		r.Time = s.now()
	}
	r.Time = r.Time.UTC().Truncate(time.Millisecond)
	if err := r.Validate(); err != nil {
		return CorpusRecord{}, err
	}
	return r, nil
}

// corpusPlayer replaces a player's Discord ID by its pseudonym.
func (s *Store) corpusPlayer(p Player) (Player, error) {
	if p.User == "" {
		return p, nil
	}
	u, err := s.Pseudonym(p.User)
	if err != nil {
		return Player{}, err
	}
	return Player{User: u, AI: p.AI}, nil
}

// Validate checks r by replaying it with package game: the known schema
// version, a game ID, rules in canonical notation, a reachable start
// position, legal moves, players that are a user or an AI (not both),
// assisted sides "x" or "o" without repeats, a result that matches the
// final board (or, for a game the board did not decide, a known end
// reason) and a time. Errors wrap ErrInvalid.
func (r CorpusRecord) Validate() error {
	_, err := r.replay()
	return err
}

// replay validates r and returns its final position.
func (r CorpusRecord) replay() (game.Position, error) {
	bad := func(format string, a ...any) (game.Position, error) {
		return game.Position{}, fmt.Errorf("%w: corpus game %q: %s", ErrInvalid, r.Game, fmt.Sprintf(format, a...))
	}
	if r.Version != CorpusVersion {
		return bad("schema version %d; this reader knows version %d", r.Version, CorpusVersion)
	}
	if r.Game == "" || len(r.Game) > corpusMaxGameID {
		return bad("the game ID must have 1 to %d bytes", corpusMaxGameID)
	}
	rules, err := game.ParseRules(r.Rules)
	if err != nil {
		return bad("%v", err)
	}
	if rules.String() != r.Rules {
		return bad("rules %q are not in canonical notation (%q)", r.Rules, rules.String())
	}
	pos := game.NewPosition(rules)
	if r.Start != "" {
		if pos, err = game.ParsePosition(rules, r.Start); err != nil {
			return bad("start: %v", err)
		}
		if pos.Over() {
			return bad("start position %s is already decided", r.Start)
		}
	}
	for i, m := range r.Moves {
		c, err := rules.ParseCell(m)
		if err != nil {
			return bad("move %d: %v", i+1, err)
		}
		if pos, err = pos.Play(c); err != nil {
			return bad("move %d (%s): %v", i+1, m, err)
		}
	}
	if err := r.checkSides(); err != nil {
		return bad("%s", err)
	}
	if err := r.checkResult(pos); err != nil {
		return bad("%s", err)
	}
	if r.Time.IsZero() {
		return bad("no time")
	}
	return pos, nil
}

// checkSides checks the record's players (a user or an AI level, not
// both) and Assisted (each side at most once). Its error says what is
// wrong.
func (r CorpusRecord) checkSides() error {
	for _, p := range []Player{r.X, r.O} {
		if p.User != "" && p.AI != "" {
			return errors.New("a player is a user or an AI level, not both")
		}
	}
	var seenX, seenO bool
	for _, a := range r.Assisted {
		switch {
		case a == "x" && !seenX:
			seenX = true
		case a == "o" && !seenO:
			seenO = true
		default:
			return fmt.Errorf("assisted %q: want the sides \"x\" and/or \"o\", each at most once", r.Assisted)
		}
	}
	return nil
}

// checkResult checks the record's result and end against pos, the
// position its moves reach: a board that decided the game gives the
// result and no end; otherwise the end is one of corpusEnds, with a
// winner where it needs one. Its error says what is wrong.
func (r CorpusRecord) checkResult(pos game.Position) error {
	var want game.Result
	switch r.Result {
	case game.XWins.String():
		want = game.XWins
	case game.OWins.String():
		want = game.OWins
	case game.Draw.String():
		want = game.Draw
	default:
		return fmt.Errorf("result %q; want %q, %q or %q", r.Result, game.XWins, game.OWins, game.Draw)
	}
	if pos.Over() {
		if r.End != "" {
			return fmt.Errorf("the board decided the game (%s), so end must be empty, not %q", pos.Outcome().Result, r.End)
		}
		if pos.Outcome().Result != want {
			return fmt.Errorf("result %q, but the moves give %q", r.Result, pos.Outcome().Result)
		}
		return nil
	}
	needWinner, ok := corpusEnds[r.End]
	if !ok {
		return fmt.Errorf("the moves do not finish the game, and end is %q; want resign, timeout, moderator or expired", r.End)
	}
	if needWinner && want == game.Draw {
		return fmt.Errorf("a game ended by %s has a winner", r.End)
	}
	return nil
}

// Replay validates r and returns its rules, starting position and moves as
// engine values, for the consumers that replay the corpus (training).
// Errors wrap ErrInvalid.
func (r CorpusRecord) Replay() (game.Rules, game.Position, []game.Cell, error) {
	if _, err := r.replay(); err != nil {
		return game.Rules{}, game.Position{}, nil, err
	}
	rules, _ := game.ParseRules(r.Rules) // replay checked the rules, start and moves
	start := game.NewPosition(rules)
	if r.Start != "" {
		start, _ = game.ParsePosition(rules, r.Start)
	}
	cells := make([]game.Cell, len(r.Moves))
	for i, m := range r.Moves {
		cells[i], _ = rules.ParseCell(m)
	}
	return rules, start, cells, nil
}

// DecodeCorpusRecord parses one JSON Lines record (surrounding space
// allowed) and validates it. Unknown fields are refused, so a typo does not
// pass silently. Errors wrap ErrInvalid.
func DecodeCorpusRecord(line []byte) (CorpusRecord, error) {
	var r CorpusRecord
	d := json.NewDecoder(bytes.NewReader(line))
	d.DisallowUnknownFields()
	if err := d.Decode(&r); err != nil {
		return CorpusRecord{}, fmt.Errorf("%w: corpus record: %v", ErrInvalid, err)
	}
	if rest := bytes.TrimSpace(line[d.InputOffset():]); len(rest) > 0 {
		return CorpusRecord{}, fmt.Errorf("%w: corpus record: trailing data after the record", ErrInvalid)
	}
	if err := r.Validate(); err != nil {
		return CorpusRecord{}, err
	}
	r.Time = r.Time.UTC()
	return r, nil
}

// MarshalLine returns r as one line of JSON Lines, newline included, with
// moves in the canonical "row col" form.
func (r CorpusRecord) MarshalLine() ([]byte, error) {
	if rules, err := game.ParseRules(r.Rules); err == nil {
		moves := make([]string, len(r.Moves))
		for i, m := range r.Moves {
			moves[i] = m
			if c, err := rules.ParseCell(m); err == nil {
				moves[i] = c.RowCol()
			}
		}
		r.Moves = moves
	}
	if r.Moves == nil {
		r.Moves = []string{}
	}
	r.Time = r.Time.UTC()
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("persistence: encoding corpus record %q: %w", r.Game, err)
	}
	return append(b, '\n'), nil
}
