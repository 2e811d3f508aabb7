package bot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// Keys of the replies to /ttt-admin.
const (
	// KeyNotModerator refuses /ttt-admin to a member who may not manage
	// the server and has none of the moderator roles.
	KeyNotModerator = "reply.not_moderator"
	// keyEnded tells a moderator how many games they ended.
	keyEnded = "admin.ended"
)

// maxChannelScan bounds the live games end-game looks through.
const maxChannelScan = 10000

// The routes of /ttt-admin, for moderators only (see routes.go).
func init() {
	admin := func(sub string) string { return command.Path(command.AdminName, sub) }
	routeCommand(admin(command.SubEndGame),
		func(b *Bot, ctx context.Context, c *call, _ command.EndGameRequest) error { return b.endGames(ctx, c) }, moderatorOnly)
	routeCommand(admin(command.SubModel), (*Bot).model, moderatorOnly)
	routeCommand(admin(command.SubRetrain), (*Bot).retrainCommand, moderatorOnly)
	routeCommand(admin(command.SubSettings),
		func(b *Bot, ctx context.Context, c *call, _ command.SettingsRequest) error {
			return b.showSettings(ctx, c)
		}, moderatorOnly)
	routeCommand(admin(command.SubSet), (*Bot).setSetting, moderatorOnly)
	routeCommand(admin(command.SubLog),
		func(b *Bot, ctx context.Context, c *call, _ command.LogRequest) error { return b.auditLog(ctx, c) }, moderatorOnly)
	routeCommand(admin(command.SubForgetGuild),
		func(b *Bot, ctx context.Context, c *call, _ command.ForgetServerRequest) error {
			return b.forgetServer(ctx, c)
		}, moderatorOnly)
	routeComponent(true, (*Bot).clickSetting, customid.ActionSetting)
	routeComponent(true, (*Bot).clickForgetServer, customid.ActionForgetServer)
}

// moderator reports whether the member behind i may use /ttt-admin: with
// Manage Server or Administrator in the channel, or one of the roles of
// the server's moderator roles (the admin-roles setting, by default
// Options.AdminRoles). Outside a server nobody may.
func (b *Bot) moderator(ctx context.Context, c *call) bool {
	i := c.i
	if i.GuildID == "" || i.Member == nil {
		return false
	}
	if i.Member.Permissions&(discordgo.PermissionManageGuild|discordgo.PermissionAdministrator) != 0 {
		return true
	}
	st, err := b.settings(ctx, c, i.GuildID)
	if err != nil {
		// The server's roles are unknown: only Manage Server counts, so
		// that roles it revoked do not come back.
		c.warnings = append(c.warnings, err)
		return false
	}
	for _, r := range i.Member.Roles {
		if slices.Contains(st.AdminRoles, r) {
			return true
		}
	}
	return false
}

// endGames ends every live game and challenge in the channel, turns their
// boards into the final state and tells the moderator how many it ended.
//
// The Store has no index of a channel's games, so this looks through the
// deadline index, which holds every live game (one claimed by a sweeper at
// this moment is missed).
func (b *Bot) endGames(ctx context.Context, c *call) error {
	due, err := b.store.ListDue(ctx, b.now().Add(100*365*24*time.Hour), maxChannelScan)
	if err != nil {
		return err
	}
	ended := 0
	for _, d := range due {
		if d.Game.Channel() != c.i.ChannelID {
			continue
		}
		s, err := retry(func() (*persistence.Session, error) { return b.store.EndByModerator(ctx, d.Game, 0) })
		if errors.Is(err, persistence.ErrNotLive) || errors.Is(err, persistence.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		ended++
		if err := b.editBoard(ctx, c.pub, s, nil); err != nil {
			c.warnings = append(c.warnings, err)
		}
	}
	if ended == 0 {
		return &UserError{Key: render.KeyNoGame, Err: fmt.Errorf("bot: no live game in channel %s", c.i.ChannelID)}
	}
	b.audit(ctx, c, "end-game", "<#"+c.i.ChannelID+"> "+strconv.Itoa(ended))
	return b.respond(ctx, c, respMessage, b.render.Reply(c.loc, keyEnded, "count", b.cat.Number(c.loc, ended)))
}

// rematch starts a new game of the finished game id with the same players
// and rules and the sides swapped: against an AI it starts at once, between
// two people it is a challenge to the other player, and between two AIs it
// is a new duel.
func (b *Bot) rematch(ctx context.Context, c *call, id customid.ID) error {
	s, err := b.store.Game(ctx, id.Game)
	if err != nil {
		return err
	}
	if s.Status != persistence.StatusFinished {
		return userErr(render.KeyInvalidButton)
	}
	rules, err := persistence.ParseBoardRules(s.Rules)
	if err != nil {
		return fmt.Errorf("bot: rematch of %s: %w", s.ID, err)
	}
	if s.Duel() { // a new duel, as /ttt ai-duel's route starts it
		req := command.AIDuelRequest{X: s.Players[1].AI, O: s.Players[0].AI, Rules: rules.Small, Wide: rules.Wide}
		return playable(func(b *Bot, ctx context.Context, c *call, _ command.Request) error { return b.duel(ctx, c, req) })(b, ctx, c, req)
	}
	side := s.SideOf(c.user)
	if side == game.Empty {
		return userErr(render.KeyNotYourGame)
	}
	st, err := b.mayPlay(ctx, c)
	if err != nil {
		return err
	}
	swapped := [2]persistence.Seat{s.Players[1], s.Players[0]}
	other := s.Seat(side.Other())
	if other.IsAI() {
		if err := b.admitGame(c, "game", s.Rules, other); err != nil {
			return err
		}
		ai := other.AI
		ai.Seed = b.seed()
		swapped[seatIndex(side)] = persistence.Seat{AI: ai}
		ng, err := b.store.CreateGame(ctx, c.i.ChannelID, persistence.Session{
			Rules: s.Rules, Players: swapped, Start: s.Start, Guild: c.i.GuildID, TurnTime: st.TurnTime, GameTime: st.GameTime,
		})
		if err != nil {
			return err
		}
		return b.continueGame(ctx, c, ng, respMessage)
	}
	return b.postChallenge(ctx, c, s.Rules, s.Swap, swapped, side.Other())
}
