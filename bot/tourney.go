package bot

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/tournament"
)

// This file is the life of a tournament as a state machine over its
// stored record (persistence.Tournament), with the pairing engine
// (package tournament) deciding who plays whom. It does no I/O: the caller
// loads the record, applies these steps inside Store.UpdateTournament (so
// that a step runs once however many processes try it), then creates the
// games the record names and posts what changed.

// tournamentKeys of the refusals a tournament step can give.
const (
	KeyTournamentTooFew  = "reply.tournament_too_few"
	KeyTournamentStarted = "reply.tournament_started"
	KeyTournamentOver    = "reply.tournament_over"
	KeyTournamentFull    = "reply.tournament_full"
	KeyTournamentIn      = "reply.tournament_already_in"
	KeyTournamentNotIn   = "reply.tournament_not_in"
)

// engineFormat is the engine's format for a stored one.
func engineFormat(f string) (tournament.Format, error) {
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

// enginePlayers are the record's entrants as the engine sees them.
func enginePlayers(t *persistence.Tournament) []tournament.Player {
	out := make([]tournament.Player, len(t.Players))
	for i, e := range t.Players {
		out[i] = tournament.Player{ID: e.ID, Rating: e.Rating, Withdrawn: e.Withdrawn}
	}
	return out
}

// engineGames are the record's pairings as the engine's games.
func engineGames(t *persistence.Tournament) []tournament.Game {
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

// forfeitResult is the stored result of a pairing lost without playing
// by X (xLost), by O (oLost), or by both (a draw).
func forfeitResult(xLost, oLost bool) string {
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

// joinTournament signs user up: refused once it started, when already in,
// or when full.
func joinTournament(t *persistence.Tournament, e persistence.Entrant) error {
	switch {
	case t.Status.Over():
		return userErr(KeyTournamentOver, "name", t.Name)
	case t.Status != persistence.TournamentSignup:
		return userErr(KeyTournamentStarted, "name", t.Name)
	case slices.ContainsFunc(t.Players, func(p persistence.Entrant) bool { return p.ID == e.ID }):
		return userErr(KeyTournamentIn, "name", t.Name)
	case len(t.Players) >= command.MaxTournamentPlayers:
		return userErr(KeyTournamentFull, "name", t.Name, "count", fmt.Sprint(command.MaxTournamentPlayers))
	}
	t.Players = append(t.Players, e)
	return nil
}

// leaveTournament takes user off the sign-up; once it started, a player
// resigns their games instead.
func leaveTournament(t *persistence.Tournament, user string) error {
	switch {
	case t.Status.Over():
		return userErr(KeyTournamentOver, "name", t.Name)
	case t.Status != persistence.TournamentSignup:
		return userErr(KeyTournamentStarted, "name", t.Name)
	}
	i := slices.IndexFunc(t.Players, func(p persistence.Entrant) bool { return p.ID == user })
	if i < 0 {
		return userErr(KeyTournamentNotIn, "name", t.Name)
	}
	t.Players = slices.Delete(t.Players, i, i+1)
	return nil
}

// startTournament closes the sign-up and pairs round 1. It is refused
// with fewer than command.MinTournamentPlayers, or when it is not in sign-up.
func startTournament(t *persistence.Tournament, now time.Time, rng *rand.Rand) error {
	switch {
	case t.Status.Over():
		return userErr(KeyTournamentOver, "name", t.Name)
	case t.Status != persistence.TournamentSignup:
		return userErr(KeyTournamentStarted, "name", t.Name)
	case len(t.Players) < command.MinTournamentPlayers:
		return userErr(KeyTournamentTooFew, "name", t.Name, "count", fmt.Sprint(len(t.Players)))
	}
	f, err := engineFormat(t.Format)
	if err != nil {
		return err
	}
	def := f.Rounds(len(t.Players), t.Double)
	if f != tournament.Swiss || t.Rounds <= 0 {
		t.Rounds = def
	}
	t.Status, t.Round, t.Due, t.StartAt = persistence.TournamentRunning, 0, now, time.Time{}
	_, err = advanceTournament(t, rng)
	return err
}

// recordTournamentGame writes the result of a finished game into its
// pairing. It reports whether that changed the record (a result is
// written once).
func recordTournamentGame(t *persistence.Tournament, s *persistence.Session) bool {
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

// tournamentStep is what advanceTournament did.
type tournamentStep int

const (
	// stepNone: games are still being played.
	stepNone tournamentStep = iota
	// stepPaired: new games were paired (a round, or elimination matches).
	stepPaired
	// stepFinished: the tournament is over.
	stepFinished
)

// advanceTournament pairs what can be paired now: the next round of a
// Swiss or round-robin once every game of the current one has a result,
// or the elimination games whose players are known; and finishes the
// tournament when there is nothing left to play. New pairings have no
// game yet (the caller creates them).
func advanceTournament(t *persistence.Tournament, rng *rand.Rand) (tournamentStep, error) {
	if t.Status != persistence.TournamentRunning {
		return stepNone, nil
	}
	f, err := engineFormat(t.Format)
	if err != nil {
		return stepNone, err
	}
	players, games := enginePlayers(t), engineGames(t)
	if f == tournament.SingleElimination {
		b, err := tournament.NewBracket(players)
		if err != nil {
			return stepNone, err
		}
		pr, err := b.Play(games, rng)
		if err != nil {
			return stepNone, err
		}
		for _, g := range pr.Flips {
			t.Games = append(t.Games, pairing(g))
		}
		if pr.Champion != "" {
			t.Status, t.Due = persistence.TournamentFinished, time.Time{}
			return stepFinished, nil
		}
		step := stepNone
		if len(pr.Flips) > 0 {
			step = stepPaired
		}
		for _, g := range pr.Next {
			if !slices.ContainsFunc(t.Games, func(p persistence.Pairing) bool {
				return p.Round == g.Round && p.X == g.X && p.O == g.O && p.Result == ""
			}) {
				t.Games = append(t.Games, pairing(g))
				t.Round = max(t.Round, g.Round)
				step = stepPaired
			}
		}
		return step, nil
	}
	for _, p := range t.Games {
		if p.Round == t.Round && p.Result == "" {
			return stepNone, nil // the round is still on
		}
	}
	if t.Round >= t.Rounds {
		t.Status, t.Due = persistence.TournamentFinished, time.Time{}
		return stepFinished, nil
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
		return stepNone, err
	}
	if len(next) == 0 {
		t.Status, t.Due = persistence.TournamentFinished, time.Time{}
		return stepFinished, nil
	}
	t.Round++
	for _, g := range next {
		g.Round = t.Round
		if g.O == "" {
			g.Result = tournament.Bye
		}
		t.Games = append(t.Games, pairing(g))
	}
	return stepPaired, nil
}

// tournamentStandings ranks a Swiss or round-robin tournament's players.
func tournamentStandings(t *persistence.Tournament) ([]tournament.Standing, error) {
	if t.Format == command.FormatElimination {
		return nil, errors.New("bot: an elimination has placings, not standings")
	}
	return tournament.Standings(enginePlayers(t), engineGames(t))
}
