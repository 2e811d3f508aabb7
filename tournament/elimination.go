package tournament

import (
	"cmp"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// Bracket is the draw of a single elimination: the players seeded, in a
// bracket of a power-of-two size. Build it with NewBracket and keep it for
// the whole tournament; the games are kept apart, in the record.
type Bracket struct {
	// Seeds are the players, Seeds[0] being seed 1.
	Seeds []Player
	// Size is the number of lines of the bracket, the smallest power of
	// two not below len(Seeds); the lines left over are byes.
	Size int
}

// NewBracket seeds players by rating (highest first, ties by ID) into a
// bracket of the next power of two.
func NewBracket(players []Player) (Bracket, error) {
	ps, err := seeded(players)
	if err != nil {
		return Bracket{}, err
	}
	if len(ps) < 2 {
		return Bracket{}, ErrTooFewPlayers
	}
	return Bracket{Seeds: ps, Size: 1 << bits.Len(uint(len(ps)-1))}, nil
}

// Rounds is the number of rounds of the bracket: log2 of its size.
func (b Bracket) Rounds() int { return bits.Len(uint(b.Size)) - 1 }

// Order lists the seed numbers of the bracket's lines from top to bottom,
// in the usual seeding order (1, 16, 8, 9, 4, 13, ... for 16 lines): in the
// first round line 2k meets line 2k+1, and the winners meet in the same
// way in each later round. A seed number above len(Seeds) is a bye.
func (b Bracket) Order() []int {
	order := []int{1}
	for len(order) < b.Size {
		next := make([]int, 0, 2*len(order))
		for _, s := range order {
			next = append(next, s, 2*len(order)+1-s)
		}
		order = next
	}
	return order
}

// Match is a decided match of an elimination.
type Match struct {
	// Round is the round of the bracket, from 1.
	Round int
	// Winner goes on to the next round; Loser is out.
	Winner, Loser string
	// Games are the games that decided it: one, or a draw and its
	// rematch, or both drawn and a coin flip.
	Games []Game
}

// Placing is a player's final place in an elimination.
type Placing struct {
	// Place is 1 for the champion, 2 for the runner-up, 3 for both
	// semi-final losers, 5 for the quarter-final losers, and so on.
	Place int
	// Player is the player placed.
	Player Player
	// Eliminated is the round the player lost in, 0 for the champion.
	Eliminated int
}

// Progress is where an elimination stands after the games of the record.
type Progress struct {
	// Next are the games to play now, Pending, in round and bracket
	// order: first games of the matches whose two players are known, and
	// rematches (colours swapped) of first games drawn.
	Next []Game
	// Flips are the coin flips this call made for rematches drawn: games
	// with Coin set that the caller must add to the record, so that later
	// calls see the same winners.
	Flips []Game
	// Decided are the matches won so far, in round and bracket order.
	// Byes are not matches: a complete bracket of n players has n-1.
	Decided []Match
	// Placings are the players whose final place is known, best first,
	// seeds in order within a shared place.
	Placings []Placing
	// Champion is the winner of the final, once it is decided.
	Champion string
}

// line is one entrant of a match: a player, a bye, or a winner to come.
type line struct {
	id    string
	known bool // id is the player, or "" for a bye
}

// Play works out the bracket from the record: the matches decided, the
// games to play next with their colours, and the placings. A draw is
// replayed with colours swapped; a drawn rematch is settled by a coin flip
// from rng, returned in Flips to be recorded (rng may be nil while no flip
// is due). Pending games of the record are ignored; any other game the
// bracket did not call for is an error.
func (b Bracket) Play(games []Game, rng *rand.Rand) (Progress, error) {
	seed, err := indexPlayers(b.Seeds)
	if err != nil {
		return Progress{}, err
	}
	if len(b.Seeds) < 2 || b.Size < len(b.Seeds) || b.Size&(b.Size-1) != 0 {
		return Progress{}, fmt.Errorf("%w: %d players in %d lines", ErrTooFewPlayers, len(b.Seeds), b.Size)
	}
	rounds := b.Rounds()
	byPair, played, err := gamesByMatch(games, seed, rounds)
	if err != nil {
		return Progress{}, err
	}
	before := coloursBefore(byPair)

	var p Progress
	out := map[string]int{} // round each loser went out in
	used := 0
	cur := b.entrants()
	for r := 1; r <= rounds; r++ {
		next := make([]line, len(cur)/2)
		for m := range next {
			hi, lo := cur[2*m], cur[2*m+1]
			if !hi.known || !lo.known {
				continue
			}
			if lo.id == "" {
				next[m] = hi // a bye
				continue
			}
			if hi.id == "" {
				next[m] = lo
				continue
			}
			if seed[hi.id] > seed[lo.id] {
				hi, lo = lo, hi
			}
			gs := byPair[keyOf(r, hi.id, lo.id)]
			used += len(gs)
			winner, decided, err := settle(r, m, hi.id, lo.id, gs, before, rng, &p)
			if err != nil {
				return Progress{}, err
			}
			if winner == "" {
				continue
			}
			loser := hi.id
			if winner == hi.id {
				loser = lo.id
			}
			next[m] = line{id: winner, known: true}
			out[loser] = r
			p.Decided = append(p.Decided, Match{Round: r, Winner: winner, Loser: loser, Games: decided})
		}
		cur = next
	}
	if used != played {
		return Progress{}, fmt.Errorf("%w: %d games of the record belong to no match of the bracket", ErrBadGame, played-used)
	}
	if cur[0].known {
		p.Champion = cur[0].id
	}
	p.Placings = b.placings(p.Champion, out)
	return p, nil
}

// pairKey names the match of a round between two players, in either
// order.
type pairKey struct {
	round int
	a, b  string
}

// keyOf returns the key of the match of round between x and o.
func keyOf(round int, x, o string) pairKey {
	if x > o {
		x, o = o, x
	}
	return pairKey{round, x, o}
}

// gamesByMatch checks the games of the record (seed indexes the players)
// and returns the games played, coin flips included, by the match they
// belong to, in the record's order, with their number. Pending games are
// left out; a bye or a game past the last round is an error.
func gamesByMatch(games []Game, seed map[string]int, rounds int) (map[pairKey][]Game, int, error) {
	byPair := map[pairKey][]Game{}
	played := 0
	for _, g := range games {
		if err := checkGame(g, seed); err != nil {
			return nil, 0, err
		}
		if g.Result == Pending {
			continue
		}
		if g.Result == Bye || g.Round > rounds {
			return nil, 0, fmt.Errorf("%w: %v: not a game of this bracket", ErrBadGame, g)
		}
		k := keyOf(g.Round, g.X, g.O)
		byPair[k] = append(byPair[k], g)
		played++
	}
	return byPair, played, nil
}

// coloursBefore returns a function that gives the colours a player had
// before a round, from the games of byPair (coin flips aside).
func coloursBefore(byPair map[pairKey][]Game) func(id string, round int) *record {
	colours := map[string][]Game{}
	for _, gs := range byPair {
		for _, g := range gs {
			if !g.Coin {
				colours[g.X] = append(colours[g.X], g)
				colours[g.O] = append(colours[g.O], g)
			}
		}
	}
	for _, gs := range colours {
		slices.SortStableFunc(gs, func(a, b Game) int { return cmp.Compare(a.Round, b.Round) })
	}
	return func(id string, round int) *record {
		r := &record{}
		for _, g := range colours[id] {
			if g.Round >= round {
				break
			}
			if g.X == id {
				r.diff++
				r.colours = append(r.colours, 'X')
			} else {
				r.diff--
				r.colours = append(r.colours, 'O')
			}
		}
		return r
	}
}

// entrants returns the lines of the first round in bracket order: the
// seeds in their places, byes in the others.
func (b Bracket) entrants() []line {
	cur := make([]line, b.Size)
	for i, s := range b.Order() {
		if s <= len(b.Seeds) {
			cur[i] = line{id: b.Seeds[s-1].ID, known: true}
		} else {
			cur[i] = line{known: true}
		}
	}
	return cur
}

// placings returns the placings known, best first and seeds in order
// within a place: the champion's, if there is one, and those of the
// players out, whose rounds out gives.
func (b Bracket) placings(champion string, out map[string]int) []Placing {
	rounds := b.Rounds()
	var ps []Placing
	for _, s := range b.Seeds {
		if s.ID == champion {
			ps = append(ps, Placing{Place: 1, Player: s})
		} else if r, ok := out[s.ID]; ok {
			ps = append(ps, Placing{Place: 1<<(rounds-r) + 1, Player: s, Eliminated: r})
		}
	}
	slices.SortStableFunc(ps, func(a, b Placing) int { return cmp.Compare(a.Place, b.Place) })
	return ps
}

// settle plays out the match of round r at position m between hi (the
// higher seed) and lo from its games gs, appending to p the next game to
// play or the coin flip made. It returns the winner and the games that
// decided the match, or "" while the match goes on.
func settle(r, m int, hi, lo string, gs []Game, before func(string, int) *record, rng *rand.Rand, p *Progress) (string, []Game, error) {
	bad := func(g Game, why string) error { return fmt.Errorf("%w: %v: %s", ErrBadGame, g, why) }
	winner := func(g Game) string {
		if g.Result == XWins {
			return g.X
		}
		return g.O
	}
	switch {
	case len(gs) == 0:
		g := Game{Round: r, X: hi, O: lo}
		if !firstColour(before(hi, r), before(lo, r), m) {
			g.X, g.O = lo, hi
		}
		p.Next = append(p.Next, g)
		return "", nil, nil
	case gs[0].Coin:
		return "", nil, bad(gs[0], "a coin flip before any game")
	case gs[0].Result != Draw:
		if len(gs) > 1 {
			return "", nil, bad(gs[1], "the match was already decided")
		}
		return winner(gs[0]), slices.Clone(gs), nil
	case len(gs) == 1:
		p.Next = append(p.Next, Game{Round: r, X: gs[0].O, O: gs[0].X})
		return "", nil, nil
	}
	re := gs[1]
	switch {
	case re.Coin:
		return "", nil, bad(re, "a coin flip before the rematch")
	case re.X != gs[0].O:
		return "", nil, bad(re, "a rematch must swap colours")
	case re.Result != Draw:
		if len(gs) > 2 {
			return "", nil, bad(gs[2], "the match was already decided")
		}
		return winner(re), slices.Clone(gs), nil
	case len(gs) == 2:
		if rng == nil {
			return "", nil, fmt.Errorf("%w: round %d, %s v %s", ErrNoRand, r, hi, lo)
		}
		flip := Game{Round: r, X: re.X, O: re.O, Result: XWins, Coin: true}
		if rng.IntN(2) == 1 {
			flip.Result = OWins
		}
		p.Flips = append(p.Flips, flip)
		return winner(flip), append(slices.Clone(gs), flip), nil
	}
	switch flip := gs[2]; {
	case !flip.Coin || flip.X != re.X:
		return "", nil, bad(flip, "a drawn rematch is settled by a coin flip with the rematch's colours")
	case len(gs) > 3:
		return "", nil, bad(gs[3], "the match was already decided")
	default:
		return winner(flip), slices.Clone(gs), nil
	}
}

// firstColour reports whether hi, the higher seed, takes X in the first
// game of the match at position m of its round.
func firstColour(hi, lo *record, m int) bool {
	switch {
	case hi.diff != lo.diff:
		return hi.diff < lo.diff
	case len(hi.colours) > 0 && len(lo.colours) > 0 && hi.colours[len(hi.colours)-1] != lo.colours[len(lo.colours)-1]:
		return hi.colours[len(hi.colours)-1] == 'O'
	}
	return m%2 == 0
}
