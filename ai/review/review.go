package review

import (
	"context"
	"errors"
	"fmt"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/game"
)

// Errors returned by Review.
var (
	// ErrIllegal reports a move list that cannot be played from the start:
	// a cell off the board, a cell already taken or a move after the end.
	ErrIllegal = errors.New("review: illegal move")
	// ErrNoRules reports a start position without rules (the zero Position).
	ErrNoRules = errors.New("review: start position has no rules")
)

// illegalError names the move of a list that cannot be played; it wraps
// both ErrIllegal and the game's reason.
type illegalError struct {
	n    int
	cell game.Cell
	err  error
}

// Error names the move and says why it is illegal.
func (e *illegalError) Error() string {
	return fmt.Sprintf("review: move %d (%s) is illegal: %v", e.n, e.cell, e.err)
}

// Unwrap returns ErrIllegal and the game's error.
func (e *illegalError) Unwrap() []error { return []error{ErrIllegal, e.err} }

// Verdict is the judgement of one move.
type Verdict uint8

// The verdicts, from no judgement to the worst move.
const (
	// Unjudged is an estimated move whose estimates disagree too much to judge it.
	Unjudged Verdict = iota
	// Best kept the value and is among the best moves: the fastest win,
	// the slowest loss, or in a draw the one leaving most traps. A move
	// with no other choice is Best.
	Best
	// Good kept the value, but not by the quickest win or slowest loss.
	Good
	// Inaccuracy kept the draw but left the opponent fewer ways to go
	// wrong than the best drawing move (exact), or lost a little expected
	// score (estimated).
	Inaccuracy
	// Mistake threw away a draw: draw to loss.
	Mistake
	// MissedWin let a win go: win to draw.
	MissedWin
	// Blunder threw away a win: win to loss.
	Blunder
)

// String returns the verdict's name: "unjudged", "best", "good",
// "inaccuracy", "mistake", "missed-win" or "blunder".
func (v Verdict) String() string {
	switch v {
	case Unjudged:
		return "unjudged"
	case Best:
		return "best"
	case Good:
		return "good"
	case Inaccuracy:
		return "inaccuracy"
	case Mistake:
		return "mistake"
	case MissedWin:
		return "missed-win"
	case Blunder:
		return "blunder"
	}
	return fmt.Sprintf("verdict(%d)", uint8(v))
}

// KeepsValue reports whether the verdict says the move kept the
// position's value: Best, Good or Inaccuracy.
func (v Verdict) KeepsValue() bool { return v == Best || v == Good || v == Inaccuracy }

// Outcome is what a value means for one side.
type Outcome int8

// The outcomes for a side. Unknown is the outcome of an estimate, and is
// not ordered against the others.
const (
	Loss    Outcome = -1
	Draw    Outcome = 0
	Win     Outcome = 1
	Unknown Outcome = 2
)

// String returns "loss", "draw", "win" or "unknown".
func (o Outcome) String() string {
	switch o {
	case Loss:
		return "loss"
	case Draw:
		return "draw"
	case Win:
		return "win"
	}
	return "unknown"
}

// Value is what a position is worth.
type Value struct {
	// Result is XWins, OWins or Draw with perfect play when exact, and
	// game.Ongoing when only estimated.
	Result game.Result
	// Plies is the number of plies to the end under best play (fastest
	// win, slowest loss; a draw's free cells) when known, else 0. A
	// finished position has 0.
	Plies int
	// Score is X's expected score in [0, 1]: 1 when X wins, 0.5 for a
	// draw, 0 when O wins; exact values give exactly these.
	Score float64
	// Exact says whether the value is known for certain.
	Exact bool
}

// exactValue returns the exact value of result r in plies.
func exactValue(r game.Result, plies int) Value {
	v := Value{Result: r, Plies: plies, Exact: true, Score: 0.5}
	switch r {
	case game.XWins:
		v.Score = 1
	case game.OWins:
		v.Score = 0
	}
	return v
}

// For returns what the value means for side m: Win, Draw or Loss when
// exact, Unknown for an estimate or a side other than X and O.
func (v Value) For(m game.Mark) Outcome {
	if !v.Exact || (m != game.X && m != game.O) {
		return Unknown
	}
	switch v.Result {
	case game.Draw:
		return Draw
	case game.XWins:
		if m == game.X {
			return Win
		}
		return Loss
	case game.OWins:
		if m == game.O {
			return Win
		}
		return Loss
	}
	return Unknown
}

// scoreFor returns m's expected score.
func (v Value) scoreFor(m game.Mark) float64 {
	if m == game.O {
		return 1 - v.Score
	}
	return v.Score
}

// Move is the review of one move.
type Move struct {
	// Ply is the move's 1-based number in the game: the marks on the
	// board once it is played (from the empty board, its index plus one).
	Ply int
	// Cell is the move.
	Cell game.Cell
	// Mover is the side that played it.
	Mover game.Mark
	// Before is the value of the position before the move.
	Before Value
	// After is the value of the position after the move.
	After Value
	// Verdict is the judgement of the move.
	Verdict Verdict
	// Best are the best moves of the position before, in row-major order:
	// the moves that would have been judged Best.
	Best []game.Cell
	// Kept are the moves of the position before that keep its value, in
	// row-major order; nil unless the move is exact.
	Kept []game.Cell
	// Traps is the number of the opponent's replies that lose the draw
	// after the move, when it kept a draw and they were measured; else -1.
	Traps int
	// Exact says whether the verdict rests on perfect knowledge: the
	// position before was solved (and so Before and After are exact).
	Exact bool
}

// Summary counts one player's verdicts.
type Summary struct {
	// Moves is the number of moves the player made.
	Moves int
	// Kept is how many of them kept the value (Best, Good, Inaccuracy).
	Kept int
	// Accuracy is Kept/Moves, or 1 when Moves is 0.
	Accuracy float64
	// Count holds the number of moves per verdict.
	Count [Blunder + 1]int
}

// Review is the review of a game.
type Review struct {
	// Rules are the game's rules.
	Rules game.Rules
	// Start is the position the moves were played from.
	Start game.Position
	// Moves are the reviews of the moves, in order.
	Moves []Move
	// Values holds len(Moves)+1 values: the value before each move, then
	// the value after the last one (for a chart of the game).
	Values []Value
	// Exact says whether every value and every verdict is exact.
	Exact bool
	// Players sums up the verdicts of X ([0]) and O ([1]).
	Players [2]Summary
	// TurningPoint is the index in Moves of the first move that changed
	// the game's value (a Mistake, MissedWin or Blunder), or -1.
	TurningPoint int
	// Decided is the index in Moves of the move after which the value was
	// the final decisive result (an exact win for one side) and stayed so
	// to the end, or -1 for a drawn or undecided game. A game won from
	// the start and never let go is decided by its first move (0).
	Decided int
}

// Options are the settings of a Reviewer; the zero value asks for every
// default.
type Options struct {
	// MaxNodes is the solver's node budget per position before it falls
	// back to an estimate: 0 means DefaultMaxNodes, negative means no
	// limit.
	MaxNodes int64
	// ProofNodes is the prover's node budget per position the solver
	// did not finish (ai.Solver.ProveWithin: the win search and, for k of
	// 5 and more, the hold searches, which settle 6x6k5, 7x7k5 and 8x8k4
	// where the solver does not): 0 means DefaultProofNodes, negative
	// means never.
	ProofNodes int64
	// TrapNodes is the node budget per drawn position for measuring the
	// traps of its drawing moves on boards of more than 16 cells: 0 means
	// DefaultTrapNodes, negative means never. Smaller boards are always
	// measured.
	TrapNodes int64
	// Iterations is the number of MCTS iterations per estimated position:
	// 0 (or less) means DefaultIterations.
	Iterations int
	// Seed seeds the estimates' search; a review is deterministic for a
	// seed.
	Seed uint64
	// Value, if set, estimates X's expected score in a position (e.g. a
	// neural network's value head); where it answers ok it is used
	// instead of MCTS.
	Value func(game.Position) (float64, bool)
}

// Defaults used when the matching Options are zero.
const (
	// DefaultMaxNodes is the default solver budget per position. The
	// hardest positions of the bot's presets up to 5x5 (5x5k4 after one
	// or two marks off the centre) need about 2.2 million nodes from a
	// cold table, so their reviews are exact; a position that exhausts
	// the budget costs a few seconds.
	DefaultMaxNodes = 5_000_000
	// DefaultProofNodes is the default prover budget per position the
	// solver did not finish.
	DefaultProofNodes = 2_000_000
	// DefaultTrapNodes is the default budget per drawn position for
	// measuring traps on boards of more than 16 cells.
	DefaultTrapNodes = 50_000
	// DefaultIterations is the default number of MCTS iterations per
	// estimated position.
	DefaultIterations = 20_000
)

// smallBoard is the most cells a board may have for its traps to be
// measured without a budget.
const smallBoard = 16

// Reviewer reviews games. It holds a solver whose memory (its table, up
// to 6 MB for boards of up to 25 cells and 24 MB beyond) is reused from
// one review to the next, emptied but not freed; it is not safe for
// concurrent use.
type Reviewer struct {
	opts   Options
	solver *ai.Solver
}

// New returns a reviewer with the given options, zero ones taking their
// defaults.
func New(o Options) *Reviewer {
	if o.MaxNodes == 0 {
		o.MaxNodes = DefaultMaxNodes
	}
	if o.ProofNodes == 0 {
		o.ProofNodes = DefaultProofNodes
	}
	if o.TrapNodes == 0 {
		o.TrapNodes = DefaultTrapNodes
	}
	if o.Iterations <= 0 {
		o.Iterations = DefaultIterations
	}
	return &Reviewer{opts: o, solver: ai.NewSolver()}
}

// Review plays moves from start and judges each of them. It fails with
// ErrIllegal (naming the move) when a move cannot be played, ErrNoRules
// for a start without rules, and with ctx's error when ctx ends first.
func (r *Reviewer) Review(ctx context.Context, start game.Position, moves []game.Cell) (*Review, error) {
	if !start.Rules().Valid() {
		return nil, ErrNoRules
	}
	pos := make([]game.Position, len(moves)+1)
	pos[0] = start
	for i, c := range moves {
		next, err := pos[i].Play(c)
		if err != nil {
			return nil, &illegalError{n: i + 1, cell: c, err: err}
		}
		pos[i+1] = next
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("review: %w", err)
	}
	g := &gameReview{r: r, pos: pos, moves: moves}
	if err := g.run(ctx); err != nil {
		return nil, err
	}
	return g.result(), nil
}
