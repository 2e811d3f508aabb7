package bot

import (
	"context"
	crand "crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/bot/tourney"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/tournament"
)

// The routes of /ttt-tournament's subcommands, of their old paths under
// /ttt tournament (a redirect), and of the sign-up's buttons (see
// routes.go).
func init() {
	for _, sub := range []string{command.TournamentCreate, command.TournamentStart, command.TournamentStatus, command.TournamentStandings, command.TournamentLeave, command.TournamentCancel, command.TournamentAddAI} {
		routeCommand(command.Path(command.TournamentName, sub), (*Bot).tournamentCommand)
		routeMoved(command.Path(command.Name, command.SubTournament, sub))
	}
	routeComponent(true, (*Bot).clickTournament, customid.ActionTournament)
}

// tournamentCommand handles /ttt-tournament <sub>. Tournaments live in a
// server; creating one, starting, cancelling and signing a computer up
// take its creator or a moderator (Manage Server, or a moderator role).
func (b *Bot) tournamentCommand(ctx context.Context, c *call, r command.TournamentRequest) error {
	if c.i.GuildID == "" {
		return userErr("reply.tournament_none")
	}
	switch r.Action {
	case command.TournamentCreate:
		return b.createTournament(ctx, c, r)
	case command.TournamentStatus:
		ts, err := b.store.GuildTournaments(ctx, c.i.GuildID)
		if err != nil {
			return err
		}
		return b.respond(ctx, c, respMessage, b.render.TournamentStatus(c.loc, ts))
	}
	t, err := b.findTournament(ctx, c, r.Name)
	if err != nil {
		return err
	}
	manager := t.Creator == c.user || b.moderator(ctx, c)
	var next *persistence.Tournament
	switch r.Action {
	case command.TournamentStart:
		if !manager {
			return userErr("reply.tournament_not_allowed")
		}
		now := b.now()
		next, err = b.store.UpdateTournament(ctx, t.ID, func(t *persistence.Tournament) error {
			if err := tourney.Start(t, now, b.tournamentRand()); err != nil {
				return err
			}
			if t.Format != command.FormatElimination {
				t.Announced = t.Round // this answer announces it
			}
			return nil
		})
		if err != nil {
			return err
		}
		b.editSignup(ctx, c.pub, next)
		b.audit(ctx, c, "tournament-start", next.Name)
		if err := b.respond(ctx, c, respMessage, b.render.TournamentRound(c.pub, next, next.Round)); err != nil {
			return err
		}
		// The sweeper creates and posts the games at once.
		return b.store.PokeTournament(ctx, next.ID)
	case command.TournamentStandings:
		return b.standingsCommand(ctx, c, t)
	case command.TournamentLeave:
		if next, err = b.store.UpdateTournament(ctx, t.ID, func(t *persistence.Tournament) error { return tourney.Leave(t, c.user) }); err != nil {
			return err
		}
		b.editSignup(ctx, c.pub, next)
		return b.respond(ctx, c, respMessage, render.Ephemeral(b.cat.Text(c.loc, "reply.tournament_left", "name", next.Name)))
	case command.TournamentAddAI:
		if !manager {
			return userErr("reply.tournament_not_allowed")
		}
		rules, err := persistence.ParseBoardRules(t.Rules)
		if err != nil {
			return fmt.Errorf("bot: tournament %s: %w", t.ID, err)
		}
		if err := b.checkLevel(c.loc, r.Level, rules.Small, rules.Wide); err != nil {
			return err
		}
		if next, err = b.store.UpdateTournament(ctx, t.ID, func(t *persistence.Tournament) error {
			return tourney.Join(t, persistence.Entrant{ID: "ai:" + r.Level})
		}); err != nil {
			return err
		}
		b.editSignup(ctx, c.pub, next)
		return b.respond(ctx, c, respMessage, render.Ephemeral(b.cat.Text(c.loc, "reply.tournament_joined", "name", next.Name)))
	case command.TournamentCancel:
		if !manager {
			return userErr("reply.tournament_not_allowed")
		}
		return b.cancelTournament(ctx, c, t)
	}
	return userErr(render.KeyUnavailable)
}

// findTournament returns the server's tournament called name, or, with no
// name, its only tournament that is not over.
func (b *Bot) findTournament(ctx context.Context, c *call, name string) (*persistence.Tournament, error) {
	ts, err := b.store.GuildTournaments(ctx, c.i.GuildID)
	if err != nil {
		return nil, err
	}
	var live, named []*persistence.Tournament
	var names []string
	for _, t := range ts {
		if !t.Status.Over() {
			live = append(live, t)
			names = append(names, "**"+t.Name+"**")
		}
		if name != "" && strings.EqualFold(t.Name, name) {
			named = append(named, t)
		}
	}
	list := strings.Join(names, ", ")
	switch {
	case name != "" && len(named) > 0:
		// The newest of that name (an old one may have been cancelled).
		return named[len(named)-1], nil
	case name != "":
		if len(live) == 0 {
			return nil, userErr("reply.tournament_none")
		}
		return nil, userErr("reply.tournament_unknown", "name", name, "names", list)
	case len(live) == 1:
		return live[0], nil
	case len(live) == 0:
		return nil, userErr("reply.tournament_none")
	}
	return nil, userErr("reply.tournament_which", "names", list)
}

// newTournamentID is an unguessable tournament ID: 12 lower-case base-32
// characters.
func newTournamentID() string {
	var b [8]byte
	_, _ = crand.Read(b[:]) // crypto/rand.Read never returns an error
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))[:12]
}

// createTournament handles /ttt-tournament create: the record, then its
// sign-up message in the channel (whose ID the record keeps, so that
// joins and the start edit it), then a private answer that links to the
// sign-up and says how the tournament starts.
func (b *Bot) createTournament(ctx context.Context, c *call, r command.TournamentRequest) error {
	if !b.moderator(ctx, c) {
		return userErr("reply.tournament_not_allowed")
	}
	st, err := b.settings(ctx, c, c.i.GuildID)
	if err != nil {
		return err
	}
	t := &persistence.Tournament{
		ID: newTournamentID(), Guild: c.i.GuildID, Channel: c.i.ChannelID, Name: r.Name, Format: r.Format,
		Rules: command.RulesKey(r.Rules, r.Wide), Rounds: r.Rounds, Double: r.Double && r.Format == command.FormatRoundRobin, TurnTime: st.TurnTime, Rated: st.Rated,
		Creator: c.user, Status: persistence.TournamentSignup, Created: b.now().UTC(),
	}
	if r.Format != command.FormatSwiss {
		t.Rounds = 0
	}
	if r.TurnTime > 0 {
		t.TurnTime = r.TurnTime
	}
	if r.Rated != nil {
		// A server with rated games off has no rated tournaments either.
		t.Rated = *r.Rated && st.Rated
	}
	if !r.StartAt.IsZero() {
		t.StartAt, t.Due = r.StartAt, r.StartAt
	}
	if err := b.store.CreateTournament(ctx, t); errors.Is(err, persistence.ErrTournamentNameTaken) {
		return userErr("reply.tournament_name_taken", "name", r.Name)
	} else if err != nil {
		return err
	}
	b.audit(ctx, c, "tournament-create", t.Name)
	d, err := b.render.TournamentSignup(c.pub, t)
	if err != nil {
		return err
	}
	m, err := b.post(ctx, t.Channel, d)
	if err != nil {
		return err
	}
	next, err := b.store.UpdateTournament(ctx, t.ID, func(t *persistence.Tournament) error {
		t.Message = m.ID
		return nil
	})
	if err != nil {
		return err
	}
	return b.respond(ctx, c, respMessage, b.render.TournamentCreated(c.loc, next))
}

// clickTournament handles the Join and Leave buttons of a sign-up: the
// message is updated with the new list of players.
func (b *Bot) clickTournament(ctx context.Context, c *call, id customid.ID) error {
	guild, tid, ok := strings.Cut(string(id.Game), ".")
	if !ok || guild != c.i.GuildID || id.Move > 1 {
		return &UserError{Key: render.KeyInvalidButton, Err: fmt.Errorf("bot: tournament button %q", id.Game)}
	}
	if id.Move == 1 {
		if _, err := b.mayPlay(ctx, c); err != nil {
			return err
		}
	}
	t, err := b.store.UpdateTournament(ctx, tid, func(t *persistence.Tournament) error {
		if id.Move == 1 {
			r, err := b.rating(ctx, t.Guild, c.user)
			if err != nil {
				return err
			}
			return tourney.Join(t, persistence.Entrant{ID: c.user, Rating: r})
		}
		return tourney.Leave(t, c.user)
	})
	if errors.Is(err, persistence.ErrNotFound) {
		return userErr(render.KeyExpired)
	}
	if err != nil {
		return err
	}
	d, err := b.render.TournamentSignup(c.pub, t)
	if err != nil {
		return err
	}
	return b.respond(ctx, c, respUpdate, d)
}

// standingsCommand answers /ttt-tournament standings: a Swiss or
// round-robin's standings, an elimination's bracket picture.
func (b *Bot) standingsCommand(ctx context.Context, c *call, t *persistence.Tournament) error {
	if t.Status == persistence.TournamentSignup || t.Status == persistence.TournamentCancelled {
		return b.respond(ctx, c, respMessage, render.Ephemeral(strings.Join([]string{b.cat.Text(c.loc, "tournament.title", "name", t.Name),
			b.render.TournamentInfo(c.loc, t)}, "\n")))
	}
	if t.Format != command.FormatElimination {
		done := t.Round - 1 // the rounds played to the end
		if t.Status == persistence.TournamentFinished {
			done = t.Round
		}
		if done < 1 {
			return b.respond(ctx, c, respMessage, render.Ephemeral(strings.Join([]string{b.cat.Text(c.loc, "tournament.title", "name", t.Name),
				b.render.TournamentInfo(c.loc, t)}, "\n")))
		}
		st, err := tournament.Standings(tourney.EnginePlayers(t), roundsUpTo(t, done))
		if err != nil {
			return err
		}
		return b.respond(ctx, c, respMessage, b.render.TournamentStandings(c.pub, t, done, st))
	}
	picture, err := render.TournamentPicture(t, nil)
	if err != nil {
		return err
	}
	var podium []string
	if t.Status == persistence.TournamentFinished {
		podium, _ = render.TournamentPodium(t, nil)
	}
	return b.respond(ctx, c, respMessage, b.render.TournamentFinal(c.pub, t, podium, picture))
}

// cancelTournament ends a tournament: its live games end without a result
// and its sign-up says it was cancelled.
func (b *Bot) cancelTournament(ctx context.Context, c *call, t *persistence.Tournament) error {
	next, err := b.store.UpdateTournament(ctx, t.ID, func(t *persistence.Tournament) error {
		if t.Status.Over() {
			return userErr(tourney.KeyOver, "name", t.Name)
		}
		// Due now: a sweeper ends whatever games this process does not.
		t.Status, t.Due = persistence.TournamentCancelled, b.now()
		return nil
	})
	if err != nil {
		return err
	}
	for _, p := range next.Games {
		if p.Game == "" || p.Result != "" {
			continue
		}
		if s, err := b.store.EndByModerator(ctx, p.Game, 0); err == nil {
			if err := b.editBoard(ctx, c.pub, s, nil); err != nil {
				c.warnings = append(c.warnings, err)
			}
		} else if !errors.Is(err, persistence.ErrNotLive) && !errors.Is(err, persistence.ErrNotFound) {
			c.warnings = append(c.warnings, err)
		}
	}
	b.editSignup(ctx, c.pub, next)
	b.audit(ctx, c, "tournament-cancel", next.Name)
	return b.respond(ctx, c, respMessage, &discordgo.InteractionResponseData{
		Content: b.cat.Text(c.pub, "tournament.cancelled", "name", next.Name, "user", render.Mention(c.user)), AllowedMentions: render.NoMentions()})
}
