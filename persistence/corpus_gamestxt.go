package persistence

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"sort"

	"github.com/tttbot/ttt-bot/game"
)

// GamesTxtGame is one game read from the original C program's games.txt.
type GamesTxtGame struct {
	// Line is the line of the game's first board: its empty board, or its
	// first move when the empty board is missing.
	Line int
	// Moves are the cells played, derived from the successive boards.
	Moves []game.Cell
	// Result is the outcome of the final board (XWins, OWins or Draw).
	Result game.Result
	// Digest identifies the game by the file's content: the SHA-256 of
	// the file's lines from the first to the game's last board, each
	// trimmed of spaces and followed by "\n", with x, o and . read as X, O
	// and -, blank lines left out (a line too long to read counts as one
	// NUL byte). The same file under any name or with other line endings,
	// or with more lines after the game, gives the game the same digest;
	// any other change before its last board gives it another. Two games
	// of one file never share a digest.
	Digest [sha256.Size]byte
}

// ParseGamesTxt reads the original C program's games.txt: one 3x3 board
// per line as nine characters X, O and - (x, o and . accepted too), read
// row by row. A game starts with the empty board (nine '-') or with a
// board holding one X, and each following board adds one mark of the side
// to move. A board holding one X starts a new game wherever it stands,
// except as the first move after an empty board. Blank lines are ignored.
//
// A bad line (wrong length or characters, a board that does not follow
// the previous one, a board outside a game, a move after the game is
// over) refuses its own game and nothing else: the game it belongs to is
// dropped, as are the boards after it, up to the next board that starts a
// game, which is read as usual. A finished game stays finished: a bad line
// after its last board does not drop it. Each bad line is returned with
// its line number, and its message says which lines were dropped with it.
// A game that stops before the board decides it (at the end of the file,
// or when the next game starts) is reported at its first line and
// dropped. Errors wrap ErrInvalid; the error return is for failures
// reading r only.
func ParseGamesTxt(r io.Reader) ([]GamesTxtGame, []LineError, error) {
	p := gamesTxtParser{rules: game.Classic(), sum: sha256.New()}
	if err := corpusEachLine(r, p.line); err != nil {
		return p.games, p.bad, err
	}
	p.endGame()
	p.endSkip()
	sort.SliceStable(p.bad, func(i, j int) bool { return p.bad[i].Line < p.bad[j].Line })
	return p.games, p.bad, nil
}

// gamesTxtStart says, in messages, what starts a game.
const gamesTxtStart = "the empty board --------- or a board holding one X"

// gamesTxtParser is the state of ParseGamesTxt between lines. At most one
// of cur and skip is set.
type gamesTxtParser struct {
	rules game.Rules
	games []GamesTxtGame
	bad   []LineError
	// sum hashes the lines read so far, as GamesTxtGame.Digest says.
	sum  hash.Hash
	norm []byte // the line being hashed, normalised
	// cur is the game being read; nil outside a game.
	cur *gamesTxtGame
	// skip is set from a refused line to the next board that starts a
	// game: the boards in between are dropped.
	skip *gamesTxtSkip
}

// gamesTxtGame is a game being read.
type gamesTxtGame struct {
	start, last int // its first line and its last good board's line
	pos         game.Position
	moves       []game.Cell
	digest      [sha256.Size]byte // set when the game is over
}

// gamesTxtSkip is a refused line and what was dropped with it.
type gamesTxtSkip struct {
	line   int    // the refused line
	reason string // what was wrong with it
	game   int    // the first line of the unfinished game dropped with it; 0 for none
	last   int    // the last board dropped after it; 0 for none
}

// line reads line n of the file.
func (p *gamesTxtParser) line(n int, line []byte, tooLong bool) error {
	if tooLong {
		p.hash([]byte{0})
		p.refuse(n, fmt.Sprintf("line longer than %d bytes; a board is 9 characters of X, O or -", corpusMaxLine))
		return nil
	}
	t := corpusTrimSpace(line)
	if len(t) == 0 {
		return nil
	}
	p.hash(t)
	if len(t) != 9 {
		p.refuse(n, fmt.Sprintf("%q has %d characters; a board is 9 characters of X, O or - (like X---O----)", corpusClip(t), len(t)))
		return nil
	}
	var x, o game.Bitboard
	for i, ch := range t {
		c := game.NewCell(i/3, i%3)
		switch ch {
		case 'X', 'x':
			x = x.With(c)
		case 'O', 'o':
			o = o.With(c)
		case '-', '.':
		default:
			p.refuse(n, fmt.Sprintf("%q: bad character %q at position %d; cells are X, O or -", corpusClip(t), ch, i+1))
			return nil
		}
	}
	switch {
	case x == 0 && o == 0:
		p.startGame(n)
		return nil
	case x.Count() == 1 && o == 0 && (p.cur == nil || p.cur.pos.Ply() > 0):
		// A lone X is a new game's first move, unless it follows the
		// current game's empty board.
		p.startGame(n)
	case p.skip != nil:
		p.skip.last = n
		return nil
	case p.cur == nil:
		p.refuse(n, fmt.Sprintf("%s is outside a game; a game starts with %s", t, gamesTxtStart))
		return nil
	}
	cur := p.cur
	prev := cur.pos
	if prev.Over() {
		p.refuse(n, fmt.Sprintf("%s comes after the game ended (%s) on line %d; a new game starts with %s", t, prev.Outcome().Result, cur.last, gamesTxtStart))
		return nil
	}
	added := (x &^ prev.X()) | (o &^ prev.O())
	removed := (prev.X() &^ x) | (prev.O() &^ o)
	if removed != 0 || added.Count() != 1 {
		p.refuse(n, fmt.Sprintf("%s does not follow the board on line %d (%s): successive boards differ by one added mark", t, cur.last, gamesTxtBoard(prev)))
		return nil
	}
	c := added.First()
	mark := game.O
	if x.Has(c) {
		mark = game.X
	}
	if mark != prev.ToMove() {
		p.refuse(n, fmt.Sprintf("%s adds an %s at %s, but it is %s's turn", t, mark, c, prev.ToMove()))
		return nil
	}
	cur.pos = prev.Apply(c)
	cur.moves = append(cur.moves, c)
	cur.last = n
	if cur.pos.Over() {
		p.sum.Sum(cur.digest[:0])
	}
	return nil
}

// hash adds a non-blank line, trimmed, to the digest of the lines read.
func (p *gamesTxtParser) hash(line []byte) {
	p.norm = p.norm[:0]
	for _, c := range line {
		switch c {
		case 'x':
			c = 'X'
		case 'o':
			c = 'O'
		case '.':
			c = '-'
		}
		p.norm = append(p.norm, c)
	}
	p.norm = append(p.norm, '\n')
	p.sum.Write(p.norm)
}

// report adds a bad line.
func (p *gamesTxtParser) report(n int, msg string) {
	p.bad = append(p.bad, LineError{Line: n, Err: fmt.Errorf("%w: games.txt: %s", ErrInvalid, msg)})
}

// refuse reports line n as bad and drops everything up to the next board
// that starts a game: the current game unless it is finished, and the
// boards after line n. The report is made when the next game starts, so
// that it can say what was dropped. A bad line among boards already being
// dropped is reported on its own.
func (p *gamesTxtParser) refuse(n int, reason string) {
	if p.skip != nil {
		p.report(n, reason)
		p.skip.last = n
		return
	}
	s := &gamesTxtSkip{line: n, reason: reason}
	if p.cur != nil && !p.cur.pos.Over() {
		s.game = p.cur.start
		p.cur = nil
	}
	p.endGame()
	p.skip = s
}

// endSkip reports the refused line, if any, with what was dropped with it.
func (p *gamesTxtParser) endSkip() {
	s := p.skip
	if s == nil {
		return
	}
	p.skip = nil
	msg := s.reason
	switch {
	case s.game > 0:
		msg += fmt.Sprintf("; the game on lines %d to %d is skipped", s.game, max(s.line, s.last))
	case s.last > 0:
		msg += fmt.Sprintf("; the boards after it, to line %d, are skipped too, up to the next game", s.last)
	}
	p.report(s.line, msg)
}

// startGame ends the current game and any dropping, and starts a game on
// line n at the empty board.
func (p *gamesTxtParser) startGame(n int) {
	p.endGame()
	p.endSkip()
	p.cur = &gamesTxtGame{start: n, last: n, pos: game.NewPosition(p.rules)}
}

// endGame ends the current game: a finished one is kept, an unfinished
// one with moves is reported at its first line.
func (p *gamesTxtParser) endGame() {
	cur := p.cur
	p.cur = nil
	switch {
	case cur == nil:
	case cur.pos.Over():
		p.games = append(p.games, GamesTxtGame{Line: cur.start, Moves: cur.moves, Result: cur.pos.Outcome().Result, Digest: cur.digest})
	case len(cur.moves) > 0:
		moves := "moves"
		if len(cur.moves) == 1 {
			moves = "move"
		}
		p.report(cur.start, fmt.Sprintf("the game starting here stops undecided after %d %s (last board on line %d); skipped",
			len(cur.moves), moves, cur.last))
	}
}

// gamesTxtBoard prints a 3x3 position as games.txt does.
func gamesTxtBoard(p game.Position) string {
	b := make([]byte, 0, 9)
	for i := range 9 {
		switch p.At(game.NewCell(i/3, i%3)) {
		case game.X:
			b = append(b, 'X')
		case game.O:
			b = append(b, 'O')
		default:
			b = append(b, '-')
		}
	}
	return string(b)
}

// corpusClip shortens a bad line for an error message.
func corpusClip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

// ImportGamesTxt parses games.txt (see ParseGamesTxt) and appends every
// complete game to the 3x3k3 corpus as a record with unknown players,
// source "games.txt" and the import time.
//
// A game is known by the file's content up to its last board, never by
// the file's name: its ID is "games.txt:" and its Digest in hex. So
// importing the same file again, or a copy under any name, or from
// standard input, or with other line endings, adds nothing, and a file
// that has grown at its end since adds only the games after the old end.
// The same game in two files is two games, unless both files are the same
// up to its last board: one then holds a copy of the other's beginning,
// and the game is one game in both. An edit before a game's last board
// (other than to blank lines, spaces at either end of a line, or x, o and
// . for X, O and -) makes it a new game.
//
// Bad lines are reported in the ImportReport and never abort the import.
func (s *Store) ImportGamesTxt(ctx context.Context, r io.Reader) (ImportReport, error) {
	var rep ImportReport
	games, bad, err := ParseGamesTxt(r)
	rep.Bad = bad
	if err != nil {
		return rep, err
	}
	now := s.now().UTC().Truncate(1e6)
	rules := game.Classic().String()
	for _, g := range games {
		rec := CorpusRecord{
			Version: CorpusVersion,
			Game:    "games.txt:" + hex.EncodeToString(g.Digest[:]),
			Rules:   rules,
			Moves:   make([]string, len(g.Moves)),
			Result:  g.Result.String(),
			Time:    now,
			Source:  "games.txt",
		}
		for i, c := range g.Moves {
			rec.Moves[i] = c.RowCol()
		}
		if err := rec.Validate(); err != nil {
			rep.Bad = append(rep.Bad, LineError{Line: g.Line, Err: err})
			continue
		}
		_, added, err := s.AppendRecord(ctx, rec)
		if err != nil {
			return rep, err
		}
		if added {
			rep.Added++
		} else {
			rep.Duplicates++
		}
	}
	return rep, nil
}
