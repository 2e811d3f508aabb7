package bot_test

import (
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/bot"
	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
	"github.com/tttbot/ttt-bot/persistence"
)

// TestE2ELostEditDelivered: against a heavy level, every edit of the
// board fails (Cloudflare 503s on the interaction's @original and on the
// channel message alike) for longer than the player's turn time. The
// bot gives up its own writes, the board is owed to the screen, the
// player does not lose on time meanwhile, and once Discord answers again
// a sweeper shows the computer's move on the one board message, with the
// turn's clock started from then. Over both transports.
func TestE2ELostEditDelivered(t *testing.T) {
	t.Parallel()
	const turn = 2 * time.Second
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			// The bot and the Store run on a clock that moves only when
			// told: the outage lasts as long as the test says, in no time.
			clk := newClock()
			b := tr.startStore(t, bot.Options{MoveTimeout: 100 * time.Millisecond, RetryPause: 5 * time.Millisecond,
				TurnTime: turn, RateBurst: -1, Now: clk.Now}, persistence.Options{Now: clk.Now})
			b.sweeper(50 * time.Millisecond)
			b.srv.Fail(fakediscord.Fault{Kind: fakediscord.FaultHTML, Method: "PATCH", Share: 1})

			r, _ := b.command(alice, command.SubVsAI, fakediscord.Option{Name: "level", Value: "minimax"},
				fakediscord.Option{Name: "first", Value: "ai"}, fakediscord.Option{Name: "time-ms", Value: 300})
			board := r.Message.ID
			var s *persistence.Session
			waitFor(t, func() bool {
				s = b.gameOf(t, board)
				return s != nil && len(s.Moves) == 1
			})
			// The bot gives up showing the computer's move: the board is
			// owed to the screen.
			waitFor(t, func() bool { return b.owed(t) == 1 })
			// Longer than the turn: without the debt the player would lose
			// on time a turn they never saw. Sweeps run after the clock
			// moves on, each finding the turn overdue and trying the board
			// again (it still fails).
			outage := 2*turn + time.Second
			clk.Advance(outage)
			b.sweeps(2)
			clk.Advance(outage)
			b.sweeps(2)
			if s = b.gameOf(t, board); s.Status != persistence.StatusActive {
				t.Fatalf("after an outage of %v the game is %v (%v): the player lost a turn they were not shown", 2*outage, s.Status, s.End)
			}
			if n := b.owed(t); n != 1 {
				t.Fatalf("%d boards owed during the outage, want 1", n)
			}
			b.srv.ClearFaults()
			// The next try of the owed board is due oweRetry (5 s) after
			// the last; a sweep then shows it.
			clk.Advance(10 * time.Second)
			shown := clk.Now()
			m := b.waitMessage(board, func(m fakediscord.Message) bool { return takenCells(b.e2e, &m) == 1 })
			if clickable := len(b.cells(&m)) - disabledCells(b.e2e, &m); clickable == 0 {
				t.Fatalf("the board shows the computer's move but no cell to click")
			}
			waitFor(t, func() bool { return b.owed(t) == 0 })
			s = b.gameOf(t, board)
			if s.Status != persistence.StatusActive || s.Deadline.Before(shown.Add(turn)) {
				t.Fatalf("after delivery: %v, deadline %v; want active with the turn counted from the board's delivery (%v)",
					s.Status, s.Deadline, shown.Add(turn))
			}
			if n := b.messagesIn(e2eChannel); n != 1 {
				t.Fatalf("%d messages in the channel, want the one board", n)
			}
		})
	}
}

// gameOf returns the stored game of board message id.
func (e *e2e) gameOf(t *testing.T, id string) *persistence.Session {
	t.Helper()
	m, ok := e.srv.Message(id)
	if !ok {
		t.Fatalf("no message %s", id)
	}
	return e.game(&m)
}

// owed is how many games owe their board to the screen.
func (e *e2e) owed(t *testing.T) int64 {
	t.Helper()
	n, err := e.store.OwedCount(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// waitMessage waits until message id in the test channel matches ok.
func (e *e2e) waitMessage(id string, ok func(fakediscord.Message) bool) fakediscord.Message {
	e.t.Helper()
	m, err := e.srv.WaitMessage(e.ctx, e2eChannel, func(m fakediscord.Message) bool { return m.ID == id && ok(m) })
	if err != nil {
		e.t.Fatalf("message %s never showed what was expected: %v", id, err)
	}
	return m
}

// messagesIn counts the messages in channel.
func (e *e2e) messagesIn(channel string) int { return len(e.srv.Messages(channel)) }

// disabledCells counts the board's cells that cannot be clicked.
func disabledCells(e *e2e, m *fakediscord.Message) int {
	n := 0
	for _, b := range e.cells(m) {
		if b.Disabled {
			n++
		}
	}
	return n
}
