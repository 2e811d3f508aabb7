package ai

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
)

// mctsGames sets how many games each strength pairing plays; the default
// keeps go test -race fast, and -mcts.games=1000 gives the long match.
var mctsGames = flag.Int("mcts.games", 100, "games per side and opponent in the MCTS strength tests")

// mctsPosition parses rules and a position or fails the test.
func mctsPosition(t testing.TB, rules, pos string) game.Position {
	t.Helper()
	r, err := game.ParseRules(rules)
	if err != nil {
		t.Fatal(err)
	}
	if pos == "" {
		return game.NewPosition(r)
	}
	p, err := game.ParsePosition(r, pos)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// newTestMCTS builds an mcts player or fails the test.
func newTestMCTS(t testing.TB, o Options) *MCTS {
	t.Helper()
	m, err := NewMCTS(o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// mctsCells names a set of cells for messages.
func mctsCells(b game.Bitboard) string {
	s := ""
	for _, c := range b.Cells() {
		s += " " + c.String()
	}
	return "{" + s + " }"
}

func TestNewMCTSOptions(t *testing.T) {
	tests := []struct {
		name string
		o    Options
		err  error
	}{
		{"defaults", Options{}, nil},
		{"all set", Options{Iterations: 10, Budget: time.Second, Exploration: 0.7, Seed: 3}, nil},
		{"negative iterations", Options{Iterations: -1}, ErrBadOption},
		{"negative budget", Options{Budget: -time.Second}, ErrBadOption},
		{"negative exploration", Options{Exploration: -1}, ErrBadOption},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := NewMCTS(tt.o)
			if !errors.Is(err, tt.err) {
				t.Fatalf("NewMCTS(%+v) error = %v, want %v", tt.o, err, tt.err)
			}
			if err != nil {
				return
			}
			if m.iterations <= 0 || m.budget <= 0 || m.exploration <= 0 {
				t.Errorf("NewMCTS(%+v) left a zero setting: %d iterations, %s, c=%g", tt.o, m.iterations, m.budget, m.exploration)
			}
		})
	}
	if _, err := NewRegistry().New("mcts", Options{Iterations: -5}); !errors.Is(err, ErrBadOption) {
		t.Errorf("registry mcts with bad options: error = %v, want ErrBadOption", err)
	}
}

// TestMCTSTactics checks that wins in one are taken and forced blocks made,
// whatever the seed and however short the search.
func TestMCTSTactics(t *testing.T) {
	tests := []struct {
		name, rules, pos string
		want             string // the only acceptable cells, space-separated
	}{
		{"3x3 win row", "3x3k3", "XX-/OO-/---", "c1"},
		{"3x3 win diagonal", "3x3k3", "X-O/-XO/---", "c3"},
		{"3x3 O wins rather than blocks", "3x3k3", "XX-/OO-/X--", "c2"},
		{"3x3 block", "3x3k3", "XX-/O--/---", "c1"},
		{"3x3 block column", "3x3k3", "XO-/X--/---", "a3"},
		{"3x3 block as X", "3x3k3", "OO-/X--/--X", "c1"},
		{"5x5k4 win", "5x5k4", "XXX--/OOO--/-----/-----/-----", "d1"},
		{"5x5k4 win either end", "5x5k4", "-XXX-/OOO--/-----/-----/-----", "a1 e1"},
		{"5x5k4 block", "5x5k4", "XXX--/OO---/-----/-----/-----", "d1"},
		{"5x5k4 win diagonal", "5x5k4", "X--O-/-X---/--X-O/-----/O----", "d4"},
		{"5x5k4 block diagonal", "5x5k4", "X--O-/-X---/--X--/-----/O----", "d4"},
		{"4x3xox win", "4x3xox", "XO-/---/---/---", "c1"},
		{"4x3xox O wins", "4x3xox", "OX-/---/---/--X", "c1"},
		{"4x3xox block", "4x3xox", "XO-/X--/---/---", "c1"},
	}
	for _, tt := range tests {
		p := mctsPosition(t, tt.rules, tt.pos)
		want := game.Bitboard(0)
		for _, s := range strings.Fields(tt.want) {
			c, err := p.Rules().ParseCell(s)
			if err != nil {
				t.Fatal(err)
			}
			want = want.With(c)
		}
		for _, iters := range []int{1, 50, 5000} {
			for seed := range uint64(5) {
				t.Run(fmt.Sprintf("%s/%d/%d", tt.name, iters, seed), func(t *testing.T) {
					m := newTestMCTS(t, Options{Seed: seed, Iterations: iters, Budget: time.Hour})
					c, err := m.Move(context.Background(), p)
					if err != nil {
						t.Fatal(err)
					}
					if !want.Has(c) {
						t.Errorf("%s %s: played %s, want one of %s", tt.rules, tt.pos, c, mctsCells(want))
					}
				})
			}
		}
	}
}

// TestMCTSProves checks what the solver proves and that it stops at once.
func TestMCTSProves(t *testing.T) {
	tests := []struct {
		name, rules, pos string
		result           game.Result // Ongoing: not checked
		plies            int         // -1: not checked
		instant          bool        // proven before the first iteration
		want             string      // the right moves, "" for any
	}{
		{"win in one over slower wins", "3x3k3", "X-X/-O-/O--", game.XWins, 1, true, "b1"},
		{"lost to a fork", "3x3k3", "X-X/-O-/X-O", game.XWins, 2, true, ""},
		{"only the edges hold", "3x3k3", "X--/-O-/--X", game.Draw, -1, false, "b1 a2 c2 b3"},
		{"last cell draws", "3x3k3", "XOX/XOO/OX-", game.Draw, 1, true, "c3"},
		{"xox suicide avoided", "4x3xox", "X-X/---/---/-O-", game.Ongoing, -1, false, ""},
		{"corner against corner wins in five", "3x3k3", "X--/---/--O", game.XWins, 5, false, ""},
		{"5x5k4 open three wins at once", "5x5k4", "-----/-XXX-/-----/OO---/O----", game.XWins, 1, true, "a2 e2"},
		{"5x5k4 open two makes a fork", "5x5k4", "-----/--XX-/-----/O----/O----", game.XWins, 3, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mctsPosition(t, tt.rules, tt.pos)
			m := newTestMCTS(t, Options{Seed: 1, Iterations: 20000, Budget: time.Hour})
			c, err := m.Move(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			s := m.Stats()
			if tt.result != game.Ongoing && (s.Result != tt.result || tt.plies >= 0 && s.Plies != tt.plies) {
				t.Errorf("proved %s in %d plies, want %s in %d", s.Result, s.Plies, tt.result, tt.plies)
			}
			if tt.want != "" && !strings.Contains(" "+tt.want+" ", " "+c.String()+" ") {
				t.Errorf("played %s, want one of %s", c, tt.want)
			}
			if tt.instant && s.Iterations > 0 {
				t.Errorf("ran %d iterations on a position proven before the first", s.Iterations)
			}
			if q := p.Apply(c); q.Outcome().Winner() == p.ToMove().Other() {
				t.Errorf("played %s, which loses at once", c)
			}
		})
	}
}

func TestMCTSQuicker(t *testing.T) {
	tests := []struct {
		name, rules, pos string
		plies            int // the known win
		want             int // the fastest, 0 for none faster
	}{
		{"win in five", "3x3k3", "X--/---/--O", 9, 5},
		{"nothing faster", "3x3k3", "X--/---/--O", 5, 0},
		{"win in three", "5x5k4", "-----/--XX-/-----/O----/O----", 9, 3},
		{"drawn", "3x3k3", "X--/-O-/---", 9, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mctsPosition(t, tt.rules, tt.pos)
			c, n, ok := mctsQuicker(p, tt.plies)
			if !ok {
				n = 0
			}
			if n != tt.want {
				t.Fatalf("mctsQuicker found a win in %d (ok %v), want %d", n, ok, tt.want)
			}
			if ok {
				budget := 1 << 30
				if !mctsForced(p.Apply(c), p.ToMove(), n-1, &budget) {
					t.Errorf("%s does not force the win", c)
				}
			}
		})
	}
}

// TestMCTSReuse checks that the subtree of a descendant position is kept,
// with its visits, and that anything else starts afresh.
func TestMCTSReuse(t *testing.T) {
	ctx := context.Background()
	p := mctsPosition(t, "4x4k4", "")
	m := newTestMCTS(t, Options{Seed: 7, Iterations: 20000, Budget: time.Hour})
	c, err := m.Move(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if s := m.Stats(); s.Reused != 0 || s.Visits != s.Iterations {
		t.Fatalf("first move: %+v, want a fresh tree", s)
	}
	mctsCheckTree(t, m)
	// Reply with the opponent's most visited answer, so the subtree is big.
	r := m.nodes[0]
	kid := m.nodes[r.first]
	for i := r.first; i < r.first+int32(r.n); i++ {
		if m.nodes[i].move == c {
			kid = m.nodes[i]
		}
	}
	reply, most := game.Cell(0), uint32(0)
	for i := kid.first; i < kid.first+int32(kid.n); i++ {
		if m.nodes[i].visits > most {
			reply, most = m.nodes[i].move, m.nodes[i].visits
		}
	}
	if most == 0 {
		t.Fatal("the played move's node has no visited children")
	}
	next := p.Apply(c).Apply(reply)
	if _, err := m.Move(ctx, next); err != nil {
		t.Fatal(err)
	}
	s := m.Stats()
	if s.Reused != int(most) || s.Visits != s.Reused+s.Iterations {
		t.Errorf("after %s %s: reused %d visits (want %d), %d visits after %d iterations", c, reply, s.Reused, most, s.Visits, s.Iterations)
	}
	mctsCheckTree(t, m)

	// The same position again keeps everything.
	before := m.Stats().Visits
	if _, err := m.Move(ctx, next); err != nil {
		t.Fatal(err)
	}
	if s := m.Stats(); s.Reused != before {
		t.Errorf("same position again: reused %d, want %d", s.Reused, before)
	}
	mctsCheckTree(t, m)

	// A position that does not descend from the root, and other rules,
	// start afresh.
	sibling := (p.Moves() &^ game.Bitboard(0).With(c)).First()
	for _, q := range []game.Position{
		p.Apply(sibling),
		p,
		mctsPosition(t, "4x4k3", ""),
	} {
		if _, err := m.Move(ctx, q); err != nil {
			t.Fatal(err)
		}
		if s := m.Stats(); s.Reused != 0 {
			t.Errorf("%s %s: reused %d visits, want a fresh tree", q.Rules(), q, s.Reused)
		}
		mctsCheckTree(t, m)
	}
}

// mctsCheckTree checks the arena: children in range and after their parent,
// visits adding up, proofs consistent with the children.
func mctsCheckTree(t *testing.T, m *MCTS) {
	t.Helper()
	for i, nd := range m.nodes {
		if nd.n == 0 {
			continue
		}
		if int(nd.first) <= i || int(nd.first)+int(nd.n) > len(m.nodes) {
			t.Fatalf("node %d: children [%d, %d) out of order or range (%d nodes)", i, nd.first, int(nd.first)+int(nd.n), len(m.nodes))
		}
		var sum uint32
		lost := false
		for _, k := range m.nodes[nd.first : nd.first+int32(nd.n)] {
			sum += k.visits
			lost = lost || k.proof == mctsLoss
		}
		if sum > nd.visits {
			t.Fatalf("node %d: children have %d visits, more than its %d", i, sum, nd.visits)
		}
		if lost && nd.proof != mctsWin {
			t.Fatalf("node %d: a child is lost for its side to move but the node is not proven won", i)
		}
	}
}

// TestMCTSDeterministic checks that a seed fixes the game when iterations
// end the search.
func TestMCTSDeterministic(t *testing.T) {
	play := func(seed uint64) string {
		x := newTestMCTS(t, Options{Seed: seed, Iterations: 500, Budget: time.Hour})
		o := newTestMCTS(t, Options{Seed: seed + 1, Iterations: 500, Budget: time.Hour})
		return selfPlay(t, mctsPosition(t, "5x5k4", ""), x, o, nil)
	}
	a, b, c := play(1), play(1), play(2)
	if a != b {
		t.Errorf("seed 1 gave two games:\n%s\n%s", a, b)
	}
	if a == c {
		t.Errorf("seeds 1 and 2 gave the same game: %s", a)
	}
}

func TestMCTSErrorsAndDeadlines(t *testing.T) {
	m := newTestMCTS(t, Options{Seed: 1})
	over := mctsPosition(t, "3x3k3", "XXX/OO-/---")
	if _, err := m.Move(context.Background(), over); !errors.Is(err, ErrNoMoves) {
		t.Errorf("finished game: error = %v, want ErrNoMoves", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Move(ctx, mctsPosition(t, "3x3k3", "")); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: error = %v, want context.Canceled", err)
	}

	// A short deadline on the biggest board: a legal move, promptly.
	p := mctsPosition(t, "8x8k5", "")
	for range 3 {
		m := newTestMCTS(t, Options{Seed: 2, Iterations: 1 << 30, Budget: time.Hour})
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		start := time.Now()
		c, err := m.Move(ctx, p)
		took := time.Since(start)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if !p.Moves().Has(c) {
			t.Errorf("8x8k5: illegal move %s", c)
		}
		if took > 100*time.Millisecond {
			t.Errorf("8x8k5 with a 20ms deadline took %s", took)
		}
		if m.Stats().Iterations == 0 {
			t.Errorf("8x8k5: no iterations before the deadline")
		}
		p = p.Apply(c)
	}

	// The time budget alone ends the search too.
	m = newTestMCTS(t, Options{Seed: 3, Iterations: 1 << 30, Budget: 20 * time.Millisecond})
	start := time.Now()
	if _, err := m.Move(context.Background(), mctsPosition(t, "8x8k5", "")); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 100*time.Millisecond {
		t.Errorf("20ms budget took %s", took)
	}
}

// TestMCTSBudgetClock checks the time budget against an injected clock
// that moves a millisecond at each look: the search must stop at the
// first look past the budget, whatever the machine's speed.
func TestMCTSBudgetClock(t *testing.T) {
	tests := []struct {
		budget time.Duration
		want   int // iterations: mctsCheckEvery per look before the budget
	}{
		{time.Millisecond, 1 * mctsCheckEvery},
		{10 * time.Millisecond, 10 * mctsCheckEvery},
		{50 * time.Millisecond, 50 * mctsCheckEvery},
	}
	for _, tt := range tests {
		t.Run(tt.budget.String(), func(t *testing.T) {
			m := newTestMCTS(t, Options{Seed: 1, Iterations: 1 << 30, Budget: tt.budget})
			clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			m.now = func() time.Time {
				clock = clock.Add(time.Millisecond)
				return clock
			}
			if _, err := m.Move(context.Background(), mctsPosition(t, "8x8k5", "")); err != nil {
				t.Fatal(err)
			}
			if got := m.Stats().Iterations; got != tt.want {
				t.Errorf("budget %s: %d iterations, want %d", tt.budget, got, tt.want)
			}
		})
	}
}

// TestMCTSFullTree checks that a search whose tree fills up goes on with
// rollouts, keeps its tactics and never outgrows the cap.
func TestMCTSFullTree(t *testing.T) {
	const limit = 2000
	p := mctsPosition(t, "5x5k4", "XXX--/OO---/-----/-----/-----")
	for seed := range uint64(3) {
		m := newTestMCTS(t, Options{Seed: seed, Iterations: 20000, Budget: time.Hour})
		m.limit = limit
		c, err := m.Move(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if c.String() != "d1" {
			t.Errorf("seed %d: played %s, want the block d1", seed, c)
		}
		s := m.Stats()
		if s.Nodes > limit || s.Iterations != 20000 {
			t.Errorf("seed %d: %d nodes (cap %d) after %d iterations", seed, s.Nodes, limit, s.Iterations)
		}
		mctsCheckTree(t, m)
	}
}

// TestMCTSDefaultsAreQuick checks the default settings against the
// one-second reply limit on every preset up to 5x5: on the first three
// moves (the slowest of a game) normally, and over whole games of mcts
// against itself (games/100 a preset) with -mcts.games above 100.
func TestMCTSDefaultsAreQuick(t *testing.T) {
	games, plies := 1, 3
	if *mctsGames > 100 {
		games, plies = *mctsGames/100, 64
	}
	for _, rules := range []string{"3x3k3", "4x4k3", "4x4k4", "5x5k4", "5x5k5", "4x3xox"} {
		t.Run(rules, func(t *testing.T) {
			var slowest, total time.Duration
			moves := 0
			for g := range games {
				p := mctsPosition(t, rules, "")
				ms := [2]*MCTS{newTestMCTS(t, Options{Seed: uint64(2 * g)}), newTestMCTS(t, Options{Seed: uint64(2*g + 1)})}
				for range plies {
					if p.Over() {
						break
					}
					m := ms[p.Ply()%2]
					start := time.Now()
					c, err := m.Move(context.Background(), p)
					if err != nil {
						t.Fatal(err)
					}
					took := time.Since(start)
					if took > time.Second {
						t.Errorf("%s move %d took %s", rules, p.Ply()+1, took)
					}
					slowest, total, moves = max(slowest, took), total+took, moves+1
					p = p.Apply(c)
				}
			}
			t.Logf("%s: %d games, %d moves, slowest %s, mean %s", rules, games, moves,
				slowest.Round(time.Millisecond), (total / time.Duration(moves)).Round(time.Millisecond))
		})
	}
}

// mctsOracle plays perfectly on small boards: it picks at random among the
// moves of best game-theoretic value, found by negamax with a table.
type mctsOracle struct {
	rng  *rand.Rand
	memo map[game.Key]int8
}

func newMCTSOracle(seed uint64) *mctsOracle {
	return &mctsOracle{rng: rand.New(rand.NewPCG(seed, 99)), memo: map[game.Key]int8{}}
}

// value is +1, 0 or -1 for the side to move.
func (o *mctsOracle) value(p game.Position) int8 {
	if p.Over() {
		switch p.Outcome().Winner() {
		case p.ToMove():
			return 1
		case game.Empty:
			return 0
		}
		return -1
	}
	if v, ok := o.memo[p.Key()]; ok {
		return v
	}
	best := int8(-2)
	for m := p.Moves(); m != 0; m &= m - 1 {
		best = max(best, -o.value(p.Apply(m.First())))
	}
	o.memo[p.Key()] = best
	return best
}

func (o *mctsOracle) Move(ctx context.Context, p game.Position) (game.Cell, error) {
	if p.Moves() == 0 {
		return 0, ErrNoMoves
	}
	best, set := int8(-2), game.Bitboard(0)
	for m := p.Moves(); m != 0; m &= m - 1 {
		switch v := -o.value(p.Apply(m.First())); {
		case v > best:
			best, set = v, game.Bitboard(0).With(m.First())
		case v == best:
			set = set.With(m.First())
		}
	}
	return pick(o.rng, set), nil
}

// mctsMatch plays games between mcts (with options o) and an opponent,
// half with mcts as X, and returns mcts's wins, draws and losses on each
// side, and the slowest mcts move.
func mctsMatch(t testing.TB, rules string, o Options, opp func(seed uint64) Player, games int) (x, oo [3]int, slowest time.Duration) {
	t.Helper()
	ctx := context.Background()
	for g := range 2 * games {
		mo := o
		mo.Seed = o.Seed + uint64(g)
		m := newTestMCTS(t, mo)
		other := opp(uint64(g) + 1000)
		players := [2]Player{m, other}
		side := game.X
		if g%2 == 1 {
			players[0], players[1], side = other, m, game.O
		}
		p := mctsPosition(t, rules, "")
		for !p.Over() {
			pl := players[0]
			if p.ToMove() == game.O {
				pl = players[1]
			}
			start := time.Now()
			c, err := pl.Move(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if pl == Player(m) {
				slowest = max(slowest, time.Since(start))
			}
			if p, err = p.Play(c); err != nil {
				t.Fatal(err)
			}
		}
		tally := &x
		if side == game.O {
			tally = &oo
		}
		switch p.Outcome().Winner() {
		case side:
			tally[0]++
		case game.Empty:
			tally[1]++
		default:
			tally[2]++
		}
	}
	return x, oo, slowest
}

// TestMCTSStrength3x3 checks that mcts never loses tic-tac-toe, as X or as
// O, against random, easy and perfect play. -mcts.games sets the number of
// games per side (1,000 with the default settings is the long check).
func TestMCTSStrength3x3(t *testing.T) {
	o := Options{Iterations: 3000, Budget: time.Hour}
	if *mctsGames > 100 {
		o = Options{} // the long run checks the real defaults
	}
	reg := NewRegistry()
	opponents := []struct {
		name string
		new  func(seed uint64) Player
	}{
		{"random", func(seed uint64) Player { return NewRandom(Options{Seed: seed}) }},
		{"easy", func(seed uint64) Player { return NewEasy(Options{Seed: seed}) }},
		{"oracle", func(seed uint64) Player { return newMCTSOracle(seed) }},
		{"perfect", func(seed uint64) Player {
			p, err := reg.New("perfect", Options{Seed: seed})
			if err != nil {
				return nil
			}
			return p
		}},
	}
	for _, opp := range opponents {
		t.Run(opp.name, func(t *testing.T) {
			if opp.new(0) == nil {
				t.Skipf("level %q is not registered yet; rerun once it is", opp.name)
			}
			t.Parallel()
			x, oo, slowest := mctsMatch(t, "3x3k3", o, opp.new, *mctsGames)
			t.Logf("vs %s, %d games a side: as X %d won %d drawn %d lost, as O %d won %d drawn %d lost; slowest move %s",
				opp.name, *mctsGames, x[0], x[1], x[2], oo[0], oo[1], oo[2], slowest)
			if x[2] > 0 || oo[2] > 0 {
				t.Errorf("vs %s: lost %d games as X and %d as O", opp.name, x[2], oo[2])
			}
		})
	}
}

// TestMCTSBeatsRandomOnBiggerBoards checks mcts wins most games on the
// 5x5 and X-O-X presets against random play.
func TestMCTSBeatsRandomOnBiggerBoards(t *testing.T) {
	for _, rules := range []string{"4x4k4", "5x5k4", "4x3xox"} {
		t.Run(rules, func(t *testing.T) {
			t.Parallel()
			x, oo, _ := mctsMatch(t, rules, Options{Iterations: 1000, Budget: time.Hour},
				func(seed uint64) Player { return NewRandom(Options{Seed: seed}) }, 10)
			if x[2]+oo[2] > 0 {
				t.Errorf("%s vs random: lost %d as X and %d as O", rules, x[2], oo[2])
			}
		})
	}
}

func TestMCTSSearchDoesNotAllocate(t *testing.T) {
	m := newTestMCTS(t, Options{Seed: 1})
	p := mctsPosition(t, "5x5k4", "")
	far := time.Now().Add(time.Hour)
	run := func() {
		m.tree = false
		m.reroot(p)
		m.prepare()
		m.search(context.Background(), far, 2000)
	}
	run() // grows the arena once
	if n := testing.AllocsPerRun(5, run); n != 0 {
		t.Errorf("a search on a warm arena made %.1f allocations, want 0", n)
	}
}

func ExampleNewMCTS() {
	r, _ := game.ParseRules("3x3k3")
	p, _ := game.ParsePosition(r, "XX-/OO-/---") // X to move
	m, err := NewMCTS(Options{Seed: 1, Iterations: 10_000})
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := m.Move(context.Background(), p)
	if err != nil {
		fmt.Println(err)
		return
	}
	s := m.Stats()
	fmt.Println(c, s.Result, "in", s.Plies)
	// Output: c1 X wins in 1
}

// TestMCTSRolloutTactics checks the threat-aware playouts: a side with a
// win at once always takes it, a side facing two wins at once has lost,
// and a single threat is always blocked.
func TestMCTSRolloutTactics(t *testing.T) {
	tests := []struct {
		name, rules, pos string
		want             game.Mark // the winner of every playout, when never is Empty
		never            game.Mark // a side no playout may let win (Empty: check want)
	}{
		{"win at once", "5x5k4", "XXX--/OOO--/-----/-----/-----", game.X, game.Empty},
		{"two threats against", "5x5k4", "-OOO-/XX---/X----/-----/-----", game.O, game.Empty},
		{"the block holds", "3x3k3", "XX-/-O-/---", game.Empty, game.X},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mctsPosition(t, tt.rules, tt.pos)
			m := newTestMCTS(t, Options{Seed: 1})
			for range 200 {
				w := m.rollout(p)
				if tt.never != game.Empty && w == tt.never {
					t.Fatalf("a playout from %s gave %s the game", p, w)
				}
				if tt.never == game.Empty && w != tt.want {
					t.Fatalf("a playout from %s gave %v, want %s", p, w, tt.want)
				}
			}
		})
	}
}

// TestMCTSKeptRootProvenUnexpanded checks that a kept node proven won
// before it was expanded (a child left with a win in one) still yields
// the winning move.
func TestMCTSKeptRootProvenUnexpanded(t *testing.T) {
	p := mctsPosition(t, "5x5k4", "XXX--/OOO--/-----/-----/-----")
	m := newTestMCTS(t, Options{Seed: 1, Iterations: 100, Budget: time.Hour})
	m.nodes = append(m.nodes[:0], mctsNode{proof: mctsWin, depth: 1})
	m.root, m.tree = p, true
	c, err := m.Move(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if c.String() != "d1" {
		t.Errorf("played %s, want the win d1", c)
	}
	if s := m.Stats(); s.Result != game.XWins || s.Plies != 1 {
		t.Errorf("stats %+v, want X wins in 1", s)
	}
}

// selfPlay plays x (as X) and o (as O) from p to the end, calling after
// (if not nil) with the player that just moved, and returns the game as
// its moves and result; an illegal move fails t.
func selfPlay(t *testing.T, p game.Position, x, o Player, after func(Player)) string {
	t.Helper()
	out := ""
	for !p.Over() {
		pl := x
		if p.ToMove() == game.O {
			pl = o
		}
		c, err := pl.Move(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if after != nil {
			after(pl)
		}
		out += c.String() + " "
		if p, err = p.Play(c); err != nil {
			t.Fatal(err)
		}
	}
	return out + p.Outcome().Result.String()
}
