package bot

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/tourney"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// tournamentDue is how long the sweeper waits before it looks at a
// running tournament again when nothing pokes it.
const tournamentDue = time.Minute

// How a tournament runs by itself. The sweeper of every bot process
// claims due tournaments (persistence.ClaimDueTournaments: one process at
// a time per tournament) and runs runTournament on each:
//
//  1. a sign-up whose start time has come starts (or is cancelled with
//     fewer than two players);
//  2. the results of its finished games go into the record;
//  3. what can be paired is paired (tourney.Advance), and the round's
//     standings, the next round's announcement or the final message are
//     posted by the process whose compare-and-set made the change;
//  4. every pairing without a game gets one, posted as a board in the
//     tournament's channel; the computer's moves are played where it is to
//     move (a computer player's game goes the same way as /ttt vs-ai).
//
// Each step is a compare-and-set on the record, so a step that two
// processes try is done once, and one that a stopped process left half
// done is finished by the next sweep. A game that ends pokes its
// tournament (finishGame), so results are taken up within a sweep; while
// a round is on, the tournament is due every tournamentDue anyway.

// tournamentSweepBatch is how many due tournaments one sweep claims, and
// tournamentWork how long one tournament's step may take: well inside the
// claim's lease (a minute), so that no other process claims it meanwhile.
const (
	tournamentSweepBatch = 8
	tournamentWork       = 40 * time.Second
)

// sweepTournaments runs the due tournaments, each in a goroutine of spawn
// (they play computer moves and post boards, which take time), at most
// tournamentSweepBatch at once in this process: it claims only as many as
// it has room for.
func (b *Bot) sweepTournaments(ctx context.Context, spawn func(func())) {
	free := cap(b.lc.tournamentSlots) - len(b.lc.tournamentSlots)
	if free <= 0 {
		return
	}
	claims, err := b.store.ClaimDueTournaments(ctx, b.now(), free)
	if err != nil {
		if ctx.Err() == nil {
			b.log.Error("bot: claim tournaments", "err", err)
		}
		return
	}
	for _, c := range claims {
		b.lc.tournamentSlots <- struct{}{}
		spawn(func() {
			defer func() { <-b.lc.tournamentSlots }()
			wctx, cancel := context.WithTimeout(ctx, tournamentWork)
			defer cancel()
			var notBefore time.Time
			err := b.runTournament(wctx, c.ID)
			actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), editTimeout)
			defer cancel()
			switch {
			case err == nil:
			case ctx.Err() != nil:
				// This process is stopping: due at once, so that another
				// one finishes the step now rather than at the next look.
				if err := b.store.PokeTournament(actx, c.ID); err != nil {
					b.log.Error("bot: hand a tournament over", "tournament", c.ID, "err", err)
				}
			default:
				// Tried again at the next regular look, not every sweep.
				notBefore = b.now().Add(tournamentDue)
				b.log.Error("bot: run tournament", "tournament", c.ID, "err", err)
			}
			if err := b.store.AckTournament(actx, c, notBefore); err != nil {
				b.log.Error("bot: release tournament", "tournament", c.ID, "err", err)
			}
		})
	}
}

// errUnchanged ends an UpdateTournament whose step has nothing to do.
var errUnchanged = errors.New("bot: tournament unchanged")

// tournamentRand is a random source for one step (elimination coin flips).
func (b *Bot) tournamentRand() *rand.Rand {
	return rand.New(rand.NewPCG(b.seed(), b.seed()))
}

// runTournament does what is due for tournament id (see above).
func (b *Bot) runTournament(ctx context.Context, id string) error {
	t, err := b.store.Tournament(ctx, id)
	if errors.Is(err, persistence.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	v, err := b.publicView(ctx, nil, t.Guild, i18n.DefaultLocale)
	loc := v.loc
	if err != nil {
		b.log.Warn("bot: tournament in its fallback language", "tournament", id, "err", err)
	}
	if t, err = b.startDueTournament(ctx, loc, t); err != nil {
		return err
	}
	switch t.Status {
	case persistence.TournamentCancelled:
		return b.endCancelled(ctx, loc, t)
	case persistence.TournamentSignup:
		return nil
	}
	done, err := b.finishedTournamentGames(ctx, t)
	if err != nil {
		return err
	}
	if t.Status == persistence.TournamentRunning {
		if t, err = b.advanceTournament(ctx, t, done); err != nil {
			return err
		}
	}
	t, outErr := b.postOutbox(ctx, loc, t)
	if t.Status != persistence.TournamentRunning {
		return outErr
	}
	// A post that fails (a permission, a rate limit) holds up no game.
	retry, err := b.playTournamentGames(ctx, v, t)
	if retry > 0 && err == nil && outErr == nil {
		// A player is finishing another game in the channel: their
		// tournament game starts soon after, not at the next regular look.
		// (After an error, the retry waits for that look.)
		err = b.store.PokeTournamentAt(ctx, t.ID, b.now().Add(retry))
	}
	return errors.Join(outErr, err)
}

// startDueTournament starts t if it is still signing up and its start
// time has come, or cancels it when too few players signed up, and edits
// its signup message. It returns t as it is now, unchanged when it was
// not due or another process got there first.
func (b *Bot) startDueTournament(ctx context.Context, loc discordgo.Locale, t *persistence.Tournament) (*persistence.Tournament, error) {
	now := b.now()
	if t.Status != persistence.TournamentSignup || t.StartAt.IsZero() || now.Before(t.StartAt) {
		return t, nil
	}
	next, err := b.store.UpdateTournament(ctx, t.ID, func(t *persistence.Tournament) error {
		if t.Status != persistence.TournamentSignup {
			return errUnchanged
		}
		if len(t.Players) < command.MinTournamentPlayers {
			// Due still: endCancelled posts the notice.
			t.Status, t.TooFew, t.Due = persistence.TournamentCancelled, true, now
			return nil
		}
		return tourney.Start(t, now, b.tournamentRand())
	})
	switch {
	case errors.Is(err, errUnchanged):
		return t, nil
	case err != nil:
		return nil, err
	}
	b.editSignup(ctx, loc, next)
	return next, nil
}

// finishedTournamentGames loads t's games that have ended since their
// results were recorded. A game created and gone, or ended without a
// result, counts as a draw, so that the tournament goes on; a game
// reserved and not created yet is skipped.
func (b *Bot) finishedTournamentGames(ctx context.Context, t *persistence.Tournament) ([]*persistence.Session, error) {
	var done []*persistence.Session
	for _, p := range t.Games {
		if p.Game == "" || p.Result != "" {
			continue
		}
		s, err := b.store.Game(ctx, p.Game)
		switch {
		case errors.Is(err, persistence.ErrNotFound) && !p.Created:
			continue // reserved, not created yet (playTournamentGames does)
		case errors.Is(err, persistence.ErrNotFound):
			// Created and gone (deleted with a player's or the server's
			// data, or expired): ended without a result.
			s = &persistence.Session{ID: p.Game, Status: persistence.StatusExpired}
		case err != nil:
			return nil, err
		}
		if s.Status == persistence.StatusExpired || s.Status == persistence.StatusFinished && s.Result == game.Ongoing {
			// Ended without a result (a moderator, a deleted player): a
			// draw, so that the tournament goes on.
			s.Status, s.Result = persistence.StatusFinished, game.Draw
		}
		if s.Status == persistence.StatusFinished {
			done = append(done, s)
		}
	}
	return done, nil
}

// advanceTournament records the finished games done in running
// tournament t, forfeits forgotten players, advances its rounds as far as
// they go and sets when it is next due. It returns t as it is now,
// unchanged when there was nothing to do.
func (b *Bot) advanceTournament(ctx context.Context, t *persistence.Tournament, done []*persistence.Session) (*persistence.Tournament, error) {
	next, err := b.store.UpdateTournament(ctx, t.ID, func(t *persistence.Tournament) error {
		changed := false
		for _, s := range done {
			changed = tourney.RecordGame(t, s) || changed
		}
		// A forfeit can end a round, and a new round can pair a
		// forgotten player: until neither happens (a few rounds at most).
		for range 2*t.Rounds + 2 {
			forfeited := forfeitForgotten(t)
			step, err := tourney.Advance(t, b.tournamentRand())
			if err != nil {
				return err
			}
			if !forfeited && step == tourney.StepNone {
				break
			}
			changed = true
		}
		now := b.now()
		switch {
		case t.Status == persistence.TournamentRunning && !t.Due.After(now):
			t.Due, changed = now.Add(tournamentDue), true
		case t.Status == persistence.TournamentFinished && !t.FinalPosted && t.Due.IsZero():
			// Looked at again until its final message is posted.
			t.Due, changed = now.Add(tournamentDue), true
		}
		if !changed {
			return errUnchanged
		}
		return nil
	})
	switch {
	case errors.Is(err, errUnchanged):
		return t, nil
	case err != nil:
		return nil, err
	}
	return next, nil
}

// forfeitForgotten scores the open pairings of players who asked to be
// forgotten (their stand-ins cannot play) as losses for them.
func forfeitForgotten(t *persistence.Tournament) bool {
	changed := false
	for i, p := range t.Games {
		if p.Result != "" || p.Bye() {
			continue
		}
		x, o := strings.HasPrefix(p.X, persistence.ForgottenPrefix), strings.HasPrefix(p.O, persistence.ForgottenPrefix)
		if !x && !o {
			continue
		}
		t.Games[i].Result, t.Games[i].Forfeit, changed = tourney.ForfeitResult(x, o), true, true
	}
	return changed
}

// errForfeited ends an update of a pairing that was scored meanwhile.
var errForfeited = errors.New("bot: tournament pairing already scored")
