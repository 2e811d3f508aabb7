package bot

import (
	"context"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/ai/gomoku"
	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/game/wide"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/sched"
)

// Keys of the replies to /ttt hint.
const (
	// KeyHintRated refuses a hint in a game between people.
	KeyHintRated = "reply.hint_rated"
	// KeyHintPuzzle refuses a hint in a daily puzzle.
	KeyHintPuzzle = "reply.hint_puzzle"
	// KeyHintWait refuses a hint while the computer is to move.
	KeyHintWait = "reply.hint_wait"
)

// hintTimeout bounds the solve behind a hint; past it the hint is the
// search's best guess and says so.
const hintTimeout = 2 * time.Second

// The route of /ttt hint (see routes.go).
func init() {
	routeCommand(command.Path(command.Name, command.SubHint),
		func(b *Bot, ctx context.Context, c *call, _ command.HintRequest) error { return b.hint(ctx, c) })
}

// hint shows the user, privately, the best moves in their game against
// the computer in this channel, and marks their side of the game as
// assisted (in the history, and in the corpus so that the human-move
// network does not learn from it).
func (b *Bot) hint(ctx context.Context, c *call) error {
	s, err := b.activeSession(ctx, c)
	if err != nil {
		return err
	}
	side := s.SideOf(c.user)
	st, err := b.settings(ctx, c, c.i.GuildID)
	if err != nil {
		return err
	}
	switch {
	case !st.Hints:
		return userErr(KeyHintsOff)
	case side == game.Empty || !s.Seat(side.Other()).IsAI():
		return userErr(KeyHintRated)
	case s.Puzzle != "":
		return userErr(KeyHintPuzzle)
	case s.Status != persistence.StatusActive:
		return userErr(render.KeyGameOver)
	}
	board, err := s.Board()
	if err != nil {
		return err
	}
	if board.ToMove() != side {
		return userErr(KeyHintWait)
	}
	pos := board.Small()
	solve := func(ctx context.Context) (render.HintResult, error) { return bestMoves(ctx, pos) }
	if board.IsWide() {
		solve = func(ctx context.Context) (render.HintResult, error) { return wideBestMove(ctx, board.Wide()) }
	}
	if board.IsWide() || pos.Rules().Size() > smallBoard {
		// A solve can take a second on 5x5: it waits for a worker of the
		// AI queue, and is refused when the queue is too long.
		if err := b.admit(c, sched.Batch, "hint"); err != nil {
			return err
		}
		solve = func(ctx context.Context) (h render.HintResult, err error) {
			err = b.work(ctx, jobOf(c, sched.Batch), func(ctx context.Context, _ sched.Start) error {
				h, err = bestMoves(ctx, pos)
				return err
			})
			return h, err
		}
	}
	// Answer at once, privately, and edit the hint in.
	if err := b.respond(ctx, c, respDeferred, &discordgo.InteractionResponseData{Flags: discordgo.MessageFlagsEphemeral}); err != nil {
		return err
	}
	h, err := solve(ctx)
	if err == nil {
		// Mark first: a hint shown must never go unrecorded.
		_, err = b.store.MarkAssisted(ctx, s.ID, side)
	}
	if err != nil {
		return err // the deferral's message says so
	}
	return b.editOriginal(ctx, c, b.render.Hint(c.loc, side, h))
}

// wideBestMove is the hint on a wide board: the wide-board player's move
// within half the hint's time, an estimate.
func wideBestMove(ctx context.Context, pos wide.Position) (render.HintResult, error) {
	c, err := gomoku.New(gomoku.Options{Budget: hintTimeout / 2}).Move(ctx, pos)
	if err != nil {
		return render.HintResult{}, err
	}
	return render.HintResult{Names: []string{c.String()}, Value: game.Ongoing}, nil
}

// bestMoves solves pos for its best moves: those a perfect player keeps
// (the fastest win, the slowest loss, or every drawing move); an MCTS
// estimate when the solve does not finish in hintTimeout.
func bestMoves(ctx context.Context, pos game.Position) (render.HintResult, error) {
	sctx, cancel := context.WithTimeout(ctx, hintTimeout)
	defer cancel()
	a, best, err := ai.NewSolver().PerfectChoices(sctx, pos, -1)
	if err == nil {
		h := render.HintResult{Moves: best, Value: a.Value}
		for _, mv := range a.Moves {
			if len(best) > 0 && mv.Cell == best[0] {
				h.Plies = mv.Plies
			}
		}
		return h, nil
	}
	if ctx.Err() != nil {
		return render.HintResult{}, ctx.Err()
	}
	m, err := ai.NewMCTS(ai.Options{Seed: seedOf(pos.String()), Budget: hintTimeout / 2})
	if err != nil {
		return render.HintResult{}, err
	}
	c, err := m.Move(ctx, pos)
	if err != nil {
		return render.HintResult{}, err
	}
	return render.HintResult{Moves: []game.Cell{c}, Value: game.Ongoing}, nil
}
