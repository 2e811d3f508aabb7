package render

import (
	"slices"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/settings"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// nativeNames are Discord's languages' names in themselves, as Discord's
// own language menu shows them and the bot's language menu does.
var nativeNames = map[discordgo.Locale]string{
	i18n.Indonesian: "Bahasa Indonesia", discordgo.Danish: "Dansk", discordgo.German: "Deutsch",
	discordgo.EnglishGB: "English, UK", discordgo.EnglishUS: "English, US", discordgo.SpanishES: "Español",
	discordgo.SpanishLATAM: "Español, LATAM", discordgo.French: "Français", discordgo.Croatian: "Hrvatski",
	discordgo.Italian: "Italiano", discordgo.Lithuanian: "Lietuviškai", discordgo.Hungarian: "Magyar",
	discordgo.Dutch: "Nederlands", discordgo.Norwegian: "Norsk", discordgo.Polish: "Polski",
	discordgo.PortugueseBR: "Português do Brasil", discordgo.Romanian: "Română", discordgo.Finnish: "Suomi",
	discordgo.Swedish: "Svenska", discordgo.Vietnamese: "Tiếng Việt", discordgo.Turkish: "Türkçe",
	discordgo.Czech: "Čeština", discordgo.Greek: "Ελληνικά", discordgo.Bulgarian: "български",
	discordgo.Russian: "Русский", discordgo.Ukrainian: "Українська", discordgo.Hindi: "हिन्दी",
	discordgo.Thai: "ไทย", discordgo.ChineseCN: "中文", discordgo.Japanese: "日本語",
	discordgo.ChineseTW: "繁體中文", discordgo.Korean: "한국어",
}

// LanguageMenus is how many menus of at most MaxSelectOptions the
// language setting takes for n locales and "each player's own".
func LanguageMenus(n int) int { return (n + 1 + MaxSelectOptions - 1) / MaxSelectOptions }

// colorSettings is the embed colour of the settings message.
const colorSettings = 0x5865f2

// Settings renders /ttt-admin settings, privately for the moderator owner:
// an embed with one field per setting (its value, marked when it is the
// default, and what /ttt-admin set takes), buttons that switch the on/off
// settings and menus that choose the default board and the language.
func (r *Renderer) Settings(loc discordgo.Locale, guild, owner string, st settings.Server) (*discordgo.InteractionResponseData, error) {
	switches, err := r.switchRow(loc, guild, owner, st)
	if err != nil {
		return nil, err
	}
	rows := []discordgo.MessageComponent{switches}
	// Menus for the settings with a few values.
	menus := append([]settingMenu{r.boardMenu(loc, st)}, r.languageSettingMenus(loc, st)...)
	for _, m := range menus {
		id, err := r.signer.Encode(customid.ID{Action: customid.ActionSetting, Game: persistence.GameID(guild + "." + m.name), Move: m.n, Owner: owner})
		if err != nil {
			return nil, err
		}
		one := 1
		rows = append(rows, discordgo.ActionsRow{Components: []discordgo.MessageComponent{discordgo.SelectMenu{
			MenuType: discordgo.StringSelectMenu, CustomID: id, MinValues: &one, MaxValues: 1, Options: m.options,
			Placeholder: truncate(m.placeholder, MaxSelectPlaceholder),
		}}})
	}
	return &discordgo.InteractionResponseData{
		Embeds:          []*discordgo.MessageEmbed{r.settingsEmbed(loc, st)},
		Components:      rows,
		Flags:           discordgo.MessageFlagsEphemeral,
		AllowedMentions: NoMentions(),
	}, nil
}

// settingsEmbed is the embed of /ttt-admin settings: one field per
// setting with its value, marked when it is the default, and what
// /ttt-admin set takes.
func (r *Renderer) settingsEmbed(loc discordgo.Locale, st settings.Server) *discordgo.MessageEmbed {
	e := &discordgo.MessageEmbed{
		Title:       r.cat.Text(loc, "settings.title"),
		Description: r.cat.Text(loc, "settings.intro"),
		Color:       colorSettings,
	}
	for _, name := range settings.Names() {
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
	return e
}

// switchRow is the row of buttons that turn the on/off settings (hints,
// duels, rated) on or off, for owner only.
func (r *Renderer) switchRow(loc discordgo.Locale, guild, owner string, st settings.Server) (discordgo.MessageComponent, error) {
	row := make([]discordgo.MessageComponent, 0, 3)
	for _, sw := range []struct {
		name string
		on   bool
	}{{settings.Hints, st.Hints}, {settings.Duels, st.Duels}, {settings.Rated, st.Rated}} {
		key, style, next := "button.turn_off", discordgo.SecondaryButton, 0
		if !sw.on {
			key, style, next = "button.turn_on", discordgo.SuccessButton, 1
		}
		id, err := r.signer.Encode(customid.ID{Action: customid.ActionSetting, Game: persistence.GameID(guild + "." + sw.name), Move: next, Owner: owner})
		if err != nil {
			return nil, err
		}
		row = append(row, discordgo.Button{CustomID: id, Style: style,
			Label: truncate(r.cat.Text(loc, key, "setting", r.cat.Text(loc, "setting."+sw.name)), MaxButtonLabelLen)})
	}
	return discordgo.ActionsRow{Components: row}, nil
}

// settingMenu is a select menu of /ttt-admin settings: the setting it
// sets, which of the setting's menus it is (the custom ID's move), its
// placeholder and its options.
type settingMenu struct {
	name        string
	n           int
	placeholder string
	options     []discordgo.SelectMenuOption
}

// boardMenu is the menu of the default board: the presets, the server's
// board (or the classic one) selected.
func (r *Renderer) boardMenu(loc discordgo.Locale, st settings.Server) settingMenu {
	board := st.Board
	if !board.Valid() {
		board = game.Classic()
	}
	var boards []discordgo.SelectMenuOption
	for _, p := range settings.Presets() {
		boards = append(boards, discordgo.SelectMenuOption{Label: truncate(r.cat.Text(loc, "choice.board."+p.Key), MaxSelectOptionLen),
			Value: p.Key, Default: p.Key == board.String()})
	}
	return settingMenu{settings.DefaultBoard, 0, r.cat.Text(loc, "setting."+settings.DefaultBoard), boards}
}

// languageSettingMenus are the menus of the language setting: "each
// player's own" and the catalog's locales by code, which take more than
// one menu's 25 options, split evenly, each menu naming its range.
func (r *Renderer) languageSettingMenus(loc discordgo.Locale, st settings.Server) []settingMenu {
	langs := []discordgo.SelectMenuOption{{Label: truncate(r.cat.Text(loc, "settings.each_user"), MaxSelectOptionLen), Value: "none", Default: st.Language == ""}}
	locales := r.cat.Locales()
	slices.Sort(locales) // by code, so each menu's range says what it holds
	for _, l := range locales {
		label := string(l)
		if name, ok := nativeNames[l]; ok {
			label += " · " + name
		}
		langs = append(langs, discordgo.SelectMenuOption{Label: label, Value: string(l), Default: st.Language == l})
	}
	parts := LanguageMenus(len(locales))
	var menus []settingMenu
	for i := range parts {
		chunk := langs[i*len(langs)/parts : (i+1)*len(langs)/parts]
		text := r.cat.Text(loc, "setting."+settings.Language)
		if first := chunk[0].Value; parts > 1 {
			if first == "none" {
				first = chunk[1].Value
			}
			text += " · " + first + " … " + chunk[len(chunk)-1].Value
		}
		menus = append(menus, settingMenu{settings.Language, i, text, chunk})
	}
	return menus
}

// SettingChanged renders the private answer to /ttt-admin set: the
// setting's new value (or that it is back to the default).
func (r *Renderer) SettingChanged(loc discordgo.Locale, name string, st settings.Server) *discordgo.InteractionResponseData {
	d := Ephemeral(r.cat.Text(loc, "settings.changed", "setting", r.cat.Text(loc, "setting."+name), "value", r.settingText(loc, name, st)))
	d.AllowedMentions = NoMentions()
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
		if i == AuditLogLines {
			break
		}
		detail := e.Detail
		if detail != "" {
			detail = " `" + strings.ReplaceAll(truncate(detail, 120), "`", "'") + "`"
		}
		lines = append(lines, r.cat.Text(loc, "log.line", "when", Timestamp(e.Time.Unix()), "user", Mention(e.User),
			"action", e.Action)+detail)
	}
	d := Ephemeral(truncate(strings.Join(lines, "\n"), MaxContentLen))
	d.AllowedMentions = NoMentions()
	return d
}

// settingTexts shows settings' values with a Renderer's words (the
// settings.Texts a setting's spec shows its value with).
type settingTexts struct{ r *Renderer }

func (t settingTexts) Text(loc discordgo.Locale, key string, vars ...string) string {
	return t.r.cat.Text(loc, key, vars...)
}
func (t settingTexts) Number(loc discordgo.Locale, n int) string { return t.r.cat.Number(loc, n) }
func (t settingTexts) Duration(loc discordgo.Locale, d time.Duration) string {
	return t.r.cat.Duration(loc, d)
}
func (t settingTexts) Rules(loc discordgo.Locale, rules game.Rules) string {
	return t.r.RulesText(loc, rules)
}
func (t settingTexts) Switch(loc discordgo.Locale, v bool) string { return t.r.switchText(loc, v) }

// settingText shows st's value of setting name in loc.
func (r *Renderer) settingText(loc discordgo.Locale, name string, st settings.Server) string {
	return settings.Text(settingTexts{r}, loc, name, st)
}

// switchText shows an on/off value.
func (r *Renderer) switchText(loc discordgo.Locale, v bool) string {
	if v {
		return "✅ " + r.cat.Text(loc, "settings.on")
	}
	return "⛔ " + r.cat.Text(loc, "settings.off")
}

// List joins items as a sentence's list in loc ("a, b and c").
func (r *Renderer) List(loc discordgo.Locale, items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + r.cat.Text(loc, "list.and") + items[len(items)-1]
}
