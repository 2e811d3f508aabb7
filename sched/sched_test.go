package sched

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func TestClassString(t *testing.T) {
	for c, want := range map[Class]string{Interactive: "interactive", Batch: "batch", Background: "background", 7: "class(7)"} {
		if got := c.String(); got != want {
			t.Errorf("Class(%d).String() = %q, want %q", int(c), got, want)
		}
	}
}

func TestNewDefaults(t *testing.T) {
	p := New(Options{})
	if p.Workers() != DefaultWorkers() || DefaultWorkers() < 1 {
		t.Errorf("Workers() = %d, DefaultWorkers() = %d", p.Workers(), DefaultWorkers())
	}
	s := p.Stats()
	if s.Workers != p.Workers() || s.Running != 0 || s.Waiting() != 0 || s.Reserved != 0 || s.Service != initialService {
		t.Errorf("Stats of a new pool = %+v", s)
	}
	if p.maxWait != DefaultMaxWait || p.maxQueue != DefaultMaxQueuePerWorker*p.Workers() {
		t.Errorf("maxWait %s, maxQueue %d", p.maxWait, p.maxQueue)
	}
	if w := p.Wait(Interactive); w != 0 {
		t.Errorf("Wait on an idle pool = %s, want 0", w)
	}
}

func TestDoReturnsFnError(t *testing.T) {
	p := New(Options{Workers: 1})
	boom := errors.New("boom")
	err := p.Do(context.Background(), job(Interactive, "g", "u"), func(context.Context, Start) error { return boom })
	if err != boom {
		t.Errorf("Do = %v, want fn's error", err)
	}
	if s := p.Stats(); s.Running != 0 {
		t.Errorf("Running = %d after Do", s.Running)
	}
}

func TestDoBadClass(t *testing.T) {
	p := New(Options{Workers: 1})
	for _, c := range []Class{-1, numClasses} {
		err := p.Do(context.Background(), job(c, "g", "u"), func(context.Context, Start) error {
			t.Errorf("fn ran for class %d", int(c))
			return nil
		})
		if err == nil {
			t.Errorf("Do with class %d succeeded", int(c))
		}
	}
}

func TestDoPanicReleasesSlot(t *testing.T) {
	p := New(Options{Workers: 1})
	func() {
		defer func() {
			if recover() == nil {
				t.Errorf("the panic did not reach the caller")
			}
		}()
		p.Do(context.Background(), job(Interactive, "g", "u"), func(context.Context, Start) error { panic("boom") })
	}()
	if s := p.Stats(); s.Running != 0 {
		t.Fatalf("Running = %d after a panic", s.Running)
	}
	ran := false
	p.Do(context.Background(), job(Interactive, "g", "u"), func(context.Context, Start) error { ran = true; return nil })
	if !ran {
		t.Errorf("the user's next job did not run")
	}
}

// TestConcurrent runs many jobs from many goroutines, some of them given
// up while they wait and some yielding, and checks that the slots bound
// the work, that a user never has two jobs running, and that the
// accounting ends balanced.
func TestConcurrent(t *testing.T) {
	const (
		workers    = 3
		goroutines = 24
		jobsEach   = 25
		users      = 6
	)
	p := New(Options{Workers: workers})
	var (
		active, peak atomic.Int32
		perUser      [users]atomic.Int32
		ran, gaveUp  atomic.Int32
		wg           sync.WaitGroup
	)
	// enter and leave bracket the time a job works with its slot.
	enter := func(u int) {
		n := active.Add(1)
		if n > workers {
			t.Errorf("%d jobs running with %d slots", n, workers)
		}
		for {
			m := peak.Load()
			if n <= m || peak.CompareAndSwap(m, n) {
				break
			}
		}
		if n := perUser[u].Add(1); n != 1 {
			t.Errorf("user %d has %d jobs running", u, n)
		}
	}
	leave := func(u int) {
		perUser[u].Add(-1)
		active.Add(-1)
	}
	for g := range goroutines {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 7))
			for range jobsEach {
				u := r.IntN(users)
				j := Job{Class: Class(r.IntN(int(numClasses))), Group: fmt.Sprint("g", r.IntN(3)), User: fmt.Sprint("u", u)}
				ctx, cancel := context.Background(), context.CancelFunc(func() {})
				if r.IntN(4) == 0 {
					ctx, cancel = context.WithTimeout(ctx, time.Duration(r.IntN(300))*time.Microsecond)
				}
				err := p.Do(ctx, j, func(ctx context.Context, st Start) error {
					ran.Add(1)
					enter(u)
					runtime.Gosched()
					if j.Class == Background {
						leave(u)
						if err := st.Yield(ctx); err != nil {
							return err
						}
						enter(u)
						runtime.Gosched()
					}
					leave(u)
					return nil
				})
				cancel()
				if err != nil {
					if !errors.Is(err, context.DeadlineExceeded) {
						t.Errorf("Do: %v", err)
					}
					gaveUp.Add(1)
				}
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	recv(t, "every job to end", done)
	if s := p.Stats(); s.Running != 0 || s.Waiting() != 0 || s.Reserved != 0 {
		t.Errorf("afterwards: %+v, want nothing running or queued", s)
	}
	if ran.Load() == 0 || peak.Load() < 2 {
		t.Errorf("%d jobs ran, at most %d at once: the test tests nothing", ran.Load(), peak.Load())
	}
	t.Logf("%d jobs ran, %d gave up (some after running), at most %d at once", ran.Load(), gaveUp.Load(), peak.Load())
}

func TestCancelWhileWaiting(t *testing.T) {
	p := New(Options{Workers: 1})
	h := hold(t, p, job(Interactive, "h", "h"))
	ctx, cancel := context.WithCancel(context.Background())
	first := submit(t, p, ctx, job(Interactive, "g", "u"))
	second := submit(t, p, context.Background(), job(Interactive, "g", "u"))
	other := submit(t, p, ctx, job(Batch, "g2", "v"))

	cancel()
	for _, q := range []*queued{first, other} {
		err := recv(t, "the cancelled job to return", q.done)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Do = %v, want an error wrapping context.Canceled", err)
		}
		select {
		case <-q.started:
			t.Errorf("a cancelled job ran")
		default:
		}
	}
	if s := p.Stats(); s.Waiting() != 1 || s.Queued[Interactive] != 1 || s.Queued[Batch] != 0 || s.Running != 1 {
		t.Errorf("after the cancels: %+v, want only the second job waiting", s)
	}

	h.free(t)
	recv(t, "the user's next job to start", second.started)
	second.finish <- nil
	if err := recv(t, "the user's next job to end", second.done); err != nil {
		t.Errorf("Do = %v", err)
	}
	if s := p.Stats(); s.Running != 0 || s.Waiting() != 0 {
		t.Errorf("afterwards: %+v", s)
	}
}

// TestCancelWhileRunning: a context that ends once the job has its slot
// is fn's business; the user's next job runs after it.
func TestCancelWhileRunning(t *testing.T) {
	p := New(Options{Workers: 2})
	h := hold(t, p, job(Interactive, "g", "u")) // u is busy; one slot free
	ctx, cancel := context.WithCancel(context.Background())
	first := submit(t, p, ctx, job(Interactive, "g", "u"))
	second := submit(t, p, context.Background(), job(Interactive, "g", "u"))
	h.free(t)
	// first holds the free slot now (u is no longer busy), second waits for u.
	recv(t, "the first job to start", first.started)
	if s := p.Stats(); s.Running != 1 || s.Waiting() != 1 {
		t.Fatalf("with the first running: %+v", s)
	}
	cancel() // too late to matter: first runs on
	first.finish <- nil
	if err := recv(t, "the first job to end", first.done); err != nil {
		t.Errorf("a job whose ctx ended while it ran: Do = %v, want fn's nil", err)
	}
	recv(t, "the user's second job to start", second.started)
	second.finish <- nil
	recv(t, "the second job to end", second.done)
}

// TestCancelAsSlotComes gives a job the slot at the moment its context
// ends, many times: whichever wins, the slot is given back.
func TestCancelAsSlotComes(t *testing.T) {
	p := New(Options{Workers: 1})
	var ran, refused int
	for range 200 {
		h := hold(t, p, job(Interactive, "h", "h"))
		ctx, cancel := context.WithCancel(context.Background())
		fnRan := make(chan error, 1)
		done := make(chan error, 1)
		before := p.Stats().Waiting()
		go func() {
			done <- p.Do(ctx, job(Interactive, "g", "u"), func(ctx context.Context, _ Start) error {
				fnRan <- ctx.Err()
				return nil
			})
		}()
		waitUntil(t, "the job is queued", func() bool { return p.Stats().Waiting() == before+1 })
		go cancel()
		h.free(t)
		err := recv(t, "the job to return", done)
		select {
		case <-fnRan:
			ran++
			if err != nil {
				t.Fatalf("fn ran but Do = %v", err)
			}
		default:
			refused++
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("fn did not run and Do = %v", err)
			}
		}
		if s := p.Stats(); s.Running != 0 || s.Waiting() != 0 {
			t.Fatalf("afterwards: %+v", s)
		}
	}
	t.Logf("ran %d, refused %d", ran, refused)
}

// TestCancelledBeforeDo: a job whose context has already ended, on a pool
// with a slot free, gets the slot (fn sees the context done) and gives it
// back.
func TestCancelledBeforeDo(t *testing.T) {
	p := New(Options{Workers: 1})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for range 50 {
		ran := false
		err := p.Do(ctx, job(Interactive, "g", "u"), func(ctx context.Context, _ Start) error {
			ran = true
			return ctx.Err()
		})
		if !ran || !errors.Is(err, context.Canceled) {
			t.Fatalf("ran %v, Do = %v", ran, err)
		}
		if s := p.Stats(); s.Running != 0 {
			t.Fatalf("Running = %d", s.Running)
		}
	}
}

func TestPatience(t *testing.T) {
	t.Run("called once when the slot is late", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p := New(Options{Workers: 1})
			release := make(chan struct{})
			go p.Do(t.Context(), job(Interactive, "h", "h"), func(context.Context, Start) error {
				<-release
				return nil
			})
			synctest.Wait()
			var calls atomic.Int32
			var ranAt time.Time
			done := make(chan error)
			start := time.Now()
			go func() {
				done <- p.Do(t.Context(), Job{Class: Interactive, Group: "g", User: "u", Patience: time.Second, Waiting: func() { calls.Add(1) }},
					func(context.Context, Start) error { ranAt = time.Now(); return nil })
			}()
			time.Sleep(time.Second - time.Nanosecond)
			synctest.Wait()
			if n := calls.Load(); n != 0 {
				t.Fatalf("Waiting called %d times before Patience", n)
			}
			time.Sleep(time.Minute)
			synctest.Wait()
			if n := calls.Load(); n != 1 {
				t.Fatalf("Waiting called %d times a minute after Patience, want 1", n)
			}
			close(release)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if n := calls.Load(); n != 1 {
				t.Errorf("Waiting called %d times, want 1", n)
			}
			if got := ranAt.Sub(start); got != time.Minute+time.Second-time.Nanosecond {
				t.Errorf("ran after %s", got)
			}
		})
	})
	t.Run("not called when the slot is free", func(t *testing.T) {
		p := New(Options{Workers: 1})
		for _, patience := range []time.Duration{time.Hour, time.Nanosecond} {
			for range 100 {
				called := false
				err := p.Do(context.Background(), Job{Class: Interactive, User: "u", Patience: patience, Waiting: func() { called = true }},
					func(context.Context, Start) error { return nil })
				if err != nil || called {
					t.Fatalf("patience %s: Do = %v, Waiting called %v", patience, err, called)
				}
			}
		}
	})
	t.Run("not called when the slot comes in time", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p := New(Options{Workers: 1})
			release := make(chan struct{})
			go p.Do(t.Context(), job(Interactive, "h", "h"), func(context.Context, Start) error {
				<-release
				return nil
			})
			synctest.Wait()
			called := false
			done := make(chan error)
			go func() {
				done <- p.Do(t.Context(), Job{Class: Interactive, User: "u", Patience: time.Second, Waiting: func() { called = true }},
					func(context.Context, Start) error { return nil })
			}()
			time.Sleep(time.Second / 2)
			close(release)
			if err := <-done; err != nil || called {
				t.Errorf("Do = %v, Waiting called %v", err, called)
			}
			time.Sleep(time.Hour)
			synctest.Wait()
			if called {
				t.Errorf("Waiting called after the job ended")
			}
		})
	})
}

func TestStart(t *testing.T) {
	clock := newFakeClock()
	p := New(Options{Workers: 1, Now: clock.Now})
	var idle Start
	p.Do(context.Background(), job(Interactive, "g", "a"), func(_ context.Context, s Start) error { idle = s; return nil })
	if idle.Waited != 0 || idle.Pressure != 0 {
		t.Errorf("on an idle pool: %+v, want zero Waited and Pressure", idle)
	}

	h := hold(t, p, job(Interactive, "h", "h"))
	first := submit(t, p, context.Background(), job(Interactive, "g", "a"))
	clock.Advance(time.Second)
	second := submit(t, p, context.Background(), job(Batch, "g", "b"))
	bg := submit(t, p, context.Background(), job(Background, "g", "c"))
	clock.Advance(2 * time.Second)
	h.free(t)

	s := recv(t, "the first job to start", first.started)
	if want := (Start{Waited: 3 * time.Second, Pressure: 1}); s.Waited != want.Waited || s.Pressure != want.Pressure {
		t.Errorf("first: %+v, want %+v (only the Batch job counts as pressure)", s, want)
	}
	first.finish <- nil
	s = recv(t, "the second job to start", second.started)
	if want := (Start{Waited: 2 * time.Second}); s.Waited != want.Waited || s.Pressure != want.Pressure {
		t.Errorf("second: %+v, want %+v", s, want)
	}
	second.finish <- nil
	recv(t, "the background job to start", bg.started)
	bg.finish <- nil
	recv(t, "the background job to end", bg.done)

	t.Run("per slot", func(t *testing.T) {
		p := New(Options{Workers: 2})
		h1 := hold(t, p, job(Interactive, "h", "h1"))
		h2 := hold(t, p, job(Interactive, "h", "h2"))
		var qs []*queued
		for _, u := range []string{"a", "b", "c", "d"} {
			qs = append(qs, submit(t, p, context.Background(), job(Interactive, "g", u)))
		}
		h1.free(t)
		if s := recv(t, "a to start", qs[0].started); s.Pressure != 1.5 {
			t.Errorf("pressure %v with 3 jobs waiting for 2 slots, want 1.5", s.Pressure)
		}
		h2.free(t)
		if s := recv(t, "b to start", qs[1].started); s.Pressure != 1 {
			t.Errorf("pressure %v with 2 jobs waiting for 2 slots, want 1", s.Pressure)
		}
		for _, q := range qs {
			q.finish <- nil
		}
		for _, q := range qs {
			recv(t, "a job to end", q.done)
		}
	})
}

func TestServiceMean(t *testing.T) {
	clock := newFakeClock()
	p := New(Options{Workers: 1, Now: clock.Now})
	run := func(c Class, d time.Duration) {
		p.Do(context.Background(), job(c, "g", "u"), func(context.Context, Start) error { clock.Advance(d); return nil })
	}
	run(Interactive, 2*time.Second)
	want := initialService + (2*time.Second-initialService)/8
	if got := p.Stats().Service; got != want {
		t.Errorf("Service after a 2s job = %s, want %s", got, want)
	}
	run(Background, time.Hour)
	if got := p.Stats().Service; got != want {
		t.Errorf("Service after a Background job = %s, want it unchanged at %s", got, want)
	}
	for range 200 {
		run(Batch, time.Second)
	}
	if got := p.Stats().Service; got < time.Second-time.Millisecond || got > time.Second {
		t.Errorf("Service after many 1s jobs = %s, want about 1s", got)
	}
}

func TestYield(t *testing.T) {
	p := New(Options{Workers: 1})
	bg := job(Background, "", "retrain")
	var (
		order   []string
		mu      sync.Mutex
		resumed atomic.Bool
	)
	record := func(s string) {
		mu.Lock()
		order = append(order, s)
		mu.Unlock()
	}
	goOn := make(chan struct{})
	done := make(chan error, 1)
	started := make(chan struct{})
	go func() {
		done <- p.Do(context.Background(), bg, func(ctx context.Context, st Start) error {
			close(started)
			<-goOn
			record("background step 1")
			if err := st.Yield(ctx); err != nil {
				return err
			}
			resumed.Store(true)
			record("background step 2")
			return nil
		})
	}()
	recv(t, "the background job to start", started)
	inter := submit(t, p, context.Background(), job(Interactive, "g", "u"))
	close(goOn)
	recv(t, "the interactive job to start", inter.started)
	record("interactive")
	if resumed.Load() {
		t.Errorf("the background job resumed while the interactive job ran")
	}
	if s := p.Stats(); s.Running != 1 || s.Queued[Background] != 1 {
		t.Errorf("while the interactive job runs: %+v, want the background job waiting", s)
	}
	inter.finish <- nil
	recv(t, "the interactive job to end", inter.done)
	if err := recv(t, "the background job to end", done); err != nil {
		t.Fatal(err)
	}
	want := []string{"background step 1", "interactive", "background step 2"}
	if fmt.Sprint(order) != fmt.Sprint(want) {
		t.Errorf("order %q, want %q", order, want)
	}
	if s := p.Stats(); s.Running != 0 || s.Waiting() != 0 {
		t.Errorf("afterwards: %+v", s)
	}
}

func TestYieldNothingWaiting(t *testing.T) {
	p := New(Options{Workers: 1})
	bg := job(Background, "", "retrain")
	others := make(chan *queued, 1)
	err := p.Do(context.Background(), bg, func(ctx context.Context, st Start) error {
		if err := st.Yield(ctx); err != nil {
			return fmt.Errorf("with nothing waiting: %w", err)
		}
		// Other Background work waiting does not take the slot.
		others <- submit(t, p, context.Background(), job(Background, "", "other"))
		if err := st.Yield(ctx); err != nil {
			return fmt.Errorf("with background work waiting: %w", err)
		}
		if s := p.Stats(); s.Running != 1 || s.Queued[Background] != 1 {
			return fmt.Errorf("after Yield: %+v", s)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	q := <-others
	recv(t, "the other background job to start", q.started)
	q.finish <- nil
	recv(t, "the other background job to end", q.done)
}

func TestYieldCancelled(t *testing.T) {
	p := New(Options{Workers: 1})
	bg := job(Background, "", "retrain")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan struct{})
	goOn := make(chan struct{})
	done := make(chan error, 1)
	yieldErr := make(chan error, 1)
	go func() {
		done <- p.Do(context.Background(), bg, func(_ context.Context, st Start) error {
			close(started)
			<-goOn
			err := st.Yield(ctx)
			yieldErr <- err
			return err
		})
	}()
	recv(t, "the background job to start", started)
	inter := submit(t, p, context.Background(), job(Interactive, "g", "u"))
	close(goOn)
	// The background job yields; the interactive job takes the slot and
	// keeps it while the yield is cancelled.
	recv(t, "the interactive job to start", inter.started)
	waitUntil(t, "the background job is queued again", func() bool { return p.Stats().Queued[Background] == 1 })
	cancel()
	if err := recv(t, "Yield to return", yieldErr); !errors.Is(err, context.Canceled) {
		t.Errorf("Yield = %v, want an error wrapping context.Canceled", err)
	}
	if err := recv(t, "the background job to end", done); !errors.Is(err, context.Canceled) {
		t.Errorf("Do = %v", err)
	}
	if s := p.Stats(); s.Running != 1 || s.Waiting() != 0 {
		t.Errorf("with only the interactive job left: %+v", s)
	}
	inter.finish <- nil
	recv(t, "the interactive job to end", inter.done)
	if s := p.Stats(); s.Running != 0 || s.Waiting() != 0 {
		t.Errorf("afterwards: %+v, want nothing running or waiting", s)
	}
	// The pool works on.
	if err := p.Do(context.Background(), bg, func(context.Context, Start) error { return nil }); err != nil {
		t.Errorf("Do afterwards: %v", err)
	}
}

// TestYieldCancelledKeepsUserExclusive: a Background job of user u yields
// to u's own Interactive job, then its yield is cancelled. While the
// Interactive job runs, u's next job must wait.
func TestYieldCancelledKeepsUserExclusive(t *testing.T) {
	p := New(Options{Workers: 2})
	bg := job(Background, "", "u")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan struct{})
	goOn := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- p.Do(context.Background(), bg, func(_ context.Context, st Start) error {
			close(started)
			<-goOn
			return st.Yield(ctx)
		})
	}()
	recv(t, "the background job to start", started)
	inter := submit(t, p, context.Background(), job(Interactive, "g", "u")) // waits for u
	close(goOn)
	recv(t, "u's interactive job to start", inter.started)
	waitUntil(t, "the background job is queued again", func() bool { return p.Stats().Queued[Background] == 1 })
	cancel()
	if err := recv(t, "the background job to end", done); !errors.Is(err, context.Canceled) {
		t.Errorf("Do = %v", err)
	}
	// u's interactive job still runs: u's next job waits, though a slot is free.
	thirdDone := make(chan error, 1)
	thirdEnd := make(chan struct{})
	go func() {
		thirdDone <- p.Do(context.Background(), job(Interactive, "g", "u"), func(context.Context, Start) error {
			<-thirdEnd
			return nil
		})
	}()
	waitUntil(t, "u's third job is queued or running", func() bool {
		s := p.Stats()
		return s.Waiting() == 1 || s.Running == 2
	})
	if s := p.Stats(); s.Running != 1 {
		t.Errorf("u's third job got a slot while u's interactive job runs: %+v", s)
	}
	inter.finish <- nil
	recv(t, "the interactive job to end", inter.done)
	close(thirdEnd)
	recv(t, "u's third job to end", thirdDone)
	if s := p.Stats(); s.Running != 0 || s.Waiting() != 0 {
		t.Errorf("afterwards: %+v", s)
	}
}

func TestClose(t *testing.T) {
	p := New(Options{Workers: 1})
	h := hold(t, p, job(Interactive, "h", "h"))
	waiting := submit(t, p, context.Background(), job(Batch, "g", "u"))
	p.Close()
	err := p.Do(context.Background(), job(Interactive, "g", "v"), func(context.Context, Start) error {
		t.Errorf("fn ran after Close")
		return nil
	})
	if !errors.Is(err, ErrClosed) {
		t.Errorf("Do after Close = %v, want ErrClosed", err)
	}
	// Jobs running or waiting go on.
	h.free(t)
	recv(t, "the waiting job to start", waiting.started)
	waiting.finish <- nil
	if err := recv(t, "the waiting job to end", waiting.done); err != nil {
		t.Errorf("Do = %v", err)
	}
	if s := p.Stats(); s.Running != 0 || s.Waiting() != 0 {
		t.Errorf("afterwards: %+v", s)
	}
}

// TestYieldAfterClose: a Background job that yields after Close keeps
// its place in the pool: it resumes after the waiting job, and the
// accounting stays balanced.
func TestYieldAfterClose(t *testing.T) {
	p := New(Options{Workers: 1})
	bg := job(Background, "", "retrain")
	started := make(chan struct{})
	goOn := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- p.Do(context.Background(), bg, func(ctx context.Context, st Start) error {
			close(started)
			<-goOn
			return st.Yield(ctx)
		})
	}()
	recv(t, "the background job to start", started)
	inter := submit(t, p, context.Background(), job(Interactive, "g", "u"))
	p.Close()
	close(goOn)
	recv(t, "the interactive job to start", inter.started)
	inter.finish <- nil
	recv(t, "the interactive job to end", inter.done)
	if err := recv(t, "the background job to end", done); err != nil {
		t.Errorf("Do = %v", err)
	}
	if s := p.Stats(); s.Running != 0 || s.Waiting() != 0 {
		t.Errorf("afterwards: %+v, want nothing running or waiting", s)
	}
}

// TestWaitingPanics: a panic in Waiting leaves the pool as it was: the
// job leaves the queue (or gives back the slot it was given), and the
// user's and everyone's later jobs run.
func TestWaitingPanics(t *testing.T) {
	p := New(Options{Workers: 1})
	h := hold(t, p, job(Interactive, "g", "blocker"))
	func() {
		defer func() {
			if r := recover(); r == nil {
				t.Fatal("the panic in Waiting did not reach the caller")
			}
		}()
		j := job(Interactive, "g", "u")
		j.Patience, j.Waiting = time.Nanosecond, func() { panic("waiting") }
		_ = p.Do(context.Background(), j, func(context.Context, Start) error {
			t.Error("fn ran after Waiting panicked")
			return nil
		})
	}()
	if s := p.Stats(); s.Waiting() != 0 || s.Running != 1 {
		t.Fatalf("after the panic: %+v, want the blocker alone", s)
	}
	h.free(t)
	for _, u := range []string{"u", "v"} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := p.Do(ctx, job(Interactive, "g", u), func(context.Context, Start) error { return nil })
		cancel()
		if err != nil {
			t.Fatalf("%s's job after the panic: %v", u, err)
		}
	}
	if s := p.Stats(); s.Running != 0 || s.Waiting() != 0 {
		t.Fatalf("pool at the end: %+v, want idle", s)
	}
}
