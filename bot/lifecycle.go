package bot

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/bot/rest"
	"github.com/tttbot/ttt-bot/bot/settings"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// Defaults of the game life-cycle options.
const (
	// DefaultDuelStep is the pause between two moves of an AI duel.
	DefaultDuelStep = time.Second
	// editTimeout bounds an edit of a board made outside an interaction's
	// own deadline (a duel stopped at shutdown).
	editTimeout = 5 * time.Second
)

// lifecycle holds the settings and the plumbing of what happens to a game
// outside the interaction that changed it: clocks, the sweeper, duels and
// moderators.
type lifecycle struct {
	turnTime   time.Duration
	duelStep   time.Duration
	adminRoles []string
	// duels hands new duels to the running RunSweeper loop, which plays
	// them under its context.
	duels chan duelJob
	// retrains hands /ttt-admin retrain runs to the RunSweeper loop, which
	// runs them under its context (so they stop, and say so, at shutdown).
	retrains chan *retrainRun
	// progressEvery spaces the progress edits of a retrain's message.
	progressEvery time.Duration
	// tournamentSlots bounds the tournaments this process runs at once.
	tournamentSlots chan struct{}
}

// newLifecycle applies the defaults of o.
func newLifecycle(o Options) lifecycle {
	l := lifecycle{turnTime: o.TurnTime, duelStep: o.DuelStep, adminRoles: append([]string(nil), o.AdminRoles...),
		duels: make(chan duelJob), retrains: make(chan *retrainRun), tournamentSlots: make(chan struct{}, tournamentSweepBatch)}
	if l.turnTime <= 0 {
		l.turnTime = settings.DefaultTurnTime
	}
	if l.duelStep <= 0 {
		l.duelStep = DefaultDuelStep
	}
	if l.progressEvery = o.ProgressEvery; l.progressEvery <= 0 {
		l.progressEvery = DefaultProgressEvery
	}
	return l
}

// originalFetcher reads the message of an interaction's first response;
// *discordgo.Session has it. The bot uses it, when the Discord it is given
// has it, to learn the ID of a board sent as a new message.
type originalFetcher interface {
	InteractionResponse(interaction *discordgo.Interaction, options ...discordgo.RequestOption) (*discordgo.Message, error)
}

// track records on s the message that shows it, after a first response of
// type typ with data, so that a change made elsewhere (a timeout, /ttt
// resign, a moderator) can edit it. The ID of a new message (type 4) is
// read back from Discord, or, with a Discord that cannot read it (as in
// HTTP interactions mode), taken from an edit of the response to the same
// data. A failure is a warning: the game goes on, only its board is not
// edited later.
func (b *Bot) track(ctx context.Context, c *call, s *persistence.Session, typ discordgo.InteractionResponseType, data *discordgo.InteractionResponseData) *persistence.Session {
	if !s.Status.Live() {
		return s
	}
	var msg string
	switch {
	case typ == respUpdate && c.i.Message != nil:
		msg = c.i.Message.ID
	case typ == respMessage:
		var m *discordgo.Message
		var err error
		if f, ok := b.base.(originalFetcher); ok {
			m, err = f.InteractionResponse(c.i, discordgo.WithContext(ctx))
		} else {
			rest.Rewind(data.Files)
			m, err = b.dc.InteractionResponseEdit(c.i, &discordgo.WebhookEdit{
				Content: &data.Content, Components: &data.Components, AllowedMentions: data.AllowedMentions,
				Files: data.Files, Attachments: replacedFiles(data),
			}, discordgo.WithContext(ctx))
		}
		if err != nil {
			// Without its message the board cannot be edited: a sweeper
			// posts it anew (see delivery.go), or the next click on it
			// records it.
			b.owe(ctx, s, s.Version, oweRetry)
			c.warnings = append(c.warnings, fmt.Errorf("bot: read the board message of game %s: %w", s.ID, err))
			return s
		}
		msg = m.ID
	}
	return b.setMessage(ctx, c, s, msg)
}

// setMessage records msg as the message of s unless it already is.
func (b *Bot) setMessage(ctx context.Context, c *call, s *persistence.Session, msg string) *persistence.Session {
	if msg == "" || msg == s.Message {
		return s
	}
	next, err := retry(func() (*persistence.Session, error) { return b.store.SetMessage(ctx, s.ID, 0, msg) })
	if err != nil {
		c.warnings = append(c.warnings, fmt.Errorf("bot: record the board message of game %s: %w", s.ID, err))
		return s
	}
	return next
}

// view is how the messages everyone in a server's channels sees are
// shown: their locale and the board's labels.
type view struct {
	loc    discordgo.Locale
	labels settings.Labels
}

// publicView is the view of the messages everyone in guild's channels
// sees: the server's language setting, or fallback when it set none, and
// its board labels; fallback and the default labels outside a server, or
// when its settings cannot be read (the error says why). c, if not nil,
// gets the warnings of reading the settings.
func (b *Bot) publicView(ctx context.Context, c *call, guild string, fallback discordgo.Locale) (view, error) {
	v := view{loc: fallback}
	if guild == "" {
		return v, nil
	}
	st, err := b.settings(ctx, c, guild)
	if err != nil {
		return v, fmt.Errorf("bot: language and board labels of guild %s: %w", guild, err)
	}
	if st.Language != "" {
		v.loc = st.Language
	}
	v.labels = st.Labels
	return v, nil
}

// editBoard edits the message that shows s (if known) to its current
// state: the board of a game, or the challenge it still is. It is in the
// language of s's server when the server set one, else in loc (the
// locale it was shown in, or i18n.DefaultLocale when that is not known).
//
// A board it could not show is left owed to the screen (see delivery.go),
// and one it showed is recorded as shown.
func (b *Bot) editBoard(ctx context.Context, loc discordgo.Locale, s *persistence.Session, ratings []render.PlayerRating) error {
	if s.Message == "" {
		return nil
	}
	if err := b.editMessage(rest.WithSuperseded(ctx, b.movedOn(ctx, s)), loc, s, ratings); err != nil {
		if errors.Is(err, rest.ErrSuperseded) {
			return nil // the newer board is shown by whoever made it
		}
		b.owe(ctx, s, s.Version, oweRetry)
		return err
	}
	b.afterDelivery(ctx, loc, s)
	return nil
}

// movedOn returns a check of whether game s has moved on from the board
// of it being written (more moves, or another status), for the retries
// of that write (withSuperseded).
func (b *Bot) movedOn(ctx context.Context, s *persistence.Session) func() bool {
	return func() bool {
		cur, err := b.store.Game(ctx, s.ID)
		return err == nil && (cur.Ply() > s.Ply() || cur.Status != s.Status)
	}
}

// editMessage is editBoard without the bookkeeping of what is on screen.
func (b *Bot) editMessage(ctx context.Context, loc discordgo.Locale, s *persistence.Session, ratings []render.PlayerRating) error {
	v, err := b.publicView(ctx, nil, s.Guild, loc)
	if err != nil {
		// The edit matters more than its language.
		b.log.Warn("bot: board edited in its fallback language and labels", "game", string(s.ID), "err", err)
	}
	var data *discordgo.InteractionResponseData
	if wasChallenge(s) {
		data, err = b.render.Challenge(v.loc, s, "")
	} else {
		data, err = b.render.Board(v.loc, v.labels, s, ratings)
	}
	if err != nil {
		return err
	}
	_, err = b.dc.ChannelMessageEditComplex(&discordgo.MessageEdit{
		ID: s.Message, Channel: s.Channel(), Content: &data.Content, Components: &data.Components,
		AllowedMentions: data.AllowedMentions, Files: data.Files, Attachments: replacedFiles(data),
	}, discordgo.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("bot: edit the board of game %s: %w", s.ID, err)
	}
	return nil
}

// replacedFiles is the attachments field of an edit to data: with files
// to send, none of the message's old files is kept (a board's new picture
// replaces the old one); without, the field is left out and they stay.
func replacedFiles(data *discordgo.InteractionResponseData) *[]*discordgo.MessageAttachment {
	if len(data.Files) == 0 {
		return nil
	}
	return &[]*discordgo.MessageAttachment{}
}

// wasChallenge reports whether s is a challenge that never became a game:
// still open, declined, withdrawn or expired unaccepted. (An accepted game
// with a clock ends on time, not by expiry.)
func wasChallenge(s *persistence.Session) bool {
	if s.Challenger == game.Empty {
		return false
	}
	return s.Status == persistence.StatusOpen || s.End == persistence.ByDecline ||
		s.End == persistence.ByExpiry && s.Ply() == 0
}

// finish records a finished game for the stats and the corpus and returns
// the rating changes of a game between two people. It is idempotent by
// game ID, so whoever finished the game calls it and a retry is harmless;
// failures are warnings.
func (b *Bot) finish(ctx context.Context, c *call, s *persistence.Session) []render.PlayerRating {
	ratings, err := b.finishGame(ctx, s)
	if err != nil {
		c.warnings = append(c.warnings, err)
	}
	return ratings
}

// finishGame is finish outside an interaction.
func (b *Bot) finishGame(ctx context.Context, s *persistence.Session) ([]render.PlayerRating, error) {
	if s.Tournament != "" && !s.Status.Live() {
		// A sweeper takes the game's end into the tournament at once.
		if err := b.store.PokeTournament(ctx, s.Tournament); err != nil {
			b.log.Warn("bot: poke the tournament of a finished game", "game", s.ID, "tournament", s.Tournament, "err", err)
		}
	}
	if s.Status != persistence.StatusFinished || s.Result != game.XWins && s.Result != game.OWins && s.Result != game.Draw {
		return nil, nil // still live, or ended without a result
	}
	if s.Puzzle != "" {
		return nil, b.finishPuzzle(ctx, s)
	}
	x, o := s.Players[0].User, s.Players[1].User
	st, err := b.settings(ctx, nil, s.Guild)
	if err != nil {
		// The game is recorded anyway, under the defaults.
		b.log.Warn("bot: settings of a finished game's server unread; defaults apply", "game", s.ID, "err", err)
	}
	rated := x != "" && o != "" && x != o && st.Rated && !s.Unrated
	var before [2]float64
	var errs []error
	if rated {
		for i, u := range []string{x, o} {
			r, err := b.rating(ctx, s.Guild, u)
			before[i] = r
			errs = append(errs, err)
		}
	}
	fg := finishedGame(s)
	fg.Unrated = !st.Rated || s.Unrated
	record := b.store.RecordGame
	if persistence.IsWideRules(s.Rules) {
		// Past 8x8 a game counts in the stats and ratings and is archived
		// (histories, replays), but the corpus keeps game's cells and does
		// not take it yet.
		record = func(ctx context.Context, g persistence.FinishedGame) error {
			_, err := b.store.RecordResult(ctx, g)
			return err
		}
	}
	if err := record(ctx, fg); err != nil {
		// Still keep it for replays and reviews: its board offers them.
		return nil, errors.Join(fmt.Errorf("bot: record game %s: %w", s.ID, err), b.archive(ctx, s, nil))
	}
	if !rated || errors.Join(errs...) != nil {
		return nil, errors.Join(append(errs, b.archive(ctx, s, nil))...)
	}
	var out []render.PlayerRating
	for i, u := range []string{x, o} {
		after, err := b.rating(ctx, s.Guild, u)
		if err != nil {
			return nil, errors.Join(err, b.archive(ctx, s, nil))
		}
		out = append(out, render.PlayerRating{User: u, Before: before[i], After: after})
	}
	return out, b.archive(ctx, s, out)
}

// archive keeps a finished game for replays, reviews and the players'
// histories, with the rating changes of a rated game (X's then O's).
func (b *Bot) archive(ctx context.Context, s *persistence.Session, ratings []render.PlayerRating) error {
	g := persistence.ArchivedGame{
		ID: s.ID, Guild: s.Guild, Rules: s.Rules, Start: s.Start, Moves: s.Moves, WideMoves: s.WideMoves,
		Result: s.Result, End: s.End, Finished: s.Updated, Assisted: s.Assisted,
	}
	for i, st := range s.Players {
		g.Players[i] = persistence.Player{User: st.User, AI: st.AI.Level}
	}
	if len(ratings) == 2 {
		for i, r := range ratings {
			g.Ratings[i] = persistence.RatingChange{Rated: true, Before: r.Before, After: r.After}
		}
	}
	if err := b.store.ArchiveGame(ctx, g); err != nil {
		return fmt.Errorf("bot: archive game %s: %w", s.ID, err)
	}
	return nil
}

// rating is a user's rating in guild (RatingStart before any rated game).
func (b *Bot) rating(ctx context.Context, guild, user string) (float64, error) {
	st, err := b.store.Stats(ctx, guild, user)
	switch {
	case errors.Is(err, persistence.ErrNotFound):
		return persistence.RatingStart, nil
	case err != nil:
		return 0, fmt.Errorf("bot: rating of %s: %w", user, err)
	case st.Rated == 0:
		return persistence.RatingStart, nil
	}
	return st.Rating, nil
}

// conflictTries is how often retry tries a change.
const conflictTries = 4

// retry runs op again while it fails with persistence.ErrConflict: for a
// change at "any version" that lost a compare-and-set to another change
// (the board's message recorded just after it was shown, a move) and that
// checks the game's state itself, so that trying again is correct.
func retry[T any](op func() (T, error)) (T, error) {
	var v T
	var err error
	for range conflictTries {
		if v, err = op(); !errors.Is(err, persistence.ErrConflict) {
			return v, err
		}
	}
	return v, err
}
