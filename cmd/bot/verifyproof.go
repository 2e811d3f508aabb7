package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/tttbot/ttt-bot/ai/proof"
)

// verifyProofCommand is "bot verify-proof FILE": check a certificate.
func verifyProofCommand() *command {
	return &command{
		name:     "verify-proof",
		synopsis: "FILE",
		summary:  "check a certificate written by \"bot solve -proof\"",
		about: `Verify-proof reads a certificate of a position's value, as "bot solve
-proof FILE" writes it, and checks it with code that shares nothing with
the search but the game's rules (package ai/proof): every move is legal,
every move of the side that is not proving is answered, every line of
play ends in a win for the prover, a full board, or (for a hold: the
other side cannot win) a pairing strategy that blocks every line the
attacker can still complete. It prints what was proved and exits 0, or
says what is wrong and where, and exits 1 (2 for a file that is not a
certificate at all).`,
		run: runVerifyProof,
	}
}

// runVerifyProof parses and checks the certificate named by the one argument.
func runVerifyProof(ctx context.Context, e *env, cmd *command, args []string) error {
	fs := newFlagSet(cmd)
	if err := e.parseFlagsArgs(cmd, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return badInput("give one certificate file, like: bot verify-proof 6x6k5.proof")
	}
	name := fs.Arg(0)
	f, err := os.Open(name)
	if err != nil {
		return badInput("%v", err)
	}
	defer f.Close()
	start := e.now()
	c, err := proof.Parse(f)
	if errors.Is(err, proof.ErrFormat) {
		return badInput("%s: %s", name, err)
	}
	if err != nil {
		return err
	}
	rep, err := proof.Verify(ctx, c)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	fmt.Fprintf(e.stdout, "valid: %s %s (%s to move): %s\nchecked: %d positions, %d moves, %d pairings\ntime: %s\n",
		c.Position.Rules(), c.Position, c.Position.ToMove(), c.Value, rep.Positions, rep.Moves, rep.Pairings, shortDuration(e.now().Sub(start)))
	return nil
}
