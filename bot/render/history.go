package render

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai/review"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/chart"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// ReviewChartName is the file name of a review's value chart; the review's
// embed shows it as attachment://review.png.
const ReviewChartName = "review.png"

// Embed colours of a review: exact (solved) or estimated.
const (
	colorExact    = 0x2ca02c
	colorEstimate = 0xff7f0e
)

// Glyphs of the board drawn as text (in a replay) and of the verdicts.
const (
	emptyCellText = "⬜"
)

// verdictSymbols are the verdicts' symbols, by review.Verdict.
var verdictSymbols = [...]string{
	review.Unjudged:   "▫️",
	review.Best:       "✅",
	review.Good:       "👍",
	review.Inaccuracy: "⁉️",
	review.Mistake:    "❓",
	review.MissedWin:  "🎯",
	review.Blunder:    "💥",
}

// verdictSymbol returns v's symbol.
func verdictSymbol(v review.Verdict) string {
	if int(v) < len(verdictSymbols) {
		return verdictSymbols[v]
	}
	return verdictSymbols[review.Unjudged]
}

// HistoryView is one page of a user's history as /ttt history shows it.
type HistoryView struct {
	// Ref is whose history, on which board.
	Ref customid.HistoryRef
	// Owner is the user who opened it (who may turn the pages).
	Owner string
	// Page is the 0-based page shown.
	Page int
	// Total is the number of games in the history (after the board filter).
	Total int
	// Entries are the page's games, newest first.
	Entries []persistence.HistoryEntry
}

// History renders a page of a user's games: one line per game with the
// result, the opponent, the board, the number of moves, when, the rating
// change and whether hints were used, and the game ID for /ttt replay and
// /ttt review; with Newer and Older buttons that only the owner may press.
// It is private to the user who asked.
func (r *Renderer) History(loc discordgo.Locale, v HistoryView) (*discordgo.InteractionResponseData, error) {
	board := ""
	if v.Ref.Rules != "" {
		if rules, err := game.ParseRules(v.Ref.Rules); err == nil {
			board = r.cat.Text(loc, "history.board", "rules", r.RulesText(loc, rules))
		}
	}
	lines := []string{r.cat.Text(loc, "history.title", "player", Mention(v.Ref.User), "board", board)}
	if v.Total == 0 || len(v.Entries) == 0 {
		lines = append(lines, r.cat.Text(loc, "history.none"))
	} else {
		first := v.Page*HistoryPage + 1
		lines = append(lines, r.cat.Text(loc, "history.range", "from", r.cat.Number(loc, first),
			"to", r.cat.Number(loc, first+len(v.Entries)-1), "total", r.cat.Number(loc, v.Total)))
	}
	for i, e := range v.Entries {
		lines = append(lines, r.historyLine(loc, v.Page*HistoryPage+i+1, e))
	}
	data := Ephemeral(strings.Join(lines, "\n"))
	data.AllowedMentions = NoMentions()
	if v.Total <= HistoryPage {
		return data, nil
	}
	pages := (v.Total + HistoryPage - 1) / HistoryPage
	prev, err := r.button(loc, customid.ID{Action: customid.ActionHistory, Game: v.Ref.ID(), Move: max(v.Page-1, 0), Owner: v.Owner}, "button.newer", discordgo.SecondaryButton)
	if err != nil {
		return nil, err
	}
	next, err := r.button(loc, customid.ID{Action: customid.ActionHistory, Game: v.Ref.ID(), Move: min(v.Page+1, pages-1), Owner: v.Owner}, "button.older", discordgo.SecondaryButton)
	if err != nil {
		return nil, err
	}
	if prev.CustomID == next.CustomID { // one page only; cannot happen past the check above
		return data, nil
	}
	prev.Disabled, next.Disabled = v.Page == 0, v.Page >= pages-1
	data.Components = []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{prev, next}}}
	return data, nil
}

// historyLine is one game of a history.
func (r *Renderer) historyLine(loc discordgo.Locale, n int, e persistence.HistoryEntry) string {
	res := "history.drew"
	switch {
	case e.Result == game.XWins && e.Side == game.X, e.Result == game.OWins && e.Side == game.O:
		res = "history.won"
	case e.Result == game.XWins || e.Result == game.OWins:
		res = "history.lost"
	}
	opp := persistence.Seat{User: e.Opponent.User, AI: persistence.AI{Level: e.Opponent.AI}}
	rules := r.boardRulesText(loc, e.Rules)
	var extra []string
	if e.Rating.Rated {
		extra = append(extra, r.cat.Text(loc, "history.rating",
			"delta", signed(int(math.Round(e.Rating.After))-int(math.Round(e.Rating.Before)))))
	}
	if e.Assisted {
		extra = append(extra, r.cat.Text(loc, "history.assisted"))
	}
	line := r.cat.Text(loc, "history.line", "n", strconv.Itoa(n), "mark", markEmoji(e.Side),
		"result", r.cat.Text(loc, res), "opponent", r.seatName(loc, opp), "rules", rules,
		"moves", r.cat.Plural(loc, "count.moves", e.Moves), "when", Timestamp(e.Finished.Unix()), "game", string(e.Game))
	if len(extra) > 0 {
		line += " · " + strings.Join(extra, " · ")
	}
	return line
}

// sessionOf turns an archived game into the session the board texts are
// written from.
func sessionOf(g *persistence.ArchivedGame) *persistence.Session {
	s := &persistence.Session{
		ID: g.ID, Rules: g.Rules, Start: g.Start, Moves: g.Moves, WideMoves: g.WideMoves, Guild: g.Guild,
		Status: persistence.StatusFinished, Result: g.Result, End: g.End, Updated: g.Finished,
	}
	for i, p := range g.Players {
		s.Players[i] = persistence.Seat{User: p.User, AI: persistence.AI{Level: p.AI}}
	}
	return s
}

// Replay renders a finished game at ply (0 is the start): the players and
// result, the move just played with its verdict when the game has been
// reviewed (notes), the board as text, the game's line up to here for
// playing on from it, and command.First / Back / Next / Last buttons that only
// owner may press, plus Review while the game has no review.
func (r *Renderer) Replay(loc discordgo.Locale, g *persistence.ArchivedGame, ply int, owner string, notes *ReviewNotes) (*discordgo.InteractionResponseData, error) {
	if g.IsWide() {
		return r.wideReplay(loc, g, ply, owner, notes)
	}
	rec, err := g.Record()
	if err != nil {
		return nil, err
	}
	ply = max(0, min(ply, len(rec.Moves)))
	s := sessionOf(g)
	lines := []string{
		r.cat.Text(loc, "replay.title", "players", r.playersText(loc, s, rec.Rules)),
		r.resultText(loc, s),
	}
	part := game.Record{Rules: rec.Rules, Start: rec.Start, Moves: rec.Moves[:ply]}
	pos := part.Position()
	if ply == 0 {
		lines = append(lines, r.cat.Plural(loc, "replay.start", len(rec.Moves)))
	} else {
		c := rec.Moves[ply-1]
		lines = append(lines, r.replayMove(loc, ply, len(rec.Moves), pos.At(c), c.String(), notes))
	}
	lines = append(lines, "", boardText(pos), "")
	if !pos.Over() {
		lines = append(lines, r.cat.Text(loc, "replay.share", "line", part.String()))
	}
	data := &discordgo.InteractionResponseData{Content: strings.Join(lines, "\n"), AllowedMentions: NoMentions()}
	row, err := r.replayNav(loc, g, ply, len(rec.Moves), owner, notes)
	if err != nil {
		return nil, err
	}
	data.Components = []discordgo.MessageComponent{row}
	return data, nil
}

// replayMove is a replay's line of move ply of total: the mover's mark
// and the cell, with its verdict when the game was reviewed (notes).
func (r *Renderer) replayMove(loc discordgo.Locale, ply, total int, mover game.Mark, cell string, notes *ReviewNotes) string {
	line := r.cat.Text(loc, "replay.move", "n", r.cat.Number(loc, ply), "total", r.cat.Number(loc, total),
		"mark", markEmoji(mover), "cell", cell)
	if notes != nil && ply-1 < len(notes.Verdicts) {
		v := parseVerdict(notes.Verdicts[ply-1])
		line += " · " + verdictSymbol(v) + " " + r.cat.Text(loc, "verdict."+v.String())
		if !v.KeepsValue() && v != review.Unjudged && ply-1 < len(notes.Best) && notes.Best[ply-1] != "" {
			line += " · " + r.cat.Text(loc, "review.best", "moves", notes.Best[ply-1])
		}
	}
	return line
}

// replayNav is a replay's row of buttons at ply of total moves: First,
// Back, Next, Last (for owner only), and Review while the game has none.
func (r *Renderer) replayNav(loc discordgo.Locale, g *persistence.ArchivedGame, ply, total int, owner string, notes *ReviewNotes) (discordgo.MessageComponent, error) {
	nav := []struct {
		a        customid.Action
		key      string
		disabled bool
	}{
		{customid.ActionFirst, "button.first", ply == 0},
		{customid.ActionBack, "button.back", ply == 0},
		{customid.ActionNext, "button.next", ply == total},
		{customid.ActionLast, "button.last", ply == total},
	}
	row := make([]discordgo.MessageComponent, 0, len(nav)+1)
	for _, n := range nav {
		b, err := r.button(loc, customid.ID{Action: n.a, Game: g.ID, Move: ply, Owner: owner}, n.key, discordgo.SecondaryButton)
		if err != nil {
			return nil, err
		}
		b.Disabled = n.disabled
		row = append(row, b)
	}
	if notes == nil {
		b, err := r.button(loc, customid.ID{Action: customid.ActionReview, Game: g.ID}, "button.review", discordgo.PrimaryButton)
		if err != nil {
			return nil, err
		}
		row = append(row, b)
	}
	return discordgo.ActionsRow{Components: row}, nil
}

// parseVerdict reads a verdict's name; Unjudged for an unknown one.
func parseVerdict(s string) review.Verdict {
	for v := review.Unjudged; v <= review.Blunder; v++ {
		if v.String() == s {
			return v
		}
	}
	return review.Unjudged
}

// boardText draws p as rows of emoji, for messages whose buttons are
// taken by something else.
func boardText(p game.Position) string {
	var b strings.Builder
	rules := p.Rules()
	for row := range rules.Rows() {
		if row > 0 {
			b.WriteByte('\n')
		}
		for col := range rules.Cols() {
			if m := p.At(game.NewCell(row, col)); m == game.Empty {
				b.WriteString(emptyCellText)
			} else {
				b.WriteString(markEmoji(m))
			}
		}
	}
	return b.String()
}

// playersText is the "❌ alice vs ⭕ bob · 3×3" line of a game.
func (r *Renderer) playersText(loc discordgo.Locale, s *persistence.Session, rules game.Rules) string {
	return r.cat.Text(loc, "board.players",
		"xmark", EmojiX, "x", r.seatName(loc, s.Players[0]),
		"omark", EmojiO, "o", r.seatName(loc, s.Players[1]),
		"rules", r.RulesText(loc, rules))
}

// Review renders the review of a finished game as an embed: a line per
// move (its verdict, its value before and after for the mover, and the
// best move where it was not played), a summary per player (accuracy and
// the count of each verdict), the turning point and the move that decided
// the game, whether the values are exact, the game's line for playing it
// out, and the value chart as attachment://review.png.
func (r *Renderer) Review(loc discordgo.Locale, g *persistence.ArchivedGame, rv *review.Review) (*discordgo.InteractionResponseData, error) {
	s := sessionOf(g)
	rec, err := g.Record()
	if err != nil {
		return nil, err
	}
	desc := []string{r.playersText(loc, s, rec.Rules), r.resultText(loc, s), ""}
	for _, m := range rv.Moves {
		desc = append(desc, r.reviewLine(loc, m))
	}
	e := &discordgo.MessageEmbed{
		Title:       r.cat.Text(loc, "review.title"),
		Description: truncate(strings.Join(desc, "\n"), MaxEmbedDescLen),
		Color:       colorExact,
	}
	for i, side := range []game.Mark{game.X, game.O} {
		sum := rv.Players[i]
		if sum.Moves == 0 {
			continue
		}
		counts := make([]string, 0, len(sum.Count))
		for v := review.Best; v <= review.Blunder; v++ {
			if sum.Count[v] > 0 {
				counts = append(counts, verdictSymbol(v)+" "+r.cat.Number(loc, sum.Count[v]))
			}
		}
		e.Fields = append(e.Fields, &discordgo.MessageEmbedField{
			Name: truncate(markEmoji(side)+" "+r.seatName(loc, s.Seat(side)), MaxEmbedFieldName),
			Value: truncate(r.cat.Text(loc, "review.accuracy", "accuracy", r.cat.Percent(loc, sum.Accuracy, 0),
				"kept", r.cat.Number(loc, sum.Kept), "moves", r.cat.Number(loc, sum.Moves))+"\n"+strings.Join(counts, " · "), MaxEmbedFieldValue),
			Inline: true,
		})
	}
	var story []string
	if tp := rv.TurningPoint; tp >= 0 && tp < len(rv.Moves) {
		m := rv.Moves[tp]
		story = append(story, r.cat.Text(loc, "review.turning", "n", strconv.Itoa(m.Ply), "mark", markEmoji(m.Mover),
			"cell", m.Cell.String(), "verdict", r.cat.Text(loc, "verdict."+m.Verdict.String())))
	} else {
		story = append(story, r.cat.Text(loc, "review.no_turning"))
	}
	if d := rv.Decided; d >= 0 && d < len(rv.Moves) {
		m := rv.Moves[d]
		winner := game.X
		if rv.Values[d+1].Result == game.OWins || !rv.Values[d+1].Exact && rv.Values[d+1].Score < 0.5 {
			winner = game.O
		}
		story = append(story, r.cat.Text(loc, "review.decided", "n", strconv.Itoa(m.Ply),
			"mark", markEmoji(winner), "player", r.seatName(loc, s.Seat(winner))))
	} else {
		story = append(story, r.cat.Text(loc, "review.undecided"))
	}
	e.Fields = append(e.Fields, &discordgo.MessageEmbedField{Name: r.cat.Text(loc, "review.story"), Value: truncate(strings.Join(story, "\n"), MaxEmbedFieldValue)})
	e.Fields = append(e.Fields, &discordgo.MessageEmbedField{Name: r.cat.Text(loc, "review.share_name"),
		Value: truncate(r.cat.Text(loc, "review.share", "line", rec.String()), MaxEmbedFieldValue)})
	if rv.Exact {
		e.Footer = &discordgo.MessageEmbedFooter{Text: r.cat.Text(loc, "review.exact")}
	} else {
		e.Footer = &discordgo.MessageEmbedFooter{Text: r.cat.Text(loc, "review.estimate")}
		e.Color = colorEstimate
	}
	png, err := r.reviewChart(rv)
	if err != nil {
		return nil, err
	}
	e.Image = &discordgo.MessageEmbedImage{URL: "attachment://" + ReviewChartName}
	return &discordgo.InteractionResponseData{
		Embeds:          []*discordgo.MessageEmbed{e},
		Files:           []*discordgo.File{{Name: ReviewChartName, ContentType: "image/png", Reader: bytes.NewReader(png)}},
		AllowedMentions: NoMentions(),
	}, nil
}

// reviewLine is one move of a review.
func (r *Renderer) reviewLine(loc discordgo.Locale, m review.Move) string {
	line := r.cat.Text(loc, "review.line", "n", strconv.Itoa(m.Ply), "mark", markEmoji(m.Mover), "cell", m.Cell.String(),
		"symbol", verdictSymbol(m.Verdict), "verdict", r.cat.Text(loc, "verdict."+m.Verdict.String()),
		"before", r.valueText(loc, m.Before, m.Mover), "after", r.valueText(loc, m.After, m.Mover))
	if m.Verdict != review.Best && m.Verdict != review.Unjudged && len(m.Best) > 0 {
		line += " · " + r.cat.Text(loc, "review.best", "moves", CellNames(m.Best))
	}
	return line
}

// valueText says what v is worth to side: "win in 3", "draw", "loss in 4",
// or an estimate ("≈ 62%").
func (r *Renderer) valueText(loc discordgo.Locale, v review.Value, side game.Mark) string {
	if !v.Exact {
		score := v.Score
		if side == game.O {
			score = 1 - score
		}
		return r.cat.Text(loc, "value.estimate", "pct", r.cat.Percent(loc, score, 0))
	}
	plies := strconv.Itoa(v.Plies)
	switch v.For(side) {
	case review.Win:
		if v.Plies > 0 {
			return r.cat.Text(loc, "value.win_in", "plies", plies)
		}
		return r.cat.Text(loc, "value.win")
	case review.Loss:
		if v.Plies > 0 {
			return r.cat.Text(loc, "value.loss_in", "plies", plies)
		}
		return r.cat.Text(loc, "value.loss")
	}
	return r.cat.Text(loc, "value.draw")
}

// reviewChart draws the value of the game move by move.
func (r *Renderer) reviewChart(rv *review.Review) ([]byte, error) {
	points := make([]chart.Point, len(rv.Values))
	for i, v := range rv.Values {
		points[i] = chart.Point{Score: v.Score, Exact: v.Exact}
		if i > 0 && i-1 < len(rv.Moves) {
			points[i].Mark = chartMark(rv.Moves[i-1].Verdict)
		}
	}
	png, err := chart.Values(points)
	if err != nil {
		return nil, fmt.Errorf("bot: review chart: %w", err)
	}
	return png, nil
}

// chartMark is how a verdict is flagged on the value chart.
func chartMark(v review.Verdict) chart.Mark {
	switch v {
	case review.Inaccuracy:
		return chart.MarkInaccuracy
	case review.Mistake, review.MissedWin:
		return chart.MarkMistake
	case review.Blunder:
		return chart.MarkBlunder
	}
	return chart.MarkNone
}

// Hint renders the private answer to /ttt hint: the best moves for the
// side toMove and what they keep, and that the game now counts as
// assisted.
func (r *Renderer) Hint(loc discordgo.Locale, toMove game.Mark, h HintResult) *discordgo.InteractionResponseData {
	names := make([]string, 0, len(h.Moves)+len(h.Names))
	for _, c := range h.Moves {
		names = append(names, "**"+c.String()+"**")
	}
	for _, n := range h.Names {
		names = append(names, "**"+n+"**")
	}
	var value string
	if h.Value == game.Ongoing {
		value = r.cat.Text(loc, "hint.estimate")
	} else {
		value = r.valueText(loc, review.Value{Result: h.Value, Plies: h.Plies, Exact: true}, toMove)
	}
	lines := []string{
		r.cat.Plural(loc, "hint.moves", len(names), "moves", strings.Join(names, ", "), "value", value),
		r.cat.Text(loc, "hint.assisted"),
	}
	return Ephemeral(strings.Join(lines, "\n"))
}

// PuzzleLeaderboard renders /ttt leaderboard kind:puzzles: the server's
// players by daily puzzles solved, with their streaks.
func (r *Renderer) PuzzleLeaderboard(loc discordgo.Locale, places []persistence.PuzzleStanding) *discordgo.InteractionResponseData {
	lines := []string{r.cat.Text(loc, "puzzle.board_title")}
	if len(places) == 0 {
		lines = append(lines, r.cat.Text(loc, "puzzle.board_empty"))
	}
	for i, p := range places {
		if i == MaxLeaderboardLines {
			break
		}
		lines = append(lines, r.cat.Text(loc, "puzzle.board_line", "rank", strconv.Itoa(i+1), "player", Mention(p.User),
			"solved", r.cat.Number(loc, p.Solved), "streak", r.cat.Number(loc, p.Streak)))
	}
	return &discordgo.InteractionResponseData{Content: strings.Join(lines, "\n"), AllowedMentions: NoMentions()}
}
