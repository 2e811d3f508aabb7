package bot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/bot/settings"
	"github.com/tttbot/ttt-bot/persistence"
)

// settingsCacheTTL is how long a server's settings are read from the
// process's cache; changes made by any replica are pushed sooner
// (pub/sub), so this only bounds the damage of a missed message.
const settingsCacheTTL = 30 * time.Second

// defaultSettings are the settings of a server that set nothing.
func (b *Bot) defaultSettings() settings.Server {
	return settings.Defaults(b.cat.Locales(), b.lc.turnTime, b.abuse.cooldown, b.lc.adminRoles)
}

// Keys of the refusals that settings cause.
const (
	// KeyHintsOff refuses /ttt hint where the server turned hints off.
	KeyHintsOff = "reply.hints_off"
	// KeyDuelsOff refuses /ttt ai-duel where the server turned duels off.
	KeyDuelsOff = "reply.duels_off"
	// keyChannelNotAllowed refuses a game outside the server's channels.
	keyChannelNotAllowed = "error.channel_not_allowed"
	// keyRoleRequired refuses a game to a member without the server's role.
	keyRoleRequired = "error.role_required"
)

// mayPlay checks that a game may start, or be joined, here by the caller:
// in one of the server's channels, by a member with its role.
func (b *Bot) mayPlay(ctx context.Context, c *call) (settings.Server, error) {
	st, err := b.settings(ctx, c, c.i.GuildID)
	if err != nil {
		return st, err
	}
	if len(st.Channels) > 0 && !slices.Contains(st.Channels, c.i.ChannelID) {
		list := make([]string, len(st.Channels))
		for i, ch := range st.Channels {
			list[i] = "<#" + ch + ">"
		}
		return st, userErr(keyChannelNotAllowed, "channels", b.render.List(c.loc, list))
	}
	if st.Role != "" && (c.i.Member == nil || !slices.Contains(c.i.Member.Roles, st.Role)) {
		return st, userErr(keyRoleRequired, "role", "<@&"+st.Role+">")
	}
	return st, b.checkGameLimits(ctx, c, st)
}

// setSetting handles /ttt-admin set: it checks the value, stores it with
// an audit entry (every replica applies it within moments) and answers
// privately with the setting's new value.
func (b *Bot) setSetting(ctx context.Context, c *call, r command.SetRequest) error {
	if c.i.GuildID == "" {
		return userErr(KeyNotModerator)
	}
	st, err := b.settings(ctx, c, c.i.GuildID)
	if err != nil {
		return err
	}
	canonical, err := st.Apply(r.Setting, r.Value, b.defaultSettings())
	if err != nil {
		return err
	}
	if err := b.checkExists(ctx, c, r.Setting, st); err != nil {
		return err
	}
	return b.storeSetting(ctx, c, r.Setting, canonical, st)
}

// guildLister is what checkExists asks Discord: a server's channels and
// roles. *discordgo.Session has it (and InlineDiscord passes it on).
type guildLister interface {
	GuildChannels(guildID string, options ...discordgo.RequestOption) ([]*discordgo.Channel, error)
	GuildRoles(guildID string, options ...discordgo.RequestOption) ([]*discordgo.Role, error)
}

// checkExists refuses channels and roles that the server does not have
// (as far as the bot can see: a channel missing from the list Discord
// gives the bot, or that is not a text channel, cannot host games).
func (b *Bot) checkExists(ctx context.Context, c *call, name string, st settings.Server) error {
	gl, ok := b.base.(guildLister)
	if !ok {
		return nil // a Discord that cannot list them: nothing to check against
	}
	switch name {
	case settings.Channels:
		if len(st.Channels) == 0 {
			return nil
		}
		chans, err := gl.GuildChannels(c.i.GuildID, discordgo.WithContext(ctx))
		if err != nil {
			return fmt.Errorf("bot: channels of guild %s: %w", c.i.GuildID, err)
		}
		for _, id := range st.Channels {
			if !slices.ContainsFunc(chans, func(ch *discordgo.Channel) bool { return ch.ID == id && textChannel(ch.Type) }) {
				return userErr("error.unknown_channel", "channel", "<#"+id+">")
			}
		}
	case settings.Role, settings.AdminRoles:
		ids := st.AdminRoles
		if name == settings.Role {
			ids = nil
			if st.Role != "" {
				ids = []string{st.Role}
			}
		}
		if len(ids) == 0 {
			return nil
		}
		roles, err := gl.GuildRoles(c.i.GuildID, discordgo.WithContext(ctx))
		if err != nil {
			return fmt.Errorf("bot: roles of guild %s: %w", c.i.GuildID, err)
		}
		for _, id := range ids {
			if !slices.ContainsFunc(roles, func(r *discordgo.Role) bool { return r.ID == id }) {
				return userErr("error.unknown_role", "role", "<@&"+id+">")
			}
		}
	}
	return nil
}

// textChannel reports whether games can be played in a channel of type t.
func textChannel(t discordgo.ChannelType) bool {
	switch t {
	case discordgo.ChannelTypeGuildText, discordgo.ChannelTypeGuildNews, discordgo.ChannelTypeGuildVoice,
		discordgo.ChannelTypeGuildPublicThread, discordgo.ChannelTypeGuildPrivateThread, discordgo.ChannelTypeGuildNewsThread:
		return true
	}
	return false
}

// storeSetting stores a setting's canonical value and answers with it.
func (b *Bot) storeSetting(ctx context.Context, c *call, name, canonical string, st settings.Server) error {
	detail := name + "=" + canonical
	action := "set"
	if canonical == "" {
		action, detail = "reset", name
	}
	if err := b.store.SetGuildSetting(ctx, c.i.GuildID, name, canonical, persistence.AuditEntry{User: c.user, Action: action, Detail: detail}); err != nil {
		return err
	}
	b.settingsCache.drop(c.i.GuildID)
	return b.respond(ctx, c, respMessage, b.render.SettingChanged(c.loc, name, st))
}

// showSettings handles /ttt-admin settings: the server's settings,
// privately, with buttons that switch the on/off ones.
func (b *Bot) showSettings(ctx context.Context, c *call) error {
	if c.i.GuildID == "" {
		return userErr(KeyNotModerator)
	}
	st, err := b.settings(ctx, c, c.i.GuildID)
	if err != nil {
		return err
	}
	data, err := b.render.Settings(c.loc, c.i.GuildID, c.user, st)
	if err != nil {
		return err
	}
	return b.respond(ctx, c, respMessage, data)
}

// clickSetting changes a setting from the settings message: a switch
// (hints, AI duels, rated) or a menu (default board, language). Only the
// moderator who opened the message may, and only while still one.
func (b *Bot) clickSetting(ctx context.Context, c *call, id customid.ID) error {
	guild, name, ok := strings.Cut(string(id.Game), ".")
	var value string
	switch name {
	case settings.Hints, settings.Duels, settings.Rated:
		ok = ok && id.Move <= 1
		value = settings.OnOff(id.Move == 1)
	case settings.DefaultBoard, settings.Language:
		values := c.i.MessageComponentData().Values
		ok = ok && (id.Move == 0 || name == settings.Language && id.Move < render.LanguageMenus(len(b.cat.Locales()))) && len(values) == 1
		if ok {
			value = values[0]
		}
	default:
		ok = false
	}
	switch {
	case id.Owner != c.user:
		return userErr(KeyNotYourSettings)
	case !ok || guild != c.i.GuildID:
		return &UserError{Key: render.KeyInvalidButton, Err: fmt.Errorf("bot: setting component %q", id.Game)}
	case !b.moderator(ctx, c):
		return &UserError{Key: KeyNotModerator, Err: errors.New("bot: no longer a moderator")}
	}
	st, err := b.settings(ctx, c, guild)
	if err != nil {
		return err
	}
	canonical, err := st.Change(name, value, b.defaultSettings())
	if err != nil {
		return err
	}
	if err := b.store.SetGuildSetting(ctx, guild, name, canonical,
		persistence.AuditEntry{User: c.user, Action: "set", Detail: name + "=" + canonical}); err != nil {
		return err
	}
	b.settingsCache.drop(guild)
	data, err := b.render.Settings(c.loc, guild, c.user, st)
	if err != nil {
		return err
	}
	return b.respond(ctx, c, respUpdate, data)
}

// KeyNotYourSettings refuses a settings button to anyone but the
// moderator who opened the message.
const KeyNotYourSettings = "reply.not_your_settings"

// auditLog handles /ttt-admin log: the server's last 25 settings changes
// and moderator actions, privately.
func (b *Bot) auditLog(ctx context.Context, c *call) error {
	entries, err := b.store.AuditLog(ctx, c.i.GuildID, render.AuditLogLines)
	var corrupt *persistence.CorruptAuditError
	if errors.As(err, &corrupt) {
		c.warnings = append(c.warnings, err)
	} else if err != nil {
		return err
	}
	return b.respond(ctx, c, respMessage, b.render.AuditLog(c.loc, entries))
}

// audit records a moderator action in the server's audit log; a failure
// is a warning (the action itself is done).
func (b *Bot) audit(ctx context.Context, c *call, action, detail string) {
	if c.i.GuildID == "" {
		return
	}
	if err := b.store.Audit(ctx, c.i.GuildID, persistence.AuditEntry{User: c.user, Action: action, Detail: detail}); err != nil {
		c.warnings = append(c.warnings, err)
	}
}
