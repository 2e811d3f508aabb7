package bot

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/ai/review"
	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/httpmode"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/metrics"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/bot/rest"
	"github.com/tttbot/ttt-bot/bot/settings"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/retrain"
	"github.com/tttbot/ttt-bot/sched"
)

// Defaults of Options.
const (
	// DefaultMoveTimeout is how long an AI may think before the bot gives
	// the first response to an interaction: well inside Discord's 3 second
	// acknowledgement window, leaving room for Redis and the network.
	DefaultMoveTimeout = 1500 * time.Millisecond
	// DefaultHandlerTimeout bounds everything done for one interaction,
	// waiting in the AI queue included (the answer is given first, so a
	// long wait is an edit that comes late, never a failed interaction).
	DefaultHandlerTimeout = 2 * time.Minute
	// maxLongMove bounds the thinking time of an AI whose budget exceeds
	// the move timeout (it thinks after the first response is sent).
	maxLongMove = command.MaxTimeMS*time.Millisecond + time.Second
	// replyTimeout bounds telling the user about an error, even when the
	// handler's own context has run out.
	replyTimeout = 5 * time.Second
)

// Deps are the required dependencies of a Bot.
type Deps struct {
	// Discord answers interactions and registers commands; in production
	// the *discordgo.Session.
	Discord rest.Discord
	// Store holds the games, stats and corpus.
	Store *persistence.Store
	// Levels are the AI levels offered by /ttt vs-ai.
	Levels *ai.Registry
	// i18n.Catalog holds the localised texts.
	Catalog *i18n.Catalog
	// Signer signs and checks the custom IDs of buttons; the Bot renders
	// with it too, so the buttons it shows are the ones it accepts.
	Signer *customid.Signer
	// Logger receives the one log line per failed interaction (and debug
	// lines for the others).
	Logger *slog.Logger
	// AppID is the application ID, for registering commands.
	AppID string
	// Models, if set, are the networks the neural and humanlike levels of
	// Levels play (a ModelWatcher keeps them current); /ttt-admin model
	// shows them, and those levels are refused on boards without one.
	// nil means no networks.
	Models *nn.Set
	// Retrain, if set, is the retrain job /ttt-admin retrain runs (in the
	// RunSweeper loop); nil means retraining is unavailable.
	Retrain *retrain.Job
}

// Options are a Bot's optional settings; the zero value asks for the
// defaults.
type Options struct {
	// Now is the clock for timing handlers; default time.Now.
	Now func() time.Time
	// Rand draws seeds for AI players and who moves first when the user
	// leaves it to chance; default a generator seeded from crypto/rand.
	// The Bot serialises its use.
	Rand *rand.Rand
	// MoveTimeout is how long an AI may think before the first response;
	// default DefaultMoveTimeout. An AI whose configured budget is longer
	// thinks after the board is shown and the board is edited after it.
	MoveTimeout time.Duration
	// HandlerTimeout bounds the handling of one interaction; default
	// DefaultHandlerTimeout.
	HandlerTimeout time.Duration
	// Metrics, if set, count interactions by type and outcome and time them.
	Metrics *metrics.Metrics
	// TurnTime is how long a player has for each move before losing on
	// time; default settings.DefaultTurnTime.
	TurnTime time.Duration
	// DuelStep is the pause between the moves of an AI duel; default
	// DefaultDuelStep.
	DuelStep time.Duration
	// AdminRoles are role IDs whose members may use /ttt-admin besides
	// members with the Manage Server permission.
	AdminRoles []string
	// ProgressEvery is the least time between two edits of a retrain's
	// message with its progress; default DefaultProgressEvery.
	ProgressEvery time.Duration
	// ChallengeCooldown is the least time between two challenges by one
	// user in one server; default DefaultChallengeCooldown, negative for
	// none.
	ChallengeCooldown time.Duration
	// MaxOpenChallenges is how many unanswered challenges one user may
	// have open in one server at once; default DefaultMaxOpenChallenges,
	// negative for no limit.
	MaxOpenChallenges int
	// RateBurst and RatePerSecond limit each user's commands and clicks,
	// across servers and replicas: a bucket of RateBurst actions refilled
	// at RatePerSecond a second; defaults DefaultRateBurst and
	// DefaultRatePerSecond, either negative for no limit.
	RateBurst     int
	RatePerSecond float64
	// Pool is the AI work queue: AI moves on boards larger than 3x3, or
	// with a budget over MoveTimeout (other than the cheap levels),
	// reviews, hints, puzzle draws and
	// duels wait for one of its workers, fairly across servers and
	// users, and new such work is refused while it is too long. Default
	// a sched.New(sched.Options{}) of the Bot's own; share one between
	// the Bot and the retrain job so training yields to players.
	Pool *sched.Pool
	// RetryPause is the first pause before a failed write to Discord (an
	// edit of a board, a post) is tried again; it doubles at each
	// attempt. Default 500 ms.
	RetryPause time.Duration
}

// ErrConfig reports a Bot built without a required dependency.
var ErrConfig = errors.New("bot: bad configuration")

// Bot handles Discord interactions: it parses commands and clicks, plays
// the games through the Store and the AI levels, and answers with rendered
// boards or short localised replies. A Bot is safe for concurrent use;
// HandleInteraction may run for many interactions at once.
type Bot struct {
	// dc is base wrapped so that the bot's own writes are retried (see
	// retryingDiscord); base is the Discord the Bot was given, for the
	// optional interfaces it may have.
	dc         rest.Discord
	base       rest.Discord
	store      *persistence.Store
	levels     *ai.Registry
	levelNames []string
	cat        *i18n.Catalog
	signer     *customid.Signer
	render     *render.Renderer
	log        *slog.Logger
	appID      string
	now        func() time.Time
	// sweeps counts the finished sweeps (Sweeps).
	sweeps         atomic.Int64
	moveTimeout    time.Duration
	handlerTimeout time.Duration
	lc             lifecycle
	metrics        *metrics.Metrics
	models         *nn.Set
	retrain        *retrain.Job
	// reviewers keeps review.Reviewers (each holds a solver table of up
	// to 6 MB) between reviews; one serves one review at a time.
	reviewers sync.Pool
	// pool is the AI work queue (see aiwork.go).
	pool *sched.Pool
	// abuse are the challenge and rate limits (see abuse.go).
	abuse abuseLimits
	// settingsCache keeps servers' settings briefly (see settings).
	settingsCache settingsCache

	mu  sync.Mutex // guards rng
	rng *rand.Rand
}

// New returns a Bot with the given dependencies, all required, and options.
func New(d Deps, o Options) (*Bot, error) {
	switch {
	case d.Discord == nil, d.Store == nil, d.Levels == nil, d.Catalog == nil, d.Signer == nil, d.Logger == nil:
		return nil, fmt.Errorf("%w: Discord, Store, Levels, i18n.Catalog, customid.Signer and Logger are required", ErrConfig)
	case d.AppID == "":
		return nil, fmt.Errorf("%w: no application ID", ErrConfig)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Rand == nil {
		var b [16]byte
		_, _ = crand.Read(b[:]) // crypto/rand.Read never returns an error
		o.Rand = rand.New(rand.NewPCG(binary.LittleEndian.Uint64(b[:8]), binary.LittleEndian.Uint64(b[8:])))
	}
	if o.MoveTimeout <= 0 {
		o.MoveTimeout = DefaultMoveTimeout
	}
	if o.HandlerTimeout <= 0 {
		o.HandlerTimeout = DefaultHandlerTimeout
	}
	b := &Bot{
		dc: d.Discord, store: d.Store, levels: d.Levels, levelNames: d.Levels.Names(),
		cat: d.Catalog, signer: d.Signer, render: render.NewRenderer(d.Catalog, d.Signer),
		log: d.Logger, appID: d.AppID, now: o.Now, rng: o.Rand,
		moveTimeout: o.MoveTimeout, handlerTimeout: o.HandlerTimeout, metrics: o.Metrics,
		lc: newLifecycle(o), models: d.Models, retrain: d.Retrain, abuse: newAbuseLimits(o),
	}
	// Reviews are deterministic: every Reviewer has the default options,
	// as bot review uses.
	b.reviewers.New = func() any { return review.New(review.Options{}) }
	b.pool = o.Pool
	if b.pool == nil {
		b.pool = sched.New(sched.Options{})
	}
	o.Metrics.WatchPool(b.pool)
	b.base = d.Discord
	b.dc = rest.NewRetrying(d.Discord, rest.Retry{First: o.RetryPause, Jitter: b.jitter,
		GiveUp: func(route string, attempts int, err error) {
			o.Metrics.DiscordGiveUp(route)
			b.log.Warn("bot: gave up a write to Discord", "route", route, "attempts", attempts, "err", err)
		},
		Retried: o.Metrics.DiscordRetried})
	return b, nil
}

// Inline returns the InlineDiscord the Bot answers through in HTTP
// interactions mode (its Deps.Discord), or nil if it was given another
// Discord: httpmode.NewEndpoint takes it.
func (b *Bot) Inline() *httpmode.InlineDiscord {
	in, _ := b.base.(*httpmode.InlineDiscord)
	return in
}

// Commands returns the application commands the Bot handles, as Register
// sends them.
func (b *Bot) Commands() []*discordgo.ApplicationCommand {
	return command.Commands(b.cat, b.levelNames)
}

// Register replaces the application's commands in guildID (or globally for
// ""), so Discord offers /ttt, /ttt-tournament and /ttt-admin.
func (b *Bot) Register(ctx context.Context, guildID string) error {
	if _, err := b.dc.ApplicationCommandBulkOverwrite(b.appID, guildID, b.Commands(), discordgo.WithContext(ctx)); err != nil {
		return fmt.Errorf("bot: register commands in guild %q: %w", guildID, err)
	}
	return nil
}

// call is the state of handling one interaction.
type call struct {
	i *discordgo.Interaction
	// loc is the user's own locale, for private answers; pub the locale
	// of the messages everyone in the channel sees (boards, challenges,
	// results): the server's language setting when it set one, else loc.
	loc, pub discordgo.Locale
	// labels is what the cells of the boards everyone sees show, from the
	// server's settings.
	labels settings.Labels
	user   string
	// acked is set once the first response is sent; later messages are
	// edits and follow-ups.
	acked bool
	// deferred is set while the first response is a deferral not yet
	// edited: an error then replaces its "thinking" message.
	deferred bool
	// warnings are failures that did not stop the answer (a game that
	// could not be recorded); they are logged.
	warnings []error
	// duplicate is set for a redelivered interaction, which is ignored.
	duplicate bool
	// settings are the server's settings as the playable middleware
	// checked them, for the handler of a command that starts a game.
	settings settings.Server
}

// HandleInteraction handles one interaction: a slash command or a click on
// a button. It is the one boundary of the bot's handlers: it recovers from
// panics, ignores redeliveries of an interaction already handled (by this
// process or another), logs failures and shows the user a short localised
// message instead of internal details, so every interaction is answered.
func (b *Bot) HandleInteraction(ctx context.Context, ic *discordgo.InteractionCreate) {
	if ic == nil || ic.Interaction == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, b.handlerTimeout)
	defer cancel()
	loc := b.cat.Resolve(ic.Locale)
	c := &call{i: ic.Interaction, loc: loc, pub: loc, user: userOf(ic.Interaction)}
	start := b.now()
	log := b.log.With("interaction", c.i.ID, "kind", c.i.Type.String(), "user", c.user,
		"guild", c.i.GuildID, "channel", c.i.ChannelID)
	done, outcome := b.metrics.Begin(c.i.Type.String(), start, b.now), metrics.OutcomePanic
	defer func() { done(outcome) }()
	defer func() {
		if r := recover(); r != nil {
			log.Error("bot: panic in interaction handler", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			b.fail(ctx, c, log, fmt.Errorf("bot: panic: %v", r))
		}
	}()
	err := b.handle(ctx, c)
	outcome = outcomeOf(err, c.duplicate)
	for _, w := range c.warnings {
		log.Warn("bot: interaction handled with a failure", "err", w)
	}
	switch {
	case err != nil:
		b.fail(ctx, c, log, err)
	case c.duplicate:
		log.Debug("bot: duplicate delivery ignored")
	default:
		log.Debug("bot: interaction handled", "elapsed", b.now().Sub(start))
	}
}

// fail logs err and tells the user, as an ephemeral reply when the
// interaction has not been answered yet and as a follow-up otherwise.
func (b *Bot) fail(ctx context.Context, c *call, log *slog.Logger, err error) {
	defer func() {
		if r := recover(); r != nil { // the reply itself must not take the process down
			log.Error("bot: panic while showing an error", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
		}
	}()
	switch key := render.ErrorKey(err); key {
	case render.KeyInternal:
		log.Error("bot: interaction failed", "err", err)
	case render.KeyStoreUnavailable:
		log.Warn("bot: interaction failed: the game store cannot be reached", "err", err)
	default:
		log.Info("bot: interaction refused", "reason", key, "err", err)
	}
	if c.i.Type != discordgo.InteractionApplicationCommand && c.i.Type != discordgo.InteractionMessageComponent {
		return // nothing else takes a message
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), replyTimeout)
	defer cancel()
	data := b.render.Error(c.loc, err)
	var sendErr error
	if c.deferred {
		b.replaceDeferred(ctx, c, data.Content)
		return
	}
	if !c.acked {
		sendErr = b.respond(ctx, c, discordgo.InteractionResponseChannelMessageWithSource, data)
	} else {
		_, sendErr = b.dc.FollowupMessageCreate(c.i, true, &discordgo.WebhookParams{
			Content: data.Content, Flags: data.Flags, AllowedMentions: data.AllowedMentions,
		}, discordgo.WithContext(ctx))
	}
	if sendErr != nil {
		log.Error("bot: could not show the error", "err", sendErr)
	}
}

// handle routes an interaction after checking it was not handled before
// (a redelivery takes nothing from the rate limit) and that the user is
// within the rate limit.
func (b *Bot) handle(ctx context.Context, c *call) error {
	if c.user == "" {
		return fmt.Errorf("bot: interaction %s has no user", c.i.ID)
	}
	if c.i.Type == discordgo.InteractionApplicationCommandAutocomplete {
		// Suggestions only read, and come with every key typed: neither
		// recorded as delivered nor counted against the rate limit.
		return b.suggestCells(ctx, c)
	}
	first, err := b.store.FirstDelivery(ctx, c.i.ID, 0)
	if err != nil {
		return err
	}
	if !first {
		c.duplicate = true
		return nil
	}
	if err := b.throttle(ctx, c); err != nil {
		return err
	}
	v, err := b.publicView(ctx, c, c.i.GuildID, c.loc)
	if err != nil {
		c.warnings = append(c.warnings, err) // the user's own language applies
	}
	c.pub, c.labels = v.loc, v.labels
	switch c.i.Type {
	case discordgo.InteractionApplicationCommand:
		return b.command(ctx, c)
	case discordgo.InteractionMessageComponent:
		return b.component(ctx, c)
	}
	return nil // autocomplete and modals: nothing of ours uses them yet
}

// respond sends the first response.
func (b *Bot) respond(ctx context.Context, c *call, typ discordgo.InteractionResponseType, data *discordgo.InteractionResponseData) error {
	if data != nil {
		if typ == respUpdate && data.Attachments == nil {
			data.Attachments = replacedFiles(data)
		}
		rest.Rewind(data.Files)
	}
	err := b.dc.InteractionRespond(c.i, &discordgo.InteractionResponse{Type: typ, Data: data}, discordgo.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("bot: respond to interaction %s: %w", c.i.ID, err)
	}
	c.acked, c.deferred = true, typ == respDeferred
	return nil
}

// replaceDeferred turns a deferred answer's "thinking" message into text
// (an apology or a refusal), even when the handler's own context has run
// out, so that no placeholder is left behind; a failure is a warning.
func (b *Bot) replaceDeferred(ctx context.Context, c *call, text string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), replyTimeout)
	defer cancel()
	empty := []discordgo.MessageComponent{}
	embeds := []*discordgo.MessageEmbed{}
	if _, err := b.dc.InteractionResponseEdit(c.i, &discordgo.WebhookEdit{Content: &text, Components: &empty, Embeds: &embeds},
		discordgo.WithContext(ctx)); err != nil {
		c.warnings = append(c.warnings, fmt.Errorf("bot: replace the deferred answer to %s: %w", c.i.ID, err))
	}
}

// editOriginal replaces the message of the first response.
func (b *Bot) editOriginal(ctx context.Context, c *call, data *discordgo.InteractionResponseData) error {
	rest.Rewind(data.Files)
	_, err := b.dc.InteractionResponseEdit(c.i, &discordgo.WebhookEdit{
		Content: &data.Content, Components: &data.Components, AllowedMentions: data.AllowedMentions,
		Files: data.Files, Attachments: replacedFiles(data),
	}, discordgo.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("bot: edit response to interaction %s: %w", c.i.ID, err)
	}
	c.deferred = false
	return nil
}

// userOf returns the ID of the user who caused the interaction.
func userOf(i *discordgo.Interaction) string {
	switch {
	case i.Member != nil && i.Member.User != nil:
		return i.Member.User.ID
	case i.User != nil:
		return i.User.ID
	}
	return ""
}

// seed returns a fresh seed for an AI player, below command.MaxSeed so the user
// can retype it.
func (b *Bot) seed() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.rng.Uint64N(command.MaxSeed + 1)
}

// jitter returns a number in [0, 1) for the pauses between retries.
func (b *Bot) jitter() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.rng.Float64()
}

// coin returns a fair coin toss.
func (b *Bot) coin() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.rng.IntN(2) == 0
}

// outcomeOf names how an interaction ended, for ttt_interactions_total.
func outcomeOf(err error, duplicate bool) string {
	switch {
	case err != nil && (render.ErrorKey(err) == render.KeyInternal || render.ErrorKey(err) == render.KeyStoreUnavailable):
		return metrics.OutcomeError
	case err != nil:
		return metrics.OutcomeRefused
	case duplicate:
		return metrics.OutcomeDuplicate
	}
	return metrics.OutcomeOK
}
