package bot

import (
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// nativeNames are the shipped languages' names in themselves, as a
// language menu shows them.
var nativeNames = map[discordgo.Locale]string{
	discordgo.EnglishUS: "English (US)", discordgo.PortugueseBR: "Português do Brasil", discordgo.Greek: "Ελληνικά",
}

// colorSettings is the embed colour of the settings message.
const colorSettings = 0x5865f2

// Settings renders /ttt-admin settings, privately for the moderator owner:
// an embed with one field per setting (its value, marked when it is the
// default, and what /ttt-admin set takes), buttons that switch the on/off
// settings and menus that choose the default board and the language.
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
	row := make([]discordgo.MessageComponent, 0, 3)
	for _, sw := range []struct {
		name string
		on   bool
	}{{SettingHints, st.Hints}, {SettingDuels, st.Duels}, {SettingRated, st.Rated}} {
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
	rows := []discordgo.MessageComponent{discordgo.ActionsRow{Components: row}}
	// Menus for the settings with a few values.
	board := st.Board
	if !board.Valid() {
		board = game.Classic()
	}
	var boards []discordgo.SelectMenuOption
	for _, p := range Presets() {
		boards = append(boards, discordgo.SelectMenuOption{Label: truncate(r.cat.Text(loc, "choice.board."+p.Key), MaxSelectOptionLen),
			Value: p.Key, Default: p.Key == board.String()})
	}
	langs := []discordgo.SelectMenuOption{{Label: truncate(r.cat.Text(loc, "settings.each_user"), MaxSelectOptionLen), Value: "none", Default: st.Language == ""}}
	for _, l := range r.cat.Locales() {
		label := string(l)
		if name, ok := nativeNames[l]; ok {
			label += " · " + name
		}
		langs = append(langs, discordgo.SelectMenuOption{Label: label, Value: string(l), Default: st.Language == l})
	}
	for _, menu := range []struct {
		name    string
		options []discordgo.SelectMenuOption
	}{{SettingDefaultBoard, boards}, {SettingLanguage, langs}} {
		id, err := r.signer.Encode(CustomID{Action: ActionSetting, Game: persistence.GameID(guild + "." + menu.name), Owner: owner})
		if err != nil {
			return nil, err
		}
		one := 1
		rows = append(rows, discordgo.ActionsRow{Components: []discordgo.MessageComponent{discordgo.SelectMenu{
			MenuType: discordgo.StringSelectMenu, CustomID: id, MinValues: &one, MaxValues: 1, Options: menu.options,
			Placeholder: truncate(r.cat.Text(loc, "setting."+menu.name), MaxSelectPlaceholder),
		}}})
	}
	return &discordgo.InteractionResponseData{
		Embeds:          []*discordgo.MessageEmbed{e},
		Components:      rows,
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
