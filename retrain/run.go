package retrain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/ai/train"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// maxCorruptSamples bounds the corrupt records described in a report.
const maxCorruptSamples = 5

// run is one Run in progress.
type run struct {
	job      *Job
	req      Request
	rules    string
	lock     persistence.Lock
	progress func(Progress)
	rep      Report
	// pause gives the run's worker of the AI queue to players' work while
	// any waits (nil without a queue); the training calls it between
	// steps, from every training goroutine.
	pause func(context.Context) error
}

// stage reports progress.
func (r *run) stage(name string, done, total int, e *nn.Epoch) {
	r.progress(Progress{Rules: r.rules, Stage: name, Done: done, Total: total, Epoch: e})
}

// do runs the steps after the lock is taken, filling r.rep.
func (r *run) do(ctx context.Context) error {
	j := r.job
	now := j.cfg.Now
	if err := r.checkGate(); err != nil {
		return err
	}

	// 1. The corpus.
	t0 := now()
	r.stage("corpus", 0, 0, nil)
	games, holdout, last, err := r.readCorpus(ctx)
	if err != nil {
		return err
	}
	r.rep.Durations.Corpus = seconds(now().Sub(t0))
	if n, least := r.rep.Corpus.NewGames, j.cfg.MinNewGames; n < least && !r.req.Force {
		return &TooFewGamesError{Rules: r.rules, NewGames: n, Min: least}
	}

	// 2. The live model.
	r.stage("model", 0, 0, nil)
	live, err := r.loadLive(ctx)
	if err != nil {
		return err
	}

	// 3. Training.
	cand, err := r.trainCandidate(ctx, games, holdout, live)
	if err != nil {
		return err
	}

	// 4. The gate.
	pass, err := r.judge(ctx, cand, live)
	if err != nil {
		return err
	}

	// 5. Publish, or keep the candidate.
	t0 = now()
	r.stage("publish", 0, 0, nil)
	if pass {
		err = r.publish(ctx, cand)
	} else {
		err = r.keep(ctx, cand)
	}
	r.rep.Durations.Publish = seconds(now().Sub(t0))
	if err != nil {
		return err
	}

	// 6. The checkpoint.
	r.advanceCheckpoint(ctx, last)
	return nil
}

// trainCandidate trains the candidate network on games, warm-started
// from live when it has the shape wanted, with holdout measured against
// live; it fills in the training's part of the report.
func (r *run) trainCandidate(ctx context.Context, games []train.Game, holdout []train.HoldoutSet, live *nn.Net) (*nn.Net, error) {
	now := r.job.cfg.Now
	t0 := now()
	tc := r.trainConfig(live)
	tc.Holdout, tc.Reference = holdout, live
	res, err := train.Run(ctx, tc, games, func(p train.Progress) {
		r.stage(p.Stage, p.Done, p.Total, p.Epoch)
	})
	r.rep.Durations.Training = seconds(now().Sub(t0))
	if err != nil {
		return nil, fmt.Errorf("retrain: training %s: %w", r.rules, err)
	}
	tr := res.Report
	r.rep.Epochs, tr.Epochs = tr.Epochs, nil
	r.rep.Holdout = tr.Holdout
	r.rep.Players = &tr.Players
	r.rep.Training = &tr
	return res.Net, nil
}

// trainConfig returns the training's settings: the job's, for the run's
// rules (an architecture set for other rules gives way to the default),
// starting from live when it has the shape trained, without the held-out
// sets.
func (r *run) trainConfig(live *nn.Net) train.Config {
	j := r.job
	tc := j.cfg.Train
	tc.Rules = r.req.Rules
	tc.Workers = j.Workers()
	tc.Pause = r.pause
	if len(tc.Arch.Hidden) > 0 && tc.Arch.Rules == "" {
		tc.Arch.Rules = r.rules
	}
	if tc.Arch.Rules != "" && tc.Arch.Rules != r.rules {
		tc.Arch = nn.Arch{} // a template for other rules: the default shape
	}
	want := tc.Arch
	if len(want.Hidden) == 0 {
		want = nn.DefaultArch(r.req.Rules)
	}
	if live != nil && slices.Equal(live.Arch().Hidden, want.Hidden) {
		tc.Init, r.rep.WarmStart = live, true
	}
	if tc.EvalGames == 0 {
		tc.EvalGames = -1
	}
	if tc.Now.IsZero() {
		tc.Now = j.cfg.Now()
	}
	return tc
}

// judge runs the gate between the candidate and live, records its report
// and the run's outcome, and reports whether the candidate passed.
func (r *run) judge(ctx context.Context, cand, live *nn.Net) (bool, error) {
	now := r.job.cfg.Now
	t0 := now()
	g, err := r.gate(ctx, cand, live)
	r.rep.Durations.Gate = seconds(now().Sub(t0))
	if err != nil {
		return false, err
	}
	r.rep.Gate = &g
	r.rep.Promoted = g.Pass
	if g.Pass {
		r.rep.Outcome = OutcomePromoted
		r.rep.Reason = "promoted: " + g.summary()
	} else {
		r.rep.Outcome = OutcomeRejected
		r.rep.Reason = "rejected: " + strings.Join(g.Failures, "; ")
	}
	return g.Pass, nil
}

// advanceCheckpoint moves the corpus checkpoint to last, the last record
// read (if any). Failing to move it does not undo the run: the report
// says so, and the next run counts these games as new again.
func (r *run) advanceCheckpoint(ctx context.Context, last string) {
	if last == "" || last == "0" {
		return
	}
	if err := r.job.store.AdvanceCheckpoint(ctx, r.rules, Consumer, last); err != nil {
		r.rep.Error = fmt.Sprintf("the checkpoint did not move (%v); the next run counts these games as new again", err)
		return
	}
	r.rep.Checkpoint = last
}

// readCorpus reads the rules' whole corpus and fills the report's corpus
// summary. It returns the games to train on, the held-out sets (the
// held-out games appended since the checkpoint, then the reference set:
// those appended before it) and the ID of the last entry read.
func (r *run) readCorpus(ctx context.Context) ([]train.Game, []train.HoldoutSet, string, error) {
	st := r.job.store
	since, err := st.Checkpoint(ctx, r.rules, Consumer)
	if err != nil {
		return nil, nil, "", fmt.Errorf("retrain: %w", err)
	}
	sum := &r.rep.Corpus
	sum.Since = since
	var games, heldNew, heldRef []train.Game
	last, err := st.ScanCorpus(ctx, r.rules, "0", func(e persistence.CorpusEntry) error {
		rules, g, err := GameOf(e.Record)
		if err == nil && !rules.Equal(r.req.Rules) {
			err = fmt.Errorf("a %s game in the %s corpus", rules, r.req.Rules)
		}
		if err != nil {
			// ScanCorpus validated the record already; a record that
			// does not replay now is corrupt all the same.
			sum.Corrupt++
			if len(sum.CorruptSamples) < maxCorruptSamples {
				sum.CorruptSamples = append(sum.CorruptSamples, fmt.Sprintf("%s: %v", e.ID, err))
			}
			return nil
		}
		sum.Games++
		if g.Human[0] || g.Human[1] {
			sum.HumanGames++
		}
		fresh := streamAfter(e.ID, since)
		if fresh {
			sum.NewGames++
		}
		switch {
		case !HeldOut(e.Record.Game):
			games = append(games, g)
		case fresh:
			heldNew = append(heldNew, g)
			sum.HeldOut++
		default:
			heldRef = append(heldRef, g)
			sum.Reference++
		}
		return nil
	}, func(c persistence.CorruptEntry) {
		sum.Corrupt++
		if len(sum.CorruptSamples) < maxCorruptSamples {
			sum.CorruptSamples = append(sum.CorruptSamples, c.Err.Error())
		}
	})
	if err != nil {
		return nil, nil, "", fmt.Errorf("retrain: reading the %s corpus: %w", r.rules, err)
	}
	r.stage("corpus", sum.Games, sum.Games, nil)
	sets := []train.HoldoutSet{{Name: SetHeldOut, Games: heldNew}, {Name: SetReference, Games: heldRef}}
	return games, sets, last, nil
}

// Names of the held-out sets in the report.
const (
	SetHeldOut   = "held-out"  // held-out games new since the last run
	SetReference = "reference" // held-out games of earlier runs
)

// HeldOutEvery is the share of games held out of every run's training,
// one in HeldOutEvery, by game: a game is held out when HeldOut says so,
// in every run, so a held-out game is never trained on and the held-out
// games of earlier runs make a fixed reference set.
const HeldOutEvery = 10

// HeldOut reports whether the game with this ID is held out of training:
// one game in ten, chosen by a hash of its ID (so the choice does not
// depend on the order, the time or the players).
func HeldOut(gameID string) bool {
	h := fnv.New64a()
	h.Write([]byte("ttt-bot holdout\x00"))
	h.Write([]byte(gameID))
	return h.Sum64()%HeldOutEvery == 0
}

// GameOf converts a corpus record into its rules and a training game. A
// player with a user (a pseudonym) is a person, unless they took a hint
// during the game (the record's assisted sides): then their moves are not
// all their own. An assisted player, an AI level or an unknown player (as
// in imported games.txt) is not a person here, so its moves never train
// the human-move head. Errors wrap persistence.ErrInvalid.
func GameOf(rec persistence.CorpusRecord) (game.Rules, train.Game, error) {
	rules, start, moves, err := rec.Replay()
	if err != nil {
		return game.Rules{}, train.Game{}, err
	}
	human := [2]bool{
		rec.X.User != "" && !slices.Contains(rec.Assisted, "x"),
		rec.O.User != "" && !slices.Contains(rec.Assisted, "o"),
	}
	var players [2]string
	if human[0] {
		players[0] = rec.X.User
	}
	if human[1] {
		players[1] = rec.O.User
	}
	return rules, train.Game{Start: start, Moves: moves, Human: human, Players: players, Time: rec.Time}, nil
}

// streamAfter reports whether stream ID a comes after b ("ms-seq" or
// "ms"; "0" or "" come before everything).
func streamAfter(a, b string) bool {
	am, as := splitStreamID(a)
	bm, bs := splitStreamID(b)
	return am > bm || am == bm && as > bs
}

// splitStreamID parses a stream ID; a malformed one counts as 0-0.
func splitStreamID(id string) (ms, seq uint64) {
	a, b, _ := strings.Cut(id, "-")
	ms, _ = strconv.ParseUint(a, 10, 64)
	seq, _ = strconv.ParseUint(b, 10, 64)
	return ms, seq
}

// loadLive loads the live model (the registry's current version, else the
// shipped weights, else none) and fills r.rep.Live. A model that does not
// load is reported and passed over; only a failure to reach Redis fails.
func (r *run) loadLive(ctx context.Context) (*nn.Net, error) {
	live := &r.rep.Live
	var fallback []string
	m, blob, err := r.job.store.LoadModel(ctx, r.rules, 0)
	switch {
	case err == nil:
		n, meta, err := nn.UnmarshalFor(blob, r.req.Rules)
		if err == nil {
			a := n.Arch()
			*live = LiveModel{Source: SourceRegistry, Version: m.Version, Label: meta.Version, Arch: &a}
			return n, nil
		}
		fallback = append(fallback, fmt.Sprintf("registry version %d does not load (%v)", m.Version, err))
	case errors.Is(err, persistence.ErrNotFound):
	case errors.Is(err, persistence.ErrCorrupt):
		fallback = append(fallback, fmt.Sprintf("the registry's current version is corrupt (%v)", err))
	default:
		return nil, fmt.Errorf("retrain: loading the live %s model: %w", r.rules, err)
	}
	if d := r.job.cfg.Defaults; d != nil {
		blob, err := d(r.rules)
		if err == nil {
			var n *nn.Net
			var meta nn.Meta
			if n, meta, err = nn.UnmarshalFor(blob, r.req.Rules); err == nil {
				a := n.Arch()
				*live = LiveModel{Source: SourceShipped, Label: meta.Version, Arch: &a, Fallback: strings.Join(fallback, "; ")}
				return n, nil
			}
		}
		if !errors.Is(err, fs.ErrNotExist) {
			fallback = append(fallback, fmt.Sprintf("the shipped weights do not load (%v)", err))
		}
	}
	*live = LiveModel{Source: SourceNone, Fallback: strings.Join(fallback, "; ")}
	return nil, nil
}

// weights encodes the candidate with its metadata.
func (r *run) weights(n *nn.Net, label string) ([]byte, []byte, error) {
	var summary train.Report
	if r.rep.Training != nil {
		summary = r.rep.Training.Summary()
	}
	training, err := json.Marshal(struct {
		Corpus CorpusSummary `json:"corpus"`
		Report train.Report  `json:"report"`
	}{r.rep.Corpus, summary})
	if err != nil {
		return nil, nil, fmt.Errorf("retrain: encoding the training summary: %w", err)
	}
	eval, err := json.Marshal(r.rep.Gate)
	if err != nil {
		return nil, nil, fmt.Errorf("retrain: encoding the gate report: %w", err)
	}
	blob, err := nn.Marshal(n, nn.Meta{Version: label, Created: r.job.cfg.Now().UTC(), Training: training, Eval: eval})
	if err != nil {
		return nil, nil, fmt.Errorf("retrain: encoding the %s network: %w", r.rules, err)
	}
	return blob, eval, nil
}

// publish checks the lock and publishes the candidate.
func (r *run) publish(ctx context.Context, n *nn.Net) error {
	st := r.job.store
	metas, cur, err := st.ModelVersions(ctx, r.rules)
	if err != nil {
		return fmt.Errorf("retrain: %w", err)
	}
	next := cur
	for _, m := range metas {
		next = max(next, m.Version)
	}
	next++
	label := "redis-" + strconv.FormatInt(next, 10)
	blob, eval, err := r.weights(n, label)
	if err != nil {
		return err
	}
	// The fence: nothing is published by a run whose lease ran out.
	if err := st.CheckLock(ctx, r.lock); err != nil {
		return fmt.Errorf("%w: before publishing: %w", ErrLockLost, err)
	}
	m, err := st.PublishModel(ctx, r.rules, persistence.ModelMeta{Eval: eval}, blob)
	if err != nil {
		return fmt.Errorf("retrain: %w", err)
	}
	r.rep.Published = &Published{Version: m.Version, Label: label, SHA256: m.SHA256, Size: m.Size}
	r.rep.Reason += fmt.Sprintf("; published as version %d", m.Version)
	return nil
}

// keep saves the rejected candidate with the report.
func (r *run) keep(ctx context.Context, n *nn.Net) error {
	label := "candidate-" + r.job.cfg.Now().UTC().Format("20060102T150405Z")
	blob, _, err := r.weights(n, label)
	if err != nil {
		return err
	}
	report, err := json.Marshal(r.rep)
	if err != nil {
		return fmt.Errorf("retrain: encoding the report: %w", err)
	}
	st := r.job.store
	if err := st.CheckLock(ctx, r.lock); err != nil {
		return fmt.Errorf("%w: before keeping the candidate: %w", ErrLockLost, err)
	}
	m, err := st.SaveCandidate(ctx, r.rules, persistence.CandidateMeta{Report: report}, blob)
	if err != nil {
		return fmt.Errorf("retrain: %w", err)
	}
	r.rep.Candidate = &KeptCandidate{
		Where:   fmt.Sprintf("the %s candidate slot of the model registry (persistence Store.LoadCandidate)", r.rules),
		Label:   label,
		SHA256:  m.SHA256,
		Size:    m.Size,
		Created: m.Created,
	}
	r.rep.Reason += "; candidate kept for inspection"
	return nil
}
