package tournament

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// brief prints a standing compactly: rank, ID, points, Buchholz,
// Sonneborn-Berger, W/D/L, byes, X/O.
func brief(s Standing) string {
	return fmt.Sprintf("%d %s %g %g %g %d/%d/%d b%d %dX%dO", s.Rank, s.Player.ID, s.Points, s.Buchholz,
		s.SonnebornBerger, s.Wins, s.Draws, s.Losses, s.Byes, s.X, s.O)
}

func TestStandings(t *testing.T) {
	tests := []struct {
		name    string
		players []Player
		games   []Game
		want    []string
	}{
		{
			// A Swiss of 5 with a bye each round. Points: a 2½, b 2, and
			// c, d, e 1½ each. Buchholz (a bye adds nothing to one's own,
			// but its point counts for one's opponents): a = b 2 + e 1½
			// + c 1½ = 5, b = a 2½ + d 1½ + e 1½ = 5½, c = d 1½ + a 2½ =
			// 4, d = c 1½ + b 2 = 3½, e = a 2½ + b 2 = 4½: so e, c, d.
			// Sonneborn-Berger: a = b 2 + e ¾ + c 1½ = 4¼, b = d 1½ + e
			// 1½ = 3, c = d ¾, d = c ¾, e = a 1¼.
			name:    "Buchholz with byes",
			players: []Player{{ID: "a", Rating: 1500}, {ID: "b", Rating: 1400}, {ID: "c", Rating: 1300}, {ID: "d", Rating: 1200}, {ID: "e", Rating: 1100}},
			games: rec(
				[]string{"a-b 1-0", "c-d ½", "e bye"},
				[]string{"e-a ½", "d-b 0-1", "c bye"},
				[]string{"c-a 0-1", "b-e 1-0", "d bye"},
			),
			want: []string{
				"1 a 2.5 5 4.25 2/1/0 b0 1X2O",
				"2 b 2 5.5 3 2/0/1 b0 1X2O",
				"3 e 1.5 4.5 1.25 0/1/1 b1 1X1O",
				"4 c 1.5 4 0.75 0/1/1 b1 2X0O",
				"5 d 1.5 3.5 0.75 0/1/1 b1 1X1O",
			},
		},
		{
			// A round robin of 4: a and b on 2, c and d on 1, and in a
			// round robin everyone's Buchholz is the total less their
			// own. Sonneborn-Berger splits both ties against the
			// ratings: a beat b and c (2 + 1 = 3) and b beat c and d (1
			// + 1 = 2); d beat a (2) and c beat d (1).
			name:    "Sonneborn-Berger over rating",
			players: []Player{{ID: "a", Rating: 1000}, {ID: "b", Rating: 2000}, {ID: "c", Rating: 2000}, {ID: "d", Rating: 1000}},
			games: rec(
				[]string{"a-b 1-0", "c-d 1-0"},
				[]string{"c-a 0-1", "b-d 1-0"},
				[]string{"d-a 1-0", "b-c 1-0"},
			),
			want: []string{
				"1 a 2 4 3 2/0/1 b0 1X2O",
				"2 b 2 4 2 2/0/1 b0 2X1O",
				"3 d 1 5 2 1/0/2 b0 1X2O",
				"4 c 1 5 1 1/0/2 b0 2X1O",
			},
		},
		{
			// All drawn: everything ties but rating, then ID.
			name:    "rating, then ID",
			players: []Player{{ID: "z", Rating: 1200}, {ID: "y", Rating: 1000}, {ID: "x", Rating: 1000}},
			games:   rec([]string{"z-y ½", "x bye"}, []string{"y-x ½", "z bye"}, []string{"x-z ½", "y bye"}),
			want: []string{
				"1 z 2 4 2 0/2/0 b1 1X1O",
				"2 x 2 4 2 0/2/0 b1 1X1O",
				"3 y 2 4 2 0/2/0 b1 1X1O",
			},
		},
		{
			// Pending games do not count; withdrawn players stay listed.
			name:    "pending and withdrawn",
			players: []Player{{ID: "a"}, {ID: "b", Withdrawn: true}, {ID: "c"}},
			games:   append(rec([]string{"a-b 0-1", "c bye"}), Game{Round: 2, X: "c", O: "a"}),
			want: []string{
				"1 b 1 0 0 1/0/0 b0 0X1O",
				"2 c 1 0 0 0/0/0 b1 0X0O",
				"3 a 0 1 0 0/0/1 b0 1X0O",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table, err := Standings(tt.players, tt.games)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range table {
				got = append(got, brief(s))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("standings:\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestStandingsErrors(t *testing.T) {
	for _, tt := range []struct {
		name    string
		players []Player
		games   []Game
		want    error
	}{
		{"duplicate", []Player{{ID: "a"}, {ID: "a"}}, nil, ErrDuplicatePlayer},
		{"unknown player", field(2), []Game{{Round: 1, X: "p01", O: "zz", Result: XWins}}, ErrBadGame},
		{"bye with an opponent", field(2), []Game{{Round: 1, X: "p01", O: "p02", Result: Bye}}, ErrBadGame},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Standings(tt.players, tt.games); !errors.Is(err, tt.want) {
				t.Errorf("Standings = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestStandingsRoundRobin checks a complete round robin: the points add up
// to one a game, and every player's Buchholz is the total (byes included)
// less their own.
func TestStandingsRoundRobin(t *testing.T) {
	rng := newRand(4)
	for _, n := range []int{2, 5, 8, 13} {
		players := field(n)
		rounds, err := Schedule(players, false)
		if err != nil {
			t.Fatal(err)
		}
		var games []Game
		for _, r := range rounds {
			games = append(games, play(r, rng)...)
		}
		table, err := Standings(players, games)
		if err != nil {
			t.Fatal(err)
		}
		total := 0.0
		for _, s := range table {
			total += s.Points - float64(s.Byes)
		}
		if want := float64(n * (n - 1) / 2); total != want {
			t.Errorf("n=%d: %v points from games, want %v", n, total, want)
		}
		for _, s := range table {
			if want := total + float64(n%2*n) - s.Points; s.Buchholz != want {
				t.Errorf("n=%d: %s Buchholz %v, want %v", n, s.Player.ID, s.Buchholz, want)
			}
			if s.Wins+s.Draws+s.Losses != n-1 {
				t.Errorf("n=%d: %s played %d games", n, s.Player.ID, s.Wins+s.Draws+s.Losses)
			}
		}
	}
}
