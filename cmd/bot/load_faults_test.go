package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/render"

	"github.com/tttbot/ttt-bot/bot/fakediscord"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// loadFaults makes the fake Discord fail a seeded share of the replicas'
// writes during a flood (issue 21: the figures must hold with 5% of the
// writes failing):
//
//	go test -run '^$' -bench '^BenchmarkFlood$/users=200' -benchtime=1x -timeout 30m ./cmd/bot/ -load.faults=0.05
var loadFaults = flag.Float64("load.faults", 0, "load benchmarks: the share of the bot's writes to Discord (PATCH and POST of channel messages and webhooks) that fail, as a 5xx HTML page, a reset before or a reset after the write is applied")

// loadFaultSeed seeds the faults' draws, so runs fail the same calls.
const loadFaultSeed = 2100

// injectLoadFaults makes fake fail share of the bot's message writes,
// each as a 503 HTML page, a reset before or a reset after it is applied.
func injectLoadFaults(fake *fakediscord.Server, share float64) {
	if share <= 0 {
		return
	}
	mix := []fakediscord.FaultKind{fakediscord.FaultHTML, fakediscord.FaultResetBefore, fakediscord.FaultResetAfter}
	for i, r := range []struct{ method, path string }{
		{"PATCH", "/channels/"}, {"POST", "/channels/"}, {"PATCH", "/webhooks/"}, {"POST", "/webhooks/"},
	} {
		fake.Fail(fakediscord.Fault{Mix: mix, Method: r.method, Path: r.path, Share: share, Seed: loadFaultSeed + uint64(i)})
	}
}

// loadFinalPatience is how long after the flood the finished games'
// boards may take to show their final state (an owed board is shown by a
// sweeper within seconds).
const loadFinalPatience = time.Minute

// finalBoards waits until the board message of each game the flood
// users saw finished shows that game's final state as the Store has it,
// and returns the boards that never did, with why.
func (cl *loadCluster) finalBoards(ctx context.Context, boards []string) []string {
	ctx, cancel := context.WithTimeout(ctx, loadFinalPatience)
	defer cancel()
	pending := boards
	for {
		var wrong []string
		var next []string
		for _, id := range pending {
			if why := cl.finalBoard(ctx, id); why != "" {
				wrong = append(wrong, fmt.Sprintf("board %s: %s", id, why))
				next = append(next, id)
			}
		}
		pending = next
		if len(pending) == 0 || pause(ctx, 500*time.Millisecond) != nil {
			return wrong
		}
	}
}

// finalBoard says how board message id differs from its finished game
// ("" when it shows it: every cell's mark, the move count of the game and
// no cell to click).
func (cl *loadCluster) finalBoard(ctx context.Context, id string) string {
	m, ok := cl.fake.Message(id)
	if !ok {
		return "no such message"
	}
	var gameID persistence.GameID
	shown := map[game.Cell]string{}
	move := -1
	for _, c := range m.Buttons() {
		cid, err := cl.signer.Decode(c.CustomID)
		if err != nil || cid.Action != customid.ActionMove {
			continue
		}
		if !c.Disabled {
			return fmt.Sprintf("cell %s is still live", cid.Cell)
		}
		gameID, move, shown[cid.Cell] = cid.Game, cid.Move, c.Emoji
	}
	if gameID == "" {
		return "no cells"
	}
	s, err := cl.store.Game(ctx, gameID)
	if err != nil {
		return err.Error()
	}
	pos, err := s.Position()
	if err != nil {
		return err.Error()
	}
	if s.Status.Live() || move != len(s.Moves) {
		return fmt.Sprintf("shows move %d; game %s is %s after %d moves", move, s.ID, s.Status, len(s.Moves))
	}
	for c, emoji := range shown {
		want := map[game.Mark]string{game.X: render.EmojiX, game.O: render.EmojiO}[pos.At(c)]
		if emoji != want {
			return fmt.Sprintf("cell %s shows %q, game %s has %q there", c, emoji, s.ID, want)
		}
	}
	return ""
}
