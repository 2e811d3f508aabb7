package render

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/ai/train"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/retrain"
)

// ModelInfo is what /ttt-admin model shows about a board's network.
type ModelInfo struct {
	// Current is the registry's current version; Version is 0 when none
	// was published.
	Current persistence.ModelMeta
	// Kept are the other versions kept for rollback, newest first.
	Kept []int64
	// Live is the network this process plays, if HasLive; Params its size.
	Live    nn.Meta
	HasLive bool
	Params  int
}

// Model renders /ttt-admin model for rules: the registry's current
// version (when it was published, its arena results, the versions kept
// for rollback) or the shipped default this process plays, or that there
// is no network; and, when this process has not switched to the current
// version yet, what it still plays.
func (r *Renderer) Model(loc discordgo.Locale, rules game.Rules, info ModelInfo) *discordgo.InteractionResponseData {
	rt := r.RulesText(loc, rules)
	var lines []string
	switch {
	case info.Current.Version > 0:
		lines = append(lines, r.cat.Text(loc, "model.registry", "rules", rt, "version", strconv.FormatInt(info.Current.Version, 10),
			"created", longTimestamp(info.Current.Created)))
	case info.HasLive:
		lines = append(lines, r.cat.Text(loc, "model.shipped", "rules", rt, "label", info.Live.Version))
	default:
		return Ephemeral(r.cat.Text(loc, "model.none", "rules", rt))
	}
	if info.HasLive {
		hidden := make([]string, len(info.Live.Arch.Hidden))
		for i, h := range info.Live.Arch.Hidden {
			hidden[i] = strconv.Itoa(h)
		}
		lines = append(lines, r.cat.Text(loc, "model.shape", "params", r.cat.Plural(loc, "count.parameters", info.Params), "hidden", strings.Join(hidden, "×")))
	}
	eval := info.Current.Eval
	if info.Current.Version == 0 {
		eval = info.Live.Eval // the shipped weights' own evaluation
	}
	if s := r.evalSummary(loc, eval); s != "" {
		lines = append(lines, r.cat.Text(loc, "model.eval", "summary", s))
	}
	if len(info.Kept) > 0 {
		vs := make([]string, len(info.Kept))
		for i, v := range info.Kept {
			vs[i] = strconv.FormatInt(v, 10)
		}
		lines = append(lines, r.cat.Text(loc, "model.versions", "versions", strings.Join(vs, ", ")))
	}
	if info.Current.Version > 0 {
		if v, ok := retrain.RegistryVersion(info.Live); !info.HasLive || !ok || v != info.Current.Version {
			live := info.Live.Version
			if !info.HasLive {
				live = "-"
			}
			lines = append(lines, r.cat.Text(loc, "model.lagging", "live", live))
		}
	}
	return Ephemeral(strings.Join(lines, "\n"))
}

// evalSummary summarises a network's evaluation: for a published version
// the retrain job's gate report (its score against the previous version
// and each baseline), for shipped weights the training's arena (its score
// against each baseline). It is "" for anything else.
func (r *Renderer) evalSummary(loc discordgo.Locale, raw json.RawMessage) string {
	var g retrain.GateReport
	if len(raw) == 0 || json.Unmarshal(raw, &g) != nil {
		return ""
	}
	var parts []string
	if h := g.HeadToHead; h != nil {
		parts = append(parts, r.cat.Text(loc, "model.previous")+" "+r.percent(loc, h.Score))
	}
	for _, b := range g.Baselines {
		parts = append(parts, r.baselineText(loc, b.Opponent)+" "+r.percent(loc, b.Candidate.Score))
	}
	if len(parts) == 0 {
		var ev train.Eval
		if json.Unmarshal(raw, &ev) == nil {
			for _, m := range ev.Arena {
				parts = append(parts, r.baselineText(loc, m.Opponent)+" "+r.percent(loc, m.Score))
			}
		}
	}
	return strings.Join(parts, " · ")
}

// ModelRolledBack renders the public message saying that user rolled the
// network for rules back to version m.
func (r *Renderer) ModelRolledBack(loc discordgo.Locale, rules game.Rules, user string, m persistence.ModelMeta) *discordgo.InteractionResponseData {
	return &discordgo.InteractionResponseData{
		Content: r.cat.Text(loc, "model.rolled_back", "user", Mention(user), "rules", r.RulesText(loc, rules),
			"version", strconv.FormatInt(m.Version, 10), "created", longTimestamp(m.Created)),
		AllowedMentions: NoMentions(),
	}
}

// baselineText names a gate baseline, a level with an optional "@N"
// (iterations or depth): "Monte Carlo@1000".
func (r *Renderer) baselineText(loc discordgo.Locale, spec string) string {
	level, n, ok := strings.Cut(spec, "@")
	if !ok {
		return r.LevelText(loc, spec)
	}
	return r.LevelText(loc, level) + "@" + n
}
