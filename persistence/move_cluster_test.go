package persistence_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tttbot/ttt-bot/persistence"
)

// startCluster starts a three-node Redis Cluster (no replicas) on loopback
// and returns its seed list for Open. Like redistest, it skips when
// redis-server is missing, except under CI=true.
func sessStartCluster(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and redis-server is missing: %v", err)
		}
		t.Skipf("redis-server is missing: %v", err)
	}
	ctx := sessCtx(t)
	var addrs []string
	var clients []*redis.Client
	for i := range 3 {
		port := sessClusterPort(t)
		dir := filepath.Join(t.TempDir(), strconv.Itoa(i))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--dir", dir,
			"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "5000",
			"--save", "", "--appendonly", "no", "--daemonize", "no", "--logfile", filepath.Join(dir, "redis.log"))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		c := redis.NewClient(&redis.Options{Addr: addr})
		t.Cleanup(func() { _ = c.Close() })
		for c.Ping(ctx).Err() != nil {
			if ctx.Err() != nil {
				t.Fatalf("cluster node %s did not come up", addr)
			}
			time.Sleep(20 * time.Millisecond)
		}
		addrs, clients = append(addrs, addr), append(clients, c)
	}
	for i, c := range clients {
		lo, hi := int64(i*16384/3), int64((i+1)*16384/3-1)
		if err := c.ClusterAddSlotsRange(ctx, int(lo), int(hi)).Err(); err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range addrs[1:] {
		host, port, _ := net.SplitHostPort(a)
		if err := clients[0].ClusterMeet(ctx, host, port).Err(); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range clients {
		for !strings.Contains(c.ClusterInfo(ctx).Val(), "cluster_state:ok") {
			if ctx.Err() != nil {
				t.Fatal("the cluster did not reach state ok")
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return strings.Join(addrs, ",")
}

// clusterPort returns a free port whose cluster bus port (+10000) is free too.
func sessClusterPort(t *testing.T) int {
	for range 100 {
		p := 20000 + rand.IntN(30000)
		a, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			continue
		}
		b, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p+10000)))
		a.Close()
		if err != nil {
			continue
		}
		b.Close()
		return p
	}
	t.Fatal("no free port pair")
	return 0
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
	clk := newSessClock()
	store := persistence.New(rdb, persistence.Options{Now: clk.Now})

	const games = 200
	ids := make([]persistence.GameID, games)
	for i := range ids {
		g := sessClocked(30 * time.Second)
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
