package render

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/tourney"
	"github.com/tttbot/ttt-bot/bot/tourney/tourneytest"
	"github.com/tttbot/ttt-bot/persistence"
)

// playedTournament runs a tournament of n players in format to its end
// with results from a fixed seed; the players' IDs are 18-digit.
func playedTournament(t *testing.T, format string, n int) *persistence.Tournament {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	tn := &persistence.Tournament{ID: "abcdefghjkmn", Guild: "900", Channel: "901", Name: "Friday Cup", Format: format,
		Rules: "3x3k3", TurnTime: 2 * time.Minute, Rated: true, Creator: "111111111111111111",
		Status: persistence.TournamentSignup, Created: fixedNow}
	for i := range n {
		id := fmt.Sprintf("1%017d", i) // 18 digits, like Discord's
		if i == n-1 {
			id = "ai:perfect"
		}
		tn.Players = append(tn.Players, persistence.Entrant{ID: id, Rating: 1500 - 10*float64(i)})
	}
	if err := tourney.Start(tn, fixedNow, rng); err != nil {
		t.Fatal(err)
	}
	for tn.Status == persistence.TournamentRunning {
		tourneytest.PlayRound(t, tn, rng, format != command.FormatElimination)
		if _, err := tourney.Advance(tn, rng); err != nil {
			t.Fatal(err)
		}
	}
	return tn
}

// TestRenderTournamentGolden pins the sign-up (open, then started), a
// round's announcement, the standings and the final message of a 9-player
// Swiss, and the final message and bracket of a 6-player elimination, in
// en-US and some other locales; every message is checked against
// Discord's limits in every locale.
func TestRenderTournamentGolden(t *testing.T) {
	r := testRenderer(t)
	swiss := playedTournament(t, command.FormatSwiss, 9)
	elim := playedTournament(t, command.FormatElimination, 6)
	st, err := tourney.Standings(swiss)
	if err != nil {
		t.Fatal(err)
	}
	signup := *swiss
	signup.Status, signup.Games, signup.Round, signup.Rounds = persistence.TournamentSignup, nil, 0, 0
	signup.StartAt = fixedNow.Add(2 * time.Hour)
	manual := signup
	manual.StartAt, manual.Players = time.Time{}, nil
	for _, loc := range testCatalog(t).Locales() {
		t.Run(string(loc), func(t *testing.T) {
			out := map[string]any{}
			for name, tn := range map[string]*persistence.Tournament{"signup": &signup, "signup-empty": &manual, "signup-started": swiss} {
				d, err := r.TournamentSignup(loc, tn)
				if err != nil {
					t.Fatal(err)
				}
				out[name] = checked(t, d)
			}
			out["round"] = checked(t, r.TournamentRound(loc, swiss, 2))
			out["standings"] = checked(t, r.TournamentStandings(loc, swiss, 4, st))
			for name, tn := range map[string]*persistence.Tournament{"final-swiss": swiss, "final-elimination": elim} {
				var tst = st
				if tn == elim {
					tst = nil
				}
				podium, err := TournamentPodium(tn, tst)
				if err != nil || len(podium) != 3 {
					t.Fatalf("podium %v %v", podium, err)
				}
				d := checked(t, r.TournamentFinal(loc, tn, podium, nil))
				out[name] = d
			}
			for name, tn := range map[string]persistence.Tournament{"created": signup, "created-manual": manual} {
				tn.Message = "333333333333333333"
				d := checked(t, r.TournamentCreated(loc, &tn))
				if d.Flags&discordgo.MessageFlagsEphemeral == 0 {
					t.Errorf("%s: the answer to create is public", name)
				}
				out[name] = d
			}
			out["status"] = checked(t, r.TournamentStatus(loc, []*persistence.Tournament{&signup, swiss, elim}))
			forfeit := swiss.Games[len(swiss.Games)-2]
			forfeit.BusyForfeit, forfeit.Notice = forfeit.O, true
			out["busy-forfeit"] = checked(t, r.TournamentBusyForfeit(loc, swiss, forfeit))
			got := wireJSON(t, out)
			if bytes.Contains(got, []byte("[[")) {
				t.Errorf("a text is missing:\n%s", got)
			}
			if slices.Contains(goldenLocales, loc) || loc == discordgo.German || loc == discordgo.Polish || loc == discordgo.Japanese {
				goldenFile(t, "tournament."+string(loc)+".json", got)
			}
		})
	}
	for name, tn := range map[string]*persistence.Tournament{"swiss": swiss, "elimination": elim} {
		png, err := TournamentPicture(tn, st)
		if err != nil {
			t.Fatalf("%s picture: %v", name, err)
		}
		path := filepath.Join("testdata", "tournament-"+name+".png")
		if updating() {
			if err := os.WriteFile(path, png, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(png, want) {
			t.Errorf("%s differs from the golden picture (run go test -update to accept): %v", path, err)
		}
	}
}

// TestRenderTournament64 renders a finished 64-player Swiss and
// elimination in every locale: the standings, the final message and the
// status stay within Discord's limits (the longest list of players).
func TestRenderTournament64(t *testing.T) {
	r := testRenderer(t)
	swiss := playedTournament(t, command.FormatSwiss, 64)
	elim := playedTournament(t, command.FormatElimination, 64)
	st, err := tourney.Standings(swiss)
	if err != nil {
		t.Fatal(err)
	}
	for _, loc := range testCatalog(t).Locales() {
		checked(t, r.TournamentStandings(loc, swiss, swiss.Round, st))
		for _, tn := range []*persistence.Tournament{swiss, elim} {
			podium, err := TournamentPodium(tn, st)
			if err != nil {
				t.Fatal(err)
			}
			d := checked(t, r.TournamentFinal(loc, tn, podium, nil))
			if len(d.Embeds) != 1 || !strings.Contains(d.Embeds[0].Description, "#64 ") {
				t.Errorf("%s: the legend does not reach #64", string(loc))
			}
		}
		signup := *swiss
		signup.Status = persistence.TournamentSignup
		d, err := r.TournamentSignup(loc, &signup)
		if err != nil {
			t.Fatal(err)
		}
		checked(t, d)
	}
}

func TestHalfPoints(t *testing.T) {
	for p, want := range map[float64]string{0: "0", 0.5: "½", 1: "1", 3.5: "3½", 10: "10"} {
		if got := halfPoints(p); got != want {
			t.Errorf("halfPoints(%v) = %q, want %q", p, got, want)
		}
	}
}
