package bot_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/bot"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// TestE2EStoreOutage stops Redis in the middle of a game between people,
// over both transports. A click while it is down is answered, privately,
// that the game store cannot be reached, the game is safe and to try again
// in a few seconds, not "Something went wrong"; once Redis is back the
// same click plays, on the game as it was before the outage.
func TestE2EStoreOutage(t *testing.T) {
	t.Parallel()
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			b := tr.start(t, bot.Options{RateBurst: -1, ChallengeCooldown: -1})
			msg, board := startChallenge(b.e2e)
			board = playScript(b.e2e, msg, board, []move{{alice, 1, 1}, {bob, 0, 0}})
			before := b.game(board)

			if err := b.redis.Stop(); err != nil {
				t.Fatal(err)
			}
			cell := b.cells(board)[game.NewCell(0, 2)]
			r, _ := b.click(alice, msg, cell.CustomID)
			b.wantText(r, render.KeyStoreUnavailable)
			if internal := b.cat.Text(i18n.DefaultLocale, render.KeyInternal); r.Message.Content == internal {
				t.Fatalf("the outage is answered %q", internal)
			}

			ctx, cancel := context.WithTimeout(b.ctx, 15*time.Second)
			defer cancel()
			if err := b.redis.Start(ctx); err != nil {
				t.Fatal(err)
			}
			for b.store.Ping(ctx) != nil {
				if ctx.Err() != nil {
					t.Fatal("the bot's store did not reconnect after Redis came back")
				}
				time.Sleep(20 * time.Millisecond)
			}
			// The game is as it was, and the same click now plays.
			again := b.game(board)
			if again.Version != before.Version || !slices.Equal(again.Moves, before.Moves) || again.Status != persistence.StatusActive {
				t.Fatalf("after the outage the game is %+v, want it as before: %+v", again, before)
			}
			board = playScript(b.e2e, msg, board, []move{{alice, 0, 2}})
			if s := b.game(board); len(s.Moves) != len(before.Moves)+1 {
				t.Fatalf("%d moves after the outage, want %d", len(s.Moves), len(before.Moves)+1)
			}
			b.noFailures() // answered, and logged as a warning, not an internal error
		})
	}
}
