// Package shards spreads a bot's gateway shards over the processes that run
// it, through Redis, so no one has to set SHARD_ID by hand.
//
// Every process runs a Manager with the same shard count. A Manager
// heartbeats its presence, computes its fair share (the count divided by
// the live processes, rounded up), claims free shards up to that share,
// lowest ID first, each with a lease it renews, and runs each claimed
// shard until the lease is lost. When a process joins, the others release
// what they hold beyond their new share; when one dies, its leases run out
// and the others take its shards over within about one lease. IDENTIFYs
// are spaced per max_concurrency bucket across all processes.
//
// The package knows nothing of Discord: the caller's Start function opens
// and runs one shard.
package shards

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/tttbot/ttt-bot/persistence"
)

// DefaultLease is the lease of a shard (and the lifetime of a heartbeat)
// when Config.Lease is zero. Leases are renewed every third of a lease.
const DefaultLease = 15 * time.Second

// ErrConfig reports a Config that New refuses; the message says what.
var ErrConfig = errors.New("shards: invalid config")

// Store is what a Manager needs from Redis; *persistence.Store has it.
type Store interface {
	// Heartbeat, Members and Leave keep the group of live processes.
	Heartbeat(ctx context.Context, group, owner string, ttl time.Duration) error
	Members(ctx context.Context, group string) ([]string, error)
	Leave(ctx context.Context, group, owner string) error
	// AcquireLock, RenewLock and ReleaseLock hold the shards' leases.
	AcquireLock(ctx context.Context, name, owner string, lease time.Duration) (persistence.Lock, error)
	RenewLock(ctx context.Context, l persistence.Lock, lease time.Duration) error
	ReleaseLock(ctx context.Context, l persistence.Lock) error
	// WaitIdentify spaces the IDENTIFYs of one bucket across processes.
	WaitIdentify(ctx context.Context, bucket int, owner string, spacing time.Duration) error
}

// Config is what a Manager runs with. Count, Owner, Store and Start are
// required.
type Config struct {
	// Count is the total number of shards (see Recommended).
	Count int
	// Owner names this process among those sharing the shards (host and
	// process ID, say); it must be unique among them.
	Owner string
	// Lease is how long a claimed shard stays this process's without a
	// renewal, and how long its heartbeat lasts: DefaultLease if zero. A
	// dead process's shards are taken over within about a lease.
	Lease time.Duration
	// Store holds the presence, leases and identify limiter.
	Store Store
	// Start runs one shard (opens its gateway connection) until ctx is
	// done, then returns; it returns earlier with an error if the shard
	// fails. The Manager has already waited for the shard's IDENTIFY slot
	// when it calls Start.
	Start func(ctx context.Context, shard int) error
	// Fatal reports an error from Start that must end the whole process
	// (a rejected token): Run then stops every shard and returns it. Nil
	// means no error is fatal; other errors free the shard for a retry.
	Fatal func(error) bool
	// MaxConcurrency is the gateway's session_start_limit.max_concurrency:
	// shard s identifies in bucket s % MaxConcurrency. 1 if zero.
	MaxConcurrency int
	// IdentifySpacing is the time between two IDENTIFYs of one bucket:
	// persistence.DefaultIdentifySpacing (5 s, Discord's rule) if zero.
	IdentifySpacing time.Duration
	// Logger receives the Manager's logs; none if nil.
	Logger *slog.Logger
	// Now is the clock (time.Now if nil) and Rand the source of the random
	// delays that spread processes starting together (seeded from the
	// owner if nil).
	Now  func() time.Time
	Rand *rand.Rand
}

// Manager claims, runs and gives up shards for one process; see the
// package comment. Build it with New and call Run once.
type Manager struct {
	cfg   Config
	group string
	tick  time.Duration // the renewal and claim period: a third of the lease

	mu    sync.Mutex
	owned map[int]*shard // written by Run's goroutine only
}

// shard is a shard this process holds the lease of.
type shard struct {
	id        int
	stop      context.CancelFunc // ends Start; the lease is released once it returns
	releasing bool               // stopped to give it away
}

// exit reports that a shard's goroutine ended: Start returned (with err)
// and the lease was released or lost.
type exit struct {
	id  int
	err error
	// own is true when Start returned by itself, not because it was stopped.
	own bool
}

// New checks cfg, fills in its defaults and returns a Manager.
func New(cfg Config) (*Manager, error) {
	switch {
	case cfg.Count < 1:
		return nil, fmt.Errorf("%w: shard count %d, want at least 1", ErrConfig, cfg.Count)
	case cfg.Owner == "":
		return nil, fmt.Errorf("%w: no owner name", ErrConfig)
	case cfg.Store == nil || cfg.Start == nil:
		return nil, fmt.Errorf("%w: Store and Start are required", ErrConfig)
	case cfg.Lease < 0 || cfg.MaxConcurrency < 0 || cfg.IdentifySpacing < 0:
		return nil, fmt.Errorf("%w: negative lease, max concurrency or identify spacing", ErrConfig)
	}
	if cfg.Lease == 0 {
		cfg.Lease = DefaultLease
	}
	if cfg.Lease < 3*time.Millisecond {
		return nil, fmt.Errorf("%w: lease %s is too short", ErrConfig, cfg.Lease)
	}
	if cfg.MaxConcurrency == 0 {
		cfg.MaxConcurrency = 1
	}
	if cfg.IdentifySpacing == 0 {
		cfg.IdentifySpacing = persistence.DefaultIdentifySpacing
	}
	if cfg.Fatal == nil {
		cfg.Fatal = func(error) bool { return false }
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Rand == nil {
		var seed uint64
		for _, c := range cfg.Owner {
			seed = seed*31 + uint64(c)
		}
		cfg.Rand = rand.New(rand.NewPCG(seed, uint64(time.Now().UnixNano())))
	}
	return &Manager{cfg: cfg, group: fmt.Sprintf("shards:%d", cfg.Count), tick: cfg.Lease / 3,
		owned: map[int]*shard{}}, nil
}

// Recommended is the shard count to run: configured if it is set (above
// zero), else the count Discord recommends (GET /gateway/bot's shards),
// else 1.
func Recommended(gatewayBotShards, configured int) int {
	switch {
	case configured > 0:
		return configured
	case gatewayBotShards > 0:
		return gatewayBotShards
	}
	return 1
}

// LockName is the name of shard id's lease (a persistence lock) among
// count shards.
func LockName(count, id int) string { return fmt.Sprintf("shard:%d:%d", count, id) }

// Owned returns the shards this process holds, in order: running, waiting
// for their IDENTIFY slot, or stopping.
func (m *Manager) Owned() []int {
	m.mu.Lock()
	defer m.mu.Unlock()
	ids := make([]int, 0, len(m.owned))
	for id := range m.owned {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Run takes part in sharing the shards until ctx is done, then stops its
// shards, releases their leases, leaves the group and returns nil. If Start
// fails with an error Config.Fatal marks, Run stops every shard the same
// way and returns that error.
func (m *Manager) Run(ctx context.Context) error {
	log := m.cfg.Logger.With("owner", m.cfg.Owner, "shards", m.cfg.Count)
	shardCtx, stopAll := context.WithCancel(ctx)
	defer stopAll()
	exits := make(chan exit, m.cfg.Count)
	cooldown := map[int]time.Time{} // shards not to claim again before then

	// A first heartbeat, then a random part of a period before claiming,
	// so processes starting together see each other and spread out.
	m.heartbeat(ctx, log)
	timer := time.NewTimer(m.jitter(0, m.tick/2))
	defer timer.Stop()
	var fatal error
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case e := <-exits:
			if err := m.ended(e, cooldown, log); err != nil {
				fatal = err
				break loop
			}
		case <-timer.C:
			m.round(ctx, shardCtx, exits, cooldown, log)
			timer.Reset(m.jitter(m.tick*9/10, m.tick*11/10))
		}
	}

	// Stop every shard and wait for each to release its lease.
	stopAll()
	for len(m.Owned()) > 0 {
		if err := m.ended(<-exits, cooldown, log); err != nil && fatal == nil {
			fatal = err
		}
	}
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), m.tick)
	defer cancel()
	if err := m.cfg.Store.Leave(lctx, m.group, m.cfg.Owner); err != nil {
		log.Warn("shards: leaving the group", "err", err)
	}
	if fatal != nil {
		log.Error("shards: fatal error, stopping", "err", fatal)
	}
	return fatal
}

// jitter is a random duration in [lo, hi).
func (m *Manager) jitter(lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(m.cfg.Rand.Int64N(int64(hi-lo)))
}

// heartbeat records this process as live for a lease.
func (m *Manager) heartbeat(ctx context.Context, log *slog.Logger) {
	hctx, cancel := context.WithTimeout(ctx, m.tick)
	defer cancel()
	if err := m.cfg.Store.Heartbeat(hctx, m.group, m.cfg.Owner, m.cfg.Lease); err != nil && ctx.Err() == nil {
		log.Warn("shards: heartbeat", "err", err)
	}
}

// ended takes note of a shard's goroutine ending; it returns Start's error
// if Config.Fatal marks it.
func (m *Manager) ended(e exit, cooldown map[int]time.Time, log *slog.Logger) error {
	m.mu.Lock()
	delete(m.owned, e.id)
	m.mu.Unlock()
	if e.err != nil && m.cfg.Fatal(e.err) {
		return fmt.Errorf("shards: shard %d: %w", e.id, e.err)
	}
	if e.own {
		// Failed (or ended early) by itself: free it, and let another
		// process try it first.
		log.Warn("shards: shard ended", "shard", e.id, "err", e.err)
		cooldown[e.id] = m.cfg.Now().Add(m.cfg.Lease)
	}
	return nil
}

// round is one period of the Manager: heartbeat, then release the shards
// beyond this process's share or claim free ones up to it.
func (m *Manager) round(ctx, shardCtx context.Context, exits chan<- exit, cooldown map[int]time.Time, log *slog.Logger) {
	m.heartbeat(ctx, log)
	rctx, cancel := context.WithTimeout(ctx, m.tick)
	defer cancel()
	members, err := m.cfg.Store.Members(rctx, m.group)
	if err != nil {
		if ctx.Err() == nil {
			log.Warn("shards: reading the group", "err", err)
		}
		return
	}
	n := len(members)
	if !slices.Contains(members, m.cfg.Owner) {
		n++
	}
	share := (m.cfg.Count + n - 1) / n

	m.mu.Lock()
	var held []int
	for id, sh := range m.owned {
		if !sh.releasing {
			held = append(held, id)
		}
	}
	slices.Sort(held)
	if len(held) > share {
		// Give away the highest ones, and leave them to the newcomers for
		// a lease.
		for _, id := range held[share:] {
			sh := m.owned[id]
			sh.releasing = true
			sh.stop()
			cooldown[id] = m.cfg.Now().Add(m.cfg.Lease)
			log.Info("shards: releasing a shard beyond this process's share", "shard", id, "share", share, "members", n)
		}
	}
	m.mu.Unlock()

	now := m.cfg.Now()
	for id := 0; id < m.cfg.Count && len(held) < share; id++ {
		if _, mine := m.owned[id]; mine || now.Before(cooldown[id]) {
			continue
		}
		start := m.cfg.Now()
		l, err := m.cfg.Store.AcquireLock(rctx, LockName(m.cfg.Count, id), m.cfg.Owner, m.cfg.Lease)
		switch {
		case errors.Is(err, persistence.ErrLockHeld):
			continue
		case err != nil:
			if ctx.Err() == nil {
				log.Warn("shards: claiming a shard", "shard", id, "err", err)
			}
			return
		}
		delete(cooldown, id)
		runCtx, stop := context.WithCancel(shardCtx)
		m.mu.Lock()
		m.owned[id] = &shard{id: id, stop: stop}
		m.mu.Unlock()
		held = append(held, id)
		log.Info("shards: claimed a shard", "shard", id, "share", share, "members", n)
		go m.hold(runCtx, stop, id, l, start, exits, log.With("shard", id))
	}
}

// hold runs shard l's Start (after its IDENTIFY slot) while renewing its
// lease every period. It stops Start when runCtx ends (a release or Run's
// end) or when the lease cannot be kept: lost to another owner, or not
// renewed for three quarters of a lease, early enough that Start returns
// before the lease can run out and another process start the shard. Once
// Start has returned it releases the lease, if still held, and reports on
// exits.
func (m *Manager) hold(runCtx context.Context, stop context.CancelFunc, id int, l persistence.Lock, renewed time.Time, exits chan<- exit, log *slog.Logger) {
	done := make(chan error, 1)
	go func() {
		if err := m.cfg.Store.WaitIdentify(runCtx, id%m.cfg.MaxConcurrency, m.cfg.Owner, m.cfg.IdentifySpacing); err != nil {
			done <- err
			return
		}
		done <- m.cfg.Start(runCtx, id)
	}()

	bg := context.WithoutCancel(runCtx) // renewals go on while Start stops
	stopped := runCtx.Done()            // nil once noticed
	lost := false
	next := renewed.Add(m.tick)
	var (
		startErr error
		own      bool
	)
	for {
		safeEnd := renewed.Add(m.cfg.Lease * 3 / 4)
		wake := next
		if lost {
			wake = m.cfg.Now().Add(time.Hour) // nothing left to renew
		} else if safeEnd.Before(wake) {
			wake = safeEnd
		}
		t := time.NewTimer(max(wake.Sub(m.cfg.Now()), 0))
		select {
		case startErr = <-done:
			t.Stop()
			own = runCtx.Err() == nil
			stop()
		case <-stopped:
			t.Stop()
			stopped = nil
			continue
		case <-t.C:
			now := m.cfg.Now()
			if lost {
				continue
			}
			if !now.Before(safeEnd) {
				log.Warn("shards: lease not renewed in time, stopping the shard", "last_renewed", renewed)
				lost = true
				stop()
				continue
			}
			rctx, cancel := context.WithTimeout(bg, safeEnd.Sub(now))
			err := m.cfg.Store.RenewLock(rctx, l, m.cfg.Lease)
			cancel()
			switch {
			case err == nil:
				renewed, next = now, now.Add(m.tick)
			case errors.Is(err, persistence.ErrLockLost):
				log.Warn("shards: lease lost, stopping the shard", "err", err)
				lost = true
				stop()
			default:
				log.Warn("shards: renewing the lease", "err", err)
				next = now.Add(m.tick / 4)
			}
			continue
		}
		break
	}
	if !lost {
		rctx, cancel := context.WithTimeout(bg, m.tick)
		if err := m.cfg.Store.ReleaseLock(rctx, l); err != nil {
			log.Warn("shards: releasing the lease", "err", err)
		}
		cancel()
	}
	exits <- exit{id: id, err: startErr, own: own}
}
