package tournament

// Schedule lays out a whole round robin by the circle method: rounds[i] is
// round i+1, each player in exactly one game or the bye, every pair
// meeting once (twice when double, the second time with colours swapped).
// Players are placed in seeding order (rating, then ID), so the schedule
// does not depend on the order of players. Games are Pending, from the top
// board, the bye last; withdrawn players are scheduled like the others.
func Schedule(players []Player, double bool) ([][]Game, error) {
	ps, err := seeded(players)
	if err != nil {
		return nil, err
	}
	n := len(ps)
	if n < 2 {
		return nil, ErrTooFewPlayers
	}
	// Players 0..m-1 rotate; the fixed seat is player n-1 for an even n
	// and the bye for an odd n. In round r player a sits d = a-r (mod m)
	// places on from the fixed seat's opponent, and meets the player at
	// -d; the one with odd d takes X, so as d steps down each round a
	// player's colours alternate.
	m := n - 1
	if n%2 == 1 {
		m = n
	}
	rounds := make([][]Game, 0, 2*m)
	for r := range m {
		var games []Game
		if m < n {
			g := Game{Round: r + 1, X: ps[n-1].ID, O: ps[r].ID}
			if r%2 == 1 {
				g.X, g.O = g.O, g.X
			}
			games = append(games, g)
		}
		for d := 1; d <= (m-1)/2; d++ {
			a, b := (r+d)%m, (r-d+m)%m
			if d%2 == 0 {
				a, b = b, a // then m-d is odd
			}
			games = append(games, Game{Round: r + 1, X: ps[a].ID, O: ps[b].ID})
		}
		if m == n {
			games = append(games, Game{Round: r + 1, X: ps[r].ID, Result: Bye})
		}
		rounds = append(rounds, games)
	}
	if double {
		for r := range m {
			games := make([]Game, len(rounds[r]))
			for i, g := range rounds[r] {
				g.Round += m
				if g.Result != Bye {
					g.X, g.O = g.O, g.X
				}
				games[i] = g
			}
			rounds = append(rounds, games)
		}
	}
	return rounds, nil
}
