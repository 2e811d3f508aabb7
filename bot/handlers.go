package bot

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/bot/rest"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/sched"
)

// The first-response types the handlers use.
const (
	respMessage = discordgo.InteractionResponseChannelMessageWithSource // 4: a new message
	respUpdate  = discordgo.InteractionResponseUpdateMessage            // 7: edit the clicked message
	// respDeferred answers at once with a "thinking" message that an
	// edit replaces.
	respDeferred = discordgo.InteractionResponseDeferredChannelMessageWithSource // 5
)

// The routes of the games: challenges, games against the computer,
// resigning, the help, stats and leaderboards, and the buttons of a
// board and of a challenge (see routes.go).
func init() {
	routeCommand(command.Path(command.Name, command.SubChallenge), (*Bot).challenge, playable)
	routeCommand(command.Path(command.Name, command.SubVsAI), (*Bot).vsAI, playable)
	routeCommand(command.Path(command.Name, command.SubResign),
		func(b *Bot, ctx context.Context, c *call, _ command.ResignRequest) error {
			return b.resignCommand(ctx, c)
		})
	routeCommand(command.Path(command.Name, command.SubHelp),
		func(b *Bot, ctx context.Context, c *call, _ command.HelpRequest) error {
			return b.respond(ctx, c, respMessage, b.render.Help(c.loc))
		})
	routeCommand(command.Path(command.Name, command.SubStats), (*Bot).stats)
	routeCommand(command.Path(command.Name, command.SubLeaderboard), (*Bot).leaderboard)
	routeComponent(false, (*Bot).clickMove, customid.ActionMove)
	routeComponent(false, (*Bot).clickResign, customid.ActionResign)
	routeComponent(false, (*Bot).answerChallenge, customid.ActionAccept, customid.ActionJoin, customid.ActionDecline, customid.ActionCancel)
	routeComponent(false, (*Bot).rematch, customid.ActionRematch)
}

// vsAI starts a game against an AI: the user and the AI take their seats,
// the AI moves if it is first, and the board is shown.
func (b *Bot) vsAI(ctx context.Context, c *call, r command.VsAIRequest) error {
	userSide := game.X // who moves first: X, from the empty board
	if r.Start != "" {
		start, err := game.ParsePosition(r.Rules, r.Start)
		if err != nil {
			return command.PositionError(r.Rules, err)
		}
		userSide = start.ToMove()
	}
	if err := b.checkLevel(c.loc, r.AI.Level, r.Rules, r.Wide); err != nil {
		return err
	}
	st := c.settings
	comp := r.AI
	rules := command.RulesKey(r.Rules, r.Wide)
	if err := b.admitGame(c, "game", rules, persistence.Seat{AI: comp}); err != nil {
		return err
	}
	if !r.SeedSet {
		comp.Seed = b.seed()
	}
	userFirst := r.First == command.FirstMe || r.First == command.FirstRandom && b.coin()
	if !userFirst {
		userSide = userSide.Other()
	}
	var players [2]persistence.Seat
	players[seatIndex(userSide)] = persistence.Seat{User: c.user}
	players[seatIndex(userSide.Other())] = persistence.Seat{AI: comp}
	s, err := b.store.CreateGame(ctx, c.i.ChannelID, persistence.Session{
		Rules: rules, Players: players, Start: r.Start, Guild: c.i.GuildID, TurnTime: st.TurnTime, GameTime: st.GameTime,
	})
	if err != nil {
		return err
	}
	return b.continueGame(ctx, c, s, respMessage)
}

// clickMove plays the user's click on a board cell, then the AI's reply.
func (b *Bot) clickMove(ctx context.Context, c *call, id customid.ID) error {
	s, err := b.store.Game(ctx, id.Game)
	if err != nil {
		return err
	}
	side := s.SideOf(c.user)
	switch {
	case side == game.Empty:
		return userErr(render.KeyNotYourGame)
	case !s.Status.Live():
		return userErr(render.KeyGameOver)
	case len(s.Moves) != id.Move:
		return userErr(render.KeyBoardChanged)
	}
	pos, err := s.Position()
	if err != nil {
		return err
	}
	switch {
	case pos.ToMove() != side:
		return userErr(render.KeyNotYourTurn)
	case !pos.Rules().Board().Has(id.Cell):
		return &UserError{Key: render.KeyInvalidButton, Err: fmt.Errorf("bot: cell %s is off the %s board", id.Cell, pos.Rules())}
	case pos.At(id.Cell) != game.Empty:
		return userErr(render.KeyCellTaken)
	}
	next, err := b.play(ctx, s, c.user, id.Cell.Row(), id.Cell.Col())
	if errors.Is(err, persistence.ErrTimedOut) && next != nil {
		// The move came too late and the game is lost on time: show that.
		return b.showBoard(ctx, c, next, respUpdate, b.finish(ctx, c, next))
	}
	if err != nil {
		return err
	}
	if next.Puzzle != "" {
		if next, err = b.judgePuzzle(ctx, next, c.user); err != nil {
			return err
		}
	}
	return b.continueGame(ctx, c, next, respUpdate)
}

// clickResign resigns the game of the board the Resign button is on.
func (b *Bot) clickResign(ctx context.Context, c *call, id customid.ID) error {
	s, err := b.store.Game(ctx, id.Game)
	if err != nil {
		return err
	}
	switch {
	case s.SideOf(c.user) == game.Empty:
		return userErr(render.KeyNotYourGame)
	case s.Status != persistence.StatusActive:
		return userErr(render.KeyGameOver)
	}
	next, err := retry(func() (*persistence.Session, error) { return b.store.Resign(ctx, id.Game, 0, c.user) })
	if err != nil {
		return err
	}
	return b.showBoard(ctx, c, next, respUpdate, b.finish(ctx, c, next))
}

// resignCommand resigns the user's game in the channel, shows the final
// board as a new message and turns the old board into it too, so no live
// buttons are left behind.
func (b *Bot) resignCommand(ctx context.Context, c *call) error {
	gid, err := b.activeGame(ctx, c)
	if err != nil {
		return err
	}
	s, err := retry(func() (*persistence.Session, error) { return b.store.Resign(ctx, gid, 0, c.user) })
	if err != nil {
		return err
	}
	ratings := b.finish(ctx, c, s)
	if err := b.showBoard(ctx, c, s, respMessage, ratings); err != nil {
		return err
	}
	if err := b.editBoard(ctx, c.pub, s, ratings); err != nil {
		c.warnings = append(c.warnings, err)
	}
	return nil
}

// activeGame is the caller's live game in the channel; render.KeyNoGame when
// there is none.
func (b *Bot) activeGame(ctx context.Context, c *call) (persistence.GameID, error) {
	gid, err := b.store.ActiveGame(ctx, c.i.ChannelID, c.user)
	if errors.Is(err, persistence.ErrNotFound) {
		return "", &UserError{Key: render.KeyNoGame, Err: err}
	}
	return gid, err
}

// activeSession loads the caller's live game in the channel;
// render.KeyNoGame when there is none.
func (b *Bot) activeSession(ctx context.Context, c *call) (*persistence.Session, error) {
	gid, err := b.activeGame(ctx, c)
	if err != nil {
		return nil, err
	}
	return b.store.Game(ctx, gid)
}

// stats shows a user's results in this server (globally in a direct
// message).
func (b *Bot) stats(ctx context.Context, c *call, r command.StatsRequest) error {
	st, err := b.store.Stats(ctx, c.i.GuildID, r.User)
	if errors.Is(err, persistence.ErrNotFound) {
		return b.respond(ctx, c, respMessage, b.render.NoStats(c.pub, r.User))
	}
	if err != nil {
		return err
	}
	return b.respond(ctx, c, respMessage, b.render.Stats(c.pub, st))
}

// leaderboard shows the top places of this server's or the global
// ratings.
func (b *Bot) leaderboard(ctx context.Context, c *call, r command.LeaderboardRequest) error {
	guild := c.i.GuildID
	if r.Kind == command.BoardPuzzles {
		places, err := b.store.PuzzleLeaderboard(ctx, guild, render.MaxLeaderboardLines)
		if err != nil {
			return err
		}
		return b.respond(ctx, c, respMessage, b.render.PuzzleLeaderboard(c.pub, places))
	}
	if r.Scope == command.ScopeGlobal {
		guild = ""
	}
	places, err := b.store.Leaderboard(ctx, guild, 0, render.MaxLeaderboardLines)
	if err != nil {
		return err
	}
	return b.respond(ctx, c, respMessage, b.render.Leaderboard(c.pub, guild, places))
}

// continueGame lets the AI reply if it is to move, records the game if it
// is over, and shows the board with a first response of type typ.
//
// A cheap AI replies at once. A heavy one (see heavy) waits for a worker
// of the AI queue, and when the wait is longer than aiPatience, or its
// budget longer than the move timeout, the user is answered first (the
// board with their move, the AI thinking and the cells disabled) and the
// board is edited once the AI has moved: the first answer never waits for
// a search. The longer the queue, the smaller the budget (loadOf), within
// each level's floor.
func (b *Bot) continueGame(ctx context.Context, c *call, s *persistence.Session, typ discordgo.InteractionResponseType) error {
	seat, ok, err := aiToMove(s)
	if err != nil {
		return err
	}
	if !ok {
		return b.showBoard(ctx, c, s, typ, b.finish(ctx, c, s))
	}
	var answered atomic.Bool
	var answerErr error
	answerFirst := func() {
		var data *discordgo.InteractionResponseData
		data, answerErr = b.respondBoard(ctx, c, s, typ, nil)
		answered.Store(true)
		if answerErr == nil && typ == respMessage {
			// Record the new board at once: if the reply does not come
			// from here (a timeout, a restart), the sweeper's overdue
			// reply edits it. The move then meets a newer version,
			// which aiMove takes, as only the message changed.
			b.track(ctx, c, s, typ, data)
		}
	}
	if seat.AI.Budget > b.moveTimeout {
		// Even when the answer fails (Discord is down), the computer
		// replies: the board it leaves is owed to the screen (see
		// delivery.go), and is shown as soon as Discord takes it.
		answerFirst()
	}
	job := jobOf(c, sched.Interactive)
	job.Patience, job.Waiting = aiPatience, func() {
		if !answered.Load() {
			answerFirst()
		}
	}
	s, err = b.thinkAndPlay(ctx, job, s, seat, answered.Load)
	switch {
	case err != nil:
		return err
	case answerErr != nil:
		// The user could not be answered, but the AI has moved: the game
		// goes on from the next board anyone sees (a sweeper shows it),
		// and a reply that ended it is recorded all the same.
		b.finish(ctx, c, s)
		return answerErr
	case !answered.Load():
		return b.showBoard(ctx, c, s, typ, b.finish(ctx, c, s))
	}
	ratings := b.finish(ctx, c, s)
	data, err := b.render.Board(c.pub, c.labels, s, ratings)
	if err != nil {
		return err
	}
	if s.Message == "" {
		s = b.track(ctx, c, s, typ, data) // before the user sees a board to click
	}
	return b.showMove(ctx, c, s, data, ratings)
}

// showMove edits the computer's move into the board that answered the
// user first: the interaction's @original, or when Discord keeps failing
// that, the board's channel message with the bot's token. A board
// neither could show is owed to the screen (see delivery.go): a sweeper
// shows it, so the failure is a warning, not an error for the user.
func (b *Bot) showMove(ctx context.Context, c *call, s *persistence.Session, data *discordgo.InteractionResponseData, ratings []render.PlayerRating) error {
	err := b.editOriginal(rest.WithSuperseded(ctx, b.movedOn(ctx, s)), c, data)
	if err == nil {
		b.afterDelivery(ctx, c.pub, s)
		return nil
	}
	if errors.Is(err, rest.ErrSuperseded) {
		c.deferred = false // the player has moved on from this board
		return nil
	}
	if s.Message == "" {
		b.owe(ctx, s, s.Version, oweRetry)
	} else if ferr := b.editBoard(ctx, c.pub, s, ratings); ferr != nil {
		err = errors.Join(err, ferr) // owed by editBoard
	} else {
		c.deferred = false
		return nil
	}
	c.deferred = false // nothing else is to be said in its place
	c.warnings = append(c.warnings, fmt.Errorf("bot: the computer's move in game %s is owed to the screen: %w", s.ID, err))
	return nil
}

// showBoard renders s with the rating changes (of a finished game) and
// sends it as the first response, then records which message shows it.
func (b *Bot) showBoard(ctx context.Context, c *call, s *persistence.Session, typ discordgo.InteractionResponseType, ratings []render.PlayerRating) error {
	if typ == respUpdate {
		// The message is known: record it first, so the game does not
		// change after the user has seen it.
		s = b.track(ctx, c, s, typ, nil)
		_, err := b.respondBoard(ctx, c, s, typ, ratings)
		return err
	}
	data, err := b.respondBoard(ctx, c, s, typ, ratings)
	if err != nil {
		return err
	}
	b.track(ctx, c, s, typ, data)
	return nil
}

// respondBoard renders s and sends it as the first response.
func (b *Bot) respondBoard(ctx context.Context, c *call, s *persistence.Session, typ discordgo.InteractionResponseType, ratings []render.PlayerRating) (*discordgo.InteractionResponseData, error) {
	data, err := b.render.Board(c.pub, c.labels, s, ratings)
	if err != nil {
		return nil, err
	}
	if err := b.respond(ctx, c, typ, data); err != nil {
		if s.Message != "" {
			// The game changed but its board did not: a sweeper shows it.
			b.owe(ctx, s, s.Version, oweRetry)
		}
		return data, err
	}
	return data, nil
}

// aiToMove returns the seat of the side to move if the game is active and
// an AI plays it.
func aiToMove(s *persistence.Session) (persistence.Seat, bool, error) {
	if s.Status != persistence.StatusActive {
		return persistence.Seat{}, false, nil
	}
	m, err := s.ToMove()
	if err != nil {
		return persistence.Seat{}, false, err
	}
	seat := s.Seat(m)
	return seat, seat.IsAI(), nil
}

// aiMove asks the AI of seat for its move within timeout, thinking under
// load (ai.Options.Load, 0 for the full budget), and plays it. The
// player is built for this move alone (players hold up to tens of MiB of
// search state) with a seed derived from the game's seed and the move
// number, so a game replays exactly. An AI that finds no move in time
// (a level that ignores its deadline would be a bug) falls back to a
// random legal move, so the game never stalls. owe is thinkAndPlay's.
func (b *Bot) aiMove(ctx context.Context, s *persistence.Session, seat persistence.Seat, timeout time.Duration, load float64, owe func() bool) (*persistence.Session, error) {
	board, err := s.Board()
	if err != nil {
		return nil, err
	}
	if board.IsWide() {
		return b.wideAIMove(ctx, s, board.Wide(), seat, timeout, load, owe)
	}
	pos := board.Small()
	opts := ai.Options{
		Seed: seat.AI.Seed + uint64(len(s.Moves)), Depth: seat.AI.Depth, Iterations: seat.AI.Iterations,
		Budget: seat.AI.Budget, Exploration: seat.AI.Exploration, Load: load,
	}
	p, err := b.levels.New(seat.AI.Level, opts)
	if err != nil {
		return nil, fmt.Errorf("bot: AI player of game %s: %w", s.ID, err)
	}
	mctx, cancel := context.WithTimeout(ctx, timeout)
	cell, err := p.Move(mctx, pos)
	cancel()
	if err != nil && ctx.Err() == nil && !errors.Is(err, ai.ErrNoMoves) {
		cell, err = ai.NewRandom(ai.Options{Seed: opts.Seed}).Move(ctx, pos)
	}
	if err != nil {
		return nil, fmt.Errorf("bot: AI move in game %s: %w", s.ID, err)
	}
	if owe != nil && owe() {
		b.owe(ctx, s, s.Version+1, b.aiTimeout(seat)+oweGrace)
	}
	return b.play(ctx, s, "", cell.Row(), cell.Col())
}

// play plays the cell at row and col for by ("" for the computer) on the
// game s as it was loaded, on either engine's board. A conflict where only
// the game's metadata changed since (its message recorded) tries once more
// on the stored game: the move still stands. Moves or a status that
// changed meanwhile keep the conflict.
func (b *Bot) play(ctx context.Context, s *persistence.Session, by string, row, col int) (*persistence.Session, error) {
	next, err := b.store.PlayAt(ctx, s, by, row, col)
	if errors.Is(err, persistence.ErrConflict) {
		if cur, lerr := b.store.Game(ctx, s.ID); lerr == nil && cur.Ply() == s.Ply() && cur.Status == s.Status {
			next, err = b.store.PlayAt(ctx, cur, by, row, col)
		}
	}
	return next, err
}

// finishedGame is the report of a finished session.
func finishedGame(s *persistence.Session) persistence.FinishedGame {
	rules, _ := game.ParseRules(s.Rules) // the session replayed, so they parse
	var start game.Position
	if s.Start != "" {
		start, _ = game.ParsePosition(rules, s.Start)
	}
	player := func(st persistence.Seat) persistence.Player {
		return persistence.Player{User: st.User, AI: st.AI.Level}
	}
	return persistence.FinishedGame{
		ID: string(s.ID), Guild: s.Guild, Rules: rules, Start: start, Moves: s.Moves,
		X: player(s.Players[0]), O: player(s.Players[1]),
		Result: s.Result, End: s.End.String(), Finished: s.Updated, Assisted: s.Assisted,
	}
}

// seatIndex is the index in Session.Players of side m.
func seatIndex(m game.Mark) int {
	if m == game.O {
		return 1
	}
	return 0
}
