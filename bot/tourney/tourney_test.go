package tourney_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/tourney"
	"github.com/tttbot/ttt-bot/bot/tourney/tourneytest"
	"github.com/tttbot/ttt-bot/persistence"
)

func entrants(n int) []persistence.Entrant {
	out := make([]persistence.Entrant, n)
	for i := range out {
		out[i] = persistence.Entrant{ID: fmt.Sprint(100 + i), Rating: 1200 + float64(10*i)}
	}
	return out
}

// TestTournamentSwissNine runs the 9-player Swiss of 4 rounds the issue
// names through the state machine: a bye each round, nobody paired twice
// in a round, and the tournament over after round 4.
func TestTournamentSwissNine(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 4))
	tn := &persistence.Tournament{ID: "t", Name: "Nine", Format: command.FormatSwiss, Rounds: 4, Status: persistence.TournamentSignup, Players: entrants(9)}
	now := time.Unix(1_800_000_000, 0)
	if err := tourney.Start(tn, now, rng); err != nil {
		t.Fatal(err)
	}
	if tn.Status != persistence.TournamentRunning || tn.Round != 1 || tn.Rounds != 4 {
		t.Fatalf("after the start: status %d round %d of %d", tn.Status, tn.Round, tn.Rounds)
	}
	for round := 1; round <= 4; round++ {
		seen := map[string]bool{}
		byes := 0
		for _, p := range tn.Games {
			if p.Round != round {
				continue
			}
			for _, id := range []string{p.X, p.O} {
				if id != "" && seen[id] {
					t.Fatalf("round %d pairs %s twice", round, id)
				}
				seen[id] = true
			}
			if p.Bye() {
				byes++
			}
		}
		if len(seen) != 9+1 || byes != 1 { // the bye's empty O counts once
			t.Fatalf("round %d: %d players, %d byes", round, len(seen)-1, byes)
		}
		if step, err := tourney.Advance(tn, rng); err != nil || step != tourney.StepNone {
			t.Fatalf("advance with the round unplayed: %v %v", step, err)
		}
		if n := tourneytest.PlayRound(t, tn, rng, true); n != 4 {
			t.Fatalf("round %d played %d games, want 4", round, n)
		}
		step, err := tourney.Advance(tn, rng)
		if err != nil {
			t.Fatal(err)
		}
		if want := tourney.StepPaired; round == 4 {
			if step != tourney.StepFinished || tn.Status != persistence.TournamentFinished || !tn.Due.IsZero() {
				t.Fatalf("after round 4: step %v status %d", step, tn.Status)
			}
		} else if step != want || tn.Round != round+1 {
			t.Fatalf("after round %d: step %v round %d", round, step, tn.Round)
		}
	}
	st, err := tourney.Standings(tn)
	if err != nil || len(st) != 9 {
		t.Fatalf("standings %v %v", st, err)
	}
	total := 0.0
	for _, s := range st {
		total += s.Points
	}
	if total != 4*4+4 { // 16 games' points and 4 byes
		t.Fatalf("standings hold %v points, want 20", total)
	}
}

// TestTournamentEliminationSix runs a 6-player elimination with draws
// (rematches, coin flips) to its champion: 5 matches decided.
func TestTournamentEliminationSix(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 6))
		tn := &persistence.Tournament{ID: "t", Name: "Six", Format: command.FormatElimination, Status: persistence.TournamentSignup, Players: entrants(6)}
		if err := tourney.Start(tn, time.Unix(0, 0), rng); err != nil {
			t.Fatal(err)
		}
		if tn.Rounds != 3 {
			t.Fatalf("a 6-player bracket plays %d rounds, want 3", tn.Rounds)
		}
		for steps := 0; tn.Status == persistence.TournamentRunning; steps++ {
			if steps > 40 {
				t.Fatalf("seed %d: no champion after 40 steps: %+v", seed, tn.Games)
			}
			tourneytest.PlayRound(t, tn, rng, true)
			if _, err := tourney.Advance(tn, rng); err != nil {
				t.Fatal(err)
			}
		}
		if tn.Status != persistence.TournamentFinished {
			t.Fatalf("seed %d: status %d", seed, tn.Status)
		}
	}
}

func TestTournamentRoundRobinDouble(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tn := &persistence.Tournament{ID: "t", Name: "RR", Format: command.FormatRoundRobin, Double: true, Status: persistence.TournamentSignup, Players: entrants(4)}
	if err := tourney.Start(tn, time.Unix(0, 0), rng); err != nil {
		t.Fatal(err)
	}
	if tn.Rounds != 6 {
		t.Fatalf("a double round robin of 4 plays %d rounds, want 6", tn.Rounds)
	}
	games := 0
	for tn.Status == persistence.TournamentRunning {
		games += tourneytest.PlayRound(t, tn, rng, true)
		if _, err := tourney.Advance(tn, rng); err != nil {
			t.Fatal(err)
		}
	}
	if games != 12 {
		t.Fatalf("%d games, want every pair twice (12)", games)
	}
}

func TestTournamentSignupRefusals(t *testing.T) {
	tn := &persistence.Tournament{ID: "t", Name: "Cup", Format: command.FormatSwiss, Status: persistence.TournamentSignup}
	key := func(err error) string {
		var ue *i18n.UserError
		if errors.As(err, &ue) {
			return ue.Key
		}
		return fmt.Sprint(err)
	}
	if k := key(tourney.Start(tn, time.Unix(0, 0), nil)); k != tourney.KeyTooFew {
		t.Errorf("start with nobody: %s", k)
	}
	if err := tourney.Join(tn, persistence.Entrant{ID: "1"}); err != nil {
		t.Fatal(err)
	}
	if k := key(tourney.Join(tn, persistence.Entrant{ID: "1"})); k != tourney.KeyAlreadyIn {
		t.Errorf("joining twice: %s", k)
	}
	if k := key(tourney.Start(tn, time.Unix(0, 0), nil)); k != tourney.KeyTooFew {
		t.Errorf("start with one player: %s", k)
	}
	if k := key(tourney.Leave(tn, "2")); k != tourney.KeyNotIn {
		t.Errorf("leaving without being in: %s", k)
	}
	if err := tourney.Join(tn, persistence.Entrant{ID: "ai:perfect"}); err != nil {
		t.Fatal(err)
	}
	if err := tourney.Start(tn, time.Unix(0, 0), rand.New(rand.NewPCG(1, 1))); err != nil {
		t.Fatal(err)
	}
	if k := key(tourney.Leave(tn, "1")); k != tourney.KeyStarted {
		t.Errorf("leaving after the start: %s", k)
	}
	if k := key(tourney.Join(tn, persistence.Entrant{ID: "3"})); k != tourney.KeyStarted {
		t.Errorf("joining after the start: %s", k)
	}
	tn.Status = persistence.TournamentCancelled
	if k := key(tourney.Join(tn, persistence.Entrant{ID: "3"})); k != tourney.KeyOver {
		t.Errorf("joining a cancelled one: %s", k)
	}
	full := &persistence.Tournament{Name: "Full", Format: command.FormatSwiss, Status: persistence.TournamentSignup, Players: entrants(command.MaxTournamentPlayers)}
	if k := key(tourney.Join(full, persistence.Entrant{ID: "x"})); k != tourney.KeyFull {
		t.Errorf("joining a full one: %s", k)
	}
}
