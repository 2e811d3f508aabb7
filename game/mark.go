package game

// Mark is what a cell holds, and names the two sides: X moves first.
type Mark uint8

// The marks. Empty is the content of a free cell and "nobody" as a winner.
const (
	Empty Mark = iota
	X
	O
)

// Other returns the opposing side: O for X, X for O, Empty for Empty.
func (m Mark) Other() Mark {
	switch m {
	case X:
		return O
	case O:
		return X
	}
	return Empty
}

// String returns "X", "O" or "-".
func (m Mark) String() string {
	switch m {
	case X:
		return "X"
	case O:
		return "O"
	}
	return "-"
}
