package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai/review"
	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/sched"
)

// Keys of the replies of history, replays and reviews.
const (
	// KeyUnknownGame refuses a game ID that names no finished game we
	// keep: never played, or expired.
	KeyUnknownGame = "reply.unknown_game"
	// KeyGameInProgress refuses a replay or review of a game still being
	// played.
	KeyGameInProgress = "reply.game_in_progress"
	// KeyNotYourReplay refuses a step of someone else's replay.
	KeyNotYourReplay = "reply.not_your_replay"
	// KeyNotYourHistory refuses a page of someone else's history.
	KeyNotYourHistory = "reply.not_your_history"
	// KeyHistoryDM refuses someone else's history in a direct message,
	// which would list their games in every server.
	KeyHistoryDM = "reply.history_dm"
)

// reviewTimeout bounds one review's computation; the preset boards take
// well under it (BENCHMARKS.md), and a review that runs out falls back to
// estimates rather than failing.
const reviewTimeout = 20 * time.Second

// The routes of the history, replays and reviews, and of their buttons,
// which work on any message that shows them (see routes.go).
func init() {
	routeCommand(command.Path(command.Name, command.SubHistory), (*Bot).history)
	routeCommand(command.Path(command.Name, command.SubReplay),
		func(b *Bot, ctx context.Context, c *call, r command.ReplayRequest) error {
			return b.replay(ctx, c, r.Game)
		})
	routeCommand(command.Path(command.Name, command.SubReview),
		func(b *Bot, ctx context.Context, c *call, r command.ReviewRequest) error {
			return b.reviewGame(ctx, c, r.Game)
		})
	routeComponent(true, (*Bot).clickHistory, customid.ActionHistory)
	routeComponent(true, (*Bot).clickStep, customid.ActionFirst, customid.ActionBack, customid.ActionNext, customid.ActionLast)
	routeComponent(true, func(b *Bot, ctx context.Context, c *call, id customid.ID) error { return b.replay(ctx, c, id.Game) }, customid.ActionReplay)
	routeComponent(true, func(b *Bot, ctx context.Context, c *call, id customid.ID) error { return b.reviewGame(ctx, c, id.Game) }, customid.ActionReview)
}

// history shows a page of a user's games in this server.
func (b *Bot) history(ctx context.Context, c *call, r command.HistoryRequest) error {
	if c.i.GuildID == "" && r.User != c.user {
		return userErr(KeyHistoryDM)
	}
	data, err := b.historyPage(ctx, c, customid.HistoryRef{User: r.User, Rules: r.Rules}, 0)
	if err != nil {
		return err
	}
	return b.respond(ctx, c, respMessage, data)
}

// historyPage renders page of ref's history for the caller.
func (b *Bot) historyPage(ctx context.Context, c *call, ref customid.HistoryRef, page int) (*discordgo.InteractionResponseData, error) {
	entries, total, err := b.store.History(ctx, ref.User, c.i.GuildID, ref.Rules, page*render.HistoryPage, render.HistoryPage)
	var corrupt *persistence.CorruptHistoryError
	if errors.As(err, &corrupt) {
		// Skipped entries are logged; the others are shown.
		c.warnings = append(c.warnings, err)
	} else if err != nil {
		return nil, err
	}
	if last := max(total-1, 0) / render.HistoryPage; page > last {
		// The history shrank (games expired or were trimmed) since the
		// page's button was drawn: show the last page there is.
		return b.historyPage(ctx, c, ref, last)
	}
	return b.render.History(c.loc, render.HistoryView{Ref: ref, Owner: c.user, Page: page, Total: total, Entries: entries})
}

// clickHistory turns a page of a history.
func (b *Bot) clickHistory(ctx context.Context, c *call, id customid.ID) error {
	if id.Owner != c.user {
		return userErr(KeyNotYourHistory)
	}
	ref, err := customid.ParseHistoryRef(id.Game)
	if err != nil {
		return &UserError{Key: render.KeyInvalidButton, Err: err}
	}
	data, err := b.historyPage(ctx, c, ref, id.Move)
	if err != nil {
		return err
	}
	return b.respond(ctx, c, respUpdate, data)
}

// archived loads a finished game for a replay or review, telling an
// unknown or expired ID from a game still in progress.
func (b *Bot) archived(ctx context.Context, id persistence.GameID) (*persistence.ArchivedGame, error) {
	g, err := b.store.ArchivedGame(ctx, id)
	if errors.Is(err, persistence.ErrNotFound) {
		if s, serr := b.store.Game(ctx, id); serr == nil && s.Status.Live() {
			return nil, &UserError{Key: KeyGameInProgress, Err: err}
		}
		return nil, &UserError{Key: KeyUnknownGame, Err: err}
	}
	return g, err
}

// replay opens a replay of a finished game, at its start, owned by the
// caller; typ is a new message for the command and the Replay button.
func (b *Bot) replay(ctx context.Context, c *call, id persistence.GameID) error {
	g, err := b.archived(ctx, id)
	if err != nil {
		return err
	}
	data, err := b.render.Replay(c.pub, g, 0, c.user, b.reviewNotes(ctx, g))
	if err != nil {
		return err
	}
	return b.respond(ctx, c, respMessage, data)
}

// clickStep steps a replay.
func (b *Bot) clickStep(ctx context.Context, c *call, id customid.ID) error {
	if id.Owner != c.user {
		return userErr(KeyNotYourReplay)
	}
	g, err := b.archived(ctx, id.Game)
	if err != nil {
		return err
	}
	ply, total := id.Move, len(g.Moves)+len(g.WideMoves)
	switch id.Action {
	case customid.ActionFirst:
		ply = 0
	case customid.ActionBack:
		ply--
	case customid.ActionNext:
		ply++
	case customid.ActionLast:
		ply = total
	}
	ply = max(0, min(ply, total))
	data, err := b.render.Replay(c.pub, g, ply, c.user, b.reviewNotes(ctx, g))
	if err != nil {
		return err
	}
	return b.respond(ctx, c, respUpdate, data)
}

// storedReviewVersion is the version of the cached review's encoding; a
// cache entry of another version is ignored and the game reviewed again.
const storedReviewVersion = 1

// storedReview is a game's review as it is cached with the archived game:
// everything but the rules and start, which the archive has.
type storedReview struct {
	V            int               `json:"v"`
	Moves        []review.Move     `json:"moves"`
	Values       []review.Value    `json:"values"`
	Exact        bool              `json:"exact"`
	Players      [2]review.Summary `json:"players"`
	TurningPoint int               `json:"turning"`
	Decided      int               `json:"decided"`
}

// cachedReview loads the cached review of g; nil when there is none or it
// does not read (the game is then reviewed again).
func (b *Bot) cachedReview(ctx context.Context, g *persistence.ArchivedGame) *review.Review {
	raw, err := b.store.Review(ctx, g.ID)
	if err != nil {
		return nil
	}
	var st storedReview
	if json.Unmarshal(raw, &st) != nil || st.V != storedReviewVersion || len(st.Moves) != len(g.Moves) || len(st.Values) != len(g.Moves)+1 {
		return nil
	}
	rec, err := g.Record()
	if err != nil {
		return nil
	}
	return &review.Review{Rules: rec.Rules, Start: rec.Start, Moves: st.Moves, Values: st.Values, Exact: st.Exact,
		Players: st.Players, TurningPoint: st.TurningPoint, Decided: st.Decided}
}

// reviewNotes loads the notes of a game's cached review; nil when it was
// not reviewed (or the cache cannot be read: the replay goes on without).
func (b *Bot) reviewNotes(ctx context.Context, g *persistence.ArchivedGame) *render.ReviewNotes {
	rv := b.cachedReview(ctx, g)
	if rv == nil {
		return nil
	}
	n := render.NotesOf(rv)
	return &n
}

// reviewGame answers at once (a deferred public message), reviews a
// finished game with the solver (or takes its cached review), caches it
// for later reviews and replays, and edits the answer into the review
// with its value chart.
func (b *Bot) reviewGame(ctx context.Context, c *call, id persistence.GameID) error {
	g, err := b.archived(ctx, id)
	if err != nil {
		return err
	}
	if g.IsWide() {
		return b.reviewWideGame(ctx, c, g)
	}
	rv := b.cachedReview(ctx, g)
	if rv == nil {
		if err := b.admit(c, sched.Batch, "review"); err != nil {
			return err
		}
	}
	if err := b.respond(ctx, c, respDeferred, nil); err != nil {
		return err
	}
	if rv == nil {
		if rv, err = b.computeReview(ctx, c, g); err != nil {
			return err // the deferral's message says so
		}
		raw, err := json.Marshal(storedReview{V: storedReviewVersion, Moves: rv.Moves, Values: rv.Values, Exact: rv.Exact,
			Players: rv.Players, TurningPoint: rv.TurningPoint, Decided: rv.Decided})
		if err == nil {
			err = b.store.SaveReview(ctx, id, raw)
		}
		if err != nil {
			c.warnings = append(c.warnings, fmt.Errorf("bot: cache the review of %s: %w", id, err))
		}
	}
	data, err := b.render.Review(c.pub, g, rv)
	if err != nil {
		return err
	}
	_, err = b.dc.InteractionResponseEdit(c.i, &discordgo.WebhookEdit{
		Content: &data.Content, Embeds: &data.Embeds, Components: &data.Components,
		Files: data.Files, AllowedMentions: data.AllowedMentions,
	}, discordgo.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("bot: edit review of %s: %w", id, err)
	}
	c.deferred = false
	return nil
}

// computeReview reviews g with the solver (estimates where it runs out)
// on a worker of the AI queue, as Batch work: players' AI replies go
// first, and at most one review per worker runs at a time.
func (b *Bot) computeReview(ctx context.Context, c *call, g *persistence.ArchivedGame) (*review.Review, error) {
	rec, err := g.Record()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, reviewTimeout)
	defer cancel()
	var rv *review.Review
	err = b.work(ctx, jobOf(c, sched.Batch), func(ctx context.Context, _ sched.Start) error {
		r := b.reviewers.Get().(*review.Reviewer)
		defer b.reviewers.Put(r)
		var err error
		rv, err = r.Review(ctx, rec.Start, rec.Moves)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("bot: review of %s: %w", g.ID, err)
	}
	return rv, nil
}

// seedOf derives a stable seed from a string: the AI seat of a puzzle
// from its day and board, a hint's fallback search from the position.
func seedOf(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := range len(s) {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
