package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The arrival-spread floods: people arriving one by one over a window
// rather than all at once, each thinking a few seconds a move, as a surge
// of players does. BenchmarkFloodSpread plays it on `bot serve` (5x5k4
// against perfect); BenchmarkFloodGomoku (load_gomoku_test.go) brings
// 15x15 gomoku games to the AI queue itself. They run in real time; the
// default run is short, -load.long selects the long one:
//
//	go test -run '^$' -bench '^BenchmarkFloodSpread$' -benchtime=1x -timeout 30m ./cmd/bot/
//	go test -run '^$' -bench '^BenchmarkFloodSpread$' -benchtime=1x -timeout 60m ./cmd/bot/ -load.long
//	go test -run '^$' -bench '^BenchmarkFloodGomoku$' -benchtime=1x -timeout 60m ./cmd/bot/ -load.long
//
// -load.users, -load.window and -load.think change the arrivals and the
// think time of either.
var (
	loadLong   = flag.Bool("load.long", false, "load benchmarks: the long runs of BenchmarkFloodSpread and BenchmarkFloodGomoku (arrivals over 120 s; gomoku games of 30-100 computer moves)")
	loadUsers  = flag.Int("load.users", 0, "BenchmarkFloodSpread and BenchmarkFloodGomoku: the people arriving (default 100 and 24; 400 and 100 with -load.long)")
	loadWindow = flag.Duration("load.window", 0, "BenchmarkFloodSpread and BenchmarkFloodGomoku: the people arrive uniformly over this, from 20s to 120s (default 20s; 120s with -load.long)")
	loadThink  = flag.String("load.think", "2s-8s", "BenchmarkFloodSpread and BenchmarkFloodGomoku: each person's think time before a move, uniform over this range")
)

// spreadSlice is the width of the slices of arrivals refusals are counted in.
const spreadSlice = 10 * time.Second

// spreadSettings returns the arrivals and think times of a spread flood:
// the flags, else the defaults (short and long).
func spreadSettings(tb testing.TB, short, long int) (users int, window, thinkMin, thinkMax time.Duration) {
	tb.Helper()
	users, window = short, 20*time.Second
	if *loadLong {
		users, window = long, 120*time.Second
	}
	if *loadUsers > 0 {
		users = *loadUsers
	}
	if *loadWindow > 0 {
		window = *loadWindow
	}
	lo, hi, err := parseDurationRange(*loadThink)
	if err != nil {
		tb.Fatalf("-load.think: %v", err)
	}
	return users, window, lo, hi
}

// BenchmarkFloodSpread floods one replica with its default settings
// (AI_WORKERS 1 on 2 cores, AI_MAX_WAIT 5 s) with people arriving
// uniformly over a window, each playing one 5x5k4 game against perfect
// and thinking 2-8 s before each click; the 4 bystanders play 3x3 easy
// as in BenchmarkFlood. Besides BenchmarkFlood's figures it reports the
// refusals overall and in each 10-second slice of arrivals, the queue's
// measured wait (ttt_ai_queue_wait_seconds of interactive jobs, from the
// replica's /metrics) and the wait each refusal announced (the replica
// logs it at LOG_LEVEL=info).
func BenchmarkFloodSpread(b *testing.B) {
	bin := loadPrereqs(b)
	users, window, lo, hi := spreadSettings(b, 100, 400)
	b.Run(fmt.Sprintf("users=%d/window=%s", users, window), func(b *testing.B) {
		runFlood(b, bin, floodCase{users: users, replicas: 1, level: "perfect",
			window: window, thinkMin: lo, thinkMax: hi, env: []string{"LOG_LEVEL=info"}})
	})
}

// reportSpread reports what a spread flood adds to reportFlood's figures.
func reportSpread(b *testing.B, cl *loadCluster, c floodCase, rec *loadRecorder, before, after []loadSample) {
	rec.mu.Lock()
	outcomes := make([]arrivalOutcome, len(rec.arrivals))
	for i, a := range rec.arrivals {
		outcomes[i] = arrivalOutcome{at: a.at, refused: a.end == endShed}
	}
	rec.mu.Unlock()
	name := fmt.Sprintf("users=%d window=%s think=%s-%s", c.users, c.window, c.thinkMin, c.thinkMax)
	ss := sliceArrivals(outcomes, spreadSlice)
	refused, worst := refusals(ss)
	b.ReportMetric(100*refused, "refused-%")
	b.ReportMetric(100*worst, "refused-max-slice-%")

	var wait histogram
	if len(after) == len(before) {
		for i := range after {
			wait = wait.plus(after[i].queueWait.minus(before[i].queueWait))
		}
	}
	ms := func(s float64) float64 { return s * 1000 }
	if wait.count > 0 {
		b.ReportMetric(ms(wait.sum/wait.count), "queue-wait-mean-ms")
		b.ReportMetric(ms(wait.quantile(0.5)), "queue-wait-p50-le-ms")
		b.ReportMetric(ms(wait.quantile(0.99)), "queue-wait-p99-le-ms")
	}
	var logs []string
	for _, r := range cl.replicas {
		logs = append(logs, r.logPath)
	}
	told := readRefusals(logs)
	if len(told.estimates) > 0 {
		b.ReportMetric(ms(quantile(told.estimates, 0.5).Seconds()), "told-wait-p50-ms")
	}
	b.Logf("%s: %s; queue wait of interactive jobs: mean %s, p50 ≤ %s, p99 ≤ %s over %.0f jobs; %s",
		name, refusalText(ss), secs(wait.sum/max(wait.count, 1)), secs(wait.quantile(0.5)), secs(wait.quantile(0.99)), wait.count, told)
	for _, l := range sliceLines(ss) {
		fmt.Printf("    load %s: %s\n", name, l)
	}
}

// arrivalOutcome is when a person arrived (from the start of the flood)
// and whether their new game was refused.
type arrivalOutcome struct {
	at      time.Duration
	refused bool
}

// arrivalSlice counts the arrivals of one slice of time and the refusals
// among them.
type arrivalSlice struct {
	from              time.Duration
	arrivals, refused int
}

// sliceArrivals counts arrivals and refusals in slices of width w from 0.
func sliceArrivals(as []arrivalOutcome, w time.Duration) []arrivalSlice {
	var out []arrivalSlice
	for _, a := range as {
		i := int(a.at / w)
		for len(out) <= i {
			out = append(out, arrivalSlice{from: time.Duration(len(out)) * w})
		}
		out[i].arrivals++
		if a.refused {
			out[i].refused++
		}
	}
	return out
}

// refusals returns the share of all arrivals refused and the largest
// share in one slice (of the slices with 5 arrivals or more, so that a
// thin last slice does not count).
func refusals(ss []arrivalSlice) (all, worst float64) {
	n, r := 0, 0
	for _, s := range ss {
		n += s.arrivals
		r += s.refused
		if s.arrivals >= 5 {
			worst = max(worst, float64(s.refused)/float64(s.arrivals))
		}
	}
	if n > 0 {
		all = float64(r) / float64(n)
	}
	return all, worst
}

// refusalText summarises the refusals of ss.
func refusalText(ss []arrivalSlice) string {
	n, r := 0, 0
	for _, s := range ss {
		n += s.arrivals
		r += s.refused
	}
	all, worst := refusals(ss)
	return fmt.Sprintf("%d of %d arrivals refused (%.1f%%), at most %.0f%% in a %s slice of arrivals", r, n, 100*all, 100*worst, spreadSlice)
}

// sliceLines describes each slice.
func sliceLines(ss []arrivalSlice) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		share := 0.0
		if s.arrivals > 0 {
			share = 100 * float64(s.refused) / float64(s.arrivals)
		}
		out[i] = fmt.Sprintf("arrivals %3.0f-%3.0f s: %3d, refused %3d (%.0f%%)", s.from.Seconds(), (s.from + spreadSlice).Seconds(), s.arrivals, s.refused, share)
	}
	return out
}

// secs formats seconds as a rounded duration.
func secs(s float64) time.Duration {
	if math.IsInf(s, 1) {
		return time.Duration(math.MaxInt64)
	}
	return round(time.Duration(s * float64(time.Second)))
}

// histogram is a Prometheus histogram read from /metrics: cumulative
// counts by upper bound.
type histogram struct {
	buckets    []histBucket // by le, ascending
	sum, count float64
}

type histBucket struct{ le, n float64 }

// leLabel matches the le label of a bucket series.
var leLabel = regexp.MustCompile(`le="([^"]+)"`)

// add takes one line of the histogram: name (…_bucket, …_sum or …_count),
// its series (name and labels) and value.
func (h *histogram) add(name, series string, v float64) {
	switch {
	case strings.HasSuffix(name, "_sum"):
		h.sum += v
	case strings.HasSuffix(name, "_count"):
		h.count += v
	default:
		m := leLabel.FindStringSubmatch(series)
		if m == nil {
			return
		}
		le, err := strconv.ParseFloat(m[1], 64) // +Inf parses
		if err != nil {
			return
		}
		h.addBucket(le, v)
	}
}

func (h *histogram) addBucket(le, n float64) {
	i, found := slices.BinarySearchFunc(h.buckets, le, func(b histBucket, le float64) int {
		switch {
		case b.le < le:
			return -1
		case b.le > le:
			return 1
		}
		return 0
	})
	if found {
		h.buckets[i].n += n
		return
	}
	h.buckets = slices.Insert(h.buckets, i, histBucket{le: le, n: n})
}

// plus returns h and o added (two replicas).
func (h histogram) plus(o histogram) histogram {
	out := histogram{sum: h.sum + o.sum, count: h.count + o.count}
	for _, b := range h.buckets {
		out.addBucket(b.le, b.n)
	}
	for _, b := range o.buckets {
		out.addBucket(b.le, b.n)
	}
	return out
}

// minus returns h less an earlier sample o: what was observed between.
func (h histogram) minus(o histogram) histogram {
	neg := histogram{sum: -o.sum, count: -o.count}
	for _, b := range o.buckets {
		neg.buckets = append(neg.buckets, histBucket{le: b.le, n: -b.n})
	}
	return h.plus(neg)
}

// quantile returns the upper bound of the bucket holding the q-quantile
// (0 for an empty histogram).
func (h histogram) quantile(q float64) float64 {
	if h.count <= 0 {
		return 0
	}
	rank := math.Ceil(q * h.count)
	for _, b := range h.buckets {
		if b.n >= rank {
			return b.le
		}
	}
	return math.Inf(1)
}

// toldWaits are the refusals a replica logged: the wait each announced
// (a refusal by the estimate) and the refusals for a full queue.
type toldWaits struct {
	estimates []time.Duration
	queueFull int
	other     int
}

func (t toldWaits) String() string {
	if len(t.estimates)+t.queueFull+t.other == 0 {
		return "no refusals logged"
	}
	est := fmt.Sprintf("%d by the estimate", len(t.estimates))
	if len(t.estimates) > 0 {
		est += fmt.Sprintf(" (announced wait p50 %s, max %s)", round(quantile(t.estimates, 0.5)), round(quantile(t.estimates, 1)))
	}
	return fmt.Sprintf("refusals logged: %s, %d with the queue full, %d other", est, t.queueFull, t.other)
}

// The reasons sched gives for a refusal, as the bot logs them.
var (
	refusedEstimate = regexp.MustCompile(`sched: busy: about (\S+) to wait`)
	refusedFull     = regexp.MustCompile(`sched: busy: \d+ jobs waiting`)
)

// readRefusals reads the refusals of heavy work (reply.overloaded) from
// the replicas' logs.
func readRefusals(paths []string) toldWaits {
	var t toldWaits
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		for line := range strings.SplitSeq(string(data), "\n") {
			if !strings.Contains(line, "reply.overloaded") {
				continue
			}
			t.add(line)
		}
	}
	return t
}

// add counts one refusal, from its error text.
func (t *toldWaits) add(text string) {
	if m := refusedEstimate.FindStringSubmatch(text); m != nil {
		if d, err := time.ParseDuration(strings.TrimSuffix(m[1], ",")); err == nil {
			t.estimates = append(t.estimates, d)
			return
		}
	}
	if refusedFull.MatchString(text) {
		t.queueFull++
		return
	}
	t.other++
}

// parseDurationRange parses "2s-8s" (or one duration, "5s").
func parseDurationRange(s string) (lo, hi time.Duration, err error) {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		b = a
	}
	if lo, err = time.ParseDuration(strings.TrimSpace(a)); err != nil {
		return 0, 0, err
	}
	if hi, err = time.ParseDuration(strings.TrimSpace(b)); err != nil {
		return 0, 0, err
	}
	if lo < 0 || hi < lo {
		return 0, 0, fmt.Errorf("%q is not a range from low to high", s)
	}
	return lo, hi, nil
}

// parseIntRange parses "30-100" (or one number, "50").
func parseIntRange(s string) (lo, hi int, err error) {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		b = a
	}
	if lo, err = strconv.Atoi(strings.TrimSpace(a)); err != nil {
		return 0, 0, err
	}
	if hi, err = strconv.Atoi(strings.TrimSpace(b)); err != nil {
		return 0, 0, err
	}
	if lo < 1 || hi < lo {
		return 0, 0, fmt.Errorf("%q is not a range from low to high, 1 or more", s)
	}
	return lo, hi, nil
}

// TestSpreadFigures checks the arithmetic of the spread floods' reports.
func TestSpreadFigures(t *testing.T) {
	s := time.Second
	ss := sliceArrivals([]arrivalOutcome{{0, true}, {s, true}, {2 * s, false}, {3 * s, false}, {4 * s, true},
		{10 * s, false}, {11 * s, false}, {12 * s, false}, {13 * s, false}, {19 * s, false}, {25 * s, true}}, spreadSlice)
	if got := fmt.Sprint(sliceLines(ss)); got != "[arrivals   0- 10 s:   5, refused   3 (60%) arrivals  10- 20 s:   5, refused   0 (0%) arrivals  20- 30 s:   1, refused   1 (100%)]" {
		t.Errorf("slices: %s", got)
	}
	if all, worst := refusals(ss); all != 4.0/11 || worst != 0.6 {
		t.Errorf("refusals = %v, %v; want 4/11 overall and 60%% in the worst slice of 5 or more", all, worst)
	}

	var before, after histogram
	for _, l := range []struct {
		series string
		v      float64
	}{
		{`ttt_ai_queue_wait_seconds_bucket{class="interactive",le="0.1"}`, 1},
		{`ttt_ai_queue_wait_seconds_bucket{class="interactive",le="1"}`, 2},
		{`ttt_ai_queue_wait_seconds_bucket{class="interactive",le="+Inf"}`, 2},
		{`ttt_ai_queue_wait_seconds_sum{class="interactive"}`, 0.6},
		{`ttt_ai_queue_wait_seconds_count{class="interactive"}`, 2},
	} {
		name, _, _ := strings.Cut(l.series, "{")
		before.add(name, l.series, l.v)
		after.add(name, l.series, 50*l.v)
	}
	d := after.minus(before)
	if d.count != 98 || math.Abs(d.sum-29.4) > 1e-9 || d.quantile(0.5) != 0.1 || d.quantile(0.51) != 1 || d.quantile(1) != 1 {
		t.Errorf("after less before: %+v, p50 %g, p51 %g", d, d.quantile(0.5), d.quantile(0.51))
	}
	if q := (histogram{}).quantile(0.5); q != 0 {
		t.Errorf("an empty histogram's median = %g", q)
	}

	var told toldWaits
	for _, e := range []string{
		`level=INFO msg="bot: interaction refused" reason=reply.overloaded err="i18n: reply.overloaded: sched: busy: about 5.25s to wait, more than 5s"`,
		`err="i18n: reply.overloaded: sched: busy: about 750ms to wait, more than 500ms"`,
		`err="i18n: reply.overloaded: sched: busy: 64 jobs waiting"`,
		`err="i18n: reply.overloaded: sched: busy: 3 jobs waiting and 61 reserved, at most 64"`,
		`something else`,
	} {
		told.add(e)
	}
	if fmt.Sprint(told.estimates) != "[5.25s 750ms]" || told.queueFull != 2 || told.other != 1 {
		t.Errorf("refusals read: %+v", told)
	}

	if lo, hi, err := parseDurationRange("2s-8s"); lo != 2*s || hi != 8*s || err != nil {
		t.Errorf(`parseDurationRange("2s-8s") = %s, %s, %v`, lo, hi, err)
	}
	if lo, hi, err := parseIntRange("30-100"); lo != 30 || hi != 100 || err != nil {
		t.Errorf(`parseIntRange("30-100") = %d, %d, %v`, lo, hi, err)
	}
	for _, bad := range []string{"8s-2s", "x", "1s-"} {
		if _, _, err := parseDurationRange(bad); err == nil {
			t.Errorf("parseDurationRange(%q) succeeded", bad)
		}
	}
	for _, bad := range []string{"100-30", "0-3", "x"} {
		if _, _, err := parseIntRange(bad); err == nil {
			t.Errorf("parseIntRange(%q) succeeded", bad)
		}
	}
}
