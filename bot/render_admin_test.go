package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/ai/train"
	"github.com/tttbot/ttt-bot/bot/retrain"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// testReport is a retrain report as a promoted run on 3x3 fills it.
func testReport() retrain.Report {
	return retrain.Report{
		Rules: "3x3k3", Trigger: retrain.TriggerModerator, By: "100", Owner: "host/1", Started: fixedNow,
		Outcome: retrain.OutcomePromoted, Promoted: true,
		Reason:  "promoted: scored 0.525 against the live model",
		Corpus:  retrain.CorpusSummary{Games: 120, NewGames: 40, HumanGames: 100, Corrupt: 1, Since: "0"},
		Live:    retrain.LiveModel{Source: retrain.SourceRegistry, Version: 2, Label: "redis-2"},
		Workers: 1,
		Epochs: []nn.Epoch{
			{N: 1, Of: 2, Loss: 1.25, PolicyAcc: 0.5, HumanAcc: 0.25, ValidPolicyAcc: -1, ValidHumanAcc: -1},
			{N: 2, Of: 2, Loss: 0.8125, PolicyAcc: 0.9875, HumanAcc: 0.625, ValidPolicyAcc: -1, ValidHumanAcc: -1},
		},
		Training: &train.Report{Rules: "3x3k3", Positions: 765},
		Gate: &retrain.GateReport{
			Games: 20, Margin: 0.05,
			HeadToHead: &retrain.Match{Opponent: "live", Games: 20, Score: 0.525},
			Baselines: []retrain.BaselineResult{
				{Opponent: "random", Candidate: retrain.Match{Score: 0.95}, Reference: retrain.Match{Score: 0.9, LossRate: 0.05}},
				{Opponent: "perfect", Candidate: retrain.Match{Score: 0.5}, Reference: retrain.Match{Score: 0.5}},
				{Opponent: "mcts@1000", Candidate: retrain.Match{Score: 0.75, LossRate: 0.1}, Reference: retrain.Match{Score: 0.7, LossRate: 0.1}},
			},
			Pass: true,
		},
		Published: &retrain.Published{Version: 3, Label: "redis-3"},
		Durations: retrain.Durations{Total: 12.345},
	}
}

// refusedReport is a run refused for too few new games: it read the
// corpus and trained nothing.
func refusedReport() retrain.Report {
	return retrain.Report{
		Rules: "3x3k3", Trigger: retrain.TriggerModerator, By: "100", Owner: "host/1", Started: fixedNow,
		Outcome: retrain.OutcomeRefused,
		Reason:  "refused: 3x3k3 has 12 new finished games since the last run, fewer than the minimum of 50; wait for more games, or force the run",
		Corpus:  retrain.CorpusSummary{Games: 2412, NewGames: 12, HumanGames: 2110, HeldOut: 1, Reference: 240, Since: "1795200000000-0"},
		Live:    retrain.LiveModel{Source: retrain.SourceRegistry, Version: 3, Label: "redis-3"},
		Workers: 1, Durations: retrain.Durations{Total: 0.25},
	}
}

// testRetrainConfig is the job's configuration the reports cite.
var testRetrainConfig = retrain.Config{TimeLimit: time.Hour, MinNewGames: 50}

// TestRetrainGolden pins the retrain messages in every locale: the
// answer, the progress, and the reports of promoted, rejected, first,
// refused, timed-out and stopped runs.
func TestRetrainGolden(t *testing.T) {
	r := testRenderer(t)
	rejected := testReport()
	rejected.Outcome, rejected.Promoted, rejected.Published = retrain.OutcomeRejected, false, nil
	rejected.Gate.Pass = false
	rejected.Gate.Baselines[1].Candidate = retrain.Match{Score: 0.4, LossRate: 0.2}
	noLive := testReport()
	noLive.Live = retrain.LiveModel{Source: retrain.SourceNone}
	noLive.Gate.HeadToHead = nil
	epoch := testReport().Epochs[1]
	timedOut := testRetrainConfig
	timedOut.TimeLimit = 30 * time.Minute
	for _, loc := range r.Catalog().Locales() {
		t.Run(string(loc), func(t *testing.T) {
			out := map[string]any{
				"started": r.RetrainStarted(loc, game.Classic(), "100"),
				"progress": []string{
					r.RetrainProgress(loc, game.Classic(), "100", retrain.Progress{Rules: "3x3k3", Stage: "corpus"}, fixedNow),
					r.RetrainProgress(loc, game.Classic(), "100", retrain.Progress{Rules: "3x3k3", Stage: "training", Done: 2, Total: 2, Epoch: &epoch}, fixedNow),
				},
				"promoted":  r.RetrainReport(loc, testReport(), retrain.OutcomePromoted, testRetrainConfig, true),
				"rejected":  r.RetrainReport(loc, rejected, retrain.OutcomeRejected, testRetrainConfig, true),
				"no_live":   r.RetrainReport(loc, noLive, retrain.OutcomePromoted, testRetrainConfig, true),
				"refused":   r.RetrainReport(loc, refusedReport(), retrain.OutcomeRefused, testRetrainConfig, false),
				"timed_out": r.RetrainReport(loc, retrain.Report{Rules: "4x4k4", Outcome: retrain.OutcomeTimedOut}, retrain.OutcomeTimedOut, timedOut, false),
				"stopped":   r.RetrainReport(loc, retrain.Report{Rules: "3x3k3"}, OutcomeStopped, testRetrainConfig, false),
			}
			got := wireJSON(t, out)
			if strings.Contains(string(got), "[[") {
				t.Errorf("a text is missing:\n%s", got)
			}
			if slices.Contains(goldenLocales, loc) || slices.Contains(l10nLocales, loc) {
				golden(t, "retrain."+string(loc)+".json", got)
			}
		})
	}
}

// TestModelGolden pins /ttt-admin model's messages in every locale, and
// the refusals of a network level on a board without a network.
func TestModelGolden(t *testing.T) {
	r := testRenderer(t)
	eval, err := json.Marshal(testReport().Gate)
	if err != nil {
		t.Fatal(err)
	}
	sixBySix, err := game.ParseRules("6x6k4")
	if err != nil {
		t.Fatal(err)
	}
	current := persistence.ModelMeta{Rules: "3x3k3", Version: 3, Created: fixedNow, Eval: eval}
	live := nn.Meta{Rules: "3x3k3", Arch: nn.Arch{Rules: "3x3k3", Hidden: []int{64, 64}}, Version: "redis-3"}
	shipped := live
	shipped.Version = "shipped-2026-11-21"
	shipped.Eval, err = json.Marshal(train.Eval{Arena: []train.Match{
		{Opponent: "random", AsX: train.WLD{Wins: 194, Draws: 6}, AsO: train.WLD{Wins: 178, Draws: 22}, Score: 0.965},
		{Opponent: "perfect", AsX: train.WLD{Draws: 200}, AsO: train.WLD{Draws: 200}, Score: 0.5},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, loc := range r.Catalog().Locales() {
		t.Run(string(loc), func(t *testing.T) {
			out := map[string]any{
				"registry":    r.Model(loc, game.Classic(), ModelInfo{Current: current, Kept: []int64{2, 1}, Live: live, HasLive: true, Params: 5523}),
				"lagging":     r.Model(loc, game.Classic(), ModelInfo{Current: current, Live: shipped, HasLive: true, Params: 5523}),
				"shipped":     r.Model(loc, game.Classic(), ModelInfo{Live: shipped, HasLive: true, Params: 5523}),
				"none":        r.Model(loc, game.Classic(), ModelInfo{}),
				"rolled_back": r.ModelRolledBack(loc, game.Classic(), "100", persistence.ModelMeta{Rules: "3x3k3", Version: 2, Created: fixedNow}),
				"no_rollback": r.Error(loc, &UserError{Key: keyNoRollback, Vars: []string{"rules", r.rulesText(loc, game.Classic())}}),
				"no_model":    r.Error(loc, &UserError{Key: keyNoModelLevel, Vars: []string{"level", r.levelText(loc, "neural"), "rules", r.rulesText(loc, game.Classic())}}),
				"no_model_boards": r.Error(loc, &UserError{Key: keyNoModelBoards, Vars: []string{"level", r.levelText(loc, "humanlike"), "rules", r.rulesText(loc, sixBySix),
					"boards", r.boardsText(loc, []string{"5x5k4", "3x3k3", "7x7k5", "4x3xox", "4x4k3"})}}),
				"running": r.Error(loc, &UserError{Key: KeyRetrainRunning}),
			}
			got := wireJSON(t, out)
			if strings.Contains(string(got), "[[") {
				t.Errorf("a text is missing:\n%s", got)
			}
			if slices.Contains(goldenLocales, loc) {
				golden(t, "model."+string(loc)+".json", got)
			}
		})
	}
}

// TestRetrainOutcome checks which outcome a run's message shows.
func TestRetrainOutcome(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rep     retrain.Report
		err     error
		stopped bool
		want    string
	}{
		{"promoted", retrain.Report{Outcome: retrain.OutcomePromoted}, nil, false, retrain.OutcomePromoted},
		{"rejected", retrain.Report{Outcome: retrain.OutcomeRejected}, nil, false, retrain.OutcomeRejected},
		{"timed out", retrain.Report{Outcome: retrain.OutcomeTimedOut}, retrain.ErrTimedOut, false, retrain.OutcomeTimedOut},
		{"failed", retrain.Report{Outcome: retrain.OutcomeFailed}, errors.New("boom"), false, retrain.OutcomeFailed},
		{"no report", retrain.Report{}, errors.New("redis down"), false, retrain.OutcomeFailed},
		{"shutdown", retrain.Report{Outcome: retrain.OutcomeFailed}, context.Canceled, true, OutcomeStopped},
		{"finished as the bot stopped", retrain.Report{Outcome: retrain.OutcomePromoted}, nil, true, retrain.OutcomePromoted},
		{"refused", retrain.Report{Outcome: retrain.OutcomeRefused}, &retrain.TooFewGamesError{Rules: "3x3k3", NewGames: 12, Min: 50}, false, retrain.OutcomeRefused},
		{"refused as the bot stopped", retrain.Report{Outcome: retrain.OutcomeRefused}, &retrain.TooFewGamesError{Rules: "3x3k3", NewGames: 12, Min: 50}, true, retrain.OutcomeRefused},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := RetrainOutcome(tc.rep, tc.err, tc.stopped); got != tc.want {
				t.Errorf("RetrainOutcome = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestNoModelKey checks that ai.ErrNoModel, wherever it comes from, is
// shown as a user's mistake, not an internal error.
func TestNoModelKey(t *testing.T) {
	cat := testCatalog(t)
	err := fmt.Errorf("bot: AI move in game g: %w", fmt.Errorf("%w: 3x3k3", ai.ErrNoModel))
	if got := ErrorKey(err); got != KeyNoModel {
		t.Fatalf("ErrorKey = %q, want %q", got, KeyNoModel)
	}
	if got := cat.Error(discordgo.EnglishUS, err); got != cat.Text(DefaultLocale, KeyNoModel) || strings.Contains(got, "{") {
		t.Fatalf("Error = %q", got)
	}
}
