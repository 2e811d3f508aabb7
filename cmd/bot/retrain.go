package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/tttbot/ttt-bot/ai/train"
	"github.com/tttbot/ttt-bot/bot/settings"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/retrain"
	"github.com/tttbot/ttt-bot/weights"
)

// retrainCommand is "bot retrain": the retrain job, once.
func retrainCommand() *command {
	return &command{
		name:     "retrain",
		synopsis: "[-rules R] [-force] [-epochs E] [-gate-games N] [-lease D] [-json]",
		summary:  "run the retrain job once (for cron): train, gate and publish a board's network",
		about: `Retrain runs the retrain job that serve runs periodically and moderators
start with /ttt-admin retrain: it trains a new network for a board on the
corpus, plays it against the live model and the fixed baselines, and
publishes it to the model registry (every running bot switches to it) only
if it is no worse; a rejected candidate is kept for inspection. With
-rules it retrains that board, and refuses (exit 2) when it has fewer
than RETRAIN_MIN_GAMES new finished games since its last run; -force runs
it anyway. Without -rules it goes through every preset board and skips
those with fewer new games, like the periodic job (-force: none is
skipped). Progress goes to standard error; the report (-json: as JSON)
to standard output.

Only one job runs at a time across all processes: if another holds the
lock, retrain says so and exits 1; the lock of a process that died frees
itself after -lease. The exit status is 0 when every run ended with the
candidate promoted or rejected, 1 otherwise (an error, the time limit, the
lock held elsewhere, Ctrl-C); the live model is then untouched.
RETRAIN_TIME_LIMIT, RETRAIN_CPU_SHARE and RETRAIN_MIN_GAMES are read as
serve reads them (see "bot help serve").

` + redisHelp,
		run: runRetrain,
	}
}

// runRetrain parses retrain's flags and runs the job.
func runRetrain(ctx context.Context, e *env, cmd *command, args []string) error {
	var fl retrainFlags
	fs := newFlagSet(cmd)
	fl.register(fs)
	if err := e.parseFlags(cmd, fs, args); err != nil {
		return err
	}
	settings, problems := loadRetrainSettings(os.Getenv)
	if len(problems) > 0 {
		return badInput("%s", strings.Join(problems, "; "))
	}
	var only *game.Rules
	if strings.TrimSpace(fl.rules) != "" {
		r, err := game.ParseRules(fl.rules)
		if err != nil {
			return badInput("-rules: %s", explain(err))
		}
		only = &r
	}

	store, closeStore, err := e.openStore(ctx, e.stderr)
	if err != nil {
		return err
	}
	defer closeStore()
	cfg := retrainConfig(settings)
	cfg.Lease = fl.lease
	cfg.Now = e.now
	cfg.Train.Epochs = fl.epochs
	cfg.Gate.Games = fl.gateGames
	host, _ := os.Hostname()
	rr := &retrainRun{
		e:      e,
		job:    retrain.New(store, cfg),
		base:   retrain.Request{Trigger: retrain.TriggerCLI, By: host, Force: fl.force},
		asJSON: fl.asJSON,
		bar:    newProgressBar(e.stderr, e.now),
	}
	if only != nil {
		return rr.one(ctx, *only)
	}
	return rr.all(ctx)
}

// retrainFlags are retrain's flags.
type retrainFlags struct {
	rules             string
	epochs, gateGames int // 0: the job's default
	lease             time.Duration
	force, asJSON     bool
}

// register defines the flags on fs, with their defaults.
func (fl *retrainFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&fl.rules, "rules", "", rulesHelp+" (default every preset board with enough new games)")
	fs.Func("epochs", "`number` of training epochs (default ai/train's for the board)", func(s string) error {
		v, err := parseCount(s, "number of epochs")
		fl.epochs = v
		return err
	})
	fs.Func("gate-games", fmt.Sprintf("`number` of gate games against each opponent (default %d)", retrain.DefaultGateGames), func(s string) error {
		v, err := parseCount(s, "number of gate games")
		fl.gateGames = v
		return err
	})
	fl.lease = retrain.DefaultLease
	fs.Func("lease", fmt.Sprintf("the retrain lock's lease, a `duration`: renewed while the job runs, it frees the lock of a job that died (default %s)", fl.lease), func(s string) error {
		v, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil || v < 100*time.Millisecond {
			return errors.New(`the lease is a duration of at least 100ms, like "30s"`)
		}
		fl.lease = v
		return nil
	})
	fs.BoolVar(&fl.force, "force", false, "retrain even with fewer than RETRAIN_MIN_GAMES new games since the last run")
	fs.BoolVar(&fl.asJSON, "json", false, "print the report as JSON (an array of reports without -rules)")
}

// retrainRun is a retrain command under way: the job, the request's
// fields shared by every board (trigger, host, -force), the output and
// the progress bar.
type retrainRun struct {
	e      *env
	job    *retrain.Job
	base   retrain.Request
	asJSON bool
	bar    *progressBar
}

// progress shows the job's progress on the bar.
func (rr *retrainRun) progress(p retrain.Progress) {
	switch p.Stage {
	case "lock": // taken at once, or the run fails with ErrRunning
		return
	case "done":
		rr.bar.finish()
		return
	}
	rr.bar.prefix = p.Rules + " "
	rr.bar.update(p.Stage, p.Done, p.Total, p.Epoch)
}

// run runs the job for the board r.
func (rr *retrainRun) run(ctx context.Context, r game.Rules) (retrain.Report, error) {
	req := rr.base
	req.Rules = r
	rep, err := rr.job.Run(ctx, req, rr.progress)
	rr.bar.finish()
	return rep, err
}

// one retrains the board r (-rules) and prints its report.
func (rr *retrainRun) one(ctx context.Context, r game.Rules) error {
	rep, err := rr.run(ctx, r)
	if err != nil {
		return retrainError(r, rep, err)
	}
	if rr.asJSON {
		return writeJSON(rr.e.stdout, rep)
	}
	printRetrain(rr.e.stdout, rep)
	return nil
}

// all retrains every preset board with enough new games (any with
// -force), printing each report as its run ends (-json: all of them at
// the end), and stops at the first run that fails.
func (rr *retrainRun) all(ctx context.Context) error {
	e, job := rr.e, rr.job
	reports := []retrain.Report{}
	for _, r := range job.Config().Rules {
		n, err := job.NewGames(ctx, r)
		if err != nil {
			return err
		}
		if n < job.Config().MinNewGames && !rr.base.Force {
			fmt.Fprintf(e.stderr, "%s: %d new %s since the last run, fewer than RETRAIN_MIN_GAMES (%d); skipped\n",
				r, n, plural(n, "game", "games"), job.Config().MinNewGames)
			continue
		}
		rep, err := rr.run(ctx, r)
		if err != nil {
			if rr.asJSON && rep.Rules != "" {
				reports = append(reports, rep)
				_ = writeJSON(e.stdout, reports)
			}
			return retrainError(r, rep, err)
		}
		reports = append(reports, rep)
		if !rr.asJSON {
			printRetrain(e.stdout, rep)
		}
	}
	if rr.asJSON {
		return writeJSON(e.stdout, reports)
	}
	if len(reports) == 0 {
		fmt.Fprintln(e.stdout, "no board had enough new games; nothing retrained")
	}
	return nil
}

// retrainConfig returns the retrain job's configuration from the
// settings: every preset board, the shipped weights as defaults.
func retrainConfig(s retrainSettings) retrain.Config {
	var rules []game.Rules
	for _, p := range settings.Presets() {
		rules = append(rules, p.Rules)
	}
	return retrain.Config{
		Rules:       rules,
		Interval:    s.interval,
		MinNewGames: s.minGames,
		TimeLimit:   s.timeLimit,
		CPUShare:    s.cpuShare,
		Defaults:    weights.Load,
		Train:       train.Config{},
	}
}

// retrainError turns a failed run into the command's error, with a
// message of its own when another process holds the lock.
func retrainError(r game.Rules, rep retrain.Report, err error) error {
	var few *retrain.TooFewGamesError
	switch {
	case errors.As(err, &few):
		return badInput("%s: %d new finished %s since the last run, fewer than RETRAIN_MIN_GAMES (%d); nothing was trained. Wait for more games, or add -force",
			r, few.NewGames, plural(few.NewGames, "game", "games"), few.Min)
	case errors.Is(err, retrain.ErrRunning):
		msg := strings.TrimPrefix(err.Error(), retrain.ErrRunning.Error())
		msg = strings.Trim(msg, " ()")
		msg = strings.TrimPrefix(msg, persistence.ErrLockHeld.Error())
		return fmt.Errorf("%s: another retrain job is running (the lock is held%s); nothing was done, try again once it ends", r, msg)
	case errors.Is(err, retrain.ErrTimedOut):
		return fmt.Errorf("%s: %w; the live model is unchanged", r, err)
	case rep.Reason != "":
		return fmt.Errorf("%s: %w; the live model is unchanged", r, err)
	}
	return fmt.Errorf("%s: %w", r, err)
}

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// printRetrain writes a run's report in a few lines.
func printRetrain(w io.Writer, rep retrain.Report) {
	reason := rep.Reason
	if !strings.HasPrefix(reason, rep.Outcome) {
		reason = rep.Outcome + ": " + reason
	}
	fmt.Fprintf(w, "%s: %s\n", rep.Rules, reason)
	c := rep.Corpus
	fmt.Fprintf(w, "  corpus: %d %s (%d new, %d with a person), %d corrupt skipped\n",
		c.Games, plural(c.Games, "game", "games"), c.NewGames, c.HumanGames, c.Corrupt)
	fmt.Fprintf(w, "  held out of training: %d new %s and %d of earlier runs (the reference set)\n",
		c.HeldOut, plural(c.HeldOut, "game", "games"), c.Reference)
	if p := rep.Players; p != nil && p.Players > 0 {
		fmt.Fprintf(w, "  players: %d; each at most %.1f%% of the human head's training signal (%d bounded); %d far worse than chance, down-weighted\n",
			p.Players, 100*p.MaxShare, p.Bounded, p.FarWorse)
	}
	live := rep.Live.Source
	if rep.Live.Label != "" {
		live += " " + rep.Live.Label
	}
	fmt.Fprintf(w, "  against: %s model; %d %s", live, rep.Workers, plural(rep.Workers, "worker", "workers"))
	if rep.WarmStart {
		fmt.Fprint(w, ", warm start")
	}
	fmt.Fprintln(w)
	printTraining(w, "  ", rep.Epochs)
	for _, h := range rep.Holdout {
		if h.Games == 0 {
			continue
		}
		fmt.Fprintf(w, "  %s (%d %s, %d human moves): human top-1 %s, best move keeps the value %s",
			h.Name, h.Games, plural(h.Games, "game", "games"), h.HumanMoves, pct(h.Net.HumanTop1), pct(h.Net.PolicyAgree))
		if r := h.Reference; r != nil {
			fmt.Fprintf(w, "; live model %s and %s", pct(r.HumanTop1), pct(r.PolicyAgree))
		}
		fmt.Fprintln(w)
	}
	if g := rep.Gate; g != nil {
		if h := g.HeadToHead; h != nil {
			fmt.Fprintf(w, "  vs live model: score %.1f%% over %d games\n", 100*h.Score, h.Games)
		}
		for _, b := range g.Baselines {
			fmt.Fprintf(w, "  vs %s: candidate %.1f%% (loss rate %.1f%%), reference %.1f%% (loss rate %.1f%%)\n",
				b.Opponent, 100*b.Candidate.Score, 100*b.Candidate.LossRate, 100*b.Reference.Score, 100*b.Reference.LossRate)
		}
	}
	if g := rep.Gate; g != nil && g.Human != nil {
		for _, s := range g.Human.Sets {
			if s.Live < 0 {
				fmt.Fprintf(w, "  human head on %s games: %s\n", s.Name, s.Verdict)
				continue
			}
			fmt.Fprintf(w, "  human head on %s games (player-balanced): candidate %.1f%%, live %.1f%%: %s\n", s.Name, 100*s.Candidate, 100*s.Live, s.Verdict)
		}
	}
	if g := rep.Gate; g != nil {
		fmt.Fprintf(w, "  decided by: %s\n", g.Decided)
	}
	if p := rep.Published; p != nil {
		fmt.Fprintf(w, "  published: version %d (%s, %d bytes)\n", p.Version, p.Label, p.Size)
	}
	if k := rep.Candidate; k != nil {
		fmt.Fprintf(w, "  candidate kept: %s (%s)\n", k.Where, k.Label)
	}
	fmt.Fprintf(w, "  took %.1fs\n", rep.Durations.Total)
}

// pct writes a ratio as "75.8% (1234/1628)", or "-" when empty.
func pct(r train.Ratio) string {
	if r.Den == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%% (%d/%d)", 100*r.Float(), r.Num, r.Den)
}
