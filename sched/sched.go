// Package sched is the admission control of the bot's CPU-heavy work: AI
// searches, reviews, puzzle draws, AI duels and retraining run on a
// bounded number of worker slots, sized to the cores, and a queue in front
// of the slots is fair across servers and users.
//
// A Pool is a fair semaphore rather than a set of goroutines: Do waits for
// a slot and then runs the work in the caller's goroutine, so the work
// keeps its context, its stack and its panics. Cheap work (a human move, an
// easy reply, rendering, Redis) never goes through a Pool, so it never
// waits behind a search; with the default of one slot fewer than there are
// cores, a core is always left for it.
//
// Order of service: the classes in order (Interactive before Batch before
// Background); within a class, servers in turn, and within a server, users
// in turn, each user's jobs first come first served. A user never has more
// than one job running: their next one waits, whatever the free slots.
//
// Admission (Admit) goes by the work really queued and by what a job
// really costs now: the pool measures the time jobs hold their slots per
// pressure bucket (the jobs waiting per slot when each started), since the
// callers think less when the queue is long (see Start.Pressure), and
// estimates a new job's wait from the jobs queued and running at the cost
// of the current pressure. Users admitted whose first job is not queued
// yet count only against the cap on the queue's length.
package sched

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"
)

// Class is the priority of a job.
type Class int

// The classes, highest priority first.
const (
	// Interactive is an AI's reply in a game a person is waiting on.
	Interactive Class = iota
	// Batch is work a person asked for that takes a while anyway: a
	// review, a hint, a puzzle draw, the next move of an AI duel.
	Batch
	// Background is work nobody waits on: retraining. It runs only when
	// no job of a higher class is waiting, and gives its slot back at
	// each Start.Yield when one is.
	Background
	numClasses
)

// String names the class, as metrics label it.
func (c Class) String() string {
	switch c {
	case Interactive:
		return "interactive"
	case Batch:
		return "batch"
	case Background:
		return "background"
	}
	return fmt.Sprintf("class(%d)", int(c))
}

// Defaults of Options.
const (
	// DefaultMaxWait is the longest estimated wait at which Admit still
	// lets new work in.
	DefaultMaxWait = 5 * time.Second
	// DefaultMaxQueuePerWorker bounds the jobs waiting and the admitted
	// users with no job queued yet, per slot, at which Admit refuses new
	// work whatever the estimate.
	DefaultMaxQueuePerWorker = 64
	// initialService is the service time assumed before any job has
	// finished: about one AI move on the largest board.
	initialService = 300 * time.Millisecond
)

// pressureBuckets is the number of buckets of pressure the service time
// is measured in: bucket 0 is an idle queue (pressure 0), bucket k from 1
// holds the pressures over k-1 and up to k, and the last bucket all the
// pressures beyond. The bot's budgets are whole up to a pressure of 1 and
// at their floors from 4, so buckets 1 and 5 up are each one cost.
const pressureBuckets = 9

// bucketOf is the bucket of the service time of a job started at
// pressure p.
func bucketOf(p float64) int {
	if !(p > 0) {
		return 0
	}
	return int(min(math.Ceil(p), pressureBuckets-1))
}

// ReservationTTL is how long an admitted user's reservation counts toward
// MaxQueue when no job of theirs has been queued: about the time a player
// takes for a first move. A reservation is not counted in the estimated
// wait: until its job is queued it holds up nobody.
const ReservationTTL = 10 * time.Second

// ErrBusy is Admit's refusal: the queue is too long for new work.
var ErrBusy = errors.New("sched: busy")

// ErrClosed is returned by Do after Close.
var ErrClosed = errors.New("sched: pool closed")

// Options are a Pool's optional settings; the zero value asks for the
// defaults.
type Options struct {
	// Workers is the number of slots; default DefaultWorkers().
	Workers int
	// MaxWait is the estimated wait (see Pool.Wait: the jobs queued
	// ahead and half the jobs running, each at the service time measured
	// at the current pressure, over the slots) past which Admit refuses;
	// default DefaultMaxWait.
	MaxWait time.Duration
	// MaxQueue is the number of waiting jobs and reservations (admitted
	// users with no job queued yet) at which Admit refuses whatever the
	// estimate; default DefaultMaxQueuePerWorker per slot.
	MaxQueue int
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// DefaultWorkers is the default number of slots: one fewer than
// GOMAXPROCS, and at least one, so that on a machine of two or more cores
// one is always free to answer Discord.
func DefaultWorkers() int { return max(1, runtime.GOMAXPROCS(0)-1) }

// Job says who a piece of work is for.
type Job struct {
	Class Class
	// Group is the server (or "" for direct messages); servers take turns.
	Group string
	// User is the fairness key: the person the work is for, or a key of
	// its own for work nobody asked for (a duel, a retrain). One user has
	// at most one job running.
	User string
	// Patience, if positive, is how long Do waits for a slot before it
	// calls Waiting (once), for example to answer the user first and
	// edit the answer later.
	Patience time.Duration
	Waiting  func()
}

// Start describes the moment a job got its slot.
type Start struct {
	// Waited is the time spent in the queue.
	Waited time.Duration
	// Pressure is the number of Interactive and Batch jobs still waiting
	// when this one started, per slot: 0 on an idle pool.
	Pressure float64

	pool *Pool // for Yield
	job  Job
}

// Stats is a snapshot of a Pool.
type Stats struct {
	Workers, Running int
	// Queued counts the waiting jobs by class.
	Queued [numClasses]int
	// Reserved counts the admitted users with no job queued yet.
	Reserved int
	// Service is the running mean time a job held its slot, at every
	// pressure.
	Service time.Duration
	// Cost is the service time measured at the current pressure (the
	// Interactive and Batch jobs waiting per slot): what Wait counts for
	// each job.
	Cost time.Duration
}

// Waiting is the number of jobs waiting, all classes.
func (s Stats) Waiting() int {
	n := 0
	for _, q := range s.Queued {
		n += q
	}
	return n
}

// Pool is a bounded set of slots with a fair queue. It is safe for
// concurrent use; make one with New.
type Pool struct {
	workers  int
	maxWait  time.Duration
	maxQueue int
	now      func() time.Time

	mu       sync.Mutex
	running  int
	inFlight map[string]int       // slots held by each user's jobs (see Yield)
	reserved map[string]time.Time // admitted users with no job queued yet, by when
	queues   [numClasses]fairQueue
	service  time.Duration // exponentially weighted mean hold time
	// cost is the exponentially weighted mean hold time of the jobs
	// started in each bucket of pressure (bucketOf); 0 before the first.
	cost   [pressureBuckets]time.Duration
	closed bool
}

// New returns a Pool with the given options.
func New(o Options) *Pool {
	if o.Workers <= 0 {
		o.Workers = DefaultWorkers()
	}
	if o.MaxWait <= 0 {
		o.MaxWait = DefaultMaxWait
	}
	if o.MaxQueue <= 0 {
		o.MaxQueue = DefaultMaxQueuePerWorker * o.Workers
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Pool{workers: o.Workers, maxWait: o.MaxWait, maxQueue: o.MaxQueue, now: o.Now,
		inFlight: map[string]int{}, reserved: map[string]time.Time{}, service: initialService}
}

// Workers returns the number of slots.
func (p *Pool) Workers() int { return p.workers }

// Stats returns a snapshot of the pool.
func (p *Pool) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pruneLocked(p.now())
	s := Stats{Workers: p.workers, Running: p.running, Service: p.service, Reserved: len(p.reserved),
		Cost: p.costLocked(p.pressureLocked())}
	for c := range p.queues {
		s.Queued[c] = p.queues[c].n
	}
	return s
}

// Wait estimates how long a job of class c enqueued now would wait for a
// slot: the jobs queued ahead of it, and half the jobs running, times the
// service time measured at the current pressure (Stats.Cost), over the
// slots. Reservations are not counted: until their jobs are queued they
// hold up nobody.
//
// Under a steady flood the queue stays about as long and each job costs
// about that. A queue that drains with nothing more arriving gets dearer
// as it shortens (the callers' budgets grow back), so the estimate is then
// short by at most the jobs of the lowest pressures at their full cost.
func (p *Pool) Wait(c Class) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waitLocked(c)
}

func (p *Pool) waitLocked(c Class) time.Duration {
	ahead := 0
	for k := Interactive; k <= c; k++ {
		ahead += p.queues[k].n
	}
	if ahead == 0 && p.running < p.workers {
		return 0
	}
	// The jobs running finish on average half a service time from now.
	cost := p.costLocked(p.pressureLocked())
	return time.Duration(float64(cost) * (float64(ahead) + float64(p.running)/2) / float64(p.workers))
}

// pressureLocked is the pressure a job starting now sees (Start.Pressure):
// the Interactive and Batch jobs waiting, per slot.
func (p *Pool) pressureLocked() float64 {
	return float64(p.queues[Interactive].n+p.queues[Batch].n) / float64(p.workers)
}

// costLocked is the service time of a job started at pressure pr: the
// mean measured in its bucket, else in the nearest bucket of lower
// pressure measured (a job costs at least as much there), else the mean
// over all pressures.
func (p *Pool) costLocked(pr float64) time.Duration {
	for b := bucketOf(pr); b >= 0; b-- {
		if p.cost[b] > 0 {
			return p.cost[b]
		}
	}
	return p.service
}

// Admit reports whether a new piece of work of class c for user (a new
// game against a slow level, a review) should be taken on: ErrBusy
// (wrapped, with the reason) when a job of class c queued now would wait
// more than MaxWait (Wait: the work really queued and running, at what a
// job costs at the current pressure), or when the jobs waiting and the
// reservations reach MaxQueue.
//
// An admitted user holds a reservation until their first job is queued
// or ReservationTTL has passed. Reservations count toward MaxQueue only:
// a burst of new games on a quiet pool is let in, up to MaxQueue, and
// their work is judged once it is queued. Work that continues something
// already started (the next move of a running game) does not ask: it is
// never refused.
func (p *Pool) Admit(c Class, user string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	p.pruneLocked(now)
	waiting := 0
	for k := range p.queues {
		waiting += p.queues[k].n
	}
	if waiting+len(p.reserved) >= p.maxQueue {
		return fmt.Errorf("%w: %d jobs waiting and %d reserved, at most %d", ErrBusy, waiting, len(p.reserved), p.maxQueue)
	}
	if w := p.waitLocked(c); w > p.maxWait {
		return fmt.Errorf("%w: about %s to wait, more than %s", ErrBusy, w.Round(time.Millisecond), p.maxWait)
	}
	p.reserved[user] = now
	return nil
}

// pruneLocked drops the reservations older than ReservationTTL.
func (p *Pool) pruneLocked(now time.Time) {
	for u, at := range p.reserved {
		if now.Sub(at) > ReservationTTL {
			delete(p.reserved, u)
		}
	}
}

// Do waits for a slot for j, runs fn with it in the calling goroutine and
// gives the slot back. It returns fn's error, or ctx's error (wrapped)
// when ctx ends before a slot is free, or ErrClosed. A job of a user who
// has one running waits for it to finish first.
func (p *Pool) Do(ctx context.Context, j Job, fn func(ctx context.Context, s Start) error) error {
	t, err := p.enqueue(j, false)
	if err != nil {
		return err
	}
	// settled is set once the task is out of the queue and its slot, if
	// any, is in fn's hands; until then (a panic in Waiting) the deferred
	// call takes it out or gives the slot back.
	settled := false
	defer func() {
		if settled || p.cancel(t) {
			return
		}
		<-t.ready
		p.release(t, 0)
	}()
	var patience <-chan time.Time
	if j.Patience > 0 && j.Waiting != nil {
		timer := time.NewTimer(j.Patience)
		defer timer.Stop()
		patience = timer.C
	}
wait:
	for {
		select {
		case <-t.ready:
			break wait
		case <-patience:
			patience = nil
			select {
			case <-t.ready: // the slot came as patience ran out
				break wait
			default:
			}
			j.Waiting()
		case <-ctx.Done():
			if p.cancel(t) {
				settled = true
				return fmt.Errorf("sched: waiting for a slot: %w", ctx.Err())
			}
			<-t.ready // given a slot just now: run, fn sees ctx is done
			break wait
		}
	}
	settled = true
	start := p.now()
	defer func() { p.release(t, p.now().Sub(start)) }()
	return fn(ctx, Start{Waited: start.Sub(t.queued), Pressure: t.pressure, pool: p, job: j})
}

// Yield gives the slot of a running Background job back while a job of a
// higher class is waiting, and waits for it again: long background work
// calls it between steps, from inside Do's fn. It does nothing for the
// other classes. It returns ctx's error if ctx ends while it waits; the
// job then goes on counting as running (briefly over the slots) until fn
// returns, which it should do at once. Calls on one Start must not
// overlap: a job with several goroutines serialises them (the retrain job
// does, with a mutex).
func (s Start) Yield(ctx context.Context) error {
	if s.pool == nil || s.job.Class != Background {
		return nil
	}
	return s.pool.yield(ctx, s.job)
}

// yield is Start.Yield for job j of p.
func (p *Pool) yield(ctx context.Context, j Job) error {
	p.mu.Lock()
	urgent := p.queues[Interactive].n+p.queues[Batch].n > 0
	p.mu.Unlock()
	if !urgent {
		return nil
	}
	p.release(&task{job: j}, 0)
	t, err := p.enqueue(j, true)
	if err != nil {
		return err
	}
	select {
	case <-t.ready:
		return nil
	case <-ctx.Done():
		if p.cancel(t) {
			// Hold a slot again so that Do's release stays balanced;
			// counted for the user too, beside a job of theirs that may
			// have started meanwhile, which Do's release must not free.
			p.mu.Lock()
			p.running++
			p.inFlight[j.User]++
			p.mu.Unlock()
			return fmt.Errorf("sched: yielding: %w", ctx.Err())
		}
		<-t.ready
		return fmt.Errorf("sched: yielding: %w", ctx.Err())
	}
}

// Close makes Do refuse new jobs with ErrClosed; jobs waiting or running
// go on.
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
}

// task is one job in the queue.
type task struct {
	job      Job
	queued   time.Time
	ready    chan struct{} // closed when the task holds a slot
	pressure float64       // set when it gets the slot
	gone     bool          // removed from the queue (started or cancelled)
}

// enqueue queues j; resume (a Yield taking its turn again) is allowed
// after Close, since the job is running.
func (p *Pool) enqueue(j Job, resume bool) (*task, error) {
	if j.Class < 0 || j.Class >= numClasses {
		return nil, fmt.Errorf("sched: no class %d", int(j.Class))
	}
	t := &task{job: j, queued: p.now(), ready: make(chan struct{})}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed && !resume {
		return nil, ErrClosed
	}
	delete(p.reserved, j.User)
	p.queues[j.Class].push(t)
	p.dispatchLocked()
	return t, nil
}

// cancel takes t out of the queue and reports whether it was still there.
func (p *Pool) cancel(t *task) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t.gone {
		return false
	}
	p.queues[t.job.Class].remove(t)
	t.gone = true
	return true
}

// release gives t's slot back, counts how long it was held and starts the
// next jobs.
func (p *Pool) release(t *task, held time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running--
	if p.inFlight[t.job.User]--; p.inFlight[t.job.User] <= 0 {
		delete(p.inFlight, t.job.User)
	}
	if held > 0 && t.job.Class != Background {
		p.service += (held - p.service) / 8
		if b := bucketOf(t.pressure); p.cost[b] == 0 {
			p.cost[b] = held
		} else {
			p.cost[b] += (held - p.cost[b]) / 8
		}
	}
	p.dispatchLocked()
}

// dispatchLocked gives free slots to the next eligible jobs.
func (p *Pool) dispatchLocked() {
	for p.running < p.workers {
		var t *task
		for c := range p.queues {
			if t = p.queues[c].pop(p.inFlight); t != nil {
				break
			}
		}
		if t == nil {
			return
		}
		t.gone = true
		p.running++
		p.inFlight[t.job.User]++
		t.pressure = float64(p.queues[Interactive].n+p.queues[Batch].n) / float64(p.workers)
		close(t.ready)
	}
}
