package render

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/ai/train"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/retrain"
)

// testReport is a retrain report as a promoted run on 3x3 fills it: a
// live model from the registry, both held-out sets measured and judged,
// and players bounded and down-weighted.
func testReport() retrain.Report {
	return retrain.Report{
		Rules: "3x3k3", Trigger: retrain.TriggerModerator, By: "100", Owner: "host/1", Started: fixedNow,
		Outcome: retrain.OutcomePromoted, Promoted: true,
		Reason:  "promoted: scored 0.525 against the live model",
		Corpus:  retrain.CorpusSummary{Games: 2400, NewGames: 600, HumanGames: 2100, HeldOut: 60, Reference: 180, Corrupt: 1, Since: "1795200000000-0"},
		Live:    retrain.LiveModel{Source: retrain.SourceRegistry, Version: 2, Label: "redis-2"},
		Workers: 1,
		Epochs: []nn.Epoch{
			{N: 1, Of: 2, Loss: 1.25, PolicyAcc: 0.5, HumanAcc: 0.25, ValidPolicyAcc: 0.9, ValidHumanAcc: 0.6},
			{N: 2, Of: 2, Loss: 0.8125, PolicyAcc: 0.9875, HumanAcc: 0.78125, ValidPolicyAcc: 0.995, ValidHumanAcc: 0.725},
		},
		Holdout: []train.HoldoutResult{
			{Name: retrain.SetHeldOut, Games: 60, HumanMoves: 380, Players: 14,
				Net:            train.Figures{HumanTop1: train.Ratio{Num: 281, Den: 380}, HumanBalanced: 0.741, PolicyAgree: train.Ratio{Num: 212, Den: 212}},
				Reference:      &train.Figures{HumanTop1: train.Ratio{Num: 232, Den: 380}, HumanBalanced: 0.615, PolicyAgree: train.Ratio{Num: 211, Den: 212}},
				PlayersCounted: 9, PlayersBetter: 7, PlayersWorse: 1},
			{Name: retrain.SetReference, Games: 180, HumanMoves: 1150, Players: 27,
				Net:            train.Figures{HumanTop1: train.Ratio{Num: 830, Den: 1150}, HumanBalanced: 0.721, PolicyAgree: train.Ratio{Num: 405, Den: 406}},
				Reference:      &train.Figures{HumanTop1: train.Ratio{Num: 815, Den: 1150}, HumanBalanced: 0.709, PolicyAgree: train.Ratio{Num: 404, Den: 406}},
				PlayersCounted: 21, PlayersBetter: 12, PlayersWorse: 6},
		},
		Players:  &train.PlayerReport{Players: 31, MaxShare: 2.0 / 31, Bounded: 2, BoundedShare: 0.31, FarWorse: 1, FarWorseMoves: 212},
		Training: &train.Report{Rules: "3x3k3", Positions: 765},
		Gate: &retrain.GateReport{
			Games: 20, Margin: 0.05,
			HeadToHead: &retrain.Match{Opponent: "live", Games: 20, Score: 0.525},
			Baselines: []retrain.BaselineResult{
				{Opponent: "random", Candidate: retrain.Match{Score: 0.95}, Reference: retrain.Match{Score: 0.9, LossRate: 0.05}},
				{Opponent: "perfect", Candidate: retrain.Match{Score: 0.5}, Reference: retrain.Match{Score: 0.5}},
				{Opponent: "mcts@1000", Candidate: retrain.Match{Score: 0.75, LossRate: 0.1}, Reference: retrain.Match{Score: 0.7, LossRate: 0.1}},
			},
			Human: &retrain.HumanGate{Tolerance: retrain.DefaultHumanTolerance, MinMoves: retrain.MinHeldOutMoves, BroadPlayers: retrain.BroadPlayers,
				Broad: true,
				Sets: []retrain.HumanSet{
					{Name: retrain.SetHeldOut, Moves: 380, Players: 14, Candidate: 0.741, Live: 0.615, PlayersBetter: 7, PlayersWorse: 1, Verdict: "passed"},
					{Name: retrain.SetReference, Moves: 1150, Players: 27, Candidate: 0.721, Live: 0.709, PlayersBetter: 12, PlayersWorse: 6, Verdict: "passed"},
				}},
			Pass:    true,
			Decided: "every rule passed",
		},
		Published: &retrain.Published{Version: 3, Label: "redis-3"},
		Durations: retrain.Durations{Total: 12.345},
	}
}

// rejectedPerfect is testReport rejected by the matches: it scored and
// lost more against perfect than the live model.
func rejectedPerfect() retrain.Report {
	rep := testReport()
	rep.Outcome, rep.Promoted, rep.Published = retrain.OutcomeRejected, false, nil
	rep.Gate.Pass = false
	rep.Gate.Baselines[1].Candidate = retrain.Match{Score: 0.4, LossRate: 0.2}
	rep.Gate.Failures = []string{
		"against perfect it scored 0.400, below the live model's 0.500 - margin 0.05",
		"against perfect it lost 20.0% of games, more than the live model's 0.0% + margin 0.00",
	}
	rep.Gate.Decided = rep.Gate.Failures[0]
	return rep
}

// rejectedHuman is testReport rejected by the human-move head's test on
// the reference set, which the new games' change of style did not waive
// (too few players predicted better).
func rejectedHuman() retrain.Report {
	rep := testReport()
	rep.Outcome, rep.Promoted, rep.Published = retrain.OutcomeRejected, false, nil
	ref := &rep.Holdout[1]
	ref.Net.HumanTop1, ref.Net.HumanBalanced = train.Ratio{Num: 790, Den: 1150}, 0.689
	ref.Reference.HumanTop1, ref.Reference.HumanBalanced = train.Ratio{Num: 819, Den: 1150}, 0.712
	h := rep.Gate.Human
	h.Broad = false
	h.Sets[1].Candidate, h.Sets[1].Live, h.Sets[1].Verdict = 0.689, 0.712, "failed"
	h.Failures = []string{"on the reference games its human head predicted 68.9% of the moves, below the live model's 71.2% - 0.5 points"}
	rep.Gate.Pass, rep.Gate.Failures, rep.Gate.Decided = false, h.Failures, h.Failures[0]
	return rep
}

// waivedReport is rejectedHuman promoted after all: the new games show a
// change of style across the server, which waives the reference set's
// test, while the new held-out set is too small to be judged; the run
// applied no per-player bound.
func waivedReport() retrain.Report {
	rep := rejectedHuman()
	rep.Outcome, rep.Promoted, rep.Published = retrain.OutcomePromoted, true, &retrain.Published{Version: 3, Label: "redis-3"}
	rep.Holdout[0].HumanMoves = 80
	h := rep.Gate.Human
	h.Broad, h.Failures = true, nil
	h.Sets[0].Moves, h.Sets[0].Verdict = 80, "not judged: 80 human moves, fewer than 100"
	h.Sets[1].Verdict = "waived: a change of style across the server"
	rep.Gate.Pass, rep.Gate.Failures, rep.Gate.Decided = true, nil, "every rule passed"
	rep.Players = &train.PlayerReport{Players: 31}
	return rep
}

// noLiveReport is a first run: no live model (the gate's reference is a
// random mover), the held-out set measured for the candidate alone, an
// empty reference set and no human-move test.
func noLiveReport() retrain.Report {
	rep := testReport()
	rep.Corpus = retrain.CorpusSummary{Games: 120, NewGames: 120, HumanGames: 100, HeldOut: 12, Since: "0"}
	rep.Live = retrain.LiveModel{Source: retrain.SourceNone}
	rep.Holdout = []train.HoldoutResult{
		{Name: retrain.SetHeldOut, Games: 12, HumanMoves: 70, Players: 6,
			Net: train.Figures{HumanTop1: train.Ratio{Num: 41, Den: 70}, HumanBalanced: 0.58, PolicyAgree: train.Ratio{Num: 47, Den: 48}}},
		{Name: retrain.SetReference},
	}
	rep.Players = &train.PlayerReport{Players: 6, MaxShare: 2.0 / 6}
	rep.Published = &retrain.Published{Version: 1, Label: "redis-1"}
	rep.Gate = &retrain.GateReport{
		Games: 20, Margin: 0.05, Reference: "random",
		Baselines: []retrain.BaselineResult{
			{Opponent: "random", Candidate: retrain.Match{Score: 0.95, LossRate: 0.02}, Reference: retrain.Match{Score: 0.5, LossRate: 0.4}},
			{Opponent: "perfect", Candidate: retrain.Match{Score: 0.45, LossRate: 0.1}, Reference: retrain.Match{Score: 0.1, LossRate: 0.8}},
			{Opponent: "mcts@1000", Candidate: retrain.Match{Score: 0.5}, Reference: retrain.Match{Score: 0.05, LossRate: 0.9}},
		},
		Pass: true, Decided: "every rule passed",
	}
	return rep
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
// answer, the progress (with and without held-out figures), and the
// reports of promoted, rejected (by the matches, by the human-move head),
// waived, first, refused, timed-out and stopped runs; every report is
// within Discord's limits.
func TestRetrainGolden(t *testing.T) {
	r := testRenderer(t)
	epoch := testReport().Epochs[1]
	trainOnly := epoch
	trainOnly.ValidPolicyAcc, trainOnly.ValidHumanAcc = -1, -1
	timedOut := testRetrainConfig
	timedOut.TimeLimit = 30 * time.Minute
	for _, loc := range r.Catalog().Locales() {
		t.Run(string(loc), func(t *testing.T) {
			reports := map[string]*discordgo.MessageEmbed{
				"promoted":       r.RetrainReport(loc, testReport(), retrain.OutcomePromoted, testRetrainConfig, true),
				"rejected":       r.RetrainReport(loc, rejectedPerfect(), retrain.OutcomeRejected, testRetrainConfig, true),
				"rejected_human": r.RetrainReport(loc, rejectedHuman(), retrain.OutcomeRejected, testRetrainConfig, true),
				"waived":         r.RetrainReport(loc, waivedReport(), retrain.OutcomePromoted, testRetrainConfig, true),
				"no_live":        r.RetrainReport(loc, noLiveReport(), retrain.OutcomePromoted, testRetrainConfig, true),
				"refused":        r.RetrainReport(loc, refusedReport(), retrain.OutcomeRefused, testRetrainConfig, false),
				"timed_out":      r.RetrainReport(loc, retrain.Report{Rules: "4x4k4", Outcome: retrain.OutcomeTimedOut}, retrain.OutcomeTimedOut, timedOut, false),
				"stopped":        r.RetrainReport(loc, retrain.Report{Rules: "3x3k3"}, OutcomeStopped, testRetrainConfig, false),
			}
			out := map[string]any{
				"started": r.RetrainStarted(loc, game.Classic(), "100"),
				"progress": []string{
					r.RetrainProgress(loc, game.Classic(), "100", retrain.Progress{Rules: "3x3k3", Stage: "corpus"}, fixedNow),
					r.RetrainProgress(loc, game.Classic(), "100", retrain.Progress{Rules: "3x3k3", Stage: "training", Done: 2, Total: 2, Epoch: &epoch}, fixedNow),
					r.RetrainProgress(loc, game.Classic(), "100", retrain.Progress{Rules: "3x3k3", Stage: "training", Done: 2, Total: 2, Epoch: &trainOnly}, fixedNow),
				},
			}
			for name, e := range reports {
				out[name] = e
				if err := CheckMessage(&discordgo.InteractionResponseData{Embeds: []*discordgo.MessageEmbed{e}}); err != nil {
					t.Errorf("%s: %v", name, err)
				}
			}
			got := wireJSON(t, out)
			if strings.Contains(string(got), "[[") {
				t.Errorf("a text is missing:\n%s", got)
			}
			if slices.Contains(goldenLocales, loc) || slices.Contains(l10nLocales, loc) {
				goldenFile(t, "retrain."+string(loc)+".json", got)
			}
		})
	}
}

// TestRetrainReportFields checks, in en-US, what each kind of report says
// and that its marks follow the job's gate: the held-out figures of both
// sets beside the training's, the human-move head's verdicts, the rule
// that decided a rejection, and against perfect no more losses than the
// live model (the margin applies to the other baselines, and to all of
// them without a live model).
func TestRetrainReportFields(t *testing.T) {
	r := testRenderer(t)
	loc := discordgo.EnglishUS
	losesToPerfect := func(live bool) retrain.Report {
		rep := testReport()
		if !live {
			rep = noLiveReport()
		}
		rep.Gate.Baselines[1].Candidate = retrain.Match{Score: rep.Gate.Baselines[1].Reference.Score - 0.01, LossRate: rep.Gate.Baselines[1].Reference.LossRate + 0.02}
		rep.Gate.Pass = !live
		return rep
	}
	for _, tc := range []struct {
		name    string
		rep     retrain.Report
		outcome string
		want    map[string][]string // field name (or "description") -> texts it contains
		absent  []string            // field names it does not have
	}{
		{"promoted with both held-out sets", testReport(), retrain.OutcomePromoted, map[string][]string{
			"Training":                          {"On the training data, last epoch", "human-move accuracy 78.1%"},
			"Held-out games (never trained on)": {"Held-out (60 games): people's moves predicted 73.9% (live 61.1%) · best move keeps the value 100.0% (live 99.5%)", "Reference (180 games): people's moves predicted 72.2% (live 70.9%)"},
			"Human-move head":                   {"✅ Held-out (people's moves: 380): new 74.1%, live 61.5%", "✅ Reference (people's moves: 1,150)", "Players: 31 · scaled down to the per-player bound (6.5% of the human-move signal): 2 · far worse than chance, down-weighted: 1 (their moves: 212)"},
			"Rule":                              {"Against Perfect it may not lose more often", "no more than 0.5% worse than the live network's"},
		}, []string{"Decided by"}},
		{"rejected by the human-move head on the reference set", rejectedHuman(), retrain.OutcomeRejected, map[string][]string{
			"description":     {"Rejected"},
			"Human-move head": {"✅ Held-out", "❌ Reference (people's moves: 1,150): new 68.9%, live 71.2%, player-balanced: failed"},
			"Decided by":      {"Reference, people's moves predicted (player-balanced): new 68.9%, live 71.2%; at most 0.5% lower allowed."},
		}, nil},
		{"a change of style waives the reference set, a small set is not judged", waivedReport(), retrain.OutcomePromoted, map[string][]string{
			"Human-move head": {"➖ Held-out (people's moves: 80): not judged, fewer than 100",
				"➖ Reference (people's moves: 1,150): new 68.9%, live 71.2%, player-balanced: waived, a change of style across the server",
				"Players: 31 · no per-player bound"},
		}, []string{"Decided by"}},
		{"rejected by the matches", rejectedPerfect(), retrain.OutcomeRejected, map[string][]string{
			"Decided by": {"Score against Perfect: new 40.0%, live 50.0%; at most 5.0% lower allowed."},
		}, nil},
		{"no live model", noLiveReport(), retrain.OutcomePromoted, map[string][]string{
			"Held-out games (never trained on)": {"Held-out (12 games): people's moves predicted 58.6% · best move keeps the value 97.9%"},
			"Human-move head":                   {"Players: 6 · scaled down to the per-player bound (33.3% of the human-move signal): 0"},
			"Compared with":                     {"random mover"},
			"Rule":                              {"scores at most 5.0% below a random mover", "not judged"},
		}, []string{"Decided by"}},
		{"losing more to perfect with a live model", losesToPerfect(true), retrain.OutcomeRejected, map[string][]string{
			"Arena, 20 games per match": {"❌ Against Perfect: new 49.0%, live 50.0% · lost: new 2.0%, live 0.0%", "✅ Against Random"},
			"Decided by":                {"Losses against Perfect: new 2.0%, live 0.0%; at most 0.0% more allowed."},
		}, nil},
		{"losing more to perfect without a live model", losesToPerfect(false), retrain.OutcomePromoted, map[string][]string{
			"Arena, 20 games per match": {"✅ Against Perfect: new 9.0%, random mover 10.0% · lost: new 82.0%, random mover 80.0%"},
		}, []string{"Decided by"}},
		{"refused", refusedReport(), retrain.OutcomeRefused, map[string][]string{
			"description": {"too few new games", "(12; the minimum is 50)", "force:True"},
			"Games":       {"2,412 games in the corpus, 12 new"},
		}, []string{"Training", "Held-out games (never trained on)", "Arena, 20 games per match", "Rule", "Decided by"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := r.RetrainReport(loc, tc.rep, tc.outcome, testRetrainConfig, false)
			fields := map[string]string{"description": e.Description}
			for _, f := range e.Fields {
				fields[f.Name] = f.Value
			}
			for name, texts := range tc.want {
				v, ok := fields[name]
				if !ok {
					t.Errorf("no %q field; fields: %v", name, slices.Sorted(maps.Keys(fields)))
					continue
				}
				for _, s := range texts {
					if !strings.Contains(v, s) {
						t.Errorf("%q is %q; want it to contain %q", name, v, s)
					}
				}
			}
			for _, name := range tc.absent {
				if v, ok := fields[name]; ok {
					t.Errorf("has a %q field (%q); want none", name, v)
				}
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
				"no_rollback": r.Error(loc, &i18n.UserError{Key: KeyNoRollback, Vars: []string{"rules", r.RulesText(loc, game.Classic())}}),
				"no_model":    r.Error(loc, &i18n.UserError{Key: KeyNoModelLevel, Vars: []string{"level", r.LevelText(loc, "neural"), "rules", r.RulesText(loc, game.Classic())}}),
				"no_model_boards": r.Error(loc, &i18n.UserError{Key: KeyNoModelBoards, Vars: []string{"level", r.LevelText(loc, "humanlike"), "rules", r.RulesText(loc, sixBySix),
					"boards", r.BoardsText(loc, []string{"5x5k4", "3x3k3", "7x7k5", "4x3xox", "4x4k3"})}}),
				"running": r.Error(loc, &i18n.UserError{Key: KeyRetrainRunning}),
			}
			got := wireJSON(t, out)
			if strings.Contains(string(got), "[[") {
				t.Errorf("a text is missing:\n%s", got)
			}
			if slices.Contains(goldenLocales, loc) {
				goldenFile(t, "model."+string(loc)+".json", got)
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
	if got := ErrorText(cat, discordgo.EnglishUS, err); got != cat.Text(i18n.DefaultLocale, KeyNoModel) || strings.Contains(got, "{") {
		t.Fatalf("Error = %q", got)
	}
}
