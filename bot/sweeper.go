package bot

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/sched"
)

// Sweeps is how many sweeps RunSweeper has finished, with all the work
// each started (deadlines, tournaments, owed boards): a test waits for a
// number of them to show that a sweep did not act.
func (b *Bot) Sweeps() int64 { return b.sweeps.Load() }

// sweepBatch is how many due games one Store.Sweep call claims.
const sweepBatch = 100

// RunSweeper runs the bot's background work until ctx is done, then
// returns once that work has stopped: every interval it applies the
// deadlines that have passed (Store.Sweep, so across any number of
// processes each applies once), which loses games on time and expires
// challenges and abandoned games, edits their messages to the final state
// and records the finished games; and it plays the AI duels started with
// /ttt ai-duel and the retrains started with /ttt-admin retrain, which
// stop cleanly (their messages say so) when ctx ends. Without a running
// RunSweeper, /ttt ai-duel and /ttt-admin retrain are refused.
func (b *Bot) RunSweeper(ctx context.Context, every time.Duration) {
	if every <= 0 {
		every = time.Second
	}
	var duels sync.WaitGroup
	defer duels.Wait()
	duels.Add(1)
	go func() {
		defer duels.Done()
		b.watchSettings(ctx)
	}()
	tick := time.NewTicker(every)
	defer tick.Stop()
	start := func(job duelJob) {
		duels.Add(1)
		go func() {
			defer duels.Done()
			b.runDuel(ctx, job)
		}()
	}
	startRetrain := func(run *retrainRun) {
		duels.Add(1)
		go func() {
			defer duels.Done()
			b.runRetrain(ctx, run)
		}()
	}
	for {
		select {
		case <-ctx.Done():
			// A duel handed over just as ctx ended is still taken, so it
			// is ended (and its board says so) now rather than after the
			// hand-off times out.
			for {
				select {
				case job := <-b.lc.duels:
					start(job)
				case run := <-b.lc.retrains:
					startRetrain(run)
				default:
					return
				}
			}
		case job := <-b.lc.duels:
			start(job)
		case run := <-b.lc.retrains:
			startRetrain(run)
		case <-tick.C:
			var work sync.WaitGroup // this sweep's work, counted in Sweeps when done
			spawn := func(f func()) {
				duels.Add(1)
				work.Add(1)
				go func() {
					defer duels.Done()
					defer work.Done()
					f()
				}()
			}
			b.sweep(ctx, spawn)
			b.sweepTournaments(ctx, spawn)
			b.deliverOwedBoards(ctx, spawn)
			duels.Add(1)
			go func() {
				defer duels.Done()
				work.Wait()
				b.sweeps.Add(1)
			}()
		}
	}
}

// sweep applies the deadlines due now, batch by batch; the computer's
// overdue replies it hands to spawn, which plays each in a goroutine of
// its own.
func (b *Bot) sweep(ctx context.Context, spawn func(func())) {
	for ctx.Err() == nil {
		changed, err := b.store.Sweep(ctx, sweepBatch)
		for _, s := range changed {
			if s.Status == persistence.StatusActive {
				spawn(func() { b.overdueAI(ctx, s) })
				continue
			}
			b.afterDeadline(ctx, s)
		}
		if err != nil {
			if ctx.Err() == nil {
				b.log.Error("bot: sweep deadlines", "err", err)
			}
			return
		}
		if len(changed) < sweepBatch {
			return
		}
	}
}

// afterDeadline records a game the sweeper ended and shows its end on its
// message. The sweeper that changed the game is the only one that gets it,
// so this runs once per game.
func (b *Bot) afterDeadline(ctx context.Context, s *persistence.Session) {
	log := b.log.With("game", string(s.ID), "status", s.Status.String(), "end", s.End.String())
	ratings, err := b.finishGame(ctx, s)
	if err != nil {
		log.Warn("bot: record a game ended by its deadline", "err", err)
	}
	if err := b.editBoard(ctx, i18n.DefaultLocale, s, ratings); err != nil {
		log.Warn("bot: show a game ended by its deadline", "err", err)
		return
	}
	log.Debug("bot: deadline applied")
}

// watchSettings runs WatchSettings until ctx is done, subscribing again
// (after a pause, with every cached server dropped) when it fails.
func (b *Bot) watchSettings(ctx context.Context) {
	for pause := time.Second; ctx.Err() == nil; pause = min(2*pause, time.Minute) {
		if err := b.WatchSettings(ctx); err != nil && ctx.Err() == nil {
			b.log.Warn("bot: settings changes not watched; retrying", "err", err, "in", pause)
		}
		b.settingsCache.drop("")
		select {
		case <-ctx.Done():
		case <-time.After(pause):
		}
	}
}

// overdueAI plays the computer's reply in s, which is overdue (the
// process that was to play it stopped, or its queue could not serve it in
// time), records the game if that ends it, and edits its board. A reply
// played meanwhile by someone else wins: then nothing happens.
func (b *Bot) overdueAI(ctx context.Context, s *persistence.Session) {
	log := b.log.With("game", string(s.ID))
	seat, ok, err := aiToMove(s)
	if err != nil || !ok {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, b.handlerTimeout)
	defer cancel()
	human := s.Seat(game.X).User + s.Seat(game.O).User // one of them is empty
	next, err := b.thinkAndPlay(ctx, sched.Job{Class: sched.Interactive, Group: s.Guild, User: human}, s, seat, always)
	if errors.Is(err, persistence.ErrConflict) || errors.Is(err, persistence.ErrNotYourTurn) || errors.Is(err, persistence.ErrNotLive) {
		log.Debug("bot: overdue AI reply already played", "err", err)
		return
	}
	if err != nil {
		log.Warn("bot: play an overdue AI reply", "err", err)
		return
	}
	var ratings []render.PlayerRating
	if next.Status == persistence.StatusFinished {
		if ratings, err = b.finishGame(ctx, next); err != nil {
			log.Warn("bot: record a game ended by an overdue AI reply", "err", err)
		}
	}
	if err := b.editBoard(ctx, i18n.DefaultLocale, next, ratings); err != nil {
		log.Warn("bot: show an overdue AI reply", "err", err)
		return
	}
	log.Info("bot: overdue AI reply played by the sweeper")
}
