package main

import (
	"context"
	"fmt"
	"time"

	"github.com/tttbot/ttt-bot/ai/gomoku"
	"github.com/tttbot/ttt-bot/game/wide"
)

// gomocupCommand is "bot gomocup": a match of the wide-board player
// against a Gomocup engine.
func gomocupCommand() *command {
	return &command{
		name:     "gomocup",
		synopsis: "-engine PATH [-rules R] [-games N] [-turn D] [-seed S] [-v]",
		summary:  "play a match of the wide-board player against a Gomocup engine",
		about: `Gomocup plays the wide-board player (package ai/gomoku, as "bot pbrain"
plays it) against a Gomocup engine: a program speaking the Gomocup
protocol on stdin and stdout (a "pbrain" executable), run from -engine.
Each opening (three stones near the centre, chosen by -seed) is played
twice, once with each colour, and both sides get -turn per move (the
engine through INFO timeout_turn). An engine that answers with an illegal
move, or not within three times -turn and a second, loses the game by
forfeit. It prints the score, the wins, draws and losses as X and as O,
and with -v every game's record.`,
		run: runGomocup,
	}
}

// runGomocup plays the match.
func runGomocup(ctx context.Context, e *env, cmd *command, args []string) error {
	fs := newFlagSet(cmd)
	path := fs.String("engine", "", "the engine program to play against")
	rs := fs.String("rules", "gomoku", "the rules: a square board, 5 in a row (gomoku, standard-gomoku, 15x15k5, 15x15k5e)")
	games := fs.Int("games", 100, "games in all (an even number plays every opening with both colours)")
	turn := fs.Duration("turn", time.Second, "time per move for both sides")
	seed := fs.Uint64("seed", 1, "chooses the openings")
	verbose := fs.Bool("v", false, "print every game's record")
	if err := e.parseFlagsArgs(cmd, fs, args); err != nil {
		return err
	}
	if *path == "" {
		return badInput("-engine is required: the Gomocup engine program to play against, like -engine ./pbrain-carbon")
	}
	r, err := wide.ParseRules(*rs)
	if err != nil {
		return badInput("-rules %q: %s", *rs, explain(err))
	}
	if r.Rows() != r.Cols() || r.K() != 5 {
		return badInput("-rules %s: a match needs a square board and five in a row (the protocol's START takes one size, its engines play five)", r)
	}
	if *games < 1 || *turn <= 0 {
		return badInput("-games must be at least 1 and -turn positive")
	}
	eng, err := gomoku.StartEngine(ctx, *path)
	if err != nil {
		return err
	}
	defer eng.Close()
	start := e.now()
	res, err := gomoku.PlayMatch(ctx, eng, gomoku.New(gomoku.Options{}), gomoku.MatchOptions{
		Rules: r, Games: *games, Turn: *turn, Seed: *seed,
		Progress: func(g gomoku.GameResult) {
			if *verbose {
				fmt.Fprintf(e.stdout, "game %d (we are %s): %s %s\n", g.Game, g.Us, g.Result, g.Record)
				if g.Forfeit != "" {
					fmt.Fprintf(e.stdout, "  forfeit: %s\n", g.Forfeit)
				}
			}
		},
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "engine: %s\n", eng.About)
	fmt.Fprintf(e.stdout, "rules: %s, %d games, %s a move, openings from seed %d\n", r.Name(), *games, *turn, *seed)
	fmt.Fprintf(e.stdout, "score: %.1f%% for ttt-bot\n", 100*res.Score())
	fmt.Fprintf(e.stdout, "as X: %d wins, %d draws, %d losses\n", res.Wins[0], res.Draws[0], res.Losses[0])
	fmt.Fprintf(e.stdout, "as O: %d wins, %d draws, %d losses\n", res.Wins[1], res.Draws[1], res.Losses[1])
	fmt.Fprintf(e.stdout, "engine forfeits: %d; our longest move: %s\n", res.Forfeits, shortDuration(res.OurMoveTime))
	fmt.Fprintf(e.stdout, "time: %s\n", shortDuration(e.now().Sub(start)))
	return nil
}
