package bot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/sched"
	"github.com/tttbot/ttt-bot/tournament"
)

// How a tournament runs by itself. The sweeper of every bot process
// claims due tournaments (persistence.ClaimDueTournaments: one process at
// a time per tournament) and runs runTournament on each:
//
//  1. a sign-up whose start time has come starts (or is cancelled with
//     fewer than two players);
//  2. the results of its finished games go into the record;
//  3. what can be paired is paired (advanceTournament), and the round's
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
	now := b.now()
	if t.Status == persistence.TournamentSignup && !t.StartAt.IsZero() && !now.Before(t.StartAt) {
		next, err := b.store.UpdateTournament(ctx, id, func(t *persistence.Tournament) error {
			if t.Status != persistence.TournamentSignup {
				return errUnchanged
			}
			if len(t.Players) < MinTournamentPlayers {
				// Due still: endCancelled posts the notice.
				t.Status, t.TooFew, t.Due = persistence.TournamentCancelled, true, now
				return nil
			}
			return startTournament(t, now, b.tournamentRand())
		})
		switch {
		case errors.Is(err, errUnchanged):
		case err != nil:
			return err
		default:
			t = next
			b.editSignup(ctx, loc, t)
		}
	}
	switch t.Status {
	case persistence.TournamentCancelled:
		return b.endCancelled(ctx, loc, t)
	case persistence.TournamentSignup:
		return nil
	}
	// The results of its finished games.
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
			return err
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
	if t.Status == persistence.TournamentRunning {
		next, err := b.store.UpdateTournament(ctx, id, func(t *persistence.Tournament) error {
			changed := false
			for _, s := range done {
				changed = recordTournamentGame(t, s) || changed
			}
			// A forfeit can end a round, and a new round can pair a
			// forgotten player: until neither happens (a few rounds at most).
			for range 2*t.Rounds + 2 {
				forfeited := forfeitForgotten(t)
				step, err := advanceTournament(t, b.tournamentRand())
				if err != nil {
					return err
				}
				if !forfeited && step == stepNone {
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
		case err != nil:
			return err
		default:
			t = next
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
		t.Games[i].Result, t.Games[i].Forfeit, changed = forfeitResult(x, o), true, true
	}
	return changed
}

// postOutbox posts what the record has that its outbox does not say was
// posted yet: the forfeits of busy players, each finished round's
// standings, each round's announcement, the final message; and marks
// each in the record after posting it (see postAndMark: only a process
// that dies between the two leaves a message to be posted again).
func (b *Bot) postOutbox(ctx context.Context, loc discordgo.Locale, t *persistence.Tournament) (*persistence.Tournament, error) {
	mark := func(ctx context.Context, f func(t *persistence.Tournament)) error {
		next, err := b.store.UpdateTournament(ctx, t.ID, func(t *persistence.Tournament) error {
			f(t)
			return nil
		})
		if err != nil {
			return err
		}
		t = next
		return nil
	}
	for i, p := range t.Games {
		if !p.Notice {
			continue
		}
		if err := b.postAndMark(withNonce(ctx, postNonce(t.ID, "forfeit", strconv.Itoa(i))), t.Channel, b.render.TournamentBusyForfeit(loc, t, p), func(ctx context.Context, _ *discordgo.Message) error {
			return mark(ctx, func(t *persistence.Tournament) {
				if i < len(t.Games) {
					t.Games[i].Notice = false
				}
			})
		}); err != nil {
			return t, err
		}
	}
	if t.Format != FormatElimination {
		done := t.Round - 1 // the rounds whose games are all over
		if t.Status == persistence.TournamentFinished {
			done = t.Round
		}
		for t.StandingsOf < done {
			round := t.StandingsOf + 1
			st, err := tournament.Standings(enginePlayers(t), roundsUpTo(t, round))
			if err != nil {
				return t, err
			}
			if err := b.postAndMark(withNonce(ctx, postNonce(t.ID, "standings", strconv.Itoa(round))), t.Channel, b.render.TournamentStandings(loc, t, round, st), func(ctx context.Context, _ *discordgo.Message) error {
				return mark(ctx, func(t *persistence.Tournament) { t.StandingsOf = max(t.StandingsOf, round) })
			}); err != nil {
				return t, err
			}
		}
		for t.Status == persistence.TournamentRunning && t.Announced < t.Round {
			round := t.Announced + 1
			if err := b.postAndMark(withNonce(ctx, postNonce(t.ID, "round", strconv.Itoa(round))), t.Channel, b.render.TournamentRound(loc, t, round), func(ctx context.Context, _ *discordgo.Message) error {
				return mark(ctx, func(t *persistence.Tournament) { t.Announced = max(t.Announced, round) })
			}); err != nil {
				return t, err
			}
		}
	}
	if t.Status == persistence.TournamentFinished && !t.FinalPosted {
		standings, _ := tournamentStandings(t)
		podium, err := tournamentPodium(t, standings)
		if err != nil {
			return t, err
		}
		picture, err := tournamentPicture(t, standings)
		if err != nil {
			b.log.Warn("bot: tournament picture", "tournament", t.ID, "err", err)
		}
		if err := b.postAndMark(withNonce(ctx, postNonce(t.ID, "final")), t.Channel, b.render.TournamentFinal(loc, t, podium, picture), func(ctx context.Context, _ *discordgo.Message) error {
			return mark(ctx, func(t *persistence.Tournament) { t.FinalPosted, t.Due = true, time.Time{} })
		}); err != nil {
			return t, err
		}
	}
	return t, nil
}

// roundsUpTo is the engine's record of t's rounds up to round.
func roundsUpTo(t *persistence.Tournament, round int) []tournament.Game {
	var out []tournament.Game
	for i, g := range engineGames(t) {
		if t.Games[i].Round <= round {
			out = append(out, g)
		}
	}
	return out
}

// tooFewNoticeFor is how long after its start time the notice of a
// tournament cancelled for want of players is tried (a channel the bot
// may no longer post in is not tried for ever).
const tooFewNoticeFor = 24 * time.Hour

// endCancelled ends the live games of a cancelled tournament (a process
// may have stopped before it did), posts the notice of one cancelled at
// its start time for want of players, and then takes it out of the
// sweeps.
func (b *Bot) endCancelled(ctx context.Context, loc discordgo.Locale, t *persistence.Tournament) error {
	if t.Due.IsZero() {
		return nil
	}
	// done takes it out of the sweeps, its notice (if any) posted or
	// given up.
	done := func(ctx context.Context) error {
		_, err := b.store.UpdateTournament(ctx, t.ID, func(t *persistence.Tournament) error {
			t.Due, t.FinalPosted = time.Time{}, t.FinalPosted || t.TooFew
			return nil
		})
		return err
	}
	if t.TooFew && !t.FinalPosted && b.now().Before(t.StartAt.Add(tooFewNoticeFor)) {
		notice := &discordgo.InteractionResponseData{Content: b.cat.Text(loc, "tournament.too_few_cancelled", "name", t.Name), AllowedMentions: noMentions()}
		return b.postAndMark(withNonce(ctx, postNonce(t.ID, "cancelled")), t.Channel, notice, func(ctx context.Context, _ *discordgo.Message) error {
			return done(ctx)
		}) // on an error, tried again at the next look
	}
	for _, p := range t.Games {
		if p.Game == "" || p.Result != "" {
			continue
		}
		s, err := b.store.EndByModerator(ctx, p.Game, 0)
		switch {
		case errors.Is(err, persistence.ErrNotLive), errors.Is(err, persistence.ErrNotFound):
		case err != nil:
			return err
		default:
			if err := b.editBoard(ctx, loc, s, nil); err != nil {
				b.log.Warn("bot: show a cancelled tournament's game", "game", string(s.ID), "err", err)
			}
		}
	}
	return done(ctx)
}

// busyRetry is how soon a tournament is looked at again when a game of it
// could not start because a player has had another game in its channel
// (one live game per player and channel) for waited: 5 s at first,
// backing off to the regular look (tournamentDue) as the wait goes on.
func busyRetry(waited time.Duration) time.Duration {
	return min(max(5*time.Second, waited/8), tournamentDue)
}

// playTournamentGames creates the games of pairings that have none (their
// IDs reserved in the record first, so that a process that stops between
// the two leaves no game the record does not name), posts their boards,
// and plays the computer's moves where it is to move. retry, if not 0,
// is how soon to look again: a game could not start yet, a player of it
// having another game in the channel (busyRetry).
func (b *Bot) playTournamentGames(ctx context.Context, v view, t *persistence.Tournament) (retry time.Duration, err error) {
	var errs []error
	for i, p := range t.Games {
		if p.Bye() || p.Result != "" {
			continue
		}
		id := p.Game
		if id == "" {
			reserved, err := persistence.NewGameID(t.Channel)
			if err != nil {
				return retry, err
			}
			next, err := b.store.UpdateTournament(ctx, t.ID, func(t *persistence.Tournament) error {
				if t.Status != persistence.TournamentRunning || i >= len(t.Games) {
					return errUnchanged
				}
				q := t.Games[i]
				if q.Game != "" || q.Result != "" || q.X != p.X || q.O != p.O ||
					strings.HasPrefix(q.X, persistence.ForgottenPrefix) || strings.HasPrefix(q.O, persistence.ForgottenPrefix) {
					return errUnchanged // taken, played, or a player forgotten meanwhile
				}
				t.Games[i].Game = reserved
				return nil
			})
			if errors.Is(err, errUnchanged) {
				continue
			}
			if err != nil {
				errs = append(errs, err)
				continue
			}
			t, id = next, reserved
		}
		s, err := b.store.Game(ctx, id)
		if errors.Is(err, persistence.ErrNotFound) {
			if t.Games[i].Created {
				continue // created and gone: the next results step scores it
			}
			s, err = b.createTournamentGame(ctx, t, t.Games[i], id)
			if errors.Is(err, persistence.ErrConflict) {
				s, err = b.store.Game(ctx, id) // created meanwhile
			}
		}
		if errors.Is(err, persistence.ErrBusy) {
			// A player is in another game here: tried again soon, and
			// forfeited if it lasts.
			var r time.Duration
			if t, r, err = b.waitForBusy(ctx, t, i, id); err != nil {
				errs = append(errs, err)
			}
			if retry == 0 || r < retry {
				retry = r
			}
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !t.Games[i].Created {
			next, err := b.store.UpdateTournament(ctx, t.ID, func(t *persistence.Tournament) error {
				if i >= len(t.Games) || t.Games[i].Game != id || t.Games[i].Created {
					return errUnchanged
				}
				if t.Games[i].Result != "" {
					return errForfeited
				}
				t.Games[i].Created = true
				return nil
			})
			switch {
			case err == nil:
				t = next
			case errors.Is(err, errForfeited):
				// Scored meanwhile (a forfeit, by a process whose claim
				// came after this one's lease): the game is not played.
				if _, err := b.store.EndByModerator(ctx, id, 0); err != nil && !errors.Is(err, persistence.ErrNotLive) {
					errs = append(errs, err)
				}
				continue
			case !errors.Is(err, errUnchanged):
				errs = append(errs, err)
				continue
			}
		}
		if err := b.showTournamentGame(ctx, v, s); err != nil {
			errs = append(errs, err)
		}
	}
	return retry, errors.Join(errs...)
}

// busyPatience is how long a tournament game waits for a player who is
// busy in another game in its channel: the tournament's time per move,
// as long as a player who does not move is waited for.
func busyPatience(t *persistence.Tournament) time.Duration {
	if t.TurnTime > 0 {
		return t.TurnTime
	}
	return DefaultTurnTime
}

// errForfeited ends an update of a pairing that was scored meanwhile.
var errForfeited = errors.New("bot: tournament pairing already scored")

// waitForBusy deals with the game of pairing i (reserved as id), which
// could not start because a player has another live game in the channel.
// Each player's clock (Pairing.BusyX, BusyO) runs while they keep it
// from starting, and restarts when they stop; a game of a tournament
// does not count (they are playing a game they must). A player whose
// clock reaches busyPatience forfeits (of two, the one busy longer), and
// the outbox has the channel told. It returns the tournament as it is
// now and how soon to look again.
func (b *Bot) waitForBusy(ctx context.Context, t *persistence.Tournament, i int, id persistence.GameID) (*persistence.Tournament, time.Duration, error) {
	p := t.Games[i]
	counted := map[string]bool{}
	for _, user := range []string{p.X, p.O} {
		if !customid.Snowflake(user) {
			continue // a computer player is never busy
		}
		g, err := b.store.ActiveGame(ctx, t.Channel, user)
		if errors.Is(err, persistence.ErrNotFound) {
			continue
		}
		if err != nil {
			return t, tournamentDue, err
		}
		other, err := b.store.Game(ctx, g)
		if err != nil && !errors.Is(err, persistence.ErrNotFound) {
			return t, tournamentDue, err
		}
		counted[user] = g != id && (other == nil || other.Tournament == "")
	}
	now := b.now()
	next, err := b.store.UpdateTournament(ctx, t.ID, func(t *persistence.Tournament) error {
		if t.Status != persistence.TournamentRunning || i >= len(t.Games) {
			return errUnchanged
		}
		p := &t.Games[i]
		if p.Game != id || p.Created || p.Result != "" {
			return errUnchanged
		}
		clocks := []struct {
			user  string
			clock *time.Time
		}{{p.X, &p.BusyX}, {p.O, &p.BusyO}}
		changed := false
		for _, c := range clocks {
			switch {
			case counted[c.user] && c.clock.IsZero():
				*c.clock, changed = now, true
			case !counted[c.user] && !c.clock.IsZero():
				*c.clock, changed = time.Time{}, true
			}
		}
		loser, since := "", now
		for _, c := range clocks {
			if !c.clock.IsZero() && now.Sub(*c.clock) >= busyPatience(t) && c.clock.Before(since) {
				loser, since = c.user, *c.clock
			}
		}
		if loser != "" {
			p.Result = forfeitResult(loser == p.X, loser == p.O)
			p.Forfeit, p.BusyForfeit, p.Notice, changed = true, loser, true, true
		}
		if !changed {
			return errUnchanged
		}
		return nil
	})
	switch {
	case errors.Is(err, errUnchanged):
	case err != nil:
		return t, tournamentDue, err
	default:
		t = next
	}
	p = t.Games[i]
	if p.Result != "" {
		return t, time.Nanosecond, nil // forfeited: at once (its notice, the next round)
	}
	if len(counted) == 0 {
		return t, time.Nanosecond, nil // the other game just ended: at once
	}
	retry := tournamentDue / 4 // busy only in a tournament's game
	for _, clock := range []time.Time{p.BusyX, p.BusyO} {
		if !clock.IsZero() {
			retry = min(retry, busyRetry(now.Sub(clock)))
		}
	}
	return t, retry, nil
}

// createTournamentGame creates the game of pairing p with its reserved ID.
func (b *Bot) createTournamentGame(ctx context.Context, t *persistence.Tournament, p persistence.Pairing, id persistence.GameID) (*persistence.Session, error) {
	var seats [2]persistence.Seat
	for i, id := range []string{p.X, p.O} {
		if level, ok := strings.CutPrefix(id, "ai:"); ok {
			seats[i] = persistence.Seat{AI: persistence.AI{Level: level, Seed: b.seed()}}
		} else {
			seats[i] = persistence.Seat{User: id}
		}
	}
	return b.store.CreateGame(ctx, t.Channel, persistence.Session{
		ID: id, Rules: t.Rules, Players: seats, Guild: t.Guild, TurnTime: t.TurnTime,
		Status: persistence.StatusActive, Tournament: t.ID, Unrated: !t.Rated,
	})
}

// showTournamentGame posts a tournament game's board if it has none yet,
// and plays the computer's moves while it is to move.
func (b *Bot) showTournamentGame(ctx context.Context, v view, s *persistence.Session) error {
	if s.Message == "" {
		data, err := b.render.Board(v.loc, v.labels, s, nil)
		if err != nil {
			return err
		}
		// The board pings its players: their game has started.
		var users []string
		for _, st := range s.Players {
			if st.User != "" {
				users = append(users, st.User)
			}
		}
		data.AllowedMentions = &discordgo.MessageAllowedMentions{Users: users}
		// The nonce is the game's: a post whose answer was lost, made
		// again by the next run, is one message.
		err = b.postAndMark(withNonce(ctx, boardNonce(s)), s.Channel(), data, func(ctx context.Context, m *discordgo.Message) (err error) {
			s, err = b.store.SetMessage(ctx, s.ID, s.Version, m.ID)
			return err
		})
		if err != nil {
			// Its players have not seen it: their clock waits (see
			// delivery.go) while the next run posts it.
			b.owe(ctx, s, s.Version, time.Minute)
			return err
		}
		s = b.afterDelivery(ctx, v.loc, s)
	}
	for {
		seat, ok, err := aiToMove(s)
		if err != nil || !ok {
			return err
		}
		if s, err = b.thinkAndPlay(ctx, sched.Job{Class: sched.Batch, Group: s.Guild, User: "tournament:" + string(s.ID)}, s, seat, always); err != nil {
			if errors.Is(err, persistence.ErrConflict) || errors.Is(err, persistence.ErrNotYourTurn) || errors.Is(err, persistence.ErrNotLive) {
				return nil // played or ended meanwhile (a move's handler, a moderator)
			}
			return err
		}
		var ratings []RatingChange
		if s.Status == persistence.StatusFinished {
			if ratings, err = b.finishGame(ctx, s); err != nil {
				b.log.Warn("bot: record a tournament game", "game", string(s.ID), "err", err)
			}
		}
		if err := b.editBoard(ctx, v.loc, s, ratings); err != nil {
			return err
		}
	}
}

// postAndMarkTimeout bounds a postAndMark that goes on after its context
// ended.
const postAndMarkTimeout = 2 * editTimeout

// postAndMark posts d to channel and then records, with mark, that it was
// posted. Once the post has begun, both go through to the end even if ctx
// ends meanwhile (a process stopping: RunSweeper waits for them), so that
// a message that went out is recorded and the next process does not post
// it again. Only a process that dies between the two, or a mark that
// fails, leaves a message to be posted again, and the nonce the callers
// give each post (postNonce) makes the second post the same message
// within Discord's nonce window (a few minutes).
func (b *Bot) postAndMark(ctx context.Context, channel string, d *discordgo.InteractionResponseData, mark func(ctx context.Context, m *discordgo.Message) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), postAndMarkTimeout)
	defer cancel()
	m, err := b.post(ctx, channel, d)
	if err != nil {
		return err
	}
	return mark(ctx, m)
}

// post sends a message to a channel outside any interaction.
func (b *Bot) post(ctx context.Context, channel string, d *discordgo.InteractionResponseData) (*discordgo.Message, error) {
	ms := &discordgo.MessageSend{Content: d.Content, Embeds: d.Embeds, Components: d.Components, AllowedMentions: d.AllowedMentions}
	for _, f := range d.Files {
		var buf bytes.Buffer
		if _, err := buf.ReadFrom(f.Reader); err != nil {
			return nil, err
		}
		ms.Files = append(ms.Files, &discordgo.File{Name: f.Name, ContentType: f.ContentType, Reader: bytes.NewReader(buf.Bytes())})
	}
	m, err := b.dc.ChannelMessageSendComplex(channel, ms, discordgo.WithContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("bot: post to channel %s: %w", channel, err)
	}
	return m, nil
}

// editSignup shows a tournament's sign-up message as the record is now;
// one it could not show is owed to the screen (see delivery.go).
func (b *Bot) editSignup(ctx context.Context, loc discordgo.Locale, t *persistence.Tournament) {
	if t.Message == "" {
		return
	}
	if err := b.editSignupMessage(ctx, loc, t); err != nil {
		b.log.Warn("bot: edit a tournament's sign-up; a sweeper shows it later", "tournament", t.ID, "err", err)
		bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), bookkeepingTimeout)
		defer cancel()
		if err := b.store.OweTournament(bctx, t.ID, b.now().Add(oweRetry)); err != nil {
			b.log.Error("bot: a sign-up that may not be on screen is not recorded", "tournament", t.ID, "err", err)
		}
	}
}

// editSignupMessage edits t's sign-up message to show t.
func (b *Bot) editSignupMessage(ctx context.Context, loc discordgo.Locale, t *persistence.Tournament) error {
	d, err := b.render.TournamentSignup(loc, t)
	if err != nil {
		return err
	}
	_, err = b.dc.ChannelMessageEditComplex(&discordgo.MessageEdit{ID: t.Message, Channel: t.Channel,
		Content: &d.Content, Components: &d.Components, AllowedMentions: d.AllowedMentions}, discordgo.WithContext(ctx))
	return err
}
