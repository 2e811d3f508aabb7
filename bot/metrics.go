package bot

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Registry is a small set of metrics (counters, gauges and histograms with
// label sets) written in the Prometheus text exposition format, version
// 0.0.4. It is safe for concurrent use; a zero Registry is not usable, make
// one with NewRegistry.
type Registry struct {
	mu   sync.Mutex
	fams []*family
}

// NewRegistry returns an empty Registry.
func NewRegistry() *Registry { return &Registry{} }

// Metric types of the text format.
const (
	typeCounter   = "counter"
	typeGauge     = "gauge"
	typeHistogram = "histogram"
)

// family is one metric name with its series, one per label value tuple.
type family struct {
	name, help, typ string
	labels          []string
	buckets         []float64      // histograms only, ascending, without +Inf
	fn              func() float64 // gauge funcs only

	mu     sync.Mutex
	series map[string]*series // by label values joined with \xff
}

// series is the state of one label value tuple.
type series struct {
	values []string
	value  float64  // counters and gauges
	counts []uint64 // histograms: per bucket, not cumulative; last is +Inf
	sum    float64
	count  uint64
}

// add registers a family; a name used twice is a programming error.
func (r *Registry) add(f *family) *family {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, g := range r.fams {
		if g.name == f.name {
			panic(fmt.Sprintf("bot: metric %q registered twice", f.name))
		}
	}
	f.series = map[string]*series{}
	r.fams = append(r.fams, f)
	return f
}

// get returns the series of values, creating it.
func (f *family) get(values []string) *series {
	if len(values) != len(f.labels) {
		panic(fmt.Sprintf("bot: metric %s takes %d label values, got %d", f.name, len(f.labels), len(values)))
	}
	key := strings.Join(values, "\xff")
	s, ok := f.series[key]
	if !ok {
		s = &series{values: slices.Clone(values)}
		if f.typ == typeHistogram {
			s.counts = make([]uint64, len(f.buckets)+1)
		}
		f.series[key] = s
	}
	return s
}

// Counter is a counter family: a value per label tuple that only goes up.
type Counter struct{ f *family }

// Counter registers a counter; its name should end in _total.
func (r *Registry) Counter(name, help string, labels ...string) *Counter {
	return &Counter{r.add(&family{name: name, help: help, typ: typeCounter, labels: labels})}
}

// Add adds v (>= 0) to the series of the label values.
func (c *Counter) Add(v float64, values ...string) {
	if v < 0 {
		return
	}
	c.f.mu.Lock()
	c.f.get(values).value += v
	c.f.mu.Unlock()
}

// Inc adds 1 to the series of the label values.
func (c *Counter) Inc(values ...string) { c.Add(1, values...) }

// Gauge is a gauge family: a value per label tuple that goes up and down.
type Gauge struct{ f *family }

// Gauge registers a gauge.
func (r *Registry) Gauge(name, help string, labels ...string) *Gauge {
	return &Gauge{r.add(&family{name: name, help: help, typ: typeGauge, labels: labels})}
}

// Set sets the series of the label values to v.
func (g *Gauge) Set(v float64, values ...string) {
	g.f.mu.Lock()
	g.f.get(values).value = v
	g.f.mu.Unlock()
}

// Add adds v (which may be negative) to the series of the label values.
func (g *Gauge) Add(v float64, values ...string) {
	g.f.mu.Lock()
	g.f.get(values).value += v
	g.f.mu.Unlock()
}

// GaugeFunc registers an unlabelled gauge whose value is read from fn at
// every scrape; fn must be fast and safe for concurrent use.
func (r *Registry) GaugeFunc(name, help string, fn func() float64) {
	r.add(&family{name: name, help: help, typ: typeGauge, fn: fn})
}

// Histogram is a histogram family: observations counted in buckets, with
// their sum and count, per label tuple.
type Histogram struct{ f *family }

// Histogram registers a histogram with the given upper bounds (sorted and
// deduplicated here; +Inf is implicit).
func (r *Registry) Histogram(name, help string, buckets []float64, labels ...string) *Histogram {
	b := slices.Clone(buckets)
	slices.Sort(b)
	b = slices.Compact(b)
	if n := len(b); n > 0 && math.IsInf(b[n-1], 1) {
		b = b[:n-1]
	}
	return &Histogram{r.add(&family{name: name, help: help, typ: typeHistogram, labels: labels, buckets: b})}
}

// Observe records v in the series of the label values.
func (h *Histogram) Observe(v float64, values ...string) {
	i, _ := slices.BinarySearch(h.f.buckets, v) // first bound >= v
	h.f.mu.Lock()
	s := h.f.get(values)
	s.counts[i]++
	s.sum += v
	s.count++
	h.f.mu.Unlock()
}

// WriteTo writes every metric in the text exposition format, families in
// registration order and series sorted by label values.
func (r *Registry) WriteTo(w io.Writer) (int64, error) {
	r.mu.Lock()
	fams := slices.Clone(r.fams)
	r.mu.Unlock()
	cw := &countWriter{w: bufio.NewWriter(w)}
	for _, f := range fams {
		f.write(cw)
	}
	if cw.err == nil {
		cw.err = cw.w.Flush()
	}
	return cw.n, cw.err
}

// ContentType is the media type of WriteTo's output.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// ServeHTTP answers a scrape with WriteTo's output.
func (r *Registry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", ContentType)
	_, _ = r.WriteTo(w) // a scraper that hung up has nothing to be told
}

// write writes one family.
func (f *family) write(w *countWriter) {
	w.printf("# HELP %s %s\n# TYPE %s %s\n", f.name, escapeHelp(f.help), f.name, f.typ)
	if f.fn != nil {
		w.printf("%s %s\n", f.name, formatFloat(f.fn()))
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	keys := make([]string, 0, len(f.series))
	for k := range f.series {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		s := f.series[k]
		if f.typ != typeHistogram {
			w.printf("%s%s %s\n", f.name, labelText(f.labels, s.values, "", ""), formatFloat(s.value))
			continue
		}
		var cum uint64
		for i, c := range s.counts {
			cum += c
			le := "+Inf"
			if i < len(f.buckets) {
				le = formatFloat(f.buckets[i])
			}
			w.printf("%s_bucket%s %d\n", f.name, labelText(f.labels, s.values, "le", le), cum)
		}
		lt := labelText(f.labels, s.values, "", "")
		w.printf("%s_sum%s %s\n%s_count%s %d\n", f.name, lt, formatFloat(s.sum), f.name, lt, s.count)
	}
}

// labelText renders {a="x",b="y"} with an extra label if name is set, or ""
// when there are no labels.
func labelText(names, values []string, extra, extraValue string) string {
	if len(names) == 0 && extra == "" {
		return ""
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s=\"%s\"", n, escapeLabel(values[i]))
	}
	if extra != "" {
		if len(names) > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s=\"%s\"", extra, escapeLabel(extraValue))
	}
	b.WriteByte('}')
	return b.String()
}

var (
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
)

func escapeHelp(s string) string  { return helpEscaper.Replace(s) }
func escapeLabel(s string) string { return labelEscaper.Replace(s) }

// formatFloat formats v as the text format wants it.
func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// countWriter counts bytes and keeps the first error.
type countWriter struct {
	w   *bufio.Writer
	n   int64
	err error
}

func (c *countWriter) printf(format string, a ...any) {
	if c.err != nil {
		return
	}
	n, err := fmt.Fprintf(c.w, format, a...)
	c.n += int64(n)
	c.err = err
}
