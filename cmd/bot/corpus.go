package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// Import formats of "bot corpus import".
const (
	formatJSONL    = "jsonl"
	formatGamesTxt = "games.txt"
)

// corpusCommand is "bot corpus": the training corpus in Redis.
func corpusCommand() *command {
	return &command{
		name:     "corpus",
		synopsis: "export [-rules R] [-out FILE] | import [-format jsonl|games.txt] FILE... | stats [-json]",
		summary:  "export, import or count the training corpus (the finished games in Redis)",
		about: `Corpus manages the training corpus: every finished game, per rules, with
its players as pseudonyms.

  bot corpus export [-rules R] [-out FILE]
      writes the corpus as JSON Lines, one record per line (all rules, or
      -rules only), to standard output or FILE (written whole or not at
      all). Entries that no longer decode are skipped and listed on
      standard error.
  bot corpus import [-format jsonl|games.txt] FILE...
      adds the records of each FILE ("-" is standard input): JSON Lines as
      export writes them, or the original C program's games.txt (3x3k3
      boards, one per line). A game already in the corpus is counted as a
      duplicate and not added again, so an import may be repeated; a
      games.txt game is known by the file's content, not by its name. Bad
      lines are listed as FILE:LINE: reason and skipped; every valid record
      is still imported, and the exit status is then 1.
  bot corpus stats [-json]
      lists each rules' corpus: records, and when the first and the last
      were added.

` + redisHelp + `

Run "bot corpus export -h" (import, stats) for an action's flags.`,
		run: runCorpus,
	}
}

// corpusActions are the actions of "bot corpus", in the order of its
// usage.
func corpusActions() []*command {
	return []*command{
		{
			name:     "corpus export",
			synopsis: "[-rules R] [-out FILE]",
			about: `Export writes the corpus as JSON Lines, one record per line in the order
the games were added: every rules' corpus, or only -rules. The output goes
to standard output, or to -out FILE, which is replaced only once the whole
export is written. Entries that no longer decode are skipped and listed on
standard error; a summary goes there too.`,
			run: runCorpusExport,
		},
		{
			name:     "corpus import",
			synopsis: "[-format jsonl|games.txt] FILE...",
			about: `Import adds the records of each FILE ("-" for standard input) to the
corpus: JSON Lines as "bot corpus export" writes them (-format jsonl, the
default), or the original C program's games.txt (-format games.txt: 3x3k3
boards, one per line; a game starts with the empty board or with a board
holding one X, and each board after it adds one mark). A game already in
the corpus is a duplicate and is not added again, so an import may be
repeated. Each file's counts go to standard output; bad lines go to
standard error as FILE:LINE: reason and are skipped. Every valid record is
imported whatever the bad lines; if there were any, the exit status is 1.

A games.txt game is known by the file's content from its first line to
the game's last board, never by the file's name (the -source flag that
named it is gone). So the same file again, a copy under another name, or
the file on standard input or with other line endings adds nothing, and
a file that has grown at its end adds only its new games. The same game
in another file is another game, unless the two files are the same up to
it; editing a file before a game makes it a new game. A bad line refuses
only its own game: the rest of that game is skipped, up to the next
empty board or board holding one X, and its message says which lines
were skipped with it.`,
			run: runCorpusImport,
		},
		{
			name:     "corpus stats",
			synopsis: "[-json]",
			about: `Stats lists each rules' corpus: how many records it holds (including any
that no longer decode) and when the first and the last were added, as a
table or, with -json, as JSON.`,
			run: runCorpusStats,
		},
	}
}

// runCorpus dispatches to the action named by args[0].
func runCorpus(ctx context.Context, e *env, cmd *command, args []string) error {
	return e.runAction(ctx, cmd, corpusActions(), args)
}

// parseFlagsArgs is parseFlags for an action that takes arguments after
// its flags; a flag after the first argument is reported, since the flag
// package would take it for an argument.
func (e *env) parseFlagsArgs(cmd *command, fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if err == nil {
		for _, a := range fs.Args() {
			if len(a) > 1 && strings.HasPrefix(a, "-") {
				return badInput("flag %s after the files; give the flags first", a)
			}
		}
		return nil
	}
	// parseFlags reports the error as it does for every command.
	return e.parseFlags(cmd, fs, args)
}

// parseRulesKey reads a -rules value into its canonical notation.
func parseRulesKey(s string) (string, error) {
	r, err := game.ParseRules(s)
	if err != nil {
		return "", badInput("-rules: %s", explain(err))
	}
	return r.String(), nil
}

// runCorpusExport is "bot corpus export".
func runCorpusExport(ctx context.Context, e *env, cmd *command, args []string) error {
	fs := newFlagSet(cmd)
	rules := fs.String("rules", "", rulesHelp+" (default every rules' corpus)")
	out := fs.String("out", "", "write to this `file` instead of standard output")
	if err := e.parseFlags(cmd, fs, args); err != nil {
		return err
	}
	var keys []string
	if strings.TrimSpace(*rules) != "" {
		k, err := parseRulesKey(*rules)
		if err != nil {
			return err
		}
		keys = []string{k}
	}
	store, closeStore, err := e.openStore(ctx, e.stderr)
	if err != nil {
		return err
	}
	defer closeStore()
	if keys == nil {
		sum, err := store.CorpusSummary(ctx)
		if err != nil {
			return err
		}
		for _, st := range sum {
			keys = append(keys, st.Rules)
		}
	}

	var x corpusExported
	export := func(w io.Writer) error {
		var err error
		x, err = exportCorpora(ctx, store, w, keys, e.stderr)
		return err
	}
	dest := "standard output"
	if *out == "" {
		err = export(e.stdout)
	} else {
		err = writeFileVia(*out, export)
		dest = *out
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stderr, x.message(dest))
	return nil
}

// corpusExported is what an export wrote: the records in all, the
// corrupt entries skipped, and "rules records" for each corpus.
type corpusExported struct {
	total, corrupt int
	parts          []string
}

// exportCorpora writes the corpora of keys to w, one after the other,
// saying on stderr which corrupt entries it skips.
func exportCorpora(ctx context.Context, store *persistence.Store, w io.Writer, keys []string, stderr io.Writer) (corpusExported, error) {
	var x corpusExported
	for _, k := range keys {
		rep, err := store.ExportCorpus(ctx, w, k)
		for _, c := range rep.Corrupt {
			fmt.Fprintf(stderr, "bot corpus: skipped %s corpus entry %s: %s\n", k, c.ID, explainStore(c.Err))
		}
		if err != nil {
			return x, err
		}
		x.total += rep.Records
		x.corrupt += len(rep.Corrupt)
		x.parts = append(x.parts, fmt.Sprintf("%s %d", k, rep.Records))
	}
	return x, nil
}

// message is the line that reports the export to dest.
func (x corpusExported) message(dest string) string {
	msg := fmt.Sprintf("exported %d %s to %s", x.total, plural(x.total, "record", "records"), dest)
	if len(x.parts) > 0 {
		msg += " (" + strings.Join(x.parts, ", ") + ")"
	}
	if x.corrupt > 0 {
		msg += fmt.Sprintf("; skipped %d corrupt %s", x.corrupt, plural(x.corrupt, "entry", "entries"))
	}
	return msg
}

// writeFileVia has write write the file at path through a temporary file
// beside it, renamed over it at the end: a failed export leaves the
// previous file as it was. The errors of the file (not write's) say
// "export".
func writeFileVia(path string, write func(io.Writer) error) error {
	file, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer func() {
		if file != nil {
			_ = file.Close()
			_ = os.Remove(file.Name())
		}
	}()
	if err := write(file); err != nil {
		return err
	}
	if err := file.Chmod(0o644); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err := file.Close(); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err := os.Rename(file.Name(), path); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	file = nil
	return nil
}

// runCorpusImport is "bot corpus import".
func runCorpusImport(ctx context.Context, e *env, cmd *command, args []string) error {
	fs := newFlagSet(cmd)
	format := fs.String("format", formatJSONL, "the files' `format`: jsonl (as export writes) or games.txt (the original program's boards)")
	if err := e.parseFlagsArgs(cmd, fs, args); err != nil {
		var ie *inputError
		if errors.As(err, &ie) && strings.HasPrefix(ie.msg, "unknown flag -source;") {
			return badInput("-source is gone: a games.txt game is known by the file's content, not its name; leave the flag out")
		}
		return err
	}
	switch f := strings.ToLower(strings.TrimSpace(*format)); f {
	case formatJSONL, formatGamesTxt:
		*format = f
	default:
		return badInput("-format %q: the formats are jsonl and games.txt", *format)
	}
	if fs.NArg() == 0 {
		return badInput(`no file given; name the files to import ("-" for standard input)`)
	}
	// Open every file first: a missing one is bad input, found before
	// anything is imported.
	type input struct {
		name string
		r    io.Reader
	}
	var inputs []input
	stdin := false
	for _, name := range fs.Args() {
		if name == "-" {
			if stdin {
				return badInput(`standard input ("-") is named twice`)
			}
			stdin = true
			inputs = append(inputs, input{"-", e.stdin})
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			return badInput("%s", explainPath(err))
		}
		defer f.Close()
		inputs = append(inputs, input{name, f})
	}
	store, closeStore, err := e.openStore(ctx, e.stderr)
	if err != nil {
		return err
	}
	defer closeStore()

	refused, files := 0, 0
	for _, in := range inputs {
		var rep persistence.ImportReport
		var err error
		if *format == formatGamesTxt {
			rep, err = store.ImportGamesTxt(ctx, in.r)
		} else {
			rep, err = store.ImportCorpus(ctx, in.r)
		}
		for _, b := range rep.Bad {
			fmt.Fprintf(e.stderr, "%s:%d: %s\n", in.name, b.Line, explainStore(b.Err))
		}
		fmt.Fprintf(e.stdout, "%s: %d added, %d %s, %d refused\n", in.name, rep.Added,
			rep.Duplicates, plural(rep.Duplicates, "duplicate", "duplicates"), len(rep.Bad))
		if err != nil {
			return fmt.Errorf("%s: %w", in.name, err)
		}
		if len(rep.Bad) > 0 {
			refused += len(rep.Bad)
			files++
		}
	}
	if refused > 0 {
		return fmt.Errorf("%d %s refused in %d %s (listed above); every valid record was imported",
			refused, plural(refused, "line", "lines"), files, plural(files, "file", "files"))
	}
	return nil
}

// explainPath returns a file error's message as "name: reason".
func explainPath(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		reason := pe.Err.Error()
		if errors.Is(err, os.ErrNotExist) {
			reason = "no such file"
		}
		return pe.Path + ": " + reason
	}
	return err.Error()
}

// corpusStatsJSON is one rules' line of "bot corpus stats -json".
type corpusStatsJSON struct {
	Rules   string     `json:"rules"`
	Records int64      `json:"records"`
	First   *time.Time `json:"first,omitempty"`
	Last    *time.Time `json:"last,omitempty"`
}

// runCorpusStats is "bot corpus stats".
func runCorpusStats(ctx context.Context, e *env, cmd *command, args []string) error {
	fs := newFlagSet(cmd)
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	if err := e.parseFlags(cmd, fs, args); err != nil {
		return err
	}
	store, closeStore, err := e.openStore(ctx, e.stderr)
	if err != nil {
		return err
	}
	defer closeStore()
	sum, err := store.CorpusSummary(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		out := struct {
			Corpora []corpusStatsJSON `json:"corpora"`
			Total   int64             `json:"total"`
		}{Corpora: []corpusStatsJSON{}}
		for _, st := range sum {
			j := corpusStatsJSON{Rules: st.Rules, Records: st.Count}
			if st.Count > 0 {
				first, last := st.First, st.Last
				j.First, j.Last = &first, &last
			}
			out.Corpora = append(out.Corpora, j)
			out.Total += st.Count
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	if len(sum) == 0 {
		fmt.Fprintln(e.stdout, "the corpus is empty")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "rules\trecords\tfirst added\tlast added")
	var total int64
	for _, st := range sum {
		first, last := "-", "-"
		if st.Count > 0 {
			first, last = st.First.UTC().Format(time.DateTime), st.Last.UTC().Format(time.DateTime)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", st.Rules, st.Count, first, last)
		total += st.Count
	}
	fmt.Fprintf(tw, "total\t%d\n", total)
	return tw.Flush()
}
