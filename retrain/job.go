package retrain

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/ai/train"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/sched"
)

// Sentinel errors of Run.
var (
	// ErrRunning reports that a retrain job already runs, in this process
	// or another: the error also wraps persistence.ErrLockHeld and names
	// the holder.
	ErrRunning = errors.New("retrain: a retrain job is already running")
	// ErrTimedOut reports a run cut off by Config.TimeLimit; nothing was
	// published and the checkpoint did not move.
	ErrTimedOut = errors.New("retrain: time limit reached")
	// ErrLockLost reports a run that lost the lock before it could publish
	// (its lease ran out); nothing was published. It also wraps
	// persistence.ErrLockLost.
	ErrLockLost = errors.New("retrain: lost the retrain lock")
	// ErrBadRequest reports a request the job cannot run: no rules.
	ErrBadRequest = errors.New("retrain: bad request")
	// ErrTooFewGames reports a run refused because the board has fewer
	// new games since the last run than Config.MinNewGames and the
	// request did not set Force; the error is a *TooFewGamesError with
	// the counts. Nothing was trained or published.
	ErrTooFewGames = errors.New("retrain: too few new games")
)

// TooFewGamesError is the error of a run refused for too few new games;
// it wraps ErrTooFewGames.
type TooFewGamesError struct {
	// Rules is the board; NewGames counts its new finished games since
	// the last completed run, Min is Config.MinNewGames.
	Rules    string
	NewGames int
	Min      int
}

// Error says what happened and what can be done.
func (e *TooFewGamesError) Error() string {
	return fmt.Sprintf("retrain: %s has %d new finished %s since the last run, fewer than the minimum of %d; wait for more games, or force the run",
		e.Rules, e.NewGames, map[bool]string{true: "game", false: "games"}[e.NewGames == 1], e.Min)
}

// Unwrap returns ErrTooFewGames.
func (e *TooFewGamesError) Unwrap() error { return ErrTooFewGames }

// Defaults of Config and Gate, used when the field is zero.
const (
	// DefaultTimeLimit bounds a whole run.
	DefaultTimeLimit = time.Hour
	// DefaultCPUShare is the share of GOMAXPROCS the training uses.
	DefaultCPUShare = 0.5
	// DefaultLease is the lock's lease, renewed every third of it.
	DefaultLease = 30 * time.Second
	// DefaultMinNewGames is how many new games the periodic trigger waits
	// for.
	DefaultMinNewGames = 100
	// DefaultGateGames is the number of gate games per opponent.
	DefaultGateGames = 200
	// DefaultMargin is the gate's margin; see the package documentation
	// for why.
	DefaultMargin = 0.05
	// DefaultHumanTolerance is how much lower than the live model's the
	// candidate's human-head figure on a held-out set may be: half a
	// point; see the package documentation for why.
	DefaultHumanTolerance = 0.005
	// MinHeldOutMoves is the number of human moves a held-out set needs
	// for the human-head test to judge it.
	MinHeldOutMoves = 100
	// BroadPlayers is the number of players whose new held-out games the
	// candidate must predict better (with at most half as many predicted
	// worse) for a change of style to count as the server's.
	BroadPlayers = 5
)

// LockName is the name of the Redis lock a run holds.
const LockName = "retrain"

// Consumer is the corpus checkpoint consumer of the job: games appended
// after its checkpoint are the "new games" of a run.
const Consumer = "retrain"

// Triggers of a Request.
const (
	TriggerModerator = "moderator" // /ttt-admin retrain
	TriggerPeriodic  = "periodic"  // the serve command's timer
	TriggerCLI       = "cli"       // bot retrain
)

// Config are a Job's settings; the zero value of a field asks for its
// default.
type Config struct {
	// Rules are the boards the periodic trigger covers (the presets).
	Rules []game.Rules
	// Interval is the periodic trigger's period; 0 turns it off.
	Interval time.Duration
	// MinNewGames is how many new finished games a rules key needs since
	// the last completed run: the periodic trigger skips a board with
	// fewer, and Run refuses it (ErrTooFewGames) unless the request sets
	// Force. 0 means DefaultMinNewGames.
	MinNewGames int
	// TimeLimit bounds a whole run; past it the run stops and the live
	// model stays. 0 means DefaultTimeLimit.
	TimeLimit time.Duration
	// CPUShare is the share of GOMAXPROCS used by training and the gate's
	// games: max(1, floor(GOMAXPROCS*CPUShare)) workers. 0 means
	// DefaultCPUShare; it is capped at 1.
	CPUShare float64
	// Lease is the lock's lease, renewed every third of it while the run
	// goes on; a killed run's lock frees itself after it. 0 means
	// DefaultLease.
	Lease time.Duration
	// Owner identifies this process in the lock (and so in ErrRunning's
	// message); "" means "<hostname>/<pid>".
	Owner string
	// Gate sets the gating rule's numbers.
	Gate Gate
	// Train is the template of the training run (Seed, Epochs, SelfPlay,
	// Arch...); the job fills in Rules, Workers and Init. When its
	// EvalGames is 0 the job sets it to -1 (no arena in the training
	// report): the gate plays the baselines anyway, with both models.
	Train train.Config
	// Now is the clock of the report's times; nil means time.Now.
	Now func() time.Time
	// Pool, if set, is the bot's AI work queue: a run holds one of its
	// workers as Background work (and so trains on one goroutine,
	// whatever CPUShare says) and, between steps of the training and
	// the gate's games, gives it back while players' AI moves, reviews
	// or hints wait. Time spent paused counts towards TimeLimit. nil
	// runs unscheduled.
	Pool *sched.Pool
	// Defaults returns the shipped weights of a rules key (weights.Load),
	// used when the registry has no model; nil means none are shipped. An
	// error wrapping fs.ErrNotExist means none for that key.
	Defaults func(rules string) ([]byte, error)
}

// Gate are the gating rule's numbers; the package documentation states
// the rule.
type Gate struct {
	// Games is the number of games against each opponent, half as X and
	// half as O; 0 means DefaultGateGames.
	Games int
	// Margin is how much worse than the reference (the live model, else
	// a random mover) the candidate may do; 0 means DefaultMargin. A
	// negative margin asks for a candidate better than the reference by
	// that much (-1 rejects every candidate); 1 accepts every candidate.
	Margin float64
	// HumanTolerance is how much lower than the live model's the
	// candidate's human-head figure on a held-out set may be (a share:
	// 0.005 is half a point); 0 means DefaultHumanTolerance, negative
	// means none may be lower... by that much more (-1 passes every
	// candidate's human head, 1 rejects none).
	HumanTolerance float64
	// Baselines are the fixed opponents, written as train.Evaluate reads
	// them: a level name with an optional "@N" (MCTS iterations, minimax
	// depth), like "mcts@1000"; nil means train.DefaultOpponents of the
	// rules.
	Baselines []string
}

// Request asks for one run.
type Request struct {
	// Rules is the board whose network to retrain.
	Rules game.Rules
	// Trigger says who asked: TriggerModerator, TriggerPeriodic or
	// TriggerCLI.
	Trigger string
	// By names who asked (a moderator's user ID, a host), for the report.
	By string
	// Force runs the job even with fewer new games than
	// Config.MinNewGames (a moderator's or the CLI's explicit choice).
	Force bool
}

// Progress reports how far a run has got.
type Progress struct {
	// Rules is the rules key being trained.
	Rules string
	// Stage is "lock", "corpus", "model", a training stage of package
	// train ("positions", "targets", "training", "evaluating"), "gate",
	// "publish" or "done".
	Stage string
	// Done and Total count the stage's work (games, positions, epochs,
	// gate matches); both 0 when it has no count.
	Done, Total int
	// Epoch is the epoch just finished, in the "training" stage.
	Epoch *nn.Epoch
}

// Job runs retrain jobs on a Store. It is safe for concurrent use: runs
// exclude each other through the Redis lock.
type Job struct {
	store *persistence.Store
	cfg   Config
	reg   *ai.Registry
}

// New returns a Job on store with cfg, its zero fields set to their
// defaults.
func New(store *persistence.Store, cfg Config) *Job {
	if cfg.MinNewGames <= 0 {
		cfg.MinNewGames = DefaultMinNewGames
	}
	if cfg.TimeLimit <= 0 {
		cfg.TimeLimit = DefaultTimeLimit
	}
	if cfg.CPUShare <= 0 {
		cfg.CPUShare = DefaultCPUShare
	}
	cfg.CPUShare = min(cfg.CPUShare, 1)
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	if cfg.Owner == "" {
		host, _ := os.Hostname()
		if host == "" {
			host = "unknown-host"
		}
		cfg.Owner = host + "/" + strconv.Itoa(os.Getpid())
	}
	if cfg.Gate.Games <= 0 {
		cfg.Gate.Games = DefaultGateGames
	}
	if cfg.Gate.Margin == 0 {
		cfg.Gate.Margin = DefaultMargin
	}
	if cfg.Gate.HumanTolerance == 0 {
		cfg.Gate.HumanTolerance = DefaultHumanTolerance
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Job{store: store, cfg: cfg, reg: ai.NewRegistry()}
}

// Config returns the job's settings, defaults filled in.
func (j *Job) Config() Config { return j.cfg }

// Workers returns the number of goroutines a run trains and plays on:
// max(1, floor(GOMAXPROCS * CPUShare)), or 1 with a Pool.
func (j *Job) Workers() int {
	if j.cfg.Pool != nil {
		return 1 // it holds one worker of the queue
	}
	return max(1, int(float64(runtime.GOMAXPROCS(0))*j.cfg.CPUShare))
}

// Run retrains req.Rules' network once: it takes the lock, trains, gates,
// publishes or keeps the candidate, advances the checkpoint and releases
// the lock. progress (which may be nil) hears of every stage, from the
// calling goroutine.
//
// A rejected candidate is not an error: the report says why. Run fails
// with ErrRunning when another run holds the lock (and returns no
// report), with ErrTimedOut past Config.TimeLimit, with ErrLockLost when
// the lease ran out, and with ctx's error when ctx ends; in those cases
// the report returned with the error says how far the run got, and
// nothing was published.
func (j *Job) Run(ctx context.Context, req Request, progress func(Progress)) (Report, error) {
	if !req.Rules.Valid() {
		return Report{}, fmt.Errorf("%w: no rules", ErrBadRequest)
	}
	if progress == nil {
		progress = func(Progress) {}
	}
	r := j.newRun(req, progress)
	r.stage("lock", 0, 0, nil)
	lock, err := j.store.AcquireLock(ctx, LockName, j.cfg.Owner, j.cfg.Lease)
	if errors.Is(err, persistence.ErrLockHeld) {
		return Report{}, fmt.Errorf("%w (%w)", ErrRunning, err)
	}
	if err != nil {
		return Report{}, fmt.Errorf("retrain: %s: %w", r.rules, err)
	}
	r.lock = lock

	// The run's context: cancelled when the lock is lost, and bounded by
	// the time limit.
	jctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	tctx, tcancel := context.WithTimeoutCause(jctx, j.cfg.TimeLimit, ErrTimedOut)
	defer tcancel()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { j.keepLock(jctx, lock, stop, cancel) })
	err = r.queued(tctx)
	close(stop)
	wg.Wait()
	releaseErr := j.release(ctx, lock)

	if err != nil {
		err = r.failed(ctx, err, context.Cause(tctx))
	}
	if releaseErr != "" {
		r.rep.Error = strings.TrimPrefix(r.rep.Error+"; "+releaseErr, "; ")
	}
	r.rep.Durations.Total = seconds(j.cfg.Now().Sub(r.rep.Started))
	progress(Progress{Rules: r.rules, Stage: "done"})
	return r.rep, err
}

// newRun returns a run of req that reports to progress, its report
// started.
func (j *Job) newRun(req Request, progress func(Progress)) *run {
	r := &run{job: j, req: req, rules: req.Rules.String(), progress: progress}
	r.rep = Report{
		Rules:   r.rules,
		Trigger: req.Trigger,
		By:      req.By,
		Owner:   j.cfg.Owner,
		Started: j.cfg.Now().UTC(),
		Workers: j.Workers(),
	}
	return r
}

// queued runs the steps (do) as a background job of the AI queue when
// the job has one, yielding the worker to players' work while any waits,
// else at once.
func (r *run) queued(ctx context.Context) error {
	j := r.job
	if j.cfg.Pool == nil {
		return r.do(ctx)
	}
	job := sched.Job{Class: sched.Background, User: "retrain:" + r.rules}
	return j.cfg.Pool.Do(ctx, job, func(ctx context.Context, st sched.Start) error {
		var mu sync.Mutex // one training goroutine yields for all: the others wait here
		r.pause = func(ctx context.Context) error {
			mu.Lock()
			defer mu.Unlock()
			return st.Yield(ctx)
		}
		return r.do(ctx)
	})
}

// release releases the lock, and returns what to add to the report's
// error if that fails (but for a lock already lost), else "". A lock that
// cannot be released (Redis unreachable) frees itself when its lease runs
// out; that does not undo the run.
func (j *Job) release(ctx context.Context, lock persistence.Lock) string {
	rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer rcancel()
	if rerr := j.store.ReleaseLock(rctx, lock); rerr != nil && !errors.Is(rerr, persistence.ErrLockLost) {
		return fmt.Sprintf("releasing the lock: %v (its lease frees it)", rerr)
	}
	return ""
}

// failed records in the report the outcome of a run that failed with err,
// cause being the cause of the end of the run's context (nil if it did
// not end) and ctx the caller's, and returns the error Run returns: a
// time-out or the loss of the lock says so; too few games is a refusal.
func (r *run) failed(ctx context.Context, err, cause error) error {
	limit := r.job.cfg.TimeLimit
	switch {
	case errors.Is(cause, ErrTimedOut) && ctx.Err() == nil:
		err = fmt.Errorf("%w after %s: %w", ErrTimedOut, limit, err)
		r.rep.Outcome, r.rep.Reason = OutcomeTimedOut, fmt.Sprintf("timed out: the time limit of %s was reached; nothing published", limit)
	case errors.Is(cause, persistence.ErrLockLost) || errors.Is(err, persistence.ErrLockLost):
		if !errors.Is(err, persistence.ErrLockLost) {
			err = fmt.Errorf("%w; the run stopped: %w", cause, err)
		}
		r.rep.Outcome, r.rep.Reason = OutcomeFailed, "lost the retrain lock (its lease ran out); nothing published"
	case errors.Is(err, ErrTooFewGames):
		r.rep.Outcome, r.rep.Reason = OutcomeRefused, "refused: "+strings.TrimPrefix(err.Error(), "retrain: ")
	default:
		r.rep.Outcome, r.rep.Reason = OutcomeFailed, "failed: "+err.Error()
	}
	r.rep.Promoted = false
	r.rep.Error = err.Error()
	return err
}

// keepLock renews the lock every third of the lease until stop is closed.
// If the lock is lost, or cannot be renewed for a whole lease, it cancels
// the run with persistence.ErrLockLost.
func (j *Job) keepLock(ctx context.Context, l persistence.Lock, stop <-chan struct{}, cancel context.CancelCauseFunc) {
	lease := j.cfg.Lease
	t := time.NewTicker(max(lease/3, time.Millisecond))
	defer t.Stop()
	lastOK := time.Now()
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rctx, rcancel := context.WithTimeout(ctx, max(lease/3, 10*time.Millisecond))
		err := j.store.RenewLock(rctx, l, lease)
		rcancel()
		switch {
		case err == nil:
			lastOK = time.Now()
		case errors.Is(err, persistence.ErrLockLost):
			cancel(fmt.Errorf("%w: %w", ErrLockLost, err))
			return
		case time.Since(lastOK) >= lease:
			cancel(fmt.Errorf("%w: %w: could not renew it for a whole lease: %w", ErrLockLost, persistence.ErrLockLost, err))
			return
		}
	}
}
