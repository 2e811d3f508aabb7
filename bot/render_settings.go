package bot

import (
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/persistence"
)

// colorSettings is the embed colour of the settings message.
const colorSettings = 0x5865f2

// Settings renders /ttt-admin settings, privately for the moderator owner:
// an embed with one field per setting (its value, marked when it is the
// default, and what /ttt-admin set takes), and buttons that switch the
// on/off settings.
func (r *Renderer) Settings(loc discordgo.Locale, guild, owner string, st Settings) (*discordgo.InteractionResponseData, error) {
	e := &discordgo.MessageEmbed{
		Title:       r.cat.Text(loc, "settings.title"),
		Description: r.cat.Text(loc, "settings.intro"),
		Color:       colorSettings,
	}
	for _, name := range SettingNames() {
		value := r.settingText(loc, name, st)
		if !st.IsSet(name) {
			value += " " + r.cat.Text(loc, "settings.default")
		}
		value += "\n-# " + r.cat.Text(loc, "settings.takes."+name)
		e.Fields = append(e.Fields, &discordgo.MessageEmbedField{
			Name:  truncate(r.cat.Text(loc, "setting."+name)+" · `"+name+"`", MaxEmbedFieldName),
			Value: truncate(value, MaxEmbedFieldValue),
		})
	}
	row := make([]discordgo.MessageComponent, 0, 2)
	for _, sw := range []struct {
		name string
		on   bool
	}{{SettingHints, st.Hints}, {SettingDuels, st.Duels}} {
		key, style, next := "button.turn_off", discordgo.SecondaryButton, 0
		if !sw.on {
			key, style, next = "button.turn_on", discordgo.SuccessButton, 1
		}
		id, err := r.signer.Encode(CustomID{Action: ActionSetting, Game: persistence.GameID(guild + "." + sw.name), Move: next, Owner: owner})
		if err != nil {
			return nil, err
		}
		row = append(row, discordgo.Button{CustomID: id, Style: style,
			Label: truncate(r.cat.Text(loc, key, "setting", r.cat.Text(loc, "setting."+sw.name)), MaxButtonLabelLen)})
	}
	return &discordgo.InteractionResponseData{
		Embeds:          []*discordgo.MessageEmbed{e},
		Components:      []discordgo.MessageComponent{discordgo.ActionsRow{Components: row}},
		Flags:           discordgo.MessageFlagsEphemeral,
		AllowedMentions: noMentions(),
	}, nil
}

// SettingChanged renders the private answer to /ttt-admin set: the
// setting's new value (or that it is back to the default).
func (r *Renderer) SettingChanged(loc discordgo.Locale, name string, st Settings) *discordgo.InteractionResponseData {
	d := ephemeral(r.cat.Text(loc, "settings.changed", "setting", r.cat.Text(loc, "setting."+name), "value", r.settingText(loc, name, st)))
	d.AllowedMentions = noMentions()
	return d
}

// AuditLog renders /ttt-admin log: the newest entries, one line each, with
// when (a Discord timestamp), who and what.
func (r *Renderer) AuditLog(loc discordgo.Locale, entries []persistence.AuditEntry) *discordgo.InteractionResponseData {
	lines := []string{r.cat.Text(loc, "log.title")}
	if len(entries) == 0 {
		lines = append(lines, r.cat.Text(loc, "log.empty"))
	}
	for i, e := range entries {
		if i == maxLogLines {
			break
		}
		detail := e.Detail
		if detail != "" {
			detail = " `" + strings.ReplaceAll(truncate(detail, 120), "`", "'") + "`"
		}
		lines = append(lines, r.cat.Text(loc, "log.line", "when", timestamp(e.Time.Unix()), "user", mention(e.User),
			"action", e.Action)+detail)
	}
	d := ephemeral(truncate(strings.Join(lines, "\n"), MaxContentLen))
	d.AllowedMentions = noMentions()
	return d
}
