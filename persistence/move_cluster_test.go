package persistence_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

// sessStartCluster starts a three-node Redis Cluster (redistest) and
// returns its seed list for Open.
func sessStartCluster(t *testing.T) string {
	t.Helper()
	return strings.Join(redistest.StartCluster(t), ",")
}

// TestCluster runs the session API on a three-node Redis Cluster: every
// script touches one slot (no CROSSSLOT error), racing clicks still apply
// exactly one move, the one-game rule holds, timeouts apply once, and
// locks and idempotency work, with the games spread over the nodes.
func TestCluster(t *testing.T) {
	seeds := sessStartCluster(t)
	ctx := sessCtx(t)
	rdb, closeFn, err := persistence.Open(ctx, persistence.OpenOptions{URL: seeds})
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	if _, ok := rdb.(*redis.ClusterClient); !ok {
		t.Fatalf("Open(%q) gave a %T, want a cluster client", seeds, rdb)
	}
	clk := newTestClock()
	store := persistence.New(rdb, persistence.Options{Now: clk.Now})

	const games = 200
	ids := make([]persistence.GameID, games)
	for i := range ids {
		g := testClocked(30 * time.Second)
		g.Players = [2]persistence.Seat{{User: fmt.Sprintf("x%d", i)}, {User: fmt.Sprintf("o%d", i)}}
		created, err := store.CreateGame(ctx, fmt.Sprintf("%d", 1000+i), g)
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = created.ID
	}
	// The one-game rule reads the player's other game inside the script.
	if _, err := store.CreateGame(ctx, "1000", sessHumanGame("x0", "someone")); !errors.Is(err, persistence.ErrBusy) {
		t.Fatalf("second game for x0: %v, want ErrBusy", err)
	}
	var wg sync.WaitGroup
	applied := make([]atomic.Int32, games)
	for i := range games {
		for k := range 2 {
			wg.Go(func() {
				_, err := store.Play(ctx, ids[i], 1, fmt.Sprintf("x%d", i), sessCell(k, k))
				switch {
				case err == nil:
					applied[i].Add(1)
				case !errors.Is(err, persistence.ErrConflict):
					t.Error(err)
				}
			})
		}
	}
	wg.Wait()
	for i := range applied {
		n := applied[i].Load()
		g, err := store.Game(ctx, ids[i])
		if err != nil || n != 1 || g.Version != 2 || len(g.Moves) != 1 {
			t.Fatalf("game %d: %d applied; reloaded %+v, %v", i, n, g, err)
		}
	}
	// The racing clicks were coalesced into pipelines across the nodes.
	t.Logf("%d pipelines of racing clicks", persistence.PipelinesForTest(store))
	clk.Advance(31 * time.Second)
	timedOut := 0
	for {
		got, err := store.Sweep(ctx, 50)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			break
		}
		timedOut += len(got)
	}
	if timedOut != games {
		t.Fatalf("%d games timed out, want %d", timedOut, games)
	}
	l, err := store.AcquireLock(ctx, "train", "job", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.ReleaseLock(ctx, l); err != nil {
		t.Fatal(err)
	}
	if ok, err := store.FirstDelivery(ctx, "i1", 0); !ok || err != nil {
		t.Fatalf("FirstDelivery: %v, %v", ok, err)
	}
	// The games are spread over the nodes.
	cc := rdb.(*redis.ClusterClient)
	var mu sync.Mutex
	var perNode []int64
	err = cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
		n, err := c.DBSize(ctx).Result()
		mu.Lock()
		perNode = append(perNode, n)
		mu.Unlock()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	busy := 0
	for _, n := range perNode {
		if n > 10 {
			busy++
		}
	}
	if busy < 3 {
		t.Errorf("keys per node %v; want the games spread over all three", perNode)
	}
}
