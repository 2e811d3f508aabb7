package render

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai/train"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/retrain"
)

// ChartName is the file name of the training chart attached to a retrain
// report; the report's embed shows it as attachment://chart.png.
const ChartName = "chart.png"

// Outcomes of a retrain as RetrainReport shows them: the job's
// (retrain.OutcomePromoted, OutcomeRejected, OutcomeRefused,
// OutcomeTimedOut, OutcomeFailed) and OutcomeStopped.
const (
	// OutcomeStopped is a run cancelled because the bot shut down.
	OutcomeStopped = "stopped"
)

// Embed colours of a retrain report.
const (
	colorPromoted = 0x2ecc71
	colorRejected = 0xe74c3c
	colorOther    = 0xf39c12
)

// RetrainStarted renders the message that answers /ttt-admin retrain at
// once: a public line saying which board is retrained and by whom, which
// the progress then replaces.
func (r *Renderer) RetrainStarted(loc discordgo.Locale, rules game.Rules, user string) *discordgo.InteractionResponseData {
	return &discordgo.InteractionResponseData{
		Content:         r.cat.Text(loc, "retrain.started", "rules", r.RulesText(loc, rules), "user", Mention(user)),
		AllowedMentions: NoMentions(),
	}
}

// RetrainProgress renders the progress of a retrain started at started:
// the stage (with its count, when it has one), the last epoch's loss and
// accuracies on the training data in the training stage, and on the
// held-out games when the epoch measured them, and when it started.
func (r *Renderer) RetrainProgress(loc discordgo.Locale, rules game.Rules, user string, p retrain.Progress, started time.Time) string {
	stage := p.Stage
	if key := "retrain.stage." + p.Stage; r.cat.Has(key) {
		stage = r.cat.Text(loc, key)
	}
	vars := []string{"rules", r.RulesText(loc, rules), "user", Mention(user), "stage", stage}
	var lines []string
	if p.Total > 0 {
		lines = append(lines, r.cat.Text(loc, "retrain.progress_count", append(vars, "done", r.cat.Number(loc, p.Done), "total", r.cat.Number(loc, p.Total))...))
	} else {
		lines = append(lines, r.cat.Text(loc, "retrain.progress", vars...))
	}
	if e := p.Epoch; e != nil {
		lines = append(lines, r.cat.Text(loc, "retrain.epoch", "n", r.cat.Number(loc, e.N), "of", r.cat.Number(loc, e.Of),
			"loss", r.decimal(loc, e.Loss, 3), "policy", r.percent(loc, e.PolicyAcc), "human", r.percent(loc, e.HumanAcc)))
		if e.ValidPolicyAcc >= 0 || e.ValidHumanAcc >= 0 {
			lines = append(lines, r.cat.Text(loc, "retrain.epoch_held", "policy", r.percent(loc, e.ValidPolicyAcc), "human", r.percent(loc, e.ValidHumanAcc)))
		}
	}
	lines = append(lines, r.cat.Text(loc, "retrain.since", "ago", Timestamp(started.Unix())))
	return strings.Join(lines, "\n")
}

// RetrainOutcome returns the outcome to show for a run that returned rep
// and err: the report's own, OutcomeRefused for a run refused for too few
// new games, or OutcomeStopped when the bot stopped it (stopped) and
// OutcomeFailed when it has none.
func RetrainOutcome(rep retrain.Report, err error, stopped bool) string {
	switch {
	case rep.Outcome == retrain.OutcomeRefused || errors.Is(err, retrain.ErrTooFewGames):
		return retrain.OutcomeRefused
	case stopped && err != nil:
		return OutcomeStopped
	case err == nil && rep.Outcome != "":
		return rep.Outcome
	case rep.Outcome == retrain.OutcomeTimedOut:
		return retrain.OutcomeTimedOut
	}
	return retrain.OutcomeFailed
}

// RetrainReport renders the final report of a retrain as an embed: the
// outcome (promoted as version N, rejected, refused for too few new games,
// timed out, failed or stopped) and, as far as the run got, the games
// read, the training (its last epoch's figures on the training data), the
// held-out figures of the new network and of the live one, the arena
// results of the new network and of the reference (the live network, or a
// random mover) against each baseline and the human-move head's tests,
// with ✅ or ❌ by the gating rule, the model compared with, the rule
// itself and, for a rejected run, the condition that decided. With chart,
// the embed shows the attachment ChartName as its image. cfg is the job's
// configuration: its time limit for a run that hit it, its minimum of new
// games for a refused one.
func (r *Renderer) RetrainReport(loc discordgo.Locale, rep retrain.Report, outcome string, cfg retrain.Config, chart bool) *discordgo.MessageEmbed {
	rules, err := game.ParseRules(rep.Rules)
	name := rep.Rules
	if err == nil {
		name = r.RulesText(loc, rules)
	}
	e := &discordgo.MessageEmbed{
		Title: r.cat.Text(loc, "retrain.title", "rules", name),
		Color: colorOther,
	}
	r.retrainOutcome(loc, e, rep, outcome, cfg, name)
	e.Fields = r.retrainFields(loc, rep)
	if rep.Workers > 0 {
		e.Footer = &discordgo.MessageEmbedFooter{Text: r.cat.Text(loc, "retrain.footer", "workers", r.cat.Number(loc, rep.Workers),
			"took", r.cat.Duration(loc, time.Duration(rep.Durations.Total*float64(time.Second))))}
	}
	if !rep.Started.IsZero() {
		e.Timestamp = rep.Started.UTC().Format(time.RFC3339)
	}
	if chart {
		e.Image = &discordgo.MessageEmbedImage{URL: "attachment://" + ChartName}
	}
	return e
}

// retrainOutcome sets the report's description, and its colour for a
// promoted or rejected run, from the outcome; name is the board's name.
func (r *Renderer) retrainOutcome(loc discordgo.Locale, e *discordgo.MessageEmbed, rep retrain.Report, outcome string, cfg retrain.Config, name string) {
	switch outcome {
	case retrain.OutcomePromoted:
		version := "?"
		if rep.Published != nil {
			version = strconv.FormatInt(rep.Published.Version, 10)
		}
		e.Description, e.Color = r.cat.Text(loc, "retrain.promoted", "version", version), colorPromoted
	case retrain.OutcomeRejected:
		e.Description, e.Color = r.cat.Text(loc, "retrain.rejected"), colorRejected
	case retrain.OutcomeRefused:
		e.Description = r.cat.Text(loc, KeyRetrainTooFew, "rules", name, "new", r.cat.Number(loc, rep.Corpus.NewGames),
			"min", r.cat.Number(loc, cfg.MinNewGames))
	case retrain.OutcomeTimedOut:
		e.Description = r.cat.Text(loc, "retrain.timed_out", "limit", r.cat.Duration(loc, cfg.TimeLimit.Round(time.Second)))
	case OutcomeStopped:
		e.Description = r.cat.Text(loc, "retrain.stopped")
	default:
		e.Description = r.cat.Text(loc, "retrain.failed")
	}
}

// retrainFields returns the report's fields, leaving out those with
// nothing to say: the games, the training, the held-out figures, the
// arena, the human-move tests, the model compared with, the gating rule
// and, for a rejected run, the condition that decided.
func (r *Renderer) retrainFields(loc discordgo.Locale, rep retrain.Report) []*discordgo.MessageEmbedField {
	var fields []*discordgo.MessageEmbedField
	field := func(name, value string) {
		if value != "" {
			fields = append(fields, &discordgo.MessageEmbedField{Name: name, Value: truncate(value, MaxEmbedFieldValue)})
		}
	}
	field(r.cat.Text(loc, "retrain.field.games"), r.retrainGames(loc, rep))
	field(r.cat.Text(loc, "retrain.field.training"), r.retrainTraining(loc, rep))
	field(r.cat.Text(loc, "retrain.field.held_out"), r.heldOut(loc, rep.Holdout))
	g := rep.Gate
	live := g != nil && g.HeadToHead != nil || rep.Live.Source == retrain.SourceRegistry || rep.Live.Source == retrain.SourceShipped
	if g != nil {
		field(r.cat.Plural(loc, "retrain.field.arena", g.Games), r.arena(loc, g, live))
	}
	var human []string
	if g != nil && g.Human != nil {
		human = append(human, r.humanGate(loc, g.Human)...)
	}
	if p := rep.Players; p != nil && p.Players > 0 {
		human = append(human, r.players(loc, p))
	}
	field(r.cat.Text(loc, "retrain.field.human"), strings.Join(human, "\n"))
	if g != nil {
		compared := r.cat.Text(loc, "retrain.field.compared")
		switch rep.Live.Source {
		case retrain.SourceRegistry:
			field(compared, r.cat.Text(loc, "retrain.live.registry", "version", strconv.FormatInt(rep.Live.Version, 10)))
		case retrain.SourceShipped:
			field(compared, r.cat.Text(loc, "retrain.live.shipped", "label", rep.Live.Label))
		default:
			field(compared, r.cat.Text(loc, "retrain.live.none"))
		}
		field(r.cat.Text(loc, "retrain.field.rule"), r.rule(loc, g, live))
		if !g.Pass {
			field(r.cat.Text(loc, "retrain.field.decided"), r.decided(loc, g, live))
		}
	}
	return fields
}

// retrainGames renders the games read (new and human ones, and any
// corrupt records skipped), or "" when the run read none and did not
// train.
func (r *Renderer) retrainGames(loc discordgo.Locale, rep retrain.Report) string {
	c := rep.Corpus
	if c.Games == 0 && c.Corrupt == 0 && rep.Training == nil {
		return ""
	}
	v := r.cat.Text(loc, "retrain.games", "games", r.cat.Plural(loc, "count.games", c.Games), "new", r.cat.Number(loc, c.NewGames),
		"human", r.cat.Number(loc, c.HumanGames))
	if c.Corrupt > 0 {
		v = sentences(v, r.cat.Text(loc, "retrain.corrupt", "count", r.cat.Number(loc, c.Corrupt)))
	}
	return v
}

// retrainTraining renders the training: its epochs and positions and its
// last epoch's figures on the training data, or "" before any epoch.
func (r *Renderer) retrainTraining(loc discordgo.Locale, rep retrain.Report) string {
	n := len(rep.Epochs)
	if n == 0 {
		return ""
	}
	last := rep.Epochs[n-1]
	positions := "?"
	if rep.Training != nil {
		positions = r.cat.Plural(loc, "count.positions", rep.Training.Positions)
	}
	return r.cat.Text(loc, "retrain.training", "epochs", r.cat.Plural(loc, "count.epochs", n), "positions", positions,
		"loss", r.decimal(loc, last.Loss, 3), "policy", r.percent(loc, last.PolicyAcc), "human", r.percent(loc, last.HumanAcc))
}

// heldOut renders the figures on each held-out set with games, one line
// each: the human-move head's top-1 share of the people's moves and the
// best-move head's agreement with the solver, the new network's and,
// when it was measured, the live one's.
func (r *Renderer) heldOut(loc discordgo.Locale, sets []train.HoldoutResult) string {
	var lines []string
	for _, s := range sets {
		if s.Games == 0 {
			continue
		}
		vars := []string{"set", r.setName(loc, s.Name), "games", r.cat.Plural(loc, "count.games", s.Games),
			"human", r.ratio(loc, s.Net.HumanTop1), "policy", r.ratio(loc, s.Net.PolicyAgree)}
		if ref := s.Reference; ref != nil {
			lines = append(lines, r.cat.Text(loc, "retrain.held.line", append(vars,
				"human_live", r.ratio(loc, ref.HumanTop1), "policy_live", r.ratio(loc, ref.PolicyAgree))...))
		} else {
			lines = append(lines, r.cat.Text(loc, "retrain.held.alone", vars...))
		}
	}
	return strings.Join(lines, "\n")
}

// humanGate renders the human-move head's test on each held-out set: the
// player-balanced figures of the new network and the live one, and the
// verdict (passed, failed, waived or not judged).
func (r *Renderer) humanGate(loc discordgo.Locale, h *retrain.HumanGate) []string {
	var lines []string
	for _, s := range h.Sets {
		vars := []string{"set", r.setName(loc, s.Name), "moves", r.cat.Number(loc, s.Moves),
			"new", r.percent(loc, s.Candidate), "live", r.percent(loc, s.Live)}
		key := "retrain.human.failed"
		switch {
		case s.Verdict == "passed":
			key = "retrain.human.passed"
		case strings.HasPrefix(s.Verdict, "waived"):
			key = "retrain.human.waived"
		case strings.HasPrefix(s.Verdict, "not judged"):
			key, vars = "retrain.human.not_judged", append(vars, "min", r.cat.Number(loc, h.MinMoves))
		}
		lines = append(lines, r.cat.Text(loc, key, vars...))
	}
	return lines
}

// players renders how the human moves were weighted by player: how many
// players, how many the per-player bound scaled down and how many were
// far worse than chance and down-weighted, none of them named.
func (r *Renderer) players(loc discordgo.Locale, p *train.PlayerReport) string {
	vars := []string{"players", r.cat.Number(loc, p.Players), "far_worse", r.cat.Number(loc, p.FarWorse),
		"moves", r.cat.Number(loc, p.FarWorseMoves)}
	if p.MaxShare <= 0 || p.MaxShare >= 1 {
		return r.cat.Text(loc, "retrain.players_unbounded", vars...)
	}
	return r.cat.Text(loc, "retrain.players", append(vars, "share", r.percent(loc, p.MaxShare), "bounded", r.cat.Number(loc, p.Bounded))...)
}

// setName names a held-out set: the held-out games new since the last run,
// or the reference set of earlier runs'.
func (r *Renderer) setName(loc discordgo.Locale, name string) string {
	switch name {
	case retrain.SetHeldOut:
		return r.cat.Text(loc, "retrain.set.held_out")
	case retrain.SetReference:
		return r.cat.Text(loc, "retrain.set.reference")
	}
	return name
}

// ratio formats a counted share as a percentage, or "–" when nothing was
// counted.
func (r *Renderer) ratio(loc discordgo.Locale, v train.Ratio) string {
	if v.Den == 0 {
		return r.percent(loc, -1)
	}
	return r.percent(loc, v.Float())
}

// gateEps is the gate's slack: a figure exactly on a threshold passes
// whatever the rounding.
const gateEps = 1e-9

// lossMargin is how much more often than the reference the candidate may
// lose to opponent: the margin, but against perfect none at all when
// there is a live model (as the job's gate).
func lossMargin(g *retrain.GateReport, opponent string, live bool) float64 {
	if live && opponent == "perfect" {
		return min(g.Margin, 0)
	}
	return g.Margin
}

// arena renders the gate's matches, one line each, marked by the gating
// rule: the head-to-head match against the live network, then each
// baseline with the new network's score and loss rate and the
// reference's.
func (r *Renderer) arena(loc discordgo.Locale, g *retrain.GateReport, live bool) string {
	mark := func(ok bool) string {
		if ok {
			return "✅"
		}
		return "❌"
	}
	var lines []string
	if h := g.HeadToHead; h != nil {
		need := 0.5 - g.Margin
		lines = append(lines, r.cat.Text(loc, "retrain.arena.head", "ok", mark(h.Score >= need-gateEps),
			"score", r.percent(loc, h.Score), "need", r.percent(loc, need)))
	}
	ref := r.refText(loc, live)
	for _, b := range g.Baselines {
		c, old := b.Candidate, b.Reference
		ok := c.Score >= old.Score-g.Margin-gateEps && c.LossRate <= old.LossRate+lossMargin(g, b.Opponent, live)+gateEps
		lines = append(lines, r.cat.Text(loc, "retrain.arena.line", "ok", mark(ok), "opponent", r.baselineText(loc, b.Opponent),
			"new", r.percent(loc, c.Score), "ref", ref, "old", r.percent(loc, old.Score),
			"new_loss", r.percent(loc, c.LossRate), "old_loss", r.percent(loc, old.LossRate)))
	}
	return strings.Join(lines, "\n")
}

// refText names the gate's reference as the arena's lines do.
func (r *Renderer) refText(loc discordgo.Locale, live bool) string {
	if live {
		return r.cat.Text(loc, "retrain.ref.live")
	}
	return r.cat.Text(loc, "retrain.ref.random")
}

// rule states the gating rule with its numbers: the matches' (with the
// live model, no more losses to perfect than it) and, with a live model,
// the human-move head's.
func (r *Renderer) rule(loc discordgo.Locale, g *retrain.GateReport, live bool) string {
	if !live {
		return r.cat.Text(loc, "retrain.rule.none", "margin", r.percent(loc, g.Margin))
	}
	parts := []string{r.cat.Text(loc, "retrain.rule.live", "need", r.percent(loc, 0.5-g.Margin), "margin", r.percent(loc, g.Margin))}
	for _, b := range g.Baselines {
		if b.Opponent == "perfect" {
			parts = append(parts, r.cat.Text(loc, "retrain.rule.perfect", "perfect", r.baselineText(loc, b.Opponent)))
		}
	}
	if h := g.Human; h != nil {
		parts = append(parts, r.cat.Text(loc, "retrain.rule.human", "min", r.cat.Number(loc, h.MinMoves), "tolerance", r.percent(loc, h.Tolerance)))
	}
	return sentences(parts...)
}

// sentences joins whole sentences of a text with a space, or with none
// after a full stop that needs none (Chinese and Japanese "。").
func sentences(parts ...string) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 && !strings.HasSuffix(parts[i-1], "。") && !strings.HasSuffix(parts[i-1], "！") {
			b.WriteByte(' ')
		}
		b.WriteString(p)
	}
	return b.String()
}

// decided states the first condition the candidate broke, in the order
// the job's gate checks them (the head-to-head match, each baseline's
// score and losses, each held-out set's human-move test), with its
// figures; when it finds none (a rule this renderer does not know), the
// job's own words (GateReport.Decided).
func (r *Renderer) decided(loc discordgo.Locale, g *retrain.GateReport, live bool) string {
	if h := g.HeadToHead; live && h != nil && h.Score < 0.5-g.Margin-gateEps {
		return r.cat.Text(loc, "retrain.decided.head", "score", r.percent(loc, h.Score), "need", r.percent(loc, 0.5-g.Margin))
	}
	ref := r.refText(loc, live)
	for _, b := range g.Baselines {
		c, old := b.Candidate, b.Reference
		vars := []string{"opponent", r.baselineText(loc, b.Opponent), "ref", ref}
		if c.Score < old.Score-g.Margin-gateEps {
			return r.cat.Text(loc, "retrain.decided.score", append(vars, "new", r.percent(loc, c.Score), "old", r.percent(loc, old.Score),
				"margin", r.percent(loc, g.Margin))...)
		}
		if lm := lossMargin(g, b.Opponent, live); c.LossRate > old.LossRate+lm+gateEps {
			return r.cat.Text(loc, "retrain.decided.loss", append(vars, "new", r.percent(loc, c.LossRate), "old", r.percent(loc, old.LossRate),
				"margin", r.percent(loc, lm))...)
		}
	}
	if h := g.Human; live && h != nil {
		for _, s := range h.Sets {
			if s.Verdict == "failed" {
				return r.cat.Text(loc, "retrain.decided.human", "set", r.setName(loc, s.Name), "new", r.percent(loc, s.Candidate),
					"live", r.percent(loc, s.Live), "tolerance", r.percent(loc, h.Tolerance))
			}
		}
	}
	return g.Decided
}

// decimal formats v with digits decimals and the locale's decimal mark.
func (r *Renderer) decimal(loc discordgo.Locale, v float64, digits int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	return r.cat.Decimal(loc, v, digits)
}

// percent formats a share in [0, 1] as a percentage with one decimal, or
// "–" for a share that was not measured (negative or NaN).
func (r *Renderer) percent(loc discordgo.Locale, v float64) string {
	if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	return r.cat.Percent(loc, v, 1)
}

// longTimestamp is a Discord timestamp shown as a date and time in the
// reader's locale and time zone.
func longTimestamp(t time.Time) string {
	return "<t:" + strconv.FormatInt(t.Unix(), 10) + ":f>"
}

// truncate shortens s to at most n runes, ending it with "…" if cut.
func truncate(s string, n int) string {
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	return string(slices.Clip(rs[:n-1])) + "…"
}
