// Command bot is the one ttt-bot binary. Its subcommands play games at the
// terminal, choose or analyse moves for scripts, and pit AI levels against
// each other; "bot help" lists them.
//
// main only wires the process to run: arguments, standard streams, a
// context cancelled on SIGINT or SIGTERM, and the exit code.
package main

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/tttbot/ttt-bot/ai"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second signal kills the process the usual way
	}()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit codes.
const (
	exitOK      = 0 // success
	exitFailure = 1 // runtime failure
	exitInput   = 2 // bad input: flags, arguments, notation
)

// run runs the subcommand named by args[0] and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return newEnv(stdin, stdout, stderr).run(ctx, args)
}

// env is everything a subcommand may touch: its streams, the AI levels,
// and the sources of randomness and time, so tests can replace them.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	levels         *ai.Registry
	seed           func() uint64    // a fresh random seed, when -seed is not given
	now            func() time.Time // the clock for timing moves and searches
	workers        int              // default number of arena workers
}

// newEnv returns the environment of a real run.
func newEnv(stdin io.Reader, stdout, stderr io.Writer) *env {
	return &env{
		stdin:   stdin,
		stdout:  stdout,
		stderr:  stderr,
		levels:  newLevels(),
		seed:    randomSeed,
		now:     time.Now,
		workers: runtime.GOMAXPROCS(0),
	}
}

// randomSeed returns a seed from the operating system's random source,
// below a billion so that it is easy to retype for a replay.
func randomSeed() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never returns an error
	return binary.LittleEndian.Uint64(b[:]) % 1_000_000_000
}

// command is one subcommand. Adding one means writing its run function and
// adding a line to commands.
type command struct {
	name     string // what the user types
	synopsis string // the arguments, for usage lines
	summary  string // one line for "bot help"
	about    string // a paragraph for "bot help <name>"
	run      func(ctx context.Context, e *env, cmd *command, args []string) error
}

// commands returns the subcommands in the order "bot help" lists them.
func commands() []*command {
	return []*command{
		playCommand(),
		moveCommand(),
		solveCommand(),
		verifyProofCommand(),
		reviewCommand(),
		pbrainCommand(),
		gomocupCommand(),
		puzzleCommand(),
		arenaCommand(),
		levelsCommand(),
		trainCommand(),
		retrainCommand(),
		corpusCommand(),
		modelsCommand(),
		serveCommand(),
		helpCommand(),
	}
}

// lookup returns the named subcommand, or nil.
func lookup(name string) *command {
	for _, c := range commands() {
		if c.name == name {
			return c
		}
	}
	return nil
}

// commandNames returns the subcommand names, comma-separated.
func commandNames() string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}

// run dispatches args to a subcommand, reports its error and returns the
// exit code.
func (e *env) run(ctx context.Context, args []string) int {
	if len(args) == 0 {
		e.usage(e.stdout)
		return exitOK
	}
	name := args[0]
	if name == "-h" || name == "-help" || name == "--help" {
		name = "help"
	}
	cmd := lookup(name)
	if cmd == nil {
		fmt.Fprintf(e.stderr, "bot: unknown command %q; the commands are %s\n", args[0], commandNames())
		fmt.Fprintln(e.stderr, `run "bot help" for usage`)
		return exitInput
	}
	err := cmd.run(ctx, e, cmd, args[1:])
	var in *inputError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errHelp):
		return exitOK
	case errors.As(err, &in):
		fmt.Fprintf(e.stderr, "bot %s: %s\n", cmd.name, in.msg)
		fmt.Fprintf(e.stderr, "run \"bot %s -h\" for usage\n", cmd.name)
		return exitInput
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		fmt.Fprintf(e.stderr, "bot %s: interrupted\n", cmd.name)
		return exitFailure
	default:
		fmt.Fprintf(e.stderr, "bot %s: %v\n", cmd.name, err)
		return exitFailure
	}
}

// usage writes the overview printed by "bot" and "bot help".
func (e *env) usage(w io.Writer) {
	fmt.Fprint(w, "bot plays m,n,k games (tic-tac-toe and its larger cousins) and the X-O-X variant.\n\nusage:\n")
	for _, c := range commands() {
		fmt.Fprintln(w, "  "+strings.TrimSpace("bot "+c.name+" "+c.synopsis))
	}
	fmt.Fprint(w, "\ncommands:\n")
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	for _, c := range commands() {
		fmt.Fprintf(tw, "  %s\t%s\n", c.name, c.summary)
	}
	tw.Flush()
	fmt.Fprint(w, `
Rules are written rows x cols, then k and the line length ("3x3k3",
"5x5k4"), or "xox" for the X-O-X variant ("4x3xox"). A position lists the
cells row by row as X, O or -, optionally with / between rows
("x--/-o-/---"); the side to move follows from the counts. A cell is
"row col", 0-based ("1 2"), or a column letter and a 1-based row ("c2").

Level options tune an AI level; each level uses those it knows:
  -depth N        minimax search depth in plies, 0 for no limit
  -iterations N   MCTS iterations per move, 0 for the level's default
  -budget D       thinking time per move, like "500ms" or "2s"
  -exploration C  MCTS exploration constant, 0 for the default (sqrt 2)
Arena also takes them for one side only: -x-depth, -o-budget and so on.
"bot levels" lists the levels; neural@V and humanlike@V play version V of
the board's network from the model registry ("bot models list").

Run "bot help <command>" or "bot <command> -h" for a command's flags.
`)
}

// errHelp reports that usage was asked for and printed: exit 0.
var errHelp = errors.New("help requested")

// inputError is bad input from the user: exit code 2 and a one-line
// message saying what was wrong and what is allowed.
type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }

// badInput returns an inputError with a formatted message.
func badInput(format string, a ...any) error {
	return &inputError{msg: fmt.Sprintf(format, a...)}
}

// explain returns an error's message without the "game: " or "ai: "
// package prefix, for showing to a user next to the flag it concerns.
func explain(err error) string {
	msg := err.Error()
	for _, p := range []string{"game: ", "ai: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return msg
}

// newFlagSet returns a flag set for cmd that reports errors instead of
// printing them or exiting.
func newFlagSet(cmd *command) *flag.FlagSet {
	fs := flag.NewFlagSet("bot "+cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args into fs. On -h it prints cmd's usage to stdout and
// returns errHelp; on a bad flag it returns an inputError. Positional
// arguments are bad input: every subcommand takes flags only.
func (e *env) parseFlags(cmd *command, fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		e.commandUsage(e.stdout, cmd, fs)
		return errHelp
	case err != nil:
		msg := err.Error()
		if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
			var names []string
			fs.VisitAll(func(f *flag.Flag) { names = append(names, "-"+f.Name) })
			msg = fmt.Sprintf("unknown flag %s; the flags are %s", name, strings.Join(names, " "))
		}
		return &inputError{msg: msg}
	case fs.NArg() > 0:
		return badInput("unexpected argument %q; %q takes flags only", fs.Arg(0), "bot "+cmd.name)
	}
	return nil
}

// runAction runs the action of a command with actions ("bot corpus
// export"): args[0] names one of actions, whose names are cmd's name, a
// space and the action's; the rest of args are the action's.
func (e *env) runAction(ctx context.Context, cmd *command, actions []*command, args []string) error {
	var names []string
	for _, a := range actions {
		names = append(names, strings.TrimPrefix(a.name, cmd.name+" "))
	}
	if len(args) == 0 {
		return badInput("no action given; say %s", strings.Join(names, ", "))
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		e.commandUsage(e.stdout, cmd, newFlagSet(cmd))
		return errHelp
	}
	for _, a := range actions {
		if a.name == cmd.name+" "+args[0] {
			return a.run(ctx, e, a, args[1:])
		}
	}
	if strings.HasPrefix(args[0], "-") {
		return badInput("the action comes before the flags: say bot %s %s %s", cmd.name, strings.Join(names, "|"), args[0])
	}
	return badInput("unknown action %q; the actions are %s", args[0], strings.Join(names, ", "))
}

// commandUsage writes cmd's usage: synopsis, description and flags.
func (e *env) commandUsage(w io.Writer, cmd *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n", strings.TrimSpace("bot "+cmd.name+" "+cmd.synopsis), cmd.about)
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprint(w, "\nflags:\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
}

// helpCommand is "bot help [command]".
func helpCommand() *command {
	return &command{
		name:     "help",
		synopsis: "[command]",
		summary:  "show this overview, or a command's usage",
		about:    "Help shows the overview of all commands, or the usage and flags of one.",
		run: func(ctx context.Context, e *env, cmd *command, args []string) error {
			fs := newFlagSet(cmd)
			if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
				e.commandUsage(e.stdout, cmd, fs)
				return errHelp
			} else if err != nil {
				return &inputError{msg: err.Error()}
			}
			switch fs.NArg() {
			case 0:
				e.usage(e.stdout)
				return nil
			case 1:
				c := lookup(fs.Arg(0))
				if c == nil {
					return badInput("unknown command %q; the commands are %s", fs.Arg(0), commandNames())
				}
				return c.run(ctx, e, c, []string{"-h"})
			}
			return badInput("too many arguments %q; give at most one command name", fs.Args())
		},
	}
}

// levelsCommand is "bot levels".
func levelsCommand() *command {
	return &command{
		name:     "levels",
		synopsis: "",
		summary:  "list the AI levels",
		about: `Levels lists the computer players that -ai, -level, -x and -o accept.
neural and humanlike play the shipped weights; neural@V and humanlike@V
play version V of the board's network from the model registry instead
(see "bot models list"), loaded from the Redis serve uses.`,
		run: func(ctx context.Context, e *env, cmd *command, args []string) error {
			fs := newFlagSet(cmd)
			if err := e.parseFlags(cmd, fs, args); err != nil {
				return err
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 8, 2, ' ', 0)
			for _, l := range e.levels.Levels() {
				fmt.Fprintf(tw, "%s\t%s\n", l.Name, l.Summary)
			}
			return tw.Flush()
		},
	}
}
