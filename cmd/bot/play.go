package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/game"
)

// playCommand is "bot play": a game at the terminal.
func playCommand() *command {
	return &command{
		name:     "play",
		synopsis: "[-rules R] [-ai LEVEL] [-first me|ai|random] [-position P] [-opening] [-seed N] [level options]",
		summary:  "play a game at the terminal, against a person or an AI level",
		about: `Play runs a game at the terminal. Without -ai, two people take turns at
one keyboard; with -ai, you play against that level. Type a move as "row col"
(0-based, like "1 2") or a cell name (like "c2"); "help" lists the free
cells and "quit" or "resign" gives up. The board is drawn after every move.
When the game involves chance (an AI, -opening or -first random) and no
-seed is given, the seed used is printed so the game can be replayed.`,
		run: runPlay,
	}
}

// runPlay parses play's flags and runs the game.
func runPlay(ctx context.Context, e *env, cmd *command, args []string) error {
	fs := newFlagSet(cmd)
	rules := fs.String("rules", "3x3k3", rulesHelp)
	level := fs.String("ai", "", "play against this AI `level` (see \"bot levels\"); without -ai two people play")
	first := fs.String("first", "me", "`who` moves first against -ai: \"me\", \"ai\" or \"random\"")
	position := fs.String("position", "", positionHelp)
	opening := fs.Bool("opening", false, "start from a random X-O-X opening, one X and one O apart (X-O-X rules only)")
	var lf levelFlags
	lf.register(fs, "", "the AI")
	var seed seedFlag
	seed.register(fs, seedHelp)
	if err := e.parseFlags(cmd, fs, args); err != nil {
		return err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })

	p, err := parseGame(fs, *rules, *position)
	if err != nil {
		return err
	}
	who := strings.ToLower(strings.TrimSpace(*first))
	vsAI := strings.TrimSpace(*level) != ""
	switch {
	case who != "me" && who != "ai" && who != "random":
		return badInput("-first %q: say who moves first: me, ai or random", *first)
	case !vsAI && (given["first"] || lf.given()):
		return badInput("-first and the level options (-depth, -iterations, -budget, -exploration) need -ai; without it two people play")
	case *opening && given["position"]:
		return badInput("-opening and -position both choose the start; give one of them")
	case *opening && len(p.Rules().Openings()) == 0:
		return badInput("-opening: %s has no random opening; only the X-O-X variant (like 4x3xox) has one", p.Rules())
	case p.Over():
		return badInput("-position %q is already finished (%s); give a position with moves left", *position, p.Outcome().Result)
	}
	if err := e.loadLevelVersions(ctx, p.Rules(), levelSpec{"-ai", *level}); err != nil {
		return err
	}
	if err := e.checkNetwork("-ai", *level, p.Rules()); err != nil {
		return err
	}

	g := &terminalGame{e: e, pos: p}
	if vsAI || *opening || who == "random" {
		s := seed.resolve(e)
		rng := rand.New(rand.NewPCG(s, 0x706c6179)) // the game's own choices, apart from the AI's
		if *opening {
			ops := p.Rules().Openings()
			g.pos = ops[rng.IntN(len(ops))]
		}
		if vsAI {
			pl, err := e.newPlayer("-ai", *level, lf.options(s))
			if err != nil {
				return err
			}
			g.ai, g.aiName = pl, levelName(strings.ToLower(strings.TrimSpace(*level)), lf)
			g.aiSide = g.pos.ToMove()
			if who == "me" || who == "random" && rng.IntN(2) == 0 {
				g.aiSide = g.aiSide.Other()
			}
		}
		if !given["seed"] {
			fmt.Fprintf(e.stdout, "Seed %d: replay this game with -seed %d\n", s, s)
		}
	}
	return g.play(ctx)
}

// terminalGame is one game of "bot play" in progress.
type terminalGame struct {
	e      *env
	pos    game.Position
	ai     ai.Player // nil when two people play
	aiName string
	aiSide game.Mark
}

// play runs the game to its end, a resignation or the end of input.
func (g *terminalGame) play(ctx context.Context) error {
	out := g.e.stdout
	fmt.Fprintln(out, rulesSummary(g.pos.Rules())+".")
	if g.ai != nil {
		fmt.Fprintf(out, "You play %s; %s plays %s.\n", g.aiSide.Other(), g.aiName, g.aiSide)
	} else {
		fmt.Fprintln(out, "X and O take turns at this terminal.")
	}
	fmt.Fprintln(out, moveHint)
	fmt.Fprint(out, "\n"+g.pos.Diagram())

	in := newLineReader(g.e.stdin)
	defer in.close()
	for !g.pos.Over() {
		side := g.pos.ToMove()
		if g.ai != nil && side == g.aiSide {
			c, err := g.ai.Move(ctx, g.pos)
			if err != nil {
				return fmt.Errorf("%s (%s) found no move: %w", g.aiName, side, err)
			}
			q, err := g.pos.Play(c)
			if err != nil {
				return fmt.Errorf("%s (%s) chose an illegal move: %w", g.aiName, side, err)
			}
			g.pos = q
			fmt.Fprintf(out, "%s (%s) plays %s (%s).\n%s", g.aiName, side, c, c.RowCol(), g.pos.Diagram())
			continue
		}
		if g.ai != nil {
			fmt.Fprintf(out, "Your move (%s): ", side)
		} else {
			fmt.Fprintf(out, "%s to move: ", side)
		}
		line, ok, err := in.next(ctx)
		if err != nil {
			fmt.Fprintln(out)
			return err
		}
		if !ok {
			fmt.Fprint(out, "\nEnd of input; the game is left unfinished.\n")
			return nil
		}
		typed := parseInput(g.pos.Rules(), line)
		switch typed.kind {
		case inputQuit:
			fmt.Fprintf(out, "%s resigns; %s wins.\n", side, side.Other())
			return nil
		case inputHelp:
			fmt.Fprintf(out, "%s\nFree cells: %s\n", moveHint, cellList(g.pos.Moves()))
		case inputEmpty:
			fmt.Fprintln(out, moveHint)
		case inputBad:
			fmt.Fprintln(out, typed.err)
		case inputMove:
			q, err := g.pos.Play(typed.cell)
			if err != nil {
				fmt.Fprintln(out, explain(err)+".")
				continue
			}
			g.pos = q
			fmt.Fprintf(out, "%s plays %s (%s).\n%s", side, typed.cell, typed.cell.RowCol(), g.pos.Diagram())
		}
	}
	o := g.pos.Outcome()
	if o.Result == game.Draw {
		fmt.Fprintln(out, "Draw.")
	} else {
		fmt.Fprintf(out, "%s wins with %s.\n", o.Winner(), cellList(o.Cells))
	}
	return nil
}

// moveHint says how to type a move.
const moveHint = `Type a move as "row col" (0-based, like "1 2") or a cell name (like "c2"); "help" lists the free cells, "quit" resigns.`

// cellList names a set of cells, as in "a1 b2 c3".
func cellList(b game.Bitboard) string {
	var names []string
	for _, c := range b.Cells() {
		names = append(names, c.String())
	}
	return strings.Join(names, " ")
}

// The kinds of line a player can type.
const (
	inputMove  = iota // a cell
	inputQuit         // quit or resign
	inputHelp         // help or ?
	inputEmpty        // nothing
	inputBad          // anything else
)

// input is one parsed line of a player's input.
type input struct {
	kind int
	cell game.Cell // for inputMove
	err  string    // for inputBad: what was wrong and what is allowed
}

// parseInput reads a line typed at the move prompt under rules r.
func parseInput(r game.Rules, line string) input {
	t := strings.ToLower(strings.TrimSpace(line))
	switch t {
	case "":
		return input{kind: inputEmpty}
	case "quit", "resign", "q":
		return input{kind: inputQuit}
	case "help", "h", "?":
		return input{kind: inputHelp}
	}
	c, err := r.ParseCell(t)
	if err != nil {
		return input{kind: inputBad, err: explain(err) + `; "help" lists the free cells.`}
	}
	return input{kind: inputMove, cell: c}
}

// lineReader reads lines on its own goroutine, so that waiting for input
// can be abandoned when the context is cancelled.
type lineReader struct {
	lines chan string
	done  chan struct{}
}

// newLineReader starts reading r.
func newLineReader(r io.Reader) *lineReader {
	l := &lineReader{lines: make(chan string), done: make(chan struct{})}
	go func() {
		defer close(l.lines)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			select {
			case l.lines <- sc.Text():
			case <-l.done:
				return
			}
		}
	}()
	return l
}

// next returns the next line; ok is false at the end of input (or on a
// read error, which for a terminal game means the same).
func (l *lineReader) next(ctx context.Context) (line string, ok bool, err error) {
	select {
	case line, ok = <-l.lines:
		return line, ok, nil
	case <-ctx.Done():
		return "", false, ctx.Err()
	}
}

// close stops the reader once its current read returns.
func (l *lineReader) close() { close(l.done) }
