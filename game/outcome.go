package game

// Result is the state of a game: still going, won by one side, or drawn.
type Result uint8

// The results.
const (
	Ongoing Result = iota
	XWins
	OWins
	Draw
)

// String returns "ongoing", "X wins", "O wins" or "draw".
func (r Result) String() string {
	switch r {
	case XWins:
		return "X wins"
	case OWins:
		return "O wins"
	case Draw:
		return "draw"
	}
	return "ongoing"
}

// Outcome is the result of a position and, for a win, the cells that make
// it (every winning line the deciding move formed), for highlighting.
type Outcome struct {
	Result Result
	Cells  Bitboard
}

// Over reports whether the game is decided.
func (o Outcome) Over() bool { return o.Result != Ongoing }

// Winner returns X or O for a win and Empty otherwise.
func (o Outcome) Winner() Mark {
	switch o.Result {
	case XWins:
		return X
	case OWins:
		return O
	}
	return Empty
}

// winFor returns the winning result for side m.
func winFor(m Mark) Result {
	if m == X {
		return XWins
	}
	return OWins
}
