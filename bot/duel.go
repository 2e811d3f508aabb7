package bot

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/sched"
)

// duelHandoff is how long /ttt ai-duel waits for the RunSweeper loop to
// take a new duel.
const duelHandoff = time.Second

// duelJob is a duel handed to the RunSweeper loop.
type duelJob struct {
	game persistence.GameID
	// loc is the locale the board was posted in, which its edits keep
	// unless the server sets a language meanwhile (see editBoard).
	loc discordgo.Locale
}

// The route of /ttt ai-duel (see routes.go).
func init() {
	routeCommand(command.Path(command.Name, command.SubAIDuel), (*Bot).duel, playable)
}

// duel starts an AI duel: the board is posted, and the RunSweeper loop
// plays one move per Options.DuelStep by editing it.
func (b *Bot) duel(ctx context.Context, c *call, r command.AIDuelRequest) error {
	if !c.settings.Duels {
		return userErr(KeyDuelsOff)
	}
	x, o := r.X, r.O
	for _, level := range []string{x.Level, o.Level} {
		if err := b.checkLevel(c.loc, level, r.Rules, r.Wide); err != nil {
			return err
		}
	}
	if err := b.admitGame(c, "duel", command.RulesKey(r.Rules, r.Wide), persistence.Seat{AI: x}, persistence.Seat{AI: o}); err != nil {
		return err
	}
	if !r.SeedSet {
		x.Seed, o.Seed = b.seed(), b.seed()
	}
	s, err := b.store.CreateGame(ctx, c.i.ChannelID, persistence.Session{
		Rules: command.RulesKey(r.Rules, r.Wide), Players: [2]persistence.Seat{{AI: x}, {AI: o}}, Guild: c.i.GuildID,
		Status: persistence.StatusActive,
	})
	if err != nil {
		return err
	}
	if err := b.showBoard(ctx, c, s, respMessage, nil); err != nil {
		return err
	}
	select {
	case b.lc.duels <- duelJob{game: s.ID, loc: c.pub}:
		return nil
	case <-time.After(duelHandoff):
	case <-ctx.Done():
	}
	// Nobody plays duels in this process: end it, and say so.
	c.warnings = append(c.warnings, fmt.Errorf("bot: duel %s not started: no RunSweeper loop", s.ID))
	if s, err = b.store.EndByModerator(ctx, s.ID, 0); err != nil {
		return err
	}
	data, err := b.render.Board(c.pub, c.labels, s, nil)
	if err != nil {
		return err
	}
	return b.editOriginal(ctx, c, data)
}

// runDuel plays duel job to its end, one move per step, editing its board
// after each move. When ctx ends first, the duel is ended (without a
// result) and its board says it was stopped.
func (b *Bot) runDuel(ctx context.Context, job duelJob) {
	log := b.log.With("game", string(job.game))
	err := b.playDuel(ctx, job)
	if err == nil {
		return
	}
	if ctx.Err() == nil {
		log.Error("bot: AI duel failed", "err", err)
	}
	// Stop it, even though ctx is done: the board must not stay live.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), editTimeout)
	defer cancel()
	s, err := retry(func() (*persistence.Session, error) { return b.store.EndByModerator(sctx, job.game, 0) })
	if errors.Is(err, persistence.ErrNotLive) {
		return
	}
	if err != nil {
		log.Error("bot: stop an AI duel", "err", err)
		return
	}
	if err := b.editBoard(sctx, job.loc, s, nil); err != nil {
		log.Error("bot: show a stopped AI duel", "err", err)
	}
}

// duelReshows is how many steps a finished duel whose last edit failed
// keeps trying to show its result.
const duelReshows = 30

// playDuel plays the duel until it is over, ctx ends or a move fails. A
// failed edit of its board does not stop it: the duel's state is in
// Redis, so the failure is logged (and counted by the retrying Discord)
// and the next step shows the board as it then is; a finished duel whose
// last edit failed tries again each step, up to duelReshows times.
func (b *Bot) playDuel(ctx context.Context, job duelJob) error {
	s, err := b.store.Game(ctx, job.game)
	if err != nil {
		return err
	}
	t := time.NewTimer(b.lc.duelStep)
	defer t.Stop()
	var ratings []render.PlayerRating
	shown, reshows := true, 0
	for {
		seat, ok, err := aiToMove(s)
		if err != nil {
			return err
		}
		if !ok && s.Status.Live() {
			return fmt.Errorf("bot: duel %s has a human to move", s.ID)
		}
		if !ok && (shown || reshows >= duelReshows) {
			if !shown {
				// Its failed edits left the board owed: a sweeper shows it.
				b.log.Warn("bot: the result of an AI duel is not shown yet; it is owed to the screen", "game", string(s.ID))
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		t.Reset(b.lc.duelStep)
		if ok {
			if s, err = b.duelMove(ctx, s, seat); err != nil {
				return err
			}
			if s.Status == persistence.StatusFinished {
				if ratings, err = b.finishGame(ctx, s); err != nil {
					b.log.Warn("bot: record an AI duel", "game", string(s.ID), "err", err)
				}
			}
		} else {
			reshows++
		}
		if err := b.editBoard(ctx, job.loc, s, ratings); err != nil {
			b.log.Warn("bot: show an AI duel; the next step tries again", "game", string(s.ID), "err", err)
			shown = false
			continue
		}
		shown = true
	}
}

// duelMove plays the next move of a duel: a heavy AI's on a worker of
// the AI queue as Batch work, so that players' replies go first.
func (b *Bot) duelMove(ctx context.Context, s *persistence.Session, seat persistence.Seat) (*persistence.Session, error) {
	return b.thinkAndPlay(ctx, sched.Job{Class: sched.Batch, Group: s.Guild, User: "duel:" + string(s.ID)}, s, seat, nil)
}
