package bot

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/bot/rest"
	"github.com/tttbot/ttt-bot/bot/tourney"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/sched"
)

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
			next, err := b.reserveTournamentGame(ctx, t.ID, i, p, reserved)
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
			var play bool
			if t, play, err = b.markTournamentGameCreated(ctx, t, i, id); err != nil {
				errs = append(errs, err)
			}
			if !play {
				continue
			}
		}
		if err := b.showTournamentGame(ctx, v, s); err != nil {
			errs = append(errs, err)
		}
	}
	return retry, errors.Join(errs...)
}

// reserveTournamentGame names the game ID reserved in pairing i of
// tournament id, which was p. It returns errUnchanged when the pairing is
// no longer p's to reserve: taken, played, or a player forgotten
// meanwhile, or the tournament no longer running.
func (b *Bot) reserveTournamentGame(ctx context.Context, id string, i int, p persistence.Pairing, reserved persistence.GameID) (*persistence.Tournament, error) {
	return b.store.UpdateTournament(ctx, id, func(t *persistence.Tournament) error {
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
}

// markTournamentGameCreated records in t that pairing i's game id exists.
// It returns t as it is now and whether the game is to be played: not when
// the pairing was scored meanwhile (a forfeit, by a process whose claim
// came after this one's lease), in which case it ends the game, nor when
// the record could not be updated.
func (b *Bot) markTournamentGameCreated(ctx context.Context, t *persistence.Tournament, i int, id persistence.GameID) (*persistence.Tournament, bool, error) {
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
		return next, true, nil
	case errors.Is(err, errForfeited):
		// Scored meanwhile: the game is not played.
		if _, err := b.store.EndByModerator(ctx, id, 0); err != nil && !errors.Is(err, persistence.ErrNotLive) {
			return t, false, err
		}
		return t, false, nil
	case !errors.Is(err, errUnchanged):
		return t, false, err
	}
	return t, true, nil
}

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
			if !c.clock.IsZero() && now.Sub(*c.clock) >= tourney.BusyPatience(t) && c.clock.Before(since) {
				loser, since = c.user, *c.clock
			}
		}
		if loser != "" {
			p.Result = tourney.ForfeitResult(loser == p.X, loser == p.O)
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
		Swap: persistence.IsWideRules(t.Rules), // a swap opening on every board past 8x8
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
		err = b.postAndMark(rest.WithNonce(ctx, boardNonce(s)), s.Channel(), data, func(ctx context.Context, m *discordgo.Message) (err error) {
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
		var ratings []render.PlayerRating
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
