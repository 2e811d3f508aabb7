package metrics

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/expfmt"
)

// Registry is the set of the bot's metrics: a Prometheus registry
// (client_golang) with the Go runtime's and the process's standard
// collectors (go_*, process_*), and small typed handles for the bot's own
// counters, gauges and histograms with label sets. It is safe for
// concurrent use; make one with NewRegistry.
type Registry struct {
	prom *prometheus.Registry
}

// NewRegistry returns a registry holding the standard Go and
// process collectors.
func NewRegistry() *Registry {
	r := prometheus.NewRegistry()
	r.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return &Registry{prom: r}
}

// Prometheus returns the underlying registry, to register more collectors
// or gather from.
func (r *Registry) Prometheus() *prometheus.Registry { return r.prom }

// register registers c; a name used twice is a programming error.
func (r *Registry) register(name string, c prometheus.Collector) {
	if err := r.prom.Register(c); err != nil {
		panic(fmt.Sprintf("bot: metric %q: %v", name, err))
	}
}

// Counter is a counter family: a value per label tuple that only goes up.
type Counter struct{ v *prometheus.CounterVec }

// Counter registers a counter; its name should end in _total.
func (r *Registry) Counter(name, help string, labels ...string) *Counter {
	v := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	r.register(name, v)
	return &Counter{v}
}

// Add adds v (>= 0; a negative v is ignored) to the series of the label
// values.
func (c *Counter) Add(v float64, values ...string) {
	if v < 0 {
		return
	}
	c.v.WithLabelValues(values...).Add(v)
}

// Inc adds 1 to the series of the label values.
func (c *Counter) Inc(values ...string) { c.v.WithLabelValues(values...).Inc() }

// Gauge is a gauge family: a value per label tuple that goes up and down.
type Gauge struct{ v *prometheus.GaugeVec }

// Gauge registers a gauge.
func (r *Registry) Gauge(name, help string, labels ...string) *Gauge {
	v := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
	r.register(name, v)
	return &Gauge{v}
}

// Set sets the series of the label values to v.
func (g *Gauge) Set(v float64, values ...string) { g.v.WithLabelValues(values...).Set(v) }

// Add adds v (which may be negative) to the series of the label values.
func (g *Gauge) Add(v float64, values ...string) { g.v.WithLabelValues(values...).Add(v) }

// GaugeFunc registers an unlabelled gauge whose value is read from fn at
// every scrape; fn must be fast and safe for concurrent use.
func (r *Registry) GaugeFunc(name, help string, fn func() float64) {
	r.register(name, prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, fn))
}

// Histogram is a histogram family: observations counted in buckets, with
// their sum and count, per label tuple.
type Histogram struct{ v *prometheus.HistogramVec }

// Histogram registers a histogram with the given upper bounds (sorted and
// deduplicated here; +Inf is implicit).
func (r *Registry) Histogram(name, help string, buckets []float64, labels ...string) *Histogram {
	b := slices.Clone(buckets)
	slices.Sort(b)
	b = slices.Compact(b)
	if n := len(b); n > 0 && math.IsInf(b[n-1], 1) {
		b = b[:n-1]
	}
	v := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: b}, labels)
	r.register(name, v)
	return &Histogram{v}
}

// Observe records v in the series of the label values.
func (h *Histogram) Observe(v float64, values ...string) { h.v.WithLabelValues(values...).Observe(v) }

// ContentType is the media type of WriteTo's output: the text format.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// WriteTo writes every metric in the text exposition format (families
// sorted by name, as Prometheus gathers them).
func (r *Registry) WriteTo(w io.Writer) (int64, error) {
	mfs, err := r.prom.Gather()
	if err != nil {
		return 0, err
	}
	cw := &countWriter{w: w}
	enc := expfmt.NewEncoder(cw, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			return cw.n, err
		}
	}
	return cw.n, nil
}

// ServeHTTP answers a scrape (GET or HEAD) with promhttp.
func (r *Registry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	promhttp.HandlerFor(r.prom, promhttp.HandlerOpts{}).ServeHTTP(w, req)
}

// countWriter counts the bytes written.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
