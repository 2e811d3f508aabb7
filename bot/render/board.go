package render

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/settings"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// Keys of the short ephemeral replies to a click or command that cannot be
// carried out. Pass them to Renderer.Reply or wrap them in a *UserError.
const (
	KeyNotYourGame    = "reply.not_your_game"
	KeyNotYourTurn    = "reply.not_your_turn"
	KeyCellTaken      = "reply.cell_taken"
	KeyGameOver       = "reply.game_over"
	KeyBoardChanged   = "reply.board_changed"
	KeyExpired        = "reply.expired"
	KeyInvalidButton  = "reply.invalid_button"
	KeyOnlyOpponent   = "reply.only_opponent"
	KeyOnlyChallenger = "reply.only_challenger"
	KeyOwnChallenge   = "reply.own_challenge"
	KeyBusy           = "reply.busy"
	KeyNoGame         = "reply.no_game"
	KeyInternal       = "reply.internal"
	KeyUnavailable    = "reply.unavailable"
	// KeyStoreUnavailable answers an interaction that failed because the
	// game store (Redis) could not be reached: persistence.ErrUnavailable.
	KeyStoreUnavailable = "reply.store_unavailable"
)

// Marks as shown on the board and in texts.
const (
	EmojiX = "❌"
	EmojiO = "⭕"
)

// Button colours on the board.
const (
	styleEmpty = discordgo.SecondaryButton // grey, clickable
	styleMark  = discordgo.SecondaryButton // a placed mark, disabled
	styleLast  = discordgo.PrimaryButton   // the last move
	styleWin   = discordgo.SuccessButton   // the winning line
)

// PlayerRating is one player's rating before and after a rated game, for
// the line under a finished board.
type PlayerRating struct {
	// User is the Discord user ID.
	User string
	// Before and After are the ratings.
	Before, After float64
}

// Renderer turns sessions into the messages sent to Discord. It is pure:
// the same arguments give the same bytes. A Renderer is immutable and safe
// for concurrent use.
type Renderer struct {
	cat    *i18n.Catalog
	signer *customid.Signer
}

// NewRenderer returns a Renderer that writes texts from cat and signs
// button custom IDs with signer.
func NewRenderer(cat *i18n.Catalog, signer *customid.Signer) *Renderer {
	return &Renderer{cat: cat, signer: signer}
}

// Catalog returns the renderer's catalog.
func (r *Renderer) Catalog() *i18n.Catalog { return r.cat }

// Board renders a game that has started (StatusActive, or finished or
// expired after starting) as the message that shows it: a header with both
// players and the rules, whose turn it is and the turn deadline (or, at the
// end, the result and the rating changes), then one button per cell, and in
// a spare row Resign during the game or Rematch after it. Empty cells are
// grey and clickable; marks are disabled; the last move is blue and the
// winning line green; everything is disabled once the game is over, and
// while an AI is to move. Cells are labelled as labels says. It fails if
// the session does not replay, the board does not fit in buttons, or a
// custom ID cannot be encoded.
func (r *Renderer) Board(loc discordgo.Locale, labels settings.Labels, s *persistence.Session, ratings []PlayerRating) (*discordgo.InteractionResponseData, error) {
	b, err := s.Board()
	if err != nil {
		return nil, fmt.Errorf("bot: render board: %w", err)
	}
	if b.IsWide() || !command.FitsButtons(b.Small().Rules()) {
		return r.bigBoard(loc, s, b, ratings)
	}
	pos := b.Small()
	live := s.Status.Live() && !pos.Over()
	move := len(s.Moves)

	lines := r.boardHeader(loc, s, pos, live, ratings)
	rows, err := r.cellRows(labels, s, pos, live)
	if err != nil {
		return nil, err
	}
	if len(rows) < command.MaxActionRows {
		row, err := r.actionRow(loc, s, live, move)
		if err != nil {
			return nil, err
		}
		if row != nil {
			rows = append(rows, row)
		}
	} else if archived(s) {
		// No row is free for the Replay and Review buttons: say how to
		// open them.
		lines = append(lines, r.cat.Text(loc, "board.links", "game", string(s.ID)))
	}
	return &discordgo.InteractionResponseData{
		Content:         strings.Join(lines, "\n"),
		Components:      rows,
		AllowedMentions: NoMentions(),
	}, nil
}

// boardHeader returns the lines above a board: the puzzle, if any, the
// players and the rules, then whose turn it is and the turn deadline while
// the game is live, or the result and the rating changes once it is over.
func (r *Renderer) boardHeader(loc discordgo.Locale, s *persistence.Session, pos game.Position, live bool, ratings []PlayerRating) []string {
	var lines []string
	if s.Puzzle != "" {
		lines = append(lines, r.puzzleText(loc, s, pos.Over()))
	}
	return append(lines, r.header(loc, s, pos.ToMove(), r.RulesText(loc, pos.Rules()), live, ratings)...)
}

// header returns the players and the rules, then whose turn it is and the
// turn deadline while the game is live, or the result and the rating
// changes once it is over.
func (r *Renderer) header(loc discordgo.Locale, s *persistence.Session, toMove game.Mark, rules string, live bool, ratings []PlayerRating) []string {
	lines := []string{r.cat.Text(loc, "board.players",
		"xmark", EmojiX, "x", r.seatName(loc, s.Players[0]),
		"omark", EmojiO, "o", r.seatName(loc, s.Players[1]),
		"rules", rules)}
	if live {
		vars := []string{"mark", markEmoji(toMove), "player", r.seatName(loc, s.Seat(toMove))}
		if s.Deadline.IsZero() || s.Duel() {
			lines = append(lines, r.cat.Text(loc, "board.turn", vars...))
		} else {
			lines = append(lines, r.cat.Text(loc, "board.deadline", append(vars, "deadline", Timestamp(s.Deadline.Unix()))...))
		}
	} else {
		lines = append(lines, r.resultText(loc, s))
		for _, c := range ratings {
			lines = append(lines, r.cat.Text(loc, "rating.line", "player", Mention(c.User),
				"before", rating(c.Before), "after", rating(c.After),
				"delta", signed(int(math.Round(c.After))-int(math.Round(c.Before)))))
		}
	}
	return lines
}

// cellRows returns one action row of buttons per row of the board, one
// button per cell: empty cells grey and clickable while the game is live
// and no AI is to move, marks disabled, the last move blue and the winning
// line green. Cells are labelled as labels says.
func (r *Renderer) cellRows(labels settings.Labels, s *persistence.Session, pos game.Position, live bool) ([]discordgo.MessageComponent, error) {
	rules := pos.Rules()
	aiToMove := live && s.Seat(pos.ToMove()).IsAI()
	move := len(s.Moves)
	var last game.Cell
	hasLast := len(s.Moves) > 0
	if hasLast {
		last = s.Moves[len(s.Moves)-1]
	}
	win := pos.Outcome().Cells
	rows := make([]discordgo.MessageComponent, 0, command.MaxActionRows)
	for row := range rules.Rows() {
		buttons := make([]discordgo.MessageComponent, 0, rules.Cols())
		for col := range rules.Cols() {
			c := game.NewCell(row, col)
			id, err := r.signer.Encode(customid.ID{Action: customid.ActionMove, Game: s.ID, Move: move, Cell: c})
			if err != nil {
				return nil, fmt.Errorf("bot: render board: %w", err)
			}
			b := discordgo.Button{CustomID: id, Style: styleEmpty, Label: c.String(), Disabled: !live || aiToMove}
			if m := pos.At(c); m != game.Empty {
				b.Emoji, b.Style, b.Disabled = &discordgo.ComponentEmoji{Name: markEmoji(m)}, styleMark, true
				if labels == settings.LabelsCompact {
					b.Label = ""
				}
			}
			switch {
			case win.Has(c):
				b.Style = styleWin
			case hasLast && c == last:
				b.Style = styleLast
			}
			buttons = append(buttons, b)
		}
		rows = append(rows, discordgo.ActionsRow{Components: buttons})
	}
	return rows, nil
}

// actionRow returns the spare row under a board: Resign while a game with
// a human is live, the finished buttons after a game that is not a puzzle
// (a row even when there are none), else nil.
func (r *Renderer) actionRow(loc discordgo.Locale, s *persistence.Session, live bool, move int) (discordgo.MessageComponent, error) {
	humans := s.Players[0].User != "" || s.Players[1].User != ""
	switch {
	case live && humans:
		b, err := r.button(loc, customid.ID{Action: customid.ActionResign, Game: s.ID, Move: move}, "button.resign", discordgo.DangerButton)
		if err != nil {
			return nil, err
		}
		return discordgo.ActionsRow{Components: []discordgo.MessageComponent{b}}, nil
	case s.Status == persistence.StatusFinished && s.Puzzle == "":
		// A puzzle has no Rematch (it would play the solution in
		// public), nor Replay and Review (it is not archived).
		row, err := r.finishedButtons(loc, s, move)
		if err != nil {
			return nil, err
		}
		return discordgo.ActionsRow{Components: row}, nil
	}
	return nil, nil
}

// finishedButtons are the buttons under a finished board: Rematch, and
// Replay and Review for a game kept in the archive.
func (r *Renderer) finishedButtons(loc discordgo.Locale, s *persistence.Session, move int) ([]discordgo.MessageComponent, error) {
	rematch, err := r.button(loc, customid.ID{Action: customid.ActionRematch, Game: s.ID, Move: move}, "button.rematch", discordgo.PrimaryButton)
	if err != nil {
		return nil, err
	}
	row := []discordgo.MessageComponent{rematch}
	if s.Tournament != "" {
		// A tournament pairs its players itself: a rematch in its channel
		// would hold up their next game.
		row = nil
	}
	if !archived(s) {
		if len(row) == 0 {
			return nil, nil
		}
		return row, nil
	}
	for _, a := range []customid.Action{customid.ActionReplay, customid.ActionReview} {
		b, err := r.button(loc, customid.ID{Action: a, Game: s.ID}, "button."+a.String(), discordgo.SecondaryButton)
		if err != nil {
			return nil, err
		}
		row = append(row, b)
	}
	return row, nil
}

// archived reports whether a finished game is kept for replays and
// reviews: one that ended with a result, and is not a puzzle attempt.
func archived(s *persistence.Session) bool {
	return s.Status == persistence.StatusFinished && s.Puzzle == "" &&
		(s.Result == game.XWins || s.Result == game.OWins || s.Result == game.Draw)
}

// puzzleText is the first line of a puzzle's board: the day and the task
// while it is played, then solved or failed.
func (r *Renderer) puzzleText(loc discordgo.Locale, s *persistence.Session, over bool) string {
	user := s.Players[0]
	side := game.X
	if user.IsAI() {
		user, side = s.Players[1], game.O
	}
	day := puzzleDay(s.Puzzle)
	switch {
	case s.Status.Live() && !over:
		return r.cat.Text(loc, "puzzle.task", "day", day, "mark", markEmoji(side), "player", r.seatName(loc, user))
	case PuzzleSolved(s, side):
		return r.cat.Text(loc, "puzzle.solved", "day", day, "player", r.seatName(loc, user))
	case s.End == persistence.ByTimeout && s.Result == game.XWins && side == game.O, s.End == persistence.ByTimeout && s.Result == game.OWins && side == game.X:
		return r.cat.Text(loc, "puzzle.timeout", "day", day, "player", r.seatName(loc, user))
	case s.End == persistence.ByWin || s.End == persistence.ByDraw || s.End == persistence.ByResign:
		return r.cat.Text(loc, "puzzle.failed", "day", day, "player", r.seatName(loc, user))
	}
	return r.cat.Text(loc, "puzzle.ended", "day", day, "player", r.seatName(loc, user))
}

// puzzleDay shows a puzzle's day, "2026-11-24", as a Discord date that
// each reader's client writes in their language ("November 24, 2026",
// "24. November 2026"). It is noon UTC of the day, so that every time
// zone within 12 hours of UTC shows that date. A day that does not parse
// shows as it is.
func puzzleDay(day string) string {
	t, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return day
	}
	return "<t:" + strconv.FormatInt(t.Add(12*time.Hour).Unix(), 10) + ":D>"
}

// PuzzleSolved reports whether the user playing side solved the puzzle of
// s: they completed their line. A win any other way (the computer's time
// running out) is not a solution.
func PuzzleSolved(s *persistence.Session, side game.Mark) bool {
	return s.End == persistence.ByWin && (s.Result == game.XWins && side == game.X || s.Result == game.OWins && side == game.O)
}

// resultText says how a finished or expired game ended.
func (r *Renderer) resultText(loc discordgo.Locale, s *persistence.Session) string {
	winner := game.Empty
	switch s.Result {
	case game.XWins:
		winner = game.X
	case game.OWins:
		winner = game.O
	}
	wl := func(key string) string {
		return r.cat.Text(loc, key, "mark", markEmoji(winner), "winner", r.seatName(loc, s.Seat(winner)),
			"loser", r.seatName(loc, s.Seat(winner.Other())))
	}
	switch {
	case s.End == persistence.ByResign && winner != game.Empty:
		return wl("result.resign")
	case s.End == persistence.ByTimeout && winner != game.Empty:
		return wl("result.timeout")
	case s.End == persistence.ByModerator && s.Duel():
		return r.cat.Text(loc, "result.duel_stopped")
	case s.End == persistence.ByModerator:
		return r.cat.Text(loc, "result.moderator")
	case s.End == persistence.ByExpiry:
		return r.cat.Text(loc, "result.expired")
	case winner != game.Empty:
		return r.cat.Text(loc, "result.win", "mark", markEmoji(winner), "player", r.seatName(loc, s.Seat(winner)))
	}
	return r.cat.Text(loc, "result.draw")
}

// Challenge renders a challenge: who challenges whom (or anyone) to what,
// the challenger's side and when the challenge expires, with Accept and
// Decline (for the opponent) and Cancel (for the challenger), or Join and
// Cancel for an open challenge. The challenged user is the only mention
// that pings. Once the challenge is no longer open (declined, withdrawn,
// expired) it says so and has no buttons; by is the user who ended it,
// which tells a withdrawal (the challenger) from a refusal.
func (r *Renderer) Challenge(loc discordgo.Locale, s *persistence.Session, by string) (*discordgo.InteractionResponseData, error) {
	if _, err := persistence.ParseBoardRules(s.Rules); err != nil {
		return nil, fmt.Errorf("bot: render challenge: %w", err)
	}
	if s.Challenger != game.X && s.Challenger != game.O {
		return nil, fmt.Errorf("bot: render challenge: game %s is not a challenge", s.ID)
	}
	challenger := s.Seat(s.Challenger).User
	opponent := s.Seat(s.Challenger.Other()).User
	out := &discordgo.InteractionResponseData{AllowedMentions: NoMentions(), Components: []discordgo.MessageComponent{}}
	if s.Status != persistence.StatusOpen {
		switch {
		case s.End == persistence.ByDecline && by == challenger:
			out.Content = r.cat.Text(loc, "challenge.cancelled", "challenger", Mention(challenger))
		case s.End == persistence.ByDecline:
			out.Content = r.cat.Text(loc, "challenge.declined", "opponent", Mention(by))
		default:
			out.Content = r.cat.Text(loc, "challenge.expired")
		}
		return out, nil
	}
	rt := r.boardRulesText(loc, s.Rules)
	var err error
	var lines []string
	var buttons []discordgo.MessageComponent
	add := func(a customid.Action, key string, style discordgo.ButtonStyle) error {
		b, err := r.button(loc, customid.ID{Action: a, Game: s.ID}, key, style)
		buttons = append(buttons, b)
		return err
	}
	if opponent != "" {
		lines = append(lines, r.cat.Text(loc, "challenge.direct", "challenger", Mention(challenger), "opponent", Mention(opponent), "rules", rt))
		out.AllowedMentions.Users = []string{opponent}
		err = errors.Join(add(customid.ActionAccept, "button.accept", discordgo.SuccessButton),
			add(customid.ActionDecline, "button.decline", discordgo.DangerButton))
	} else {
		lines = append(lines, r.cat.Text(loc, "challenge.open", "challenger", Mention(challenger), "rules", rt))
		err = add(customid.ActionJoin, "button.join", discordgo.SuccessButton)
	}
	if err = errors.Join(err, add(customid.ActionCancel, "button.cancel", discordgo.SecondaryButton)); err != nil {
		return nil, fmt.Errorf("bot: render challenge: %w", err)
	}
	lines = append(lines, r.cat.Text(loc, "challenge.sides", "challenger", Mention(challenger), "mark", markEmoji(s.Challenger)))
	if !s.Deadline.IsZero() {
		lines = append(lines, r.cat.Text(loc, "challenge.expires", "deadline", Timestamp(s.Deadline.Unix())))
	}
	out.Content = strings.Join(lines, "\n")
	out.Components = []discordgo.MessageComponent{discordgo.ActionsRow{Components: buttons}}
	return out, nil
}

// Reply returns a short ephemeral reply: the text of key (usually one of
// the Key constants) with its placeholder values.
func (r *Renderer) Reply(loc discordgo.Locale, key string, vars ...string) *discordgo.InteractionResponseData {
	return Ephemeral(r.cat.Text(loc, key, vars...))
}

// Error returns the ephemeral reply for err: the user's message of a
// *UserError or a known sentinel (see i18n.Catalog.Error), else a generic one.
func (r *Renderer) Error(loc discordgo.Locale, err error) *discordgo.InteractionResponseData {
	return Ephemeral(ErrorText(r.cat, loc, err))
}

// KeyCommandMoved answers the old path of a command that moved
// ({command}: where it is now).
const KeyCommandMoved = "reply.command_moved"

// Moved returns the ephemeral answer to the old path of a command that
// moved (command.Moved): its path now, to, as loc's client offers it,
// "/ttt-tournament erstellen" (command names are never translated, the
// subcommands' are).
func (r *Renderer) Moved(loc discordgo.Locale, to string) *discordgo.InteractionResponseData {
	parts := strings.Split(to, "/")
	text := "/" + parts[0]
	for _, sub := range parts[1:] {
		text += " " + r.cat.Text(loc, "cmd."+sub+".name")
	}
	return Ephemeral(r.cat.Text(loc, KeyCommandMoved, "command", text))
}

// Help returns the ephemeral /ttt help text.
func (r *Renderer) Help(loc discordgo.Locale) *discordgo.InteractionResponseData {
	return Ephemeral(r.cat.Text(loc, "help.text"))
}

func Ephemeral(content string) *discordgo.InteractionResponseData {
	return &discordgo.InteractionResponseData{
		Content:         content,
		Flags:           discordgo.MessageFlagsEphemeral,
		AllowedMentions: NoMentions(),
	}
}

func (r *Renderer) button(loc discordgo.Locale, id customid.ID, key string, style discordgo.ButtonStyle) (discordgo.Button, error) {
	cid, err := r.signer.Encode(id)
	if err != nil {
		return discordgo.Button{}, fmt.Errorf("bot: render %s button: %w", id.Action, err)
	}
	return discordgo.Button{CustomID: cid, Label: r.cat.Text(loc, key), Style: style}, nil
}

// seatName is how a seat appears: a mention, "🤖 Level", or "(open seat)".
func (r *Renderer) seatName(loc discordgo.Locale, st persistence.Seat) string {
	switch {
	case st.IsAI():
		return r.cat.Text(loc, "player.ai", "level", r.LevelText(loc, st.AI.Level))
	case st.User == persistence.ForgottenUser:
		return r.cat.Text(loc, "player.forgotten")
	case st.User != "":
		return Mention(st.User)
	}
	return r.cat.Text(loc, "player.open")
}

// BoardsText lists boards given by their rules keys, in the order of the
// board menu (any others after, as given): "3×3, 3 in a row · 4×3 X-O-X".
func (r *Renderer) BoardsText(loc discordgo.Locale, keys []string) string {
	rank := func(k string) int {
		if i := slices.Index(settings.PresetKeys(), k); i >= 0 {
			return i
		}
		return len(settings.PresetKeys())
	}
	keys = slices.Clone(keys)
	slices.SortStableFunc(keys, func(a, b string) int { return rank(a) - rank(b) })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k
		if rules, err := game.ParseRules(k); err == nil {
			parts[i] = r.RulesText(loc, rules)
		}
	}
	return strings.Join(parts, " · ")
}

// RulesText describes rules: "4×4, 3 in a row" or "4×3 X-O-X".
func (r *Renderer) RulesText(loc discordgo.Locale, rules game.Rules) string {
	key := "rules.kinarow"
	if rules.Variant() == game.XOX {
		key = "rules.xox"
	}
	return r.cat.Text(loc, key, "rows", strconv.Itoa(rules.Rows()), "cols", strconv.Itoa(rules.Cols()), "k", strconv.Itoa(rules.K()))
}

func markEmoji(m game.Mark) string {
	switch m {
	case game.X:
		return EmojiX
	case game.O:
		return EmojiO
	}
	return ""
}

func Mention(user string) string { return "<@" + user + ">" }

// Timestamp is a Discord relative timestamp, shown as "in 5 minutes".
func Timestamp(unix int64) string { return "<t:" + strconv.FormatInt(unix, 10) + ":R>" }

// rating writes a rating as a whole number without grouping, as chess
// sites do ("1500", in every locale).
func rating(r float64) string { return strconv.Itoa(int(math.Round(r))) }

func signed(n int) string {
	if n >= 0 {
		return "+" + strconv.Itoa(n)
	}
	return "−" + strconv.Itoa(-n)
}

func NoMentions() *discordgo.MessageAllowedMentions {
	return &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}
}
