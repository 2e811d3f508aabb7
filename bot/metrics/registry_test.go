package metrics_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tttbot/ttt-bot/bot/metrics"
	"github.com/tttbot/ttt-bot/bot/metrics/metricstest"
)

func TestMetricRegistryExposition(t *testing.T) {
	reg := metrics.NewRegistry()
	c := reg.Counter("x_total", "Things.\nWith a second line and a \\.", "kind", "outcome")
	g := reg.Gauge("x_in_flight", "Now.")
	reg.GaugeFunc("x_answer", "Always 42.", func() float64 { return 42 })
	h := reg.Histogram("x_seconds", "Durations.", []float64{1, 0.1, 0.5, 0.5, math.Inf(1)}, "level")
	reg.Counter("x_unused_total", "Never incremented.")

	c.Inc("a", "ok")
	c.Add(2.5, "a", "ok")
	c.Add(-1, "a", "ok") // ignored: counters only go up
	c.Inc(`we"ird\`+"\n", "error")
	g.Add(3)
	g.Add(-1)
	for _, v := range []float64{0.05, 0.1, 0.3, 2, 0.7} {
		h.Observe(v, "perfect")
	}
	h.Observe(0.2, "easy")

	var b strings.Builder
	n, err := reg.WriteTo(&b)
	if err != nil || int(n) != b.Len() {
		t.Fatalf("WriteTo = %d, %v; wrote %d bytes", n, err, b.Len())
	}
	samples, types := metricstest.Parse(t, b.String())
	// A family without a series (x_unused_total) is not exposed, as
	// client_golang does; the standard collectors' families are.
	want := map[string]string{"x_total": "counter", "x_in_flight": "gauge", "x_answer": "gauge",
		"x_seconds": "histogram", "go_goroutines": "gauge", "go_memstats_heap_inuse_bytes": "gauge",
		"process_resident_memory_bytes": "gauge"}
	for name, typ := range want {
		if types[name] != typ {
			t.Errorf("type of %s = %q, want %q", name, types[name], typ)
		}
	}
	for _, tt := range []struct {
		name string
		kv   []string
		want float64
	}{
		{"x_total", []string{"kind", "a", "outcome", "ok"}, 3.5},
		{"x_total", []string{"kind", `we"ird\` + "\n", "outcome", "error"}, 1},
		{"x_in_flight", nil, 2},
		{"x_answer", nil, 42},
		{"x_seconds_bucket", []string{"level", "perfect", "le", "0.1"}, 2}, // bounds are inclusive
		{"x_seconds_bucket", []string{"level", "perfect", "le", "0.5"}, 3},
		{"x_seconds_bucket", []string{"level", "perfect", "le", "1"}, 4},
		{"x_seconds_bucket", []string{"level", "perfect", "le", "+Inf"}, 5},
		{"x_seconds_count", []string{"level", "perfect"}, 5},
		{"x_seconds_sum", []string{"level", "perfect"}, 3.15},
		{"x_seconds_bucket", []string{"level", "easy", "le", "0.1"}, 0},
		{"x_seconds_count", []string{"level", "easy"}, 1},
	} {
		t.Run(fmt.Sprint(tt.name, tt.kv), func(t *testing.T) {
			got, ok := metricstest.Find(samples, tt.name, tt.kv...)
			if !ok || math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("got %v (present %v), want %v\n%s", got, ok, tt.want, b.String())
			}
		})
	}
	if strings.Count(b.String(), "x_seconds_bucket{level=\"perfect\"") != 4 {
		t.Errorf("want 4 buckets (0.1, 0.5, 1, +Inf) per series:\n%s", b.String())
	}
}

func TestMetricRegistryServeHTTP(t *testing.T) {
	reg := metrics.NewRegistry()
	metrics.New(reg).RedisError("get")
	for _, tt := range []struct {
		method string
		status int
	}{{http.MethodGet, 200}, {http.MethodPost, 405}} {
		rec := httptest.NewRecorder()
		reg.ServeHTTP(rec, httptest.NewRequest(tt.method, "/metrics", nil))
		if rec.Code != tt.status {
			t.Fatalf("%s /metrics = %d, want %d", tt.method, rec.Code, tt.status)
		}
		if tt.status == 200 {
			if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
				t.Errorf("Content-Type %q", ct)
			}
			samples, _ := metricstest.Parse(t, rec.Body.String())
			if v, ok := metricstest.Find(samples, "ttt_redis_errors_total", "command", "get"); !ok || v != 1 {
				t.Errorf("redis errors %v %v:\n%s", v, ok, rec.Body.String())
			}
		}
	}
}

func TestMetricRegistryTwice(t *testing.T) {
	reg := metrics.NewRegistry()
	reg.Counter("a_total", "A.")
	defer func() {
		if recover() == nil {
			t.Fatal("registering a name twice did not panic")
		}
	}()
	reg.Gauge("a_total", "A again.")
}

func BenchmarkHistogramObserve(b *testing.B) {
	h := metrics.NewRegistry().Histogram("b_seconds", "B.", []float64{.001, .01, .1, 1, 10}, "level")
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			h.Observe(0.05, "perfect")
		}
	})
}

func ExampleRegistry() {
	reg := metrics.NewRegistry()
	moves := reg.Counter("moves_total", "Moves played, by side.", "side")
	moves.Inc("x")
	moves.Add(2, "o")
	var b strings.Builder
	_, _ = reg.WriteTo(&b)
	// The Go runtime's and the process's families come too; show ours.
	for line := range strings.Lines(b.String()) {
		if strings.Contains(line, "moves_total") {
			fmt.Print(line)
		}
	}
	// Output:
	// # HELP moves_total Moves played, by side.
	// # TYPE moves_total counter
	// moves_total{side="o"} 2
	// moves_total{side="x"} 1
}

// FuzzLabelValue checks that any label value survives the text format:
// the output parses and gives the value back.
func FuzzLabelValue(f *testing.F) {
	for _, s := range []string{"", "ok", `a"b`, `back\slash`, "new\nline", "ü ☃", `\n`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if !utf8.ValidString(v) {
			t.Skip("label values are UTF-8")
		}
		reg := metrics.NewRegistry()
		reg.Counter("f_total", "F.", "v").Inc(v)
		var b strings.Builder
		if _, err := reg.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		samples, _ := metricstest.Parse(t, b.String())
		if got, ok := metricstest.Find(samples, "f_total", "v", v); !ok || got != 1 {
			t.Fatalf("value %q did not round-trip:\n%s", v, b.String())
		}
	})
}

// TestRefreshActiveGames checks that ttt_active_games follows the count,
// keeps its last value when a count fails, and that the refresher stops
// with its context.
func TestRefreshActiveGames(t *testing.T) {
	reg := metrics.NewRegistry()
	m := metrics.New(reg)
	counts := []struct {
		n   int64
		err error
	}{{3, nil}, {5, nil}, {0, errors.New("redis: down")}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls int
	var failures []error
	seen := make(chan float64, len(counts))
	done := make(chan struct{})
	go func() {
		defer close(done)
		m.RefreshActiveGames(ctx, time.Millisecond, func(cctx context.Context) (int64, error) {
			if _, ok := cctx.Deadline(); !ok {
				t.Error("the count has no deadline")
			}
			if calls > 0 { // the gauge as the previous call left it
				var b strings.Builder
				_, _ = reg.WriteTo(&b)
				v, _ := metricstest.Find(metricstest.MustParse(t, b.String()), "ttt_active_games")
				seen <- v
			}
			if calls == len(counts) {
				cancel()
				return 0, context.Canceled
			}
			c := counts[calls]
			calls++
			return c.n, c.err
		}, func(err error) { failures = append(failures, err) })
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("RefreshActiveGames did not stop with its context")
	}
	close(seen)
	var got []float64
	for v := range seen {
		got = append(got, v)
	}
	if want := []float64{3, 5, 5}; !slices.Equal(got, want) {
		t.Errorf("gauge after each count = %v, want %v", got, want)
	}
	if len(failures) != 1 {
		t.Errorf("failures reported: %v, want the one failed count", failures)
	}
}
