package bot

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// The per-server settings, by the name /ttt-admin set takes. Each has a
// default from the bot's Options (the environment), used by servers that
// set nothing.
const (
	// SettingChannels are the channels where games may start; default all.
	SettingChannels = "channels"
	// SettingRole is the role a member needs to play; default none.
	SettingRole = "role"
	// SettingTurnTime is the time per move in games between people.
	SettingTurnTime = "turn-time"
	// SettingChallengeExpiry is how long a challenge waits for an answer.
	SettingChallengeExpiry = "challenge-expiry"
	// SettingChallengeCooldown is the least time between two challenges
	// by one user.
	SettingChallengeCooldown = "challenge-cooldown"
	// SettingChannelGames is the most games running at once in a channel.
	SettingChannelGames = "channel-games"
	// SettingUserGames is the most games one user plays at once.
	SettingUserGames = "user-games"
	// SettingDefaultBoard is the board of a game whose command names none.
	SettingDefaultBoard = "default-board"
	// SettingBoardLabels is what the board's cells show: their
	// coordinates everywhere, or on free cells only.
	SettingBoardLabels = "board-labels"
	// SettingHints says whether /ttt hint is allowed.
	SettingHints = "hints"
	// SettingDuels says whether /ttt ai-duel is allowed.
	SettingDuels = "ai-duels"
	// SettingRated says whether games between people change ratings.
	SettingRated = "rated"
	// SettingLanguage is the server's language for messages everyone sees.
	SettingLanguage = "language"
	// SettingAdminRoles are roles that may use /ttt-admin besides members
	// with Manage Server.
	SettingAdminRoles = "admin-roles"
)

// SettingNames returns the names of the per-server settings that
// /ttt-admin set takes, in the order /ttt-admin settings shows them.
func SettingNames() []string {
	out := make([]string, len(settingSpecs))
	for i, spec := range settingSpecs {
		out[i] = spec.name
	}
	return out
}

// Bounds of the settings' values.
const (
	// MaxSettingChannels and MaxSettingRoles bound the lists of channels
	// and moderator roles.
	MaxSettingChannels, MaxSettingRoles = 25, 10
	// MinTurnTime and MaxTurnTime bound the time per move.
	MinTurnTime, MaxTurnTime = 30 * time.Second, 24 * time.Hour
	// MinChallengeExpiry and MaxChallengeExpiry bound how long a
	// challenge waits.
	MinChallengeExpiry, MaxChallengeExpiry = time.Minute, 24 * time.Hour
	// MaxGamesLimit bounds the games-per-channel and games-per-player
	// limits, which take 1 to MaxGamesLimit or none (held as 0).
	MaxGamesLimit = 100
	// MaxChallengeCooldown bounds the challenge cooldown.
	MaxChallengeCooldown = time.Hour
	// DefaultChallengeExpiry is how long a challenge waits in a server
	// that set nothing (the Store's ChallengeTTL default).
	DefaultChallengeExpiry = 5 * time.Minute
	// settingsCacheTTL is how long a server's settings are read from the
	// process's cache; changes made by any replica are pushed sooner
	// (pub/sub), so this only bounds the damage of a missed message.
	settingsCacheTTL = 30 * time.Second
)

// Settings are one server's settings, resolved: what the server set, else
// the bot's defaults (its Options, from the environment).
type Settings struct {
	// Channels are the channels where games may start; empty for all.
	Channels []string
	// Role is the role a member needs to start or join a game; "" for none.
	Role string
	// TurnTime is the time per move.
	TurnTime time.Duration
	// ChallengeExpiry is how long a challenge waits for an answer.
	ChallengeExpiry time.Duration
	// ChallengeCooldown is the least time between two challenges by one
	// user; 0 for none.
	ChallengeCooldown time.Duration
	// ChannelGames is the most live games (and open challenges) in one
	// channel, UserGames the most one player has in the server at once;
	// 0 for no limit.
	ChannelGames, UserGames int
	// Language is the server's language for the messages everyone sees
	// (boards, challenges, results); "" for the language of whoever
	// started them. Private answers are in each user's own language.
	Language discordgo.Locale
	// Board is the board of a game whose command names none (a preset);
	// the zero Rules means 3x3.
	Board game.Rules
	// Labels is what the board's cells show; the zero value is
	// LabelsCoordinates.
	Labels BoardLabels
	// Hints and Duels say whether /ttt hint and /ttt ai-duel are allowed.
	Hints, Duels bool
	// Rated says whether games between people change their ratings.
	Rated bool
	// AdminRoles may use /ttt-admin besides members with Manage Server.
	AdminRoles []string
	// set holds the names the server set (the others are defaults).
	set map[string]bool
	// languages are the locales the bot ships, which the language
	// setting takes.
	languages []discordgo.Locale
}

// challengeExpiry is the Expiry of the server's new challenges: its
// setting, or 0 for the Store's default.
func (s Settings) challengeExpiry() time.Duration {
	if !s.IsSet(SettingChallengeExpiry) {
		return 0
	}
	return s.ChallengeExpiry
}

// IsSet reports whether the server set the named setting.
func (s Settings) IsSet(name string) bool { return s.set[name] }

// defaultSettings are the settings of a server that set nothing.
func (b *Bot) defaultSettings() Settings {
	return Settings{languages: b.cat.Locales(), TurnTime: b.lc.turnTime, ChallengeExpiry: DefaultChallengeExpiry, ChallengeCooldown: b.abuse.cooldown, Hints: true, Duels: true, Rated: true, AdminRoles: slices.Clone(b.lc.adminRoles)}
}

// settingErr is the refusal of a value a setting does not take.
func settingErr(name string) *UserError {
	return userErr("error.bad_setting." + name)
}

// apply parses text as the value of setting name (as typed in /ttt-admin
// set, or as stored) into s, and returns its canonical text, which is
// what is stored ("" for the default). A value the setting does not take
// is a *UserError that says what it takes; settingSpecs says how each
// setting reads.
func (s *Settings) apply(name, text string, def Settings) (string, error) {
	spec, ok := specOf(name)
	if !ok {
		return "", &UserError{Key: "error.bad_option", Option: optSetting, Err: fmt.Errorf("bot: unknown setting %q", name)}
	}
	t := strings.TrimSpace(text)
	return spec.parse(s, name, t, strings.EqualFold(t, "default"), def)
}

// storedSetting is the text of a stored setting as apply reads it today:
// the games limits stored "none" as "0" while apply took 0 for no limit,
// and apply now refuses 0.
func storedSetting(name, text string) string {
	if (name == SettingChannelGames || name == SettingUserGames) && text == "0" {
		return "none"
	}
	return text
}

// mentions reads a list of 1 to max Discord IDs, written as mentions with
// the given opening ("<#123>", "<@&123>") or bare, separated by spaces or
// commas; duplicates are dropped.
func mentions(t, open string, max int) ([]string, bool) {
	f := strings.FieldsFunc(t, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' || r == '\n' })
	var ids []string
	for _, m := range f {
		id := strings.TrimSuffix(strings.TrimPrefix(m, open), ">")
		if !customid.Snowflake(id) || strings.HasPrefix(m, open) != strings.HasSuffix(m, ">") {
			return nil, false
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids, len(ids) > 0 && len(ids) <= max
}

// parseSwitch reads on/off (and true/false, yes/no, 1/0).
func parseSwitch(t string) (bool, bool) {
	switch strings.ToLower(t) {
	case "on", "true", "yes", "1", "enabled":
		return true, true
	case "off", "false", "no", "0", "disabled":
		return false, true
	}
	return false, false
}

// onOff is a switch's stored text.
func onOff(v bool) string {
	if v {
		return "on"
	}
	return "off"
}

// clone returns s with its own set map, so that the cached value is
// never written through it.
func (s Settings) clone() Settings {
	s.set = maps.Clone(s.set)
	return s
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
func (b *Bot) mayPlay(ctx context.Context, c *call) (Settings, error) {
	st, err := b.settings(ctx, c, c.i.GuildID)
	if err != nil {
		return st, err
	}
	if len(st.Channels) > 0 && !slices.Contains(st.Channels, c.i.ChannelID) {
		list := make([]string, len(st.Channels))
		for i, ch := range st.Channels {
			list[i] = "<#" + ch + ">"
		}
		return st, userErr(keyChannelNotAllowed, "channels", b.render.list(c.loc, list))
	}
	if st.Role != "" && (c.i.Member == nil || !slices.Contains(c.i.Member.Roles, st.Role)) {
		return st, userErr(keyRoleRequired, "role", "<@&"+st.Role+">")
	}
	return st, b.checkGameLimits(ctx, c, st)
}

// setSetting handles /ttt-admin set: it checks the value, stores it with
// an audit entry (every replica applies it within moments) and answers
// privately with the setting's new value.
func (b *Bot) setSetting(ctx context.Context, c *call, r SetRequest) error {
	if c.i.GuildID == "" {
		return userErr(KeyNotModerator)
	}
	st, err := b.settings(ctx, c, c.i.GuildID)
	if err != nil {
		return err
	}
	canonical, err := st.apply(r.Setting, r.Value, b.defaultSettings())
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
func (b *Bot) checkExists(ctx context.Context, c *call, name string, st Settings) error {
	gl, ok := b.base.(guildLister)
	if !ok {
		return nil // a Discord that cannot list them: nothing to check against
	}
	switch name {
	case SettingChannels:
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
	case SettingRole, SettingAdminRoles:
		ids := st.AdminRoles
		if name == SettingRole {
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
func (b *Bot) storeSetting(ctx context.Context, c *call, name, canonical string, st Settings) error {
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
	case SettingHints, SettingDuels, SettingRated:
		ok = ok && id.Move <= 1
		value = onOff(id.Move == 1)
	case SettingDefaultBoard, SettingLanguage:
		values := c.i.MessageComponentData().Values
		ok = ok && (id.Move == 0 || name == SettingLanguage && id.Move < languageMenus(len(b.cat.Locales()))) && len(values) == 1
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
		return &UserError{Key: KeyInvalidButton, Err: fmt.Errorf("bot: setting component %q", id.Game)}
	case !b.moderator(ctx, c):
		return &UserError{Key: KeyNotModerator, Err: errors.New("bot: no longer a moderator")}
	}
	st, err := b.settings(ctx, c, guild)
	if err != nil {
		return err
	}
	canonical, err := st.apply(name, value, b.defaultSettings())
	if err != nil {
		return err
	}
	if err := b.store.SetGuildSetting(ctx, guild, name, canonical,
		persistence.AuditEntry{User: c.user, Action: "set", Detail: name + "=" + canonical}); err != nil {
		return err
	}
	b.settingsCache.drop(guild)
	if st.set == nil {
		st.set = map[string]bool{}
	}
	st.set[name] = canonical != ""
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
	entries, err := b.store.AuditLog(ctx, c.i.GuildID, maxLogLines)
	var corrupt *persistence.CorruptAuditError
	if errors.As(err, &corrupt) {
		c.warnings = append(c.warnings, err)
	} else if err != nil {
		return err
	}
	return b.respond(ctx, c, respMessage, b.render.AuditLog(c.loc, entries))
}

// maxLogLines is how many entries /ttt-admin log shows.
const maxLogLines = 25

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

// settingText shows st's value of setting name in loc.
func (r *Renderer) settingText(loc discordgo.Locale, name string, st Settings) string {
	if spec, ok := specOf(name); ok {
		return spec.text(r, loc, st)
	}
	return ""
}

// switchText shows an on/off value.
func (r *Renderer) switchText(loc discordgo.Locale, v bool) string {
	if v {
		return "✅ " + r.cat.Text(loc, "settings.on")
	}
	return "⛔ " + r.cat.Text(loc, "settings.off")
}

// list joins items as a sentence's list in loc ("a, b and c").
func (r *Renderer) list(loc discordgo.Locale, items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + r.cat.Text(loc, "list.and") + items[len(items)-1]
}
