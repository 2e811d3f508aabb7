// Package tournament is the pairing and standings engine of server
// tournaments: Swiss pairings round by round, round-robin schedules,
// single-elimination brackets, and the standings of each. It is pure: no
// Discord, no storage, no clock and no randomness of its own. The bot
// keeps the record (the players and every game so far) and asks this
// package what comes next; the same record always gives the same answer.
//
// # Record
//
// A Player is an entrant: a Discord user ID or an AI such as "ai:perfect",
// with a rating used for seeding. A Game is one line of the record: a
// round, the player with X (who moves first), the player with O, and a
// Result. A bye is a Game with Result Bye, the player in X and no O. A
// forfeit is recorded as a loss for the absent player; this package does
// not tell forfeits from games played. A game whose Result is still
// Pending counts for nothing: Standings and Bracket.Play skip it, and
// PairSwiss refuses to pair the next round until it is finished.
//
// # Scoring
//
// A win scores 1, a draw 1/2, a loss 0 and a bye 1. Points are kept as
// whole half-points internally, so no sum is ever rounded.
//
// # Formats
//
// PairSwiss pairs the next Swiss round from the record; Schedule lays out
// a whole round robin at once; a Bracket plays out a single elimination.
// Format.Rounds gives the number of rounds each needs by default.
//
// # Swiss rules, as this package reads them
//
//   - Players are ranked by points, then rating (highest first), then ID.
//     Pairing starts from the top: each score group is split in halves
//     and the top half meets the bottom half in order (1 v 5, 2 v 6, ...
//     in a group of 8), the lowest-ranked player of an odd group floating
//     down to the next. When two players would both want the same colour,
//     the next opponent in that order is tried first.
//   - The colour rule is hard: no player's count of X games minus count
//     of O games may leave the range -2..+2. Pairs that could not be
//     given colours within it are never made.
//   - No two players meet twice while a pairing without a repeat exists
//     (under the colour rule). When none does, the pairing with the
//     fewest repeats is taken. The search backtracks over every pairing,
//     so this is exact, not a heuristic.
//   - With an odd number of players, the bye goes to the lowest-ranked
//     player who has not had one (that is, the lowest-ranked of the
//     lowest score group that has such a player). A second bye for the
//     same player is treated like a repeat pairing, but ranks below it:
//     the engine first minimises repeated pairings, then second byes.
//   - Colours: a player who must (difference ±2) gets the colour that
//     brings them back; otherwise each player's preference (X after more
//     O games, O after more X games, else the colour they did not have
//     last) is granted; when both want the same colour, the stronger
//     preference wins, then the colours they last had differently are
//     swapped, then the higher-ranked player is granted. Players with no
//     games yet take X on the first, third, ... board when higher-ranked
//     and O on the others.
//   - A withdrawn player (Player.Withdrawn) is left out of every pairing
//     from then on; their games still count for everyone's standings.
//
// # Round robin
//
// Schedule uses the circle method (Berger tables): one player keeps a seat
// and the others rotate. With an odd number of players the kept seat is the
// bye, so each player's colours alternate strictly; with an even number
// each player has a single break (the same colour twice running), so the
// colour difference stays within -2..+2 throughout and ends at ±1. A
// double round robin plays the same schedule again with colours swapped.
//
// # Single elimination
//
// Players are seeded by rating (highest first, ties by ID) into a bracket
// whose size is the next power of two. The usual seeding order applies
// (1 v 16, 8 v 9, 4 v 13, ... so seeds 1 and 2 can meet only in the final),
// which gives the byes to the top seeds. A drawn game is replayed at once
// in the same round with colours swapped; if the rematch is drawn too, a
// coin flip from the *rand.Rand passed to Bracket.Play decides, and is
// returned as a Game with Coin set so that the caller records it and
// every later call sees the same winner. In the first game of a match X
// goes to the player with the lower colour difference, then to the one who
// had O last, then to the higher seed on the first, third, ... match of
// the round and to the lower seed on the others. A knockout has no choice
// of opponents, so unlike a Swiss it cannot promise the ±2 colour limit.
//
// # Standings and tie-breaks
//
// Standings orders players by points, then Buchholz (the sum of the
// points of every opponent met), then Sonneborn-Berger (the points of each
// opponent beaten plus half the points of each opponent drawn), then
// rating (highest first), then ID. A bye scores its point but, having no
// opponent, adds nothing to the Buchholz or Sonneborn-Berger of the player
// who had it; the point does count in the Buchholz of that player's
// opponents. A forfeit counts like a game played. Withdrawn players stay in
// the standings with the points they have. For an elimination, Progress
// gives the placings instead: champion, runner-up, both semi-final losers
// shared third, the quarter-final losers shared fifth, and so on.
package tournament

import (
	"cmp"
	"errors"
	"fmt"
	"math/bits"
	"slices"
)

// Errors returned by this package, wrapped with details by %w.
var (
	// ErrTooFewPlayers is returned when fewer than two players could play.
	ErrTooFewPlayers = errors.New("tournament: fewer than 2 players")
	// ErrDuplicatePlayer is returned when two players share an ID, or an
	// ID is empty.
	ErrDuplicatePlayer = errors.New("tournament: duplicate or empty player ID")
	// ErrBadGame is returned when a game of the record does not fit: an
	// unknown player, a player against themselves, a bad round or result,
	// or a game the bracket did not call for.
	ErrBadGame = errors.New("tournament: game does not fit the record")
	// ErrRoundUnfinished is returned by PairSwiss while a game of the
	// record has no result yet.
	ErrRoundUnfinished = errors.New("tournament: round not finished")
	// ErrNoPairing is returned by PairSwiss when no pairing at all keeps
	// every colour difference within -2..+2 (possible only after
	// withdrawals).
	ErrNoPairing = errors.New("tournament: no pairing satisfies the colour rule")
	// ErrNoRand is returned by Bracket.Play when a coin flip is due and no
	// random source was given.
	ErrNoRand = errors.New("tournament: coin flip needs a random source")
)

// Format is the kind of tournament.
type Format int

// The formats. The zero Format is none of them.
const (
	// Swiss pairs players of equal score each round, for a few rounds.
	Swiss Format = iota + 1
	// SingleElimination is a knockout bracket: the loser of each match is
	// out.
	SingleElimination
	// RoundRobin has every player meet every other player.
	RoundRobin
)

// String names the format, as commands and logs spell it.
func (f Format) String() string {
	switch f {
	case Swiss:
		return "swiss"
	case SingleElimination:
		return "single-elimination"
	case RoundRobin:
		return "round-robin"
	}
	return fmt.Sprintf("format(%d)", int(f))
}

// Rounds is the default number of rounds of the format for n players:
// ceil(log2 n) for a Swiss, n-1 for a round robin (n when n is odd, as each
// round has a bye; twice that when double), and log2 of the bracket size
// for an elimination. It is 0 for fewer than two players or an unknown
// format; double matters only for a round robin.
func (f Format) Rounds(n int, double bool) int {
	if n < 2 {
		return 0
	}
	switch f {
	case Swiss, SingleElimination:
		return bits.Len(uint(n - 1))
	case RoundRobin:
		r := n - 1
		if n%2 == 1 {
			r = n
		}
		if double {
			r *= 2
		}
		return r
	}
	return 0
}

// Player is an entrant of a tournament.
type Player struct {
	// ID is a Discord user ID, or an AI's name such as "ai:perfect".
	ID string
	// Rating seeds the player: higher ranks first among equal scores.
	Rating float64
	// Withdrawn leaves the player out of every later Swiss pairing. In a
	// round robin or an elimination, whose games are fixed in advance,
	// record their remaining games as forfeits instead.
	Withdrawn bool
}

// Result is the outcome of a Game.
type Result int

// The results. The zero Result is Pending.
const (
	// Pending is a game not played yet.
	Pending Result = iota
	// XWins is a win for the player with X (a loss or forfeit for O).
	XWins
	// OWins is a win for the player with O (a loss or forfeit for X).
	OWins
	// Draw is a drawn game.
	Draw
	// Bye marks a round without an opponent for the player in X; it
	// scores as a win.
	Bye
)

// String names the result.
func (r Result) String() string {
	switch r {
	case Pending:
		return "pending"
	case XWins:
		return "1-0"
	case OWins:
		return "0-1"
	case Draw:
		return "½-½"
	case Bye:
		return "bye"
	}
	return fmt.Sprintf("result(%d)", int(r))
}

// Game is one line of a tournament's record.
type Game struct {
	// Round is the round the game belongs to, from 1.
	Round int
	// X is the player who moves first, or the player who has a bye.
	X string
	// O is the player who moves second; empty for a bye.
	O string
	// Result is the outcome; Pending until the game is played.
	Result Result
	// Coin marks a game decided by a coin flip after a drawn rematch in
	// an elimination; it was not played and does not count as a colour.
	Coin bool
}

// String prints the game in the record's usual notation, such as
// "r2 alice-bob 1-0" or "r3 carol bye".
func (g Game) String() string {
	if g.Result == Bye {
		return fmt.Sprintf("r%d %s bye", g.Round, g.X)
	}
	s := fmt.Sprintf("r%d %s-%s %s", g.Round, g.X, g.O, g.Result)
	if g.Coin {
		s += " (coin)"
	}
	return s
}

// halfPoints is what the game scores for id, in half-points.
func (g Game) halfPoints(id string) int {
	switch {
	case g.Result == Bye:
		return 2
	case g.Result == Draw:
		return 1
	case g.Result == XWins && id == g.X, g.Result == OWins && id == g.O:
		return 2
	}
	return 0
}

// opponent is the other player of the game, or "" for a bye.
func (g Game) opponent(id string) string {
	if id == g.X {
		return g.O
	}
	return g.X
}

// seedOrder ranks players for seeding: rating, highest first, then ID.
func seedOrder(a, b Player) int {
	if c := cmp.Compare(b.Rating, a.Rating); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// seeded returns the players in seeding order, having checked their IDs.
func seeded(players []Player) ([]Player, error) {
	if _, err := indexPlayers(players); err != nil {
		return nil, err
	}
	ps := slices.Clone(players)
	slices.SortFunc(ps, seedOrder)
	return ps, nil
}

// indexPlayers maps each player's ID to its index, and checks that the IDs
// are unique and not empty.
func indexPlayers(players []Player) (map[string]int, error) {
	idx := make(map[string]int, len(players))
	for i, p := range players {
		if p.ID == "" {
			return nil, fmt.Errorf("%w: player %d has no ID", ErrDuplicatePlayer, i)
		}
		if _, dup := idx[p.ID]; dup {
			return nil, fmt.Errorf("%w: %q", ErrDuplicatePlayer, p.ID)
		}
		idx[p.ID] = i
	}
	return idx, nil
}

// checkGame reports whether g is a well-formed game between known players.
func checkGame(g Game, known map[string]int) error {
	bad := func(why string) error { return fmt.Errorf("%w: %v: %s", ErrBadGame, g, why) }
	if g.Round < 1 {
		return bad("round before 1")
	}
	if g.Result < Pending || g.Result > Bye {
		return bad("unknown result")
	}
	if _, ok := known[g.X]; !ok {
		return bad(fmt.Sprintf("unknown player %q", g.X))
	}
	if g.Result == Bye {
		if g.O != "" || g.Coin {
			return bad("a bye has no opponent")
		}
		return nil
	}
	if _, ok := known[g.O]; !ok {
		return bad(fmt.Sprintf("unknown player %q", g.O))
	}
	if g.X == g.O {
		return bad("a player against themselves")
	}
	if g.Coin && g.Result != XWins && g.Result != OWins {
		return bad("a coin flip must have a winner")
	}
	return nil
}

// record is one player's part of the record, in round order.
type record struct {
	points  int    // half-points
	diff    int    // games with X minus games with O
	colours []byte // 'X' or 'O' for each game played, in round order
	byes    int
	met     map[string]int // games against each opponent
}

// records sums up every finished game of the record, per player ID. Games
// are taken in round order (the order given within a round); pending games
// and coin flips count for no colour, and pending games for nothing.
func records(players []Player, games []Game) map[string]*record {
	recs := make(map[string]*record, len(players))
	for _, p := range players {
		recs[p.ID] = &record{met: map[string]int{}}
	}
	ordered := slices.Clone(games)
	slices.SortStableFunc(ordered, func(a, b Game) int { return cmp.Compare(a.Round, b.Round) })
	for _, g := range ordered {
		if g.Result == Pending {
			continue
		}
		if g.Result == Bye {
			r := recs[g.X]
			r.points += 2
			r.byes++
			continue
		}
		x, o := recs[g.X], recs[g.O]
		x.points += g.halfPoints(g.X)
		o.points += g.halfPoints(g.O)
		x.met[g.O]++
		o.met[g.X]++
		if !g.Coin {
			x.diff++
			o.diff--
			x.colours = append(x.colours, 'X')
			o.colours = append(o.colours, 'O')
		}
	}
	return recs
}
