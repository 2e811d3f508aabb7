package bot

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/persistence"
)

// Keys of the replies of /ttt privacy, /ttt forget-me and /ttt-admin
// forget-server.
const (
	// KeyNotYourConfirm refuses a confirmation button pressed by someone
	// other than the user who asked for it.
	KeyNotYourConfirm = "reply.not_your_confirm"
)

// The routes of /ttt privacy and /ttt forget-me, and of forget-me's
// confirmation (see routes.go).
func init() {
	routeCommand(command.Path(command.Name, command.SubPrivacy),
		func(b *Bot, ctx context.Context, c *call, _ command.PrivacyRequest) error { return b.privacy(ctx, c) })
	routeCommand(command.Path(command.Name, command.SubForgetMe),
		func(b *Bot, ctx context.Context, c *call, _ command.ForgetMeRequest) error { return b.forgetMe(ctx, c) })
	routeComponent(true, (*Bot).clickForgetMe, customid.ActionForgetMe)
}

// privacy tells the user, privately, what the bot keeps and for how long,
// and how to have it deleted.
func (b *Bot) privacy(ctx context.Context, c *call) error {
	return b.respond(ctx, c, respMessage, b.render.Privacy(c.loc, render.PrivacyInfoOf(b.store.Retention())))
}

// forgetMe answers /ttt forget-me privately with what would be deleted
// and a Confirm button only the user may press; nothing is deleted yet.
func (b *Bot) forgetMe(ctx context.Context, c *call) error {
	data, err := b.render.ForgetMeConfirm(c.loc, c.user)
	if err != nil {
		return err
	}
	return b.respond(ctx, c, respMessage, data)
}

// clickForgetMe deletes the user's data when they confirm /ttt forget-me:
// the confirmation turns into a note that it is running, then into the
// report of what went (see persistence.Store.ForgetUser). The boards of
// the games it ended are updated. A second confirmation finds nothing
// more and says so.
func (b *Bot) clickForgetMe(ctx context.Context, c *call, id customid.ID) error {
	if id.Owner != c.user {
		return &UserError{Key: KeyNotYourConfirm, Err: fmt.Errorf("bot: %s pressed the forget-me confirmation of %s", c.user, id.Owner)}
	}
	if id.Game != render.ForgetMeRef(c.user) {
		return &UserError{Key: render.KeyInvalidButton, Err: fmt.Errorf("bot: forget-me confirmation for %q", id.Game)}
	}
	if err := forgetWait(b.store.ThrottleUser(ctx, "forget-me", c.user, forgetEvery, b.now())); err != nil {
		return err
	}
	if err := b.startForgetting(ctx, c); err != nil {
		return err
	}
	rep, err := b.store.ForgetUser(ctx, c.user)
	if err != nil {
		return err // the note that it is running says so
	}
	b.editEnded(ctx, c, rep.Ended)
	return b.editOriginal(ctx, c, b.render.ForgetMeReport(c.loc, rep))
}

// forgetServer answers /ttt-admin forget-server (admin checked the
// moderator) privately with what would be deleted and a Confirm button
// only this moderator may press.
func (b *Bot) forgetServer(ctx context.Context, c *call) error {
	data, err := b.render.ForgetServerConfirm(c.loc, c.i.GuildID, c.user)
	if err != nil {
		return err
	}
	return b.respond(ctx, c, respMessage, data)
}

// clickForgetServer deletes the server's data when the moderator who
// asked confirms, checking again that they are still a moderator here,
// and reports what went (see persistence.Store.ForgetGuild).
func (b *Bot) clickForgetServer(ctx context.Context, c *call, id customid.ID) error {
	guild, _, _ := strings.Cut(string(id.Game), ".")
	switch {
	case id.Owner != c.user:
		return &UserError{Key: KeyNotYourConfirm, Err: fmt.Errorf("bot: %s pressed the forget-server confirmation of %s", c.user, id.Owner)}
	case c.i.GuildID == "" || guild != c.i.GuildID || id.Game != render.ForgetServerRef(guild):
		return &UserError{Key: render.KeyInvalidButton, Err: fmt.Errorf("bot: forget-server confirmation for %q in guild %q", id.Game, c.i.GuildID)}
	case !b.moderator(ctx, c):
		return &UserError{Key: KeyNotModerator, Err: fmt.Errorf("bot: %s is not a moderator in guild %s", c.user, guild)}
	}
	if err := forgetWait(b.store.Throttle(ctx, "forget-server:"+guild, forgetEvery, b.now())); err != nil {
		return err
	}
	if err := b.startForgetting(ctx, c); err != nil {
		return err
	}
	rep, err := b.store.ForgetGuild(ctx, guild)
	if err != nil {
		return err
	}
	b.settingsCache.drop(guild)
	b.editEnded(ctx, c, rep.Ended)
	b.log.Info("bot: forgot a guild at a moderator's request", append([]any{"guild", guild, "moderator", c.user}, forgetAttrs(rep)...)...)
	return b.editOriginal(ctx, c, b.render.ForgetServerReport(c.loc, rep))
}

// ForgetGuild deletes everything the bot keeps about a guild (see
// persistence.Store.ForgetGuild). Call it on the gateway's GUILD_DELETE
// event when the bot was removed from the guild, not when the guild is
// only unavailable (an outage: the event's Unavailable is set). The
// boards of the games it ends are left as they are: the bot can no longer
// reach them. It logs what it deleted.
func (b *Bot) ForgetGuild(ctx context.Context, guildID string) error {
	rep, err := b.store.ForgetGuild(ctx, guildID)
	if err != nil {
		return fmt.Errorf("bot: forget guild %s: %w", guildID, err)
	}
	b.settingsCache.drop(guildID)
	b.log.Info("bot: forgot a guild the bot left", append([]any{"guild", guildID}, forgetAttrs(rep)...)...)
	return nil
}

// startForgetting turns the confirmation into a note that the deletion is
// running, its button gone, so that it cannot be pressed twice; an error
// from here on replaces the note.
func (b *Bot) startForgetting(ctx context.Context, c *call) error {
	if err := b.respond(ctx, c, respUpdate, b.render.Forgetting(c.loc)); err != nil {
		return err
	}
	c.deferred = true
	return nil
}

// editEnded turns the boards of the games a deletion ended into their
// final state; failures are warnings. A board of this server keeps its
// public language although the deletion may have taken the setting; one
// of another server (a user's game elsewhere) is in that server's
// language, or else the user's.
func (b *Bot) editEnded(ctx context.Context, c *call, ended []*persistence.Session) {
	for _, s := range ended {
		loc := c.loc
		if s.Guild == c.i.GuildID {
			loc = c.pub
		}
		if err := b.editBoard(ctx, loc, s, nil); err != nil {
			c.warnings = append(c.warnings, err)
		}
	}
}

// forgetAttrs are a deletion report's counts as log attributes.
func forgetAttrs(r persistence.ForgetReport) []any {
	return []any{"stats", r.Stats, "puzzle_stats", r.PuzzleStats, "leaderboards", r.Leaderboards, "puzzles", r.Puzzles,
		"history", r.History, "archives", r.Archives, "reviews", r.Reviews, "games", r.Games, "ended", len(r.Ended),
		"settings", r.Settings, "audit", r.Audit}
}

// forgetEvery is the least time between two runs of forget-me for one
// user, or of forget-server for one server: each run reads the whole
// store, so it must not be repeatable at will.
const forgetEvery = 2 * time.Minute

// KeyForgetWait refuses a forget that ran moments ago.
const KeyForgetWait = "error.forget_wait"

// forgetWait turns the claim of a forget's throttle (ok, until its end,
// err: persistence's Throttle or ThrottleUser, for forgetEvery) into the
// refusal of a forget that ran moments ago, so that it runs at most once
// every forgetEvery, across replicas. A user's is named by pseudonym:
// forget-me keeps it, and it must not name them.
func forgetWait(ok bool, until time.Time, err error) error {
	switch {
	case err != nil:
		return err
	case !ok:
		return userErr(KeyForgetWait, "when", render.Timestamp((until.UnixMilli()+999)/1000))
	}
	return nil
}
