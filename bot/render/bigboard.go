package render

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai/gomoku"
	"github.com/tttbot/ttt-bot/ai/review"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/chart"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/game/wide"
	"github.com/tttbot/ttt-bot/persistence"
)

// BoardPictureName is the file name of a big board's picture; the message
// shows it as attachment://board.png.
const BoardPictureName = "board.png"

// Limits of a big board's move menus: Discord's select menus hold at most
// 25 options; a board has at most 15 columns and 15 rows.
const maxMenuOptions = 25

// bigBoard renders a game whose board does not fit in buttons (6x6 to
// 15x15): the header lines of a small board, the board as a picture
// (coordinates on the edges, the last move ringed, the winning line struck
// through), and, while a person is to move, a menu of the columns that
// have a free cell: picking one opens the row menu of that column
// (RowMenu) for the picker alone. /ttt move cell:h8 is the typed way.
// Under the menu: Resign during the game, Rematch after it.
func (r *Renderer) bigBoard(loc discordgo.Locale, s *persistence.Session, b persistence.Board, ratings []PlayerRating) (*discordgo.InteractionResponseData, error) {
	live := s.Status.Live() && !b.Over()
	acting := s.Acting(b)
	choosing := live && s.SwapPending(b)
	var lines []string
	if s.Puzzle != "" {
		lines = append(lines, r.puzzleText(loc, s, b.Over()))
		if live {
			if n := puzzleFours(s); n > 0 { // a search of about half a millisecond
				lines = append(lines, r.cat.Text(loc, "puzzle.fours", "n", strconv.Itoa(n)))
			}
		}
	}
	lines = append(lines, r.header(loc, s, acting, r.boardRulesText(loc, s.Rules), live, ratings)...)
	switch {
	case choosing:
		lines = append(lines, r.cat.Text(loc, "board.swap_choose", "player", r.seatName(loc, s.Seat(game.O)),
			"xmark", EmojiX, "omark", EmojiO))
	case live && s.Swap && !s.SwapChosen:
		lines = append(lines, r.cat.Text(loc, "board.swap_place", "player", r.seatName(loc, s.Seat(game.X)),
			"mark", markEmoji(b.ToMove()), "n", strconv.Itoa(b.Ply()+1), "chooser", r.seatName(loc, s.Seat(game.O))))
	}
	if live && !choosing && !s.Seat(acting).IsAI() {
		lines = append(lines, r.cat.Text(loc, "board.how_to_move"))
	}
	png, err := BoardPicture(s, b, false)
	if err != nil {
		return nil, err
	}
	var rows []discordgo.MessageComponent
	switch {
	case choosing:
		row, err := r.sideButtons(loc, s)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	case live:
		menu, err := r.columnMenu(loc, s, b)
		if err != nil {
			return nil, err
		}
		rows = append(rows, menu)
	}
	row, err := r.actionRow(loc, s, live, s.Ply())
	if err != nil {
		return nil, err
	}
	if ar, ok := row.(discordgo.ActionsRow); ok && len(ar.Components) > 0 {
		rows = append(rows, row) // not an empty row (a finished tournament game's)
	}
	if rows == nil {
		rows = []discordgo.MessageComponent{}
	}
	return &discordgo.InteractionResponseData{
		Content:         strings.Join(lines, "\n"),
		Components:      rows,
		Files:           []*discordgo.File{{Name: BoardPictureName, ContentType: "image/png", Reader: bytes.NewReader(png)}},
		AllowedMentions: NoMentions(),
	}, nil
}

// BoardPicture draws the board of s (replayed as b) as a PNG: light or
// dark colours, the last move ringed, the winning line struck through.
func BoardPicture(s *persistence.Session, b persistence.Board, dark bool) ([]byte, error) {
	rows, cols := b.Rows(), b.Cols()
	cb := chart.Board{Rows: rows, Cols: cols, Marks: make([]byte, rows*cols), Last: -1, Dark: dark}
	for row := range rows {
		for col := range cols {
			switch b.At(row, col) {
			case game.X:
				cb.Marks[row*cols+col] = 'X'
			case game.O:
				cb.Marks[row*cols+col] = 'O'
			}
		}
	}
	if row, col, ok := lastMove(s); ok {
		cb.Last = row*cols + col
	}
	for _, rc := range b.WinCells() {
		cb.Win = append(cb.Win, rc[0]*cols+rc[1])
	}
	png, err := chart.BoardPNG(cb)
	if err != nil {
		return nil, fmt.Errorf("bot: render the board of game %s: %w", s.ID, err)
	}
	return png, nil
}

// lastMove returns the row and column of the last move of s, if any.
func lastMove(s *persistence.Session) (row, col int, ok bool) {
	switch {
	case len(s.WideMoves) > 0:
		c := s.WideMoves[len(s.WideMoves)-1]
		return c.Row(), c.Col(), true
	case len(s.Moves) > 0:
		c := s.Moves[len(s.Moves)-1]
		return c.Row(), c.Col(), true
	}
	return 0, 0, false
}

// columnMenu is the menu of the columns with a free cell, disabled while
// the computer is to move.
func (r *Renderer) columnMenu(loc discordgo.Locale, s *persistence.Session, b persistence.Board) (discordgo.MessageComponent, error) {
	id, err := r.signer.Encode(customid.ID{Action: customid.ActionColumn, Game: s.ID, Move: s.Ply()})
	if err != nil {
		return nil, fmt.Errorf("bot: render the column menu: %w", err)
	}
	var opts []discordgo.SelectMenuOption
	for col := range b.Cols() {
		free := 0
		for row := range b.Rows() {
			if b.At(row, col) == game.Empty {
				free++
			}
		}
		if free == 0 {
			continue
		}
		name := columnName(col)
		opts = append(opts, discordgo.SelectMenuOption{
			Label: r.cat.Text(loc, "board.column", "col", name), Value: name,
			Description: r.cat.Text(loc, "board.free_cells", "count", strconv.Itoa(free)),
		})
	}
	one := 1
	return discordgo.ActionsRow{Components: []discordgo.MessageComponent{discordgo.SelectMenu{
		MenuType: discordgo.StringSelectMenu, CustomID: id, Placeholder: r.cat.Text(loc, "board.pick_column"),
		MinValues: &one, MaxValues: 1, Options: opts[:min(len(opts), maxMenuOptions)],
		Disabled: s.Seat(s.Acting(b)).IsAI(),
	}}}, nil
}

// sideButtons are the choice at the end of a swap opening: Take ❌ (the
// three stones' side) and Take ⭕ (to move now), disabled while the
// computer chooses.
func (r *Renderer) sideButtons(loc discordgo.Locale, s *persistence.Session) (discordgo.MessageComponent, error) {
	var row []discordgo.MessageComponent
	for _, a := range []customid.Action{customid.ActionTakeX, customid.ActionTakeO} {
		btn, err := r.button(loc, customid.ID{Action: a, Game: s.ID, Move: s.Ply()}, "button."+a.String(), discordgo.PrimaryButton)
		if err != nil {
			return nil, err
		}
		btn.Disabled = s.Seat(game.O).IsAI()
		row = append(row, btn)
	}
	return discordgo.ActionsRow{Components: row}, nil
}

// RowMenu is the private answer to a pick in a big board's column menu:
// the free cells of that column, nearest the last move first, as a menu
// whose pick plays the cell (on the board at move s.Ply(): a board that
// has changed since is refused).
func (r *Renderer) RowMenu(loc discordgo.Locale, s *persistence.Session, b persistence.Board, col int) (*discordgo.InteractionResponseData, error) {
	id, err := r.signer.Encode(customid.ID{Action: customid.ActionPlace, Game: s.ID, Move: s.Ply()})
	if err != nil {
		return nil, fmt.Errorf("bot: render the row menu: %w", err)
	}
	var opts []discordgo.SelectMenuOption
	for _, c := range FreeCells(s, b, func(row, c int) bool { return c == col }) {
		opts = append(opts, discordgo.SelectMenuOption{Label: c, Value: c})
	}
	if len(opts) == 0 {
		return Ephemeral(r.cat.Text(loc, "error.column_full", "col", columnName(col))), nil
	}
	one := 1
	d := Ephemeral(r.cat.Text(loc, "board.pick_row", "col", columnName(col)))
	d.Components = []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{discordgo.SelectMenu{
		MenuType: discordgo.StringSelectMenu, CustomID: id, Placeholder: r.cat.Text(loc, "board.pick_cell"),
		MinValues: &one, MaxValues: 1, Options: opts[:min(len(opts), maxMenuOptions)],
	}}}}
	return d, nil
}

// Played is the private answer to a move made from the row menu or with
// /ttt move: the cell, with the board's message to look at.
func (r *Renderer) Played(loc discordgo.Locale, cell string) *discordgo.InteractionResponseData {
	d := Ephemeral(r.cat.Text(loc, "board.played", "cell", cell))
	d.Components = []discordgo.MessageComponent{}
	return d
}

// FreeCells lists the names of the free cells of b that keep says to keep,
// the nearest to the play first: by distance (the larger of the row and
// column distances) to the last move, then to the nearest mark, then in
// reading order. It is the order of /ttt move's suggestions and of the row
// menu: a distance, never an evaluation, so it hints at nothing.
func FreeCells(s *persistence.Session, b persistence.Board, keep func(row, col int) bool) []string {
	lr, lc, hasLast := lastMove(s)
	type cand struct {
		name             string
		dLast, dMark, rc int
	}
	var marks [][2]int
	for row := range b.Rows() {
		for col := range b.Cols() {
			if b.At(row, col) != game.Empty {
				marks = append(marks, [2]int{row, col})
			}
		}
	}
	cheb := func(r1, c1, r2, c2 int) int { return max(abs(r1-r2), abs(c1-c2)) }
	centre := [2]int{(b.Rows() - 1) / 2, (b.Cols() - 1) / 2}
	var out []cand
	for row := range b.Rows() {
		for col := range b.Cols() {
			if b.At(row, col) != game.Empty || keep != nil && !keep(row, col) {
				continue
			}
			c := cand{name: CellName(row, col), rc: row*b.Cols() + col, dMark: 1 << 30}
			if hasLast {
				c.dLast = cheb(row, col, lr, lc)
			} else {
				c.dLast = cheb(row, col, centre[0], centre[1])
			}
			for _, m := range marks {
				c.dMark = min(c.dMark, cheb(row, col, m[0], m[1]))
			}
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b cand) int {
		return cmp.Or(cmp.Compare(a.dLast, b.dLast), cmp.Compare(a.dMark, b.dMark), cmp.Compare(a.rc, b.rc))
	})
	names := make([]string, len(out))
	for i, c := range out {
		names[i] = c.name
	}
	return names
}

// CellName is the name of the cell at the 0-based row and column: the
// column as a letter from "a", the row from 1 at the top ("h8").
func CellName(row, col int) string { return columnName(col) + strconv.Itoa(row+1) }

// columnName is a column's letter, "a" for the first.
func columnName(col int) string { return string(rune('a' + col)) }

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// boardRulesText describes rules of either engine: "15×15, 5 in a row",
// "15×15, exactly 5 in a row" or game's RulesText.
func (r *Renderer) boardRulesText(loc discordgo.Locale, rules string) string {
	br, err := persistence.ParseBoardRules(rules)
	switch {
	case err != nil:
		return rules
	case !br.IsWide():
		return r.RulesText(loc, br.Small)
	}
	return r.WideRulesText(loc, br.Wide)
}

// WideRulesText describes wide rules: "15×15, 5 in a row" or, where an
// overline does not win, "15×15, exactly 5 in a row".
func (r *Renderer) WideRulesText(loc discordgo.Locale, w wide.Rules) string {
	key := "rules.kinarow"
	if w.Exact() {
		key = "rules.exact"
	}
	return r.cat.Text(loc, key, "rows", strconv.Itoa(w.Rows()), "cols", strconv.Itoa(w.Cols()), "k", strconv.Itoa(w.K()))
}

// wideReplay is Replay of a game on a wide board: the board at ply as the
// picture (the move ringed), the move and its verdict when reviewed, the
// game's line up to here, and the replay's buttons.
func (r *Renderer) wideReplay(loc discordgo.Locale, g *persistence.ArchivedGame, ply int, owner string, notes *ReviewNotes) (*discordgo.InteractionResponseData, error) {
	rec, err := g.WideRecord()
	if err != nil {
		return nil, err
	}
	ply = max(0, min(ply, len(rec.Moves)))
	s := sessionOf(g)
	lines := []string{
		r.cat.Text(loc, "replay.title", "players", r.cat.Text(loc, "board.players",
			"xmark", EmojiX, "x", r.seatName(loc, s.Players[0]), "omark", EmojiO, "o", r.seatName(loc, s.Players[1]),
			"rules", r.WideRulesText(loc, rec.Rules))),
		r.resultText(loc, s),
	}
	part := &persistence.Session{ID: g.ID, Rules: g.Rules, WideMoves: rec.Moves[:ply]}
	b, err := part.Board()
	if err != nil {
		return nil, err
	}
	if ply == 0 {
		lines = append(lines, r.cat.Plural(loc, "replay.start", len(rec.Moves)))
	} else {
		c := rec.Moves[ply-1]
		lines = append(lines, r.replayMove(loc, ply, len(rec.Moves), b.At(c.Row(), c.Col()), c.String(), notes))
	}
	png, err := BoardPicture(part, b, false)
	if err != nil {
		return nil, err
	}
	row, err := r.replayNav(loc, g, ply, len(rec.Moves), owner, notes)
	if err != nil {
		return nil, err
	}
	return &discordgo.InteractionResponseData{
		Content: strings.Join(lines, "\n"), AllowedMentions: NoMentions(),
		Components: []discordgo.MessageComponent{row},
		Files:      []*discordgo.File{{Name: BoardPictureName, ContentType: "image/png", Reader: bytes.NewReader(png)}},
	}, nil
}

// WideReview renders the review of a game past 8x8 (ai/gomoku's): a line
// per move with the mover's chances as the search estimates them (≈), and
// what is proved: a win by fours played, missed or let in, with its line;
// where the game was decided; and the footer saying which is which.
func (r *Renderer) WideReview(loc discordgo.Locale, g *persistence.ArchivedGame, rv *gomoku.Review) (*discordgo.InteractionResponseData, error) {
	s := sessionOf(g)
	desc := []string{r.cat.Text(loc, "board.players",
		"xmark", EmojiX, "x", r.seatName(loc, s.Players[0]), "omark", EmojiO, "o", r.seatName(loc, s.Players[1]),
		"rules", r.WideRulesText(loc, rv.Rules)), r.resultText(loc, s), ""}
	for _, m := range rv.Moves {
		chances := m.Score
		if m.Mover == game.O {
			chances = 1 - chances
		}
		line := r.cat.Text(loc, "review.wide_line", "n", strconv.Itoa(m.Ply), "mark", markEmoji(m.Mover), "cell", m.Cell.String(),
			"chances", r.cat.Percent(loc, chances, 0))
		names := make([]string, len(m.Line))
		for i, c := range m.Line {
			names[i] = c.String()
		}
		switch m.Verdict {
		case gomoku.Winning:
			line += " · " + verdictSymbol(review.Best) + " " + r.cat.Text(loc, "review.fours_won", "moves", strings.Join(names, " "))
		case gomoku.MissedWin:
			line += " · " + verdictSymbol(review.MissedWin) + " " + r.cat.Text(loc, "review.fours_missed", "moves", strings.Join(names, " "))
		case gomoku.Losing:
			line += " · " + verdictSymbol(review.Blunder) + " " + r.cat.Text(loc, "review.fours_lost", "moves", strings.Join(names, " "))
		}
		desc = append(desc, line)
	}
	e := &discordgo.MessageEmbed{
		Type:        discordgo.EmbedTypeRich,
		Title:       r.cat.Text(loc, "review.title"),
		Description: truncate(strings.Join(desc, "\n"), MaxEmbedDescLen),
		Color:       colorEstimate,
		Footer:      &discordgo.MessageEmbedFooter{Text: r.cat.Text(loc, "review.wide_footer")},
	}
	story := r.cat.Text(loc, "review.undecided")
	if d := rv.Decided; d >= 0 && d < len(rv.Moves) {
		winner := game.X
		if g.Result == game.OWins {
			winner = game.O
		}
		story = r.cat.Text(loc, "review.decided", "n", strconv.Itoa(rv.Moves[d].Ply), "mark", markEmoji(winner), "player", r.seatName(loc, s.Seat(winner)))
	}
	e.Fields = []*discordgo.MessageEmbedField{{Name: r.cat.Text(loc, "review.story"), Value: truncate(story, MaxEmbedFieldValue)}}
	return &discordgo.InteractionResponseData{Embeds: []*discordgo.MessageEmbed{e}, AllowedMentions: NoMentions()}, nil
}

// puzzleFours is the length, in fours, of the win by fours of a puzzle
// past 8x8 from its start position; 0 for another game.
func puzzleFours(s *persistence.Session) int {
	br, err := persistence.ParseBoardRules(s.Rules)
	if err != nil || !br.IsWide() || s.Start == "" {
		return 0
	}
	p, err := wide.ParsePosition(br.Wide, s.Start)
	if err != nil {
		return 0
	}
	return gomoku.FoursToWin(p)
}
