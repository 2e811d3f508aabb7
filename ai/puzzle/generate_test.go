package puzzle

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/game"
)

// generateSeeds is the number of seeds TestGenerateEveryPreset tries per
// board.
const generateSeeds = 20

// TestGenerateEveryPreset is the acceptance test: every preset
// board yields puzzles, and every puzzle has exactly the claimed property,
// by Check and by an independent recomputation with a fresh ai.Solver
// (and brute force where the board is small enough).
func TestGenerateEveryPreset(t *testing.T) {
	for _, name := range presets {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			r := mustRules(t, name)
			kinds := map[string]int{}
			for seed := range uint64(generateSeeds) {
				p, err := Generate(ctx, r, seed, Options{})
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if err := Check(ctx, p); err != nil {
					t.Errorf("seed %d: Check: %v", seed, err)
				}
				verify(t, p, DefaultMinPlies)
				if p.Source != SourceSelfPlay {
					t.Errorf("seed %d: source %q with no corpus", seed, p.Source)
				}
				kinds[fmt.Sprintf("only=%t plies=%d", p.OnlyMove, p.Plies)]++
			}
			t.Logf("%s: %v", name, kinds)
		})
	}
}

// verify recomputes what p claims without the package's code: the
// solver's analysis gives the winning moves and, where it measured them,
// their lengths; brute force gives both on small positions.
func verify(t *testing.T, p Puzzle, minPlies int) {
	t.Helper()
	ctx := context.Background()
	pos := p.Position
	switch {
	case !pos.Rules().Equal(p.Rules):
		t.Fatalf("%s: position under %s", p, pos.Rules())
	case pos.Over():
		t.Fatalf("%s: game over in %s", p, pos)
	case p.Side != pos.ToMove():
		t.Fatalf("%s: %s to move in %s", p, pos.ToMove(), pos)
	}
	for m := pos.Moves(); m != 0; m &= m - 1 {
		if pos.WinsAt(m.First()) {
			t.Errorf("%s %s: %s wins at once", p, pos, m.First())
		}
	}
	if pos.Ply() == 0 || slices.ContainsFunc(p.Rules.Openings(), func(o game.Position) bool { return o.Key() == pos.Key() }) {
		t.Errorf("%s %s: a start position", p, pos)
	}
	a, err := ai.NewSolver().Solve(ctx, pos)
	if err != nil {
		t.Fatal(err)
	}
	if a.Value != winOf(p.Side) {
		t.Fatalf("%s %s: solver value %s", p, pos, a.Value)
	}
	if !slices.Equal(a.Best, p.Winning) {
		t.Errorf("%s %s: solver's winning moves %s, puzzle's %s", p, pos, cells(a.Best), cells(p.Winning))
	}
	if p.OnlyMove != (len(a.Best) == 1) {
		t.Errorf("%s %s: OnlyMove %t with %d winning moves", p, pos, p.OnlyMove, len(a.Best))
	}
	if !p.OnlyMove && p.Plies < minPlies {
		t.Errorf("%s %s: neither only move nor deep", p, pos)
	}
	if len(p.Winning) == pos.Moves().Count() {
		t.Errorf("%s %s: every move wins", p, pos)
	}
	// The solver measures lengths within a budget of its own: every
	// length it gives is at least the fastest, and the fastest if it
	// measured them all.
	fastest, unknown := 0, 0
	for _, mv := range a.Moves {
		switch {
		case mv.Value != a.Value:
		case mv.Plies == 0:
			unknown++
		case mv.Plies == 1:
			t.Errorf("%s %s: %s wins at once by the solver", p, pos, mv.Cell)
		case fastest == 0 || mv.Plies < fastest:
			fastest = mv.Plies
		}
	}
	if unknown == 0 && fastest != p.Plies || fastest != 0 && fastest < p.Plies {
		t.Errorf("%s %s: solver's fastest win %d (%d lengths unknown), puzzle says %d", p, pos, fastest, unknown, p.Plies)
	}
	if pos.Empty().Count() <= 11 {
		winning, plies := brute{}.winning(pos)
		if !slices.Equal(winning, p.Winning) || plies != p.Plies {
			t.Errorf("%s %s: brute force gives %s in %d", p, pos, cells(winning), plies)
		}
	}
}

// gameTo returns a corpus game of the given moves from the empty board.
func gameTo(t testing.TB, r game.Rules, moves ...string) Game {
	t.Helper()
	return Game{Start: game.NewPosition(r), Moves: mustCells(t, r, moves...)}
}

// TestGenerateCorpus checks that the corpus comes first, that self-play
// steps in only when the corpus has no puzzle, and that corpus games
// under other rules or past an illegal move are not used.
func TestGenerateCorpus(t *testing.T) {
	ctx := context.Background()
	r := mustRules(t, "3x3k3")
	other := mustRules(t, "4x4k4")
	// After b3 a1, X wins in 5 with a3 only.
	known := gameTo(t, r, "b3", "a1")
	// Nothing after b2 a1 is a puzzle position (X cannot force a win in
	// the centre-corner opening, and the game is played well).
	drawn := gameTo(t, r, "b2", "a1", "c3", "a3", "a2", "c2", "b1", "b3", "c1")
	tests := []struct {
		name   string
		corpus []Game
		source string
		pos    string // the position expected, if known
	}{
		{name: "known puzzle", corpus: []Game{drawn, known, drawn}, source: SourceCorpus, pos: "O--/---/-X-"},
		{name: "no corpus", source: SourceSelfPlay},
		{name: "corpus without puzzles", corpus: []Game{drawn}, source: SourceSelfPlay},
		{name: "other rules", corpus: []Game{{Start: game.NewPosition(other), Moves: known.Moves}}, source: SourceSelfPlay},
		{name: "zero start", corpus: []Game{{Moves: known.Moves}}, source: SourceSelfPlay},
		{name: "illegal move", corpus: []Game{gameTo(t, r, "b3", "b3", "a1")}, source: SourceSelfPlay},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for seed := range uint64(5) {
				p, err := Generate(ctx, r, seed, Options{Corpus: tt.corpus})
				if err != nil {
					t.Fatal(err)
				}
				if p.Source != tt.source || tt.pos != "" && p.Position.String() != tt.pos {
					t.Fatalf("seed %d: %s from %s at %s, want from %s at %q", seed, p, p.Source, p.Position, tt.source, tt.pos)
				}
				if err := Check(ctx, p); err != nil {
					t.Error(err)
				}
			}
		})
	}

	// A corpus with many puzzle positions: every pick is one of them.
	var corpus []Game
	positions := map[string]bool{}
	for seed := range uint64(8) {
		p, err := Generate(ctx, r, 1000+seed, Options{})
		if err != nil {
			t.Fatal(err)
		}
		corpus = append(corpus, Game{Start: p.Position})
		positions[p.Position.String()] = true
	}
	picked := map[string]bool{}
	for seed := range uint64(20) {
		p, err := Generate(ctx, r, seed, Options{Corpus: corpus})
		if err != nil {
			t.Fatal(err)
		}
		if p.Source != SourceCorpus || !positions[p.Position.String()] {
			t.Fatalf("seed %d: %s from %s at %s, not a corpus puzzle", seed, p, p.Source, p.Position)
		}
		picked[p.Position.String()] = true
	}
	if len(picked) < 3 {
		t.Errorf("20 seeds picked only %d of %d corpus puzzles", len(picked), len(positions))
	}
}

// TestGenerateDeterministic checks that the same inputs give the same
// puzzle, with other calls in between, and that seeds vary the puzzles.
func TestGenerateDeterministic(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"3x3k3", "4x3xox", "4x4k4", "5x5k4", "5x5k5"} {
		t.Run(name, func(t *testing.T) {
			r := mustRules(t, name)
			opts := []Options{{}, {Corpus: []Game{gameTo(t, r, "b2", "a1", "c3", "c2")}}}
			seeds := uint64(4)
			if r.Size() > 16 {
				seeds = 3
			}
			first := map[string]string{}
			distinct := map[string]bool{}
			for seed := range seeds {
				for i, o := range opts {
					p, err := Generate(ctx, r, seed, o)
					if err != nil {
						t.Fatal(err)
					}
					first[fmt.Sprint(seed, i)] = describe(p)
					if i == 0 {
						distinct[p.Position.String()] = true
					}
				}
			}
			// Again, in the other order: no state is carried between calls.
			for seed := range seeds {
				for i := len(opts) - 1; i >= 0; i-- {
					p, err := Generate(ctx, r, seeds-1-seed, opts[i])
					if err != nil {
						t.Fatal(err)
					}
					if want := first[fmt.Sprint(seeds-1-seed, i)]; describe(p) != want {
						t.Fatalf("seed %d: %s, then %s", seeds-1-seed, want, describe(p))
					}
				}
			}
			if len(distinct) < 2 {
				t.Errorf("%d seeds gave %d distinct puzzles", seeds, len(distinct))
			}
		})
	}
}

// describe spells out every field of a puzzle.
func describe(p Puzzle) string {
	return fmt.Sprintf("%s %s %s %s %d %t %s", p.Rules, p.Position, p.Side, cells(p.Winning), p.Plies, p.OnlyMove, p.Source)
}

// TestGenerateOptions covers the settings and the failures.
func TestGenerateOptions(t *testing.T) {
	ctx := context.Background()
	r := mustRules(t, "3x3k3")

	// No self-play and no corpus: nothing to draw from.
	_, err := Generate(ctx, r, 1, Options{SelfPlay: -1})
	if !errors.Is(err, ErrNone) || !strings.Contains(err.Error(), "3x3k3") {
		t.Errorf("no sources: error %v, want ErrNone naming the rules", err)
	}
	// A node budget too small for any length: every candidate is
	// skipped, none guessed.
	_, err = Generate(ctx, r, 1, Options{SelfPlay: 20, MaxNodes: 1})
	if !errors.Is(err, ErrNone) || !strings.Contains(err.Error(), "3x3k3") || !strings.Contains(err.Error(), "20 self-play games") {
		t.Errorf("1 node: error %v, want ErrNone naming the rules", err)
	}
	// A higher threshold: only-move wins, or wins of 7 plies or more.
	for seed := range uint64(10) {
		p, err := Generate(ctx, mustRules(t, "4x4k4"), seed, Options{MinPlies: 7})
		if err != nil {
			t.Fatal(err)
		}
		verify(t, p, 7)
	}
	// Invalid rules and a finished context.
	if _, err := Generate(ctx, game.Rules{}, 1, Options{}); !errors.Is(err, game.ErrBadRules) {
		t.Errorf("zero rules: error %v", err)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Generate(done, r, 1, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v", err)
	}
	if _, err := Generate(done, r, 1, Options{Corpus: []Game{gameTo(t, r, "b3", "a1")}}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled, with a corpus: error %v", err)
	}
}

// TestSeed pins the seeds of a few inputs, so that a server's puzzle of
// the day never changes with a release, and checks that each input
// changes the seed.
func TestSeed(t *testing.T) {
	classic, big := mustRules(t, "3x3k3"), mustRules(t, "5x5k4")
	tests := []struct {
		guild, day string
		rules      game.Rules
		want       uint64
	}{
		{"123456789012345678", "2026-11-24", classic, 0x5a515fb7c8e7849f},
		{"123456789012345678", "2026-11-25", classic, 0x820ca4814247a03a},
		{"123456789012345678", "2026-11-24", big, 0xacd87e28cc2dfe90},
		{"876543210987654321", "2026-11-24", classic, 0x884bb03d32afb194},
		{"", "", classic, 0xed9679eeb63100d1},
	}
	seen := map[uint64]int{}
	for i, tt := range tests {
		got := Seed(tt.guild, tt.day, tt.rules)
		if got != tt.want {
			t.Errorf("Seed(%q, %q, %s) = %#x, want %#x", tt.guild, tt.day, tt.rules, got, tt.want)
		}
		if j, ok := seen[got]; ok {
			t.Errorf("inputs %d and %d share seed %#x", j, i, got)
		}
		seen[got] = i
	}
	// The same values by hand: python3 -c 'import hashlib, struct; h =
	// hashlib.sha256(); [h.update(struct.pack(">Q", len(f)) + f) for f in
	// (b"ttt-bot puzzle v1", b"", b"", b"3x3k3")]; print(h.hexdigest()[:16])'
	// prints ed9679eeb63100d1.

	// Field boundaries count: moving text from one field to the next
	// gives another seed.
	if Seed("ab", "c", classic) == Seed("a", "bc", classic) {
		t.Error("Seed ignores where one field ends")
	}
}
