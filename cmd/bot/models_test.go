package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
	"github.com/tttbot/ttt-bot/weights"
)

// modelsStore starts a private Redis for the test, points REDIS_URL at
// it and returns a Store on it whose clock stands still at the start of
// 2026, so that publish times are the same on every run.
func modelsStore(t *testing.T) *persistence.Store {
	t.Helper()
	srv := redistest.Start(t)
	t.Setenv("REDIS_URL", srv.Addr())
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return persistence.New(redistest.Client(t, srv), persistence.Options{Now: func() time.Time { return at }})
}

// retrainedBlob returns the shipped 3x3k3 network in a weights file with
// metadata as the retrain job writes it (with the held-out figures), and
// the gate report.
func retrainedBlob(t *testing.T) ([]byte, json.RawMessage) {
	t.Helper()
	shipped, err := weights.Load("3x3k3")
	if err != nil {
		t.Fatal(err)
	}
	n, _, err := nn.Unmarshal(shipped)
	if err != nil {
		t.Fatal(err)
	}
	training := json.RawMessage(`{"corpus":{"games":40,"new_games":12,"human_games":40,"corrupt":0,"since":"0"},` +
		`"report":{"rules":"3x3k3","corpus_games":40,"human_moves":150,"holdout":[{"name":"held-out","net":{"human_top1":{"num":4321,"den":10000},"policy_agree":{"num":7,"den":8}}}]}}`)
	gate := json.RawMessage(`{"rule":"no worse than the live model","games":10,"margin":0.05,"seed":1,"reference":"live model","baselines":[],"pass":true}`)
	blob, err := nn.Marshal(n, nn.Meta{Version: "redis-2", Created: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Training: training, Eval: gate})
	if err != nil {
		t.Fatal(err)
	}
	return blob, gate
}

// publishTwo publishes the shipped 3x3k3 weights as version 1 and a
// retrained-looking copy as version 2, which is live.
func publishTwo(t *testing.T, store *persistence.Store) {
	t.Helper()
	ctx := context.Background()
	shipped, err := weights.Load("3x3k3")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.PublishModel(ctx, "3x3k3", persistence.ModelMeta{}, shipped); err != nil {
		t.Fatal(err)
	}
	blob, gate := retrainedBlob(t)
	if _, err := store.PublishModel(ctx, "3x3k3", persistence.ModelMeta{Eval: gate}, blob); err != nil {
		t.Fatal(err)
	}
}

// sum returns the hex SHA-256 of b.
func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestModelsListShow lists the registry (text and JSON) and shows a
// version, before and after two versions are published.
func TestModelsListShow(t *testing.T) {
	store := modelsStore(t)
	runSteps(t, []step{{args: []string{"models", "list"}, code: exitOK, golden: "models-list-empty.golden"}})
	publishTwo(t, store)
	rs := runSteps(t, []step{
		{args: []string{"models", "list"}, code: exitOK, golden: "models-list.golden"},
		{args: []string{"models", "list", "-rules", "3x3k3", "-json"}, code: exitOK, golden: "models-list-json.golden"},
		{args: []string{"models", "show", "-rules", "3x3k3"}, code: exitOK, golden: "models-show.golden"},
		{args: []string{"models", "show", "-rules", "3x3k3", "-version", "1", "-json"}, code: exitOK},
	})
	var v1 struct {
		Version  int64           `json:"version"`
		Live     bool            `json:"live"`
		Label    string          `json:"label"`
		Arch     nn.Arch         `json:"arch"`
		Params   int             `json:"params"`
		Training json.RawMessage `json:"training"`
		Eval     json.RawMessage `json:"eval"`
		Gate     string          `json:"gate"`
	}
	if err := json.Unmarshal([]byte(rs[3].stdout), &v1); err != nil {
		t.Fatalf("show -json: %v\n%s", err, rs[3].stdout)
	}
	if v1.Version != 1 || v1.Live || v1.Label != "shipped-2026-11-21" || v1.Arch.Rules != "3x3k3" || len(v1.Arch.Hidden) == 0 ||
		v1.Params == 0 || len(v1.Training) == 0 || len(v1.Eval) == 0 || v1.Gate != "" {
		t.Errorf("show -version 1 -json: %+v", v1)
	}
}

// TestModelsRollback rolls back to the version before, refuses to go
// further, and goes to a chosen version with -to.
func TestModelsRollback(t *testing.T) {
	store := modelsStore(t)
	publishTwo(t, store)
	live := func() int64 {
		t.Helper()
		v, err := store.CurrentModelVersion(context.Background(), "3x3k3")
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	r := runFixed(t, "", "models", "rollback", "-rules", "3x3k3")
	if r.code != exitOK || r.stdout != "3x3k3: version 1 (published 2026-01-01 00:00:00) is live now, in place of version 2; running bots switch to it\n" || live() != 1 {
		t.Errorf("rollback: exit %d, stdout %q, stderr %q, live %d", r.code, r.stdout, r.stderr, live())
	}
	r = runFixed(t, "", "models", "rollback", "-rules", "3x3k3")
	checkInputError(t, r, "no kept 3x3k3 version is older than the live version 1: the registry keeps 3x3k3 versions 2, 1 (1 is live); -to V makes any kept one live")
	r = runFixed(t, "", "models", "rollback", "-rules", "3x3k3", "-to", "2")
	if r.code != exitOK || !strings.HasPrefix(r.stdout, "3x3k3: version 2 ") || live() != 2 {
		t.Errorf("rollback -to 2: exit %d, stdout %q, stderr %q, live %d", r.code, r.stdout, r.stderr, live())
	}
	r = runFixed(t, "", "models", "rollback", "-rules", "3x3k3", "-to", "2")
	if r.code != exitOK || r.stdout != "3x3k3: version 2 is live already; nothing changed\n" {
		t.Errorf("rollback -to the live one: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = runFixed(t, "", "models", "rollback", "-rules", "3x3k3", "-to", "9")
	checkInputError(t, r, "-to 9: no such 3x3k3 version; the registry keeps 3x3k3 versions 2, 1 (2 is live)")
	r = runFixed(t, "", "models", "rollback", "-rules", "4x4k4")
	checkInputError(t, r, "nothing to roll back: the registry holds no 4x4k4 version (the bots play the shipped weights)")
	if live() != 2 {
		t.Errorf("live %d after the refused rollbacks, want 2", live())
	}
}

// TestModelsExportImport exports a version, imports the file as a new
// version with the same weights, and refuses damaged or mismatched files
// without publishing anything.
func TestModelsExportImport(t *testing.T) {
	store := modelsStore(t)
	ctx := context.Background()
	publishTwo(t, store)
	dir := t.TempDir()
	out := filepath.Join(dir, "v1.safetensors")
	r := runFixed(t, "", "models", "export", "-rules", "3x3k3", "-version", "1", "-out", out)
	if r.code != exitOK || r.stdout != "" {
		t.Fatalf("export: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	shipped, _ := weights.Load("3x3k3")
	if sum(got) != sum(shipped) {
		t.Fatalf("exported sha256 %s, want the published file's %s", sum(got), sum(shipped))
	}
	if want := "exported 3x3k3 version 1 (58004 bytes, sha256 " + sum(shipped) + ") to " + out + "\n"; r.stderr != want {
		t.Errorf("export stderr %q, want %q", r.stderr, want)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}

	r = runFixed(t, "", "models", "import", "-rules", "3x3k3", out)
	if r.code != exitOK || !strings.HasPrefix(r.stdout, "3x3k3: published "+out+" as version 3 (") || !strings.HasSuffix(r.stdout, "live now; it bypassed the gate\n") {
		t.Fatalf("import: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	m, blob, err := store.LoadModel(ctx, "3x3k3", 0)
	if err != nil || m.Version != 3 || sum(blob) != sum(shipped) || m.SHA256 != sum(shipped) ||
		m.Source != persistence.ModelSourceImport || m.Note != "imported from v1.safetensors, labelled shipped-2026-11-21" {
		t.Fatalf("live after the import: %+v, %d bytes (sha256 %s), %v", m, len(blob), sum(blob), err)
	}
	if l := runFixed(t, "", "models", "list", "-rules", "3x3k3"); !strings.Contains(l.stdout, "\n3x3k3  3        live  2026-01-01 00:00:00  0      -    -                     -                   imported\n") {
		t.Errorf("list after the import:\n%s", l.stdout)
	}
	// The whole file through standard output and standard input.
	r = runFixed(t, "", "models", "export", "-rules", "3x3k3", "-out", "-")
	if r.code != exitOK || sum([]byte(r.stdout)) != sum(shipped) {
		t.Fatalf("export -out -: exit %d, %d bytes, stderr %q", r.code, len(r.stdout), r.stderr)
	}
	if r = runFixed(t, r.stdout, "models", "import", "-rules", "3x3k3", "-"); r.code != exitOK || !strings.Contains(r.stdout, "as version 4") {
		t.Fatalf("import -: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}

	// Files that must not be published.
	flipped := append([]byte(nil), shipped...)
	flipped[len(flipped)-1] ^= 0x40
	truncated := shipped[:3000]
	otherRules, err := weights.Load("4x4k4")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		data []byte
		want string
	}{
		{"flipped", flipped, "corrupt weights: data sha256 is "},
		{"truncated", truncated, "corrupt weights: "},
		{"other-rules", otherRules, "weights do not match: the file is for 4x4k4, not 3x3k3"},
		{"not-weights", []byte("hello"), "corrupt weights: 5 bytes; a weights file starts with an 8-byte header length"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name+".safetensors")
			if err := os.WriteFile(path, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			r := runFixed(t, "", "models", "import", "-rules", "3x3k3", path)
			checkInputError(t, r, path+": "+tt.want)
			if !strings.Contains(r.stderr, "; nothing was published") {
				t.Errorf("stderr %q does not say nothing was published", r.stderr)
			}
			if v, err := store.CurrentModelVersion(ctx, "3x3k3"); err != nil || v != 4 {
				t.Errorf("live version %d, %v after a refused import; want 4", v, err)
			}
		})
	}
	if metas, _, err := store.ModelVersions(ctx, "3x3k3"); err != nil || len(metas) != 4 {
		t.Errorf("%d versions kept, %v; the refused imports added some", len(metas), err)
	}
}

// TestModelsLevelVersions plays registry versions with neural@V and
// humanlike@V in move, arena and play.
func TestModelsLevelVersions(t *testing.T) {
	store := modelsStore(t)
	publishTwo(t, store)
	// Version 1 is the shipped network: it chooses what the shipped
	// weights choose.
	const pos = "XX-/OO-/---"
	want := runFixed(t, "", "move", "-level", "neural", "-position", pos)
	r := runFixed(t, "", "move", "-level", "neural@1", "-position", pos)
	if r.code != exitOK || r.stdout != want.stdout || r.stdout != "0 2\n" {
		t.Errorf("move -level neural@1: exit %d, stdout %q (shipped %q), stderr %q", r.code, r.stdout, want.stdout, r.stderr)
	}
	if r := runFixed(t, "", "move", "-level", "Humanlike@2", "-seed", "1", "-depth", "1"); r.code != exitOK || len(r.stdout) != 4 {
		t.Errorf("move -level Humanlike@2: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	checkInputError(t, runFixed(t, "", "move", "-level", "neural@99"),
		`-level "neural@99": no such 3x3k3 version; the registry keeps 3x3k3 versions 2, 1 (2 is live)`)
	checkInputError(t, runFixed(t, "", "move", "-level", "neural@1", "-rules", "4x4k4"),
		`-level "neural@1": no such 4x4k4 version; the registry holds no 4x4k4 version (the bots play the shipped weights)`)

	r = runFixed(t, "", "arena", "-x", "neural@1", "-o", "humanlike@2", "-games", "4", "-seed", "1")
	if r.code != exitOK || !strings.HasPrefix(r.stdout, "3x3k3: X neural@1 vs O humanlike@2, 4 games, seed 1") {
		t.Errorf("arena: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	checkInputError(t, runFixed(t, "", "arena", "-x", "neural@1", "-o", "neural@3"), `-o "neural@3": no such 3x3k3 version`)

	r = runFixed(t, "quit\n", "play", "-ai", "neural@2", "-first", "ai")
	if r.code != exitOK || !strings.Contains(r.stdout, "You play O; neural@2 plays X.") {
		t.Errorf("play: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestModelsBadInput checks the input errors of "bot models" and of
// registry versions as levels: exit 2, a message and a hint, nothing on
// stdout, and Redis never opened.
func TestModelsBadInput(t *testing.T) {
	t.Setenv("REDIS_URL", "127.0.0.1:1") // would fail with exit 1 if it were opened
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no action", []string{"models"}, "no action given; say list, show, rollback, export, import"},
		{"unknown action", []string{"models", "delete"}, `unknown action "delete"; the actions are list, show, rollback, export, import`},
		{"flag first", []string{"models", "-rules", "3x3k3", "list"}, "the action comes before the flags: say bot models list|show|rollback|export|import -rules"},
		{"list bad rules", []string{"models", "list", "-rules", "3x3"}, `-rules: bad rules: "3x3" has no line length`},
		{"list argument", []string{"models", "list", "3x3k3"}, `unexpected argument "3x3k3"`},
		{"show no rules", []string{"models", "show"}, `-rules: say which board, like "3x3k3"; the preset boards are 3x3k3, 4x4k3`},
		{"show bad version", []string{"models", "show", "-rules", "3x3k3", "-version", "0"}, `the version is a whole number from 1, as "bot models list" shows`},
		{"show version not a number", []string{"models", "show", "-rules", "3x3k3", "-version", "live"}, "the version is a whole number from 1"},
		{"rollback no rules", []string{"models", "rollback", "-to", "2"}, "-rules: say which board"},
		{"rollback bad to", []string{"models", "rollback", "-rules", "3x3k3", "-to", "-1"}, "the version is a whole number from 1"},
		{"export no out", []string{"models", "export", "-rules", "3x3k3"}, `-out: name the file to write ("-" for standard output)`},
		{"export no rules", []string{"models", "export", "-out", "x"}, "-rules: say which board"},
		{"import no file", []string{"models", "import", "-rules", "3x3k3"}, "no file given; name the weights file to import"},
		{"import two files", []string{"models", "import", "-rules", "3x3k3", "a", "b"}, "2 files given; import one weights file at a time"},
		{"import missing file", []string{"models", "import", "-rules", "3x3k3", "testdata/nonexistent.safetensors"}, "testdata/nonexistent.safetensors: no such file"},
		{"import no rules", []string{"models", "import", "../../weights/3x3k3.safetensors"}, "-rules: say which board"},
		{"import wrong file", []string{"models", "import", "-rules", "3x3k3", "testdata/games.txt"}, "testdata/games.txt: corrupt weights: "},
		{"import flag after file", []string{"models", "import", "x", "-rules", "3x3k3"}, "flag -rules after the files"},
		{"level not a network", []string{"move", "-level", "minimax@1"}, `-level "minimax@1": only the network levels, neural and humanlike, take @VERSION`},
		{"level bad version", []string{"move", "-level", "neural@latest"}, `-level "neural@latest": the version is a whole number from 1`},
		{"arena level bad version", []string{"arena", "-x", "easy", "-o", "humanlike@0"}, `-o "humanlike@0": the version is a whole number from 1`},
		{"play level bad version", []string{"play", "-ai", "neural@"}, `-ai "neural@": the version is a whole number from 1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkInputError(t, runBot(t, "", tt.args...), tt.want)
		})
	}
}

// TestModelsNoRedis checks that a registry version as a level, like the
// models commands, fails (exit 1) when there is no Redis to load it from.
func TestModelsNoRedis(t *testing.T) {
	t.Setenv("REDIS_URL", "")
	t.Setenv("PATH", t.TempDir())
	for _, args := range [][]string{{"models", "list"}, {"move", "-level", "neural@1"}} {
		r := runBot(t, "", args...)
		if r.code != exitFailure || !strings.Contains(r.stderr, "REDIS_URL is empty and redis-server is not on the PATH") {
			t.Errorf("bot %s: exit %d, stderr %q", strings.Join(args, " "), r.code, r.stderr)
		}
	}
}

// TestReadFigures checks the decoding of a version's figures from the
// metadata documents of the retrain job and of "bot train", whatever is
// missing or malformed.
func TestReadFigures(t *testing.T) {
	tests := []struct {
		name           string
		training, eval string
		want           string
	}{
		{"nothing", "", "", "games - new - top-1 - best - pass -"},
		{"retrain job", `{"corpus":{"games":40,"new_games":12},"report":{"corpus_games":39}}`, `{"pass":false}`,
			"games 40 new 12 top-1 - best - pass false"},
		{"bot train", `{"corpus":{"source":"x.jsonl","records":7},"report":{"corpus_games":6}}`, `{"optimal_moves":{"num":1,"den":2}}`,
			"games 7 new - top-1 - best - pass -"},
		{"report only", `{"report":{"corpus_games":6}}`, "", "games 6 new - top-1 - best - pass -"},
		{"held-out sets", `{"report":{"holdout":[{"name":"reference","net":{"human_top1":{"num":1,"den":4}}},{"name":"held-out","net":{"human_top1":{"num":1,"den":2},"policy_agree":{"num":1,"den":4}}}]}}`, `{"pass":true}`,
			"games - new - top-1 0.5 best 0.25 pass true"},
		{"only the reference set", `{"report":{"holdout":[{"name":"held-out","net":{"human_top1":{"num":0,"den":0}}},{"name":"reference","net":{"human_top1":{"num":3,"den":4}}}]}}`, "", "games - new - top-1 0.75 best - pass -"},
		{"wrong types", `{"corpus":{"games":"many","new_games":3},"report":{"holdout":[{"net":{"human_top1":{"num":"high","den":2}}}]}}`, `{"pass":"yes"}`,
			"games - new 3 top-1 - best - pass -"},
		{"not JSON", `{oops`, `[1,2]`, "games - new - top-1 - best - pass -"},
	}
	show := func(f modelFigures) string {
		s := func(p *int) string { return orDash(p, figureCount) }
		g := func(p *float64) string {
			return orDash(p, func(v float64) string { b, _ := json.Marshal(v); return string(b) })
		}
		pass := orDash(f.Pass, func(b bool) string { return map[bool]string{true: "true", false: "false"}[b] })
		return "games " + s(f.Games) + " new " + s(f.NewGames) + " top-1 " + g(f.HumanTop1) + " best " + g(f.BestMove) + " pass " + pass
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := show(readFigures(json.RawMessage(tt.training), json.RawMessage(tt.eval))); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestModelsUnloadable checks a registry version whose blob passes the
// registry's checksum but is no weights file: listed with the reason, and
// a failure (exit 1), not bad input, when played.
func TestModelsUnloadable(t *testing.T) {
	store := modelsStore(t)
	publishTwo(t, store)
	if _, err := store.PublishModel(context.Background(), "3x3k3", persistence.ModelMeta{}, []byte("not weights")); err != nil {
		t.Fatal(err)
	}
	r := runFixed(t, "", "models", "list", "-rules", "3x3k3")
	if r.code != exitOK || !strings.Contains(r.stdout, "\n3x3k3  3        live  2026-01-01 00:00:00  -      -    -                     -                   - (does not load: corrupt weights: header length ") {
		t.Errorf("list: exit %d, stdout:\n%s\nstderr %q", r.code, r.stdout, r.stderr)
	}
	if r := runFixed(t, "", "models", "show", "-rules", "3x3k3"); r.code != exitOK || !strings.Contains(r.stdout, "\n  weights    do not load: corrupt weights: header length ") {
		t.Errorf("show: exit %d, stdout:\n%s\nstderr %q", r.code, r.stdout, r.stderr)
	}
	r = runFixed(t, "", "move", "-level", "neural@3")
	if r.code != exitFailure || !strings.Contains(r.stderr, `bot move: -level "neural@3": 3x3k3 version 3 does not load: nn: corrupt weights: `) {
		t.Errorf("move: exit %d, stderr %q", r.code, r.stderr)
	}
}

// FuzzReadFigures checks that any metadata decodes without panicking,
// and that a document that is not JSON gives no figures.
func FuzzReadFigures(f *testing.F) {
	f.Add(`{"corpus":{"games":40,"new_games":12},"report":{"holdout":[{"name":"held-out","net":{"human_top1":{"num":1,"den":2}}}]}}`, `{"pass":true}`)
	f.Add(`{"corpus":{"records":"x"},"report":{"corpus_games":null}}`, `[`)
	f.Add(`null`, `{"pass":null}`)
	f.Fuzz(func(t *testing.T, training, eval string) {
		fig := readFigures(json.RawMessage(training), json.RawMessage(eval))
		if !json.Valid([]byte(eval)) && (fig.Pass != nil || fig.BestMove != nil && !json.Valid([]byte(training))) {
			t.Fatalf("figures %+v from eval %q, which is not JSON", fig, eval)
		}
		if !json.Valid([]byte(training)) && (fig.Games != nil || fig.NewGames != nil) {
			t.Fatalf("figures %+v from training %q, which is not JSON", fig, training)
		}
	})
}
