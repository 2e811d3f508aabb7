package bot

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/ai/puzzle"
	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/sched"
)

// Keys of the replies to /ttt puzzle.
const (
	// KeyNoPuzzle says no puzzle could be found for a board today.
	KeyNoPuzzle = "error.no_puzzle"
)

// puzzleCorpusGames bounds how many corpus games a day's puzzle is drawn
// from.
const puzzleCorpusGames = 2000

// puzzleTimeout bounds drawing a day's puzzle.
const puzzleTimeout = 10 * time.Second

// judgeTimeout bounds judging one move of a puzzle (a solve; a few
// milliseconds on the preset boards), so the click is answered in time.
const judgeTimeout = time.Second

// puzzleLevel is the level the user plays a puzzle out against.
const puzzleLevel = "perfect"

// dayFormat is how a puzzle's day is written ("2026-11-24", UTC).
const dayFormat = "2006-01-02"

// The route of /ttt puzzle (see routes.go).
func init() {
	routeCommand(command.Path(command.Name, command.SubPuzzle), (*Bot).puzzle, playable)
}

// puzzle starts the day's puzzle on a board: the same position for
// everyone in the server (drawn once per day and board, from the corpus
// first, then self-play, and kept in Redis), played out against perfect.
func (b *Bot) puzzle(ctx context.Context, c *call, r command.PuzzleRequest) error {
	if r.Wide.Valid() {
		return b.widePuzzle(ctx, c, r.Wide)
	}
	if _, err := b.levels.New(puzzleLevel, ai.Options{}); err != nil {
		return &UserError{Key: render.KeyUnavailable, Err: err}
	}
	day := b.now().UTC().Format(dayFormat)
	key := r.Rules.String()
	if err := b.admitGame(c, "puzzle", key, persistence.Seat{AI: persistence.AI{Level: puzzleLevel}}); err != nil {
		return err
	}
	posText, deferred, err := b.dailyPuzzle(ctx, c, day, key, func(ctx context.Context) (string, error) {
		p, err := b.makePuzzle(ctx, c.i.GuildID, day, r.Rules)
		if err != nil {
			return "", err
		}
		return p.Position.String(), nil
	})
	if errors.Is(err, puzzle.ErrNone) || errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		err = &UserError{Key: KeyNoPuzzle, Vars: []string{"rules", b.render.RulesText(c.loc, r.Rules)}, Err: err}
	}
	if err != nil {
		return err // after a deferral, its message says so
	}
	return b.startPuzzle(ctx, c, r.Rules, day, posText, deferred)
}

// dailyPuzzle returns the position of the day's puzzle of the server on
// board key, drawn by draw on a worker of the AI queue (Batch work,
// within puzzleTimeout) by the first request of the day and kept in
// Redis; that request is answered at once (deferred reports it) and the
// board shown when the puzzle is drawn.
func (b *Bot) dailyPuzzle(ctx context.Context, c *call, day, key string, draw func(ctx context.Context) (string, error)) (posText string, deferred bool, err error) {
	posText, err = b.store.DailyPuzzle(ctx, c.i.GuildID, day, key, func() (string, error) {
		if err := b.respond(ctx, c, respDeferred, nil); err != nil {
			return "", err
		}
		deferred = true
		gctx, cancel := context.WithTimeout(ctx, puzzleTimeout)
		defer cancel()
		var pos string
		err := b.work(gctx, sched.Job{Class: sched.Batch, Group: c.i.GuildID, User: "puzzle:" + c.i.GuildID},
			func(ctx context.Context, _ sched.Start) (err error) {
				pos, err = draw(ctx)
				return err
			})
		return pos, err
	})
	return posText, deferred, err
}

// startPuzzle starts the user's attempt at the puzzle posText and shows
// it, as the first response or, after a deferral, as its edit.
func (b *Bot) startPuzzle(ctx context.Context, c *call, rules game.Rules, day, posText string, deferred bool) error {
	start, err := game.ParsePosition(rules, posText)
	if err != nil {
		return fmt.Errorf("bot: stored puzzle of %s %s: %w", day, rules, err)
	}
	return b.startAttempt(ctx, c, rules.String(), start.ToMove(), puzzleLevel, day, posText, deferred)
}

// startAttempt is startPuzzle on any board: the user plays side from
// posText against the computer at level.
func (b *Bot) startAttempt(ctx context.Context, c *call, key string, side game.Mark, level, day, posText string, deferred bool) error {
	st, err := b.settings(ctx, c, c.i.GuildID)
	if err != nil {
		return err
	}
	var players [2]persistence.Seat
	players[seatIndex(side)] = persistence.Seat{User: c.user}
	players[seatIndex(side.Other())] = persistence.Seat{AI: persistence.AI{Level: level, Seed: seedOf(day + key)}}
	s, err := b.store.CreateGame(ctx, c.i.ChannelID, persistence.Session{
		Rules: key, Players: players, Start: posText, Guild: c.i.GuildID, TurnTime: st.TurnTime, Puzzle: day,
	})
	if err != nil {
		return err
	}
	if !deferred {
		return b.showBoard(ctx, c, s, respMessage, nil)
	}
	data, err := b.render.Board(c.pub, c.labels, s, nil)
	if err != nil {
		return err
	}
	// Record the message first (it is the deferral's, already there): a
	// move made the moment the board shows (/ttt move) must find it.
	s = b.track(ctx, c, s, respMessage, data)
	return b.editOriginal(ctx, c, data)
}

// makePuzzle draws the puzzle of a day, a server and a board.
func (b *Bot) makePuzzle(ctx context.Context, guild, day string, rules game.Rules) (puzzle.Puzzle, error) {
	var corpus []puzzle.Game
	batch, err := b.store.ReadCorpus(ctx, rules.String(), "", puzzleCorpusGames)
	if err != nil {
		return puzzle.Puzzle{}, err
	}
	for _, e := range batch.Records {
		_, start, moves, err := e.Record.Replay()
		if err == nil {
			corpus = append(corpus, puzzle.Game{Start: start, Moves: moves})
		}
	}
	return puzzle.Generate(ctx, rules, puzzle.Seed(guild, day, rules), puzzle.Options{Corpus: corpus})
}

// judgePuzzle checks the user's move in a puzzle: a move that gives the
// forced win away ends the attempt at once (as a resignation, so the game
// ends with the computer's win and the attempt counts as failed).
func (b *Bot) judgePuzzle(ctx context.Context, s *persistence.Session, user string) (*persistence.Session, error) {
	board, err := s.Board()
	if err != nil || board.Over() {
		return s, err
	}
	if board.IsWide() {
		return b.judgeWidePuzzle(ctx, s, user)
	}
	pos := board.Small()
	side := s.SideOf(user)
	jctx, cancel := context.WithTimeout(ctx, judgeTimeout)
	defer cancel()
	st, err := puzzle.Judge(jctx, ai.NewSolver(), side, pos)
	if err != nil && ctx.Err() == nil {
		// Out of time to judge: the move stands, and the attempt goes on
		// (it can still fail on a later move, or by losing).
		return s, nil
	}
	if err != nil || st != puzzle.Failed {
		return s, err
	}
	return retry(func() (*persistence.Session, error) { return b.store.Resign(ctx, s.ID, 0, user) })
}

// finishPuzzle counts a finished puzzle attempt: solved when the user's
// side won. Only the first attempt of the day on a board counts.
func (b *Bot) finishPuzzle(ctx context.Context, s *persistence.Session) error {
	user, side := s.Players[0].User, game.X
	if user == "" {
		user, side = s.Players[1].User, game.O
	}
	won := s.Result == game.XWins && side == game.X || s.Result == game.OWins && side == game.O
	switch {
	case s.Result != game.XWins && s.Result != game.OWins && s.Result != game.Draw:
		return nil // ended without a result (a moderator, expiry): no attempt to count
	case won && s.End == persistence.ByTimeout:
		return nil // the computer ran out of time: the bot's failure, not the user's
	}
	_, _, err := b.store.RecordPuzzle(ctx, s.Guild, user, s.Puzzle, s.Rules, render.PuzzleSolved(s, side))
	return err
}
