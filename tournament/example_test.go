package tournament_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/tttbot/ttt-bot/tournament"
)

// A Swiss of five: pair a round, play it, record the results, and again;
// then rank. Here the perfect AI draws every game and otherwise X wins.
func Example() {
	players := []tournament.Player{
		{ID: "alice", Rating: 1620}, {ID: "bob", Rating: 1540}, {ID: "carol", Rating: 1490},
		{ID: "dave", Rating: 1400}, {ID: "ai:perfect", Rating: 1500},
	}
	var record []tournament.Game
	for range tournament.Swiss.Rounds(len(players), false) {
		games, err := tournament.PairSwiss(players, record)
		if err != nil {
			fmt.Println(err)
			return
		}
		for i, g := range games {
			switch {
			case g.Result == tournament.Bye:
			case g.X == "ai:perfect" || g.O == "ai:perfect":
				games[i].Result = tournament.Draw
			default:
				games[i].Result = tournament.XWins
			}
			fmt.Println(games[i])
		}
		record = append(record, games...)
	}
	table, err := tournament.Standings(players, record)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range table {
		fmt.Printf("%d. %-10s %3g  Buchholz %g\n", s.Rank, s.Player.ID, s.Points, s.Buchholz)
	}
	// Output:
	// r1 alice-ai:perfect ½-½
	// r1 carol-bob 1-0
	// r1 dave bye
	// r2 ai:perfect-carol ½-½
	// r2 dave-alice 1-0
	// r2 bob bye
	// r3 carol-dave 1-0
	// r3 bob-ai:perfect ½-½
	// r3 alice bye
	// 1. carol      2.5  Buchholz 5
	// 2. dave         2  Buchholz 4
	// 3. ai:perfect 1.5  Buchholz 5.5
	// 4. bob        1.5  Buchholz 4
	// 5. alice      1.5  Buchholz 3.5
}

// A round robin of three has a bye each round.
func ExampleSchedule() {
	players := []tournament.Player{{ID: "alice", Rating: 1600}, {ID: "bob", Rating: 1500}, {ID: "ai:easy", Rating: 900}}
	rounds, err := tournament.Schedule(players, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, games := range rounds {
		fmt.Println(games)
	}
	// Output:
	// [r1 bob-ai:easy pending r1 alice bye]
	// [r2 ai:easy-alice pending r2 bob bye]
	// [r3 alice-bob pending r3 ai:easy bye]
}

// A knockout of three: the top seed has a bye; a drawn game is replayed
// with colours swapped, and a drawn rematch goes to a coin flip, which the
// caller records.
func ExampleBracket_Play() {
	players := []tournament.Player{{ID: "alice", Rating: 1600}, {ID: "bob", Rating: 1500}, {ID: "carol", Rating: 1400}}
	bracket, err := tournament.NewBracket(players)
	if err != nil {
		fmt.Println(err)
		return
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var record []tournament.Game
	for {
		p, err := bracket.Play(record, rng)
		if err != nil {
			fmt.Println(err)
			return
		}
		record = append(record, p.Flips...)
		for _, f := range p.Flips {
			fmt.Println("flip:", f)
		}
		if p.Champion != "" {
			for _, pl := range p.Placings {
				fmt.Println(pl.Place, pl.Player.ID)
			}
			return
		}
		for _, g := range p.Next {
			g.Result = tournament.Draw // everyone plays perfectly
			fmt.Println("play:", g)
			record = append(record, g)
		}
	}
	// Output:
	// play: r1 carol-bob ½-½
	// play: r1 bob-carol ½-½
	// flip: r1 bob-carol 1-0 (coin)
	// play: r2 alice-bob ½-½
	// play: r2 bob-alice ½-½
	// flip: r2 bob-alice 1-0 (coin)
	// 1 bob
	// 2 alice
	// 3 carol
}
