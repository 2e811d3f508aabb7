package proof

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/tttbot/ttt-bot/game"
)

// Version is the format version this package writes and reads.
const Version = 1

// ErrFormat is wrapped by every error about a certificate's text.
var ErrFormat = errors.New("proof: bad certificate")

// ErrInvalid is wrapped by every error about a certificate that reads well
// but does not prove what it claims.
var ErrInvalid = errors.New("proof: certificate refused")

// Kind is what a proof shows.
type Kind uint8

// The kinds of proof.
const (
	Win  Kind = iota + 1 // the side wins
	Hold                 // the other side cannot win
)

// String returns "win" or "hold".
func (k Kind) String() string {
	switch k {
	case Win:
		return "win"
	case Hold:
		return "hold"
	}
	return "invalid"
}

// Proof is one proof of a certificate: for a Win, that Side wins; for a
// Hold, that the side other than Side cannot win. Moves and Pairs are keyed
// by canonical positions (see the package comment).
type Proof struct {
	Kind  Kind
	Side  game.Mark // the side proving: the winner, or the defender
	Moves map[game.Key]game.Cell
	// Pairs holds pairings, each a flat list of cells in which cells 2i
	// and 2i+1 form a pair. Hold proofs only.
	Pairs map[game.Key][]game.Cell
}

// NewProof returns an empty proof of the kind for side.
func NewProof(kind Kind, side game.Mark) *Proof {
	return &Proof{Kind: kind, Side: side, Moves: map[game.Key]game.Cell{}, Pairs: map[game.Key][]game.Cell{}}
}

// Name returns the proof's header, like "hold O".
func (p *Proof) Name() string { return p.Kind.String() + " " + p.Side.String() }

// Certificate is a claimed value of a position with the proofs behind it.
type Certificate struct {
	Position game.Position // the position proved; its Rules are the game's
	Value    game.Result   // XWins, OWins or Draw
	Proofs   []*Proof
}

// Write writes c in the text format of the package comment. Entries are
// sorted, so equal certificates give equal files.
func Write(w io.Writer, c *Certificate) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "ttt-proof %d\nrules %s\nposition %s\nvalue %s\n", Version, c.Position.Rules(), c.Position, valueWord(c.Value))
	for _, p := range c.Proofs {
		fmt.Fprintf(bw, "proof %s\n", p.Name())
		for _, k := range sortedKeys(p.Moves) {
			fmt.Fprintf(bw, "move %x %x %s\n", uint64(k.X), uint64(k.O), p.Moves[k])
		}
		for _, k := range sortedKeys(p.Pairs) {
			fmt.Fprintf(bw, "pairs %x %x", uint64(k.X), uint64(k.O))
			for _, cell := range p.Pairs[k] {
				fmt.Fprintf(bw, " %s", cell)
			}
			bw.WriteByte('\n')
		}
	}
	bw.WriteString("end\n")
	return bw.Flush()
}

// sortedKeys returns the keys of m in increasing order.
func sortedKeys[V any](m map[game.Key]V) []game.Key {
	keys := make([]game.Key, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b game.Key) int {
		if a.X != b.X {
			return cmpU(uint64(a.X), uint64(b.X))
		}
		return cmpU(uint64(a.O), uint64(b.O))
	})
	return keys
}

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// valueWord is the value as a single word of the format.
func valueWord(v game.Result) string {
	switch v {
	case game.XWins:
		return "Xwins"
	case game.OWins:
		return "Owins"
	case game.Draw:
		return "draw"
	}
	return "ongoing"
}

// maxLine bounds a line of a certificate: a pairing of the whole 8x8 board
// is well under it.
const maxLine = 4096

// Parse reads a certificate in the text format of the package comment. It
// checks the syntax, the rules, the position and that every cell is on the
// board; whether the proofs hold is Verify's business. Errors wrap
// ErrFormat and name the line.
func Parse(r io.Reader) (*Certificate, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 256), maxLine)
	ps := parser{c: &Certificate{}}
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := ps.line(strings.Fields(line)); err != nil {
			return nil, fmt.Errorf("%w: line %d: %s", ErrFormat, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%w: line %d is longer than %d bytes", ErrFormat, n+1, maxLine)
		}
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	if ps.stage < 4 {
		return nil, fmt.Errorf(`%w: the header is incomplete: "ttt-proof", "rules", "position" and "value" lines come first`, ErrFormat)
	}
	if !ps.ended {
		return nil, fmt.Errorf(`%w: no "end" line: the file is truncated`, ErrFormat)
	}
	return ps.c, nil
}

// parser is what Parse has read of a certificate so far.
type parser struct {
	c     *Certificate
	rules game.Rules
	cur   *Proof // the proof that entries go to, nil before the first
	stage int    // lines of the header read so far (4 when done)
	ended bool   // whether the "end" line has been read
}

// line reads one line of a certificate, split into its fields (at least
// one). Its error says what is wrong with the line, without the line's
// number.
func (ps *parser) line(f []string) error {
	if ps.ended {
		return errors.New(`text after "end"; the certificate ends there`)
	}
	switch word := f[0]; {
	case ps.stage < 4:
		if err := ps.header(f); err != nil {
			return err
		}
		ps.stage++
	case word == "end":
		if len(f) != 1 {
			return errors.New(`"end" takes nothing after it`)
		}
		ps.ended = true
	case word == "proof":
		return ps.proof(f)
	case word == "move" || word == "pairs":
		return ps.entry(f)
	default:
		return fmt.Errorf(`unknown item %q; after the header come "proof", "move", "pairs" and "end"`, word)
	}
	return nil
}

// header reads the line of the header that comes next: the version, the
// rules (k in a row only), the position, then the value.
func (ps *parser) header(f []string) error {
	word := f[0]
	switch ps.stage {
	case 0:
		if word != "ttt-proof" || len(f) != 2 {
			return fmt.Errorf(`the first line must be "ttt-proof %d"`, Version)
		}
		if f[1] != strconv.Itoa(Version) {
			return fmt.Errorf("format version %q; this checker reads version %d", f[1], Version)
		}
	case 1:
		if word != "rules" || len(f) != 2 {
			return errors.New(`want "rules R" (like "rules 6x6k5") after the version line`)
		}
		r, err := game.ParseRules(f[1])
		if err != nil {
			return err
		}
		if r.Variant() != game.KInARow {
			return fmt.Errorf("rules %s: certificates are for k-in-a-row games only", r)
		}
		ps.rules = r
	case 2:
		if word != "position" || len(f) != 2 {
			return errors.New(`want "position P" (position notation, like "---/-x-/---") after the rules`)
		}
		p, err := game.ParsePosition(ps.rules, f[1])
		if err != nil {
			return err
		}
		ps.c.Position = p
	default:
		if word != "value" || len(f) != 2 {
			return errors.New(`want "value V" after the position; V is Xwins, Owins or draw`)
		}
		v, err := parseValue(f[1])
		if err != nil {
			return err
		}
		ps.c.Value = v
	}
	return nil
}

// parseValue reads the value of a "value" line.
func parseValue(s string) (game.Result, error) {
	switch s {
	case "Xwins":
		return game.XWins, nil
	case "Owins":
		return game.OWins, nil
	case "draw":
		return game.Draw, nil
	}
	return game.Ongoing, fmt.Errorf("value %q; the value is Xwins, Owins or draw", s)
}

// proof reads a "proof KIND SIDE" line, which starts a proof that no
// earlier line started.
func (ps *parser) proof(f []string) error {
	if len(f) != 3 {
		return errors.New(`want "proof KIND SIDE": "win X", "win O", "hold X" or "hold O"`)
	}
	var kind Kind
	switch f[1] {
	case "win":
		kind = Win
	case "hold":
		kind = Hold
	default:
		return fmt.Errorf("proof kind %q; it is win or hold", f[1])
	}
	var side game.Mark
	switch f[2] {
	case "X":
		side = game.X
	case "O":
		side = game.O
	default:
		return fmt.Errorf("proof side %q; it is X or O", f[2])
	}
	for _, p := range ps.c.Proofs {
		if p.Kind == kind && p.Side == side {
			return fmt.Errorf("a second %q proof", f[1]+" "+f[2])
		}
	}
	ps.cur = NewProof(kind, side)
	ps.c.Proofs = append(ps.c.Proofs, ps.cur)
	return nil
}

// entry reads a "move" or "pairs" line of the current proof: a position's
// bitboards, then one cell for a move, or the cells of a pairing (hold
// proofs only) two by two. A position has one entry of each kind at most.
func (ps *parser) entry(f []string) error {
	word, cur := f[0], ps.cur
	if cur == nil {
		return fmt.Errorf(`%q before any "proof" line`, word)
	}
	if len(f) < 4 {
		return fmt.Errorf("want %q, the X and O bitboards in hexadecimal, then cells", word+" X O")
	}
	k, err := parseKey(ps.rules, f[1], f[2])
	if err != nil {
		return err
	}
	cells := make([]game.Cell, 0, len(f)-3)
	for _, s := range f[3:] {
		cell, err := parseCell(ps.rules, s)
		if err != nil {
			return err
		}
		cells = append(cells, cell)
	}
	if word == "move" {
		if len(cells) != 1 {
			return fmt.Errorf("a move entry names one cell, not %d", len(cells))
		}
		if _, dup := cur.Moves[k]; dup {
			return fmt.Errorf("a second move for position %x %x", uint64(k.X), uint64(k.O))
		}
		cur.Moves[k] = cells[0]
		return nil
	}
	if cur.Kind != Hold {
		return fmt.Errorf("pairings belong to hold proofs, not to %q", cur.Name())
	}
	if len(cells)%2 != 0 {
		return fmt.Errorf("a pairing lists cells two by two; this one has %d", len(cells))
	}
	if _, dup := cur.Pairs[k]; dup {
		return fmt.Errorf("a second pairing for position %x %x", uint64(k.X), uint64(k.O))
	}
	cur.Pairs[k] = cells
	return nil
}

// parseKey reads a position's two bitboards in hexadecimal.
func parseKey(r game.Rules, xs, os string) (game.Key, error) {
	x, err1 := strconv.ParseUint(xs, 16, 64)
	o, err2 := strconv.ParseUint(os, 16, 64)
	if err1 != nil || err2 != nil {
		return game.Key{}, fmt.Errorf("bitboards %q %q are not two hexadecimal 64-bit numbers", xs, os)
	}
	k := game.Key{X: game.Bitboard(x), O: game.Bitboard(o)}
	if (k.X|k.O)&^r.Board() != 0 || k.X&k.O != 0 {
		return game.Key{}, fmt.Errorf("bitboards %q %q put marks off the %s board or two marks on one cell", xs, os, r)
	}
	return k, nil
}

// parseCell reads a cell name like "c3", strictly: a lower-case column
// letter and a row number without sign or leading zero, on the board.
func parseCell(r game.Rules, s string) (game.Cell, error) {
	bad := fmt.Errorf("cell %q: cells are named by a column letter a-%c and a row 1-%d, like \"c3\"",
		s, 'a'+r.Cols()-1, r.Rows())
	if len(s) < 2 || len(s) > 3 || s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '9' {
		return 0, bad
	}
	row, err := strconv.Atoi(s[1:])
	col := int(s[0] - 'a')
	if err != nil || row < 1 || row > r.Rows() || col >= r.Cols() {
		return 0, bad
	}
	return game.NewCell(row-1, col), nil
}
