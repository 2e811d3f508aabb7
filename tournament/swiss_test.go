package tournament

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"testing"
)

// rec builds a finished record from "X-O result" lines per round, such
// as "p01-p03 1-0", "p02-p04 ½" or "p05 bye".
func rec(rounds ...[]string) []Game {
	var games []Game
	for r, lines := range rounds {
		for _, l := range lines {
			var pair, res string
			if _, err := fmt.Sscan(l, &pair, &res); err != nil {
				panic(l)
			}
			if res == "bye" {
				games = append(games, Game{Round: r + 1, X: pair, Result: Bye})
				continue
			}
			var g Game
			g.Round = r + 1
			for i := range pair {
				if pair[i] == '-' {
					g.X, g.O = pair[:i], pair[i+1:]
				}
			}
			switch res {
			case "1-0":
				g.Result = XWins
			case "0-1":
				g.Result = OWins
			case "½":
				g.Result = Draw
			default:
				panic(l)
			}
			games = append(games, g)
		}
	}
	return games
}

func TestPairSwiss(t *testing.T) {
	tests := []struct {
		name    string
		players []Player
		games   []Game
		want    []string
	}{
		{"2 players round 1", field(2), nil, []string{"p01-p02"}},
		// Top half against bottom half; X for the higher-ranked player on
		// boards 1 and 3, for the lower-ranked on boards 2 and 4.
		{"4 players round 1", field(4), nil, []string{"p01-p03", "p04-p02"}},
		{"5 players round 1: bye to the last seed", field(5), nil, []string{"p01-p03", "p04-p02", "p05 bye"}},
		{"8 players round 1", field(8), nil, []string{"p01-p05", "p06-p02", "p03-p07", "p08-p04"}},
		// Winners meet, losers meet. p01 and p04 both had X: the
		// higher-ranked p01 is granted O. Likewise p02 gets X.
		{"4 players round 2", field(4), rec([]string{"p01-p03 1-0", "p04-p02 1-0"}),
			[]string{"p04-p01", "p02-p03"}},
		// p04 alone on 1 point floats down to the half points. The best
		// of them, p01, had X like p04, so p04 meets p03, who had O.
		{"4 players round 2 with a draw", field(4), rec([]string{"p01-p03 ½", "p04-p02 1-0"}),
			[]string{"p03-p04", "p02-p01"}},
		// p04 has met p01 and p02, so it meets p03; p04 has had X twice
		// and must take O, p03 has had O twice and must take X.
		{"4 players round 3", field(4), rec(
			[]string{"p01-p03 1-0", "p04-p02 1-0"},
			[]string{"p04-p01 1-0", "p02-p03 1-0"}),
			[]string{"p03-p04", "p01-p02"}},
		// p01 and p02 both have X twice and cannot meet; every other
		// pair has met, so two repeats are the fewest possible.
		{"colour rule forces repeats", field(4), rec(
			[]string{"p01-p03 1-0", "p02-p04 1-0"},
			[]string{"p01-p04 1-0", "p02-p03 1-0"}),
			[]string{"p03-p01", "p04-p02"}},
		// The bye goes to p03, the lowest-ranked without one. p01 would
		// rather not meet p04 (both had X), but p05 is the only other
		// opponent for p04 and p04 has met p02.
		{"5 players round 2", field(5), rec([]string{"p01-p03 1-0", "p04-p02 1-0", "p05 bye"}),
			[]string{"p04-p01", "p02-p05", "p03 bye"}},
		// p02 and p03 have had byes, so p01 gets it although it is not
		// the lowest-ranked.
		{"3 players round 3: bye to the only player without one", field(3), rec(
			[]string{"p01-p02 1-0", "p03 bye"},
			[]string{"p03-p01 1-0", "p02 bye"}),
			[]string{"p02-p03", "p01 bye"}},
		{"withdrawn before round 1", append(field(4), Player{ID: "p05", Rating: 3000, Withdrawn: true}), nil,
			[]string{"p01-p03", "p04-p02"}},
		// p01 is gone and nobody needs the bye: p04 and p05 lead on 1
		// point, p02 and p03 trail; p04 had X, p05 no colour yet.
		{"withdrawn after round 1", withdraw(field(5), "p01"), rec([]string{"p01-p03 1-0", "p04-p02 1-0", "p05 bye"}),
			[]string{"p05-p04", "p02-p03"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PairSwiss(tt.players, tt.games)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(pairs(got), tt.want) {
				t.Errorf("pairing = %q, want %q", pairs(got), tt.want)
			}
		})
	}
}

// withdraw marks the player id withdrawn.
func withdraw(ps []Player, id string) []Player {
	ps = slices.Clone(ps)
	for i := range ps {
		if ps[i].ID == id {
			ps[i].Withdrawn = true
		}
	}
	return ps
}

func TestPairSwissErrors(t *testing.T) {
	abcd := []Player{{ID: "a"}, {ID: "b"}, {ID: "c"}, {ID: "d"}}
	tests := []struct {
		name    string
		players []Player
		games   []Game
		want    error
	}{
		{"no players", nil, nil, ErrTooFewPlayers},
		{"one player", field(1), nil, ErrTooFewPlayers},
		{"one player left", withdraw(field(2), "p02"), nil, ErrTooFewPlayers},
		{"duplicate ID", []Player{{ID: "a"}, {ID: "a"}}, nil, ErrDuplicatePlayer},
		{"empty ID", []Player{{ID: "a"}, {}}, nil, ErrDuplicatePlayer},
		{"pending game", field(2), []Game{{Round: 1, X: "p01", O: "p02"}}, ErrRoundUnfinished},
		{"unknown player", field(2), []Game{{Round: 1, X: "p01", O: "zz", Result: Draw}}, ErrBadGame},
		{"against themselves", field(2), []Game{{Round: 1, X: "p01", O: "p01", Result: Draw}}, ErrBadGame},
		{"round 0", field(2), []Game{{X: "p01", O: "p02", Result: Draw}}, ErrBadGame},
		{"bye with an opponent", field(2), []Game{{Round: 1, X: "p01", O: "p02", Result: Bye}}, ErrBadGame},
		{"unknown result", field(2), []Game{{Round: 1, X: "p01", O: "p02", Result: 9}}, ErrBadGame},
		// a and b have had X twice each and their opponents are gone.
		{"no pairing within the colour rule", withdraw(withdraw(abcd, "c"), "d"),
			rec([]string{"a-c 1-0", "b-d 1-0"}, []string{"a-d 1-0", "b-c 1-0"}), ErrNoPairing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PairSwiss(tt.players, tt.games)
			if !errors.Is(err, tt.want) {
				t.Errorf("PairSwiss = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// TestPairSwissProperties plays many random Swiss tournaments of 2 to 64
// players, some withdrawing on the way, and checks every round: each
// player still in plays once or has the bye, colour differences stay
// within ±2, and repeats and second byes are as few as possible — against
// a search of every pairing up to 8 players, and none at all beyond.
func TestPairSwissProperties(t *testing.T) {
	rng := newRand(1)
	for n := 2; n <= 64; n++ {
		tournaments := 2
		switch {
		case n <= 8:
			tournaments = 60
		case n <= 16:
			tournaments = 8
		}
		rounds := Swiss.Rounds(n, false) + 2
		if n <= 8 {
			rounds = max(rounds, n+1) // well into forced repeats
		}
		for k := range tournaments {
			players := field(n)
			var games []Game
			for r := 1; r <= rounds; r++ {
				var active []string
				for _, p := range players {
					if !p.Withdrawn {
						active = append(active, p.ID)
					}
				}
				ts := tallies(games)
				round, err := PairSwiss(players, games)
				if errors.Is(err, ErrNoPairing) {
					if _, _, ok := bruteBest(active, ts); ok || len(active) > 8 {
						t.Fatalf("n=%d #%d round %d: %v, but a pairing exists; record:%s", n, k, r, err, show(games))
					}
					break
				}
				if err != nil {
					t.Fatalf("n=%d #%d round %d: %v", n, k, r, err)
				}
				checkRound(t, round, r, active)
				repeats, second := cost(round, ts)
				if len(active) <= 8 {
					wantR, wantB, _ := bruteBest(active, ts)
					if repeats != wantR || second != wantB {
						t.Fatalf("n=%d #%d round %d: %d repeats and %d second byes, %d and %d possible; record:%s\npairing:%s",
							n, k, r, repeats, second, wantR, wantB, show(games), show(round))
					}
				} else if repeats != 0 || second != 0 {
					t.Fatalf("n=%d #%d round %d: %d repeats, %d second byes; pairing:%s", n, k, r, repeats, second, show(round))
				}
				games = append(games, play(round, rng)...)
				for id, tl := range tallies(games) {
					if tl.diff > 2 || tl.diff < -2 {
						t.Fatalf("n=%d #%d round %d: %s has colour difference %d; record:%s", n, k, r, id, tl.diff, show(games))
					}
				}
				if len(active) > 2 && rng.IntN(8) == 0 {
					players = withdraw(players, active[rng.IntN(len(active))])
				}
			}
		}
	}
}

// TestPairSwissGuided checks that pruning with maximum matchings changes
// nothing but the time taken: from the first node, the search gives the
// same pairings as without.
func TestPairSwissGuided(t *testing.T) {
	rng := newRand(6)
	for _, n := range []int{3, 4, 6, 7, 9, 12, 17, 24} {
		for range 10 {
			players := field(n)
			var games []Game
			for r := 1; r <= n+2; r++ {
				round, err := PairSwiss(players, games)
				guided, gerr := pairSwiss(players, games, 0)
				if fmt.Sprint(gerr) != fmt.Sprint(err) || !slices.Equal(round, guided) {
					t.Fatalf("n=%d round %d: %v%s\nguided: %v%s", n, r, err, show(round), gerr, show(guided))
				}
				if err != nil {
					break
				}
				games = append(games, play(round, rng)...)
			}
		}
	}
}

// TestPairSwissLong runs Swiss tournaments far past their rounds, to
// where repeats are forced, and checks that each round still pairs
// everyone within the colour rule (and promptly: this takes well under a
// second for 64 players and 67 rounds).
func TestPairSwissLong(t *testing.T) {
	if testing.Short() {
		t.Skip("long tournaments")
	}
	rng := newRand(7)
	for _, n := range []int{16, 33, 64} {
		players := field(n)
		var games []Game
		for r := 1; r <= n+3; r++ {
			round, err := PairSwiss(players, games)
			if err != nil {
				t.Fatalf("n=%d round %d: %v", n, r, err)
			}
			checkRound(t, round, r, ids(players))
			games = append(games, play(round, rng)...)
			for id, tl := range tallies(games) {
				if tl.diff > 2 || tl.diff < -2 {
					t.Fatalf("n=%d round %d: %s has colour difference %d", n, r, id, tl.diff)
				}
			}
		}
	}
}

// TestPairSwissDeterministic checks that the order of the players and of
// the record does not change the pairing.
func TestPairSwissDeterministic(t *testing.T) {
	rng := newRand(2)
	for _, n := range []int{5, 12, 33} {
		players := field(n)
		var games []Game
		for r := range bits.Len(uint(n-1)) + 1 {
			round, err := PairSwiss(players, games)
			if err != nil {
				t.Fatal(err)
			}
			ps, gs := slices.Clone(players), slices.Clone(games)
			rng.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
			rng.Shuffle(len(gs), func(i, j int) { gs[i], gs[j] = gs[j], gs[i] })
			again, err := PairSwiss(ps, gs)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(round, again) {
				t.Fatalf("n=%d round %d: pairing depends on order:%s\nvs%s", n, r+1, show(round), show(again))
			}
			games = append(games, play(round, rng)...)
		}
	}
}

// TestSwissNinePlayers runs a 9-player Swiss of 4 rounds through the API,
// as the bot does: pair, play, and rank.
func TestSwissNinePlayers(t *testing.T) {
	rng := newRand(9)
	players := field(9)
	var games []Game
	rounds := Swiss.Rounds(len(players), false)
	if rounds != 4 {
		t.Fatalf("Swiss.Rounds(9) = %d, want 4", rounds)
	}
	for r := 1; r <= rounds; r++ {
		round, err := PairSwiss(players, games)
		if err != nil {
			t.Fatal(err)
		}
		checkRound(t, round, r, ids(players))
		if rep, second := cost(round, tallies(games)); rep != 0 || second != 0 {
			t.Errorf("round %d: %d repeats, %d second byes", r, rep, second)
		}
		games = append(games, play(round, rng)...)
	}
	table, err := Standings(players, games)
	if err != nil {
		t.Fatal(err)
	}
	total, byes := 0.0, 0
	for i, s := range table {
		if s.Rank != i+1 {
			t.Errorf("line %d has rank %d", i, s.Rank)
		}
		if got := s.Wins + s.Draws + s.Losses + s.Byes; got != rounds {
			t.Errorf("%s: %d games and byes in %d rounds", s.Player.ID, got, rounds)
		}
		if s.X+s.O != s.Wins+s.Draws+s.Losses || s.X-s.O > 2 || s.O-s.X > 2 {
			t.Errorf("%s: %d X and %d O", s.Player.ID, s.X, s.O)
		}
		if s.Byes > 1 {
			t.Errorf("%s: %d byes", s.Player.ID, s.Byes)
		}
		total += s.Points
		byes += s.Byes
	}
	// Four games and a bye a round, a point each.
	if total != 4*5 || byes != 4 {
		t.Errorf("%v points and %d byes in all, want 20 and 4", total, byes)
	}
	if t.Failed() {
		t.Logf("record:%s", show(games))
	}
}

// BenchmarkPairSwiss pairs round 7 of a 64-player Swiss.
func BenchmarkPairSwiss(b *testing.B) {
	rng := newRand(64)
	players := field(64)
	var games []Game
	for range 6 {
		round, err := PairSwiss(players, games)
		if err != nil {
			b.Fatal(err)
		}
		games = append(games, play(round, rng)...)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := PairSwiss(players, games); err != nil {
			b.Fatal(err)
		}
	}
}
