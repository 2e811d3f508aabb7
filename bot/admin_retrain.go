package bot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/retrain"
)

// DefaultProgressEvery is the default of Options.ProgressEvery: a
// retrain's message shows its progress at most every 2 seconds.
const DefaultProgressEvery = 2 * time.Second

// Timing of a retrain's message.
const (
	// retrainStartWait is how long /ttt-admin retrain waits for the job to
	// take the lock (or fail to) before answering, so that "already
	// running" is answered as such; past it, it answers "started".
	retrainStartWait = time.Second
	// newGamesWait bounds the count of a board's new games before a
	// retrain without the force option; past it the job's own check
	// decides. With retrainStartWait it stays well within the 3 seconds
	// Discord gives the first answer.
	newGamesWait = 500 * time.Millisecond
	// interactionTokenLife is how long Discord accepts an interaction's
	// token for edits; tokenMargin is how long before that the bot stops
	// using it.
	interactionTokenLife = 15 * time.Minute
	tokenMargin          = time.Minute
)

// Discord's JSON error codes of an expired or unknown interaction token.
const (
	codeUnknownWebhook      = 10015
	codeInvalidWebhookToken = 50027
)

// retrainRun is one /ttt-admin retrain, handed by the command to the
// RunSweeper loop, which runs the job and shows its progress and report
// on the command's message.
type retrainRun struct {
	i *discordgo.Interaction
	// loc is the locale of the run's public message: the server's
	// language when the command was given, else the moderator's.
	loc      discordgo.Locale
	req      retrain.Request
	received time.Time
	// started gets nil once the job holds the lock (its first stage past
	// "lock"), or the job's error if it ends before; it has room for one.
	started chan error
	// answered gets, from the command, whether the "started" message was
	// sent (so that there is a message to edit).
	answered chan bool

	// Used by the runner only.
	msgID      string // the message, once known
	viaChannel bool   // the token is expired: edit through the channel API
}

// retrainCommand handles /ttt-admin retrain: without the force option it
// first counts the board's new games and refuses, privately, when they
// are fewer than the job's minimum; then it hands the run to the
// RunSweeper loop, waits briefly for the job to take the lock, and answers
// that it started (a public message the progress and report then
// replace), or that a retrain is already running. The job checks the
// count again under its lock (another run may have used the games in
// between), and endRetrain shows that refusal on the message.
func (b *Bot) retrainCommand(ctx context.Context, c *call, r command.RetrainRequest) error {
	if b.retrain == nil {
		return &UserError{Key: render.KeyRetrainOff, Err: errors.New("bot: no retrain job configured")}
	}
	if !r.Force {
		if err := b.checkNewGames(ctx, c, r.Rules); err != nil {
			return err
		}
	}
	run := &retrainRun{
		i: c.i, loc: c.pub, received: b.now(),
		req:     retrain.Request{Rules: r.Rules, Trigger: retrain.TriggerModerator, By: c.user, Force: r.Force},
		started: make(chan error, 1), answered: make(chan bool, 1),
	}
	select {
	case b.lc.retrains <- run:
	case <-time.After(duelHandoff):
		return &UserError{Key: render.KeyRetrainOff, Err: errors.New("bot: retrain not started: no RunSweeper loop")}
	case <-ctx.Done():
		return ctx.Err()
	}
	answered := false
	defer func() { run.answered <- answered }()
	t := time.NewTimer(retrainStartWait)
	defer t.Stop()
	select {
	case err := <-run.started:
		var few *retrain.TooFewGamesError
		switch {
		case errors.Is(err, retrain.ErrRunning):
			return &UserError{Key: render.KeyRetrainRunning, Err: err}
		case errors.As(err, &few):
			return b.tooFewGames(c.loc, r.Rules, few.NewGames, few.Min, err)
		case errors.Is(err, context.Canceled):
			return &UserError{Key: render.KeyRetrainOff, Err: err} // the loop is stopping
		case err != nil:
			return err
		}
	case <-t.C: // still waiting for the lock or reading: it started
	case <-ctx.Done():
		return ctx.Err()
	}
	detail := r.Rules.String()
	if r.Force {
		detail += " forced"
	}
	b.audit(ctx, c, "retrain", detail)
	if err := b.respond(ctx, c, respMessage, b.render.RetrainStarted(c.pub, r.Rules, c.user)); err != nil {
		return err
	}
	answered = true
	return nil
}

// checkNewGames refuses a retrain of rules when the board has fewer new
// games since the last retrain than the job's minimum. It is the cheap
// check, made before anything is shown or locked: it counts only the new
// games. When they cannot be counted in time, it lets the run go on (a
// warning is logged) and the job's own check decides.
func (b *Bot) checkNewGames(ctx context.Context, c *call, rules game.Rules) error {
	cctx, cancel := context.WithTimeout(ctx, newGamesWait)
	defer cancel()
	n, err := b.retrain.NewGames(cctx, rules)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		c.warnings = append(c.warnings, fmt.Errorf("bot: new games not counted before the retrain; the job checks them: %w", err))
		return nil
	}
	if least := b.retrain.Config().MinNewGames; n < least {
		return b.tooFewGames(c.loc, rules, n, least, &retrain.TooFewGamesError{Rules: rules.String(), NewGames: n, Min: least})
	}
	return nil
}

// tooFewGames is the refusal of a retrain of rules with n new games, fewer
// than least, in loc.
func (b *Bot) tooFewGames(loc discordgo.Locale, rules game.Rules, n, least int, err error) *UserError {
	return &UserError{Key: render.KeyRetrainTooFew, Vars: b.tooFewVars(loc, rules, n, least), Err: err}
}

// tooFewVars are the values of render.KeyRetrainTooFew's placeholders in loc.
func (b *Bot) tooFewVars(loc discordgo.Locale, rules game.Rules, n, least int) []string {
	return []string{"rules", b.render.RulesText(loc, rules), "new", b.cat.Number(loc, n), "min", b.cat.Number(loc, least)}
}

// runRetrain runs a retrain under ctx (the RunSweeper loop's), edits the
// command's message with the progress at most every Options.ProgressEvery, and
// ends it with the report: an embed with the training chart attached.
// When ctx ends first, the job stops (publishing nothing) and the message
// says so.
func (b *Bot) runRetrain(ctx context.Context, run *retrainRun) {
	log := b.log.With("interaction", run.i.ID, "rules", run.req.Rules.String(), "by", run.req.By)
	prog := &retrainProgress{first: make(chan struct{}, 1)}
	done := b.startRetrainJob(ctx, run, prog)

	shown := <-run.answered // the command always answers
	if shown {
		log.Info("bot: retrain started")
		b.retrainMessageID(ctx, run, log)
	}
	tick := time.NewTicker(b.lc.progressEvery)
	defer tick.Stop()
	firstShown := false
	for {
		select {
		case res := <-done:
			select {
			case <-prog.first:
				if !firstShown {
					// A quick run still shows where it went.
					b.showRetrainProgress(ctx, run, prog, shown, true, log)
				}
			default:
			}
			b.endRetrain(ctx, run, shown, res.rep, res.err, log)
			return
		case <-prog.first:
			firstShown = true
			b.showRetrainProgress(ctx, run, prog, shown, true, log)
		case <-tick.C:
			b.showRetrainProgress(ctx, run, prog, shown, false, log)
		}
	}
}

// retrainProgress is what a running retrain has reported, shared by the
// job's goroutine and the loop that shows it.
type retrainProgress struct {
	mu        sync.Mutex
	last      retrain.Progress
	fresh     bool
	started   bool
	signalled bool // first has been sent
	// first is signalled by the first progress past the lock: it is shown
	// at once (and always before the report), the rest at most every
	// ProgressEvery.
	first chan struct{}
}

// retrainResult is how a retrain ended: its report and error.
type retrainResult struct {
	rep retrain.Report
	err error
}

// startRetrainJob runs the retrain job in a goroutine, recording its
// progress in prog and telling run.started once the job holds the lock
// (or, failing that, how it ended). Its result arrives on the channel
// returned.
func (b *Bot) startRetrainJob(ctx context.Context, run *retrainRun, prog *retrainProgress) <-chan retrainResult {
	done := make(chan retrainResult, 1)
	go func() {
		rep, err := b.retrain.Run(ctx, run.req, func(p retrain.Progress) {
			prog.mu.Lock()
			defer prog.mu.Unlock()
			prog.last, prog.fresh = p, true
			if p.Stage != "lock" && !prog.signalled {
				prog.signalled = true
				prog.first <- struct{}{} // buffered: never blocks, sent once
			}
			if !prog.started && p.Stage != "lock" {
				prog.started = true
				run.started <- nil
			}
		})
		prog.mu.Lock()
		if !prog.started {
			prog.started = true
			run.started <- err
		}
		prog.mu.Unlock()
		done <- retrainResult{rep, err}
	}()
	return done
}

// showRetrainProgress edits the command's message, when it was shown, with
// the latest progress if it is new; the first is shown even when the run
// is already finishing.
func (b *Bot) showRetrainProgress(ctx context.Context, run *retrainRun, prog *retrainProgress, shown, first bool, log *slog.Logger) {
	prog.mu.Lock()
	p, changed := prog.last, prog.fresh
	prog.fresh = false
	prog.mu.Unlock()
	if !shown || !changed && !first || p.Stage == "done" && !first {
		return
	}
	text := b.render.RetrainProgress(run.loc, run.req.Rules, run.req.By, p, run.received)
	ectx, cancel := context.WithTimeout(ctx, editTimeout)
	if err := b.editRetrain(ectx, run, text, nil, nil); err != nil && ctx.Err() == nil {
		log.Warn("bot: show retrain progress", "err", err)
	}
	cancel()
}

// retrainMessageID learns the ID of the command's message, needed to edit
// it through the channel API once the interaction's token expires, when
// the Discord in use can read it back (a gateway session can; in HTTP
// mode the first edit tells it instead).
func (b *Bot) retrainMessageID(ctx context.Context, run *retrainRun, log *slog.Logger) {
	f, ok := b.base.(originalFetcher)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, editTimeout)
	defer cancel()
	m, err := f.InteractionResponse(run.i, discordgo.WithContext(ctx))
	if err != nil {
		log.Warn("bot: read the retrain message", "err", err)
		return
	}
	run.msgID = m.ID
}

// endRetrain logs the run's result and, if the command's message was
// shown, replaces it with the report and the chart.
func (b *Bot) endRetrain(ctx context.Context, run *retrainRun, shown bool, rep retrain.Report, err error, log *slog.Logger) {
	stopped := ctx.Err() != nil
	outcome := render.RetrainOutcome(rep, err, stopped)
	attrs := []any{"outcome", outcome, "reason", rep.Reason, "promoted", rep.Promoted}
	if rep.Published != nil {
		attrs = append(attrs, "version", rep.Published.Version)
	}
	var few *retrain.TooFewGamesError
	switch {
	case errors.Is(err, retrain.ErrRunning):
		log.Info("bot: retrain refused: another one is running", "err", err)
		if shown { // the lock was slow to answer: the message said "started"
			b.showRefused(ctx, run, b.cat.Text(run.loc, render.KeyRetrainRunning), log)
		}
		return
	case errors.As(err, &few):
		// The games counted before the run were used by another run in
		// between, or could not be counted in time: the message, which
		// said "started", says why nothing was trained.
		log.Info("bot: retrain refused: too few new games", "new_games", few.NewGames, "min_new_games", few.Min, "err", err)
		if shown {
			b.showRefused(ctx, run, b.cat.Text(run.loc, render.KeyRetrainTooFew, b.tooFewVars(run.loc, run.req.Rules, few.NewGames, few.Min)...), log)
		}
		return
	case err != nil && !stopped:
		log.Error("bot: retrain failed", append(attrs, "err", err)...)
	default:
		log.Info("bot: retrain ended", append(attrs, "err", err)...)
	}
	if !shown {
		return
	}
	// The report is shown even when ctx (the loop's) has ended.
	ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), editTimeout)
	defer cancel()
	var chart []byte
	if len(rep.Epochs) > 0 {
		var cerr error
		if chart, cerr = retrain.Chart(rep); cerr != nil {
			log.Warn("bot: draw the retrain chart", "err", cerr)
			chart = nil
		}
	}
	var cfg retrain.Config
	if b.retrain != nil {
		cfg = b.retrain.Config()
	}
	embed := b.render.RetrainReport(run.loc, rep, outcome, cfg, chart != nil)
	if err := b.editRetrain(ectx, run, "", []*discordgo.MessageEmbed{embed}, chart); err != nil {
		log.Error("bot: show the retrain report", "err", err)
	}
}

// showRefused replaces the message of a run the job refused with text,
// even when ctx (the loop's) has ended.
func (b *Bot) showRefused(ctx context.Context, run *retrainRun, text string, log *slog.Logger) {
	ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), editTimeout)
	defer cancel()
	if err := b.editRetrain(ectx, run, text, nil, nil); err != nil {
		log.Warn("bot: show a refused retrain", "err", err)
	}
}

// editRetrain replaces the command's message with content, embeds and,
// if chart is not nil, the chart as the attachment render.ChartName. Interaction
// tokens last 15 minutes and a retrain may take longer: past that (or
// once Discord says the token is expired), the message is edited through
// the channel API instead, which the bot may do since it sent it.
func (b *Bot) editRetrain(ctx context.Context, run *retrainRun, content string, embeds []*discordgo.MessageEmbed, chart []byte) error {
	files := func() []*discordgo.File {
		if chart == nil {
			return nil
		}
		return []*discordgo.File{{Name: render.ChartName, ContentType: "image/png", Reader: bytes.NewReader(chart)}}
	}
	if embeds == nil {
		embeds = []*discordgo.MessageEmbed{}
	}
	if !run.viaChannel && b.now().Sub(run.received) < interactionTokenLife-tokenMargin {
		m, err := b.dc.InteractionResponseEdit(run.i, &discordgo.WebhookEdit{
			Content: &content, Embeds: &embeds, Files: files(), AllowedMentions: render.NoMentions(),
		}, discordgo.WithContext(ctx))
		if err == nil {
			if m != nil && m.ID != "" {
				run.msgID = m.ID
			}
			return nil
		}
		if !tokenExpired(err) || run.msgID == "" {
			return fmt.Errorf("bot: edit the retrain message: %w", err)
		}
	}
	if run.msgID == "" {
		return fmt.Errorf("bot: edit the retrain message: the interaction token expired and the message ID is unknown")
	}
	run.viaChannel = true
	_, err := b.dc.ChannelMessageEditComplex(&discordgo.MessageEdit{
		ID: run.msgID, Channel: run.i.ChannelID, Content: &content, Embeds: &embeds, Files: files(),
		AllowedMentions: render.NoMentions(),
	}, discordgo.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("bot: edit the retrain message through the channel: %w", err)
	}
	return nil
}

// tokenExpired reports whether err is Discord refusing an interaction
// token that has expired.
func tokenExpired(err error) bool {
	var re *discordgo.RESTError
	if !errors.As(err, &re) || re.Message == nil {
		return false
	}
	return re.Message.Code == codeInvalidWebhookToken || re.Message.Code == codeUnknownWebhook
}

// model handles /ttt-admin model: it shows the board's network, or with
// the rollback option makes the previous registry version current again
// (every bot switches to it) and says which version is now live.
func (b *Bot) model(ctx context.Context, c *call, r command.ModelRequest) error {
	key := r.Rules.String()
	if r.Rollback {
		m, err := b.store.RollbackModel(ctx, key)
		if errors.Is(err, persistence.ErrNotFound) {
			return &UserError{Key: render.KeyNoRollback, Vars: []string{"rules", b.render.RulesText(c.loc, r.Rules)}, Err: err}
		}
		if err != nil {
			return err
		}
		b.audit(ctx, c, "rollback", key+" v"+strconv.FormatInt(m.Version, 10))
		return b.respond(ctx, c, respMessage, b.render.ModelRolledBack(c.pub, r.Rules, c.user, m))
	}
	metas, cur, err := b.store.ModelVersions(ctx, key)
	if err != nil {
		return err
	}
	var info render.ModelInfo
	for _, m := range metas {
		switch {
		case m.Version == cur:
			info.Current = m
		case m.Version < cur:
			info.Kept = append(info.Kept, m.Version)
		}
	}
	if b.models != nil {
		if n := b.models.Net(r.Rules); n != nil {
			info.Live, _ = b.models.Meta(r.Rules)
			info.HasLive, info.Params = true, n.Params()
		}
	}
	return b.respond(ctx, c, respMessage, b.render.Model(c.loc, r.Rules, info))
}

// checkNetwork refuses, before a game starts, a level that cannot play
// its rules now: a level that plays a network on rules that have none
// (ai.Registry.Plays fails with ai.ErrNoModel). The refusal lists the
// boards that have a network now, as the level's models say (in serve the
// live set: shipped weights or a published registry version).
func (b *Bot) checkNetwork(loc discordgo.Locale, level string, rules game.Rules) error {
	err := b.levels.Plays(level, rules)
	if !errors.Is(err, ai.ErrNoModel) {
		return nil // it plays, or fails later (an unknown level) where that is handled
	}
	vars := []string{"level", b.render.LevelText(loc, level), "rules", b.render.RulesText(loc, rules)}
	var nm *ai.NoModelError
	if errors.As(err, &nm) && len(nm.Have) > 0 {
		return &UserError{Key: render.KeyNoModelBoards, Vars: append(vars, "boards", b.render.BoardsText(loc, nm.Have)), Err: err}
	}
	return &UserError{Key: render.KeyNoModelLevel, Vars: vars, Err: err}
}
