package render

import (
	"strings"

	"github.com/tttbot/ttt-bot/ai/review"
	"github.com/tttbot/ttt-bot/game"
)

// The data the bot hands the renderer besides stored records.

// HistoryPage is how many games a page of /ttt history lists.
const HistoryPage = 10

// AuditLogLines is how many entries /ttt-admin log shows.
const AuditLogLines = 25

// HintResult is what a hint says: the best moves and what they keep.
type HintResult struct {
	// Moves are the best moves, row-major.
	Moves []game.Cell
	// Names name the best moves instead of Moves where the board is not
	// game's (past 8x8): "h8".
	Names []string
	// Value is the game's value with them (XWins, OWins, Draw), or
	// game.Ongoing for an estimate.
	Value game.Result
	// Plies is the length of the win or loss with best play, when known.
	Plies int
}

// ReviewNotes are what a replay shows of a game's review: the verdicts,
// when someone has reviewed the game.
type ReviewNotes struct {
	// Exact says whether every value was solved.
	Exact bool
	// Verdicts has one verdict name per move.
	Verdicts []string
	// Best has, per move, the best moves of the position before it, as
	// cell names separated by spaces.
	Best []string
}

// NotesOf extracts the notes a replay shows from a review.
func NotesOf(rv *review.Review) ReviewNotes {
	n := ReviewNotes{Exact: rv.Exact}
	for _, m := range rv.Moves {
		n.Verdicts = append(n.Verdicts, m.Verdict.String())
		n.Best = append(n.Best, CellNames(m.Best))
	}
	return n
}

// CellNames joins cell names with spaces ("a1 b2").
func CellNames(cells []game.Cell) string {
	names := make([]string, len(cells))
	for i, c := range cells {
		names[i] = c.String()
	}
	return strings.Join(names, " ")
}
