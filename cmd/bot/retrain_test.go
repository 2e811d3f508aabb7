package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
	"github.com/tttbot/ttt-bot/retrain"
	"github.com/tttbot/ttt-bot/weights"
)

// quickRetrain are flags that keep a 3x3k3 retrain run to a few seconds.
var quickRetrain = []string{"-rules", "3x3k3", "-force", "-epochs", "2", "-gate-games", "10"}

// retrainStore starts a private Redis for the test, points REDIS_URL at
// it, imports the test corpus and returns a Store on it.
func retrainStore(t *testing.T) (*persistence.Store, string) {
	t.Helper()
	srv := redistest.Start(t)
	t.Setenv("REDIS_URL", srv.Addr())
	if r := runFixed(t, "", "corpus", "import", "testdata/corpus-import.jsonl"); r.code != exitFailure || !strings.HasPrefix(r.stdout, "testdata/corpus-import.jsonl: 4 added") {
		t.Fatalf("import: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	return persistence.New(redistest.Client(t, srv), persistence.Options{}), srv.Addr()
}

func TestRetrainOnce(t *testing.T) {
	store, _ := retrainStore(t)
	ctx := context.Background()
	r := runFixed(t, "", append([]string{"retrain", "-json"}, quickRetrain...)...)
	if r.code != exitOK {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	var rep retrain.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("stdout is not a report: %v\n%s", err, r.stdout)
	}
	if rep.Rules != "3x3k3" || rep.Trigger != retrain.TriggerCLI || rep.Corpus.Games != 3 || rep.Corpus.NewGames != 3 ||
		len(rep.Epochs) != 2 || rep.Gate == nil || rep.Live.Source != retrain.SourceShipped {
		t.Errorf("report %+v", rep)
	}
	for _, want := range []string{"3x3k3 training [====================] 2/2", "3x3k3 gate...", "3x3k3 publish done"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("progress lacks %q:\n%s", want, r.stderr)
		}
	}
	v, err := store.CurrentModelVersion(ctx, "3x3k3")
	if errors.Is(err, persistence.ErrNotFound) {
		v, err = 0, nil
	}
	if err != nil {
		t.Fatal(err)
	}
	switch rep.Outcome {
	case retrain.OutcomePromoted:
		if v != 1 || rep.Published == nil || rep.Published.Version != 1 {
			t.Errorf("promoted, but the registry is at version %d, report %+v", v, rep.Published)
		}
	case retrain.OutcomeRejected:
		if v != 0 || rep.Candidate == nil {
			t.Errorf("rejected, but the registry is at version %d, candidate %+v", v, rep.Candidate)
		}
	default:
		t.Errorf("outcome %q", rep.Outcome)
	}

	// Without -force, a board with too few new games is refused: exit 2,
	// nothing trained.
	r = runFixed(t, "", "retrain", "-rules", "3x3k3")
	if r.code != exitInput || r.stdout != "" || !strings.Contains(r.stderr, "3x3k3: 0 new finished games since the last run, fewer than RETRAIN_MIN_GAMES (50); nothing was trained. Wait for more games, or add -force") {
		t.Errorf("unforced: exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}

	// The summary without -json, after the checkpoint moved: no new games.
	r = runFixed(t, "", append([]string{"retrain"}, quickRetrain...)...)
	if r.code != exitOK || !strings.HasPrefix(r.stdout, "3x3k3: ") || !strings.Contains(r.stdout, "  corpus: 3 games (0 new, 3 with a person), 0 corrupt skipped\n") {
		t.Errorf("exit %d, summary:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestRetrainEveryBoard checks that without -rules the boards with too few
// new games are skipped.
func TestRetrainEveryBoard(t *testing.T) {
	retrainStore(t)
	t.Setenv("RETRAIN_MIN_GAMES", "4")
	r := runFixed(t, "", "retrain", "-json")
	if r.code != exitOK || r.stdout != "[]\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "3x3k3: 3 new games since the last run, fewer than RETRAIN_MIN_GAMES (4); skipped\n") ||
		!strings.Contains(r.stderr, "5x5k5: 0 new games since the last run") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	r = runFixed(t, "", "retrain")
	if r.code != exitOK || r.stdout != "no board had enough new games; nothing retrained\n" {
		t.Errorf("exit %d, stdout %q", r.code, r.stdout)
	}

	t.Setenv("RETRAIN_MIN_GAMES", "3")
	r = runFixed(t, "", "retrain", "-json", "-epochs", "1", "-gate-games", "2")
	var reps []retrain.Report
	if err := json.Unmarshal([]byte(r.stdout), &reps); err != nil || r.code != exitOK {
		t.Fatalf("exit %d, stdout %q (%v), stderr:\n%s", r.code, r.stdout, err, r.stderr)
	}
	if len(reps) != 1 || reps[0].Rules != "3x3k3" || reps[0].Trigger != retrain.TriggerCLI {
		t.Errorf("reports %+v", reps)
	}
}

// TestRetrainLockHeld checks the message and exit status when another
// process holds the retrain lock.
func TestRetrainLockHeld(t *testing.T) {
	store, _ := retrainStore(t)
	if _, err := store.AcquireLock(context.Background(), retrain.LockName, "other-host/42", time.Minute); err != nil {
		t.Fatal(err)
	}
	r := runFixed(t, "", append([]string{"retrain"}, quickRetrain...)...)
	if r.code != exitFailure || r.stdout != "" {
		t.Errorf("exit %d, stdout %q", r.code, r.stdout)
	}
	if !strings.HasPrefix(r.stderr, "bot retrain: 3x3k3: another retrain job is running (the lock is held") ||
		!strings.Contains(r.stderr, "other-host/42") || !strings.HasSuffix(r.stderr, "; nothing was done, try again once it ends\n") {
		t.Errorf("stderr %q", r.stderr)
	}
}

func TestRetrainBadInput(t *testing.T) {
	t.Setenv("REDIS_URL", "127.0.0.1:1")
	tests := []struct {
		name string
		env  string
		args []string
		want string
	}{
		{"bad rules", "", []string{"retrain", "-rules", "9x9k9"}, "-rules: bad rules"},
		{"short lease", "", []string{"retrain", "-lease", "1ms"}, "the lease is a duration of at least 100ms"},
		{"zero epochs", "", []string{"retrain", "-epochs", "0"}, "the number of epochs is a whole number, 1 or more"},
		{"bad gate games", "", []string{"retrain", "-gate-games", "many"}, "the number of gate games is a whole number"},
		{"argument", "", []string{"retrain", "3x3k3"}, `unexpected argument "3x3k3"`},
		{"bad cpu share", "RETRAIN_CPU_SHARE=2", []string{"retrain"}, `RETRAIN_CPU_SHARE "2" is not a number over 0 and at most 1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if k, v, ok := strings.Cut(tt.env, "="); ok {
				t.Setenv(k, v)
			}
			checkInputError(t, runBot(t, "", tt.args...), tt.want)
		})
	}
}

func TestLoadRetrainSettings(t *testing.T) {
	defaults := retrainSettings{interval: 24 * time.Hour, minGames: 50, timeLimit: 20 * time.Minute, cpuShare: 0.5}
	tests := []struct {
		name string
		env  map[string]string
		want retrainSettings
		bad  string
	}{
		{"defaults", nil, defaults, ""},
		{"all set", map[string]string{"RETRAIN_INTERVAL": "90m", "RETRAIN_MIN_GAMES": "5", "RETRAIN_TIME_LIMIT": "1h", "RETRAIN_CPU_SHARE": "1"},
			retrainSettings{interval: 90 * time.Minute, minGames: 5, timeLimit: time.Hour, cpuShare: 1}, ""},
		{"periodic off", map[string]string{"RETRAIN_INTERVAL": "0"}, retrainSettings{minGames: 50, timeLimit: 20 * time.Minute, cpuShare: 0.5}, ""},
		{"off with a unit", map[string]string{"RETRAIN_INTERVAL": "0s"}, retrainSettings{minGames: 50, timeLimit: 20 * time.Minute, cpuShare: 0.5}, ""},
		{"interval without unit", map[string]string{"RETRAIN_INTERVAL": "24"}, retrainSettings{}, `RETRAIN_INTERVAL "24"`},
		{"interval too short", map[string]string{"RETRAIN_INTERVAL": "5s"}, retrainSettings{}, "at least 1m"},
		{"negative interval", map[string]string{"RETRAIN_INTERVAL": "-1h"}, retrainSettings{}, `RETRAIN_INTERVAL "-1h"`},
		{"zero games", map[string]string{"RETRAIN_MIN_GAMES": "0"}, retrainSettings{}, `RETRAIN_MIN_GAMES "0" is not a whole number, 1 or more`},
		{"bad time limit", map[string]string{"RETRAIN_TIME_LIMIT": "soon"}, retrainSettings{}, `RETRAIN_TIME_LIMIT "soon"`},
		{"zero cpu share", map[string]string{"RETRAIN_CPU_SHARE": "0"}, retrainSettings{}, `RETRAIN_CPU_SHARE "0"`},
		{"NaN cpu share", map[string]string{"RETRAIN_CPU_SHARE": "NaN"}, retrainSettings{}, `RETRAIN_CPU_SHARE "NaN"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := loadRetrainSettings(func(k string) string { return tt.env[k] })
			if tt.bad != "" {
				if len(problems) != 1 || !strings.Contains(problems[0], tt.bad) {
					t.Errorf("problems %q, want one containing %q", problems, tt.bad)
				}
				return
			}
			if len(problems) > 0 || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, %q; want %+v", got, problems, tt.want)
			}
		})
	}
}

// buildBot builds the bot binary into a temporary directory.
func buildBot(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "bot")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestRetrainKilledMidTraining kills a "bot retrain" process with SIGKILL
// while it trains, and checks that the live model, the checkpoint and the
// candidate slot are untouched, that the lock stays held until its lease
// runs out, and that a new run then succeeds.
func TestRetrainKilledMidTraining(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	store, addr := retrainStore(t)
	ctx := context.Background()
	blob, err := weights.Load("3x3k3")
	if err != nil {
		t.Fatal(err)
	}
	live, err := store.PublishModel(ctx, "3x3k3", persistence.ModelMeta{}, blob)
	if err != nil {
		t.Fatal(err)
	}
	bin := buildBot(t)

	const lease = 2 * time.Second
	cmd := exec.Command(bin, "retrain", "-rules", "3x3k3", "-force", "-epochs", "100000", "-lease", lease.String())
	cmd.Env = append(os.Environ(), "REDIS_URL="+addr)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	training := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "3x3k3 training [") {
				training <- sc.Text()
				break
			}
		}
		close(training)
		for sc.Scan() {
		}
	}()
	select {
	case line, ok := <-training:
		if !ok {
			t.Fatal("bot retrain ended before training")
		}
		t.Logf("killing at %q", line)
	case <-time.After(2 * time.Minute):
		t.Fatal("bot retrain did not start training within 2 minutes")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	killed := time.Now()

	// Nothing changed: the live model, the checkpoint, the candidate slot.
	v, err := store.CurrentModelVersion(ctx, "3x3k3")
	if err != nil || v != live.Version {
		t.Errorf("live version %d (%v), want %d", v, err, live.Version)
	}
	if m, got, err := store.LoadModel(ctx, "3x3k3", 0); err != nil || string(got) != string(blob) || m.SHA256 != live.SHA256 {
		t.Errorf("live model changed: %+v, %v", m, err)
	}
	if cp, err := store.Checkpoint(ctx, "3x3k3", retrain.Consumer); err != nil || cp != "0" {
		t.Errorf("checkpoint %q (%v), want it not moved", cp, err)
	}
	if _, _, err := store.LoadCandidate(ctx, "3x3k3"); !errors.Is(err, persistence.ErrNotFound) {
		t.Errorf("candidate slot: %v, want ErrNotFound", err)
	}

	// The dead process's lock holds until its lease runs out...
	if time.Since(killed) < lease/2 {
		r := runFixed(t, "", append([]string{"retrain", "-lease", lease.String()}, quickRetrain...)...)
		if r.code != exitFailure || !strings.Contains(r.stderr, "another retrain job is running") {
			t.Errorf("right after the kill: exit %d, stderr %q", r.code, r.stderr)
		}
	}
	// ...and then a new run takes it and finishes.
	// The lease runs out on Redis's clock: wait until the lock is free (a
	// probe takes it for a millisecond and gives it back).
	for deadline := killed.Add(lease + 10*time.Second); ; {
		probe, err := store.AcquireLock(ctx, retrain.LockName, "probe", time.Millisecond)
		if err == nil {
			if err := store.ReleaseLock(ctx, probe); err != nil && !errors.Is(err, persistence.ErrLockLost) {
				t.Fatal(err)
			}
			break
		}
		if !errors.Is(err, persistence.ErrLockHeld) {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the killed run's %v lease still held %v after the kill", lease, time.Since(killed))
		}
		time.Sleep(10 * time.Millisecond)
	}
	r := runFixed(t, "", append([]string{"retrain", "-json", "-lease", lease.String()}, quickRetrain...)...)
	if r.code != exitOK {
		t.Fatalf("after the lease: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	var rep retrain.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Live.Source != retrain.SourceRegistry || rep.Live.Version != live.Version ||
		(rep.Outcome != retrain.OutcomePromoted && rep.Outcome != retrain.OutcomeRejected) {
		t.Errorf("report after the lease: outcome %q, live %+v", rep.Outcome, rep.Live)
	}
}
