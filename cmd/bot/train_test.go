package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/game"
)

// quickTrain are flags that keep a 3x3k3 training run to a second or two.
var quickTrain = []string{"-rules", "3x3k3", "-epochs", "2", "-eval", "0", "-seed", "7"}

// weightsOf decodes a weights file written by bot train for rules and
// returns its network, metadata and the bytes of its tensors alone (the
// file re-marshalled with empty metadata), to compare weights.
func weightsOf(t *testing.T, path string, rules game.Rules) (*nn.Net, nn.Meta, []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n, m, err := nn.UnmarshalFor(b, rules)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	bare, err := nn.Marshal(n, nn.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	return n, m, bare
}

// TestTrainCorpusFile trains on a JSON Lines corpus with bad lines and
// another board's record, checks the report, the file and its metadata,
// and that the weights do not depend on -workers.
func TestTrainCorpusFile(t *testing.T) {
	dir := t.TempDir()
	var bare [][]byte
	for _, workers := range []string{"1", "2"} {
		out := filepath.Join(dir, "w"+workers+".safetensors")
		args := append([]string{"train", "-corpus", "testdata/corpus-import.jsonl", "-workers", workers, "-out", out, "-json"}, quickTrain...)
		r := runFixed(t, "", args...)
		if r.code != exitOK {
			t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
		}
		for _, want := range []string{
			"3x3k3: training with seed 7 on 3 corpus games\n",
			"testdata/corpus-import.jsonl:3: corpus game \"bad-move\"",
			"testdata/corpus-import.jsonl:6: corpus record: unexpected EOF",
			"bot train: read 3 3x3k3 records; skipped 3 bad and 1 of other rules\n",
			"training...\n",
			"training [====================] 2/2  loss ",
			"training done in ",
		} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
			}
		}
		var got trainOutput
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
			t.Fatalf("stdout is not the JSON report: %v\n%s", err, r.stdout)
		}
		c := got.Report
		if got.Out != out || got.Version != "shipped-2026-01-01" || got.Corpus != (corpusSource{Source: "testdata/corpus-import.jsonl", Records: 3, OtherRules: 1, Bad: 3}) ||
			c.Rules != "3x3k3" || c.Seed != 7 || c.CorpusGames != 3 || len(c.Epochs) != 2 || c.HumanMoves == 0 {
			t.Errorf("report %+v", got)
		}
		_, m, b := weightsOf(t, out, game.Classic())
		if m.Version != "shipped-2026-01-01" || m.Rules != "3x3k3" || len(m.Training) == 0 {
			t.Errorf("metadata %+v", m)
		}
		var tm trainingMeta
		if err := json.Unmarshal(m.Training, &tm); err != nil || tm.Report.Seed != 7 || len(tm.Report.Epochs) != 1 || tm.Report.Epochs[0].Of != 2 || tm.Corpus.Records != 3 {
			t.Errorf("training metadata %s (%v)", m.Training, err)
		}
		bare = append(bare, b)
	}
	if !bytes.Equal(bare[0], bare[1]) {
		t.Error("-workers 1 and -workers 2 trained different weights")
	}
}

// TestTrainSummary checks the summary printed without -json and a warm
// start from a weights file.
func TestTrainSummary(t *testing.T) {
	dir := t.TempDir()
	first := filepath.Join(dir, "first.safetensors")
	if r := runFixed(t, "", append([]string{"train", "-out", first, "-version", "v1"}, quickTrain...)...); r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	second := filepath.Join(dir, "second.safetensors")
	r := runFixed(t, "", append([]string{"train", "-init", first, "-out", second, "-selfplay", "0"}, quickTrain...)...)
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"3x3k3: network [", "seed 7\n",
		"data: no corpus, 0 self-play games;", "(every reachable one)",
		"training: 2 epochs, final loss ",
		"wrote " + second + ": ", "version shipped-2026-01-01, sha256 ",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.stdout)
		}
	}
	n1, _, b1 := weightsOf(t, first, game.Classic())
	n2, _, b2 := weightsOf(t, second, game.Classic())
	if n1.Params() != n2.Params() || bytes.Equal(b1, b2) {
		t.Error("the warm start did not keep the architecture and train on")
	}
}

// TestTrainInterrupted checks that a cancelled run writes nothing and
// exits 1.
func TestTrainInterrupted(t *testing.T) {
	out := filepath.Join(t.TempDir(), "w.safetensors")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e, _, errOut := testEnv("")
	if code := e.run(ctx, append([]string{"train", "-out", out}, quickTrain...)); code != exitFailure {
		t.Errorf("exit %d, want %d", code, exitFailure)
	}
	if !strings.HasSuffix(errOut.String(), "bot train: interrupted\n") {
		t.Errorf("stderr %q", errOut.String())
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
		t.Errorf("files written: %v", entries)
	}
}

// TestTrainRedisCorpus trains on the live corpus.
func TestTrainRedisCorpus(t *testing.T) {
	useRedis(t)
	if r := runFixed(t, "", "corpus", "import", "testdata/corpus-import.jsonl"); r.code != exitFailure {
		t.Fatalf("import: exit %d: %s", r.code, r.stderr)
	}
	out := filepath.Join(t.TempDir(), "w.safetensors")
	r := runFixed(t, "", append([]string{"train", "-corpus", "redis", "-out", out, "-json"}, quickTrain...)...)
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var got trainOutput
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatal(err)
	}
	if got.Corpus != (corpusSource{Source: "redis", Records: 3}) || got.Report.CorpusGames != 3 {
		t.Errorf("corpus %+v, report games %d", got.Corpus, got.Report.CorpusGames)
	}
}

func TestTrainBadInput(t *testing.T) {
	t.Setenv("REDIS_URL", "127.0.0.1:1")
	shipped := filepath.Join(t.TempDir(), "3x3k3.safetensors")
	if r := runFixed(t, "", append([]string{"train", "-out", shipped}, quickTrain...)...); r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no rules", []string{"train"}, "-rules: no rules given; say which board to train"},
		{"bad rules", []string{"train", "-rules", "3x3"}, `-rules: bad rules: "3x3" has no line length`},
		{"zero epochs", []string{"train", "-rules", "3x3k3", "-epochs", "0"}, "the number of epochs is a whole number, 1 or more"},
		{"negative selfplay", []string{"train", "-rules", "3x3k3", "-selfplay", "-1"}, "the number of self-play games is a whole number, 0 or more"},
		{"bad eval", []string{"train", "-rules", "3x3k3", "-eval", "some"}, "the number of evaluation games is a whole number"},
		{"zero workers", []string{"train", "-rules", "3x3k3", "-workers", "0"}, "the number of workers is a whole number, 1 or more"},
		{"bad seed", []string{"train", "-rules", "3x3k3", "-seed", "x"}, "the seed is a whole number"},
		{"missing corpus", []string{"train", "-rules", "3x3k3", "-corpus", "testdata/none.jsonl"}, "-corpus: testdata/none.jsonl: no such file"},
		{"missing init", []string{"train", "-rules", "3x3k3", "-init", "testdata/none.safetensors"}, "-init: testdata/none.safetensors: no such file"},
		{"init of other rules", []string{"train", "-rules", "4x4k4", "-init", shipped}, "-init " + shipped + ": nn: weights do not match"},
		{"corrupt init", []string{"train", "-rules", "3x3k3", "-init", "testdata/games.txt"}, "nn: corrupt weights"},
		{"argument", []string{"train", "-rules", "3x3k3", "now"}, `unexpected argument "now"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkInputError(t, runBot(t, "", tt.args...), tt.want)
		})
	}
}
