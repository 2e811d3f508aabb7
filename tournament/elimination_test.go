package tournament

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestBracketOrder(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want []int
	}{
		{2, []int{1, 2}},
		{3, []int{1, 4, 2, 3}},
		{4, []int{1, 4, 2, 3}},
		{6, []int{1, 8, 4, 5, 2, 7, 3, 6}},
		{16, []int{1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11}},
	} {
		b, err := NewBracket(field(tt.n))
		if err != nil {
			t.Fatal(err)
		}
		if got := b.Order(); !slices.Equal(got, tt.want) || b.Size != len(tt.want) {
			t.Errorf("n=%d: size %d, order %v, want %v", tt.n, b.Size, got, tt.want)
		}
	}
}

func TestNewBracketSeeds(t *testing.T) {
	players := []Player{{ID: "c", Rating: 1500}, {ID: "a", Rating: 1200}, {ID: "b", Rating: 1500}}
	b, err := NewBracket(players)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(b.Seeds); !slices.Equal(got, []string{"b", "c", "a"}) {
		t.Errorf("seeds = %v, want b, c (tied on rating, by ID), a", got)
	}
	for _, bad := range [][]Player{nil, field(1), {{ID: "a"}, {ID: "a"}}} {
		if _, err := NewBracket(bad); err == nil {
			t.Errorf("NewBracket(%v) succeeded", bad)
		}
	}
}

// TestBracketSix plays a 6-player elimination step by step: byes for
// seeds 1 and 2, a drawn first game replayed, a drawn rematch settled by a
// recorded coin flip, and the placings.
func TestBracketSix(t *testing.T) {
	b, err := NewBracket(field(6))
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name   string
		record []Game
		next   []string
		champ  string
	}{
		// Seeds 1 and 2 have byes; 4 v 5 and 3 v 6 play, X for the lower
		// seed as these are the second and fourth matches of the round.
		{"start", nil, []string{"p05-p04", "p06-p03"}, ""},
		// p04 is through and meets p01 at once, X for p04 as it had O;
		// p03 v p06 was drawn, so they replay with colours swapped.
		{"a draw", []Game{
			{Round: 1, X: "p05", O: "p04", Result: OWins},
			{Round: 1, X: "p06", O: "p03", Result: Draw},
		}, []string{"p03-p06", "p04-p01"}, ""},
		// p02 and p03 are level on colours and p02 has none yet: the
		// lower seed takes X in the second match.
		{"rematch won", []Game{
			{Round: 1, X: "p03", O: "p06", Result: XWins},
			{Round: 2, X: "p04", O: "p01", Result: OWins},
		}, []string{"p03-p02"}, ""},
		{"drawn twice, coin flip recorded", []Game{
			{Round: 2, X: "p03", O: "p02", Result: Draw},
			{Round: 2, X: "p02", O: "p03", Result: Draw},
			{Round: 2, X: "p02", O: "p03", Result: OWins, Coin: true},
		}, []string{"p01-p03"}, ""},
		{"final", []Game{{Round: 3, X: "p01", O: "p03", Result: OWins}}, nil, "p03"},
	}
	var record []Game
	var p Progress
	for _, st := range steps {
		record = append(record, st.record...)
		p, err = b.Play(record, nil)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got := pairs(p.Next); !slices.Equal(got, st.next) {
			t.Errorf("%s: next = %q, want %q", st.name, got, st.next)
		}
		if p.Champion != st.champ || len(p.Flips) != 0 {
			t.Errorf("%s: champion %q, flips %v", st.name, p.Champion, p.Flips)
		}
	}
	var places []string
	for _, pl := range p.Placings {
		places = append(places, fmt.Sprintf("%s:%d/%d", pl.Player.ID, pl.Place, pl.Eliminated))
	}
	want := []string{"p03:1/0", "p01:2/3", "p02:3/2", "p04:3/2", "p05:5/1", "p06:5/1"}
	if !slices.Equal(places, want) {
		t.Errorf("placings (id:place/round out) = %v, want %v", places, want)
	}
	if len(p.Decided) != 5 {
		t.Errorf("%d matches decided, want 5", len(p.Decided))
	}
	m := p.Decided[3] // p02 v p03, bracket order within round 2
	if m.Winner != "p03" || m.Loser != "p02" || len(m.Games) != 3 || !m.Games[2].Coin {
		t.Errorf("coin-flip match = %+v", m)
	}
}

// TestBracketCoinFlip checks that a coin flip is made once, from the
// given source, and that recording it fixes the winner.
func TestBracketCoinFlip(t *testing.T) {
	b, err := NewBracket(field(2))
	if err != nil {
		t.Fatal(err)
	}
	record := []Game{
		{Round: 1, X: "p02", O: "p01", Result: Draw},
		{Round: 1, X: "p01", O: "p02", Result: Draw},
	}
	if _, err := b.Play(record, nil); !errors.Is(err, ErrNoRand) {
		t.Fatalf("Play without a source = %v, want ErrNoRand", err)
	}
	winners := map[string]int{}
	for seed := range uint64(20) {
		p, err := b.Play(record, newRand(seed))
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Flips) != 1 || !p.Flips[0].Coin || p.Flips[0].X != "p01" || p.Champion == "" {
			t.Fatalf("seed %d: flips %v, champion %q", seed, p.Flips, p.Champion)
		}
		again, err := b.Play(append(slices.Clone(record), p.Flips...), newRand(seed+100))
		if err != nil {
			t.Fatal(err)
		}
		if again.Champion != p.Champion || len(again.Flips) != 0 {
			t.Errorf("seed %d: recorded flip not kept: %q then %q, flips %v", seed, p.Champion, again.Champion, again.Flips)
		}
		winners[p.Champion]++
	}
	if len(winners) != 2 {
		t.Errorf("20 flips all went one way: %v", winners)
	}
}

func TestBracketPlayErrors(t *testing.T) {
	b, err := NewBracket(field(6))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		b      Bracket
		record []Game
		want   error
	}{
		{"no bracket", Bracket{}, nil, ErrTooFewPlayers},
		{"not a match of round 1", b, []Game{{Round: 1, X: "p01", O: "p02", Result: XWins}}, ErrBadGame},
		{"a round too far", b, []Game{{Round: 4, X: "p01", O: "p02", Result: XWins}}, ErrBadGame},
		{"a bye", b, []Game{{Round: 1, X: "p01", Result: Bye}}, ErrBadGame},
		{"an unknown player", b, []Game{{Round: 1, X: "p05", O: "zz", Result: XWins}}, ErrBadGame},
		{"a round 2 match not ready", b, []Game{{Round: 2, X: "p01", O: "p04", Result: XWins}}, ErrBadGame},
		{"after the match was won", b, []Game{
			{Round: 1, X: "p05", O: "p04", Result: XWins},
			{Round: 1, X: "p04", O: "p05", Result: XWins},
		}, ErrBadGame},
		{"a rematch with the same colours", b, []Game{
			{Round: 1, X: "p05", O: "p04", Result: Draw},
			{Round: 1, X: "p05", O: "p04", Result: XWins},
		}, ErrBadGame},
		{"a coin flip instead of a rematch", b, []Game{
			{Round: 1, X: "p05", O: "p04", Result: Draw},
			{Round: 1, X: "p04", O: "p05", Result: XWins, Coin: true},
		}, ErrBadGame},
		{"a third game played", b, []Game{
			{Round: 1, X: "p05", O: "p04", Result: Draw},
			{Round: 1, X: "p04", O: "p05", Result: Draw},
			{Round: 1, X: "p04", O: "p05", Result: XWins},
		}, ErrBadGame},
		{"a coin flip without a winner", b, []Game{{Round: 1, X: "p05", O: "p04", Result: Draw, Coin: true}}, ErrBadGame},
		{"a flip due without a source", b, []Game{
			{Round: 1, X: "p05", O: "p04", Result: Draw},
			{Round: 1, X: "p04", O: "p05", Result: Draw},
		}, ErrNoRand},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if p, err := tt.b.Play(tt.record, nil); !errors.Is(err, tt.want) {
				t.Errorf("Play = %+v, %v; want %v", p, err, tt.want)
			}
		})
	}
}

// TestBracketFavourites checks the seeding: when the higher seed always
// wins, seeds 1 and 2 meet in the final and 1 to 4 in the semi-finals.
func TestBracketFavourites(t *testing.T) {
	for n := 2; n <= 64; n++ {
		b, err := NewBracket(field(n))
		if err != nil {
			t.Fatal(err)
		}
		seed := map[string]int{}
		for i, s := range b.Seeds {
			seed[s.ID] = i + 1
		}
		p := run(t, b, func(g Game, _ *rand.Rand) Result {
			if seed[g.X] < seed[g.O] {
				return XWins
			}
			return OWins
		}, nil)
		var final, semis []string
		for _, pl := range p.Placings {
			switch pl.Place {
			case 1, 2:
				final = append(final, pl.Player.ID)
			case 3:
				semis = append(semis, pl.Player.ID)
			}
		}
		if !slices.Equal(final, []string{"p01", "p02"}) || n >= 4 && !slices.Equal(semis, []string{"p03", "p04"}) {
			t.Errorf("n=%d: final %v, semi-final losers %v", n, final, semis)
		}
	}
}

// TestBracketProperties plays random brackets of 2 to 64 players, draws
// common, a few games at a time, and checks that each ends with one
// champion after n-1 matches, that the byes went to the top seeds, seeds
// 1 and 2 in different halves, and that the placings add up.
func TestBracketProperties(t *testing.T) {
	rng := newRand(3)
	for n := 2; n <= 64; n++ {
		for k := range 4 {
			players := field(n)
			rng.Shuffle(n, func(i, j int) { players[i], players[j] = players[j], players[i] })
			b, err := NewBracket(players)
			if err != nil {
				t.Fatal(err)
			}
			if b.Size < n || b.Size >= 2*n || b.Rounds() != SingleElimination.Rounds(n, false) {
				t.Fatalf("n=%d: size %d, %d rounds", n, b.Size, b.Rounds())
			}
			order := b.Order()
			half := order[:b.Size/2]
			if !slices.Contains(half, 1) || slices.Contains(half, 2) {
				t.Errorf("n=%d: seeds 1 and 2 in the same half: %v", n, order)
			}
			p := run(t, b, func(Game, *rand.Rand) Result { return randomResult(rng) }, rng)

			if len(p.Decided) != n-1 {
				t.Errorf("n=%d #%d: %d matches decided, want %d", n, k, len(p.Decided), n-1)
			}
			lost := map[string]int{}
			inRound1 := map[string]bool{}
			perRound := map[int]int{}
			for _, m := range p.Decided {
				lost[m.Loser]++
				perRound[m.Round]++
				if m.Round == 1 {
					inRound1[m.Winner], inRound1[m.Loser] = true, true
				}
				if len(m.Games) >= 2 && m.Games[1].X != m.Games[0].O || len(m.Games) == 3 && !m.Games[2].Coin {
					t.Errorf("n=%d #%d: match %+v", n, k, m)
				}
			}
			if lost[p.Champion] != 0 || len(lost) != n-1 {
				t.Errorf("n=%d #%d: champion %q lost %d times; %d players lost", n, k, p.Champion, lost[p.Champion], len(lost))
			}
			for i, s := range b.Seeds {
				if bye := !inRound1[s.ID]; bye != (i < b.Size-n) {
					t.Errorf("n=%d #%d: seed %d has a bye: %v", n, k, i+1, bye)
				}
			}
			if len(p.Placings) != n || p.Placings[0].Player.ID != p.Champion {
				t.Errorf("n=%d #%d: %d placings, first %+v", n, k, len(p.Placings), p.Placings[0])
			}
			places := map[int]int{}
			for _, pl := range p.Placings[1:] {
				places[pl.Place]++
				if pl.Place != 1<<(b.Rounds()-pl.Eliminated)+1 {
					t.Errorf("n=%d #%d: %+v", n, k, pl)
				}
			}
			for r, c := range perRound {
				if places[1<<(b.Rounds()-r)+1] != c {
					t.Errorf("n=%d #%d: %d matches in round %d but %d placed %d", n, k, c, r, places[1<<(b.Rounds()-r)+1], 1<<(b.Rounds()-r)+1)
				}
			}
		}
	}
}

// run plays b to the end, a few games of those due at a time as in a
// server where matches finish at different times, recording the coin
// flips, and returns the final progress. It also checks on the way that
// nobody is in two games at once and that a game once due keeps its
// colours until played.
func run(t *testing.T, b Bracket, result func(Game, *rand.Rand) Result, rng *rand.Rand) Progress {
	t.Helper()
	var record []Game
	type slot struct {
		round  int
		a, b   string
		played int // games of the match already in the record
	}
	count := map[slot]int{} // games in the record per match
	slotOf := func(g Game) slot {
		k := slot{round: g.Round, a: min(g.X, g.O), b: max(g.X, g.O)}
		k.played = count[k]
		return k
	}
	add := func(gs ...Game) {
		for _, g := range gs {
			count[slot{round: g.Round, a: min(g.X, g.O), b: max(g.X, g.O)}]++
			record = append(record, g)
		}
	}
	due := map[slot]Game{}
	for step := 0; ; step++ {
		p, err := b.Play(record, rng)
		if err != nil {
			t.Fatalf("n=%d step %d: %v; record:%s", len(b.Seeds), step, err, show(record))
		}
		add(p.Flips...)
		if p.Champion != "" {
			if len(p.Next) != 0 {
				t.Fatalf("champion %q with games due: %v", p.Champion, p.Next)
			}
			again, err := b.Play(record, nil)
			if err != nil || again.Champion != p.Champion || len(again.Flips) != 0 || len(again.Decided) != len(p.Decided) {
				t.Fatalf("replaying the record: %v, %+v", err, again)
			}
			return p
		}
		if len(p.Next) == 0 {
			t.Fatalf("no champion and nothing to play; record:%s", show(record))
		}
		busy := map[string]bool{}
		for _, g := range p.Next {
			if busy[g.X] || busy[g.O] {
				t.Fatalf("a player in two games at once: %v", p.Next)
			}
			busy[g.X], busy[g.O] = true, true
			k := slotOf(g)
			if old, ok := due[k]; ok && old != g {
				t.Fatalf("a game due changed: %v then %v", old, g)
			}
			due[k] = g
		}
		// Play the first game due and, at random, some of the others.
		for i, g := range p.Next {
			if i == 0 || rng != nil && rng.IntN(2) == 0 {
				g.Result = result(g, rng)
				add(g)
			}
		}
	}
}
