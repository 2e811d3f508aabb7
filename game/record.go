package game

import (
	"fmt"
	"strings"
)

// Record is a whole game as one line of text: the rules, an optional
// starting position and the moves played from it, as in
//
//	3x3k3 b2 a1 c3 a3
//	4x4k3 X---/-O--/----/---- c3 d4
//
// The moves are cell names ("c2"). A Record is how a game is shared: the
// CLI's -position flags and the bot's position option accept one, and
// play on from its last position.
type Record struct {
	// Rules are the game's rules.
	Rules Rules
	// Start is the starting position (NewPosition(Rules) for the empty
	// board).
	Start Position
	// Moves are the cells played from Start, in order.
	Moves []Cell
}

// NewRecord checks that moves are legal from start, one after the other,
// and returns the record. It fails with ErrBadCell, ErrCellTaken or
// ErrGameOver, naming the move, when one is not.
func NewRecord(start Position, moves []Cell) (Record, error) {
	if !start.Rules().Valid() {
		return Record{}, fmt.Errorf("%w: no rules given", ErrBadRules)
	}
	p := start
	for i, c := range moves {
		next, err := p.Play(c)
		if err != nil {
			return Record{}, fmt.Errorf("move %d (%s): %w", i+1, c, err)
		}
		p = next
	}
	return Record{Rules: start.Rules(), Start: start, Moves: append([]Cell(nil), moves...)}, nil
}

// Position returns the position after the last move.
func (r Record) Position() Position {
	p := r.Start
	for _, c := range r.Moves {
		p = p.Apply(c)
	}
	return p
}

// String returns the record's line: the rules, the start position when it
// is not the empty board, and the moves, separated by spaces. ParseRecord
// reads it back.
func (r Record) String() string {
	var b strings.Builder
	b.WriteString(r.Rules.String())
	if r.Start.Ply() > 0 {
		b.WriteByte(' ')
		b.WriteString(r.Start.String())
	}
	for _, c := range r.Moves {
		b.WriteByte(' ')
		b.WriteString(c.String())
	}
	return b.String()
}

// LooksLikeRecord reports whether s starts with rules notation ("3x3k3 ..."),
// so it is meant as a record rather than as a bare position. It does not
// check the rest.
func LooksLikeRecord(s string) bool {
	f := strings.FieldsFunc(s, recordSep)
	if len(f) == 0 {
		return false
	}
	_, err := ParseRules(f[0])
	return err == nil
}

// recordSep splits a record's fields: spaces, tabs and commas.
func recordSep(r rune) bool { return r == ' ' || r == '\t' || r == ',' || r == '\n' || r == '\r' }

// ParseRecord reads a record line: rules notation, then optionally a start
// position in position notation (see ParsePosition), then the moves as
// cell names, separated by spaces or commas. It fails with ErrBadRules,
// ErrBadPosition, ErrBadCell, ErrCellTaken or ErrGameOver, saying which
// field was wrong and what is allowed.
func ParseRecord(s string) (Record, error) {
	const shape = `a game is its rules, an optional start position and the moves, like "3x3k3 b2 a1 c3" or "3x3k3 X--/-O-/--- c3"`
	f := strings.FieldsFunc(s, recordSep)
	if len(f) == 0 {
		return Record{}, fmt.Errorf("%w: empty; %s", ErrBadRules, shape)
	}
	rules, err := ParseRules(f[0])
	if err != nil {
		return Record{}, fmt.Errorf("%w; %s", err, shape)
	}
	start := NewPosition(rules)
	f = f[1:]
	if len(f) > 0 && isPositionField(f[0]) {
		if start, err = ParsePosition(rules, f[0]); err != nil {
			return Record{}, err
		}
		f = f[1:]
	}
	moves := make([]Cell, 0, len(f))
	for i, name := range f {
		c, err := rules.ParseCell(name)
		if err != nil {
			return Record{}, fmt.Errorf("move %d: %w", i+1, err)
		}
		moves = append(moves, c)
	}
	return NewRecord(start, moves)
}

// isPositionField reports whether a record field is a position rather
// than a move: longer than any cell name and made of position characters.
func isPositionField(s string) bool {
	if len(s) < 4 {
		return false
	}
	for i := range len(s) {
		switch s[i] {
		case 'X', 'x', 'O', 'o', '-', '.', '/':
		default:
			return false
		}
	}
	return true
}
