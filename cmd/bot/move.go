package main

import (
	"context"
	"fmt"
)

// moveCommand is "bot move": one AI move, for scripts.
func moveCommand() *command {
	return &command{
		name:     "move",
		synopsis: "-level L [-rules R] [-position P] [-seed N] [level options]",
		summary:  "print the move an AI level chooses in a position",
		about: `Move asks an AI level for its move in a position and prints it as
"row col" (0-based) on one line, with nothing else on standard output. It
exits 0 on success, 2 on bad input (with a message on standard error) and 1
if the level fails. With the same -seed the same move is printed.`,
		run: runMove,
	}
}

// runMove parses move's flags and prints the level's move.
func runMove(ctx context.Context, e *env, cmd *command, args []string) error {
	fs := newFlagSet(cmd)
	level := fs.String("level", "", "the AI `level` to ask, like \"easy\" (see \"bot levels\"); required")
	rules := fs.String("rules", "3x3k3", rulesHelp)
	position := fs.String("position", "", positionHelp)
	var lf levelFlags
	lf.register(fs, "", "the level")
	var seed seedFlag
	seed.register(fs, "`seed` for the level's random choices, for a repeatable answer (default a random seed)")
	if err := e.parseFlags(cmd, fs, args); err != nil {
		return err
	}
	p, err := parseGame(fs, *rules, *position)
	if err != nil {
		return err
	}
	if p.Over() {
		return badInput("-position %q is finished (%s); there is no move to make", *position, p.Outcome().Result)
	}
	if err := e.loadLevelVersions(ctx, p.Rules(), levelSpec{"-level", *level}); err != nil {
		return err
	}
	if err := e.checkNetwork("-level", *level, p.Rules()); err != nil {
		return err
	}
	player, err := e.newPlayer("-level", *level, lf.options(seed.resolve(e)))
	if err != nil {
		return err
	}
	c, err := player.Move(ctx, p)
	if err != nil {
		return fmt.Errorf("%s found no move: %w", *level, err)
	}
	if _, err := p.Play(c); err != nil {
		return fmt.Errorf("%s chose an illegal move: %w", *level, err)
	}
	_, err = fmt.Fprintln(e.stdout, c.RowCol())
	return err
}
