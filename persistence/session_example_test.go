package persistence_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// ExampleStore_Play plays a short game through the Store on the in-process server
// Open falls back to (so it runs without Redis): create, two clicks racing
// on one board, and a win that frees the player for another game.
func ExampleStore_Play() {
	ctx := context.Background()
	rdb, closeRedis, err := persistence.Open(ctx, persistence.OpenOptions{InMemory: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer closeRedis()
	now := time.Date(2026, 11, 21, 18, 0, 0, 0, time.UTC)
	store := persistence.New(rdb, persistence.Options{Now: func() time.Time { return now }})

	g, err := store.CreateGame(ctx, "1234", persistence.Session{
		Rules:    "3x3k3",
		Players:  [2]persistence.Seat{{User: "alice"}, {AI: persistence.AI{Level: "easy", Seed: 7}}},
		TurnTime: time.Minute,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(g.Status, "version", g.Version, "deadline", g.Deadline.Format(time.TimeOnly))

	// Alice double-clicks: the first click plays, the second finds the
	// board changed.
	g2, err := store.Play(ctx, g.ID, g.Version, "alice", game.NewCell(1, 1))
	fmt.Println("click 1:", err)
	_, err = store.Play(ctx, g.ID, g.Version, "alice", game.NewCell(0, 0))
	fmt.Println("click 2 conflicts:", errors.Is(err, persistence.ErrConflict))

	// The AI and Alice play on until Alice wins.
	g = g2
	for _, m := range []struct {
		by       string
		row, col int
	}{{"", 0, 1}, {"alice", 0, 0}, {"", 2, 1}, {"alice", 2, 2}} {
		if g, err = store.Play(ctx, g.ID, g.Version, m.by, game.NewCell(m.row, m.col)); err != nil {
			fmt.Println(err)
		}
	}
	p, _ := g.Position()
	fmt.Print(p.Diagram())
	fmt.Println(g.Status, g.Result, "by", g.End, "version", g.Version)
	_, err = store.ActiveGame(ctx, "1234", "alice")
	fmt.Println("alice free again:", errors.Is(err, persistence.ErrNotFound))
	// Output:
	// active version 1 deadline 18:01:00
	// click 1: <nil>
	// click 2 conflicts: true
	//    a b c
	//  1 X O .
	//  2 . X .
	//  3 . O X
	// finished X wins by win version 6
	// alice free again: true
}
