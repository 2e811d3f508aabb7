package tournament

import (
	"fmt"
	"testing"
)

func TestFormatRounds(t *testing.T) {
	tests := []struct {
		f      Format
		n      int
		double bool
		want   int
	}{
		{Swiss, 0, false, 0},
		{Swiss, 1, false, 0},
		{Swiss, 2, false, 1},
		{Swiss, 3, false, 2},
		{Swiss, 4, false, 2},
		{Swiss, 5, false, 3},
		{Swiss, 9, false, 4},
		{Swiss, 64, false, 6},
		{Swiss, 65, true, 7},
		{RoundRobin, 1, false, 0},
		{RoundRobin, 2, false, 1},
		{RoundRobin, 4, false, 3},
		{RoundRobin, 5, false, 5},
		{RoundRobin, 4, true, 6},
		{RoundRobin, 5, true, 10},
		{SingleElimination, 2, false, 1},
		{SingleElimination, 6, false, 3},
		{SingleElimination, 8, false, 3},
		{SingleElimination, 9, false, 4},
		{Format(0), 8, false, 0},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%v/%d/%v", tt.f, tt.n, tt.double), func(t *testing.T) {
			if got := tt.f.Rounds(tt.n, tt.double); got != tt.want {
				t.Errorf("%v.Rounds(%d, %v) = %d, want %d", tt.f, tt.n, tt.double, got, tt.want)
			}
		})
	}
}

func TestStrings(t *testing.T) {
	tests := []struct {
		v    fmt.Stringer
		want string
	}{
		{Swiss, "swiss"},
		{SingleElimination, "single-elimination"},
		{RoundRobin, "round-robin"},
		{Format(9), "format(9)"},
		{Pending, "pending"},
		{XWins, "1-0"},
		{OWins, "0-1"},
		{Draw, "½-½"},
		{Bye, "bye"},
		{Result(7), "result(7)"},
		{Game{Round: 2, X: "alice", O: "bob", Result: XWins}, "r2 alice-bob 1-0"},
		{Game{Round: 3, X: "carol", Result: Bye}, "r3 carol bye"},
		{Game{Round: 1, X: "a", O: "b", Result: OWins, Coin: true}, "r1 a-b 0-1 (coin)"},
	}
	for _, tt := range tests {
		if got := tt.v.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}
