package tournament

import (
	"errors"
	"slices"
	"testing"
)

func TestSchedule(t *testing.T) {
	tests := []struct {
		name string
		n    int
		want [][]string
	}{
		{"2 players", 2, [][]string{{"p02-p01"}}},
		// p04 keeps its seat and alternates colours; the others rotate.
		{"4 players", 4, [][]string{
			{"p04-p01", "p02-p03"},
			{"p02-p04", "p03-p01"},
			{"p04-p03", "p01-p02"},
		}},
		// The bye keeps its seat, so everyone's colours alternate
		// around their bye: p01 has bye, O, X, O, X.
		{"5 players", 5, [][]string{
			{"p02-p05", "p04-p03", "p01 bye"},
			{"p03-p01", "p05-p04", "p02 bye"},
			{"p04-p02", "p01-p05", "p03 bye"},
			{"p05-p03", "p02-p01", "p04 bye"},
			{"p01-p04", "p03-p02", "p05 bye"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			players := field(tt.n)
			slices.Reverse(players) // the order given does not matter
			rounds, err := Schedule(players, false)
			if err != nil {
				t.Fatal(err)
			}
			if len(rounds) != len(tt.want) {
				t.Fatalf("%d rounds, want %d", len(rounds), len(tt.want))
			}
			for r, round := range rounds {
				if got := pairs(round); !slices.Equal(got, tt.want[r]) {
					t.Errorf("round %d = %q, want %q", r+1, got, tt.want[r])
				}
			}
		})
	}
}

func TestScheduleDouble(t *testing.T) {
	rounds, err := Schedule(field(3), true)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"p02-p03", "p01 bye"},
		{"p03-p01", "p02 bye"},
		{"p01-p02", "p03 bye"},
		{"p03-p02", "p01 bye"},
		{"p01-p03", "p02 bye"},
		{"p02-p01", "p03 bye"},
	}
	for r, round := range rounds {
		if got := pairs(round); !slices.Equal(got, want[r]) || round[0].Round != r+1 {
			t.Errorf("round %d (%d) = %q, want %q", r+1, round[0].Round, got, want[r])
		}
	}
}

func TestScheduleErrors(t *testing.T) {
	for _, tt := range []struct {
		name    string
		players []Player
		want    error
	}{
		{"none", nil, ErrTooFewPlayers},
		{"one", field(1), ErrTooFewPlayers},
		{"duplicate", []Player{{ID: "a"}, {ID: "b"}, {ID: "a"}}, ErrDuplicatePlayer},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Schedule(tt.players, false); !errors.Is(err, tt.want) {
				t.Errorf("Schedule = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestScheduleProperties checks every schedule of 2 to 64 players, single
// and double: the number of rounds, each player once a round, each pair
// meeting once (or twice, colours swapped), one bye per player and cycle
// for an odd number, and colour differences within ±2 after every round
// and within ±1 at the end.
func TestScheduleProperties(t *testing.T) {
	for n := 2; n <= 64; n++ {
		for _, double := range []bool{false, true} {
			players := field(n)
			rounds, err := Schedule(players, double)
			if err != nil {
				t.Fatal(err)
			}
			if len(rounds) != RoundRobin.Rounds(n, double) {
				t.Errorf("n=%d double=%v: %d rounds, want %d", n, double, len(rounds), RoundRobin.Rounds(n, double))
			}
			type pair struct{ x, o string }
			met := map[pair]int{}
			byes := map[string]int{}
			diff := map[string]int{}
			for r, round := range rounds {
				checkRound(t, round, r+1, ids(players))
				for _, g := range round {
					if g.Result == Bye {
						byes[g.X]++
						continue
					}
					met[pair{g.X, g.O}]++
					diff[g.X]++
					diff[g.O]--
				}
				for id, d := range diff {
					if d > 2 || d < -2 {
						t.Fatalf("n=%d double=%v round %d: %s has colour difference %d", n, double, r+1, id, d)
					}
				}
			}
			cycles := 1
			if double {
				cycles = 2
			}
			for i, a := range players {
				for _, b := range players[i+1:] {
					ab, ba := met[pair{a.ID, b.ID}], met[pair{b.ID, a.ID}]
					if !double && ab+ba != 1 || double && (ab != 1 || ba != 1) {
						t.Errorf("n=%d double=%v: %s-%s %d times, %s-%s %d times", n, double, a.ID, b.ID, ab, b.ID, a.ID, ba)
					}
				}
				if want := cycles * (n % 2); byes[a.ID] != want {
					t.Errorf("n=%d double=%v: %s has %d byes, want %d", n, double, a.ID, byes[a.ID], want)
				}
				if d := diff[a.ID]; d > 1 || d < -1 {
					t.Errorf("n=%d double=%v: %s ends with colour difference %d", n, double, a.ID, d)
				}
			}
		}
	}
}
