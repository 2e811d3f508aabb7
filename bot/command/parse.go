package command

import (
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/settings"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// The choices of the first option. The zero value is FirstRandom, the
// default.
const (
	// FirstRandom leaves it to chance.
	FirstRandom First = iota
	// FirstMe: the invoking user.
	FirstMe
	// FirstOther: the opponent, or the AI.
	FirstOther
)

// The leaderboard scopes.
const (
	// ScopeServer ranks the players of the server the command came from.
	ScopeServer Scope = "server"
	// ScopeGlobal ranks all players.
	ScopeGlobal Scope = "global"
)

// The leaderboards.
const (
	// BoardRating ranks players by rating.
	BoardRating BoardKind = "rating"
	// BoardPuzzles ranks players by daily puzzles solved (per server).
	BoardPuzzles BoardKind = "puzzles"
)

// Bounds of a tournament's start delay and time per move.
const (
	MinTournamentDelay = time.Minute
	MaxTournamentDelay = 7 * 24 * time.Hour
)

// maxUnixTime bounds the Discord timestamps parseStart reads (the year
// 9999), far past any start it accepts.
const maxUnixTime = 253402300799

// ParseContext is what ParseCommand needs besides the option data.
type ParseContext struct {
	// User is the invoking user's ID.
	User string
	// Levels are the AI level names accepted (as given to Commands).
	Levels []string
	// Board is the board of a game whose command names none: the
	// server's default board; the zero Rules means 3x3.
	Board game.Rules
	// Now is when the command was given: options that name a time (a
	// tournament's start) are read against it.
	Now time.Time
}

// board is the default board of pc.
func (pc ParseContext) board() game.Rules {
	if !pc.Board.Valid() {
		return game.Classic()
	}
	return pc.Board
}

// parseStats reads /ttt stats.
func parseStats(in Input) (Request, error) {
	r := StatsRequest{User: in.pc.User}
	if u, ok, err := in.o.user(optUser); err != nil {
		return nil, err
	} else if ok {
		r.User = u
	}
	return r, nil
}

// parseLeaderboard reads /ttt leaderboard.
func parseLeaderboard(in Input) (Request, error) {
	r := LeaderboardRequest{Scope: ScopeServer, Kind: BoardRating}
	if s, ok, err := in.o.choice(optScope, string(ScopeServer), string(ScopeGlobal)); err != nil {
		return nil, err
	} else if ok {
		r.Scope = Scope(s)
	}
	if k, ok, err := in.o.choice(optKind, string(BoardRating), string(BoardPuzzles)); err != nil {
		return nil, err
	} else if ok {
		r.Kind = BoardKind(k)
	}
	return r, nil
}

// parseGameOption reads a command whose one option names a game (replay,
// review) into the request wrap makes of it.
func parseGameOption(wrap func(persistence.GameID) Request) func(Input) (Request, error) {
	return func(in Input) (Request, error) {
		g, err := in.o.game()
		if err != nil {
			return nil, err
		}
		return wrap(g), nil
	}
}

// parsePuzzle reads /ttt puzzle.
func parsePuzzle(in Input) (Request, error) {
	switch b, given, err := in.o.str(optBoard); {
	case err != nil:
		return nil, err
	case !given:
		return PuzzleRequest{Rules: in.pc.board()}, nil
	case settings.IsBigPreset(b):
		br, err := persistence.ParseBoardRules(b)
		if err != nil || !br.IsWide() {
			return nil, optErr(optBoard) // 7x7: the solver's puzzles stop at 5x5
		}
		return PuzzleRequest{Wide: br.Wide}, nil
	default:
		r, known := settings.PresetRules(b)
		if !known {
			return nil, optErr(optBoard)
		}
		return PuzzleRequest{Rules: r}, nil
	}
}

// parseBlock reads /ttt block and /ttt unblock.
func parseBlock(in Input) (Request, error) {
	r := BlockRequest{Unblock: in.sub.Name == SubUnblock}
	var ok bool
	var err error
	if r.User, ok, err = in.o.user(optUser); err == nil && !ok {
		err = optErr(optUser)
	}
	if err == nil && r.User == in.pc.User {
		err = i18n.Err("error.self_block")
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// parseSet reads /ttt-admin set.
func parseSet(in Input) (Request, error) {
	var r SetRequest
	var ok bool
	var err error
	if r.Setting, ok, err = in.o.choice(optSetting, settings.Names()...); err == nil && !ok {
		err = optErr(optSetting)
	}
	if err == nil {
		if r.Value, ok, err = in.o.str(optValue); err == nil && !ok {
			err = optErr(optValue)
		}
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// parseRetrain reads /ttt-admin retrain.
func parseRetrain(in Input) (Request, error) {
	var r RetrainRequest
	var err error
	if r.Rules, err = in.o.rules(); err != nil {
		return nil, err
	}
	if r.Force, _, err = in.o.boolean(optForce); err != nil {
		return nil, err
	}
	return r, nil
}

// parseModel reads /ttt-admin model.
func parseModel(in Input) (Request, error) {
	var r ModelRequest
	var err error
	if r.Rules, err = in.o.rules(); err != nil {
		return nil, err
	}
	if r.Rollback, _, err = in.o.boolean(optRollback); err != nil {
		return nil, err
	}
	return r, nil
}

func parseChallenge(o *options, res *discordgo.ApplicationCommandInteractionDataResolved, pc ParseContext) (Request, error) {
	var r ChallengeRequest
	var err error
	opp, ok, err := o.user(optOpponent)
	if err != nil {
		return nil, err
	}
	if ok {
		if opp == pc.User {
			return nil, i18n.Err("error.self_challenge")
		}
		if res != nil && res.Users[opp] != nil && res.Users[opp].Bot {
			return nil, i18n.Err("error.bot_challenge")
		}
		r.Opponent = opp
	}
	if r.First, err = o.first("opponent"); err != nil {
		return nil, err
	}
	if r.Rules, r.Wide, err = o.playRules(pc.board()); err != nil {
		return nil, err
	}
	if r.Swap, _, err = o.boolean(optSwap); err != nil {
		return nil, err
	}
	if r.Swap && !r.Wide.Valid() {
		return nil, i18n.Err("error.swap_board")
	}
	return r, nil
}

func parseVsAI(o *options, pc ParseContext) (Request, error) {
	var r VsAIRequest
	var err error
	if r.AI.Level, err = o.level(optLevel, pc.Levels); err != nil {
		return nil, err
	}
	boardGiven := o.given(optBoard, optRows, optCols, optK)
	if r.Rules, r.Wide, err = o.playRules(pc.board()); err != nil {
		return nil, err
	}
	if r.First, err = o.first("ai"); err != nil {
		return nil, err
	}
	if r.AI.Seed, r.SeedSet, err = o.seed(); err != nil {
		return nil, err
	}
	if d, ok, err := o.integer(optDepth, 1, MaxDepth); err != nil {
		return nil, err
	} else if ok {
		r.AI.Depth = int(d)
	}
	if n, ok, err := o.integer(optIterations, 1, MaxIterations); err != nil {
		return nil, err
	} else if ok {
		r.AI.Iterations = int(n)
	}
	if ms, ok, err := o.integer(optTimeMS, MinTimeMS, MaxTimeMS); err != nil {
		return nil, err
	} else if ok {
		r.AI.Budget = time.Duration(ms) * time.Millisecond
	}
	if s, ok, err := o.str(optPosition); err != nil {
		return nil, err
	} else if ok && r.Wide.Valid() {
		return nil, i18n.Err("error.start_wide", "rules", r.Wide.String())
	} else if ok {
		if len(s) > maxPositionLen {
			return nil, PositionError(r.Rules, nil)
		}
		if game.LooksLikeRecord(s) {
			return sharedGame(r, s, boardGiven)
		}
		p, err := game.ParsePosition(r.Rules, s)
		if err != nil || p.Over() {
			return nil, PositionError(r.Rules, err)
		}
		r.Start = p.String()
	}
	return r, nil
}

// sharedGame starts r from the last position of a game shared as a
// record line ("3x3k3 b2 a1"), under the line's rules; a board option, if
// given, must name the same rules.
func sharedGame(r VsAIRequest, line string, boardGiven bool) (Request, error) {
	rec, err := game.ParseRecord(line)
	if err != nil {
		e := i18n.Err("error.bad_game_line", "example", "3x3k3 b2 a1 c3")
		e.Err = err
		return nil, e
	}
	switch {
	case boardGiven && !rec.Rules.Equal(r.Rules):
		return nil, i18n.Err("error.game_line_rules", "game", rec.Rules.String(), "board", r.Rules.String())
	case rec.Position().Over():
		return nil, i18n.Err("error.game_line_over")
	}
	r.Rules, r.Start = rec.Rules, rec.Position().String()
	return r, nil
}

// PositionError refuses a position string, explaining the notation for
// rules with an example; cause is why it was refused (nil: too long).
func PositionError(r game.Rules, cause error) *i18n.UserError {
	rows := make([]string, r.Rows())
	for i := range rows {
		rows[i] = strings.Repeat("-", r.Cols())
	}
	rows[0] = "X" + rows[0][1:]
	e := i18n.Err("error.bad_position", "rules", r.String(), "rows", strconv.Itoa(r.Rows()),
		"example", strings.Join(rows, "/"))
	e.Err = cause
	return e
}

func parseAIDuel(o *options, pc ParseContext) (Request, error) {
	var r AIDuelRequest
	var err error
	if r.X.Level, err = o.level(optX, pc.Levels); err != nil {
		return nil, err
	}
	if r.O.Level, err = o.level(optO, pc.Levels); err != nil {
		return nil, err
	}
	if r.Rules, r.Wide, err = o.playRules(pc.board()); err != nil {
		return nil, err
	}
	var seed uint64
	if seed, r.SeedSet, err = o.seed(); err != nil {
		return nil, err
	}
	r.X.Seed, r.O.Seed = seed, seed
	return r, nil
}

func parseHistory(o *options, pc ParseContext) (Request, error) {
	r := HistoryRequest{User: pc.User}
	if u, ok, err := o.user(optUser); err != nil {
		return nil, err
	} else if ok {
		r.User = u
	}
	if o.given(optBoard) {
		rules, err := o.preset(game.Classic())
		if err != nil {
			return nil, err
		}
		r.Rules = rules.String()
	}
	return r, nil
}

// parseMove reads /ttt move: the cell, as typed (the handler reads it on
// the game's board).
func parseMove(in Input) (Request, error) {
	c, ok, err := in.o.str(optCell)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, optErr(optCell)
	}
	return MoveRequest{Cell: strings.TrimSpace(c)}, nil
}
