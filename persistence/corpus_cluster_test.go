package persistence_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

// corpusStartCluster starts a three-node Redis Cluster (redistest) and
// returns a client for it once it answers.
func corpusStartCluster(t *testing.T) *redis.ClusterClient {
	t.Helper()
	ctx := corpusCtx(t)
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: redistest.StartCluster(t)})
	t.Cleanup(func() { _ = rdb.Close() })
	for rdb.Ping(ctx).Err() != nil {
		if ctx.Err() != nil {
			t.Fatal("the cluster client did not connect")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return rdb
}

// TestCorpusRatingsModelsCluster runs the corpus, ratings and model
// registry on a three-node Cluster: no script crosses slots (guild and
// global stats live in different slots), and pub/sub reaches a second
// Store.
func TestCorpusRatingsModelsCluster(t *testing.T) {
	rdb := corpusStartCluster(t)
	ctx := corpusCtx(t)
	clk := newTestClock()
	o := persistence.Options{Now: clk.Now, PseudonymKey: corpusTestKey, ModelVersionsKept: 1}
	store := persistence.New(rdb, o)
	other := persistence.New(rdb, o)

	events, err := other.SubscribeModels(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// Ratings and corpus: games in many guilds (many slots), each reported twice.
	for i := range 30 {
		g := corpusGame(t, fmt.Sprint("c", i), fmt.Sprint("guild", i%10), "100", fmt.Sprint(200+i%3))
		if i%4 == 0 {
			g.O = persistence.Player{AI: "perfect"}
		}
		for range 2 {
			if err := store.RecordGame(ctx, g); err != nil {
				t.Fatalf("RecordGame %s: %v", g.ID, err)
			}
		}
	}
	x, _ := game.NewXOX(4, 3)
	xg := persistence.FinishedGame{ID: "x", Rules: x, Moves: corpusCells(t, x, "0 0", "0 1", "0 2"), Result: game.XWins,
		X: persistence.Player{AI: "perfect"}, O: persistence.Player{AI: "random"}}
	if _, _, err := store.AppendGame(ctx, xg); err != nil {
		t.Fatal(err)
	}
	st, err := store.Stats(ctx, "", "100")
	if err != nil || st.Games != 30 || st.Wins != 30 || st.VsAI["perfect"].Wins != 8 {
		t.Fatalf("global stats %+v, %v", st, err)
	}
	if st, err := store.Stats(ctx, "guild3", "100"); err != nil || st.Games != 3 {
		t.Fatalf("guild3 stats %+v, %v", st, err)
	}
	if r, err := store.Rank(ctx, "", "100"); err != nil || r.Rank != 1 {
		t.Fatalf("rank %+v, %v", r, err)
	}
	sum, err := store.CorpusSummary(ctx)
	if err != nil || len(sum) != 2 || sum[0].Count != 30 || sum[1].Count != 1 {
		t.Fatalf("CorpusSummary %+v, %v", sum, err)
	}
	var buf bytes.Buffer
	if rep, err := store.ExportCorpus(ctx, &buf, "3x3k3"); err != nil || rep.Records != 30 {
		t.Fatalf("export %+v, %v", rep, err)
	}
	b, err := store.ReadNew(ctx, "3x3k3", "job", 10)
	if err != nil || len(b.Records) != 10 {
		t.Fatalf("ReadNew: %d, %v", len(b.Records), err)
	}
	if err := store.AdvanceCheckpoint(ctx, "3x3k3", "job", b.Last); err != nil {
		t.Fatal(err)
	}
	if err := store.DeleteUserStats(ctx, "100"); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Stats(ctx, "guild3", "100"); err == nil {
		t.Fatal("stats survived DeleteUserStats")
	}

	// Models: publish three (one earlier version kept), roll back, load.
	for v := range 3 {
		if _, err := store.PublishModel(ctx, "3x3k3", persistence.ModelMeta{}, modelBlob(byte(v), 1000)); err != nil {
			t.Fatal(err)
		}
	}
	if m, err := store.RollbackModel(ctx, "3x3k3"); err != nil || m.Version != 2 {
		t.Fatalf("rollback %+v, %v", m, err)
	}
	if _, blob, err := other.LoadModel(ctx, "3x3k3", 0); err != nil || !bytes.Equal(blob, modelBlob(1, 1000)) {
		t.Fatalf("load: %v", err)
	}
	if ms, cur, err := other.ModelVersions(ctx, "3x3k3"); err != nil || len(ms) != 2 || cur != 2 {
		t.Fatalf("versions %d, current %d, %v", len(ms), cur, err)
	}
	for _, want := range []int64{1, 2, 3, 2} {
		if ev := nextEvent(t, events, 5*time.Second); ev.Version != want {
			t.Fatalf("event %+v; want version %d", ev, want)
		}
	}
}
