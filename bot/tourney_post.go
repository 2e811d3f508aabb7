package bot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/bot/rest"
	"github.com/tttbot/ttt-bot/bot/tourney"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/tournament"
)

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
		if err := b.postAndMark(rest.WithNonce(ctx, postNonce(t.ID, "forfeit", strconv.Itoa(i))), t.Channel, b.render.TournamentBusyForfeit(loc, t, p), func(ctx context.Context, _ *discordgo.Message) error {
			return mark(ctx, func(t *persistence.Tournament) {
				if i < len(t.Games) {
					t.Games[i].Notice = false
				}
			})
		}); err != nil {
			return t, err
		}
	}
	if t.Format != command.FormatElimination {
		done := t.Round - 1 // the rounds whose games are all over
		if t.Status == persistence.TournamentFinished {
			done = t.Round
		}
		for t.StandingsOf < done {
			round := t.StandingsOf + 1
			st, err := tournament.Standings(tourney.EnginePlayers(t), roundsUpTo(t, round))
			if err != nil {
				return t, err
			}
			if err := b.postAndMark(rest.WithNonce(ctx, postNonce(t.ID, "standings", strconv.Itoa(round))), t.Channel, b.render.TournamentStandings(loc, t, round, st), func(ctx context.Context, _ *discordgo.Message) error {
				return mark(ctx, func(t *persistence.Tournament) { t.StandingsOf = max(t.StandingsOf, round) })
			}); err != nil {
				return t, err
			}
		}
		for t.Status == persistence.TournamentRunning && t.Announced < t.Round {
			round := t.Announced + 1
			if err := b.postAndMark(rest.WithNonce(ctx, postNonce(t.ID, "round", strconv.Itoa(round))), t.Channel, b.render.TournamentRound(loc, t, round), func(ctx context.Context, _ *discordgo.Message) error {
				return mark(ctx, func(t *persistence.Tournament) { t.Announced = max(t.Announced, round) })
			}); err != nil {
				return t, err
			}
		}
	}
	if t.Status == persistence.TournamentFinished && !t.FinalPosted {
		standings, _ := tourney.Standings(t)
		podium, err := render.TournamentPodium(t, standings)
		if err != nil {
			return t, err
		}
		picture, err := render.TournamentPicture(t, standings)
		if err != nil {
			b.log.Warn("bot: tournament picture", "tournament", t.ID, "err", err)
		}
		if err := b.postAndMark(rest.WithNonce(ctx, postNonce(t.ID, "final")), t.Channel, b.render.TournamentFinal(loc, t, podium, picture), func(ctx context.Context, _ *discordgo.Message) error {
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
	for i, g := range tourney.EngineGames(t) {
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
		notice := &discordgo.InteractionResponseData{Content: b.cat.Text(loc, "tournament.too_few_cancelled", "name", t.Name), AllowedMentions: render.NoMentions()}
		return b.postAndMark(rest.WithNonce(ctx, postNonce(t.ID, "cancelled")), t.Channel, notice, func(ctx context.Context, _ *discordgo.Message) error {
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
