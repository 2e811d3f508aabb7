package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/tttbot/ttt-bot/ai/puzzle"
	"github.com/tttbot/ttt-bot/ai/review"
	"github.com/tttbot/ttt-bot/game"
)

// reviewCommand is "bot review": the exact review of a game.
func reviewCommand() *command {
	return &command{
		name:     "review",
		synopsis: "[-max-nodes N] [-proof-nodes N] GAME",
		summary:  "review a game move by move with perfect knowledge",
		about: `Review reads a game as one line (the rules, an optional start position
and the moves, like "3x3k3 a1 b2 c3", as the bot shares games) and prints,
for every move, the value of the position before and after it for the
player who moved, and a verdict: best, good (kept the value, not the
quickest), inaccuracy (kept a draw but left the opponent fewer ways to go
wrong), mistake (a draw thrown away), missed-win (a win became a draw) or
blunder (a win became a loss), with the best moves where another was
played. Then each player's accuracy, the turning point and the move that
decided the game. Values are exact where the solver finishes within
-max-nodes per position, or the prover (the win and hold searches of
"bot solve") proves the value of every move within -proof-nodes, and
marked as estimates elsewhere. On boards with k of 5 or more and more
than 25 cells the prover is asked first.`,
		run: runReview,
	}
}

// runReview reviews the game given as arguments and prints the review.
func runReview(ctx context.Context, e *env, cmd *command, args []string) error {
	fs := newFlagSet(cmd)
	maxNodes := fs.Int64("max-nodes", 0, "solver `nodes` per position before a value is estimated (0 for the default, which solves every preset board)")
	proofNodes := fs.Int64("proof-nodes", 0, "prover `nodes` per position the solver did not finish (0 for the default, negative for never)")
	if err := e.parseFlagsArgs(cmd, fs, args); err != nil {
		return err
	}
	line := strings.Join(fs.Args(), " ")
	if strings.TrimSpace(line) == "" {
		return badInput(`no game given; write it as one line, like: bot review "3x3k3 a1 b2 c3"`)
	}
	rec, err := game.ParseRecord(line)
	if err != nil {
		return badInput("game %q: %s", line, explain(err))
	}
	start := e.now()
	rv, err := review.New(review.Options{MaxNodes: *maxNodes, ProofNodes: *proofNodes}).Review(ctx, rec.Start, rec.Moves)
	if err != nil {
		return err
	}
	elapsed := e.now().Sub(start)
	w := e.stdout
	fmt.Fprintf(w, "game: %s\n", rec)
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	for _, m := range rv.Moves {
		best := ""
		if m.Verdict != review.Best && len(m.Best) > 0 {
			names := make([]string, len(m.Best))
			for i, c := range m.Best {
				names[i] = c.String()
			}
			best = "best " + strings.Join(names, " ")
		}
		fmt.Fprintf(tw, "  %d.\t%s %s\t%s\t%s -> %s\t%s\n", m.Ply, m.Mover, m.Cell, m.Verdict,
			valueText(m.Before, m.Mover), valueText(m.After, m.Mover), best)
	}
	tw.Flush()
	for i, side := range []game.Mark{game.X, game.O} {
		s := rv.Players[i]
		if s.Moves == 0 {
			continue
		}
		var counts []string
		for v := review.Best; v <= review.Blunder; v++ {
			if s.Count[v] > 0 {
				counts = append(counts, fmt.Sprintf("%s %d", v, s.Count[v]))
			}
		}
		fmt.Fprintf(w, "%s: accuracy %.0f%% (%d of %d moves kept the value): %s\n", side, 100*s.Accuracy, s.Kept, s.Moves, strings.Join(counts, ", "))
	}
	if tp := rv.TurningPoint; tp >= 0 {
		m := rv.Moves[tp]
		fmt.Fprintf(w, "turning point: move %d, %s %s (%s)\n", m.Ply, m.Mover, m.Cell, m.Verdict)
	} else {
		fmt.Fprintln(w, "turning point: none, no move changed the value")
	}
	if d := rv.Decided; d >= 0 {
		fmt.Fprintf(w, "decided: move %d\n", rv.Moves[d].Ply)
	} else {
		fmt.Fprintln(w, "decided: never, no forced win stood to the end")
	}
	if rv.Exact {
		fmt.Fprintln(w, "values: exact")
	} else {
		fmt.Fprintln(w, "values: estimates where marked ~ (the solver and the prover ran out of their budgets)")
	}
	fmt.Fprintf(w, "time: %s\n", shortDuration(elapsed))
	return nil
}

// valueText writes a review value for side: "win in 3", "draw", "loss",
// or an estimate "~62%".
func valueText(v review.Value, side game.Mark) string {
	if !v.Exact {
		s := v.Score
		if side == game.O {
			s = 1 - s
		}
		return fmt.Sprintf("~%.0f%%", 100*s)
	}
	o := v.For(side).String()
	if v.Plies > 0 && v.For(side) != review.Draw {
		return fmt.Sprintf("%s in %d", o, v.Plies)
	}
	return o
}

// puzzleCommand is "bot puzzle": a daily puzzle, as the bot draws it.
func puzzleCommand() *command {
	return &command{
		name:     "puzzle",
		synopsis: "-rules R [-guild G] [-day YYYY-MM-DD] [-seed N]",
		summary:  "draw a puzzle: a position with a forced, non-obvious win",
		about: `Puzzle draws a position where the side to move has a forced win that is
not obvious (no win in one, and only one winning move or a win at least 5
plies deep), from self-play, and checks it with the solver. With -guild
and -day it draws the puzzle the bot would give that server that day on
an empty corpus (-day alone: the puzzle of direct messages); -seed draws
another one. It prints the position, the
winning moves, the length of the win and the time taken; the position
can be played out with bot play -ai perfect -position.`,
		run: runPuzzle,
	}
}

// runPuzzle draws and prints a puzzle.
func runPuzzle(ctx context.Context, e *env, cmd *command, args []string) error {
	fs := newFlagSet(cmd)
	rules := fs.String("rules", "3x3k3", rulesHelp)
	guild := fs.String("guild", "", "the server `ID` whose puzzle to draw (with -day)")
	day := fs.String("day", "", "the `day` whose puzzle to draw, YYYY-MM-DD (with -guild)")
	var seed seedFlag
	seed.register(fs, "`seed` of the draw (default from -guild and -day, else random)")
	if err := e.parseFlags(cmd, fs, args); err != nil {
		return err
	}
	r, err := game.ParseRules(*rules)
	if err != nil {
		return badInput("-rules: %s", explain(err))
	}
	s := seed.value
	switch {
	case seed.set && (*guild != "" || *day != ""):
		return badInput("-seed chooses the draw; give it or -guild and -day, not both")
	case *guild != "" && *day == "":
		return badInput("-guild needs -day: a server's puzzle is the puzzle of one day (YYYY-MM-DD)")
	case !seed.set && *day != "":
		s = puzzle.Seed(*guild, *day, r)
	case !seed.set:
		s = seed.resolve(e)
		fmt.Fprintf(e.stderr, "seed: %d\n", s)
	}
	start := e.now()
	p, err := puzzle.Generate(ctx, r, s, puzzle.Options{})
	if err != nil {
		return err
	}
	if err := puzzle.Check(ctx, p); err != nil {
		return err
	}
	elapsed := e.now().Sub(start)
	win := make([]string, len(p.Winning))
	for i, c := range p.Winning {
		win[i] = c.String()
	}
	fmt.Fprintf(e.stdout, "puzzle: %s\nposition: %s (%s to move)\n%swinning: %s\nwin in: %d plies\nsource: %s\ntime: %s\n",
		p, p.Position, p.Side, p.Position.Diagram(), strings.Join(win, " "), p.Plies, p.Source, shortDuration(elapsed))
	return nil
}
