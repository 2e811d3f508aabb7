package bot

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai/gomoku"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/game/wide"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/sched"
)

// Past 8x8 (game/wide's boards, gomoku among them): the swap opening's
// choice of a side, the daily puzzles (wins by fours) and the reviews
// (wins by fours proved, the rest estimated), all ai/gomoku's. Moves on
// these boards are bigboard.go's.

// The route of the swap opening's buttons (see routes.go).
func init() {
	routeComponent(false, (*Bot).takeSide, customid.ActionTakeX, customid.ActionTakeO)
}

// takeSide is O's player's choice of a side at the end of a swap opening
// (the Take ❌ and Take ⭕ buttons); then the game goes on, the computer
// replying if it is to move.
func (b *Bot) takeSide(ctx context.Context, c *call, id customid.ID) error {
	s, err := b.store.Game(ctx, id.Game)
	if err != nil {
		return err
	}
	board, err := s.Board()
	switch {
	case err != nil:
		return err
	case s.SideOf(c.user) == game.Empty:
		return userErr(render.KeyNotYourGame)
	case !s.Status.Live():
		return userErr(render.KeyGameOver)
	case s.Ply() != id.Move || !s.SwapPending(board):
		return userErr(render.KeyBoardChanged)
	case s.Seat(game.O).User != c.user:
		return userErr(render.KeyNotYourTurn)
	}
	side := game.O
	if id.Action == customid.ActionTakeX {
		side = game.X
	}
	next, err := b.store.ChooseSide(ctx, s.ID, s.Version, c.user, side)
	if err != nil {
		return err
	}
	return b.continueGame(ctx, c, next, respUpdate)
}

// wideReviewBudget is what the review's search spends valuing each
// position past 8x8 (the wins by fours are searched besides).
const wideReviewBudget = 40 * time.Millisecond

// reviewWideGame answers at once (a deferred public message), reviews a
// finished game past 8x8 on a worker of the AI queue as Batch work (wins
// by fours proved, the rest estimated: ai/gomoku's ReviewGame) and edits
// the answer into the review.
func (b *Bot) reviewWideGame(ctx context.Context, c *call, g *persistence.ArchivedGame) error {
	rec, err := g.WideRecord()
	if err != nil {
		return err
	}
	if err := b.admit(c, sched.Batch, "review"); err != nil {
		return err
	}
	if err := b.respond(ctx, c, respDeferred, nil); err != nil {
		return err
	}
	var rv *gomoku.Review
	err = b.work(ctx, jobOf(c, sched.Batch), func(ctx context.Context, _ sched.Start) error {
		var err error
		rv, err = gomoku.ReviewGame(ctx, rec.Rules, rec.Moves, wideReviewBudget)
		return err
	})
	if err != nil {
		return fmt.Errorf("bot: review of %s: %w", g.ID, err)
	}
	data, err := b.render.WideReview(c.pub, g, rv)
	if err != nil {
		return err
	}
	empty := []discordgo.MessageComponent{}
	if _, err := b.dc.InteractionResponseEdit(c.i, &discordgo.WebhookEdit{
		Content: &data.Content, Embeds: &data.Embeds, Components: &empty, AllowedMentions: data.AllowedMentions,
	}, discordgo.WithContext(ctx)); err != nil {
		return fmt.Errorf("bot: edit review of %s: %w", g.ID, err)
	}
	c.deferred = false
	return nil
}

// widePuzzleLevel defends a puzzle past 8x8: it blocks every four.
const widePuzzleLevel = "minimax"

// widePuzzle starts the day's puzzle on a board past 8x8: a win by fours
// of a stated length (ai/gomoku's GeneratePuzzle, drawn once a day per
// server and board and kept in Redis), played out against minimax, which
// blocks each four; a move that lets the win by fours go fails it.
func (b *Bot) widePuzzle(ctx context.Context, c *call, rules wide.Rules) error {
	day := b.now().UTC().Format(dayFormat)
	key := rules.String()
	if err := b.admitGame(c, "puzzle", key, persistence.Seat{AI: persistence.AI{Level: widePuzzleLevel}}); err != nil {
		return err
	}
	posText, deferred, err := b.dailyPuzzle(ctx, c, day, key, func(ctx context.Context) (string, error) {
		p, err := gomoku.GeneratePuzzle(ctx, rules, seedOf(c.i.GuildID+"/"+day+"/"+key))
		if err != nil {
			return "", err
		}
		return p.Position.String(), nil
	})
	if errors.Is(err, gomoku.ErrNoPuzzle) || errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		err = &UserError{Key: KeyNoPuzzle, Vars: []string{"rules", b.render.WideRulesText(c.loc, rules)}, Err: err}
	}
	if err != nil {
		return err
	}
	start, err := wide.ParsePosition(rules, posText)
	if err != nil {
		return fmt.Errorf("bot: stored puzzle of %s %s: %w", day, key, err)
	}
	return b.startAttempt(ctx, c, key, start.ToMove(), widePuzzleLevel, day, posText, deferred)
}

// judgeWidePuzzle checks the user's last move in a puzzle past 8x8: one
// that neither wins nor keeps a win by fours ends the attempt (as a
// resignation, so it counts as failed).
func (b *Bot) judgeWidePuzzle(ctx context.Context, s *persistence.Session, user string) (*persistence.Session, error) {
	if len(s.WideMoves) == 0 {
		return s, nil
	}
	before := *s
	before.WideMoves = s.WideMoves[:len(s.WideMoves)-1]
	bb, err := before.Board()
	if err != nil {
		return s, err
	}
	keeps, known := gomoku.KeepsWinByFours(bb.Wide(), s.WideMoves[len(s.WideMoves)-1])
	if !known || keeps {
		return s, nil // the move stands (unknown: the search found no win to judge by)
	}
	return retry(func() (*persistence.Session, error) { return b.store.Resign(ctx, s.ID, 0, user) })
}
