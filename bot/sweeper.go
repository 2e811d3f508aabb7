package bot

import (
	"context"
	"sync"
	"time"

	"github.com/tttbot/ttt-bot/persistence"
)

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
			b.sweep(ctx)
		}
	}
}

// sweep applies the deadlines due now, batch by batch.
func (b *Bot) sweep(ctx context.Context) {
	for ctx.Err() == nil {
		changed, err := b.store.Sweep(ctx, sweepBatch)
		for _, s := range changed {
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
	if err := b.editBoard(ctx, DefaultLocale, s, ratings); err != nil {
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
