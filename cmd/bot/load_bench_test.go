package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/bot/fakediscord"
)

// The load benchmarks flood `bot serve` in HTTP mode, as Discord would:
// real serve processes (built from this package) on a private
// redis-server, interactions signed and POSTed over loopback by the fake
// Discord, which marks one failed when it is not acknowledged within 3 s.
// N flood users each play one 5x5k4 game against perfect (half of them)
// or mcts (the other half), moving first and clicking a random empty cell
// whenever the board shows it is their turn; 4 bystanders in a guild of
// their own play 3x3 games against easy back to back meanwhile. One
// iteration is one whole flood, so run them with -benchtime=1x:
//
//	go test -run '^$' -bench '^BenchmarkFlood$/users=40' -benchtime=1x -timeout 30m ./cmd/bot/
//	go test -run '^$' -bench '^BenchmarkFlood$/users=200' -benchtime=1x -timeout 30m ./cmd/bot/
//	go test -run '^$' -bench '^BenchmarkFlood$/users=1000' -benchtime=1x -timeout 60m ./cmd/bot/
//	go test -run '^$' -bench '^BenchmarkFloodReplicas$' -benchtime=1x -timeout 60m ./cmd/bot/
//
// BenchmarkFloodSpread (load_spread_test.go) spreads the users' arrivals
// over a window and has them think between clicks, as a surge of people
// does; BenchmarkFloodGomoku (load_gomoku_test.go) brings the same surge
// of 15x15 gomoku games to the AI queue.
//
// They need redis-server on the PATH and the go command (to build the
// bot); -short skips them. -load.bin=PATH runs them against a bot binary
// built elsewhere instead (an older commit, for a before and after);
// -load.faults=0.05 makes the fake fail a seeded 5% of the replicas'
// writes (see load_faults_test.go), and every flood game seen finished
// must show its final board after the flood, faults or not. Each
// case logs a one-line summary; the answers without a board, how the AI
// replies came, the REST requests Discord refused and the replicas' log
// lines go to stdout.

// The shape of a flood.
const (
	loadGuilds      = 10                     // the flood users' guilds (one channel per user)
	loadBystanders  = 4                      // users playing 3x3 easy throughout
	loadByThink     = 600 * time.Millisecond // a bystander's pause before each click (the rate limit refills 2 a second)
	loadStartSpread = time.Second            // flood users start within this
	loadStuckAfter  = 10 * time.Minute       // a flood game neither finished nor shed by then is stuck
	loadSeed        = 20240601               // the users' random cells
)

// The "no growth after the flood" check: after the flood, wait for the
// replicas' goroutines to come back to within loadGoroutineSettle of
// before (at most loadSettleMax) and their heap in use to within
// loadHeapSlack (at most loadHeapSettleMax: heap in use counts garbage
// until a collection, and an idle process collects only when the runtime
// forces it, every 2 minutes); then more than loadGoroutineSlack
// goroutines or loadHeapSlack bytes over before fails.
const (
	loadSettleMax       = 30 * time.Second
	loadHeapSettleMax   = 150 * time.Second
	loadGoroutineSettle = 5
	loadGoroutineSlack  = 20
	loadHeapSlack       = 64 << 20
)

// floodCase is one sub-benchmark.
type floodCase struct {
	users, replicas int
	// env is added to every replica's environment.
	env []string
	// pin puts replica i on core i with taskset.
	pin bool
	// proxy puts the round-robin proxy in front even of one replica
	// (with several it is always there).
	proxy bool
	// level is every flood user's level; "" plays perfect and mcts in
	// turn.
	level string
	// window, if positive, spreads the flood users' arrivals uniformly
	// over it (instead of loadStartSpread), and each then thinks from
	// thinkMin to thinkMax before a click (instead of not at all); see
	// BenchmarkFloodSpread.
	window             time.Duration
	thinkMin, thinkMax time.Duration
}

// BenchmarkFlood floods one replica with its default settings.
func BenchmarkFlood(b *testing.B) {
	bin := loadPrereqs(b)
	for _, n := range []int{40, 200, 1000} {
		b.Run(fmt.Sprintf("users=%d", n), func(b *testing.B) {
			runFlood(b, bin, floodCase{users: n, replicas: 1})
		})
	}
}

// BenchmarkFloodReplicas measures how throughput scales from one replica
// to two sharing Redis behind a load balancer: each replica gets one core
// of its own (GOMAXPROCS=1, AI_WORKERS=1, pinned), and shedding is off in
// effect, so both runs play the same games: AI_MAX_WAIT=10m lifts the
// bound on the estimated wait, and 60 users stay under the bound on the
// queue (sched's 64 jobs waiting per worker). Compare the
// ai-replies/s figures.
func BenchmarkFloodReplicas(b *testing.B) {
	bin := loadPrereqs(b)
	for _, r := range []int{1, 2} {
		b.Run(fmt.Sprintf("replicas=%d", r), func(b *testing.B) {
			runFlood(b, bin, floodCase{users: 60, replicas: r, pin: true, proxy: true,
				env: []string{"GOMAXPROCS=1", "AI_WORKERS=1", "AI_MAX_WAIT=10m"}})
		})
	}
}

// loadPrereqs checks what the benchmarks need and returns the (lazily
// built) bot binary.
func loadPrereqs(b *testing.B) *loadBinary {
	b.Helper()
	if testing.Short() {
		b.Skip("load benchmark: skipped with -short")
	}
	if _, err := exec.LookPath("redis-server"); err != nil {
		b.Fatalf("load benchmark: redis-server is not on the PATH (install it, e.g. apt-get install redis-server): %v", err)
	}
	return &loadBinary{dir: b.TempDir()}
}

// floodResult is what one flood measured besides the recorder's samples.
type floodResult struct {
	elapsed time.Duration // first start to the last flood game's end
	// replyTimes are when each flood AI reply was shown, for the
	// throughput of the middle of the flood.
	replyTimes []time.Time
	// calls are the REST requests the replicas made of the fake.
	calls []fakediscord.Call
	// wrongBoards are the finished flood games whose board message does
	// not show the final state of the game, with why.
	wrongBoards []string
}

// runFlood runs b.N floods of case c against a fresh cluster and reports.
func runFlood(b *testing.B, bin *loadBinary, c floodCase) {
	path := bin.get(b)
	if *loadEnv != "" {
		c.env = append(c.env, strings.Split(*loadEnv, ",")...)
	}
	load0 := loadavg()
	cl := startLoadCluster(b, path, c)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	before, err := cl.samples(ctx)
	cancel()
	if err != nil {
		b.Fatal(err)
	}
	rec := newLoadRecorder()
	var res floodResult
	callsBefore := len(cl.fake.Calls())
	b.ResetTimer()
	for i := range b.N {
		r := runOneFlood(cl, c, i, rec)
		res.elapsed += r.elapsed
		res.replyTimes = append(res.replyTimes, r.replyTimes...)
	}
	b.StopTimer()
	ctx, cancel = context.WithTimeout(context.Background(), loadHeapSettleMax+time.Minute)
	defer cancel()
	rec.mu.Lock()
	finished := slices.Clone(rec.finishedBoards)
	rec.mu.Unlock()
	res.wrongBoards = cl.finalBoards(ctx, finished)
	after, settled, err := cl.settle(ctx, before)
	if err != nil {
		b.Errorf("after the flood: %v", err) // reported without the growth figures
	}
	load1 := loadavg()
	res.calls = cl.fake.Calls()[callsBefore:]
	reportFlood(b, cl, c, rec, res, before, after, settled, load0, load1)
	if c.window > 0 {
		reportSpread(b, cl, c, rec, before, after)
	}
}

// runOneFlood plays one flood (iteration iter) and waits for every player.
func runOneFlood(cl *loadCluster, c floodCase, iter int, rec *loadRecorder) floodResult {
	d := &loadDriver{cl: cl, rec: rec}
	ctx, cancel := context.WithTimeout(context.Background(), loadStuckAfter)
	defer cancel()
	byCtx, stopBystanders := context.WithCancel(ctx)
	defer stopBystanders()
	// Snowflake-like IDs, distinct per iteration.
	id := func(kind, n int) string {
		return strconv.FormatInt(int64(kind)*1_000_000_000_000_000_000+int64(iter)*10_000_000+int64(n), 10)
	}
	const userID, channelID, guildID, bystanders = 4, 5, 6, 9_000_000
	var by sync.WaitGroup
	for j := range loadBystanders {
		p := &loadPlayer{bystander: true, think: loadByThink,
			actor: fakediscord.Actor{Guild: id(guildID, bystanders), Channel: id(channelID, bystanders+j),
				User: fakediscord.User{ID: id(userID, bystanders+j)}},
			rng:  rand.New(rand.NewPCG(loadSeed, uint64(iter)<<32|uint64(bystanders+j))),
			opts: []fakediscord.Option{{Name: "level", Value: "easy"}, {Name: "board", Value: "3x3k3"}}}
		by.Go(func() {
			for byCtx.Err() == nil {
				e := d.play(byCtx, p)
				if e != endCancelled {
					rec.end(p, e)
				}
				_ = pause(byCtx, loadByThink)
			}
		})
	}
	start := time.Now()
	var flood sync.WaitGroup
	spread := loadStartSpread
	if c.window > 0 {
		spread = c.window
	}
	for i := range c.users {
		level := c.level
		switch {
		case level != "":
		case i%2 == 1:
			level = "mcts"
		default:
			level = "perfect"
		}
		p := &loadPlayer{
			actor: fakediscord.Actor{Guild: id(guildID, i%loadGuilds), Channel: id(channelID, i),
				User: fakediscord.User{ID: id(userID, i)}},
			rng: rand.New(rand.NewPCG(loadSeed, uint64(iter)<<32|uint64(i))),
			opts: []fakediscord.Option{{Name: "level", Value: level}, {Name: "board", Value: "5x5k4"},
				{Name: "first", Value: "me"}},
			think: c.thinkMin, thinkMax: c.thinkMax,
		}
		delay := time.Duration(p.rng.Int64N(int64(spread)))
		flood.Go(func() {
			if pause(ctx, delay) != nil {
				rec.end(p, endStuck)
				return
			}
			e := d.play(ctx, p)
			rec.end(p, e)
			rec.arrived(delay, e)
		})
	}
	flood.Wait()
	res := floodResult{elapsed: time.Since(start)}
	stopBystanders()
	by.Wait()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, t := range rec.aiReplyAt {
		if !t.Before(start) {
			res.replyTimes = append(res.replyTimes, t)
		}
	}
	return res
}

// settle waits for every replica's goroutines and heap to come back
// down (see loadSettleMax), and returns the last samples and how long it
// waited. Without a go_goroutines gauge it waits loadSettleMax.
func (cl *loadCluster) settle(ctx context.Context, before []loadSample) ([]loadSample, time.Duration, error) {
	if cl.proxy != nil {
		cl.proxy.tr.CloseIdleConnections() // the proxy's keep-alives hold server goroutines
	}
	start := time.Now()
	for {
		after, err := cl.samples(ctx)
		if err != nil {
			return nil, 0, err
		}
		goroutinesOK, heapOK := true, true
		for i, a := range after {
			goroutinesOK = goroutinesOK && a.haveGoroutines && a.goroutines <= before[i].goroutines+loadGoroutineSettle
			heapOK = heapOK && (!a.haveHeap || a.heapInuse <= before[i].heapInuse+loadHeapSlack)
		}
		waited := time.Since(start)
		if (goroutinesOK || waited >= loadSettleMax) && (heapOK || waited >= loadHeapSettleMax) {
			return after, waited, nil
		}
		if err := pause(ctx, 500*time.Millisecond); err != nil {
			return nil, 0, err
		}
	}
}

// reportFlood reports the metrics of a case, logs its summary and the
// replicas' log lines, and fails the benchmark for stuck games, driver
// errors and growth after the flood.
func reportFlood(b *testing.B, cl *loadCluster, c floodCase, rec *loadRecorder, res floodResult,
	before, after []loadSample, settled time.Duration, load0, load1 string) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	report := func(v float64, unit string) { b.ReportMetric(v, unit) }
	report(ms(quantile(rec.first, 0.5)), "first-p50-ms")
	report(ms(quantile(rec.first, 0.99)), "first-p99-ms")
	report(ms(quantile(rec.first, 1)), "first-max-ms")
	report(float64(rec.failed), "failed")
	report(float64(rec.abandoned), "never-completed")
	report(float64(rec.interactions), "interactions")
	report(ms(quantile(rec.byFirst, 0.5)), "by-p50-ms")
	report(ms(quantile(rec.byFirst, 0.99)), "by-p99-ms")
	report(ms(quantile(rec.byFirst, 1)), "by-max-ms")
	report(float64(len(rec.byFirst)), "by-answers")
	report(ms(quantile(rec.aiReplies, 0.5)), "ai-p50-ms")
	report(ms(quantile(rec.aiReplies, 0.99)), "ai-p99-ms")
	report(ms(quantile(rec.aiReplies, 1)), "ai-max-ms")
	report(float64(rec.ends[endFinished]), "finished")
	report(float64(rec.ends[endShed]), "shed")
	report(float64(rec.ends[endStranded]+rec.ends[endFailedStart]), "stranded")
	report(float64(rec.ends[endStuck]), "stuck")
	report(float64(len(res.wrongBoards)), "final-board-wrong")
	rate := float64(len(rec.aiReplies)) / res.elapsed.Seconds()
	report(rate, "ai-replies/s")
	mid := midRate(res.replyTimes)
	report(mid, "ai-replies/s-mid80")
	sum := func(ss []loadSample, f func(loadSample) float64) float64 {
		t := 0.0
		for _, s := range ss {
			t += f(s)
		}
		return t
	}
	gor := func(s loadSample) float64 { return s.goroutines }
	heap := func(s loadSample) float64 { return s.heapInuse / (1 << 20) }
	rss := func(s loadSample) float64 { return float64(s.rss) / (1 << 20) }
	haveG, haveHeap := len(after) > 0 && after[0].haveGoroutines, len(after) > 0 && after[0].haveHeap
	if haveG {
		report(sum(before, gor), "goroutines-before")
		report(sum(after, gor), "goroutines-after")
	}
	if haveHeap {
		report(sum(before, heap), "heap-before-MiB")
		report(sum(after, heap), "heap-after-MiB")
	}
	if len(after) > 0 {
		report(sum(before, rss), "rss-before-MiB")
		report(sum(after, rss), "rss-after-MiB")
	}

	name := fmt.Sprintf("users=%d replicas=%d", c.users, c.replicas)
	if *loadFaults > 0 {
		name += fmt.Sprintf(" faults=%g", *loadFaults)
	}
	var pins []string
	for _, r := range cl.replicas {
		pins = append(pins, r.name+" "+r.pinned)
	}
	b.Logf("%s (%s; env %v): %d interactions (%d bystanders'), first answer p50 %v p99 %v max %v, %d failed (%d bystanders'), %d deferred (%d never completed), %d with a refused request; "+
		"bystanders p50 %v p99 %v max %v over %d; AI reply p50 %v p99 %v max %v over %d; "+
		"flood games %d finished, %d shed, %d stranded, %d failed to start, %d stuck, %d driver errors; bystander games %v; "+
		"%.1f AI replies/s over %v (%.1f/s in the middle 80%%); %s; load average %s -> %s",
		name, strings.Join(pins, ", "), c.env, rec.interactions, rec.byInteractions,
		round(quantile(rec.first, 0.5)), round(quantile(rec.first, 0.99)), round(quantile(rec.first, 1)),
		rec.failed, rec.byFailed, rec.deferred, rec.abandoned, rec.rejected,
		round(quantile(rec.byFirst, 0.5)), round(quantile(rec.byFirst, 0.99)), round(quantile(rec.byFirst, 1)), len(rec.byFirst),
		round(quantile(rec.aiReplies, 0.5)), round(quantile(rec.aiReplies, 0.99)), round(quantile(rec.aiReplies, 1)), len(rec.aiReplies),
		rec.ends[endFinished], rec.ends[endShed], rec.ends[endStranded], rec.ends[endFailedStart], rec.ends[endStuck], rec.ends[endError],
		endCounts(rec.byEnds), rate, round(res.elapsed), mid, growthText(before, after, settled), load0, load1)
	// The testing package keeps 10 lines of a benchmark's log: the
	// summary goes there, the details to stdout.
	detail := func(format string, args ...any) {
		fmt.Printf("    load %s: %s\n", name, fmt.Sprintf(format, args...))
	}
	for _, t := range sortedCounts(rec.texts) {
		detail("%s", t)
	}
	for _, e := range rec.errs {
		detail("driver error: %s", e)
	}
	refused, total := restRefusals(res.calls)
	resets := 0
	for _, c := range res.calls {
		if c.Status == 0 {
			resets++
		}
	}
	detail("the replicas made %d REST requests of Discord, %d refused, %d reset (faults injected in a share of %g of the writes)",
		len(res.calls), total, resets, *loadFaults)
	detail("%d finished flood games' boards checked against the Store after the flood, %d not showing the final board",
		len(rec.finishedBoards), len(res.wrongBoards))
	for _, t := range refused {
		detail("REST refused: %s", t)
	}
	if cl.proxy != nil && cl.proxy.errors.Load() > 0 {
		detail("the proxy failed %d requests to the replicas", cl.proxy.errors.Load())
	}
	for i, r := range cl.replicas {
		handled := "?"
		if len(after) > 0 {
			handled = fmt.Sprintf("%.0f", after[i].httpInteractions-before[i].httpInteractions)
		}
		detail("%s handled %s interaction requests; %s", r.name, handled, logDigest(r.logPath, 15))
		select {
		case <-r.done:
			b.Errorf("%s: %s exited during the flood (%s); its log ends:\n%s", name, r.name, r.cmd.ProcessState, r.logTail(20))
		default:
		}
	}
	if len(after) > 0 && (!haveG || !haveHeap) {
		b.Logf("%s: the replicas' /metrics lacks go_goroutines or go_memstats_heap_inuse_bytes: growth is not checked (RSS is reported)", name)
		detail("the replicas' /metrics has: %s", strings.Join(after[0].metricNames, " "))
	}

	if n := rec.ends[endStuck]; n > 0 {
		b.Errorf("%s: %d flood games neither finished nor were shed within %v", name, n, loadStuckAfter)
	}
	if n := rec.ends[endStranded] + rec.ends[endFailedStart]; n > 0 {
		b.Errorf("%s: %d flood games neither finished nor were shed: %d stranded on a stale board, %d never started (%d tries each)",
			name, n, rec.ends[endStranded], rec.ends[endFailedStart], loadAttempts)
	}
	if n := rec.ends[endError]; n > 0 {
		b.Errorf("%s: %d flood games ended in a driver error (above)", name, n)
	}
	if n := len(res.wrongBoards); n > 0 {
		b.Errorf("%s: %d of %d finished flood games do not show their final board %v after the flood: %s",
			name, n, len(rec.finishedBoards), loadFinalPatience, strings.Join(res.wrongBoards[:min(n, 5)], "; "))
	}
	for i, r := range cl.replicas {
		if haveG && after[i].goroutines > before[i].goroutines+loadGoroutineSlack {
			b.Errorf("%s: %s has %.0f goroutines %v after the flood, %.0f before (more than %d more)",
				name, r.name, after[i].goroutines, round(settled), before[i].goroutines, loadGoroutineSlack)
		}
		if haveHeap && after[i].heapInuse > before[i].heapInuse+loadHeapSlack {
			b.Errorf("%s: %s has %.1f MiB of heap in use after the flood, %.1f MiB before (more than %d MiB more)",
				name, r.name, after[i].heapInuse/(1<<20), before[i].heapInuse/(1<<20), loadHeapSlack>>20)
		}
	}
}

// midRate is the rate of the middle 80% of times (10th to 90th
// percentile), free of the ramp-up and of the tail of the last games.
func midRate(ts []time.Time) float64 {
	if len(ts) < 10 {
		return 0
	}
	s := slices.Clone(ts)
	slices.SortFunc(s, func(a, b time.Time) int { return a.Compare(b) })
	lo, hi := len(s)/10, len(s)*9/10
	span := s[hi].Sub(s[lo]).Seconds()
	if span <= 0 {
		return 0
	}
	return float64(hi-lo) / span
}

// growthText describes the replicas' goroutines, heap and RSS before the
// flood and after it settled.
func growthText(before, after []loadSample, settled time.Duration) string {
	if len(after) == 0 {
		return "no figures after the flood"
	}
	var parts []string
	for i := range after {
		p := fmt.Sprintf("replica%d", i+1)
		if after[i].haveGoroutines {
			p += fmt.Sprintf(" goroutines %.0f -> %.0f", before[i].goroutines, after[i].goroutines)
		}
		if after[i].haveHeap {
			p += fmt.Sprintf(" heap %.1f -> %.1f MiB", before[i].heapInuse/(1<<20), after[i].heapInuse/(1<<20))
		}
		p += fmt.Sprintf(" RSS %.1f -> %.1f MiB", float64(before[i].rss)/(1<<20), float64(after[i].rss)/(1<<20))
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ") + fmt.Sprintf(" (after settling %v)", round(settled))
}

// restVolatile matches the IDs and tokens in a REST path.
var restVolatile = regexp.MustCompile(`/\d+|/fake\.[0-9a-f]+`)

// restRefusals tallies the REST requests the fake answered with an
// error, by method, route and status.
func restRefusals(calls []fakediscord.Call) ([]string, int) {
	tally, total := map[string]int{}, 0
	for _, c := range calls {
		if c.Status < 400 {
			continue
		}
		total++
		tally[fmt.Sprintf("%s %s -> %d", c.Method, restVolatile.ReplaceAllString(c.Path, "/…"), c.Status)]++
	}
	return sortedCounts(tally), total
}

// endCounts formats the non-zero counts of game ends.
func endCounts(n [numEnds]int) string {
	var parts []string
	for e, c := range n {
		if c > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c, gameEndNames[e]))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// sortedCounts formats a tally, most frequent first.
func sortedCounts(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		return strings.Compare(a, b)
	})
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = fmt.Sprintf("%d× %s", m[k], k)
	}
	return out
}

// round rounds d for reading.
func round(d time.Duration) time.Duration {
	switch {
	case d >= 10*time.Second:
		return d.Round(100 * time.Millisecond)
	case d >= 10*time.Millisecond:
		return d.Round(time.Millisecond)
	}
	return d.Round(10 * time.Microsecond)
}

// loadavg returns the first three fields of /proc/loadavg, or "?".
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// logVolatile matches what differs between otherwise equal log lines.
var logVolatile = regexp.MustCompile(`time=\S+ |\b\d{6,}\b|\b[0-9a-f]{16,}\b|\b\d+(\.\d+)?(ns|µs|ms|s)\b`)

// logDigest summarises a replica's log: its number of lines and its most
// frequent distinct lines (IDs and times masked), at most n.
func logDigest(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "log unreadable: " + err.Error()
	}
	text := strings.TrimSpace(string(data))
	if text == "" {
		return "its log is empty"
	}
	lines := strings.Split(text, "\n")
	tally := map[string]int{}
	for _, l := range lines {
		l = logVolatile.ReplaceAllStringFunc(l, func(s string) string {
			if strings.HasPrefix(s, "time=") {
				return ""
			}
			return "…"
		})
		if len(l) > 400 {
			l = l[:400] + "…"
		}
		tally[l]++
	}
	top := sortedCounts(tally)
	more := ""
	if len(top) > n {
		more = fmt.Sprintf("\n  … and %d more distinct lines", len(top)-n)
		top = top[:n]
	}
	return fmt.Sprintf("its log has %d lines (%s):\n  %s%s", len(lines), path, strings.Join(top, "\n  "), more)
}
