package puzzle

import (
	"testing"

	"github.com/tttbot/ttt-bot/game"
)

// presets are the boards the Discord bot offers.
var presets = []string{"3x3k3", "4x3xox", "4x4k3", "4x4k4", "5x5k4", "5x5k5"}

// mustRules parses rules notation or fails the test.
func mustRules(t testing.TB, s string) game.Rules {
	t.Helper()
	r, err := game.ParseRules(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// mustPosition parses a position or fails the test.
func mustPosition(t testing.TB, rules, s string) game.Position {
	t.Helper()
	p, err := game.ParsePosition(mustRules(t, rules), s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// mustCells parses cell names or fails the test.
func mustCells(t testing.TB, r game.Rules, names ...string) []game.Cell {
	t.Helper()
	out := make([]game.Cell, 0, len(names))
	for _, n := range names {
		c, err := r.ParseCell(n)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// brute is a plain memoised negamax over game.Position, independent of
// both ai.Solver and mate: for the side to move, the value (1 win, 0 draw,
// -1 loss) and the plies to the end under best play (fastest win, slowest
// loss).
type brute map[game.Key][2]int

func (b brute) solve(p game.Position) (int, int) {
	if v, ok := b[p.Key()]; ok {
		return v[0], v[1]
	}
	if p.Over() {
		switch p.Outcome().Winner() {
		case game.Empty:
			return 0, 0
		case p.ToMove():
			return 1, 0 // X-O-X: the side that just moved lost
		}
		return -1, 0
	}
	best, plies := -2, 0
	for m := p.Moves(); m != 0; m &= m - 1 {
		v, n := b.solve(p.Apply(m.First()))
		v, n = -v, n+1
		if v > best || v == best && v > 0 && n < plies || v == best && v < 0 && n > plies {
			best, plies = v, n
		}
	}
	b[p.Key()] = [2]int{best, plies}
	return best, plies
}

// winning returns, for a position whose side to move wins, the winning
// moves in row-major order and the length of the fastest win.
func (b brute) winning(p game.Position) ([]game.Cell, int) {
	var out []game.Cell
	fastest := 0
	for m := p.Moves(); m != 0; m &= m - 1 {
		v, n := b.solve(p.Apply(m.First()))
		if -v == 1 {
			out = append(out, m.First())
			if fastest == 0 || n+1 < fastest {
				fastest = n + 1
			}
		}
	}
	return out, fastest
}

// reachable calls visit once for every position reachable from p.
func reachable(p game.Position, seen map[game.Key]bool, visit func(game.Position)) {
	if seen[p.Key()] {
		return
	}
	seen[p.Key()] = true
	visit(p)
	for m := p.Moves(); m != 0; m &= m - 1 {
		reachable(p.Apply(m.First()), seen, visit)
	}
}
