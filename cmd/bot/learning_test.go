package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/ai/train"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
	"github.com/tttbot/ttt-bot/retrain"
)

// pseudonym makes a corpus pseudonym of a simulated player's name.
func pseudonym(name string) string {
	h := sha256.Sum256([]byte(name))
	return hex.EncodeToString(h[:])
}

// writeCorpus writes the games as a JSON Lines corpus file, game IDs
// prefixed by tag, and returns the file and the games by ID.
func writeCorpus(t *testing.T, r game.Rules, tag string, games []train.Game) (string, map[string]train.Game) {
	t.Helper()
	var b strings.Builder
	byID := map[string]train.Game{}
	for i, g := range games {
		id := fmt.Sprintf("%s-%d", tag, i)
		byID[id] = g
		p := game.NewPosition(r)
		var moves []string
		for _, c := range g.Moves {
			moves = append(moves, fmt.Sprintf("%d %d", c.Row(), c.Col()))
			p = p.Apply(c)
		}
		rec := persistence.CorpusRecord{Version: persistence.CorpusVersion, Game: id, Rules: r.String(), Moves: moves,
			X: persistence.Player{User: pseudonym(g.Players[0])}, O: persistence.Player{User: pseudonym(g.Players[1])},
			Result: p.Outcome().Result.String(), Time: g.Time, Source: "bot"}
		line, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), tag+".jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, byID
}

// regularPlayers are a server's regulars: 16 people with their own
// openings, tastes and rates of mistakes.
func regularPlayers(prefix string, seed uint64) []train.Player {
	opens := []game.Cell{game.NewCell(1, 1), game.NewCell(1, 1), game.NewCell(0, 0), game.NewCell(1, 1), game.NewCell(0, 2), game.NewCell(1, 1), game.NewCell(2, 2), game.NewCell(0, 1)}
	var ps []train.Player
	for i := range 16 {
		ps = append(ps, train.Player{Name: fmt.Sprintf("%s-%d", prefix, i),
			Style: train.Style{Opening: opens[(i+int(seed))%len(opens)], Blunder: 0.08 + 0.01*float64(i%8), Prefer: seed*16 + uint64(1+i%4)}})
	}
	return ps
}

// ceiling estimates the best top-1 any predictor that sees only the
// position can reach on games: the most frequent move of each position
// over many more games of the same players (positions never seen count
// as misses, so it is a slight underestimate).
func ceiling(r game.Rules, players []train.Player, games []train.Game, start time.Time) train.Ratio {
	counts := map[game.Key]map[game.Cell]int{}
	for _, g := range train.SimulatePlayers(r, 50000, players, start, 99) {
		p := game.NewPosition(r)
		for _, c := range g.Moves {
			if counts[p.Key()] == nil {
				counts[p.Key()] = map[game.Cell]int{}
			}
			counts[p.Key()][c]++
			p = p.Apply(c)
		}
	}
	var out train.Ratio
	for _, g := range games {
		p := game.NewPosition(r)
		for _, c := range g.Moves {
			best, most := game.Cell(0), -1
			for m, n := range counts[p.Key()] {
				if n > most || n == most && m < best {
					best, most = m, n
				}
			}
			out.Den++
			if most >= 0 && best == c {
				out.Num++
			}
			p = p.Apply(c)
		}
	}
	return out
}

// liveTop1 is the live model's human top-1 on games, from the weights in
// the registry (an evaluation that shares nothing with the report).
func liveTop1(t *testing.T, store *persistence.Store, r game.Rules, games []train.Game) (train.Ratio, int64) {
	t.Helper()
	m, blob, err := store.LoadModel(context.Background(), r.String(), 0)
	if err != nil {
		t.Fatal(err)
	}
	n, _, err := nn.UnmarshalFor(blob, r)
	if err != nil {
		t.Fatal(err)
	}
	return train.HumanAccuracy(n, games), m.Version
}

// retrainJSON runs "bot retrain -json" with args and decodes the report.
func retrainJSON(t *testing.T, args ...string) retrain.Report {
	t.Helper()
	res := runFixed(t, "", append([]string{"retrain", "-json", "-rules", "3x3k3"}, args...)...)
	var rep retrain.Report
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil || res.code != exitOK {
		t.Fatalf("retrain: exit %d (%v)\nstdout:\n%s\nstderr:\n%s", res.code, err, res.stdout, res.stderr)
	}
	return rep
}

// holdoutOf returns the report's held-out set named name.
func holdoutOf(rep retrain.Report, name string) train.HoldoutResult {
	for _, h := range rep.Holdout {
		if h.Name == name {
			return h
		}
	}
	return train.HoldoutResult{}
}

// TestRetrainPoison is the learning loop's scenario, through "bot
// retrain" against a real redis-server: a server's regulars teach the
// human head; two accounts then flood the corpus with 7,500 games (one
// always plays a worst move, the other at random, 3:1 against the
// regular games), and the live human head's top-1 on the regulars' games
// falls by at most half a point; then the whole population changes its
// style, and humanlike follows.
func TestRetrainPoison(t *testing.T) {
	if raceDetector || testing.Short() {
		t.Skip("trains three full 3x3 networks: run without -race and -short (.ci/run does)")
	}
	srv := redistest.Start(t)
	t.Setenv("REDIS_URL", srv.Addr())
	store := persistence.New(redistest.Client(t, srv), persistence.Options{})
	r, err := game.ParseRules("3x3k3")
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	regulars := regularPlayers("regular", 0)
	corpus := train.SimulatePlayers(r, 2500, regulars, t0, 11)
	// Games of the same people that no run ever sees.
	fresh := train.SimulatePlayers(r, 1000, regulars, t0.Add(-1000*time.Minute), 21)
	importFile := func(path string) {
		t.Helper()
		if res := runFixed(t, "", "corpus", "import", path); res.code != exitOK {
			t.Fatalf("import: exit %d: %s%s", res.code, res.stdout, res.stderr)
		}
	}

	// 1. The regulars.
	path, byID := writeCorpus(t, r, "regular", corpus)
	importFile(path)
	rep := retrainJSON(t)
	if rep.Outcome != retrain.OutcomePromoted {
		t.Fatalf("the regulars' model was not promoted: %s", rep.Reason)
	}
	base, v1 := liveTop1(t, store, r, fresh)
	held := holdoutOf(rep, retrain.SetHeldOut)
	var heldGames []train.Game
	for id, g := range byID {
		if retrain.HeldOut(id) {
			heldGames = append(heldGames, g)
		}
	}
	again, _ := liveTop1(t, store, r, heldGames)
	t.Logf("regulars: version %d, held-out %v (report) %v (the published weights), fresh games %v; train top-1 %.3f, held-out per epoch %.3f",
		v1, held.Net.HumanTop1, again, base, rep.Epochs[len(rep.Epochs)-1].HumanAcc, rep.Epochs[len(rep.Epochs)-1].ValidHumanAcc)
	if held.Games != len(heldGames) || held.Net.HumanTop1 != again {
		t.Errorf("the report's held-out figure %v (%d games) is not the published weights' %v (%d games)", held.Net.HumanTop1, held.Games, again, len(heldGames))
	}
	if d := held.Net.HumanTop1.Float() - base.Float(); d > 0.02 || d < -0.02 {
		t.Errorf("held-out %v and fresh games %v differ by more than 2 points", held.Net.HumanTop1, base)
	}
	best := ceiling(r, regulars, fresh, t0)
	t.Logf("the best possible top-1 on these players' fresh games: about %v", best)
	if base.Float() < best.Float()-0.03 {
		t.Errorf("the regulars' human top-1 is %v, more than 3 points below the best possible %v", base, best)
	}
	if ep := rep.Epochs[len(rep.Epochs)-1]; ep.ValidHumanAcc < 0 || ep.ValidPolicyAcc < 0 {
		t.Errorf("no held-out figures per epoch: %+v", ep)
	}

	// 2. The flood.
	trolls := []train.Player{{Name: "troll-worst", Style: train.Style{Worst: true}}, {Name: "troll-random", Style: train.Style{Blunder: 1}}}
	poison := train.SimulatePlayers(r, 7500, trolls, t0.Add(2500*time.Minute), 12)
	path, _ = writeCorpus(t, r, "flood", poison)
	importFile(path)
	rep = retrainJSON(t)
	after, v2 := liveTop1(t, store, r, fresh)
	t.Logf("flood: %s; players %+v; live version %d, fresh games %v (was %v)", rep.Reason, rep.Players, v2, after, base)
	if rep.Players == nil || rep.Players.FarWorse != 1 || rep.Players.Bounded < 2 {
		t.Errorf("players %+v: want the saboteur found far worse and both accounts bounded", rep.Players)
	}
	if after.Float() < base.Float()-0.005 {
		t.Errorf("after the flood the live human head predicts %v of the regulars' moves, down from %v: more than half a point", after, base)
	}
	if g := rep.Gate; g == nil || g.Human == nil || g.Decided == "" {
		t.Errorf("gate %+v", rep.Gate)
	}

	// 2b. The gate stands behind the bound: the same corpus trained with
	// no per-player bound gives a candidate that predicts the regulars
	// worse, and the gate refuses it on the reference set.
	cfg := retrainConfig(retrainSettings{})
	cfg.Train.MaxPlayerShare = -1
	cfg.Gate.Games = 100
	unbounded, err := retrain.New(store, cfg).Run(context.Background(), retrain.Request{Rules: r, Force: true, Trigger: retrain.TriggerCLI}, nil)
	if err != nil {
		t.Fatal(err)
	}
	still, v := liveTop1(t, store, r, fresh)
	t.Logf("no bound: %s; reference set %+v; human gate %+v", unbounded.Reason, holdoutOf(unbounded, retrain.SetReference), unbounded.Gate.Human)
	if _, blob, err := store.LoadCandidate(context.Background(), r.String()); err == nil {
		if n, _, err := nn.UnmarshalFor(blob, r); err == nil {
			t.Logf("the unbounded candidate predicts %v of the regulars' fresh moves (the live model %v)", train.HumanAccuracy(n, fresh), after)
		}
	}
	if unbounded.Outcome != retrain.OutcomeRejected || v != v2 || still != after || !strings.Contains(unbounded.Gate.Decided, "on the reference games its human head predicted") {
		t.Errorf("an unbounded candidate: %s (live version %d, was %d)", unbounded.Reason, v, v2)
	}

	// 3. The whole server changes its style: the same people, new habits,
	// 7,500 games. humanlike must follow.
	changed := regularPlayers("regular", 3)
	newStyle := train.SimulatePlayers(r, 7500, changed, t0.Add(10000*time.Minute), 31)
	freshNew := train.SimulatePlayers(r, 1000, changed, t0.Add(20000*time.Minute), 41)
	before, _ := liveTop1(t, store, r, freshNew)
	path, _ = writeCorpus(t, r, "changed", newStyle)
	importFile(path)
	rep = retrainJSON(t)
	followed, v3 := liveTop1(t, store, r, freshNew)
	t.Logf("change of style: %s; live version %d, the new style predicted %v (was %v)", rep.Reason, v3, followed, before)
	bestNew := ceiling(r, changed, freshNew, t0)
	if rep.Outcome != retrain.OutcomePromoted || followed.Float() < bestNew.Float()-0.03 {
		t.Errorf("humanlike did not follow the server's new style: %s; %v, was %v, the best possible about %v", rep.Reason, followed, before, bestNew)
	}
}
