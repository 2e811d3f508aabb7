package tournament

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// field makes n players "p01", "p02", ... rated so that p01 is seed 1.
func field(n int) []Player {
	ps := make([]Player, n)
	for i := range ps {
		ps[i] = Player{ID: fmt.Sprintf("p%02d", i+1), Rating: float64(2000 - 10*i)}
	}
	return ps
}

// newRand is the seeded source of every randomised test.
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x7474742d626f74)) }

// randomResult is a finished result, draws being common as in
// tic-tac-toe.
func randomResult(rng *rand.Rand) Result {
	switch x := rng.IntN(10); {
	case x < 4:
		return XWins
	case x < 6:
		return OWins
	}
	return Draw
}

// play gives every pending game a random result.
func play(games []Game, rng *rand.Rand) []Game {
	out := slices.Clone(games)
	for i := range out {
		if out[i].Result == Pending {
			out[i].Result = randomResult(rng)
		}
	}
	return out
}

// tally is each player's record, counted independently of the engine.
type tally struct {
	diff int
	byes int
	met  map[string]int
}

func tallies(games []Game) map[string]*tally {
	ts := map[string]*tally{}
	get := func(id string) *tally {
		if ts[id] == nil {
			ts[id] = &tally{met: map[string]int{}}
		}
		return ts[id]
	}
	for _, g := range games {
		if g.Result == Bye {
			get(g.X).byes++
			continue
		}
		get(g.X).diff++
		get(g.O).diff--
		get(g.X).met[g.O]++
		get(g.O).met[g.X]++
	}
	return ts
}

func (t *tally) orNew() *tally {
	if t == nil {
		return &tally{met: map[string]int{}}
	}
	return t
}

// cost counts the repeated pairings and second byes a round would add.
func cost(round []Game, ts map[string]*tally) (repeats, secondByes int) {
	for _, g := range round {
		if g.Result == Bye {
			if ts[g.X].orNew().byes > 0 {
				secondByes++
			}
		} else if ts[g.X].orNew().met[g.O] > 0 {
			repeats++
		}
	}
	return repeats, secondByes
}

// bruteBest is the least (repeats, second byes) over every pairing of ids
// that the colour rule allows, found by trying them all; ok is false when
// the colour rule allows none.
func bruteBest(ids []string, ts map[string]*tally) (repeats, secondByes int, ok bool) {
	ids = slices.Clone(ids)
	if len(ids)%2 == 1 {
		ids = append(ids, "") // the bye
	}
	best := [2]int{1 << 30, 1 << 30}
	var rec func(left []string, c [2]int)
	rec = func(left []string, c [2]int) {
		if len(left) == 0 {
			if c[0] < best[0] || c[0] == best[0] && c[1] < best[1] {
				best = c
			}
			return
		}
		a := left[0]
		for k := 1; k < len(left); k++ {
			b := left[k]
			next := c
			switch {
			case b == "":
				if ts[a].orNew().byes > 0 {
					next[1]++
				}
			default:
				ta, tb := ts[a].orNew(), ts[b].orNew()
				if ta.diff >= 2 && tb.diff >= 2 || ta.diff <= -2 && tb.diff <= -2 {
					continue
				}
				if ta.met[b] > 0 {
					next[0]++
				}
			}
			rest := append(slices.Clone(left[1:k]), left[k+1:]...)
			rec(rest, next)
		}
	}
	rec(ids, [2]int{})
	return best[0], best[1], best[0] < 1<<30
}

// checkRound fails the test unless round has every active player exactly
// once (a bye only when their number is odd) and nobody else.
func checkRound(t *testing.T, round []Game, number int, active []string) {
	t.Helper()
	seen := map[string]int{}
	byes := 0
	for _, g := range round {
		if g.Round != number {
			t.Errorf("%v: round %d, want %d", g, g.Round, number)
		}
		seen[g.X]++
		if g.Result == Bye {
			byes++
			continue
		}
		if g.Result != Pending {
			t.Errorf("%v: result set before play", g)
		}
		seen[g.O]++
	}
	for _, id := range active {
		if seen[id] != 1 {
			t.Errorf("round %d: %s appears %d times", number, id, seen[id])
		}
		delete(seen, id)
	}
	if len(seen) > 0 {
		t.Errorf("round %d: players not in it were paired: %v", number, seen)
	}
	if want := len(active) % 2; byes != want {
		t.Errorf("round %d: %d byes for %d players", number, byes, len(active))
	}
}

// show prints games one to a line, for failure messages.
func show(games []Game) string {
	var b strings.Builder
	for _, g := range games {
		fmt.Fprintf(&b, "\n\t%v", g)
	}
	return b.String()
}

// ids lists the players' IDs.
func ids(ps []Player) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.ID
	}
	return out
}

// pairs prints a round as "X-O" pairs and "X bye", for comparisons.
func pairs(round []Game) []string {
	out := make([]string, len(round))
	for i, g := range round {
		if g.Result == Bye {
			out[i] = g.X + " bye"
		} else {
			out[i] = g.X + "-" + g.O
		}
	}
	return out
}

// TestMaxMatching checks Edmonds' algorithm against trying every
// matching, on random graphs of up to 12 vertices.
func TestMaxMatching(t *testing.T) {
	rng := newRand(5)
	for k := range 3000 {
		n := 1 + rng.IntN(12)
		adj := make([]bitset, n)
		for i := range adj {
			adj[i] = make(bitset, 1)
		}
		density := rng.Float64()
		for i := range n {
			for j := i + 1; j < n; j++ {
				if rng.Float64() < density {
					adj[i].add(j)
					adj[j].add(i)
				}
			}
		}
		set := make(bitset, 1)
		for i := range n {
			if rng.IntN(6) > 0 {
				set.add(i)
			}
		}
		var best func(left bitset) int
		best = func(left bitset) int {
			v := left.first()
			if v < 0 {
				return 0
			}
			rest := bitset{left[0] &^ (1 << v)}
			b := best(rest) // v unmatched
			for u := range n {
				if rest.has(u) && adj[v].has(u) {
					b = max(b, 1+best(bitset{rest[0] &^ (1 << u)}))
				}
			}
			return b
		}
		if got, want := maxMatching(set, adj), best(set); got != want {
			t.Fatalf("graph #%d: maximum matching %d, want %d", k, got, want)
		}
	}
}
