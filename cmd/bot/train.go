package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/ai/train"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/retrain"
)

// corpusRedis is the -corpus value that reads the live corpus from Redis.
const corpusRedis = "redis"

// trainCommand is "bot train": train a network for one rules key.
func trainCommand() *command {
	return &command{
		name:     "train",
		synopsis: "-rules R [-corpus FILE|redis] [-selfplay N] [-epochs E] [-eval N] [-seed S] [-workers W] [-init FILE] [-version V] [-out FILE] [-json]",
		summary:  "train and evaluate a network for one rules key and write its weights file",
		about: `Train builds a network for -rules: its best-move and value heads learn
from search (the exact solver where it finishes in time, MCTS visit counts
elsewhere) on the positions of the corpus and of -selfplay self-play games;
its human-move head learns from the moves people played in the corpus,
recent games weighing more. -corpus is a JSON Lines file as "bot corpus
export" writes it ("-" for standard input; records of other rules are
skipped, bad lines listed and skipped), or "redis" for the live corpus in
the bot's Redis (REDIS_URL, as serve reads it); without -corpus it trains
on self-play alone. The network then plays arenas against the baselines.

Progress (stage, epoch, loss, accuracy) goes to standard error. The
weights go to -out as a safetensors file with the rules, architecture,
version, training summary and evaluation in its metadata, written whole
or not at all; a summary, or with -json the full report, goes to standard
output. The same corpus, flags and -seed give the same weights, whatever
-workers is. Ctrl-C stops training and writes nothing.`,
		run: runTrain,
	}
}

// trainFlags are train's parsed flags.
type trainFlags struct {
	rules     game.Rules
	corpus    string
	selfPlay  int // -1: not given
	epochs    int
	evalGames int // -1: not given
	seed      uint64
	workers   int
	init      string
	version   string
	out       string
	json      bool
}

// parseTrainFlags reads train's flags.
func (e *env) parseTrainFlags(cmd *command, args []string) (trainFlags, error) {
	fs := newFlagSet(cmd)
	rules := fs.String("rules", "", rulesHelp+"; required")
	corpus := fs.String("corpus", "", "the corpus: a JSON Lines `file` (\"-\" for standard input) or \"redis\" for the live one (default none: self-play only)")
	f := trainFlags{selfPlay: -1, evalGames: -1, workers: e.workers}
	fs.Func("selfplay", "`number` of self-play games whose positions are added, 0 for none (default the rules' own, see ai/train)", func(s string) error {
		v, err := parseWhole(s, "number of self-play games")
		f.selfPlay = v
		return err
	})
	fs.Func("epochs", "`number` of passes over the training positions (default the rules' own, see ai/train)", func(s string) error {
		v, err := parseCount(s, "number of epochs")
		f.epochs = v
		return err
	})
	fs.Func("eval", "`number` of arena games against each baseline on each side after training, 0 for none (default ai/train's)", func(s string) error {
		v, err := parseWhole(s, "number of evaluation games")
		f.evalGames = v
		return err
	})
	var seed seedFlag
	seed.register(fs, "`seed` of self-play, initialisation and shuffling; the same seed gives the same weights (default a random seed, printed)")
	fs.Func("workers", fmt.Sprintf("`number` of goroutines training and playing (default %d, one per core); the result does not depend on it", e.workers), func(s string) error {
		v, err := parseCount(s, "number of workers")
		f.workers = v
		return err
	})
	fs.StringVar(&f.init, "init", "", "start from this weights `file` (warm start; its architecture is kept) instead of fresh weights")
	fs.StringVar(&f.version, "version", "", "the `version` recorded in the file (default \"shipped-\" and today's date)")
	fs.StringVar(&f.out, "out", "", "the weights `file` to write (default <rules>.safetensors in the current directory)")
	fs.BoolVar(&f.json, "json", false, "print the training report as JSON instead of a summary")
	if err := e.parseFlags(cmd, fs, args); err != nil {
		return f, err
	}
	if strings.TrimSpace(*rules) == "" {
		return f, badInput("-rules: no rules given; say which board to train, like -rules 3x3k3")
	}
	r, err := game.ParseRules(*rules)
	if err != nil {
		return f, badInput("-rules: %s", explain(err))
	}
	f.rules = r
	f.corpus = strings.TrimSpace(*corpus)
	f.seed = seed.resolve(e)
	if f.version == "" {
		f.version = "shipped-" + e.now().UTC().Format("2006-01-02")
	}
	if f.out == "" {
		f.out = r.String() + ".safetensors"
	}
	return f, nil
}

// parseWhole reads a whole number of at least 0; what names it in the
// message.
func parseWhole(s, what string) (int, error) {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || v < 0 {
		return 0, fmt.Errorf("the %s is a whole number, 0 or more", what)
	}
	return v, nil
}

// runTrain trains a network and writes its weights file.
func runTrain(ctx context.Context, e *env, cmd *command, args []string) error {
	f, err := e.parseTrainFlags(cmd, args)
	if err != nil {
		return err
	}
	var init *nn.Net
	if f.init != "" {
		b, err := os.ReadFile(f.init)
		if err != nil {
			return badInput("-init: %s", explainPath(err))
		}
		if init, _, err = nn.UnmarshalFor(b, f.rules); err != nil {
			return badInput("-init %s: %v", f.init, err)
		}
	}
	games, src, err := e.trainCorpus(ctx, f)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "%s: training with seed %d on %d %s\n", f.rules, f.seed, len(games), plural(len(games), "corpus game", "corpus games"))
	cfg := train.Config{
		Rules:   f.rules,
		Epochs:  f.epochs,
		Seed:    f.seed,
		Workers: f.workers,
		Init:    init,
	}
	switch {
	case f.selfPlay == 0:
		cfg.SelfPlay = -1 // none
	case f.selfPlay > 0:
		cfg.SelfPlay = f.selfPlay
	}
	switch {
	case f.evalGames == 0:
		cfg.EvalGames = -1 // no arena
	case f.evalGames > 0:
		cfg.EvalGames = f.evalGames
	}
	bar := newProgressBar(e.stderr, e.now)
	res, err := train.Run(ctx, cfg, games, func(p train.Progress) {
		bar.update(p.Stage, p.Done, p.Total, p.Epoch)
	})
	bar.finish()
	if err != nil {
		return err
	}
	training, err := json.Marshal(trainingMeta{Corpus: src, Report: res.Report.Summary()})
	if err != nil {
		return err
	}
	eval, err := json.Marshal(res.Report.Eval)
	if err != nil {
		return err
	}
	blob, err := nn.Marshal(res.Net, nn.Meta{Version: f.version, Created: e.now().UTC(), Training: training, Eval: eval})
	if err != nil {
		return err
	}
	if err := writeFileAtomic(f.out, blob); err != nil {
		return err
	}
	sum := sha256.Sum256(blob)
	if f.json {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(trainOutput{Out: f.out, Version: f.version, Bytes: len(blob),
			SHA256: hex.EncodeToString(sum[:]), Corpus: src, Report: res.Report})
	}
	printTrainSummary(e.stdout, res.Report, src)
	fmt.Fprintf(e.stdout, "wrote %s: %d bytes, version %s, sha256 %s\n", f.out, len(blob), f.version, hex.EncodeToString(sum[:]))
	return nil
}

// trainOutput is what "bot train -json" prints.
type trainOutput struct {
	Out     string       `json:"out"`
	Version string       `json:"version"`
	Bytes   int          `json:"bytes"`
	SHA256  string       `json:"sha256"`
	Corpus  corpusSource `json:"corpus"`
	Report  train.Report `json:"report"`
}

// corpusSource says where the training games came from and what was
// skipped.
type corpusSource struct {
	// Source is the -corpus value: a file name, "-", "redis", or "" for none.
	Source string `json:"source"`
	// Records is the number of records read for the rules.
	Records int `json:"records"`
	// OtherRules counts the records of other rules, skipped.
	OtherRules int `json:"other_rules,omitempty"`
	// Bad counts the lines or entries that do not decode, skipped.
	Bad int `json:"bad,omitempty"`
}

// trainCorpus reads the training games -corpus names, reporting the
// records it skips on stderr.
func (e *env) trainCorpus(ctx context.Context, f trainFlags) ([]train.Game, corpusSource, error) {
	src := corpusSource{Source: f.corpus}
	var records []persistence.CorpusRecord
	switch f.corpus {
	case "":
		return nil, src, nil
	case corpusRedis:
		store, closeStore, err := e.openStore(ctx, e.stderr)
		if err != nil {
			return nil, src, err
		}
		defer closeStore()
		_, err = store.ScanCorpus(ctx, f.rules.String(), "0", func(c persistence.CorpusEntry) error {
			records = append(records, c.Record)
			return nil
		}, func(c persistence.CorruptEntry) {
			src.Bad++
			fmt.Fprintf(e.stderr, "bot train: skipped corpus entry %s: %s\n", c.ID, explainStore(c.Err))
		})
		if err != nil {
			return nil, src, err
		}
	default:
		var r io.Reader = e.stdin
		if f.corpus != "-" {
			file, err := os.Open(f.corpus)
			if err != nil {
				return nil, src, badInput("-corpus: %s", explainPath(err))
			}
			defer file.Close()
			r = file
		}
		err := readCorpusLines(r, func(line int, rec persistence.CorpusRecord, err error) {
			switch {
			case err != nil:
				src.Bad++
				fmt.Fprintf(e.stderr, "%s:%d: %s\n", f.corpus, line, explainStore(err))
			case rec.Rules != f.rules.String():
				src.OtherRules++
			default:
				records = append(records, rec)
			}
		})
		if err != nil {
			return nil, src, fmt.Errorf("-corpus %s: %w", f.corpus, err)
		}
	}
	games := make([]train.Game, 0, len(records))
	for _, rec := range records {
		_, g, err := retrain.GameOf(rec)
		if err != nil { // DecodeCorpusRecord validated it; not expected
			src.Bad++
			fmt.Fprintf(e.stderr, "bot train: skipped game %q: %s\n", rec.Game, explainStore(err))
			continue
		}
		games = append(games, g)
	}
	src.Records = len(games)
	if src.Bad > 0 || src.OtherRules > 0 {
		fmt.Fprintf(e.stderr, "bot train: read %d %s records; skipped %d bad and %d of other rules\n",
			src.Records, f.rules, src.Bad, src.OtherRules)
	}
	return games, src, nil
}

// readCorpusLines decodes JSON Lines corpus records from r, calling fn with
// each non-blank line's number and record, or the reason it is bad. The
// error is for failures reading r.
func readCorpusLines(r io.Reader, fn func(line int, rec persistence.CorpusRecord, err error)) error {
	sc := bufio.NewScanner(r)
	const maxLine = 1 << 20
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		rec, err := persistence.DecodeCorpusRecord(line)
		fn(n, rec, err)
	}
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		return fmt.Errorf("line %d is longer than %d bytes; a corpus record is one line of JSON", n+1, maxLine)
	}
	return sc.Err()
}

// writeFileAtomic writes data to a temporary file beside path and renames
// it over path, so path holds the old or the new contents, never a part.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// trainingMeta is the training summary stored in a weights file's
// metadata: where the corpus came from and the report's summary.
type trainingMeta struct {
	Corpus corpusSource `json:"corpus"`
	Report train.Report `json:"report"`
}

// printTraining writes the line on the training's last epoch (its loss
// and the accuracies of the heads that trained), after indent; nothing
// when no epoch ran.
func printTraining(w io.Writer, indent string, epochs []nn.Epoch) {
	n := len(epochs)
	if n == 0 {
		return
	}
	ep := epochs[n-1]
	fmt.Fprintf(w, "%straining: %d epochs, final loss %.4f", indent, n, ep.Loss)
	if ep.PolicyAcc >= 0 {
		fmt.Fprintf(w, ", policy acc %.1f%%", 100*ep.PolicyAcc)
	}
	if ep.HumanAcc >= 0 {
		fmt.Fprintf(w, ", human acc %.1f%%", 100*ep.HumanAcc)
	}
	if ep.PolicyAcc >= 0 || ep.HumanAcc >= 0 {
		fmt.Fprint(w, " (on the training set)")
	}
	if ep.ValidPolicyAcc >= 0 || ep.ValidHumanAcc >= 0 {
		fmt.Fprint(w, "; held out:")
		if ep.ValidPolicyAcc >= 0 {
			fmt.Fprintf(w, " policy acc %.1f%%", 100*ep.ValidPolicyAcc)
		}
		if ep.ValidHumanAcc >= 0 {
			fmt.Fprintf(w, " human acc %.1f%%", 100*ep.ValidHumanAcc)
		}
	}
	fmt.Fprintln(w)
}

// printTrainSummary writes a report in a few lines.
func printTrainSummary(w io.Writer, r train.Report, src corpusSource) {
	fmt.Fprintf(w, "%s: network %v, %d parameters, seed %d\n", r.Rules, r.Arch.Hidden, r.Params, r.Seed)
	corpus := "no corpus"
	if src.Source != "" {
		corpus = fmt.Sprintf("%d corpus %s (%d human moves) from %s", r.CorpusGames, plural(r.CorpusGames, "game", "games"), r.HumanMoves, src.Source)
	}
	fmt.Fprintf(w, "data: %s, %d self-play %s; %d positions", corpus, r.SelfPlayGames, plural(r.SelfPlayGames, "game", "games"), r.Positions)
	if r.Enumerated {
		fmt.Fprint(w, " (every reachable one)")
	}
	fmt.Fprintf(w, ", %d solved exactly, %d by MCTS; %d samples\n", r.SolvedPositions, r.MCTSPositions, r.Samples)
	printTraining(w, "", r.Epochs)
	if o := r.Eval.OptimalMoves; o != nil {
		fmt.Fprintf(w, "optimal moves: %s\n", o)
	}
	if len(r.Eval.Arena) > 0 {
		tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "opponent\tas X (W/D/L)\tas O (W/D/L)\tscore")
		for _, m := range r.Eval.Arena {
			fmt.Fprintf(tw, "%s\t%d/%d/%d\t%d/%d/%d\t%.1f%%\n", m.Opponent, m.AsX.Wins, m.AsX.Draws, m.AsX.Losses,
				m.AsO.Wins, m.AsO.Draws, m.AsO.Losses, 100*m.Score)
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "took %s\n", shortDuration(r.Duration))
}
