package main

import (
	"context"
	"time"

	"github.com/tttbot/ttt-bot/ai/gomoku"
)

// pbrainCommand is "bot pbrain": the wide-board player on the Gomocup
// engine protocol.
func pbrainCommand() *command {
	return &command{
		name:     "pbrain",
		synopsis: "[-budget D]",
		summary:  "play gomoku over the Gomocup engine protocol on stdin and stdout",
		about: `Pbrain speaks the Gomocup engine protocol on standard input and output,
so that the wide-board player (package ai/gomoku: threat search for wins by
fours, alpha-beta over the most promising moves) can be measured against
any Gomocup engine with a Gomocup manager (piskvork, or gomocup's own),
which runs the brain as a program: give it a one-line script that runs
"bot pbrain". It understands START, RECTSTART (boards from 3x3 to 15x15),
RESTART, BEGIN, TURN x,y, BOARD ... DONE, TAKEBACK, INFO (timeout_turn and
time_left set the time per move; rule 1 is exactly five), ABOUT and END;
five in a row wins. A bad line gets an ERROR line saying what was wrong,
and the game goes on.`,
		run: runPbrain,
	}
}

// runPbrain serves the protocol until END or the end of input.
func runPbrain(ctx context.Context, e *env, cmd *command, args []string) error {
	fs := newFlagSet(cmd)
	budget := fs.Duration("budget", gomoku.DefaultBudget, "time per move until the manager's INFO timeout_turn")
	if err := e.parseFlagsArgs(cmd, fs, args); err != nil {
		return err
	}
	if *budget <= 0 {
		return badInput("-budget %s: the time per move must be positive, like 1s or 500ms", *budget)
	}
	br := &gomoku.Brain{
		About:  `name="ttt-bot", version="1", author="ttt-bot developers", country="-"`,
		Budget: *budget,
		Now:    func() time.Time { return e.now() },
	}
	return br.Run(ctx, e.stdin, e.stdout)
}
