package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/ai/proof"
	"github.com/tttbot/ttt-bot/game"
)

// solveCommand is "bot solve": the exact value of a position.
func solveCommand() *command {
	return &command{
		name:     "solve",
		synopsis: "[-rules R] [-position P] [-root] [-proof FILE] [-progress D] [-state FILE] [-timeout D]",
		summary:  "find a position's value with perfect play and the value of every move",
		about: `Solve searches a position to the end and prints its value with perfect
play from both sides ("X wins", "O wins" or "draw"), the moves that keep
that value, every legal move with its value (and, for a win or loss, in how
many plies the game ends, when the solver found out), the nodes searched
and the time taken. Boards larger than 4x4 can take very long; -timeout
or Ctrl-C stops the search.

With -root it finds the value of the position alone, not of every move,
by the prover: for k of 5 and more, a search for the defender's pairing
strategies (see "bot verify-proof"), else the solver. -proof FILE (which
implies -root) also writes a certificate of the value to FILE, which
"bot verify-proof FILE" checks independently of the search. For long
proofs, -progress D prints the hold search's progress every D on stderr
(the proof, the iteration's depth, nodes, the attacker's root moves
proved, proved positions, memory), and -state FILE resumes from the
positions a stopped run proved and, when -timeout or Ctrl-C stops this
run, saves them to FILE.`,
		run: runSolve,
	}
}

// runSolve parses solve's flags, solves the position and prints the
// analysis.
func runSolve(ctx context.Context, e *env, cmd *command, args []string) error {
	fs := newFlagSet(cmd)
	rules := fs.String("rules", "3x3k3", rulesHelp)
	position := fs.String("position", "", "the `position` to solve: "+`the cells row by row as X, O or -, like "x--/-o-/---", or a shared game, like "3x3k3 b2 a1" (default the empty board)`)
	root := fs.Bool("root", false, "find the value of the position only, not of every move")
	proofFile := fs.String("proof", "", "write a certificate of the value to this `file` (implies -root)")
	progress := fs.Duration("progress", 0, "with -root: print progress every `interval` on stderr (0 for none)")
	stateFile := fs.String("state", "", "with -root: resume from this `file` if it exists, save to it when stopped")
	var timeout time.Duration
	fs.Func("timeout", "give up after this long, a `duration` like \"30s\" or \"5m\" (default no limit)", func(s string) error {
		v, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil || v < 0 {
			return errors.New(`the timeout is a duration with a unit, like "30s" or "5m", 0 for no limit`)
		}
		timeout = v
		return nil
	})
	if err := e.parseFlags(cmd, fs, args); err != nil {
		return err
	}
	p, err := parseGame(fs, *rules, *position)
	if err != nil {
		return err
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	if *root || *proofFile != "" {
		return runProve(ctx, e, p, proveFlags{file: *proofFile, progress: *progress, state: *stateFile}, timeout)
	}
	if *progress != 0 || *stateFile != "" {
		return badInput("-progress and -state go with -root or -proof")
	}
	start := e.now()
	a, err := ai.NewSolver().Solve(ctx, p)
	elapsed := e.now().Sub(start)
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("gave up after %s (-timeout %s)", shortDuration(elapsed), timeout)
	}
	if err != nil {
		return err
	}
	printAnalysis(e, p, a, elapsed)
	return nil
}

// proveFlags are solve's flags for a proof.
type proveFlags struct {
	file     string        // the certificate to write, or ""
	progress time.Duration // how often to report progress, 0 for never
	state    string        // the hold tables to resume from and save to, or ""
}

// runProve finds the value of p alone with a certificate, and writes the
// certificate to pf.file unless it is "".
func runProve(ctx context.Context, e *env, p game.Position, pf proveFlags, timeout time.Duration) error {
	start := e.now()
	var opt ai.ProveOptions
	if pf.state != "" {
		opt.Tables = &ai.HoldTables{}
		if f, err := os.Open(pf.state); err == nil {
			t, err := ai.ReadHoldTables(f)
			f.Close()
			if err != nil {
				return badInput("-state %s: %s", pf.state, explain(err))
			}
			opt.Tables = t
			fmt.Fprintf(e.stderr, "resuming from %s: %d proved positions\n", pf.state, t.Len())
		} else if !errors.Is(err, os.ErrNotExist) {
			return badInput("-state: %v", err)
		}
	}
	if pf.progress > 0 {
		last := start
		opt.Progress = func(pp ai.ProveProgress) {
			now := e.now()
			if now.Sub(last) < pf.progress {
				return
			}
			last = now
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			fmt.Fprintf(e.stderr, "%s: proof %s, depth %d, %d nodes, root moves proved %d/%d, %d positions proved, heap %d MB\n",
				shortDuration(now.Sub(start)), pp.Proof, pp.Depth, pp.Nodes, pp.RootDone, pp.RootTotal, pp.Proved, ms.HeapAlloc>>20)
		}
	}
	c, st, err := ai.NewSolver().ProveWith(ctx, p, opt)
	elapsed := e.now().Sub(start)
	if err != nil && opt.Tables != nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) {
		if serr := saveTables(pf.state, opt.Tables); serr != nil {
			fmt.Fprintf(e.stderr, "could not save the state: %v\n", serr)
		} else {
			fmt.Fprintf(e.stderr, "saved %d proved positions to %s; run the same command to resume\n", opt.Tables.Len(), pf.state)
		}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("gave up after %s (-timeout %s)", shortDuration(elapsed), timeout)
	}
	if errors.Is(err, ai.ErrNoProof) {
		return badInput("-root and -proof take k-in-a-row rules; %s has no certificates", p.Rules())
	}
	if err != nil {
		return err
	}
	w := e.stdout
	if p.Over() {
		fmt.Fprintf(w, "position: %s (%s, game over)\nvalue: %s\n", p, p.Rules(), c.Value)
	} else {
		fmt.Fprintf(w, "position: %s (%s, %s to move)\nvalue: %s\n", p, p.Rules(), p.ToMove(), c.Value)
	}
	moves, pairings := 0, 0
	for _, pr := range c.Proofs {
		fmt.Fprintf(w, "proof %s: %d moves, %d pairings\n", pr.Name(), len(pr.Moves), len(pr.Pairs))
		moves += len(pr.Moves)
		pairings += len(pr.Pairs)
	}
	fmt.Fprintf(w, "nodes: %d\ntime: %s\n", st.Nodes, shortDuration(elapsed))
	file := pf.file
	if file == "" {
		return nil
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := proof.Write(f, c); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", file, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(w, "certificate: %s (%d moves, %d pairings)\n", file, moves, pairings)
	return nil
}

// saveTables writes the hold tables to file, through a temporary file so
// that a crash never leaves half a state.
func saveTables(file string, t *ai.HoldTables) error {
	tmp := file + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := t.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

// printAnalysis writes a solver's analysis of p.
func printAnalysis(e *env, p game.Position, a ai.Analysis, elapsed time.Duration) {
	w := e.stdout
	if p.Over() {
		fmt.Fprintf(w, "position: %s (%s, game over)\nvalue: %s\n", p, p.Rules(), a.Value)
	} else {
		fmt.Fprintf(w, "position: %s (%s, %s to move)\nvalue: %s\n", p, p.Rules(), p.ToMove(), a.Value)
	}
	if len(a.Moves) > 0 {
		best := make([]string, len(a.Best))
		for i, c := range a.Best {
			best[i] = fmt.Sprintf("%s (%s)", c.RowCol(), c)
		}
		fmt.Fprintf(w, "best: %s\nmoves:\n", strings.Join(best, ", "))
		tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
		for _, m := range a.Moves {
			v := m.Value.String()
			if m.Value != game.Draw && m.Plies > 0 {
				v += fmt.Sprintf(" in %d %s", m.Plies, plural(m.Plies, "ply", "plies"))
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", m.Cell.RowCol(), m.Cell, v)
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "nodes: %d\ntime: %s\n", a.Nodes, shortDuration(elapsed))
}

// plural returns one or many according to n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
