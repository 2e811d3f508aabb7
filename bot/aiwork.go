package bot

import (
	"context"
	"time"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/sched"
)

// KeyOverloaded refuses new heavy work (a game against a slow level, a review,
// a hint, a puzzle draw, a duel) while the AI queue is too long for it to
// be answered in good time.
const KeyOverloaded = "reply.overloaded"

// aiPatience is how long an AI's reply waits for a worker before the bot
// answers the user first (the board with their move, the AI thinking) and
// edits the answer once the AI has moved: so that the first answer never
// depends on the queue.
const aiPatience = 250 * time.Millisecond

// Pressures (jobs waiting per worker) at which budgets start to shrink
// and reach their floors; see loadOf.
const (
	shrinkFrom = 1.0
	shrinkFull = 4.0
)

// cheapLevels think in microseconds on any board: their moves never queue.
var cheapLevels = map[string]bool{"random": true, "easy": true, "humanlike": true}

// smallBoard is the most cells on which every level answers within a few
// milliseconds (the solver's whole 3x3 tree is a few thousand positions).
const smallBoard = 9

// heavy reports whether the AI of seat may search for long under rules:
// its moves go through the AI queue and new games against it are shed
// under load. The cheap levels, and the others on boards of 3x3 or less
// unless given a budget longer than the move timeout, answer at once and
// never wait behind searches.
func (b *Bot) heavy(seat persistence.AI, rules string) bool {
	if cheapLevels[seat.Level] || seat.Level == "neural" && seat.Depth == 0 {
		return false
	}
	if seat.Budget > b.moveTimeout {
		return true
	}
	r, err := game.ParseRules(rules)
	return err != nil || r.Size() > smallBoard
}

// loadOf turns the queue's pressure when a job started into the load an
// AI is asked to think under (ai.Options.Load): none up to one job
// waiting per worker, the floor from four.
func loadOf(st sched.Start) float64 {
	switch {
	case st.Pressure <= shrinkFrom:
		return 0
	case st.Pressure >= shrinkFull:
		return 1
	}
	return (st.Pressure - shrinkFrom) / (shrinkFull - shrinkFrom)
}

// admit asks the AI queue whether new heavy work of class for the caller
// may start; a refusal is the private "busy" answer, counted.
func (b *Bot) admit(c *call, class sched.Class, kind string) error {
	if err := b.pool.Admit(class, c.user); err != nil {
		b.metrics.Shed(kind)
		return &UserError{Key: KeyOverloaded, Err: err}
	}
	return nil
}

// admitGame admits a new game (kind "game", "puzzle" or "duel") whose AI
// seats are heavy; games against cheap levels always start.
func (b *Bot) admitGame(c *call, kind, rules string, seats ...persistence.Seat) error {
	for _, st := range seats {
		if st.IsAI() && b.heavy(st.AI, rules) {
			return b.admit(c, sched.Interactive, kind)
		}
	}
	return nil
}

// work runs fn on a worker of the AI queue for the caller's job of class,
// recording how long it waited.
func (b *Bot) work(ctx context.Context, j sched.Job, fn func(ctx context.Context, st sched.Start) error) error {
	return b.pool.Do(ctx, j, func(ctx context.Context, st sched.Start) error {
		b.metrics.Queued(j.Class, st.Waited)
		return fn(ctx, st)
	})
}

// aiTimeout is how long the AI of seat may think: the move timeout, or
// for a budget longer than that, the budget and half a second (at most
// maxLongMove).
func (b *Bot) aiTimeout(seat persistence.Seat) time.Duration {
	if seat.AI.Budget > b.moveTimeout {
		return min(seat.AI.Budget+time.Second/2, maxLongMove)
	}
	return b.moveTimeout
}

// thinkAndPlay plays the move of the AI of seat in s: at once for a
// cheap AI, and for a heavy one on a worker of the AI queue (as job),
// on a budget shrunk by the queue's pressure when it started. When owe
// (if not nil) says so as the move is played, the board with the move is
// first recorded as owed to the screen (see delivery.go): it is shown by
// an edit after the move, which a stopped process would never make.
func (b *Bot) thinkAndPlay(ctx context.Context, j sched.Job, s *persistence.Session, seat persistence.Seat, owe func() bool) (*persistence.Session, error) {
	if !b.heavy(seat.AI, s.Rules) {
		return b.aiMove(ctx, s, seat, b.aiTimeout(seat), 0, owe)
	}
	err := b.work(ctx, j, func(ctx context.Context, st sched.Start) error {
		load := loadOf(st)
		if load > 0 {
			b.metrics.Shrink(seat.AI.Level)
		}
		var err error
		s, err = b.aiMove(ctx, s, seat, b.aiTimeout(seat), load, owe)
		return err
	})
	return s, err
}

// always is an owe for thinkAndPlay whose board is always shown by an
// edit after the move.
func always() bool { return true }

// jobOf is the queue job of the caller's interaction.
func jobOf(c *call, class sched.Class) sched.Job {
	return sched.Job{Class: class, Group: c.i.GuildID, User: c.user}
}
