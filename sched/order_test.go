package sched

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"testing"
)

// orderJob is a job of an order-of-service case.
type orderJob struct {
	name string
	job  Job
	// then are jobs submitted while this one runs (pools of one slot
	// only: they must queue), after the ones queued at the start.
	then []orderJob
}

func job(c Class, group, user string) Job { return Job{Class: c, Group: group, User: user} }

func named(name string, c Class, group, user string, then ...orderJob) orderJob {
	return orderJob{name: name, job: job(c, group, user), then: then}
}

// repeat returns n jobs named prefix1..prefixN for one user.
func repeat(prefix string, n int, c Class, group, user string) []orderJob {
	var js []orderJob
	for i := range n {
		js = append(js, named(prefix+strconv.Itoa(i+1), c, group, user))
	}
	return js
}

func TestOrderOfService(t *testing.T) {
	const I, B, G = Interactive, Batch, Background
	tests := []struct {
		name    string
		workers int
		// hold are jobs that take every slot first; once all the jobs
		// are queued they are freed one by one, in order, each time
		// waiting until whatever can run has run.
		hold []Job
		jobs []orderJob
		want []string
	}{{
		name:    "classes in priority order",
		workers: 1,
		hold:    []Job{job(I, "h", "h")},
		jobs: []orderJob{
			named("bg", G, "g", "a"),
			named("batch1", B, "g", "b"),
			named("int1", I, "g", "c"),
			named("batch2", B, "g", "d"),
			named("int2", I, "g2", "e"),
			named("bg2", G, "g2", "f"),
		},
		want: []string{"int1", "int2", "batch1", "batch2", "bg", "bg2"},
	}, {
		name:    "a group with ten jobs takes turns with a group with one",
		workers: 1,
		hold:    []Job{job(I, "h", "h")},
		jobs:    append(repeat("A", 10, I, "A", "a"), named("B1", I, "B", "b")),
		want:    []string{"A1", "B1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "A9", "A10"},
	}, {
		name:    "groups take turns",
		workers: 1,
		hold:    []Job{job(I, "h", "h")},
		jobs: slices.Concat(
			repeat("A", 3, I, "A", "a"),
			repeat("B", 2, I, "B", "b"),
			repeat("C", 1, I, "C", "c"),
		),
		want: []string{"A1", "B1", "C1", "A2", "B2", "A3"},
	}, {
		name:    "groups take turns whatever their number of users",
		workers: 1,
		hold:    []Job{job(I, "h", "h")},
		jobs: []orderJob{
			named("A-a", I, "A", "a"),
			named("A-b", I, "A", "b"),
			named("A-c", I, "A", "c"),
			named("B-d", I, "B", "d"),
		},
		want: []string{"A-a", "B-d", "A-b", "A-c"},
	}, {
		name:    "users take turns within a group",
		workers: 1,
		hold:    []Job{job(I, "h", "h")},
		jobs: []orderJob{
			named("a1", I, "g", "a"),
			named("a2", I, "g", "a"),
			named("a3", I, "g", "a"),
			named("b1", I, "g", "b"),
			named("b2", I, "g", "b"),
			named("c1", I, "g", "c"),
		},
		want: []string{"a1", "b1", "c1", "a2", "b2", "a3"},
	}, {
		name:    "each user's jobs first come first served",
		workers: 1,
		hold:    []Job{job(I, "h", "h")},
		jobs: []orderJob{
			named("a1", I, "g", "a"),
			named("a2", I, "g", "a"),
			named("b1", I, "g", "b"),
			named("a3", I, "g", "a"),
			named("b2", I, "g", "b"),
			named("a4", I, "g", "a"),
		},
		want: []string{"a1", "b1", "a2", "b2", "a3", "a4"},
	}, {
		name:    "a newcomer group waits for the groups already waiting",
		workers: 1,
		hold:    []Job{job(I, "h", "h")},
		jobs: []orderJob{
			named("A1", I, "A", "a", named("C1", I, "C", "c")),
			named("A2", I, "A", "a"),
			named("B1", I, "B", "b"),
			named("B2", I, "B", "b"),
		},
		// When C1 arrives, B's turn is next and A (still waiting)
		// comes after B: C comes after both.
		want: []string{"A1", "B1", "A2", "C1", "B2"},
	}, {
		name:    "a newcomer user waits for the users already waiting",
		workers: 1,
		hold:    []Job{job(I, "h", "h")},
		jobs: []orderJob{
			named("a1", I, "g", "a", named("c1", I, "g", "c")),
			named("a2", I, "g", "a"),
			named("b1", I, "g", "b"),
			named("b2", I, "g", "b"),
		},
		want: []string{"a1", "b1", "a2", "c1", "b2"},
	}, {
		name:    "a group that empties and comes back is a newcomer",
		workers: 1,
		hold:    []Job{job(I, "h", "h")},
		jobs: []orderJob{
			named("A1", I, "A", "a", named("A2", I, "A", "a")),
			named("B1", I, "B", "b"),
			named("C1", I, "C", "c"),
		},
		want: []string{"A1", "B1", "C1", "A2"},
	}, {
		name:    "a user with a job running is skipped while others run",
		workers: 2,
		// x's slot is freed first; u keeps running meanwhile.
		hold: []Job{job(I, "x", "x"), job(G, "elsewhere", "u")},
		jobs: []orderJob{
			named("u1", I, "g", "u"),
			named("v1", I, "g", "v"),
			named("u2", I, "g", "u"),
			named("w1", B, "g", "w"),
		},
		want: []string{"v1", "w1", "u1", "u2"},
	}, {
		name:    "a busy user's queued job does not hold up a lower class",
		workers: 2,
		hold:    []Job{job(I, "x", "x"), job(I, "g", "u")},
		jobs: []orderJob{
			named("u-interactive", I, "g", "u"),
			named("v-background", G, "g", "v"),
		},
		want: []string{"v-background", "u-interactive"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(Options{Workers: tt.workers})
			var (
				mu   sync.Mutex
				got  []string
				wg   sync.WaitGroup
				errs = make(chan error, 100)
			)
			// enqueue submits oj and reports whether it got queued.
			var enqueue func(oj orderJob) bool
			enqueue = func(oj orderJob) bool {
				before := p.Stats().Waiting()
				wg.Go(func() {
					err := p.Do(context.Background(), oj.job, func(context.Context, Start) error {
						mu.Lock()
						got = append(got, oj.name)
						mu.Unlock()
						for _, next := range oj.then {
							if !enqueue(next) {
								t.Errorf("%s was not queued", next.name)
							}
						}
						return nil
					})
					if err != nil {
						errs <- err
					}
				})
				return eventually(func() bool { return p.Stats().Waiting() == before+1 })
			}

			holders := make([]*holder, len(tt.hold))
			for i, j := range tt.hold {
				holders[i] = hold(t, p, j)
			}
			for _, oj := range tt.jobs {
				if !enqueue(oj) {
					t.Fatalf("%s was not queued", oj.name)
				}
			}
			for i, h := range holders {
				h.free(t)
				left := len(holders) - i - 1
				waitUntil(t, "the jobs that can run have run", func() bool { return p.Stats().Running == left })
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Errorf("Do: %v", err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("order of service\n got %q\nwant %q", got, tt.want)
			}
			if s := p.Stats(); s.Running != 0 || s.Waiting() != 0 {
				t.Errorf("afterwards: %+v, want nothing running or queued", s)
			}
		})
	}
}
