package sched

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestBucketOf(t *testing.T) {
	for _, tt := range []struct {
		pressure float64
		want     int
	}{
		{0, 0}, {-1, 0}, {0.25, 1}, {1, 1}, {1.01, 2}, {2, 2}, {3.5, 4}, {4, 4}, {4.5, 5},
		{7.9, 8}, {8, 8}, {64, 8}, {1e9, 8},
	} {
		if got := bucketOf(tt.pressure); got != tt.want {
			t.Errorf("bucketOf(%g) = %d, want %d", tt.pressure, got, tt.want)
		}
	}
}

// fill puts the pool in a state for Admit and Wait, which read only the
// counts: running jobs holding slots, queued jobs by class (tasks that
// never run), the service time learned per bucket of pressure.
func fill(p *Pool, running int, queued map[Class]int, cost map[int]time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running = running
	for c, n := range queued {
		for i := range n {
			p.queues[c].push(&task{job: job(c, "g", fmt.Sprintf("%s-%d", c, i)), ready: make(chan struct{})})
		}
	}
	for b, d := range cost {
		p.cost[b] = d
	}
}

// The service times of the table below, as the bot's levels behave:
// whole up to a pressure of 1, at their floors from 4.
var (
	fullCost = map[int]time.Duration{0: 400 * time.Millisecond, 1: 400 * time.Millisecond}
	botCost  = map[int]time.Duration{0: 400 * time.Millisecond, 1: 400 * time.Millisecond, 2: 270 * time.Millisecond,
		3: 150 * time.Millisecond, 4: 20 * time.Millisecond, 5: 20 * time.Millisecond, 8: 20 * time.Millisecond}
	// gomokuFloor is a floor of 100ms a move, learned at the highest
	// pressures only.
	gomokuFloor = map[int]time.Duration{0: time.Second, 8: 100 * time.Millisecond}
)

// TestAdmit: the estimate counts the work really queued and running, at
// the service time measured at the current pressure; reservations count
// only toward MaxQueue.
func TestAdmit(t *testing.T) {
	for _, tt := range []struct {
		name              string
		workers           int
		maxWait           time.Duration
		maxQueue          int
		cost              map[int]time.Duration
		running           int
		queued            map[Class]int
		reserved          int // users admitted just before
		class             Class
		wantWait          time.Duration // Wait(class)
		wantCost          time.Duration // Stats().Cost
		wantErr           string        // "" admits
		wantReservedAfter int
	}{
		{name: "a burst on an idle pool is admitted", workers: 1, maxWait: time.Second, maxQueue: 100,
			reserved: 60, wantCost: initialService, wantReservedAfter: 61},
		{name: "a burst with every slot busy and nothing queued is admitted", workers: 1, maxWait: time.Second, maxQueue: 100,
			cost: fullCost, running: 1, reserved: 60, wantWait: 200 * time.Millisecond, wantCost: 400 * time.Millisecond, wantReservedAfter: 61},
		{name: "a long queue at the floors is admitted", workers: 1, maxWait: time.Second, maxQueue: 100,
			cost: botCost, running: 1, queued: map[Class]int{Interactive: 30}, reserved: 10,
			wantWait: 610 * time.Millisecond, wantCost: 20 * time.Millisecond, wantReservedAfter: 11},
		{name: "a backlog at full cost is refused", workers: 1, maxWait: 500 * time.Millisecond, maxQueue: 100,
			cost: botCost, running: 1, queued: map[Class]int{Interactive: 1},
			wantWait: 600 * time.Millisecond, wantCost: 400 * time.Millisecond, wantErr: "about 600ms to wait, more than 500ms"},
		{name: "a backlog at the floor is refused past MaxWait", workers: 1, maxWait: 5 * time.Second, maxQueue: 100,
			cost: gomokuFloor, running: 1, queued: map[Class]int{Interactive: 60},
			wantWait: 6050 * time.Millisecond, wantCost: 100 * time.Millisecond, wantErr: "about 6.05s to wait, more than 5s"},
		{name: "an unmeasured pressure costs what the nearest lower one does", workers: 1, maxWait: 5 * time.Second, maxQueue: 100,
			cost: botCost, running: 1, queued: map[Class]int{Interactive: 6},
			wantWait: 130 * time.Millisecond, wantCost: 20 * time.Millisecond, wantReservedAfter: 1},
		{name: "nothing measured yet: the mean over all pressures", workers: 1, maxWait: time.Second, maxQueue: 100,
			running: 1, queued: map[Class]int{Batch: 3}, class: Batch,
			wantWait: 1050 * time.Millisecond, wantCost: initialService, wantErr: "about 1.05s to wait, more than 1s"},
		{name: "the slots share the queue", workers: 2, maxWait: time.Second, maxQueue: 100,
			cost: botCost, running: 2, queued: map[Class]int{Interactive: 4},
			wantWait: 675 * time.Millisecond, wantCost: 270 * time.Millisecond, wantReservedAfter: 1},
		{name: "background work is not ahead of interactive work", workers: 1, maxWait: time.Second, maxQueue: 100,
			cost: fullCost, running: 1, queued: map[Class]int{Background: 10},
			wantWait: 200 * time.Millisecond, wantCost: 400 * time.Millisecond, wantReservedAfter: 1},
		{name: "background work waits behind everything", workers: 1, maxWait: time.Second, maxQueue: 100,
			cost: fullCost, running: 1, queued: map[Class]int{Interactive: 1, Background: 1}, class: Background,
			wantWait: 1000 * time.Millisecond, wantCost: 400 * time.Millisecond, wantReservedAfter: 1},
		{name: "reservations fill MaxQueue", workers: 1, maxWait: time.Hour, maxQueue: 5,
			cost: fullCost, running: 1, queued: map[Class]int{Background: 2}, reserved: 3,
			wantWait: 200 * time.Millisecond, wantCost: 400 * time.Millisecond, wantErr: "2 jobs waiting and 3 reserved, at most 5", wantReservedAfter: 3},
		{name: "jobs of any class fill MaxQueue", workers: 1, maxWait: time.Hour, maxQueue: 5,
			cost: botCost, running: 1, queued: map[Class]int{Interactive: 2, Batch: 2, Background: 1},
			wantWait: 50 * time.Millisecond, wantCost: 20 * time.Millisecond, wantErr: "5 jobs waiting and 0 reserved, at most 5"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			p := New(Options{Workers: tt.workers, MaxWait: tt.maxWait, MaxQueue: tt.maxQueue, Now: clock.Now})
			for i := range tt.reserved {
				if err := p.Admit(tt.class, fmt.Sprint("early", i)); err != nil {
					t.Fatalf("admitting the %dth early user on an idle pool: %v", i, err)
				}
			}
			fill(p, tt.running, tt.queued, tt.cost)
			if got := p.Wait(tt.class); got != tt.wantWait {
				t.Errorf("Wait(%s) = %s, want %s", tt.class, got, tt.wantWait)
			}
			if got := p.Stats().Cost; got != tt.wantCost {
				t.Errorf("Stats().Cost = %s, want %s", got, tt.wantCost)
			}
			err := p.Admit(tt.class, "new")
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Admit = %v, want it admitted", err)
			case tt.wantErr != "" && (!errors.Is(err, ErrBusy) || !strings.HasSuffix(err.Error(), ": "+tt.wantErr)):
				t.Errorf("Admit = %v, want ErrBusy: …%s", err, tt.wantErr)
			}
			if got := p.Stats().Reserved; got != tt.wantReservedAfter {
				t.Errorf("Reserved = %d afterwards, want %d", got, tt.wantReservedAfter)
			}
		})
	}
}

// TestAdmitReservations: an admitted user's reservation counts toward
// MaxQueue until their first job is queued or ReservationTTL passes, and
// never in the estimate.
func TestAdmitReservations(t *testing.T) {
	clock := newFakeClock()
	p := New(Options{Workers: 1, MaxWait: time.Second, MaxQueue: 3, Now: clock.Now})
	for _, u := range []string{"a", "b", "c"} {
		if err := p.Admit(Interactive, u); err != nil {
			t.Fatalf("Admit(%s) on an idle pool: %v", u, err)
		}
	}
	if w := p.Wait(Interactive); w != 0 {
		t.Errorf("Wait with 3 reservations and nothing queued = %s, want 0", w)
	}
	if err := p.Admit(Interactive, "d"); !errors.Is(err, ErrBusy) || !strings.HasSuffix(err.Error(), ": 0 jobs waiting and 3 reserved, at most 3") {
		t.Fatalf("Admit with 3 reservations of 3 = %v, want ErrBusy", err)
	}

	// a's reservation is taken by a's first job, b's by b's, queued.
	h := hold(t, p, job(Interactive, "g", "a"))
	if s := p.Stats(); s.Reserved != 2 || s.Running != 1 {
		t.Fatalf("after a's first job started: %+v, want 2 reservations and a's job running", s)
	}
	q := submit(t, p, context.Background(), job(Interactive, "g", "b"))
	if s := p.Stats(); s.Reserved != 1 || s.Waiting() != 1 {
		t.Fatalf("after b's first job was queued: %+v, want c's reservation and b's job waiting", s)
	}
	// One queued, one running, at the initial 300ms: 1.5 × 300ms.
	const wait = 450 * time.Millisecond
	if err := p.Admit(Interactive, "e"); err != nil {
		t.Fatalf("Admit(e) with 1 waiting and 1 reserved of 3: %v", err)
	}
	if w := p.Wait(Interactive); w != wait {
		t.Errorf("Wait with 1 queued, 1 running and 2 reservations = %s, want %s", w, wait)
	}
	if err := p.Admit(Interactive, "f"); !errors.Is(err, ErrBusy) || !strings.HasSuffix(err.Error(), ": 1 jobs waiting and 2 reserved, at most 3") {
		t.Fatalf("Admit(f) with 1 waiting and 2 reserved of 3 = %v, want ErrBusy", err)
	}

	// A reservation lapses after ReservationTTL, not before.
	clock.Advance(ReservationTTL)
	if s := p.Stats(); s.Reserved != 2 {
		t.Errorf("Reserved = %d just at ReservationTTL, want 2", s.Reserved)
	}
	clock.Advance(time.Millisecond)
	if s := p.Stats(); s.Reserved != 0 {
		t.Errorf("Reserved = %d after ReservationTTL, want 0", s.Reserved)
	}
	if err := p.Admit(Interactive, "f"); err != nil {
		t.Errorf("Admit(f) once the reservations lapsed: %v", err)
	}

	h.free(t)
	recv(t, "b's job to start", q.started)
	q.finish <- nil
	if err := recv(t, "b's job to end", q.done); err != nil {
		t.Error(err)
	}
}

// TestAdmitMaxQueue: work already admitted is never refused, however
// full the queue.
func TestAdmitMaxQueue(t *testing.T) {
	p := New(Options{Workers: 1, MaxWait: time.Hour, MaxQueue: 3})
	h := hold(t, p, job(Interactive, "h", "h"))
	var qs []*queued
	for _, u := range []string{"a", "b"} {
		qs = append(qs, submit(t, p, context.Background(), job(Background, "g", u)))
	}
	if err := p.Admit(Interactive, "c"); err != nil {
		t.Fatalf("Admit with 2 waiting of 3: %v", err)
	}
	// c's reservation fills the queue, whatever the class asking.
	err := p.Admit(Interactive, "d")
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "2 jobs waiting and 1 reserved, at most 3") {
		t.Fatalf("Admit with the queue full = %v, want ErrBusy", err)
	}
	qs = append(qs, submit(t, p, context.Background(), job(Interactive, "g", "c")))
	if err := p.Admit(Interactive, "d"); !errors.Is(err, ErrBusy) {
		t.Fatalf("Admit with 3 jobs waiting = %v, want ErrBusy", err)
	}
	// Work already admitted is never refused.
	qs = append(qs, submit(t, p, context.Background(), job(Interactive, "g", "c")))

	h.free(t)
	for _, q := range qs {
		q.finish <- nil
	}
	for _, q := range qs {
		if err := recv(t, "a job to end", q.done); err != nil {
			t.Error(err)
		}
	}
	if err := p.Admit(Interactive, "d"); err != nil {
		t.Errorf("Admit on a drained pool: %v", err)
	}
}

// TestServiceByPressure runs jobs whose cost shrinks with the pressure
// they start at, as the bot's budgets do, on the fake clock: each bucket
// of pressure learns its own service time from the jobs that ended, and
// the estimate of a backlog uses the one of the current pressure.
func TestServiceByPressure(t *testing.T) {
	// costAt is a job's hold time at pressure pr: 400ms up to 1, 20ms
	// from 4, in a straight line between.
	costAt := func(pr float64) time.Duration {
		switch {
		case pr <= 1:
			return 400 * time.Millisecond
		case pr >= 4:
			return 20 * time.Millisecond
		}
		return 400*time.Millisecond - time.Duration((pr-1)/3*float64(380*time.Millisecond))
	}
	clock := newFakeClock()
	p := New(Options{Workers: 1, MaxWait: time.Second, MaxQueue: 100, Now: clock.Now})
	// drain queues n jobs behind a holder, lets them run one after the
	// other (at pressures n-1 down to 0), each holding its slot for
	// costAt of its pressure, and returns the pressures they started at.
	drain := func(n int) []float64 {
		h := hold(t, p, job(Interactive, "h", "holder")) // holds for no time: learns nothing
		var qs []*queued
		for i := range n {
			qs = append(qs, submit(t, p, context.Background(), job(Interactive, "g", fmt.Sprint("u", i))))
		}
		h.free(t)
		var seen []float64
		for _, q := range qs {
			s := recv(t, "a job to start", q.started)
			seen = append(seen, s.Pressure)
			clock.Advance(costAt(s.Pressure))
			q.finish <- nil
			if err := recv(t, "a job to end", q.done); err != nil {
				t.Fatal(err)
			}
		}
		return seen
	}
	if got := fmt.Sprint(drain(7)); got != "[6 5 4 3 2 1 0]" {
		t.Fatalf("the jobs started at pressures %s", got)
	}
	want := [pressureBuckets]time.Duration{400 * time.Millisecond, 400 * time.Millisecond, costAt(2), costAt(3),
		20 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond}
	p.mu.Lock()
	got := p.cost
	p.mu.Unlock()
	if got != want {
		t.Errorf("service per bucket after one job at each pressure = %v, want %v", got, want)
	}
	// More jobs move each bucket's mean an eighth of the way.
	h := hold(t, p, job(Interactive, "h", "slow"))
	clock.Advance(time.Second + 400*time.Millisecond) // a job at pressure 0 that took 1.4s
	h.free(t)
	if got, want := p.Stats().Cost, 525*time.Millisecond; got != want {
		t.Errorf("Stats().Cost on an idle pool after a 1.4s job = %s, want %s (400ms + 1s/8)", got, want)
	}

	// A backlog of 10 at the floors: 20ms a job, whatever the jobs cost at
	// no pressure; the estimate is the pool's own.
	h = hold(t, p, job(Interactive, "h", "holder"))
	var qs []*queued
	for i := range 10 {
		qs = append(qs, submit(t, p, context.Background(), job(Interactive, "g", fmt.Sprint("u", i))))
	}
	if got, want := p.Wait(Interactive), 210*time.Millisecond; got != want { // 10.5 × 20ms
		t.Errorf("Wait with 10 queued at the floor = %s, want %s", got, want)
	}
	if err := p.Admit(Interactive, "new"); err != nil {
		t.Errorf("Admit behind 10 jobs at 20ms: %v", err)
	}
	h.free(t)
	for _, q := range qs {
		s := recv(t, "a job to start", q.started)
		clock.Advance(costAt(s.Pressure))
		q.finish <- nil
		recv(t, "a job to end", q.done)
	}

	// Background jobs teach nothing: they give their slot back in steps.
	before := p.Stats()
	p.Do(context.Background(), job(Background, "", "retrain"), func(context.Context, Start) error {
		clock.Advance(time.Hour)
		return nil
	})
	if after := p.Stats(); after.Cost != before.Cost || after.Service != before.Service {
		t.Errorf("after a Background job: Cost %s, Service %s; want them unchanged at %s, %s",
			after.Cost, after.Service, before.Cost, before.Service)
	}
}
