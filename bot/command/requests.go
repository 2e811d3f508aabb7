package command

import (
	"time"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/game/wide"
	"github.com/tttbot/ttt-bot/persistence"
)

// First says who plays X and moves first (or, from a given position, who
// moves next).
type First uint8

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

// Request is a parsed slash command: one of the *Request types below.
type Request interface{ request() }

// ChallengeRequest is /ttt challenge.
type ChallengeRequest struct {
	// Opponent is the challenged user's ID, or "" for an open challenge.
	Opponent string
	// Rules is the board.
	Rules game.Rules
	// Wide, when valid, is the board instead of Rules: one past game's 8x8.
	Wide wide.Rules
	// First says who plays X: the challenger (FirstMe), the opponent
	// (FirstOther) or chance.
	First First
	// Swap opens the game with a swap (wide boards only): X's player
	// places three stones, then O's player chooses a side.
	Swap bool
}

// RulesKey is the rules notation of the board of a game about to start.
func RulesKey(r game.Rules, w wide.Rules) string {
	if w.Valid() {
		return w.String()
	}
	return r.String()
}

// MoveRequest is /ttt move.
type MoveRequest struct {
	// Cell is the cell as typed ("h8", or "7 7" 0-based): the game's
	// board, which the parser does not know, reads it.
	Cell string
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
	// Wide, when valid, is the board instead of Rules: one past game's 8x8.
	Wide wide.Rules
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
	// Wide, when valid, is the board instead of Rules: one past game's 8x8.
	Wide wide.Rules
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
	// Wide, when valid, is the board instead of Rules: a board past 8x8,
	// whose puzzles are wins by fours.
	Wide wide.Rules
}

// TournamentRequest is one of /ttt-tournament's subcommands.
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
	Format string
	Rules  game.Rules
	// Wide, when valid, is the board instead of Rules (a big preset);
	// its games open with a swap.
	Wide     wide.Rules
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

// MovedRequest is the old path of a command that moved (Moved), sent by a
// client whose list of commands is stale: From is that path, To the
// command's path now.
type MovedRequest struct{ From, To string }

func (ChallengeRequest) request()    {}
func (VsAIRequest) request()         {}
func (AIDuelRequest) request()       {}
func (ResignRequest) request()       {}
func (MoveRequest) request()         {}
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
func (MovedRequest) request()        {}
