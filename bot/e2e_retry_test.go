package bot_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/bot"
	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/metrics"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// statuses lists the statuses of the fake's calls of method on paths
// starting with prefix (0: a reset).
func (e *e2e) statuses(method, prefix string) []int {
	var out []int
	for _, c := range e.srv.Calls() {
		if c.Method == method && strings.HasPrefix(c.Path, prefix) {
			out = append(out, c.Status)
		}
	}
	return out
}

// TestE2ERetryAIReply plays against a heavy level whose first move, made
// after the thinking board, meets a Cloudflare 503 and then a reset
// after the edit was applied: the bot retries, the board shows the move
// and becomes clickable, and only one board message exists.
func TestE2ERetryAIReply(t *testing.T) {
	t.Parallel()
	e := newE2E(t, bot.Options{Rand: rand.New(rand.NewPCG(3, 4)), MoveTimeout: 100 * time.Millisecond,
		RetryPause: 10 * time.Millisecond})
	e.srv.Fail(fakediscord.Fault{Kind: fakediscord.FaultHTML, Method: "PATCH", Path: "/webhooks/", Times: 1})
	e.srv.Fail(fakediscord.Fault{Kind: fakediscord.FaultResetAfter, Method: "PATCH", Path: "/webhooks/", Times: 1})

	r, _ := e.command(alice, command.SubVsAI, fakediscord.Option{Name: "level", Value: "minimax"},
		fakediscord.Option{Name: "first", Value: "ai"}, fakediscord.Option{Name: "time-ms", Value: 300})
	board := r.Message.ID
	m, err := e.srv.WaitMessage(e.ctx, e2eChannel, func(m fakediscord.Message) bool {
		if m.ID != board {
			return false
		}
		for _, b := range e.cells(&m) {
			if !b.Disabled {
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("the board never became clickable after the AI's move: %v", err)
	}
	if s := e.game(&m); len(s.Moves) != 1 || s.SideOf(alice) != game.O {
		t.Fatalf("game %+v, want alice as O after the AI's first move", s)
	}
	// The 503, the reset after the edit was applied, then the retry that
	// Discord answers.
	// (A call's status is recorded once it is answered.)
	waitFor(t, func() bool { got := e.statuses("PATCH", "/webhooks/"); return len(got) >= 3 && got[2] != 0 })
	if got := e.statuses("PATCH", "/webhooks/"); len(got) != 3 || got[0] != 503 || got[1] != 0 || got[2] != 200 {
		t.Fatalf("edits of the board answered %v, want [503 0 200]", got)
	}

	// The board shows the game as it is: one cell taken.
	if taken := takenCells(e, &m); taken != 1 {
		t.Fatalf("the board shows %d taken cells, want 1", taken)
	}
	// Alice plays on; the AI's reply (no fault now) shows too.
	var pick string
	for _, b := range e.cells(&m) {
		if !b.Disabled {
			pick = b.CustomID
		}
	}
	_, d := e.click(alice, board, pick)
	for {
		ed, err := d.Wait(e.ctx)
		if err != nil {
			t.Fatalf("after alice's move: %v", err)
		}
		if ed.Kind == fakediscord.KindEditOriginal {
			break
		}
	}
	final, _ := e.srv.Message(board)
	if s, taken := e.game(&final), takenCells(e, &final); len(s.Moves) != 3 || taken != 3 {
		t.Fatalf("the board shows %d taken cells, the game has %d moves; want 3 and 3", taken, len(s.Moves))
	}
	boards := 0
	for _, msg := range e.srv.Messages(e2eChannel) {
		if len(msg.Buttons()) > 0 {
			boards++
		}
	}
	if boards != 1 {
		t.Fatalf("%d board messages in the channel, want 1", boards)
	}
	e.noFailures()
}

// TestE2EDuelSurvivesFailedEdit breaks every attempt of one edit of a
// duel's board: the duel goes on to its result, which its board shows,
// and the give-up is logged and counted.
func TestE2EDuelSurvivesFailedEdit(t *testing.T) {
	t.Parallel()
	reg := metrics.NewRegistry()
	e := newE2E(t, bot.Options{Rand: rand.New(rand.NewPCG(11, 12)), DuelStep: 5 * time.Millisecond,
		RetryPause: time.Millisecond, Metrics: metrics.New(reg)})
	e.sweeper(time.Hour)
	e.srv.Fail(fakediscord.Fault{Kind: fakediscord.FaultHTML, Method: "PATCH", Path: "/channels/", Times: 4})
	r, _ := e.command(alice, command.SubAIDuel, fakediscord.Option{Name: "x", Value: "perfect"}, fakediscord.Option{Name: "o", Value: "perfect"})
	m := e.waitEdited(r.Message.ID, e.cat.Text(i18n.DefaultLocale, "result.draw"))
	s := e.game(&m)
	if s.Status != persistence.StatusFinished || s.Result != game.Draw || len(s.Moves) != 9 || s.End == persistence.ByModerator {
		t.Fatalf("duel ended %s %s (%s) after %d moves, want a draw after 9", s.Status, s.Result, s.End, len(s.Moves))
	}
	waitFor(t, func() bool { got := e.statuses("PATCH", "/channels/"); return len(got) >= 4 && got[3] != 0 })
	if got := e.statuses("PATCH", "/channels/"); len(got) < 4 || got[0] != 503 || got[3] != 503 {
		t.Fatalf("edits of the duel answered %v, want four 503s first", got)
	}
	if !strings.Contains(e.logs.String(), "gave up a write to Discord") {
		t.Fatal("no log line for the give-up")
	}
	var out strings.Builder
	if _, err := reg.WriteTo(&out); err != nil {
		t.Fatal(err)
	}
	if want := `ttt_discord_write_giveups_total{route="channel_message_edit"} 1`; !strings.Contains(out.String(), want) {
		t.Fatalf("metrics lack %q:\n%s", want, out.String())
	}
	e.noFailures()
}

// TestE2ELossOnTimeRetried fails the edit that shows a loss on time once
// (a reset before it is applied): the board still shows the result.
func TestE2ELossOnTimeRetried(t *testing.T) {
	t.Parallel()
	clk := newClock()
	e := newE2EStore(t, bot.Options{Rand: rand.New(rand.NewPCG(9, 10)), Now: clk.Now, TurnTime: 2 * time.Minute,
		RetryPause: 10 * time.Millisecond}, persistence.Options{Now: clk.Now})
	e.sweeper(5 * time.Millisecond)
	r, _ := e.command(alice, command.SubChallenge, opponentOpt(bob), fakediscord.Option{Name: "first", Value: "me"})
	msg := r.Message.ID
	_, accept := e.button(r.Message, customid.ActionAccept)
	e.trackedChallenge(r.Message, customid.ActionAccept)
	r, _ = e.click(bob, msg, accept.CustomID)
	e.click(alice, msg, e.cells(r.Message)[game.NewCell(1, 1)].CustomID)
	e.srv.Fail(fakediscord.Fault{Kind: fakediscord.FaultResetBefore, Method: "PATCH", Path: "/channels/", Times: 1})
	clk.Advance(2*time.Minute + time.Second)
	m := e.waitEdited(msg, e.cat.Text(i18n.DefaultLocale, "result.timeout", "loser", mentionOf(bob), "mark", render.EmojiX, "winner", mentionOf(alice)))
	e.noLiveCells(m)
	waitFor(t, func() bool { got := e.statuses("PATCH", "/channels/"); return len(got) >= 2 && got[1] != 0 })
	if got := e.statuses("PATCH", "/channels/"); len(got) != 2 || got[0] != 0 || got[1] != 200 {
		t.Fatalf("edits of the board answered %v, want a reset, then the edit", got)
	}
	e.noFailures()
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// takenCells counts the board's cells that show a mark.
func takenCells(e *e2e, m *fakediscord.Message) int {
	n := 0
	for _, b := range e.cells(m) {
		if b.Emoji != "" {
			n++
		}
	}
	return n
}
