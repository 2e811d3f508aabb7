package retrain

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// Periodic retrains, every Config.Interval until ctx is done, each of
// Config.Rules that has at least Config.MinNewGames new finished games
// since its last completed run, one after the other, with Trigger
// "periodic". It returns at once when Interval is 0. A run held off by
// another process's run (ErrRunning) is not an error: the round stops
// there and the next tick tries again. Results and errors go to logger.
func (j *Job) Periodic(ctx context.Context, logger *slog.Logger) {
	if j.cfg.Interval <= 0 {
		return
	}
	t := time.NewTicker(j.cfg.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		j.tick(ctx, logger)
	}
}

// tick is one round of Periodic.
func (j *Job) tick(ctx context.Context, logger *slog.Logger) {
	for _, rules := range j.cfg.Rules {
		if ctx.Err() != nil {
			return
		}
		key := rules.String()
		n, err := j.NewGames(ctx, rules)
		if err != nil {
			logger.Error("retrain: counting new games", "rules", key, "err", err)
			continue
		}
		if n < j.cfg.MinNewGames {
			logger.Debug("retrain: not enough new games", "rules", key, "new_games", n, "min_new_games", j.cfg.MinNewGames)
			continue
		}
		rep, err := j.Run(ctx, Request{Rules: rules, Trigger: TriggerPeriodic, By: j.cfg.Owner}, nil)
		switch {
		case errors.Is(err, ErrRunning):
			logger.Info("retrain: another job is running; trying again next time", "rules", key, "err", err)
			return
		case err != nil:
			logger.Error("retrain: periodic run failed", "rules", key, "outcome", rep.Outcome, "err", err)
		default:
			attrs := []any{"rules", key, "outcome", rep.Outcome, "reason", rep.Reason,
				"new_games", rep.Corpus.NewGames, "corrupt", rep.Corpus.Corrupt}
			if rep.Published != nil {
				attrs = append(attrs, "version", rep.Published.Version)
			}
			logger.Info("retrain: periodic run", attrs...)
		}
	}
}

// NewGames counts the valid corpus records of rules appended after the
// job's checkpoint: the games the next run would count as new.
func (j *Job) NewGames(ctx context.Context, rules game.Rules) (int, error) {
	key := rules.String()
	since, err := j.store.Checkpoint(ctx, key, Consumer)
	if err != nil {
		return 0, fmt.Errorf("retrain: %w", err)
	}
	n := 0
	if _, err := j.store.ScanCorpus(ctx, key, since, func(persistence.CorpusEntry) error { n++; return nil }, nil); err != nil {
		return 0, fmt.Errorf("retrain: counting new %s games: %w", key, err)
	}
	return n, nil
}
