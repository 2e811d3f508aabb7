package main

import (
	"net"
	"os"
	"strings"
	"testing"
)

// TestOpsAddrDefault pins where /metrics, /healthz and /readyz listen. On
// a host that runs the binary directly (.env.example) they bind loopback
// only, so the metrics are not public; inside a container (the image, and
// every bot service of compose.yaml) they bind every interface of the
// container's own network, set explicitly there. With OPS_ADDR unset the
// code serves none: it has no default address of its own.
func TestOpsAddrDefault(t *testing.T) {
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile("../../" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	t.Run(".env.example", func(t *testing.T) {
		var addr string
		found := false
		for _, line := range strings.Split(read(".env.example"), "\n") {
			if v, ok := strings.CutPrefix(line, "OPS_ADDR="); ok {
				addr, found = strings.TrimSpace(v), true
			}
		}
		if !found {
			t.Fatal(".env.example does not set OPS_ADDR")
		}
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			t.Fatalf("OPS_ADDR=%q: %v", addr, err)
		}
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			t.Errorf("OPS_ADDR=%q binds %q; outside a container it must bind loopback (127.0.0.1:9090)", addr, host)
		}
	})

	t.Run("Dockerfile", func(t *testing.T) {
		if !strings.Contains(read("Dockerfile"), "\nENV OPS_ADDR=:9090\n") {
			t.Error("the Dockerfile does not set OPS_ADDR=:9090 for the container's network")
		}
	})

	t.Run("compose.yaml", func(t *testing.T) {
		// Each service is a block of lines under "  name:"; a bot service
		// is built from this repository.
		services := map[string][]string{}
		var cur string
		for _, line := range strings.Split(read("compose.yaml"), "\n") {
			if strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   ") && strings.Contains(line, ":") {
				cur, _, _ = strings.Cut(strings.TrimSpace(line), ":")
			}
			if !strings.HasPrefix(line, " ") {
				cur = ""
			}
			if cur != "" {
				services[cur] = append(services[cur], strings.TrimSpace(line))
			}
		}
		bots := 0
		for name, lines := range services {
			block := "\n" + strings.Join(lines, "\n") + "\n"
			if !strings.Contains(block, "\nbuild: .\n") {
				continue
			}
			bots++
			if !strings.Contains(block, "\nOPS_ADDR: \":9090\"\n") {
				t.Errorf("compose service %s takes OPS_ADDR from .env (loopback: unreachable from the compose network); set OPS_ADDR: \":9090\" in its environment", name)
			}
		}
		if bots < 2 {
			t.Errorf("found %d bot services in compose.yaml, want the gateway one and the http one", bots)
		}
	})

	t.Run("unset", func(t *testing.T) {
		c, err := loadServeConfig(func(k string) string {
			return map[string]string{"DISCORD_TOKEN": "tok"}[k]
		})
		if err != nil {
			t.Fatal(err)
		}
		if c.opsAddr != "" {
			t.Errorf("OPS_ADDR unset serves ops on %q, want none", c.opsAddr)
		}
	})
}
