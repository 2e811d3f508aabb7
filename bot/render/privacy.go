package render

import (
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/persistence"
)

// PrivacyInfo is what /ttt privacy says about how long things are kept,
// in whole days (rounded up).
type PrivacyInfo struct {
	// FinishedDays is how long a finished game's record keeps its board's
	// buttons working.
	FinishedDays int
	// HistoryDays is how long archived games and histories are kept, and
	// HistoryLimit how many games a history lists at most.
	HistoryDays, HistoryLimit int
	// CorpusDays is the age past which training games are dropped, and
	// CorpusGames how many a board keeps at most; 0 for no such limit.
	CorpusDays  int
	CorpusGames int64
}

// PrivacyInfoOf turns a Store's retention settings into a PrivacyInfo.
func PrivacyInfoOf(r persistence.Retention) PrivacyInfo {
	return PrivacyInfo{FinishedDays: days(r.FinishedGames), HistoryDays: days(r.History), HistoryLimit: r.HistoryLimit,
		CorpusDays: days(r.CorpusMaxAge), CorpusGames: r.CorpusMaxLen}
}

// days is d in whole days, rounded up: 0 only for no time at all.
func days(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int((d + 24*time.Hour - 1) / (24 * time.Hour))
}

// commandText is how a text names a subcommand in loc: "/ttt history".
func (r *Renderer) commandText(loc discordgo.Locale, command, sub string) string {
	return "/" + command + " " + r.cat.Text(loc, "cmd."+sub+".name")
}

// Privacy renders /ttt privacy: what the bot keeps about a user and for
// how long, and how to have it deleted. It is private to the user.
func (r *Renderer) Privacy(loc discordgo.Locale, info PrivacyInfo) *discordgo.InteractionResponseData {
	corpus := r.cat.Text(loc, "privacy.corpus_kept")
	switch {
	case info.CorpusDays > 0:
		corpus = r.cat.Text(loc, "privacy.corpus_age", "days", r.cat.Plural(loc, "count.days", info.CorpusDays))
	case info.CorpusGames > 0:
		corpus = r.cat.Text(loc, "privacy.corpus_size", "games", r.cat.Plural(loc, "count.games", int(info.CorpusGames)))
	}
	lines := []string{
		r.cat.Text(loc, "privacy.title"),
		r.cat.Text(loc, "privacy.games", "days", r.cat.Plural(loc, "count.days", info.FinishedDays)),
		r.cat.Text(loc, "privacy.archive", "days", r.cat.Plural(loc, "count.days", info.HistoryDays), "limit", r.cat.Number(loc, info.HistoryLimit),
			"history", r.commandText(loc, command.Name, command.SubHistory)),
		r.cat.Text(loc, "privacy.stats"),
		corpus,
		r.cat.Text(loc, "privacy.networks"),
		r.cat.Text(loc, "privacy.more"),
		"",
		r.cat.Text(loc, "privacy.forget", "forget_me", r.commandText(loc, command.Name, command.SubForgetMe),
			"forget_server", r.commandText(loc, command.AdminName, command.SubForgetGuild)),
	}
	return Ephemeral(strings.Join(lines, "\n"))
}

// ForgetMeRef is the game field of a forget-me confirmation button.
func ForgetMeRef(user string) persistence.GameID { return persistence.GameID(user + ".me") }

// ForgetServerRef is the game field of a forget-server confirmation button.
func ForgetServerRef(guild string) persistence.GameID { return persistence.GameID(guild + ".server") }

// ForgetMeConfirm renders the private answer to /ttt forget-me: what will
// be deleted, and a Confirm button that only user may press. Nothing is
// deleted before it is pressed.
func (r *Renderer) ForgetMeConfirm(loc discordgo.Locale, user string) (*discordgo.InteractionResponseData, error) {
	return r.confirm(loc, "forget_me.confirm", customid.ID{Action: customid.ActionForgetMe, Game: ForgetMeRef(user), Owner: user}, "button.forget_me")
}

// ForgetServerConfirm renders the private answer to /ttt-admin
// forget-server: what will be deleted, and a Confirm button that only the
// moderator who asked may press.
func (r *Renderer) ForgetServerConfirm(loc discordgo.Locale, guild, user string) (*discordgo.InteractionResponseData, error) {
	return r.confirm(loc, "forget_server.confirm", customid.ID{Action: customid.ActionForgetServer, Game: ForgetServerRef(guild), Owner: user}, "button.forget_server")
}

// confirm is a private text with one red button.
func (r *Renderer) confirm(loc discordgo.Locale, key string, id customid.ID, button string) (*discordgo.InteractionResponseData, error) {
	b, err := r.button(loc, id, button, discordgo.DangerButton)
	if err != nil {
		return nil, err
	}
	data := Ephemeral(r.cat.Text(loc, key))
	data.Components = []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{b}}}
	return data, nil
}

// Forgetting is what a confirmation turns into while the deletion runs,
// its button gone.
func (r *Renderer) Forgetting(loc discordgo.Locale) *discordgo.InteractionResponseData {
	data := Ephemeral(r.cat.Text(loc, "forget.working"))
	data.Components = []discordgo.MessageComponent{}
	return data
}

// forgetLine is one kind of a deletion report: its text key and count.
type forgetLine struct {
	key string
	n   int
}

// ForgetMeReport renders what /ttt forget-me deleted, kind by kind, or
// that there was nothing (left) to delete.
func (r *Renderer) ForgetMeReport(loc discordgo.Locale, rep persistence.ForgetReport) *discordgo.InteractionResponseData {
	return r.forgetReport(loc, rep.Total() == 0, "forget_me.nothing", "forget_me.done", "forget_me.footer", []forgetLine{
		{"forget.stats", rep.Stats},
		{"forget.puzzle_stats", rep.PuzzleStats},
		{"forget.places", rep.Leaderboards},
		{"forget.history", rep.History},
		{"forget.games", rep.Games},
		{"forget.archives", rep.Archives},
		{"forget.mentions", rep.Mentions},
		{"forget.reviews", rep.Reviews},
		{"forget.corpus", rep.Corpus},
		{"forget.blocks", rep.Blocks},
		{"forget.audit", rep.Audit},
		{"forget.tournaments", rep.Tournaments},
	})
}

// ForgetServerReport renders what /ttt-admin forget-server deleted, kind
// by kind, or that there was nothing (left) to delete.
func (r *Renderer) ForgetServerReport(loc discordgo.Locale, rep persistence.ForgetReport) *discordgo.InteractionResponseData {
	return r.forgetReport(loc, rep.Total() == 0, "forget_server.nothing", "forget_server.done", "", []forgetLine{
		{"forget.guild_stats", rep.Stats},
		{"forget.puzzle_stats", rep.PuzzleStats},
		{"forget.boards", rep.Leaderboards},
		{"forget.puzzles", rep.Puzzles},
		{"forget.games", rep.Games},
		{"forget.guild_archives", rep.Archives},
		{"forget.guild_history", rep.History},
		{"forget.reviews", rep.Reviews},
		{"forget.settings", rep.Settings},
		{"forget.audit_log", rep.Audit},
		{"forget.guild_tournaments", rep.Tournaments},
	})
}

// forgetReport is a report's text: the nothing text, or the done title,
// a line per kind with a count, and the footer (if any); without buttons.
func (r *Renderer) forgetReport(loc discordgo.Locale, empty bool, nothing, done, footer string, kinds []forgetLine) *discordgo.InteractionResponseData {
	lines := []string{r.cat.Text(loc, nothing)}
	if !empty {
		lines = []string{r.cat.Text(loc, done)}
		for _, k := range kinds {
			if k.n > 0 {
				lines = append(lines, r.cat.Text(loc, k.key, "count", r.cat.Number(loc, k.n)))
			}
		}
		if footer != "" {
			lines = append(lines, r.cat.Text(loc, footer))
		}
	}
	data := Ephemeral(strings.Join(lines, "\n"))
	data.Components = []discordgo.MessageComponent{}
	return data
}
