package retrain

import (
	"math"
	"time"

	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/ai/train"
)

// Outcomes of a run, Report.Outcome.
const (
	OutcomePromoted = "promoted"  // the candidate was published
	OutcomeRejected = "rejected"  // the gate refused it; it was kept for inspection
	OutcomeTimedOut = "timed out" // the time limit cut the run off
	OutcomeFailed   = "failed"    // an error stopped the run
	OutcomeRefused  = "refused"   // too few new games and not forced: nothing trained
)

// Report describes one run; it encodes as the JSON of "bot retrain
// -json", is attached to the published model's metadata (as its
// evaluation) or to the kept candidate, and feeds the Discord embed and
// Chart.
type Report struct {
	// Rules is the rules key trained.
	Rules string `json:"rules"`
	// Trigger and By are the request's.
	Trigger string `json:"trigger,omitempty"`
	By      string `json:"by,omitempty"`
	// Owner is the process that ran the job (the lock owner).
	Owner string `json:"owner"`
	// Started is when the run started.
	Started time.Time `json:"started"`

	// Outcome is one of the Outcome constants; Promoted says whether a new
	// version was published.
	Outcome  string `json:"outcome"`
	Promoted bool   `json:"promoted"`
	// Reason says why, in a sentence: the gate's verdict with its numbers,
	// the time limit, the error.
	Reason string `json:"reason"`
	// Error is the error that stopped the run, or a problem that did not
	// (the checkpoint or the lock release could not be written).
	Error string `json:"error,omitempty"`

	// Corpus describes the games read.
	Corpus CorpusSummary `json:"corpus"`
	// Live is the model the candidate was measured against.
	Live LiveModel `json:"live"`
	// Workers is the number of goroutines used (Config.CPUShare).
	Workers int `json:"workers"`
	// WarmStart says whether training started from the live network.
	WarmStart bool `json:"warm_start"`
	// Epochs are the training curves, one entry per epoch.
	Epochs []nn.Epoch `json:"epochs,omitempty"`
	// Holdout are the candidate's and the live model's figures on the
	// held-out games (train.Report.Holdout): the "held-out" set (new
	// since the last run) and the "reference" set (held out by earlier
	// runs), never trained on.
	Holdout []train.HoldoutResult `json:"holdout,omitempty"`
	// Players says how the human moves were weighted by player: the
	// per-player bound and the players far worse than chance.
	Players *train.PlayerReport `json:"players,omitempty"`
	// Training is package train's report (its Epochs moved to Epochs).
	Training *train.Report `json:"training,omitempty"`
	// Gate holds the arena results and the verdict.
	Gate *GateReport `json:"gate,omitempty"`
	// Published is the new registry version, when promoted.
	Published *Published `json:"published,omitempty"`
	// Candidate says where the rejected candidate was kept.
	Candidate *KeptCandidate `json:"candidate,omitempty"`
	// Checkpoint is the corpus stream ID the "retrain" checkpoint was
	// advanced to ("" when it did not move).
	Checkpoint string `json:"checkpoint,omitempty"`
	// Durations are the wall times of the steps.
	Durations Durations `json:"durations"`
}

// CorpusSummary counts the corpus a run read.
type CorpusSummary struct {
	// Games counts the valid records, NewGames those after the checkpoint
	// (appended since the last completed run), HumanGames those with at
	// least one human player.
	Games      int `json:"games"`
	NewGames   int `json:"new_games"`
	HumanGames int `json:"human_games"`
	// HeldOut counts the new games held out of training (HeldOut), and
	// Reference the older held-out games; the rest trained.
	HeldOut   int `json:"held_out"`
	Reference int `json:"reference"`
	// Corrupt counts the records skipped because they do not decode or
	// replay; CorruptSamples describes the first few.
	Corrupt        int      `json:"corrupt"`
	CorruptSamples []string `json:"corrupt_samples,omitempty"`
	// Since is the checkpoint the new games were counted from ("0": the
	// first run).
	Since string `json:"since"`
}

// Sources of the live model, LiveModel.Source.
const (
	SourceRegistry = "registry" // the registry's current version
	SourceShipped  = "shipped"  // the weights shipped with the binary
	SourceNone     = "none"     // no model: the gate's reference is a random mover
)

// LiveModel describes the model a candidate was measured against.
type LiveModel struct {
	// Source is SourceRegistry, SourceShipped or SourceNone.
	Source string `json:"source"`
	// Version is the registry version (SourceRegistry).
	Version int64 `json:"version,omitempty"`
	// Label is the version text in the weights file ("redis-7",
	// "shipped-2026-11-21").
	Label string `json:"label,omitempty"`
	// Arch is the live network's architecture.
	Arch *nn.Arch `json:"arch,omitempty"`
	// Fallback says why a source was passed over (a corrupt registry
	// blob, shipped weights that do not load).
	Fallback string `json:"fallback,omitempty"`
}

// Published describes a published version.
type Published struct {
	// Version is the registry's version number.
	Version int64 `json:"version"`
	// Label is the version text in the weights file, "redis-<version>".
	Label string `json:"label"`
	// SHA256 and Size describe the blob.
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}

// KeptCandidate says where a rejected candidate was kept.
type KeptCandidate struct {
	// Where names the place: the rules' candidate slot of the registry
	// (persistence.Store.LoadCandidate).
	Where string `json:"where"`
	// Label is the version text in the weights file, "candidate-<time>".
	Label string `json:"label"`
	// SHA256 and Size describe the blob; Created is when it was kept.
	SHA256  string    `json:"sha256"`
	Size    int64     `json:"size"`
	Created time.Time `json:"created"`
}

// Durations are the wall times of a run's steps, in seconds.
type Durations struct {
	// Corpus is reading the corpus, Training package train's run (with
	// its own evaluation), Gate the gate's matches, Publish the publish or
	// the keeping of the candidate, Total the whole run.
	Corpus   float64 `json:"corpus"`
	Training float64 `json:"training"`
	Gate     float64 `json:"gate"`
	Publish  float64 `json:"publish"`
	Total    float64 `json:"total"`
}

// seconds converts d for the report, to the millisecond.
func seconds(d time.Duration) float64 { return math.Round(d.Seconds()*1000) / 1000 }

// GateReport is the gate's arena results and verdict.
type GateReport struct {
	// Rule states the rule applied, with its numbers.
	Rule string `json:"rule"`
	// Games is the number of games per match; Margin the margin; Seed
	// the matches' seed.
	Games  int     `json:"games"`
	Margin float64 `json:"margin"`
	Seed   uint64  `json:"seed"`
	// Reference is who the candidate was compared with: "live model ..."
	// or "random".
	Reference string `json:"reference"`
	// HeadToHead is the candidate's match against the live model.
	HeadToHead *Match `json:"head_to_head,omitempty"`
	// Baselines are the matches against each baseline, the candidate's
	// and the reference's.
	Baselines []BaselineResult `json:"baselines"`
	// Human is the human-move head's part of the gate, with a live model
	// to compare with (nil without one).
	Human *HumanGate `json:"human,omitempty"`
	// Pass is the verdict; Failures say, one per broken condition, why it
	// is false; Decided names the rule that decided: the first broken
	// one, or "every rule passed".
	Pass     bool     `json:"pass"`
	Failures []string `json:"failures,omitempty"`
	Decided  string   `json:"decided"`
}

// HumanGate is the human-move head's part of the gate.
type HumanGate struct {
	// Rule states it with its numbers; Tolerance is how much lower (a
	// share, 0.005 for half a point) the candidate's figure may be;
	// MinMoves the human moves a set needs to be judged; BroadPlayers the
	// players whose better-predicted moves make a change of style broad.
	Rule         string  `json:"rule"`
	Tolerance    float64 `json:"tolerance"`
	MinMoves     int     `json:"min_moves"`
	BroadPlayers int     `json:"broad_players"`
	// Broad says whether the new held-out games showed a change of style
	// across the server (which waives the reference set's test).
	Broad bool `json:"broad"`
	// Sets are the held-out sets' figures and verdicts.
	Sets []HumanSet `json:"sets"`
	// Failures are the broken conditions (also in GateReport.Failures).
	Failures []string `json:"failures,omitempty"`
}

// HumanSet is one held-out set's human-head figures in the gate.
type HumanSet struct {
	// Name is SetHeldOut or SetReference; Moves and Players count its
	// human moves and players.
	Name    string `json:"name"`
	Moves   int    `json:"moves"`
	Players int    `json:"players"`
	// Candidate and Live are the player-balanced top-1 shares
	// (train.Figures.HumanBalanced); -1 when not measured.
	Candidate float64 `json:"candidate"`
	Live      float64 `json:"live"`
	// PlayersBetter and PlayersWorse count the players (with at least
	// train.MinPlayerMoves moves) the candidate predicts better and worse.
	PlayersBetter int `json:"players_better"`
	PlayersWorse  int `json:"players_worse"`
	// Verdict is "passed", "failed", "waived: ..." or "not judged: ...".
	Verdict string `json:"verdict"`
}

// BaselineResult is one baseline's matches.
type BaselineResult struct {
	// Opponent is the baseline, as Gate.Baselines names it.
	Opponent string `json:"opponent"`
	// Candidate and Reference are the candidate's and the reference's
	// results against it, with the same seeds.
	Candidate Match `json:"candidate"`
	Reference Match `json:"reference"`
}

// Match is one player's results against one opponent over both colours.
type Match struct {
	// Opponent names the opponent; Games counts the games played.
	Opponent string `json:"opponent"`
	Games    int    `json:"games"`
	// AsX and AsO are the results with each colour.
	AsX Tally `json:"as_x"`
	AsO Tally `json:"as_o"`
	// Score is (wins + draws/2) / games; LossRate losses / games.
	Score    float64 `json:"score"`
	LossRate float64 `json:"loss_rate"`
}

// Tally counts a player's results.
type Tally struct {
	// Wins, Draws and Losses count the games by result.
	Wins   int `json:"wins"`
	Draws  int `json:"draws"`
	Losses int `json:"losses"`
}

// total returns the tally over both colours.
func (m Match) total() Tally {
	return Tally{Wins: m.AsX.Wins + m.AsO.Wins, Draws: m.AsX.Draws + m.AsO.Draws, Losses: m.AsX.Losses + m.AsO.Losses}
}

// finish computes Games, Score and LossRate from the tallies.
func (m *Match) finish() {
	t := m.total()
	m.Games = t.Wins + t.Draws + t.Losses
	if m.Games == 0 {
		return
	}
	m.Score = (float64(t.Wins) + float64(t.Draws)/2) / float64(m.Games)
	m.LossRate = float64(t.Losses) / float64(m.Games)
}
