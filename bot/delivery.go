package bot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/rest"
	"github.com/tttbot/ttt-bot/persistence"
)

// What the player sees is state the bot owns.
//
// A game's board is shown by writes to Discord that fail now and then.
// Each write that changes a board outside the first answer to a click is
// retried (retryingDiscord); one the retries could not make, and one
// about to be made where a stopped process would lose it (the computer's
// move, edited in after "thinking"), leaves the game owing its board in
// the Store (persistence.Store.Owe). The sweeper of any process shows each
// owed game as it then is, with the bot's token (deliverOwed): it edits
// the board's channel message, or posts a new board where none is known
// or the old one is gone. Each board shown clears what the game owed up
// to its version. While a game owes its board the person to move does not
// lose on time (the Store gives the turn its whole time again), and the
// turn's clock restarts when the board reaches the screen late
// (afterDelivery). So a failed write, a stopped process or a long outage
// of Discord delays a board but never loses it, and nobody loses on time
// a turn they were not shown.

// Pacing of the delivery of owed boards.
const (
	// oweRetry is when a sweeper first tries a board whose write was
	// given up on, and then between its tries.
	oweRetry = 5 * time.Second
	// oweGrace is how long after the computer was to move a sweeper
	// waits before showing its move itself (the process that plays it
	// shows it first, within the AI's timeout).
	oweGrace = 20 * time.Second
	// lateDelivery is how late a board may reach the screen before the
	// turn it shows starts again from then.
	lateDelivery = 2 * time.Second
	// deliverBatch bounds the owed boards one sweep takes on.
	deliverBatch = 20
	// bookkeepingTimeout bounds the Store writes that record a debt or
	// a delivery, which go on after the caller's context ended.
	bookkeepingTimeout = 3 * time.Second
)

// owe records that s's board may not be on screen, to be shown by a
// sweeper in a (or sooner, if already owed sooner). It goes on after ctx
// ends (a process stopping must still leave the debt behind); a failure
// is logged.
func (b *Bot) owe(ctx context.Context, s *persistence.Session, version int64, in time.Duration) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), bookkeepingTimeout)
	defer cancel()
	if err := b.store.Owe(ctx, s.ID, version, b.now().Add(in)); err != nil {
		b.log.Error("bot: a board that may not be on screen is not recorded", "game", string(s.ID), "err", err)
	}
}

// afterDelivery records that s is on screen since now. When it got there
// late and shows a person's turn against the clock, the turn starts
// again from now (persistence.Store.RestartClock) and the board is shown
// once more with its new deadline; it returns the game as it then is.
func (b *Bot) afterDelivery(ctx context.Context, loc discordgo.Locale, s *persistence.Session) *persistence.Session {
	bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), bookkeepingTimeout)
	defer cancel()
	now := b.now()
	// The turn's clock started at its deadline less the turn time.
	if s.Status == persistence.StatusActive && s.TurnTime > 0 && now.Sub(s.Deadline.Add(-s.TurnTime)) > lateDelivery {
		next, err := b.store.RestartClock(bctx, s.ID, s.Version, now)
		switch {
		case err != nil:
			b.log.Warn("bot: restart the clock of a board shown late", "game", string(s.ID), "err", err)
		case next.Version != s.Version:
			b.metrics.DeliveryLate()
			b.log.Info("bot: board shown late; the turn starts again from now", "game", string(s.ID), "late", now.Sub(s.Deadline.Add(-s.TurnTime)))
			if err := b.editBoard(ctx, loc, next, nil); err != nil {
				b.log.Warn("bot: show a restarted clock", "game", string(s.ID), "err", err)
			}
			return next
		}
	}
	if _, err := b.store.Delivered(bctx, s.ID, s.Version); err != nil {
		b.log.Warn("bot: record a board on screen", "game", string(s.ID), "err", err)
	}
	return s
}

// deliverOwedBoards claims the owed boards due now and hands each to
// spawn, which shows it (deliverOwed) in a goroutine of its own; it also
// reads the backlog for /metrics.
func (b *Bot) deliverOwedBoards(ctx context.Context, spawn func(func())) {
	owed, err := b.store.ClaimOwed(ctx, b.now(), deliverBatch)
	if err != nil && ctx.Err() == nil {
		b.log.Error("bot: claim the boards owed to the screen", "err", err)
	}
	for _, o := range owed {
		spawn(func() { b.deliverOwed(ctx, o) })
	}
	if n, err := b.store.OwedCount(ctx); err == nil {
		b.metrics.Undelivered(n)
	}
}

// deliverOwed shows owed game o as it is now, with the bot's token: an
// edit of its board's message, or a new board where there is none or it
// was deleted. A game gone, or a channel the bot may not write to, is
// given up (logged and counted); any other failure is tried again later.
func (b *Bot) deliverOwed(ctx context.Context, o persistence.Owed) {
	log := b.log.With("game", string(o.Game))
	if o.Tournament != "" {
		log = b.log.With("tournament", o.Tournament)
	}
	later := func(err error) {
		log.Warn("bot: an owed board is not shown yet; trying again", "err", err, "in", oweRetry)
		if err := b.store.RetryOwed(context.WithoutCancel(ctx), o, b.now().Add(oweRetry)); err != nil {
			log.Warn("bot: reschedule an owed board", "err", err)
		}
	}
	drop := func(why string, err error) {
		b.metrics.DeliveryGivenUp()
		log.Warn("bot: gave up showing a board", "why", why, "err", err)
		if err := b.store.DropOwed(context.WithoutCancel(ctx), o); err != nil {
			log.Warn("bot: drop an owed board", "err", err)
		}
	}
	if o.Tournament != "" {
		b.deliverSignup(ctx, o, later, drop)
		return
	}
	s, err := b.store.Game(ctx, o.Game)
	switch {
	case errors.Is(err, persistence.ErrNotFound):
		drop("the game is gone", err)
		return
	case err != nil:
		later(err)
		return
	}
	if _, ok, _ := aiToMove(s); ok && !s.Duel() {
		// The computer is still to reply: the reply shows the board
		// (and the sweeper plays it if it is overdue).
		later(errors.New("the computer is still to move"))
		return
	}
	if s.Message == "" && s.Tournament != "" && s.Status.Live() {
		// The tournament's runner posts its games' boards.
		later(errors.New("the tournament's runner has not posted the board yet"))
		return
	}
	// The turn the board shows starts now, as it reaches the screen.
	if next, err := b.store.RestartClock(ctx, s.ID, s.Version, b.now()); err == nil {
		s = next
	}
	err = b.showOwed(ctx, s)
	switch {
	case errors.Is(err, rest.ErrSuperseded):
		later(err)
	case err == nil:
		b.metrics.DeliveryDone()
		if _, err := b.store.Delivered(context.WithoutCancel(ctx), s.ID, s.Version); err != nil {
			log.Warn("bot: record a board on screen", "err", err)
		}
		log.Info("bot: owed board shown", "version", s.Version)
	case refusedForGood(err):
		drop("Discord refused it", err)
	default:
		later(err)
	}
}

// deliverSignup shows owed tournament o's sign-up message as the
// tournament is now; later and drop are deliverOwed's.
func (b *Bot) deliverSignup(ctx context.Context, o persistence.Owed, later func(error), drop func(string, error)) {
	t, err := b.store.Tournament(ctx, o.Tournament)
	switch {
	case errors.Is(err, persistence.ErrNotFound):
		drop("the tournament is gone", err)
		return
	case err != nil:
		later(err)
		return
	case t.Message == "":
		drop("the tournament has no sign-up message", nil)
		return
	}
	v, verr := b.publicView(ctx, nil, t.Guild, i18n.DefaultLocale)
	if verr != nil {
		b.log.Warn("bot: sign-up shown in its fallback language", "tournament", t.ID, "err", verr)
	}
	err = b.editSignupMessage(ctx, v.loc, t)
	switch {
	case err == nil:
		b.metrics.DeliveryDone()
		if err := b.store.TournamentShown(context.WithoutCancel(ctx), t.ID); err != nil {
			b.log.Warn("bot: record a sign-up on screen", "tournament", t.ID, "err", err)
		}
	case refusedForGood(err):
		drop("Discord refused it", err)
	default:
		later(err)
	}
}

// refusedForGood reports whether Discord refused a write in a way that
// trying again cannot change: a 4xx other than 429 (the channel or
// message is gone, the bot may not write there).
func refusedForGood(err error) bool {
	var re *discordgo.RESTError
	return errors.As(err, &re) && re.Response != nil && re.Response.StatusCode < http.StatusInternalServerError &&
		re.Response.StatusCode != http.StatusTooManyRequests
}

// showOwed shows s with the bot's token: an edit of its message, or a
// new board (posted with a nonce of the game, so two sweepers cannot post
// it twice) when it has none or its message was deleted.
func (b *Bot) showOwed(ctx context.Context, s *persistence.Session) error {
	if s.Message != "" {
		// A retry stops once the game has moved on: the newer board is
		// shown by whoever made it, or by the next try of this debt.
		err := b.editMessage(rest.WithSuperseded(ctx, b.movedOn(ctx, s)), i18n.DefaultLocale, s, nil)
		var re *discordgo.RESTError
		if !errors.As(err, &re) || re.Message == nil || re.Message.Code != discordgo.ErrCodeUnknownMessage || !s.Status.Live() {
			return err
		}
	}
	v, err := b.publicView(ctx, nil, s.Guild, i18n.DefaultLocale)
	if err != nil {
		b.log.Warn("bot: board posted in its fallback language and labels", "game", string(s.ID), "err", err)
	}
	data, err := b.render.Board(v.loc, v.labels, s, nil)
	if err != nil {
		return err
	}
	m, err := b.post(rest.WithNonce(ctx, boardNonce(s)), s.Channel(), data)
	if err != nil {
		return err
	}
	next, err := b.store.SetMessage(ctx, s.ID, s.Version, m.ID)
	if err != nil {
		return err
	}
	*s = *next
	return nil
}

// boardNonce is the nonce of a new board message for s: two processes
// posting it within Discord's nonce window post one message.
func boardNonce(s *persistence.Session) string { return postNonce(string(s.ID), "board") }

// postNonce is the nonce of the one post that parts name (25 characters,
// the most Discord takes).
func postNonce(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return "p" + hex.EncodeToString(h[:12])
}
