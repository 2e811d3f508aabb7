package sched_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tttbot/ttt-bot/sched"
)

// A new game asks Admit first; each AI move then runs with a slot of the
// pool, in the caller's goroutine.
func Example() {
	pool := sched.New(sched.Options{Workers: 2})
	job := sched.Job{Class: sched.Interactive, Group: "guild-1", User: "alice"}

	if err := pool.Admit(job.Class, job.User); err != nil {
		fmt.Println("try again later:", err)
		return
	}
	err := pool.Do(context.Background(), job, func(ctx context.Context, s sched.Start) error {
		fmt.Printf("searching for alice: %d others waiting per slot\n", int(s.Pressure))
		return nil
	})
	fmt.Println("done:", err)

	s := pool.Stats()
	fmt.Printf("running %d, waiting %d, reserved %d\n", s.Running, s.Waiting(), s.Reserved)
	// Output:
	// searching for alice: 0 others waiting per slot
	// done: <nil>
	// running 0, waiting 0, reserved 0
}

// Admit judges new work by the work really queued: a burst of new games
// on a quiet pool is let in, up to MaxQueue, which counts the admitted
// users whose first job is not queued yet as well as the jobs waiting.
func ExamplePool_Admit() {
	pool := sched.New(sched.Options{Workers: 1, MaxWait: time.Second, MaxQueue: 2})
	for _, user := range []string{"alice", "bob", "carol"} {
		err := pool.Admit(sched.Interactive, user)
		fmt.Println(user+":", err, errors.Is(err, sched.ErrBusy))
	}
	// Output:
	// alice: <nil> false
	// bob: <nil> false
	// carol: sched: busy: 0 jobs waiting and 2 reserved, at most 2 true
}

// Background work calls Yield between steps: with nothing more urgent
// waiting it returns at once and the work goes on.
func ExampleStart_Yield() {
	pool := sched.New(sched.Options{Workers: 1})
	job := sched.Job{Class: sched.Background, User: "retrain:3x3"}
	err := pool.Do(context.Background(), job, func(ctx context.Context, st sched.Start) error {
		for step := range 3 {
			if err := st.Yield(ctx); err != nil {
				return err
			}
			fmt.Println("training step", step)
		}
		return nil
	})
	fmt.Println("done:", err)
	// Output:
	// training step 0
	// training step 1
	// training step 2
	// done: <nil>
}

func ExamplePool_Close() {
	pool := sched.New(sched.Options{Workers: 1})
	pool.Close()
	err := pool.Do(context.Background(), sched.Job{User: "alice"}, func(context.Context, sched.Start) error { return nil })
	fmt.Println(errors.Is(err, sched.ErrClosed))
	// Output: true
}
