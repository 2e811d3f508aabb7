package render

import (
	"slices"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/persistence"
)

// MaxLeaderboardLines is how many places Leaderboard shows at most; the
// caller should ask the store for no more.
const MaxLeaderboardLines = 25

// Stats renders /ttt stats for one user: games and results, the rating
// from games against people, and the results against each AI level. A
// zero Stats (User empty, as after persistence.ErrNotFound) is not
// expected; use NoStats for a user without games.
func (r *Renderer) Stats(loc discordgo.Locale, st persistence.Stats) *discordgo.InteractionResponseData {
	lines := []string{
		r.cat.Text(loc, "stats.title", "player", Mention(st.User), "scope", r.scopeText(loc, st.Guild)),
		r.cat.Plural(loc, "stats.games", int(st.Games), "wins", r.num(loc, st.Wins), "losses", r.num(loc, st.Losses), "draws", r.num(loc, st.Draws)),
		r.cat.Text(loc, "stats.rating", "rating", rating(st.Rating), "rated", r.num(loc, st.Rated)),
	}
	levels := make([]string, 0, len(st.VsAI))
	for l := range st.VsAI {
		levels = append(levels, l)
	}
	slices.Sort(levels)
	for _, l := range levels {
		t := st.VsAI[l]
		lines = append(lines, r.cat.Text(loc, "stats.vs_ai", "level", r.LevelText(loc, l),
			"wins", r.num(loc, t.Wins), "losses", r.num(loc, t.Losses), "draws", r.num(loc, t.Draws)))
	}
	return &discordgo.InteractionResponseData{Content: strings.Join(lines, "\n"), AllowedMentions: NoMentions()}
}

// NoStats renders /ttt stats for a user without counted games in the
// scope (guild "" for global).
func (r *Renderer) NoStats(loc discordgo.Locale, user string) *discordgo.InteractionResponseData {
	return &discordgo.InteractionResponseData{Content: r.cat.Text(loc, "stats.none", "player", Mention(user)), AllowedMentions: NoMentions()}
}

// Leaderboard renders /ttt leaderboard: a title naming the scope (guild
// "" for global) and one line per place, at most MaxLeaderboardLines.
func (r *Renderer) Leaderboard(loc discordgo.Locale, guild string, places []persistence.Standing) *discordgo.InteractionResponseData {
	lines := []string{r.cat.Text(loc, "leaderboard.title", "scope", r.scopeText(loc, guild))}
	if len(places) == 0 {
		lines = append(lines, r.cat.Text(loc, "leaderboard.empty"))
	}
	for i, p := range places {
		if i == MaxLeaderboardLines {
			break
		}
		lines = append(lines, r.cat.Text(loc, "leaderboard.line", "rank", r.num(loc, p.Rank), "player", Mention(p.User),
			"rating", rating(p.Rating)))
	}
	return &discordgo.InteractionResponseData{Content: strings.Join(lines, "\n"), AllowedMentions: NoMentions()}
}

func (r *Renderer) scopeText(loc discordgo.Locale, guild string) string {
	if guild == "" {
		return r.cat.Text(loc, "stats.scope.global")
	}
	return r.cat.Text(loc, "stats.scope.server")
}

// LevelText is a level's display name, or its registry name if the
// catalog has none.
func (r *Renderer) LevelText(loc discordgo.Locale, level string) string {
	if key := "level." + level; r.cat.Has(key) {
		return r.cat.Text(loc, key)
	}
	return level
}

// num formats a count for loc.
func (r *Renderer) num(loc discordgo.Locale, n int64) string { return r.cat.Number(loc, int(n)) }
