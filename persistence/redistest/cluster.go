package redistest

import (
	"context"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// StartCluster starts a three-node Redis Cluster (no replicas) on loopback,
// each node in its own temporary directory, waits until every node reports
// cluster_state:ok, and returns the nodes' addresses (seeds for a
// redis.ClusterClient or persistence.Open). The nodes are killed when the
// test ends. Like Start, it skips when redis-server is missing, except under
// CI=true, where it fails.
func StartCluster(t testing.TB) []string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("redistest: CI=true and redis-server is missing: %v", err)
		}
		t.Skipf("redistest: redis-server is missing (install it to run this test): %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var addrs []string
	var nodes []*redis.Client
	for i := range 3 {
		port := clusterPort(t)
		dir := filepath.Join(t.TempDir(), strconv.Itoa(i))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--dir", dir,
			"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "5000",
			"--save", "", "--appendonly", "no", "--daemonize", "no", "--logfile", filepath.Join(dir, "redis.log"))
		if err := cmd.Start(); err != nil {
			t.Fatalf("redistest: starting a cluster node: %v", err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		c := redis.NewClient(&redis.Options{Addr: addr})
		t.Cleanup(func() { _ = c.Close() })
		for c.Ping(ctx).Err() != nil {
			if ctx.Err() != nil {
				t.Fatalf("redistest: cluster node %s did not come up", addr)
			}
			time.Sleep(20 * time.Millisecond)
		}
		addrs, nodes = append(addrs, addr), append(nodes, c)
	}
	for i, c := range nodes {
		if err := c.ClusterAddSlotsRange(ctx, i*16384/3, (i+1)*16384/3-1).Err(); err != nil {
			t.Fatalf("redistest: assigning slots: %v", err)
		}
	}
	for _, a := range addrs[1:] {
		host, port, _ := net.SplitHostPort(a)
		if err := nodes[0].ClusterMeet(ctx, host, port).Err(); err != nil {
			t.Fatalf("redistest: joining the cluster: %v", err)
		}
	}
	for _, c := range nodes {
		for !strings.Contains(c.ClusterInfo(ctx).Val(), "cluster_state:ok") {
			if ctx.Err() != nil {
				t.Fatal("redistest: the cluster did not reach state ok")
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return addrs
}

// clusterPort returns a free port whose cluster bus port (+10000) is free too.
func clusterPort(t testing.TB) int {
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
	t.Fatal("redistest: no free port pair for a cluster node")
	return 0
}
