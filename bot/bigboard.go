package bot

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai/gomoku"
	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/game/wide"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/sched"
)

// Boards past the buttons (6x6 to 15x15): the board is a picture (see
// render.bigBoard), and a move is made without buttons: by the column menu
// under the picture, then the row menu sent to the player alone, or by
// /ttt move cell:h8 (with suggestions of the free cells as it is typed),
// which works on every board. Boards up to 8x8 are game's; past them
// game/wide's, whose computer levels are ai/gomoku's.

// The routes of moves without buttons (see routes.go).
func init() {
	routeCommand(command.Path(command.Name, command.SubMove), (*Bot).moveCommand)
	routeComponent(false, (*Bot).pickColumn, customid.ActionColumn)
	routeComponent(false, (*Bot).pickCell, customid.ActionPlace)
}

// Keys of the refusals of a move without buttons.
const (
	keyBadCell   = "error.bad_cell"
	keyLevelWide = "error.level_wide"
	// keyChooseSide refuses a move while a swap opening's side is to be
	// chosen.
	keyChooseSide = "reply.choose_side"
)

// maxSuggestions is the most choices Discord takes in an autocomplete.
const maxSuggestions = 25

// checkLevel refuses a computer level that cannot play the board: one
// without a network for small's rules, one without a wide-board player
// past 8x8 (w valid).
func (b *Bot) checkLevel(loc discordgo.Locale, level string, small game.Rules, w wide.Rules) error {
	if !w.Valid() {
		return b.checkNetwork(loc, level, small)
	}
	if _, err := gomoku.NewLevel(level, gomoku.LevelOptions{}); err != nil {
		return &UserError{Key: keyLevelWide, Vars: []string{"level", b.render.LevelText(loc, level),
			"rules", b.render.WideRulesText(loc, w), "levels", b.levelsText(loc, gomoku.Levels())}, Err: err}
	}
	return nil
}

// levelsText lists levels by their names in loc: "Random, Easy, Minimax".
func (b *Bot) levelsText(loc discordgo.Locale, levels []string) string {
	names := make([]string, len(levels))
	for i, l := range levels {
		names[i] = b.render.LevelText(loc, l)
	}
	return strings.Join(names, ", ")
}

// moveCommand plays /ttt move cell:… in the caller's live game in the
// channel, on any board.
func (b *Bot) moveCommand(ctx context.Context, c *call, r command.MoveRequest) error {
	s, err := b.activeSession(ctx, c)
	if err != nil {
		return err
	}
	return b.placeMark(ctx, c, s, r.Cell, -1, respMessage)
}

// pickColumn answers a pick in a big board's column menu with the row
// menu of that column, for the picker alone.
func (b *Bot) pickColumn(ctx context.Context, c *call, id customid.ID) error {
	s, board, err := b.movable(ctx, c, id.Game, id.Move)
	if err != nil {
		return err
	}
	vals := c.i.MessageComponentData().Values
	if len(vals) != 1 || len(vals[0]) != 1 || vals[0][0] < 'a' || int(vals[0][0]-'a') >= board.Cols() {
		return &UserError{Key: render.KeyInvalidButton, Err: fmt.Errorf("bot: column menu value %q", vals)}
	}
	data, err := b.render.RowMenu(c.loc, s, board, int(vals[0][0]-'a'))
	if err != nil {
		return err
	}
	return b.respond(ctx, c, respMessage, data)
}

// pickCell plays the cell picked in a row menu.
func (b *Bot) pickCell(ctx context.Context, c *call, id customid.ID) error {
	s, err := b.store.Game(ctx, id.Game)
	if err != nil {
		return err
	}
	vals := c.i.MessageComponentData().Values
	if len(vals) != 1 {
		return &UserError{Key: render.KeyInvalidButton, Err: fmt.Errorf("bot: row menu values %q", vals)}
	}
	return b.placeMark(ctx, c, s, vals[0], id.Move, respUpdate)
}

// movable loads game id for a move by the caller on the board at move
// ply: refused when the caller does not play in it, it is over, the board
// has changed, or it is not their turn.
func (b *Bot) movable(ctx context.Context, c *call, id persistence.GameID, ply int) (*persistence.Session, persistence.Board, error) {
	s, err := b.store.Game(ctx, id)
	if err != nil {
		return nil, persistence.Board{}, err
	}
	board, err := b.checkTurn(c, s, ply)
	return s, board, err
}

// checkTurn refuses a move by the caller in s on the board at move ply
// (-1: whatever it is now) as a click on a board is refused.
func (b *Bot) checkTurn(c *call, s *persistence.Session, ply int) (persistence.Board, error) {
	side := s.SideOf(c.user)
	switch {
	case side == game.Empty:
		return persistence.Board{}, userErr(render.KeyNotYourGame)
	case !s.Status.Live():
		return persistence.Board{}, userErr(render.KeyGameOver)
	case ply >= 0 && s.Ply() != ply:
		return persistence.Board{}, userErr(render.KeyBoardChanged)
	}
	board, err := s.Board()
	if err != nil {
		return persistence.Board{}, err
	}
	switch {
	case s.Acting(board) != side:
		return persistence.Board{}, userErr(render.KeyNotYourTurn)
	case s.SwapPending(board):
		return persistence.Board{}, userErr(keyChooseSide)
	}
	return board, nil
}

// placeMark plays the caller's cell, as typed or picked, in s on the board
// at move ply (-1: as it is now), answers them privately (a new message,
// or typ respUpdate: the row menu replaced), then shows the move on the
// board's message, and the computer's reply once it has moved.
func (b *Bot) placeMark(ctx context.Context, c *call, s *persistence.Session, cell string, ply int, typ discordgo.InteractionResponseType) error {
	board, err := b.checkTurn(c, s, ply)
	if err != nil {
		return err
	}
	row, col, err := readCell(board, cell)
	if err != nil {
		return err
	}
	if board.At(row, col) != game.Empty {
		return userErr(render.KeyCellTaken)
	}
	next, err := b.play(ctx, s, c.user, row, col)
	timedOut := errors.Is(err, persistence.ErrTimedOut) && next != nil
	if err != nil && !timedOut {
		return err
	}
	if !timedOut && next.Puzzle != "" {
		if next, err = b.judgePuzzle(ctx, next, c.user); err != nil {
			return err
		}
	}
	if next.Message == "" {
		// No message known to show the game in (one recorded a moment
		// late): a sweeper posts the board anew (see delivery.go).
		b.owe(ctx, next, next.Version, oweRetry)
	}
	reply := b.render.Played(c.loc, render.CellName(row, col))
	if timedOut {
		// Too late: the game is lost on time, and the board says so.
		reply.Content = b.render.Reply(c.loc, render.KeyGameOver).Content
	}
	if err := b.respond(ctx, c, typ, reply); err != nil {
		c.warnings = append(c.warnings, err) // the move stands; the board shows it
	}
	if seat, ok, _ := aiToMove(next); ok {
		if err := b.editBoard(ctx, c.pub, next, nil); err != nil {
			c.warnings = append(c.warnings, err)
		}
		if next, err = b.thinkAndPlay(ctx, jobOf(c, sched.Interactive), next, seat, always); err != nil {
			return err
		}
	}
	ratings := b.finish(ctx, c, next)
	if err := b.editBoard(ctx, c.pub, next, ratings); err != nil {
		c.warnings = append(c.warnings, err)
	}
	return nil
}

// readCell reads a typed or picked cell on board (as its engine reads
// cells: a name like "h8", any case, or 0-based "row col"). A cell it
// cannot read, or off the board, is refused with the board's columns and
// rows.
func readCell(board persistence.Board, s string) (row, col int, err error) {
	row, col, err = board.ParseCell(s)
	if err != nil {
		return 0, 0, &UserError{Key: keyBadCell, Vars: []string{"cell", s,
			"last", render.CellName(board.Rows()-1, board.Cols()-1),
			"cols", "a–" + string(rune('a'+board.Cols()-1)), "rows", "1–" + strconv.Itoa(board.Rows())}, Err: err}
	}
	return row, col, nil
}

// suggestCells answers /ttt move's autocomplete: the free cells of the
// caller's live game in the channel that start with what they typed, the
// nearest to the play first (a distance, never an evaluation: no hint in
// the order). No game, or not their turn: no suggestions.
func (b *Bot) suggestCells(ctx context.Context, c *call) error {
	var typed string
	for _, o := range c.i.ApplicationCommandData().Options {
		for _, so := range o.Options {
			if so.Focused {
				typed = strings.ToLower(strings.TrimSpace(fmt.Sprint(so.Value)))
			}
		}
	}
	var choices []*discordgo.ApplicationCommandOptionChoice
	if s, err := b.activeSession(ctx, c); err == nil {
		if board, err := b.checkTurn(c, s, -1); err == nil {
			for _, name := range render.FreeCells(s, board, nil) {
				if strings.HasPrefix(name, typed) && len(choices) < maxSuggestions {
					choices = append(choices, &discordgo.ApplicationCommandOptionChoice{Name: name, Value: name})
				}
			}
		}
	}
	if choices == nil {
		choices = []*discordgo.ApplicationCommandOptionChoice{}
	}
	return b.dc.InteractionRespond(c.i, &discordgo.InteractionResponse{
		Type: discordgo.InteractionApplicationCommandAutocompleteResult,
		Data: &discordgo.InteractionResponseData{Choices: choices},
	}, discordgo.WithContext(ctx))
}

// wideAIMove is aiMove on a wide board (past 8x8): the level's wide-board
// player (ai/gomoku) thinks within timeout, its budget bent by load, and
// the move is played. A player that fails plays a random free cell, so
// the game never stalls. In a swap opening the computer acts until a
// person is to: it places all three stones, or chooses a side and, with
// O, moves.
func (b *Bot) wideAIMove(ctx context.Context, s *persistence.Session, pos wide.Position, seat persistence.Seat, timeout time.Duration, load float64, owe func() bool) (*persistence.Session, error) {
	next, err := b.wideAIStep(ctx, s, pos, seat, timeout, load, owe)
	for err == nil && next.Swap && next.Ply() <= 3 && next.Status == persistence.StatusActive {
		board, berr := next.Board()
		if berr != nil {
			return nil, berr
		}
		st := next.Seat(next.Acting(board))
		if !st.IsAI() {
			break
		}
		next, err = b.wideAIStep(ctx, next, board.Wide(), st, timeout, load, owe)
	}
	return next, err
}

// wideAIStep is one action of the computer on a wide board: a move, an
// opening stone or the choice of a side.
func (b *Bot) wideAIStep(ctx context.Context, s *persistence.Session, pos wide.Position, seat persistence.Seat, timeout time.Duration, load float64, owe func() bool) (*persistence.Session, error) {
	seed := seat.AI.Seed + uint64(s.Ply())
	p, err := gomoku.NewLevel(seat.AI.Level, gomoku.LevelOptions{Seed: seed, Budget: seat.AI.Budget, Load: load, Depth: seat.AI.Depth})
	if err != nil {
		return nil, fmt.Errorf("bot: AI player of game %s: %w", s.ID, err)
	}
	mctx, cancel := context.WithTimeout(ctx, timeout)
	var cell wide.Cell
	switch {
	case s.Swap && !s.SwapChosen && pos.Ply() == 3:
		// The end of a swap opening: the computer takes the side its
		// search rates higher.
		side := gomoku.ChooseSide(mctx, pos, timeout/2)
		cancel()
		if owe != nil && owe() {
			b.owe(ctx, s, s.Version+1, b.aiTimeout(seat)+oweGrace)
		}
		return b.store.ChooseSide(ctx, s.ID, s.Version, "", side)
	case s.Swap && !s.SwapChosen && pos.Ply() < 3:
		cell = gomoku.OpeningStone(pos.Rules(), seat.AI.Seed, pos.Ply()) // a balanced opening
	default:
		cell, err = p.Move(mctx, pos)
	}
	cancel()
	if err != nil && ctx.Err() == nil && !errors.Is(err, gomoku.ErrNoMoves) {
		r, _ := gomoku.NewLevel("random", gomoku.LevelOptions{Seed: seed})
		cell, err = r.Move(ctx, pos)
	}
	if err != nil {
		return nil, fmt.Errorf("bot: AI move in game %s: %w", s.ID, err)
	}
	if owe != nil && owe() {
		b.owe(ctx, s, s.Version+1, b.aiTimeout(seat)+oweGrace)
	}
	return b.play(ctx, s, "", cell.Row(), cell.Col())
}
