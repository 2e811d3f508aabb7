package shards_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/bot/shards"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

// lease is the short lease the tests run with; deadlines are generous
// multiples of it (CI runs under -race on two cores).
const lease = 300 * time.Millisecond

// tracker plays the shards: it records which manager runs each shard and
// every time a shard was started while another manager still ran it.
type tracker struct {
	mu       sync.Mutex
	running  map[int]string
	starts   []start
	overlaps []string
}

type start struct {
	shard int
	owner string
	at    time.Time
}

func newTracker() *tracker { return &tracker{running: map[int]string{}} }

// startFunc is a Config.Start for owner that runs until ctx is done, or
// fails with fail(shard) if that is not nil.
func (tr *tracker) startFunc(owner string, fail func(int) error) func(context.Context, int) error {
	return func(ctx context.Context, shard int) error {
		tr.mu.Lock()
		if o, ok := tr.running[shard]; ok {
			tr.overlaps = append(tr.overlaps, fmt.Sprintf("shard %d started by %s while %s runs it", shard, owner, o))
		}
		tr.running[shard] = owner
		tr.starts = append(tr.starts, start{shard, owner, time.Now()})
		tr.mu.Unlock()
		var err error
		if fail != nil {
			err = fail(shard)
		}
		if err == nil {
			<-ctx.Done()
			err = ctx.Err()
		}
		tr.mu.Lock()
		if tr.running[shard] == owner {
			delete(tr.running, shard)
		}
		tr.mu.Unlock()
		return err
	}
}

// runners returns the shards running and who runs them.
func (tr *tracker) runners() map[int]string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	m := make(map[int]string, len(tr.running))
	for k, v := range tr.running {
		m[k] = v
	}
	return m
}

func (tr *tracker) checkNoOverlap(t *testing.T) {
	t.Helper()
	tr.mu.Lock()
	defer tr.mu.Unlock()
	for _, o := range tr.overlaps {
		t.Error(o)
	}
}

// killable is a Store that can be cut off from Redis, as a killed or
// partitioned process is: every call fails from then on.
type killable struct {
	shards.Store
	dead atomic.Bool
}

var errKilled = errors.New("test: process cut off")

func (k *killable) check() error {
	if k.dead.Load() {
		return errKilled
	}
	return nil
}

func (k *killable) Heartbeat(ctx context.Context, group, owner string, ttl time.Duration) error {
	if err := k.check(); err != nil {
		return err
	}
	return k.Store.Heartbeat(ctx, group, owner, ttl)
}

func (k *killable) Members(ctx context.Context, group string) ([]string, error) {
	if err := k.check(); err != nil {
		return nil, err
	}
	return k.Store.Members(ctx, group)
}

func (k *killable) Leave(ctx context.Context, group, owner string) error {
	if err := k.check(); err != nil {
		return err
	}
	return k.Store.Leave(ctx, group, owner)
}

func (k *killable) AcquireLock(ctx context.Context, name, owner string, d time.Duration) (persistence.Lock, error) {
	if err := k.check(); err != nil {
		return persistence.Lock{}, err
	}
	return k.Store.AcquireLock(ctx, name, owner, d)
}

func (k *killable) RenewLock(ctx context.Context, l persistence.Lock, d time.Duration) error {
	if err := k.check(); err != nil {
		return err
	}
	return k.Store.RenewLock(ctx, l, d)
}

func (k *killable) ReleaseLock(ctx context.Context, l persistence.Lock) error {
	if err := k.check(); err != nil {
		return err
	}
	return k.Store.ReleaseLock(ctx, l)
}

func (k *killable) WaitIdentify(ctx context.Context, bucket int, owner string, spacing time.Duration) error {
	if err := k.check(); err != nil {
		return err
	}
	return k.Store.WaitIdentify(ctx, bucket, owner, spacing)
}

// env is one Redis shared by the managers of a test.
type env struct {
	t     *testing.T
	store *persistence.Store
	tr    *tracker
}

func newEnv(t *testing.T) *env {
	srv := redistest.Start(t)
	return &env{t: t, store: persistence.New(redistest.Client(t, srv), persistence.Options{}), tr: newTracker()}
}

// proc is one manager, as one process.
type proc struct {
	m      *shards.Manager
	store  *killable
	cancel context.CancelFunc
	done   chan error
}

// start runs a manager called owner over count shards; cfg overrides the
// test defaults where set.
func (e *env) start(owner string, count int, cfg shards.Config) *proc {
	e.t.Helper()
	k := &killable{Store: e.store}
	cfg.Count, cfg.Owner, cfg.Store = count, owner, k
	if cfg.Lease == 0 {
		cfg.Lease = lease
	}
	if cfg.IdentifySpacing == 0 {
		cfg.IdentifySpacing = time.Millisecond
	}
	if cfg.Start == nil {
		cfg.Start = e.tr.startFunc(owner, nil)
	}
	cfg.Rand = rand.New(rand.NewPCG(uint64(len(owner)), uint64(owner[0])))
	m, err := shards.New(cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &proc{m: m, store: k, cancel: cancel, done: make(chan error, 1)}
	go func() { p.done <- m.Run(ctx) }()
	e.t.Cleanup(func() { p.stop(e.t) })
	return p
}

// stop ends p's Run and waits for it.
func (p *proc) stop(t *testing.T) error {
	t.Helper()
	p.cancel()
	select {
	case err := <-p.done:
		p.done <- err // for a later stop
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return 10 s after its context ended")
		return nil
	}
}

// waitFor polls cond until it holds, failing the test after timeout.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	begin := time.Now()
	for !cond() {
		if time.Since(begin) > timeout {
			t.Fatalf("not after %s: %s", timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return time.Since(begin)
}

// spread reports whether the managers own exactly the given numbers of
// shards, together every shard once, and every shard is running by its
// owner.
func (e *env) spread(count int, want []int, ps ...*proc) bool {
	var all []int
	run := e.tr.runners()
	for i, p := range ps {
		o := p.m.Owned()
		if len(o) != want[i] {
			return false
		}
		for _, id := range o {
			if run[id] == "" {
				return false
			}
		}
		all = append(all, o...)
	}
	slices.Sort(all)
	return len(all) == count && len(run) == count && all[0] == 0 && all[count-1] == count-1 && !hasDup(all)
}

func hasDup(s []int) bool {
	for i := 1; i < len(s); i++ {
		if s[i] == s[i-1] {
			return true
		}
	}
	return false
}

// TestTwoManagersShare: two processes starting together each end up
// running two of four shards, and no shard is ever run twice at once.
func TestTwoManagersShare(t *testing.T) {
	e := newEnv(t)
	a, b := e.start("a", 4, shards.Config{}), e.start("b", 4, shards.Config{})
	waitFor(t, 10*time.Second, "a and b running 2 shards each", func() bool { return e.spread(4, []int{2, 2}, a, b) })
	time.Sleep(3 * lease) // and it stays so
	if !e.spread(4, []int{2, 2}, a, b) {
		t.Errorf("the spread changed: a %v, b %v", a.m.Owned(), b.m.Owned())
	}
	for _, p := range []*proc{a, b} {
		if err := p.stop(t); err != nil {
			t.Errorf("Run: %v", err)
		}
	}
	if run := e.tr.runners(); len(run) != 0 {
		t.Errorf("shards still running after Run returned: %v", run)
	}
	ctx := context.Background()
	if m, err := e.store.Members(ctx, "shards:4"); err != nil || len(m) != 0 {
		t.Errorf("members after both left: %v, %v", m, err)
	}
	for id := range 4 { // the leases were released
		l, err := e.store.AcquireLock(ctx, shards.LockName(4, id), "check", time.Second)
		if err != nil {
			t.Errorf("shard %d lease after a clean stop: %v", id, err)
			continue
		}
		_ = e.store.ReleaseLock(ctx, l)
	}
	e.tr.checkNoOverlap(t)
}

// TestTakeover: a process that is killed (its Run ends without releasing
// anything) or cut off from Redis (it runs on but can renew nothing) loses
// its shards to the other within about a lease, and never overlaps it.
func TestTakeover(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cancel bool
	}{{"killed", true}, {"cut off", false}} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			a, b := e.start("a", 4, shards.Config{}), e.start("b", 4, shards.Config{})
			waitFor(t, 10*time.Second, "a and b running 2 shards each", func() bool { return e.spread(4, []int{2, 2}, a, b) })
			a.store.dead.Store(true)
			if tc.cancel {
				a.cancel()
			}
			took := waitFor(t, 10*time.Second, "b running all 4 shards", func() bool { return e.spread(4, []int{4}, b) })
			t.Logf("b took over in %s (lease %s)", took, lease)
			// A lease for the leases to run out and the heartbeat too,
			// a period for b to notice, and slack for a loaded CI.
			if limit := lease + lease/3 + time.Second; took > limit {
				t.Errorf("takeover took %s, want under %s", took, limit)
			}
			if got := a.m.Owned(); len(got) != 0 {
				t.Errorf("a still holds %v", got)
			}
			e.tr.checkNoOverlap(t)
		})
	}
}

// TestNewcomer: a third process joining makes the two running six shards
// release down to their share (2), and it takes what they release.
func TestNewcomer(t *testing.T) {
	e := newEnv(t)
	a, b := e.start("a", 6, shards.Config{}), e.start("b", 6, shards.Config{})
	waitFor(t, 10*time.Second, "a and b running 3 shards each", func() bool { return e.spread(6, []int{3, 3}, a, b) })
	c := e.start("c", 6, shards.Config{})
	waitFor(t, 10*time.Second, "a, b and c running 2 shards each", func() bool { return e.spread(6, []int{2, 2, 2}, a, b, c) })
	// When c stops cleanly, a and b take its shards back.
	if err := c.stop(t); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "a and b running 3 shards each again", func() bool { return e.spread(6, []int{3, 3}, a, b) })
	e.tr.checkNoOverlap(t)
}

// TestIdentifySpacing: the shards of two processes identify (are started)
// at least the spacing apart within a max_concurrency bucket.
func TestIdentifySpacing(t *testing.T) {
	e := newEnv(t)
	const spacing = 200 * time.Millisecond
	cfg := shards.Config{MaxConcurrency: 2, IdentifySpacing: spacing, Lease: time.Second}
	a, b := e.start("a", 4, cfg), e.start("b", 4, cfg)
	waitFor(t, 20*time.Second, "a and b running 2 shards each", func() bool { return e.spread(4, []int{2, 2}, a, b) })
	e.tr.mu.Lock()
	defer e.tr.mu.Unlock()
	last := map[int]time.Time{}
	for _, s := range e.tr.starts { // in start order
		bucket := s.shard % 2
		if prev, ok := last[bucket]; ok {
			if gap := s.at.Sub(prev); gap < spacing-10*time.Millisecond {
				t.Errorf("shard %d (%s) started %s after the previous start in bucket %d, want >= %s", s.shard, s.owner, gap, bucket, spacing)
			}
		}
		last[bucket] = s.at
	}
	if len(e.tr.starts) < 4 {
		t.Errorf("%d starts, want at least 4", len(e.tr.starts))
	}
}

var errBadToken = errors.New("test: token rejected")

// TestFatal: a Start error the Config marks fatal ends Run with that error,
// after stopping the other shards.
func TestFatal(t *testing.T) {
	e := newEnv(t)
	cfg := shards.Config{
		Fatal: func(err error) bool { return errors.Is(err, errBadToken) },
		Start: e.tr.startFunc("a", func(shard int) error {
			if shard == 2 {
				return fmt.Errorf("identify: %w", errBadToken)
			}
			return nil
		}),
	}
	a := e.start("a", 4, cfg)
	select {
	case err := <-a.done:
		if !errors.Is(err, errBadToken) {
			t.Fatalf("Run: %v, want the fatal error", err)
		}
		a.done <- err
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not end on a fatal error")
	}
	if run := e.tr.runners(); len(run) != 0 {
		t.Errorf("shards still running after Run returned: %v", run)
	}
	if got := a.m.Owned(); len(got) != 0 {
		t.Errorf("still owned after Run returned: %v", got)
	}
}

// TestFailureRetried: a shard whose Start fails (not fatally) is freed and
// started again later.
func TestFailureRetried(t *testing.T) {
	e := newEnv(t)
	var failed atomic.Bool
	a := e.start("a", 2, shards.Config{Start: e.tr.startFunc("a", func(shard int) error {
		if shard == 1 && !failed.Swap(true) {
			return errors.New("test: gateway closed")
		}
		return nil
	})})
	waitFor(t, 10*time.Second, "both shards running after shard 1 failed once", func() bool {
		return failed.Load() && e.spread(2, []int{2}, a)
	})
}

func TestNewRefuses(t *testing.T) {
	start := func(context.Context, int) error { return nil }
	st := &killable{}
	for _, cfg := range []shards.Config{
		{Owner: "a", Store: st, Start: start},
		{Count: 1, Store: st, Start: start},
		{Count: 1, Owner: "a", Start: start},
		{Count: 1, Owner: "a", Store: st},
		{Count: 1, Owner: "a", Store: st, Start: start, Lease: -time.Second},
		{Count: 1, Owner: "a", Store: st, Start: start, Lease: time.Millisecond},
	} {
		if _, err := shards.New(cfg); !errors.Is(err, shards.ErrConfig) {
			t.Errorf("New(%+v): %v, want ErrConfig", cfg, err)
		}
	}
}

func TestRecommended(t *testing.T) {
	for _, tc := range []struct{ gateway, configured, want int }{
		{0, 0, 1},
		{3, 0, 3},
		{3, 8, 8},
		{0, 2, 2},
		{-1, -1, 1},
	} {
		if got := shards.Recommended(tc.gateway, tc.configured); got != tc.want {
			t.Errorf("Recommended(%d, %d) = %d, want %d", tc.gateway, tc.configured, got, tc.want)
		}
	}
}
