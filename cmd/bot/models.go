package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/bot/settings"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/retrain"
)

// modelsCommand is "bot models": the model registry in Redis.
func modelsCommand() *command {
	return &command{
		name:     "models",
		synopsis: "list [-rules R] [-json] | show -rules R [-version V] [-json] | rollback -rules R [-to V] | export -rules R [-version V] -out FILE | import -rules R FILE",
		summary:  "list, show, roll back, export or import the boards' networks in the model registry",
		about: `Models manages the model registry: the versions of each board's network
that the retrain job published, and which one is live (played by every
running bot).

  bot models list [-rules R] [-json]
      lists each board's kept versions (every preset board, or -rules
      only): when each was published, from how many corpus games (and how
      many of them were new), its held-out figures when the job measured
      them, the gate's verdict, and which one is live.
  bot models show -rules R [-version V] [-json]
      shows one version's whole metadata (default the live one): the
      network's architecture and size, its training summary and the gate
      report.
  bot models rollback -rules R [-to V]
      makes the version before the live one live again, or with -to any
      kept version; every running bot switches to it.
  bot models export -rules R [-version V] -out FILE
      writes a version's weights file (safetensors; default the live one).
  bot models import -rules R FILE
      checks a weights file (its rules, checksum and format) and publishes
      it as a new version, live at once. It bypasses the gate: no match
      measured it, and its metadata records it as imported.

"bot play -ai neural@V", "bot move -level humanlike@V" and "bot arena
-x neural@V" play version V of the board's network from the registry.

` + redisHelp + `

Run "bot models list -h" (show, rollback, export, import) for an action's flags.`,
		run: func(ctx context.Context, e *env, cmd *command, args []string) error {
			return e.runAction(ctx, cmd, modelsActions(), args)
		},
	}
}

// modelsActions are the actions of "bot models", in the order of its
// usage.
func modelsActions() []*command {
	return []*command{
		{
			name:     "models list",
			synopsis: "[-rules R] [-json]",
			about: `List shows the kept versions of each preset board's network, or of
-rules only, newest first: the version number, when it was published, the
corpus games it was trained on and how many of them were new since the
run before, the held-out figures (the share of people's moves the human
head predicted first, and of positions where the best-move head agreed
with the search) when the run measured them, the gate's verdict
("imported" for a version that bypassed it), and which version is live.
A "-" is a figure the version's metadata does not hold. With -json the
same as JSON.`,
			run: runModelsList,
		},
		{
			name:     "models show",
			synopsis: "-rules R [-version V] [-json]",
			about: `Show prints everything the registry holds about one version of a board's
network (default the live one): when and how it was published, its
checksum and size, the weights file's label, architecture and number of
parameters, and its training summary and evaluation (for the retrain job's
versions, the gate report) as JSON. With -json all of it as one JSON
object.`,
			run: runModelsShow,
		},
		{
			name:     "models rollback",
			synopsis: "-rules R [-to V]",
			about: `Rollback makes an earlier version of a board's network live again: the one
before the live version, or with -to any kept version (a later one too,
to undo a rollback). Every running bot switches to it within moments. It
prints the version that is live now. The retrain job's next promoted
candidate becomes live as usual.`,
			run: runModelsRollback,
		},
		{
			name:     "models export",
			synopsis: "-rules R [-version V] -out FILE",
			about: `Export writes a version of a board's network (default the live one) to
FILE as the registry holds it: a safetensors weights file, as "bot train"
writes them, with its metadata. "-" writes to standard output. The file is
replaced only once it is written whole.`,
			run: runModelsExport,
		},
		{
			name:     "models import",
			synopsis: "-rules R FILE",
			about: `Import publishes a weights file (from "bot train" or "bot models export";
"-" reads standard input) as a new version of the board's network, live at
once in every running bot. The file is checked first: it must be for
-rules, in this build's format, and match its own checksum; a file that is
not is refused with the reason, and nothing is published.

Import bypasses the gate: no match measures the network against the live
one. The version's metadata records it as imported, and "bot models list"
shows it so. "bot models rollback" undoes an import.`,
			run: runModelsImport,
		},
	}
}

// modelRules reads a -rules value that the action requires.
func modelRules(s string) (game.Rules, error) {
	if strings.TrimSpace(s) == "" {
		return game.Rules{}, badInput(`-rules: say which board, like "3x3k3"; the preset boards are %s`, presetNames())
	}
	r, err := game.ParseRules(s)
	if err != nil {
		return game.Rules{}, badInput("-rules: %s", explain(err))
	}
	return r, nil
}

// presetNames returns the preset boards, comma-separated.
func presetNames() string {
	var names []string
	for _, p := range settings.Presets() {
		names = append(names, p.Key)
	}
	return strings.Join(names, ", ")
}

// versionFlag is a -version or -to flag: a registry version number, 0
// when not given.
type versionFlag int64

// register defines the flag on fs.
func (v *versionFlag) register(fs *flag.FlagSet, name, usage string) {
	fs.Func(name, usage, func(s string) error {
		n, err := parseVersion(s)
		*v = versionFlag(n)
		return err
	})
}

// parseVersion reads a registry version number: a whole number from 1.
func parseVersion(s string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < 1 {
		return 0, fmt.Errorf(`the version is a whole number from 1, as "bot models list" shows`)
	}
	return n, nil
}

// keptVersions describes a board's kept versions for a message: "the
// registry keeps 3x3k3 versions 3, 2, 1 (3 is live)", or that it holds
// none.
func keptVersions(ctx context.Context, store *persistence.Store, rules string) string {
	metas, cur, err := store.ModelVersions(ctx, rules)
	if err != nil || len(metas) == 0 {
		return fmt.Sprintf("the registry holds no %s version (the bots play the shipped weights)", rules)
	}
	var vs []string
	for _, m := range metas {
		vs = append(vs, strconv.FormatInt(m.Version, 10))
	}
	return fmt.Sprintf("the registry keeps %s versions %s (%d is live)", rules, strings.Join(vs, ", "), cur)
}

// modelFigures are what "bot models list" shows of a version beyond the
// registry's own record. A nil field is not in the metadata.
type modelFigures struct {
	// Games counts the corpus games trained on; NewGames those new since
	// the run before.
	Games, NewGames *int
	// HumanTop1 is the held-out share of people's moves the human head
	// ranked first; BestMove the held-out share of positions where the
	// best-move head agreed with the search. Both are fractions.
	HumanTop1, BestMove *float64
	// Pass is the gate's verdict.
	Pass *bool
}

// opt is a value of a metadata document that may be missing, null or of
// another type than expected: then it stays unset, and the rest of the
// document still decodes.
type opt[T any] struct{ v *T }

// UnmarshalJSON sets o if b decodes as a T.
func (o *opt[T]) UnmarshalJSON(b []byte) error {
	var v T
	if string(b) != "null" && json.Unmarshal(b, &v) == nil {
		o.v = &v
	}
	return nil
}

// ratioDoc is a train.Ratio as the metadata stores it.
type ratioDoc struct {
	Num opt[int] `json:"num"`
	Den opt[int] `json:"den"`
}

// share returns the ratio as a fraction, nil when missing or empty.
func (r ratioDoc) share() *float64 {
	if r.Num.v == nil || r.Den.v == nil || *r.Den.v <= 0 {
		return nil
	}
	v := float64(*r.Num.v) / float64(*r.Den.v)
	return &v
}

// holdoutDoc is one held-out set of the training report
// (train.HoldoutResult): the trained network's figures.
type holdoutDoc struct {
	Name opt[string] `json:"name"`
	Net  struct {
		HumanTop1   ratioDoc `json:"human_top1"`
		PolicyAgree ratioDoc `json:"policy_agree"`
	} `json:"net"`
}

// readFigures reads a version's figures from the weights file's metadata:
// training, the training summary ({"corpus": ..., "report": ...}, as the
// retrain job and "bot train" write it, with the held-out sets in
// report.holdout), and eval, the gate report of the retrain job (or "bot
// train"'s evaluation, in an imported file). The held-out figures are
// those of the "held-out" set (the games new to the run), else of the
// first set with human moves. It is the one place that knows those
// documents' field names; a field that is missing or does not decode is
// left nil.
func readFigures(training, eval json.RawMessage) modelFigures {
	var t struct {
		Corpus struct {
			Games    opt[int] `json:"games"`     // the retrain job's
			NewGames opt[int] `json:"new_games"` // the retrain job's
			Records  opt[int] `json:"records"`   // "bot train"'s
		} `json:"corpus"`
		Report struct {
			CorpusGames opt[int]          `json:"corpus_games"`
			Holdout     opt[[]holdoutDoc] `json:"holdout"`
		} `json:"report"`
	}
	var g struct {
		Pass opt[bool] `json:"pass"`
	}
	// A field of another type is skipped, and the others still decode.
	_ = json.Unmarshal(training, &t)
	_ = json.Unmarshal(eval, &g)
	f := modelFigures{
		Games:    cmp.Or(t.Corpus.Games.v, t.Corpus.Records.v, t.Report.CorpusGames.v),
		NewGames: t.Corpus.NewGames.v,
		Pass:     g.Pass.v,
	}
	if t.Report.Holdout.v != nil {
		sets := *t.Report.Holdout.v
		slices.SortStableFunc(sets, func(a, b holdoutDoc) int {
			ha := a.Name.v != nil && *a.Name.v == retrain.SetHeldOut
			hb := b.Name.v != nil && *b.Name.v == retrain.SetHeldOut
			switch {
			case ha && !hb:
				return -1
			case hb && !ha:
				return 1
			}
			return 0
		})
		for _, h := range sets {
			if f.HumanTop1 == nil {
				f.HumanTop1 = h.Net.HumanTop1.share()
			}
			if f.BestMove == nil {
				f.BestMove = h.Net.PolicyAgree.share()
			}
		}
	}
	return f
}

// modelVersion is one registry version with what its weights file says.
type modelVersion struct {
	reg  persistence.ModelMeta
	live bool
	net  *nn.Net // nil when the blob does not load (err says why)
	meta nn.Meta
	err  error
	fig  modelFigures
}

// loadModelVersion loads version v of r's network (0: the live one) and
// decodes its weights file. A version that is not there is ErrNotFound; a
// blob that does not load is kept in the result's err, not returned.
func loadModelVersion(ctx context.Context, store *persistence.Store, r game.Rules, v int64) (modelVersion, error) {
	key := r.String()
	cur, err := store.CurrentModelVersion(ctx, key)
	if err != nil && !errors.Is(err, persistence.ErrNotFound) {
		return modelVersion{}, err
	}
	reg, blob, err := store.LoadModel(ctx, key, v)
	switch {
	case errors.Is(err, persistence.ErrCorrupt):
		// The record is there but its blob is not sound: say so beside
		// what the registry's list holds.
		metas, _, lerr := store.ModelVersions(ctx, key)
		if lerr != nil {
			return modelVersion{}, lerr
		}
		for _, m := range metas {
			if m.Version == v || v == 0 && m.Version == cur {
				return modelVersion{reg: m, live: m.Version == cur, err: err, fig: readFigures(nil, m.Eval)}, nil
			}
		}
		return modelVersion{}, err
	case err != nil:
		return modelVersion{}, err
	}
	mv := modelVersion{reg: reg, live: reg.Version == cur}
	mv.net, mv.meta, mv.err = nn.UnmarshalFor(blob, r)
	eval := mv.meta.Eval
	if len(eval) == 0 {
		eval = reg.Eval
	}
	mv.fig = readFigures(mv.meta.Training, eval)
	return mv, nil
}

// gate returns the version's gate verdict for a listing: "passed",
// "failed", "imported" (it bypassed the gate), or "-".
func (mv modelVersion) gate() string {
	switch {
	case mv.reg.Source == persistence.ModelSourceImport:
		return "imported"
	case mv.fig.Pass == nil:
		return "-"
	case *mv.fig.Pass:
		return "passed"
	}
	return "failed"
}

// source says in words where the version came from.
func (mv modelVersion) source() string {
	switch {
	case mv.reg.Note != "":
		return mv.reg.Note
	case mv.reg.Source == persistence.ModelSourceImport:
		return "imported"
	case mv.reg.Source != "":
		return mv.reg.Source
	}
	return "the retrain job"
}

// modelVersionJSON is one version in "bot models list -json" and the
// heart of "bot models show -json".
type modelVersionJSON struct {
	Rules     string    `json:"rules"`
	Version   int64     `json:"version"`
	Live      bool      `json:"live"`
	Published time.Time `json:"published"`
	// Source is "retrain" or "import".
	Source   string   `json:"source"`
	Label    string   `json:"label,omitempty"`
	Games    *int     `json:"games,omitempty"`
	NewGames *int     `json:"new_games,omitempty"`
	HeldOut  *heldOut `json:"heldout,omitempty"`
	// Gate is "passed", "failed", "imported" or "" (not recorded).
	Gate   string `json:"gate,omitempty"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	// Error says why the weights do not load.
	Error string `json:"error,omitempty"`
}

// heldOut is the held-out figures in JSON output.
type heldOut struct {
	HumanTop1 *float64 `json:"human_top1,omitempty"`
	BestMove  *float64 `json:"best_move,omitempty"`
}

// json returns the version as "bot models list -json" prints it.
func (mv modelVersion) json() modelVersionJSON {
	j := modelVersionJSON{
		Rules: mv.reg.Rules, Version: mv.reg.Version, Live: mv.live, Published: mv.reg.Created,
		Source: "retrain", Label: mv.meta.Version, Games: mv.fig.Games, NewGames: mv.fig.NewGames,
		SHA256: mv.reg.SHA256, Size: mv.reg.Size,
	}
	if mv.reg.Source != "" {
		j.Source = mv.reg.Source
	}
	if mv.fig.HumanTop1 != nil || mv.fig.BestMove != nil {
		j.HeldOut = &heldOut{HumanTop1: mv.fig.HumanTop1, BestMove: mv.fig.BestMove}
	}
	if g := mv.gate(); g != "-" {
		j.Gate = g
	}
	if mv.err != nil {
		j.Error = explainModel(mv.err)
	}
	return j
}

// explainModel returns a registry or weights error's message without the
// package prefixes.
func explainModel(err error) string {
	return strings.TrimPrefix(explainStore(err), "nn: ")
}

// orDash formats a figure, or "-" when it is nil.
func orDash[T any](v *T, format func(T) string) string {
	if v == nil {
		return "-"
	}
	return format(*v)
}

// figureCount and figurePercent format figures for a table.
func figureCount(n int) string       { return strconv.Itoa(n) }
func figurePercent(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }

// runModelsList is "bot models list".
func runModelsList(ctx context.Context, e *env, cmd *command, args []string) error {
	fs := newFlagSet(cmd)
	rulesFlag := fs.String("rules", "", rulesHelp+" (default every preset board)")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	if err := e.parseFlags(cmd, fs, args); err != nil {
		return err
	}
	var boards []game.Rules
	if strings.TrimSpace(*rulesFlag) != "" {
		r, err := modelRules(*rulesFlag)
		if err != nil {
			return err
		}
		boards = []game.Rules{r}
	} else {
		for _, p := range settings.Presets() {
			boards = append(boards, p.Rules)
		}
	}
	store, closeStore, err := e.openStore(ctx, e.stderr)
	if err != nil {
		return err
	}
	defer closeStore()

	out, versions, err := listModels(ctx, store, boards)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Boards []modelBoardJSON `json:"boards"`
		}{out})
	}
	if len(versions) > 0 {
		if err := printModelTable(e.stdout, versions); err != nil {
			return err
		}
	}
	var none []string
	for _, b := range out {
		if len(b.Versions) == 0 {
			none = append(none, b.Rules)
		}
	}
	if len(none) > 0 {
		fmt.Fprintf(e.stdout, "no version in the registry: %s (the bots play the shipped weights)\n", strings.Join(none, ", "))
	}
	return nil
}

// modelBoardJSON is a board of "bot models list -json".
type modelBoardJSON struct {
	Rules    string             `json:"rules"`
	Live     int64              `json:"live"`
	Versions []modelVersionJSON `json:"versions"`
}

// listModels loads the versions the registry keeps of each of boards: a
// board each, in their order, and all the versions, board by board.
// Versions dropped by a publish since the listing are left out.
func listModels(ctx context.Context, store *persistence.Store, boards []game.Rules) ([]modelBoardJSON, []modelVersion, error) {
	var out []modelBoardJSON
	var versions []modelVersion
	for _, r := range boards {
		key := r.String()
		metas, cur, err := store.ModelVersions(ctx, key)
		if err != nil {
			return nil, nil, err
		}
		b := modelBoardJSON{Rules: key, Live: cur, Versions: []modelVersionJSON{}}
		for _, m := range metas {
			mv, err := loadModelVersion(ctx, store, r, m.Version)
			if errors.Is(err, persistence.ErrNotFound) {
				continue // dropped by a publish since the listing
			}
			if err != nil {
				return nil, nil, err
			}
			versions = append(versions, mv)
			b.Versions = append(b.Versions, mv.json())
		}
		out = append(out, b)
	}
	return out, versions, nil
}

// printModelTable prints a table of versions, a row each.
func printModelTable(w io.Writer, versions []modelVersion) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "rules\tversion\tlive\tpublished\tgames\tnew\theld-out human top-1\theld-out best move\tgate")
	for _, mv := range versions {
		live := ""
		if mv.live {
			live = "live"
		}
		gate := mv.gate()
		if mv.err != nil {
			gate += " (does not load: " + explainModel(mv.err) + ")"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", mv.reg.Rules, mv.reg.Version, live,
			mv.reg.Created.UTC().Format(time.DateTime), orDash(mv.fig.Games, figureCount), orDash(mv.fig.NewGames, figureCount),
			orDash(mv.fig.HumanTop1, figurePercent), orDash(mv.fig.BestMove, figurePercent), gate)
	}
	return tw.Flush()
}

// runModelsShow is "bot models show".
func runModelsShow(ctx context.Context, e *env, cmd *command, args []string) error {
	fs := newFlagSet(cmd)
	rulesFlag := fs.String("rules", "", rulesHelp+"; required")
	var version versionFlag
	version.register(fs, "version", "the `version` to show (default the live one)")
	asJSON := fs.Bool("json", false, "print JSON instead of text")
	if err := e.parseFlags(cmd, fs, args); err != nil {
		return err
	}
	r, err := modelRules(*rulesFlag)
	if err != nil {
		return err
	}
	store, closeStore, err := e.openStore(ctx, e.stderr)
	if err != nil {
		return err
	}
	defer closeStore()
	mv, err := loadModelVersion(ctx, store, r, int64(version))
	if errors.Is(err, persistence.ErrNotFound) {
		return notKept(ctx, store, "-version", r, int64(version))
	}
	if err != nil {
		return err
	}
	j := mv.showJSON()
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(j)
	}
	if err := printModelVersion(e.stdout, mv, j); err != nil {
		return err
	}
	printModelDocs(e.stdout, j)
	return nil
}

// modelShowJSON is "bot models show -json": the version's fields and
// what its weights' metadata says.
type modelShowJSON struct {
	modelVersionJSON
	Note     string          `json:"note,omitempty"`
	Created  *time.Time      `json:"created,omitempty"`
	Arch     *nn.Arch        `json:"arch,omitempty"`
	Params   int             `json:"params,omitempty"`
	Training json.RawMessage `json:"training,omitempty"`
	Eval     json.RawMessage `json:"eval,omitempty"`
}

// showJSON returns what "bot models show" shows of mv: the evaluation of
// the weights' metadata, or else the registry's.
func (mv modelVersion) showJSON() modelShowJSON {
	j := modelShowJSON{modelVersionJSON: mv.json(), Note: mv.reg.Note, Training: mv.meta.Training, Eval: mv.meta.Eval}
	if mv.net != nil {
		a := mv.net.Arch()
		j.Arch, j.Params = &a, mv.net.Params()
		if !mv.meta.Created.IsZero() {
			j.Created = &mv.meta.Created
		}
	}
	if len(j.Eval) == 0 {
		j.Eval = mv.reg.Eval
	}
	return j
}

// printModelVersion prints the heading and the table of "bot models
// show" for mv, whose JSON is j.
func printModelVersion(w io.Writer, mv modelVersion, j modelShowJSON) error {
	live := ""
	if mv.live {
		live = ", live"
	}
	fmt.Fprintf(w, "%s version %d%s\n", mv.reg.Rules, mv.reg.Version, live)
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(tw, "  %s\t%s\n", k, v) }
	row("published", mv.reg.Created.UTC().Format(time.DateTime)+" UTC")
	row("source", mv.source())
	if mv.reg.Source == persistence.ModelSourceImport {
		row("gate", "bypassed (imported)")
	} else {
		row("gate", mv.gate())
	}
	row("sha256", mv.reg.SHA256)
	row("size", fmt.Sprintf("%d bytes", mv.reg.Size))
	if mv.err != nil {
		row("weights", "do not load: "+explainModel(mv.err))
	} else {
		row("label", cmp.Or(mv.meta.Version, "-"))
		if j.Created != nil {
			row("created", j.Created.UTC().Format(time.DateTime)+" UTC")
		}
		hidden := make([]string, len(j.Arch.Hidden))
		for i, h := range j.Arch.Hidden {
			hidden[i] = strconv.Itoa(h)
		}
		row("architecture", fmt.Sprintf("hidden layers %s, %d parameters", strings.Join(hidden, ", "), j.Params))
	}
	row("games", fmt.Sprintf("%s in the corpus, %s new", orDash(mv.fig.Games, figureCount), orDash(mv.fig.NewGames, figureCount)))
	row("held-out", fmt.Sprintf("human top-1 %s, best move %s", orDash(mv.fig.HumanTop1, figurePercent), orDash(mv.fig.BestMove, figurePercent)))
	return tw.Flush()
}

// printModelDocs prints the training and evaluation documents of j,
// indented (as they are if they are not valid JSON).
func printModelDocs(w io.Writer, j modelShowJSON) {
	for _, doc := range []struct {
		name string
		raw  json.RawMessage
	}{{"training", j.Training}, {"evaluation", j.Eval}} {
		if len(doc.raw) == 0 {
			continue
		}
		var buf bytes.Buffer
		if json.Indent(&buf, doc.raw, "  ", "  ") != nil {
			buf.Reset()
			buf.Write(doc.raw)
		}
		fmt.Fprintf(w, "%s:\n  %s\n", doc.name, buf.String())
	}
}

// notKept is the input error for a version (named by flag) that the
// registry does not hold, listing the ones it does.
func notKept(ctx context.Context, store *persistence.Store, flag string, r game.Rules, v int64) error {
	if v == 0 {
		return badInput("%s has no live version: %s", r, keptVersions(ctx, store, r.String()))
	}
	return badInput("%s %d: no such %s version; %s", flag, v, r, keptVersions(ctx, store, r.String()))
}

// runModelsRollback is "bot models rollback".
func runModelsRollback(ctx context.Context, e *env, cmd *command, args []string) error {
	fs := newFlagSet(cmd)
	rulesFlag := fs.String("rules", "", rulesHelp+"; required")
	var to versionFlag
	to.register(fs, "to", "the kept `version` to make live (default the one before the live one)")
	if err := e.parseFlags(cmd, fs, args); err != nil {
		return err
	}
	r, err := modelRules(*rulesFlag)
	if err != nil {
		return err
	}
	key := r.String()
	store, closeStore, err := e.openStore(ctx, e.stderr)
	if err != nil {
		return err
	}
	defer closeStore()
	was, err := store.CurrentModelVersion(ctx, key)
	if errors.Is(err, persistence.ErrNotFound) {
		return badInput("nothing to roll back: %s", keptVersions(ctx, store, key))
	}
	if err != nil {
		return err
	}
	var m persistence.ModelMeta
	if to != 0 {
		if int64(to) == was {
			fmt.Fprintf(e.stdout, "%s: version %d is live already; nothing changed\n", key, was)
			return nil
		}
		m, err = store.RollbackModelTo(ctx, key, int64(to))
		if errors.Is(err, persistence.ErrNotFound) {
			return notKept(ctx, store, "-to", r, int64(to))
		}
	} else {
		m, err = store.RollbackModel(ctx, key)
		if errors.Is(err, persistence.ErrNotFound) {
			return badInput("no kept %s version is older than the live version %d: %s; -to V makes any kept one live", key, was, keptVersions(ctx, store, key))
		}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s: version %d (published %s) is live now, in place of version %d; running bots switch to it\n",
		key, m.Version, m.Created.UTC().Format(time.DateTime), was)
	return nil
}

// runModelsExport is "bot models export".
func runModelsExport(ctx context.Context, e *env, cmd *command, args []string) error {
	fs := newFlagSet(cmd)
	rulesFlag := fs.String("rules", "", rulesHelp+"; required")
	var version versionFlag
	version.register(fs, "version", "the `version` to export (default the live one)")
	out := fs.String("out", "", `the weights `+"`file`"+` to write, "-" for standard output; required`)
	if err := e.parseFlags(cmd, fs, args); err != nil {
		return err
	}
	r, err := modelRules(*rulesFlag)
	if err != nil {
		return err
	}
	if *out == "" {
		return badInput(`-out: name the file to write ("-" for standard output)`)
	}
	store, closeStore, err := e.openStore(ctx, e.stderr)
	if err != nil {
		return err
	}
	defer closeStore()
	m, blob, err := store.LoadModel(ctx, r.String(), int64(version))
	if errors.Is(err, persistence.ErrNotFound) {
		return notKept(ctx, store, "-version", r, int64(version))
	}
	if err != nil {
		return err
	}
	dest := "standard output"
	if *out == "-" {
		if _, err := e.stdout.Write(blob); err != nil {
			return err
		}
	} else {
		if err := writeFileWhole(*out, blob); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		dest = *out
	}
	fmt.Fprintf(e.stderr, "exported %s version %d (%d bytes, sha256 %s) to %s\n", m.Rules, m.Version, m.Size, m.SHA256, dest)
	return nil
}

// writeFileWhole writes data to path through a temporary file beside it,
// renamed over it at the end, so that a failed write leaves the previous
// file as it was.
func writeFileWhole(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // fails harmlessly once renamed
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	return err
}

// runModelsImport is "bot models import".
func runModelsImport(ctx context.Context, e *env, cmd *command, args []string) error {
	fs := newFlagSet(cmd)
	rulesFlag := fs.String("rules", "", rulesHelp+", which the file must be for; required")
	if err := e.parseFlagsArgs(cmd, fs, args); err != nil {
		return err
	}
	r, err := modelRules(*rulesFlag)
	if err != nil {
		return err
	}
	switch fs.NArg() {
	case 0:
		return badInput(`no file given; name the weights file to import ("-" for standard input)`)
	case 1:
	default:
		return badInput("%d files given; import one weights file at a time", fs.NArg())
	}
	name := fs.Arg(0)
	var blob []byte
	if name == "-" {
		blob, err = io.ReadAll(e.stdin)
		name = "standard input"
	} else {
		blob, err = os.ReadFile(name)
	}
	if err != nil {
		return badInput("%s", explainPath(err))
	}
	n, meta, err := nn.UnmarshalFor(blob, r)
	if err != nil {
		return badInput("%s: %s; nothing was published", name, explainModel(err))
	}
	store, closeStore, err := e.openStore(ctx, e.stderr)
	if err != nil {
		return err
	}
	defer closeStore()
	note := "imported from " + filepath.Base(fs.Arg(0))
	if fs.Arg(0) == "-" {
		note = "imported from standard input"
	}
	if meta.Version != "" {
		note += ", labelled " + meta.Version
	}
	m, err := store.PublishModel(ctx, r.String(), persistence.ModelMeta{Source: persistence.ModelSourceImport, Note: note}, blob)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s: published %s as version %d (%d parameters, sha256 %s), live now; it bypassed the gate\n",
		m.Rules, name, m.Version, n.Params(), m.SHA256)
	return nil
}

// levelSpec is a level as a flag gives it, for loadLevelVersions.
type levelSpec struct {
	flag, level string
}

// loadLevelVersions makes the levels that name a registry version playable:
// "neural@V" and "humanlike@V" play version V of r's network from the
// model registry (the Redis "bot models" uses). It loads each such
// version and registers it in e.levels under that name, so that the
// commands build and check it like any level; other levels are left to
// them. A version the registry does not hold, a level that takes no
// version, or a version that is not a number is bad input naming the
// flag; a store that cannot be opened or a version that does not load is
// a failure.
func (e *env) loadLevelVersions(ctx context.Context, r game.Rules, specs ...levelSpec) error {
	type version struct {
		flag, name string // the flag and the level, "neural@3"
		v          int64
	}
	var want []version
	for _, s := range specs {
		spec := strings.ToLower(strings.TrimSpace(s.level))
		name, vs, ok := strings.Cut(spec, "@")
		if !ok {
			continue
		}
		if name != "neural" && name != "humanlike" {
			return badInput("%s %q: only the network levels, neural and humanlike, take @VERSION", s.flag, s.level)
		}
		v, err := parseVersion(vs)
		if err != nil {
			return badInput("%s %q: %v", s.flag, s.level, err)
		}
		want = append(want, version{s.flag, spec, v})
	}
	if len(want) == 0 {
		return nil
	}
	store, closeStore, err := e.openStore(ctx, e.stderr)
	if err != nil {
		return fmt.Errorf("%s %q: %w", want[0].flag, want[0].name, err)
	}
	defer closeStore()
	key := r.String()
	nets := map[int64]*nn.Set{}
	for _, w := range want {
		set := nets[w.v]
		if set == nil {
			_, blob, err := store.LoadModel(ctx, key, w.v)
			if errors.Is(err, persistence.ErrNotFound) {
				return badInput("%s %q: no such %s version; %s", w.flag, w.name, key, keptVersions(ctx, store, key))
			}
			if err != nil {
				return fmt.Errorf("%s %q: %w", w.flag, w.name, err)
			}
			n, meta, err := nn.UnmarshalFor(blob, r)
			if err != nil {
				return fmt.Errorf("%s %q: %s version %d does not load: %w", w.flag, w.name, key, w.v, err)
			}
			set = nn.NewSet()
			set.Put(n, meta)
			nets[w.v] = set
		}
		l := ai.NeuralLevel(set)
		if strings.HasPrefix(w.name, "humanlike@") {
			l = ai.HumanlikeLevel(set)
		}
		l.Name, l.Summary = w.name, fmt.Sprintf("%s, playing %s version %d from the model registry", l.Name, key, w.v)
		e.levels.Register(l)
	}
	return nil
}
