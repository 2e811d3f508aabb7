package bot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/sched"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
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

// tournamentSweepBatch is how many due tournaments one sweep claims.
const tournamentSweepBatch = 8

// sweepTournaments runs the due tournaments.
func (b *Bot) sweepTournaments(ctx context.Context) {
	ids, err := b.store.ClaimDueTournaments(ctx, b.now(), tournamentSweepBatch)
	if err != nil {
		if ctx.Err() == nil {
			b.log.Error("bot: claim tournaments", "err", err)
		}
		return
	}
	for _, id := range ids {
		if err := b.runTournament(ctx, id); err != nil && ctx.Err() == nil {
			b.log.Error("bot: run tournament", "tournament", id, "err", err)
		}
		if err := b.store.AckTournament(ctx, id); err != nil && ctx.Err() == nil {
			b.log.Error("bot: release tournament", "tournament", id, "err", err)
		}
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
	loc, err := b.publicLocale(ctx, nil, t.Guild, DefaultLocale)
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
				t.Status, t.Due = persistence.TournamentCancelled, time.Time{}
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
			if t.Status == persistence.TournamentCancelled {
				b.post(ctx, t.Channel, &discordgo.InteractionResponseData{Content: b.cat.Text(loc, "tournament.too_few_cancelled", "name", t.Name), AllowedMentions: noMentions()})
				return nil
			}
			b.post(ctx, t.Channel, b.render.TournamentRound(loc, t, t.Round))
		}
	}
	if t.Status != persistence.TournamentRunning {
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
		case errors.Is(err, persistence.ErrNotFound):
			// Expired without a result (it should not): a draw, so the
			// tournament goes on.
			s = &persistence.Session{ID: p.Game, Status: persistence.StatusFinished, Result: game.Draw, End: persistence.ByExpiry}
		case err != nil:
			return err
		}
		if s.Status == persistence.StatusFinished || s.Status == persistence.StatusExpired {
			if s.Status == persistence.StatusExpired || s.Result == game.Ongoing {
				s.Status, s.Result = persistence.StatusFinished, game.Draw
			}
			done = append(done, s)
		}
	}
	round, status := t.Round, t.Status
	next, err := b.store.UpdateTournament(ctx, id, func(t *persistence.Tournament) error {
		changed := false
		for _, s := range done {
			changed = recordTournamentGame(t, s) || changed
		}
		step, err := advanceTournament(t, b.tournamentRand())
		if err != nil {
			return err
		}
		if t.Status == persistence.TournamentRunning {
			t.Due = b.now().Add(tournamentDue)
		}
		if !changed && step == stepNone {
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
		b.announce(ctx, loc, t, round, status)
	}
	if t.Status != persistence.TournamentRunning {
		return nil
	}
	return b.playTournamentGames(ctx, loc, t)
}

// announce posts what a step changed: the standings after a finished
// round and the next round's announcement, or the final message.
func (b *Bot) announce(ctx context.Context, loc discordgo.Locale, t *persistence.Tournament, round int, was persistence.TournamentStatus) {
	finished := t.Status == persistence.TournamentFinished && was == persistence.TournamentRunning
	if t.Format != FormatElimination && (t.Round > round || finished) && round > 0 {
		if standings, err := tournamentStandings(t); err == nil {
			b.post(ctx, t.Channel, b.render.TournamentStandings(loc, t, round, standings))
		}
	}
	if finished {
		b.postFinal(ctx, loc, t)
		return
	}
	if t.Format != FormatElimination && t.Round > round {
		b.post(ctx, t.Channel, b.render.TournamentRound(loc, t, t.Round))
	}
}

// postFinal posts a finished tournament's final message with its picture.
func (b *Bot) postFinal(ctx context.Context, loc discordgo.Locale, t *persistence.Tournament) {
	standings, _ := tournamentStandings(t)
	podium, err := tournamentPodium(t, standings)
	if err != nil {
		b.log.Warn("bot: tournament podium", "tournament", t.ID, "err", err)
	}
	picture, err := tournamentPicture(t, standings)
	if err != nil {
		b.log.Warn("bot: tournament picture", "tournament", t.ID, "err", err)
	}
	b.post(ctx, t.Channel, b.render.TournamentFinal(loc, t, podium, picture))
}

// playTournamentGames creates the games of pairings that have none, posts
// their boards, and plays the computer's moves where it is to move.
func (b *Bot) playTournamentGames(ctx context.Context, loc discordgo.Locale, t *persistence.Tournament) error {
	var errs []error
	for i, p := range t.Games {
		if p.Bye() || p.Result != "" {
			continue
		}
		id := p.Game
		if id == "" {
			s, err := b.createTournamentGame(ctx, t, p)
			if errors.Is(err, persistence.ErrBusy) {
				continue // a player is in another game here: next sweep
			}
			if err != nil {
				errs = append(errs, err)
				continue
			}
			next, err := b.store.UpdateTournament(ctx, t.ID, func(t *persistence.Tournament) error {
				if i >= len(t.Games) || t.Games[i].Game != "" || t.Games[i].X != p.X || t.Games[i].O != p.O {
					return errUnchanged
				}
				t.Games[i].Game = s.ID
				return nil
			})
			if err != nil {
				// Another process paired it meanwhile: this game is not
				// the tournament's; end it.
				if _, eerr := b.store.EndByModerator(ctx, s.ID, 0); eerr != nil {
					errs = append(errs, eerr)
				}
				if !errors.Is(err, errUnchanged) {
					errs = append(errs, err)
				}
				continue
			}
			t, id = next, s.ID
		}
		if err := b.showTournamentGame(ctx, loc, id); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// createTournamentGame creates the game of pairing p.
func (b *Bot) createTournamentGame(ctx context.Context, t *persistence.Tournament, p persistence.Pairing) (*persistence.Session, error) {
	var seats [2]persistence.Seat
	for i, id := range []string{p.X, p.O} {
		if level, ok := strings.CutPrefix(id, "ai:"); ok {
			seats[i] = persistence.Seat{AI: persistence.AI{Level: level, Seed: b.seed()}}
		} else {
			seats[i] = persistence.Seat{User: id}
		}
	}
	return b.store.CreateGame(ctx, t.Channel, persistence.Session{
		Rules: t.Rules, Players: seats, Guild: t.Guild, TurnTime: t.TurnTime,
		Status: persistence.StatusActive, Tournament: t.ID, Unrated: !t.Rated,
	})
}

// showTournamentGame posts a tournament game's board if it has none yet,
// and plays the computer's moves while it is to move.
func (b *Bot) showTournamentGame(ctx context.Context, loc discordgo.Locale, id persistence.GameID) error {
	s, err := b.store.Game(ctx, id)
	if err != nil {
		return err
	}
	if s.Message == "" {
		data, err := b.render.Board(loc, s, nil)
		if err != nil {
			return err
		}
		m, err := b.post(ctx, s.Channel(), data)
		if err != nil {
			return err
		}
		if s, err = b.store.SetMessage(ctx, s.ID, s.Version, m.ID); err != nil {
			return err
		}
	}
	for {
		seat, ok, err := aiToMove(s)
		if err != nil || !ok {
			return err
		}
		if s, err = b.thinkAndPlay(ctx, sched.Job{Class: sched.Batch, Group: s.Guild, User: "tournament:" + string(s.ID)}, s, seat); err != nil {
			return err
		}
		var ratings []RatingChange
		if s.Status == persistence.StatusFinished {
			if ratings, err = b.finishGame(ctx, s); err != nil {
				b.log.Warn("bot: record a tournament game", "game", string(s.ID), "err", err)
			}
		}
		if err := b.editBoard(ctx, loc, s, ratings); err != nil {
			return err
		}
	}
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

// editSignup shows a tournament's sign-up message as the record is now.
func (b *Bot) editSignup(ctx context.Context, loc discordgo.Locale, t *persistence.Tournament) {
	if t.Message == "" {
		return
	}
	d, err := b.render.TournamentSignup(loc, t)
	if err == nil {
		_, err = b.dc.ChannelMessageEditComplex(&discordgo.MessageEdit{ID: t.Message, Channel: t.Channel,
			Content: &d.Content, Components: &d.Components, AllowedMentions: d.AllowedMentions}, discordgo.WithContext(ctx))
	}
	if err != nil {
		b.log.Warn("bot: edit a tournament's sign-up", "tournament", t.ID, "err", err)
	}
}
