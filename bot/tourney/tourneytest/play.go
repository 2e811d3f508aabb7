// Package tourneytest plays tournaments for tests: results drawn from a
// seeded source, recorded as the bot records them.
package tourneytest

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tttbot/ttt-bot/bot/tourney"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// PlayRound gives every pairing without a game one (as the bot's creating
// step would) and finishes it with a result drawn from rng, as the game's
// end would; it returns how many games it played.
func PlayRound(t testing.TB, tn *persistence.Tournament, rng *rand.Rand, draws bool) int {
	t.Helper()
	n := 0
	for i := range tn.Games {
		p := &tn.Games[i]
		if p.Bye() || p.Result != "" {
			continue
		}
		if p.Game == "" {
			p.Game = persistence.GameID(fmt.Sprintf("C.r%dg%d", p.Round, i))
		}
		res := []game.Result{game.XWins, game.OWins, game.Draw}[rng.IntN(3)]
		if !draws && res == game.Draw {
			res = game.XWins
		}
		s := &persistence.Session{ID: p.Game, Status: persistence.StatusFinished, Result: res, End: persistence.ByWin}
		if !tourney.RecordGame(tn, s) {
			t.Fatalf("result of %s not recorded", p.Game)
		}
		if tourney.RecordGame(tn, s) {
			t.Fatalf("result of %s recorded twice", p.Game)
		}
		n++
	}
	return n
}
