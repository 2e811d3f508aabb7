package bot

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// First says who plays X and moves first (or, from a given position, who
// moves next).
type First uint8

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

// value returns the choice value; other is "opponent" or "ai".
func (f First) value(other string) string {
	switch f {
	case FirstMe:
		return "me"
	case FirstOther:
		return other
	}
	return "random"
}

// Scope is the leaderboard's reach.
type Scope string

// The leaderboard scopes.
const (
	// ScopeServer ranks the players of the server the command came from.
	ScopeServer Scope = "server"
	// ScopeGlobal ranks all players.
	ScopeGlobal Scope = "global"
)

// Request is a parsed slash command: one of the *Request types below.
type Request interface{ request() }

// ChallengeRequest is /ttt challenge.
type ChallengeRequest struct {
	// Opponent is the challenged user's ID, or "" for an open challenge.
	Opponent string
	// Rules is the board.
	Rules game.Rules
	// First says who plays X: the challenger (FirstMe), the opponent
	// (FirstOther) or chance.
	First First
}

// VsAIRequest is /ttt vs-ai.
type VsAIRequest struct {
	// AI is the computer player: level and advanced options. Its Seed is
	// meaningful only when SeedSet.
	AI persistence.AI
	// SeedSet reports whether the user gave a seed; if not, the handler
	// picks one (and may show it so the game can be replayed).
	SeedSet bool
	// Rules is the board.
	Rules game.Rules
	// First says who moves first from Start: the user (FirstMe), the AI
	// (FirstOther) or chance.
	First First
	// Start is the starting position in canonical notation, or "" for the
	// empty board.
	Start string
}

// AIDuelRequest is /ttt ai-duel.
type AIDuelRequest struct {
	// X and O are the two computer players; their seeds are meaningful
	// only when SeedSet (both get the given seed).
	X, O persistence.AI
	// SeedSet reports whether the user gave a seed.
	SeedSet bool
	// Rules is the board.
	Rules game.Rules
}

// ResignRequest is /ttt resign.
type ResignRequest struct{}

// StatsRequest is /ttt stats.
type StatsRequest struct {
	// User is whose stats to show: the named user, else the invoker.
	User string
}

// LeaderboardRequest is /ttt leaderboard.
type LeaderboardRequest struct {
	// Scope is ScopeServer (the default) or ScopeGlobal.
	Scope Scope
	// Kind is BoardRating (the default) or BoardPuzzles.
	Kind BoardKind
}

// BoardKind is what a leaderboard ranks.
type BoardKind string

// The leaderboards.
const (
	// BoardRating ranks players by rating.
	BoardRating BoardKind = "rating"
	// BoardPuzzles ranks players by daily puzzles solved (per server).
	BoardPuzzles BoardKind = "puzzles"
)

// HistoryRequest is /ttt history.
type HistoryRequest struct {
	// User is whose games to list: the named user, else the invoker.
	User string
	// Rules is the board to list, canonical ("5x5k4"); "" for every board.
	Rules string
}

// ReplayRequest is /ttt replay.
type ReplayRequest struct {
	// Game is the finished game to replay.
	Game persistence.GameID
}

// ReviewRequest is /ttt review.
type ReviewRequest struct {
	// Game is the finished game to review.
	Game persistence.GameID
}

// HintRequest is /ttt hint: the best moves in the user's game against
// the computer in this channel.
type HintRequest struct{}

// PrivacyRequest is /ttt privacy: what the bot keeps, and for how long.
type PrivacyRequest struct{}

// ForgetMeRequest is /ttt forget-me: delete the user's data, after a
// confirmation.
type ForgetMeRequest struct{}

// BlockRequest is /ttt block and /ttt unblock: refuse, or again accept,
// every challenge from one user.
type BlockRequest struct {
	// User is the user to block or unblock.
	User string
	// Unblock is set for /ttt unblock.
	Unblock bool
}

// SettingsRequest is /ttt-admin settings: the server's settings.
type SettingsRequest struct{}

// SetRequest is /ttt-admin set: change one setting of the server.
type SetRequest struct {
	// Setting is the setting's name (one of SettingNames).
	Setting string
	// Value is the new value as typed; the setting parses it.
	Value string
}

// LogRequest is /ttt-admin log: the last changes and moderator actions.
type LogRequest struct{}

// ForgetServerRequest is /ttt-admin forget-server: delete the server's
// data, after a confirmation.
type ForgetServerRequest struct{}

// PuzzleRequest is /ttt puzzle.
type PuzzleRequest struct {
	// Rules is the board of the day's puzzle (default 3x3).
	Rules game.Rules
}

// TournamentRequest is one of /ttt tournament's subcommands.
type TournamentRequest struct {
	// Action is the subcommand: TournamentCreate, TournamentStart, ...
	Action string
	// Name is the tournament: the new one's name (create), else the one
	// named by the tournament option ("" for the server's only one).
	Name string
	// The settings of a new tournament (create): Format is FormatSwiss,
	// FormatElimination or FormatRoundRobin; Rounds 0 is the format's
	// default; StartAt zero is when started by hand; TurnTime 0 the
	// server's; Rated unset follows the server's setting.
	Format   string
	Rules    game.Rules
	Rounds   int
	StartAt  time.Time
	TurnTime time.Duration
	Rated    *bool
	// Double has every pair of a round robin play twice, X and O swapped.
	Double bool
	// Level is the computer level to sign up (add-ai).
	Level string
}

func (TournamentRequest) request() {}

// Bounds of a tournament's start delay and time per move.
const (
	MinTournamentDelay = time.Minute
	MaxTournamentDelay = 7 * 24 * time.Hour
)

// parseTournament reads /ttt tournament <sub>.
func parseTournament(sub *discordgo.ApplicationCommandInteractionDataOption, pc ParseContext) (Request, error) {
	o, err := collect(sub.Options)
	if err != nil {
		return nil, err
	}
	r := TournamentRequest{Action: sub.Name}
	name := func(opt string, required bool) error {
		s, ok, err := o.str(opt)
		s = strings.TrimSpace(s)
		switch {
		case err != nil:
			return err
		case ok && (s == "" || utf8.RuneCountInString(s) > MaxTournamentName):
			return userErr("error.bad_tournament_name", "max", strconv.Itoa(MaxTournamentName))
		case !ok && required:
			return optErr(opt)
		}
		r.Name = s
		return nil
	}
	switch sub.Name {
	case TournamentCreate:
		if err := name(optName, true); err != nil {
			return nil, err
		}
		var ok bool
		if r.Format, ok, err = o.choice(optFormat, FormatSwiss, FormatElimination, FormatRoundRobin); err != nil {
			return nil, err
		} else if !ok {
			return nil, optErr(optFormat)
		}
		if r.Rules, err = o.preset(pc.board()); err != nil {
			return nil, err
		}
		if n, ok, err := o.integer(optRounds, 1, MaxSwissRounds); err != nil {
			return nil, userErr("error.bad_rounds", "max", strconv.Itoa(MaxSwissRounds))
		} else if ok {
			r.Rounds = int(n)
		}
		if s, ok, err := o.str(optStart); err != nil {
			return nil, err
		} else if ok {
			if r.StartAt, err = parseStart(s, pc.Now); err != nil {
				return nil, &UserError{Key: "error.bad_start", Option: optStart, Err: err}
			}
		}
		if s, ok, err := o.str(optTurnTime); err != nil {
			return nil, err
		} else if ok {
			d, err := parseDelay(s)
			if err != nil || d < MinTurnTime || d > MaxTurnTime || d%time.Second != 0 {
				return nil, settingErr(SettingTurnTime)
			}
			r.TurnTime = d
		}
		if v, ok, err := o.boolean(optRated); err != nil {
			return nil, err
		} else if ok {
			r.Rated = &v
		}
		if r.Double, _, err = o.boolean(optDouble); err != nil {
			return nil, err
		}
	case TournamentAddAI:
		if r.Level, err = o.level(optLevel, pc.Levels); err != nil {
			return nil, err
		}
		if err := name(optTournament, false); err != nil {
			return nil, err
		}
	case TournamentStart, TournamentStandings, TournamentLeave, TournamentCancel:
		if err := name(optTournament, false); err != nil {
			return nil, err
		}
	case TournamentStatus:
	default:
		return nil, userErr("error.unknown_command")
	}
	if unused := o.unusedNames(); len(unused) > 0 {
		return nil, optErr(unused[0])
	}
	return r, nil
}

// parseStart reads when a tournament's sign-up closes, given at now: a
// delay (parseDelay), a Discord timestamp ("<t:1796148000>", any style
// letter), or a date and time with its zone (RFC 3339, the seconds
// optional, a space allowed for the T: "2026-12-01 19:00+01:00"); in
// MinTournamentDelay to MaxTournamentDelay from now.
func parseStart(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	var at time.Time
	switch {
	case strings.HasPrefix(s, "<t:") && strings.HasSuffix(s, ">"):
		unix, _, _ := strings.Cut(s[len("<t:"):len(s)-1], ":")
		n, err := strconv.ParseInt(unix, 10, 64)
		if err != nil || strings.HasPrefix(unix, "+") || n < 0 || n > maxUnixTime {
			return time.Time{}, fmt.Errorf("bot: start %q: not a Discord timestamp", s)
		}
		at = time.Unix(n, 0)
	case len(s) >= len("2006-01-02T15:04Z") && s[4] == '-':
		// Upper case by bytes: strings.ToUpper may shorten a string ("ı"
		// is two bytes, "I" one), and a date is ASCII anyway.
		t := []byte(s)
		for i, c := range t {
			if 'a' <= c && c <= 'z' {
				t[i] = c - 'a' + 'A'
			}
		}
		if t[10] == ' ' {
			t[10] = 'T'
		}
		var err error
		if at, err = time.Parse("2006-01-02T15:04Z07:00", string(t)); err != nil {
			if at, err = time.Parse(time.RFC3339, string(t)); err != nil {
				return time.Time{}, fmt.Errorf("bot: start %q: not a date and time with its zone", s)
			}
		}
	default:
		d, err := parseDelay(s)
		if err != nil {
			return time.Time{}, err
		}
		at = now.Add(d)
	}
	if d := at.Sub(now); d < MinTournamentDelay || d > MaxTournamentDelay {
		return time.Time{}, fmt.Errorf("bot: start %q is %v from now, not within %v to %v", s, d.Round(time.Second), MinTournamentDelay, MaxTournamentDelay)
	}
	return at.UTC(), nil
}

// maxUnixTime bounds the Discord timestamps parseStart reads (the year
// 9999), far past any start it accepts.
const maxUnixTime = 253402300799

// parseDelay reads a duration as /ttt tournament takes it: Go's units and
// days, "30m", "2h", "1d", "1h30m".
func parseDelay(s string) (time.Duration, error) {
	s = strings.ToLower(strings.ReplaceAll(s, " ", ""))
	var days time.Duration
	if i := strings.IndexByte(s, 'd'); i >= 0 {
		n, err := strconv.Atoi(s[:i])
		if err != nil || n < 0 || n > 30 {
			return 0, fmt.Errorf("bot: delay %q", s)
		}
		days, s = time.Duration(n)*24*time.Hour, s[i+1:]
		if s == "" {
			return days, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("bot: delay %q", s)
	}
	return days + d, nil
}

// HelpRequest is /ttt help.
type HelpRequest struct{}

// RetrainRequest is /ttt-admin retrain.
type RetrainRequest struct {
	// Rules is the board whose network to retrain: the board option, else
	// 3x3 (one board per run: the job holds a lock shared by all boards).
	Rules game.Rules
	// Force runs the job even when the board has fewer new games since
	// the last retrain than the job's minimum (retrain.Request.Force).
	Force bool
}

// ModelRequest is /ttt-admin model.
type ModelRequest struct {
	// Rules is the board whose network to show (default 3x3).
	Rules game.Rules
	// Rollback asks to make the previous version live again.
	Rollback bool
}

// EndGameRequest is /ttt-admin end-game.
type EndGameRequest struct{}

func (ChallengeRequest) request()    {}
func (VsAIRequest) request()         {}
func (AIDuelRequest) request()       {}
func (ResignRequest) request()       {}
func (StatsRequest) request()        {}
func (LeaderboardRequest) request()  {}
func (HelpRequest) request()         {}
func (RetrainRequest) request()      {}
func (ModelRequest) request()        {}
func (EndGameRequest) request()      {}
func (HistoryRequest) request()      {}
func (ReplayRequest) request()       {}
func (ReviewRequest) request()       {}
func (HintRequest) request()         {}
func (PuzzleRequest) request()       {}
func (PrivacyRequest) request()      {}
func (ForgetMeRequest) request()     {}
func (BlockRequest) request()        {}
func (SettingsRequest) request()     {}
func (SetRequest) request()          {}
func (LogRequest) request()          {}
func (ForgetServerRequest) request() {}

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

// ParseCommand turns the data of a slash-command interaction into a typed
// Request. Bad, missing, duplicated or out-of-range options fail with a
// *UserError that ErrorText shows in the user's locale; Discord's
// client checks most of them already, so these mostly catch forged
// requests and combinations the client cannot check (challenging yourself
// or a bot, board and custom size together, a bad position). It never
// panics, whatever the data.
func ParseCommand(data *discordgo.ApplicationCommandInteractionData, pc ParseContext) (Request, error) {
	_, req, err := parseRoute(data, pc)
	return req, err
}

// parseRoute finds the route of a command (see routes.go) and parses its
// options with the route's parser: it returns the path and the request.
func parseRoute(data *discordgo.ApplicationCommandInteractionData, pc ParseContext) (string, Request, error) {
	unknown := userErr("error.unknown_command")
	if data == nil || (data.Name != CommandName && data.Name != AdminCommandName) ||
		len(data.Options) != 1 || data.Options[0] == nil {
		return "", nil, unknown
	}
	sub := data.Options[0]
	path := commandPath(data.Name, sub.Name)
	switch {
	case sub.Type == discordgo.ApplicationCommandOptionSubCommandGroup:
		if len(sub.Options) != 1 || sub.Options[0] == nil || sub.Options[0].Type != discordgo.ApplicationCommandOptionSubCommand {
			return "", nil, unknown
		}
		sub = sub.Options[0]
		path = commandPath(path, sub.Name)
	case sub.Type != discordgo.ApplicationCommandOptionSubCommand:
		return "", nil, unknown
	}
	route, ok := commandRoutes[path]
	if !ok {
		return "", nil, unknown
	}
	in := commandInput{sub: sub, resolved: data.Resolved, pc: pc}
	if strings.Count(path, "/") == 1 {
		o, err := collect(sub.Options)
		if err != nil {
			return "", nil, err
		}
		in.o = o
	}
	req, err := route.parse(in)
	if err != nil {
		return "", nil, err
	}
	if in.o != nil && len(in.o.unused) > 0 {
		return "", nil, optErr(in.o.unusedNames()[0])
	}
	return path, req, nil
}

// parseStats reads /ttt stats.
func parseStats(in commandInput) (Request, error) {
	r := StatsRequest{User: in.pc.User}
	if u, ok, err := in.o.user(optUser); err != nil {
		return nil, err
	} else if ok {
		r.User = u
	}
	return r, nil
}

// parseLeaderboard reads /ttt leaderboard.
func parseLeaderboard(in commandInput) (Request, error) {
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
func parseGameOption(wrap func(persistence.GameID) Request) func(commandInput) (Request, error) {
	return func(in commandInput) (Request, error) {
		g, err := in.o.game()
		if err != nil {
			return nil, err
		}
		return wrap(g), nil
	}
}

// parsePuzzle reads /ttt puzzle.
func parsePuzzle(in commandInput) (Request, error) {
	r, err := in.o.preset(in.pc.board())
	if err != nil {
		return nil, err
	}
	return PuzzleRequest{Rules: r}, nil
}

// parseBlock reads /ttt block and /ttt unblock.
func parseBlock(in commandInput) (Request, error) {
	r := BlockRequest{Unblock: in.sub.Name == SubUnblock}
	var ok bool
	var err error
	if r.User, ok, err = in.o.user(optUser); err == nil && !ok {
		err = optErr(optUser)
	}
	if err == nil && r.User == in.pc.User {
		err = userErr("error.self_block")
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// parseSet reads /ttt-admin set.
func parseSet(in commandInput) (Request, error) {
	var r SetRequest
	var ok bool
	var err error
	if r.Setting, ok, err = in.o.choice(optSetting, SettingNames()...); err == nil && !ok {
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
func parseRetrain(in commandInput) (Request, error) {
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
func parseModel(in commandInput) (Request, error) {
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
			return nil, userErr("error.self_challenge")
		}
		if res != nil && res.Users[opp] != nil && res.Users[opp].Bot {
			return nil, userErr("error.bot_challenge")
		}
		r.Opponent = opp
	}
	if r.First, err = o.first("opponent"); err != nil {
		return nil, err
	}
	if r.Rules, err = o.rulesOr(pc.board()); err != nil {
		return nil, err
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
	if r.Rules, err = o.rulesOr(pc.board()); err != nil {
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
	} else if ok {
		if len(s) > maxPositionLen {
			return nil, positionErr(r.Rules, nil)
		}
		if game.LooksLikeRecord(s) {
			return sharedGame(r, s, boardGiven)
		}
		p, err := game.ParsePosition(r.Rules, s)
		if err != nil || p.Over() {
			return nil, positionErr(r.Rules, err)
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
		e := userErr("error.bad_game_line", "example", "3x3k3 b2 a1 c3")
		e.Err = err
		return nil, e
	}
	switch {
	case boardGiven && !rec.Rules.Equal(r.Rules):
		return nil, userErr("error.game_line_rules", "game", rec.Rules.String(), "board", r.Rules.String())
	case rec.Rules.Rows() > MaxActionRows || rec.Rules.Cols() > MaxRowButtons:
		return nil, userErr("error.board_too_big", "rows", strconv.Itoa(rec.Rules.Rows()), "cols", strconv.Itoa(rec.Rules.Cols()))
	case rec.Position().Over():
		return nil, userErr("error.game_line_over")
	}
	r.Rules, r.Start = rec.Rules, rec.Position().String()
	return r, nil
}

// positionErr explains the position notation for rules.
func positionErr(r game.Rules, cause error) *UserError {
	rows := make([]string, r.Rows())
	for i := range rows {
		rows[i] = strings.Repeat("-", r.Cols())
	}
	rows[0] = "X" + rows[0][1:]
	e := userErr("error.bad_position", "rules", r.String(), "rows", strconv.Itoa(r.Rows()),
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
	if r.Rules, err = o.rulesOr(pc.board()); err != nil {
		return nil, err
	}
	var seed uint64
	if seed, r.SeedSet, err = o.seed(); err != nil {
		return nil, err
	}
	r.X.Seed, r.O.Seed = seed, seed
	return r, nil
}

// options are a subcommand's options by name; each accessor consumes
// the option it reads, so leftovers are options the subcommand lacks.
type options struct {
	unused map[string]*discordgo.ApplicationCommandInteractionDataOption
}

func collect(in []*discordgo.ApplicationCommandInteractionDataOption) (*options, error) {
	o := &options{unused: map[string]*discordgo.ApplicationCommandInteractionDataOption{}}
	for _, opt := range in {
		if opt == nil || opt.Name == "" {
			return nil, userErr("error.unknown_command")
		}
		if _, dup := o.unused[opt.Name]; dup || opt.Value == nil {
			return nil, optErr(opt.Name)
		}
		o.unused[opt.Name] = opt
	}
	return o, nil
}

func (o *options) unusedNames() []string {
	var out []string
	for k := range o.unused {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// take removes and returns the option name if it is present with type t.
func (o *options) take(name string, t discordgo.ApplicationCommandOptionType) (any, bool, error) {
	opt, ok := o.unused[name]
	if !ok {
		return nil, false, nil
	}
	delete(o.unused, name)
	if opt.Type != t {
		return nil, false, optErr(name)
	}
	return opt.Value, true, nil
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

// preset reads the board option, which only takes the preset boards
// (default def).
func (o *options) preset(def game.Rules) (game.Rules, error) {
	b, ok, err := o.str(optBoard)
	if err != nil || !ok {
		return def, err
	}
	rules, known := presetRules(b)
	if !known {
		return game.Rules{}, optErr(optBoard)
	}
	return rules, nil
}

// game reads the game option: a game ID as the bot shows it
// ("<channel>.<suffix>").
func (o *options) game() (persistence.GameID, error) {
	s, ok, err := o.str(optGame)
	if err != nil {
		return "", err
	}
	s = strings.Trim(strings.TrimSpace(s), "`")
	if !ok || !customid.ValidGameID(s) || !customid.Snowflake(persistence.GameID(s).Channel()) {
		return "", &UserError{Key: KeyBadGameID, Err: fmt.Errorf("bot: game option %q", s)}
	}
	return persistence.GameID(s), nil
}

// given reports whether any of the named options is present and not yet
// read.
func (o *options) given(names ...string) bool {
	for _, n := range names {
		if _, ok := o.unused[n]; ok {
			return true
		}
	}
	return false
}

func (o *options) str(name string) (string, bool, error) {
	v, ok, err := o.take(name, discordgo.ApplicationCommandOptionString)
	if !ok || err != nil {
		return "", ok, err
	}
	s, isStr := v.(string)
	if !isStr {
		return "", false, optErr(name)
	}
	return s, true, nil
}

func (o *options) boolean(name string) (bool, bool, error) {
	v, ok, err := o.take(name, discordgo.ApplicationCommandOptionBoolean)
	if !ok || err != nil {
		return false, ok, err
	}
	b, isBool := v.(bool)
	if !isBool {
		return false, false, optErr(name)
	}
	return b, true, nil
}

func (o *options) user(name string) (string, bool, error) {
	v, ok, err := o.take(name, discordgo.ApplicationCommandOptionUser)
	if !ok || err != nil {
		return "", ok, err
	}
	s, isStr := v.(string)
	if !isStr || !customid.Snowflake(s) {
		return "", false, optErr(name)
	}
	return s, true, nil
}

// integer reads an integer option within [lo, hi]. Discord sends numbers
// as JSON numbers (float64 after decoding); Go-built data may use ints.
func (o *options) integer(name string, lo, hi int64) (int64, bool, error) {
	v, ok, err := o.take(name, discordgo.ApplicationCommandOptionInteger)
	if !ok || err != nil {
		return 0, ok, err
	}
	var n int64
	switch x := v.(type) {
	case float64:
		if x != math.Trunc(x) || math.IsInf(x, 0) || x < -MaxSeed || x > MaxSeed {
			return 0, false, optErr(name)
		}
		n = int64(x)
	case int:
		n = int64(x)
	case int64:
		n = x
	case json.Number:
		if n, err = x.Int64(); err != nil {
			return 0, false, optErr(name)
		}
	default:
		return 0, false, optErr(name)
	}
	if n < lo || n > hi {
		e := userErr("error.out_of_range", "min", strconv.FormatInt(lo, 10), "max", strconv.FormatInt(hi, 10))
		e.Option = name
		return 0, false, e
	}
	return n, true, nil
}

func (o *options) choice(name string, allowed ...string) (string, bool, error) {
	s, ok, err := o.str(name)
	if !ok || err != nil {
		return "", ok, err
	}
	if !slices.Contains(allowed, s) {
		return "", false, optErr(name)
	}
	return s, true, nil
}

func (o *options) first(other string) (First, error) {
	s, ok, err := o.choice(optFirst, "me", other, "random")
	if !ok || err != nil {
		return FirstRandom, err
	}
	switch s {
	case "me":
		return FirstMe, nil
	case other:
		return FirstOther, nil
	}
	return FirstRandom, nil
}

func (o *options) level(name string, levels []string) (string, error) {
	s, ok, err := o.str(name)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", optErr(name)
	}
	if !slices.Contains(levels, s) {
		return "", userErr("error.unknown_level", "level", s, "levels", strings.Join(levels, ", "))
	}
	return s, nil
}

func (o *options) seed() (uint64, bool, error) {
	n, ok, err := o.integer(optSeed, 0, MaxSeed)
	return uint64(n), ok, err
}

// rules reads the board: a preset, or custom rows, cols and k, or 3x3 by
// default. Boards must fit in buttons.
func (o *options) rules() (game.Rules, error) { return o.rulesOr(game.Classic()) }

// rulesOr is rules with def as the board when none is given.
func (o *options) rulesOr(def game.Rules) (game.Rules, error) {
	board, hasBoard, err := o.str(optBoard)
	if err != nil {
		return game.Rules{}, err
	}
	var dims [3]int64
	var has [3]bool
	for i, name := range []string{optRows, optCols, optK} {
		// Range is checked below with clearer messages than out_of_range.
		if dims[i], has[i], err = o.integer(name, math.MinInt32, math.MaxInt32); err != nil {
			return game.Rules{}, err
		}
	}
	custom := has[0] || has[1] || has[2]
	switch {
	case hasBoard && custom:
		return game.Rules{}, userErr("error.board_conflict")
	case hasBoard:
		r, ok := presetRules(board)
		if !ok {
			return game.Rules{}, optErr(optBoard)
		}
		return r, nil
	case !custom:
		return def, nil
	}
	rows, cols := dims[0], dims[1]
	switch {
	case !has[0] && !has[1]:
		rows, cols = 3, 3
	case !has[0]:
		rows = cols
	case !has[1]:
		cols = rows
	}
	if rows > MaxActionRows || cols > MaxRowButtons {
		return game.Rules{}, userErr("error.board_too_big", "rows", strconv.FormatInt(rows, 10), "cols", strconv.FormatInt(cols, 10))
	}
	if rows < game.MinSize || cols < game.MinSize {
		return game.Rules{}, userErr("error.board_too_small")
	}
	k := dims[2]
	if !has[2] {
		k = min(rows, cols)
	}
	r, err := game.NewRules(int(rows), int(cols), int(k))
	if err != nil {
		e := userErr("error.bad_k", "rows", strconv.FormatInt(rows, 10), "cols", strconv.FormatInt(cols, 10),
			"max", strconv.FormatInt(max(rows, cols), 10))
		e.Err = err
		return game.Rules{}, e
	}
	return r, nil
}

// optErr reports an option whose value cannot be read.
func optErr(name string) *UserError {
	e := userErr("error.bad_option")
	e.Option = name
	return e
}
