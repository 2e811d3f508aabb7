package persistence

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"

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
}

// ParseGamesTxt reads the original C program's games.txt: one 3x3 board
// per line as nine characters X, O and - (x, o and . accepted too), read
// row by row. A board of nine '-' starts a new game, and each following
// board adds one mark of the side to move. (A board holding one X where no
// game is going on also starts one.) Blank lines are ignored.
//
// Bad lines (wrong length or characters, a board that does not follow the
// previous one, a board outside a game, a move after the game is over) are
// returned with their line numbers and skipped: the game goes on from its
// last good board. A game that stops before the board decides it is
// reported at its first line and dropped. Errors wrap ErrInvalid; the
// error return is for failures reading r only.
func ParseGamesTxt(r io.Reader) ([]GamesTxtGame, []LineError, error) {
	rules := game.Classic()
	type current struct {
		start, last int
		pos         game.Position
		moves       []game.Cell
	}
	var (
		games []GamesTxtGame
		bad   []LineError
		cur   *current
	)
	report := func(n int, format string, a ...any) {
		bad = append(bad, LineError{Line: n, Err: fmt.Errorf("%w: games.txt: %s", ErrInvalid, fmt.Sprintf(format, a...))})
	}
	flush := func(n int) {
		switch {
		case cur == nil:
		case cur.pos.Over():
			games = append(games, GamesTxtGame{Line: cur.start, Moves: cur.moves, Result: cur.pos.Outcome().Result})
		case len(cur.moves) > 0:
			report(cur.start, "the game starting here stops undecided after %d moves (last board on line %d); skipped", len(cur.moves), cur.last)
		}
		cur = nil
	}
	err := corpusEachLine(r, func(n int, line []byte, tooLong bool) error {
		t := corpusTrimSpace(line)
		if tooLong {
			report(n, "line longer than %d bytes; a board is 9 characters of X, O or -", corpusMaxLine)
			return nil
		}
		if len(t) == 0 {
			return nil
		}
		if len(t) != 9 {
			report(n, "%q has %d characters; a board is 9 characters of X, O or - (like X---O----)", corpusClip(t), len(t))
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
				report(n, "%q: bad character %q at position %d; cells are X, O or -", corpusClip(t), ch, i+1)
				return nil
			}
		}
		if x == 0 && o == 0 {
			flush(n)
			cur = &current{start: n, last: n, pos: game.NewPosition(rules)}
			return nil
		}
		if x.Count() == 1 && o == 0 && (cur == nil || cur.pos.Over()) {
			flush(n)
			cur = &current{start: n, last: n, pos: game.NewPosition(rules)}
		}
		if cur == nil {
			report(n, "%s is outside a game; a game starts with the empty board ---------", t)
			return nil
		}
		prev := cur.pos
		added := (x &^ prev.X()) | (o &^ prev.O())
		removed := (prev.X() &^ x) | (prev.O() &^ o)
		if removed != 0 || added.Count() != 1 {
			report(n, "%s does not follow the board on line %d (%s): successive boards differ by one added mark", t, cur.last, gamesTxtBoard(prev))
			return nil
		}
		c := added.First()
		if prev.Over() {
			report(n, "%s adds a mark after the game ended (%s) on line %d", t, prev.Outcome().Result, cur.last)
			return nil
		}
		mark := game.O
		if x.Has(c) {
			mark = game.X
		}
		if mark != prev.ToMove() {
			report(n, "%s adds an %s at %s, but it is %s's turn", t, mark, c, prev.ToMove())
			return nil
		}
		cur.pos = prev.Apply(c)
		cur.moves = append(cur.moves, c)
		cur.last = n
		return nil
	})
	if err != nil {
		return games, bad, err
	}
	flush(0)
	sort.SliceStable(bad, func(i, j int) bool { return bad[i].Line < bad[j].Line })
	return games, bad, nil
}

// boardString prints a 3x3 position as games.txt does.
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

// clip shortens a bad line for an error message.
func corpusClip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

// ImportGamesTxt parses games.txt (see ParseGamesTxt) and appends every
// complete game to the 3x3k3 corpus as a record with unknown players,
// source "games.txt" and the import time. Each game's ID is
// "games.txt:" + source + ":" + its first line, so importing the same file
// again adds nothing; source names the file (say its base name and date).
// Bad lines are reported in the ImportReport and never abort the import.
func (s *Store) ImportGamesTxt(ctx context.Context, r io.Reader, source string) (ImportReport, error) {
	var rep ImportReport
	if source == "" {
		source = "games.txt"
	}
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
			Game:    "games.txt:" + source + ":" + strconv.Itoa(g.Line),
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
