// Package tourney is the life of a tournament on Discord as a state
// machine over its stored record (persistence.Tournament), with the
// pairing engine (package tournament) deciding who plays whom. It does no
// I/O: package bot loads the record, applies these steps inside
// Store.UpdateTournament (so that a step runs once however many processes
// try it), then creates the games the record names and posts what
// changed.
package tourney

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/settings"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/tournament"
)

// Keys of the refusals a tournament step can give.
const (
	KeyTooFew    = "reply.tournament_too_few"
	KeyStarted   = "reply.tournament_started"
	KeyOver      = "reply.tournament_over"
	KeyFull      = "reply.tournament_full"
	KeyAlreadyIn = "reply.tournament_already_in"
	KeyNotIn     = "reply.tournament_not_in"
)

// EngineFormat is the engine's format for a stored one.
func EngineFormat(f string) (tournament.Format, error) {
	switch f {
	case command.FormatSwiss:
		return tournament.Swiss, nil
	case command.FormatElimination:
		return tournament.SingleElimination, nil
	case command.FormatRoundRobin:
		return tournament.RoundRobin, nil
	}
	return 0, fmt.Errorf("bot: tournament format %q", f)
}

// EnginePlayers are the record's entrants as the engine sees them.
func EnginePlayers(t *persistence.Tournament) []tournament.Player {
	out := make([]tournament.Player, len(t.Players))
	for i, e := range t.Players {
		out[i] = tournament.Player{ID: e.ID, Rating: e.Rating, Withdrawn: e.Withdrawn}
	}
	return out
}

// EngineGames are the record's pairings as the engine's games.
func EngineGames(t *persistence.Tournament) []tournament.Game {
	out := make([]tournament.Game, len(t.Games))
	for i, p := range t.Games {
		g := tournament.Game{Round: p.Round, X: p.X, O: p.O, Coin: p.CoinFlip}
		switch {
		case p.Bye():
			g.Result = tournament.Bye
		case p.Result == resultX:
			g.Result = tournament.XWins
		case p.Result == resultO:
			g.Result = tournament.OWins
		case p.Result == resultDraw:
			g.Result = tournament.Draw
		}
		out[i] = g
	}
	return out
}

// The stored results of a pairing.
const (
	resultX    = "x"
	resultO    = "o"
	resultDraw = "draw"
)

// ForfeitResult is the stored result of a pairing lost without playing
// by X (xLost), by O (oLost), or by both (a draw).
func ForfeitResult(xLost, oLost bool) string {
	switch {
	case xLost && oLost:
		return resultDraw
	case xLost:
		return resultO
	}
	return resultX
}

// pairing is the stored form of an engine game (a new one: no result yet,
// except a bye's or a coin flip's).
func pairing(g tournament.Game) persistence.Pairing {
	p := persistence.Pairing{Round: g.Round, X: g.X, O: g.O, CoinFlip: g.Coin}
	switch g.Result {
	case tournament.Bye, tournament.XWins:
		p.Result = resultX
	case tournament.OWins:
		p.Result = resultO
	case tournament.Draw:
		p.Result = resultDraw
	}
	return p
}

// Join signs user up: refused once it started, when already in,
// or when full.
func Join(t *persistence.Tournament, e persistence.Entrant) error {
	switch {
	case t.Status.Over():
		return i18n.Err(KeyOver, "name", t.Name)
	case t.Status != persistence.TournamentSignup:
		return i18n.Err(KeyStarted, "name", t.Name)
	case slices.ContainsFunc(t.Players, func(p persistence.Entrant) bool { return p.ID == e.ID }):
		return i18n.Err(KeyAlreadyIn, "name", t.Name)
	case len(t.Players) >= command.MaxTournamentPlayers:
		return i18n.Err(KeyFull, "name", t.Name, "count", fmt.Sprint(command.MaxTournamentPlayers))
	}
	t.Players = append(t.Players, e)
	return nil
}

// Leave takes user off the sign-up; once it started, a player
// resigns their games instead.
func Leave(t *persistence.Tournament, user string) error {
	switch {
	case t.Status.Over():
		return i18n.Err(KeyOver, "name", t.Name)
	case t.Status != persistence.TournamentSignup:
		return i18n.Err(KeyStarted, "name", t.Name)
	}
	i := slices.IndexFunc(t.Players, func(p persistence.Entrant) bool { return p.ID == user })
	if i < 0 {
		return i18n.Err(KeyNotIn, "name", t.Name)
	}
	t.Players = slices.Delete(t.Players, i, i+1)
	return nil
}

// Start closes the sign-up and pairs round 1. It is refused
// with fewer than command.MinTournamentPlayers, or when it is not in sign-up.
func Start(t *persistence.Tournament, now time.Time, rng *rand.Rand) error {
	switch {
	case t.Status.Over():
		return i18n.Err(KeyOver, "name", t.Name)
	case t.Status != persistence.TournamentSignup:
		return i18n.Err(KeyStarted, "name", t.Name)
	case len(t.Players) < command.MinTournamentPlayers:
		return i18n.Err(KeyTooFew, "name", t.Name, "count", fmt.Sprint(len(t.Players)))
	}
	f, err := EngineFormat(t.Format)
	if err != nil {
		return err
	}
	def := f.Rounds(len(t.Players), t.Double)
	if f != tournament.Swiss || t.Rounds <= 0 {
		t.Rounds = def
	}
	t.Status, t.Round, t.Due, t.StartAt = persistence.TournamentRunning, 0, now, time.Time{}
	_, err = Advance(t, rng)
	return err
}

// RecordGame writes the result of a finished game into its
// pairing. It reports whether that changed the record (a result is
// written once).
func RecordGame(t *persistence.Tournament, s *persistence.Session) bool {
	for i, p := range t.Games {
		if p.Game != s.ID || p.Result != "" || s.Status != persistence.StatusFinished {
			continue
		}
		switch s.Result {
		case game.XWins:
			t.Games[i].Result = resultX
		case game.OWins:
			t.Games[i].Result = resultO
		case game.Draw:
			t.Games[i].Result = resultDraw
		default:
			return false
		}
		t.Games[i].Forfeit = s.End == persistence.ByTimeout
		return true
	}
	return false
}

// Step is what Advance did.
type Step int

const (
	// StepNone: games are still being played.
	StepNone Step = iota
	// StepPaired: new games were paired (a round, or elimination matches).
	StepPaired
	// StepFinished: the tournament is over.
	StepFinished
)

// Advance pairs what can be paired now: the next round of a
// Swiss or round-robin once every game of the current one has a result,
// or the elimination games whose players are known; and finishes the
// tournament when there is nothing left to play. New pairings have no
// game yet (the caller creates them).
func Advance(t *persistence.Tournament, rng *rand.Rand) (Step, error) {
	if t.Status != persistence.TournamentRunning {
		return StepNone, nil
	}
	f, err := EngineFormat(t.Format)
	if err != nil {
		return StepNone, err
	}
	players, games := EnginePlayers(t), EngineGames(t)
	if f == tournament.SingleElimination {
		b, err := tournament.NewBracket(players)
		if err != nil {
			return StepNone, err
		}
		pr, err := b.Play(games, rng)
		if err != nil {
			return StepNone, err
		}
		for _, g := range pr.Flips {
			t.Games = append(t.Games, pairing(g))
		}
		if pr.Champion != "" {
			t.Status, t.Due = persistence.TournamentFinished, time.Time{}
			return StepFinished, nil
		}
		step := StepNone
		if len(pr.Flips) > 0 {
			step = StepPaired
		}
		for _, g := range pr.Next {
			if !slices.ContainsFunc(t.Games, func(p persistence.Pairing) bool {
				return p.Round == g.Round && p.X == g.X && p.O == g.O && p.Result == ""
			}) {
				t.Games = append(t.Games, pairing(g))
				t.Round = max(t.Round, g.Round)
				step = StepPaired
			}
		}
		return step, nil
	}
	for _, p := range t.Games {
		if p.Round == t.Round && p.Result == "" {
			return StepNone, nil // the round is still on
		}
	}
	if t.Round >= t.Rounds {
		t.Status, t.Due = persistence.TournamentFinished, time.Time{}
		return StepFinished, nil
	}
	var next []tournament.Game
	switch f {
	case tournament.Swiss:
		next, err = tournament.PairSwiss(players, games)
	case tournament.RoundRobin:
		var rounds [][]tournament.Game
		rounds, err = tournament.Schedule(players, t.Double)
		if err == nil && t.Round < len(rounds) {
			next = rounds[t.Round]
		}
	}
	if err != nil {
		return StepNone, err
	}
	if len(next) == 0 {
		t.Status, t.Due = persistence.TournamentFinished, time.Time{}
		return StepFinished, nil
	}
	t.Round++
	for _, g := range next {
		g.Round = t.Round
		if g.O == "" {
			g.Result = tournament.Bye
		}
		t.Games = append(t.Games, pairing(g))
	}
	return StepPaired, nil
}

// Standings ranks a Swiss or round-robin tournament's players.
func Standings(t *persistence.Tournament) ([]tournament.Standing, error) {
	if t.Format == command.FormatElimination {
		return nil, errors.New("bot: an elimination has placings, not standings")
	}
	return tournament.Standings(EnginePlayers(t), EngineGames(t))
}

// BusyPatience is how long a tournament game waits for a player who is
// busy in another game in its channel: the tournament's time per move,
// as long as a player who does not move is waited for.
func BusyPatience(t *persistence.Tournament) time.Duration {
	if t.TurnTime > 0 {
		return t.TurnTime
	}
	return settings.DefaultTurnTime
}
