package wide

import (
	"fmt"
	"strings"

	"github.com/tttbot/ttt-bot/game"
)

// Record is a whole game as one line: the rules, an optional starting
// position and the moves, as in "15x15k5 h8 i9 h9" or
// "9x9k5 ---------/.../--------- e5".
type Record struct {
	Rules Rules
	Start Position
	Moves []Cell
}

// NewRecord checks that moves are legal from start, one after the other.
// It fails naming the first move that is not.
func NewRecord(start Position, moves []Cell) (Record, error) {
	if !start.rules.Valid() {
		return Record{}, fmt.Errorf("%w: no rules given", game.ErrBadRules)
	}
	p := start
	for i, c := range moves {
		next, err := p.Play(c)
		if err != nil {
			return Record{}, fmt.Errorf("move %d (%s): %w", i+1, c, err)
		}
		p = next
	}
	return Record{Rules: start.rules, Start: start, Moves: append([]Cell(nil), moves...)}, nil
}

// Position returns the position after the last move.
func (r Record) Position() Position {
	p := r.Start
	for _, c := range r.Moves {
		p = p.Apply(c)
	}
	return p
}

// String returns the record's line, which ParseRecord reads back.
func (r Record) String() string {
	f := []string{r.Rules.String()}
	if r.Start.Ply() > 0 {
		f = append(f, r.Start.String())
	}
	for _, c := range r.Moves {
		f = append(f, c.String())
	}
	return strings.Join(f, " ")
}

// ParseRecord reads a record line: rules, then optionally a position (a
// field with "/"), then cell names, separated by spaces or commas.
func ParseRecord(s string) (Record, error) {
	f := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' || r == '\n' || r == '\r' })
	if len(f) == 0 {
		return Record{}, fmt.Errorf("%w: empty game; write the rules then the moves, like \"15x15k5 h8 i9\"", game.ErrBadRules)
	}
	r, err := ParseRules(f[0])
	if err != nil {
		return Record{}, err
	}
	start, rest := NewPosition(r), f[1:]
	if len(rest) > 0 && strings.Contains(rest[0], "/") {
		if start, err = ParsePosition(r, rest[0]); err != nil {
			return Record{}, err
		}
		rest = rest[1:]
	}
	moves := make([]Cell, 0, len(rest))
	for i, m := range rest {
		c, err := r.ParseCell(m)
		if err != nil {
			return Record{}, fmt.Errorf("move %d: %w", i+1, err)
		}
		moves = append(moves, c)
	}
	return NewRecord(start, moves)
}
