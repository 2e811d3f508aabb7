package tournament

import (
	"cmp"
	"slices"
)

// Standing is one player's line in the standings of a Swiss or a round
// robin.
type Standing struct {
	// Rank is the player's position, from 1; no two players share one.
	Rank int
	// Player is the player ranked.
	Player Player
	// Points are the points scored: 1 a win or bye, 1/2 a draw.
	Points float64
	// Buchholz is the sum of the points of every opponent met.
	Buchholz float64
	// SonnebornBerger is the sum of the points of each opponent beaten,
	// plus half the points of each opponent drawn.
	SonnebornBerger float64
	// Wins, Draws and Losses count the games played (forfeits included,
	// byes not).
	Wins, Draws, Losses int
	// Byes counts the rounds the player had a bye.
	Byes int
	// X and O count the games played with each colour.
	X, O int
}

// Standings ranks the players of a Swiss or a round robin on the finished
// games of the record (pending games are left out): by points, Buchholz,
// Sonneborn-Berger, rating and ID, as the package comment details. Every
// player is listed, withdrawn players included.
func Standings(players []Player, games []Game) ([]Standing, error) {
	idx, err := indexPlayers(players)
	if err != nil {
		return nil, err
	}
	for _, g := range games {
		if err := checkGame(g, idx); err != nil {
			return nil, err
		}
	}
	recs := records(players, games)
	type line struct {
		Standing
		points, buchholz, sb int // in half, half and quarter points
	}
	lines := make([]line, len(players))
	for i, p := range players {
		lines[i].Player = p
		lines[i].points = recs[p.ID].points
	}
	for _, g := range games {
		if g.Result == Pending {
			continue
		}
		if g.Result == Bye {
			lines[idx[g.X]].Byes++
			continue
		}
		for _, id := range []string{g.X, g.O} {
			l, opp := &lines[idx[id]], recs[g.opponent(id)].points
			switch {
			case g.Coin: // not played: no colour
			case id == g.X:
				l.X++
			default:
				l.O++
			}
			l.buchholz += opp
			switch g.halfPoints(id) {
			case 2:
				l.Wins++
				l.sb += 2 * opp
			case 1:
				l.Draws++
				l.sb += opp
			default:
				l.Losses++
			}
		}
	}
	slices.SortFunc(lines, func(a, b line) int {
		if c := cmp.Compare(b.points, a.points); c != 0 {
			return c
		}
		if c := cmp.Compare(b.buchholz, a.buchholz); c != 0 {
			return c
		}
		if c := cmp.Compare(b.sb, a.sb); c != 0 {
			return c
		}
		return seedOrder(a.Player, b.Player)
	})
	out := make([]Standing, len(lines))
	for i, l := range lines {
		s := l.Standing
		s.Rank = i + 1
		s.Points = float64(l.points) / 2
		s.Buchholz = float64(l.buchholz) / 2
		s.SonnebornBerger = float64(l.sb) / 4
		out[i] = s
	}
	return out, nil
}
