package tournament

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
)

// PairSwiss pairs the next round of a Swiss tournament: the round after
// the last one in games, or round 1 for an empty record. players are all
// the entrants, withdrawn ones included (they are not paired); games is
// the whole record, every game finished. The games returned are Pending,
// one per board from the top, then the bye (Result Bye) if the number of
// players still in is odd. The rules are in the package comment.
func PairSwiss(players []Player, games []Game) ([]Game, error) {
	return pairSwiss(players, games, guideAfter)
}

// pairSwiss is PairSwiss with the search guided after the given number of
// nodes.
func pairSwiss(players []Player, games []Game, guideAfter int) ([]Game, error) {
	idx, err := indexPlayers(players)
	if err != nil {
		return nil, err
	}
	round := 1
	for _, g := range games {
		if err := checkGame(g, idx); err != nil {
			return nil, err
		}
		if g.Result == Pending {
			return nil, fmt.Errorf("%w: %v", ErrRoundUnfinished, g)
		}
		round = max(round, g.Round+1)
	}
	recs := records(players, games)
	var active []Player
	for _, p := range players {
		if !p.Withdrawn {
			active = append(active, p)
		}
	}
	if len(active) < 2 {
		return nil, fmt.Errorf("%w: %d still in", ErrTooFewPlayers, len(active))
	}
	slices.SortFunc(active, func(a, b Player) int {
		return cmp.Or(cmp.Compare(recs[b.ID].points, recs[a.ID].points), seedOrder(a, b))
	})

	s := newSwissSearch(active, recs)
	s.guideAfter = guideAfter
	pairs, bye, ok := s.run()
	if !ok {
		return nil, fmt.Errorf("%w: round %d", ErrNoPairing, round)
	}
	out := make([]Game, 0, len(pairs)+1)
	for board, pr := range pairs {
		a, b := active[pr[0]], active[pr[1]]
		g := Game{Round: round, X: a.ID, O: b.ID}
		if !colourFirst(recs[a.ID], recs[b.ID], board) {
			g.X, g.O = b.ID, a.ID
		}
		out = append(out, g)
	}
	if bye >= 0 {
		out = append(out, Game{Round: round, X: active[bye].ID, Result: Bye})
	}
	return out, nil
}

// colourFirst reports whether a, the higher-ranked of a pair, takes X. The
// pair can always be given colours within the limit: compatible checked it.
func colourFirst(a, b *record, board int) bool {
	switch {
	case a.diff >= 2 || b.diff <= -2:
		return false
	case b.diff >= 2 || a.diff <= -2:
		return true
	}
	pa, sa := preference(a)
	pb, sb := preference(b)
	switch {
	case pa == 0 && pb == 0:
		return board%2 == 0
	case pa == 0:
		return pb < 0
	case pb == 0, pa != pb:
		return pa > 0
	case sa != sb:
		if sa > sb {
			return pa > 0
		}
		return pb < 0
	}
	for i, j := len(a.colours)-1, len(b.colours)-1; i >= 0 && j >= 0; i, j = i-1, j-1 {
		if a.colours[i] != b.colours[j] {
			return a.colours[i] == 'O'
		}
	}
	return pa > 0
}

// preference is the colour a player would like next, +1 for X and -1 for
// O (0 for none yet), and how strongly: the size of their colour
// difference.
func preference(r *record) (colour, strength int) {
	switch {
	case r.diff < 0:
		return 1, -r.diff
	case r.diff > 0:
		return -1, r.diff
	case len(r.colours) > 0 && r.colours[len(r.colours)-1] == 'O':
		return 1, 0
	case len(r.colours) > 0:
		return -1, 0
	}
	return 0, 0
}

// compatible reports whether two players with these colour differences
// can be given colours that keep both within -2..+2.
func compatible(a, b int) bool {
	return !(a >= 2 && b >= 2) && !(a <= -2 && b <= -2)
}

// bitset is a set of players by rank.
type bitset []uint64

func (s bitset) has(i int) bool { return s[i/64]&(1<<(i%64)) != 0 }
func (s bitset) add(i int)      { s[i/64] |= 1 << (i % 64) }
func (s bitset) remove(i int)   { s[i/64] &^= 1 << (i % 64) }

// first is the lowest member, or -1 for the empty set.
func (s bitset) first() int {
	for w, v := range s {
		if v != 0 {
			return w*64 + bits.TrailingZeros64(v)
		}
	}
	return -1
}

// meets reports whether s and t have a member in common.
func (s bitset) meets(t bitset) bool {
	for w, v := range s {
		if v&t[w] != 0 {
			return true
		}
	}
	return false
}

// swissSearch finds the pairing of one round by backtracking. Players are
// numbered by rank; the highest-ranked unpaired player always picks next,
// trying opponents in order of preference, so the first complete pairing
// found is the most natural one. The unpaired set then determines the
// rest of the search, so a set found to have no completion within a budget
// of repeats is remembered and never searched again.
type swissSearch struct {
	n          int
	points     []int    // by rank
	diff       []int    // by rank
	byes       []int    // by rank
	met        [][]bool // met[i][j]: i and j have played
	compat     [][]bool // compat[i][j]: i and j can be given colours
	fresh      []bitset // fresh[i]: compatible players i has not met
	any        []bitset // any[i]: compatible players
	rem        bitset   // unpaired players
	pairs      [][2]int
	failed     map[string]bool // unpaired set and budget with no completion
	keyBuf     []byte
	nodes      int  // nodes searched so far
	guideAfter int  // nodes searched before it is guided
	guided     bool // prune with maximum matchings too
}

// newSwissSearch prepares the search over active, ranked, with their
// records.
func newSwissSearch(active []Player, recs map[string]*record) *swissSearch {
	n := len(active)
	words := (n + 63) / 64
	s := &swissSearch{
		n:      n,
		points: make([]int, n),
		diff:   make([]int, n),
		byes:   make([]int, n),
		met:    make([][]bool, n),
		compat: make([][]bool, n),
		fresh:  make([]bitset, n),
		any:    make([]bitset, n),
		rem:    make(bitset, words),
		failed: map[string]bool{},
	}
	rank := make(map[string]int, n)
	for i, p := range active {
		r := recs[p.ID]
		rank[p.ID] = i
		s.points[i], s.diff[i], s.byes[i] = r.points, r.diff, r.byes
		s.met[i], s.compat[i] = make([]bool, n), make([]bool, n)
		s.fresh[i], s.any[i] = make(bitset, words), make(bitset, words)
	}
	for i, p := range active {
		for opp := range recs[p.ID].met {
			if j, ok := rank[opp]; ok {
				s.met[i][j] = true
			}
		}
	}
	for i := range n {
		for j := range n {
			if i == j || !compatible(s.diff[i], s.diff[j]) {
				continue
			}
			s.compat[i][j] = true
			s.any[i].add(j)
			if !s.met[i][j] {
				s.fresh[i].add(j)
			}
		}
	}
	return s
}

// run finds the pairing with the fewest repeats, then the fewest second
// byes, taking the first in order of preference among those. It returns
// the pairs by rank, higher-ranked first, from the top board, and the
// rank of the bye (-1 for none).
func (s *swissSearch) run() (pairs [][2]int, bye int, ok bool) {
	byes := []int{-1}
	if s.n%2 == 1 {
		byes = byes[:0]
		for _, had := range []bool{false, true} {
			for i := s.n - 1; i >= 0; i-- {
				if (s.byes[i] > 0) == had {
					byes = append(byes, i)
				}
			}
		}
	}
	for budget := 0; budget <= s.n/2; budget++ {
		for _, b := range byes {
			for i := range s.n {
				s.rem.add(i)
			}
			if b >= 0 {
				s.rem.remove(b)
			}
			s.pairs = s.pairs[:0]
			if s.pair(budget) {
				return s.pairs, b, true
			}
		}
	}
	return nil, -1, false
}

// pair pairs every unpaired player with at most budget repeats, and
// reports whether it could; the pairs are appended to s.pairs.
func (s *swissSearch) pair(budget int) bool {
	p := s.rem.first()
	if p < 0 {
		return true
	}
	key := s.key(budget)
	if s.failed[key] || !s.feasible(budget) {
		s.failed[key] = true
		return false
	}
	s.rem.remove(p)
	for _, q := range s.candidates(p) {
		cost := 0
		if s.met[p][q] {
			cost = 1
		}
		if !s.compat[p][q] || cost > budget {
			continue
		}
		s.rem.remove(q)
		s.pairs = append(s.pairs, [2]int{p, q})
		if s.pair(budget - cost) {
			return true
		}
		s.pairs = s.pairs[:len(s.pairs)-1]
		s.rem.add(q)
	}
	s.rem.add(p)
	s.failed[key] = true
	return false
}

// guideAfter is the number of nodes searched after which the search
// checks each node with maximum matchings: slower per node, but it never
// follows a branch that cannot be completed without repeats, and rarely
// one that cannot be completed within its budget of repeats, so even the
// hardest rounds of a long tournament pair promptly. The order of the
// search, and so its answer, is the same either way.
const guideAfter = 2000

// feasible reports whether the unpaired players might be paired within
// budget repeats. Quickly: every one needs a compatible opponent, and
// each with only past opponents left costs half a repeat at least. Once
// guided, exactly for a budget of 0 and by a bound otherwise: the
// compatible pairs must hold a complete pairing, and one of new pairs
// must be at most budget short of it.
func (s *swissSearch) feasible(budget int) bool {
	s.nodes++
	if s.nodes > s.guideAfter {
		s.guided = true
	}
	if !s.quick(budget) {
		return false
	}
	if !s.guided {
		return true
	}
	half := 0
	for _, v := range s.rem {
		half += bits.OnesCount64(v)
	}
	half /= 2
	if half-maxMatching(s.rem, s.fresh) > budget {
		return false
	}
	return budget == 0 || maxMatching(s.rem, s.any) == half
}

// quick is the cheap part of feasible.
func (s *swissSearch) quick(budget int) bool {
	stuck := 0
	for w, v := range s.rem {
		for v != 0 {
			i := w*64 + bits.TrailingZeros64(v)
			v &= v - 1
			if !s.fresh[i].meets(s.rem) {
				if !s.any[i].meets(s.rem) {
					return false
				}
				stuck++
			}
		}
	}
	return (stuck+1)/2 <= budget
}

// key identifies the unpaired set and the budget left.
func (s *swissSearch) key(budget int) string {
	b := s.keyBuf[:0]
	b = binary.AppendUvarint(b, uint64(budget))
	for _, v := range s.rem {
		for k := range 8 {
			b = append(b, byte(v>>(8*k)))
		}
	}
	s.keyBuf = b
	return string(b)
}

// candidates lists the opponents of p among the unpaired players, best
// first. In p's score group (p first, the rest in rank order) the ideal
// opponent is the first of the bottom half, then the rest of the bottom
// half in order, then the top half from its bottom up. Players of lower
// score groups follow, group by group, in rank order. Within each group an
// opponent who leans to the same colour as p comes after the others.
func (s *swissSearch) candidates(p int) []int {
	group := []int{p}
	var lower []int
	for w, v := range s.rem {
		for v != 0 {
			q := w*64 + bits.TrailingZeros64(v)
			v &= v - 1
			if s.points[q] == s.points[p] {
				group = append(group, q)
			} else {
				lower = append(lower, q)
			}
		}
	}
	order := make([]int, 0, len(group)+len(lower)-1)
	ideal := max(len(group)/2, 1)
	for _, clash := range []bool{false, true} {
		for k := ideal; k < len(group); k++ {
			if s.clash(p, group[k]) == clash {
				order = append(order, group[k])
			}
		}
		for k := ideal - 1; k >= 1; k-- {
			if s.clash(p, group[k]) == clash {
				order = append(order, group[k])
			}
		}
	}
	for len(lower) > 0 {
		end := 1
		for end < len(lower) && s.points[lower[end]] == s.points[lower[0]] {
			end++
		}
		for _, clash := range []bool{false, true} {
			for _, q := range lower[:end] {
				if s.clash(p, q) == clash {
					order = append(order, q)
				}
			}
		}
		lower = lower[end:]
	}
	return order
}

// clash reports whether p and q both lean the same way in colour, so that
// one of them would be pushed further.
func (s *swissSearch) clash(p, q int) bool {
	return s.diff[p] != 0 && (s.diff[p] > 0) == (s.diff[q] > 0) && s.diff[q] != 0
}
