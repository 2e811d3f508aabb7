package persistence

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// batcher coalesces the commands of concurrent callers into pipelines, so
// that under load the move path pays one write and one read system call
// (on the client and on Redis) for many commands instead of for each.
//
// At most maxFlights round trips are in flight at once. A command that
// arrives while fewer are in flight and nothing is queued is sent at once,
// alone, on the caller's context: a lone request waits for nothing. One
// that arrives while all are in flight is queued; whenever a round trip
// ends, everything queued (up to maxBatch commands) goes out as the next
// pipeline. No batch waits to fill up.
//
// A pipeline is not a transaction: each command in it runs on its own, and
// each caller gets its own command's reply or error. A Cluster client
// splits a pipeline by slot and node and follows redirects itself, so this
// works on every redis.UniversalClient.
//
// A caller's context bounds its wait. A queued command whose context has
// ended is not sent. A caller whose context ends while its command is in
// flight returns the context's error at once; the command may still run
// (as with any command cut short), and its reply is dropped when it comes.
// The pipeline itself runs on a context without cancellation, with the
// latest deadline of the commands in it, so one caller giving up does not
// fail the others'.
type batcher struct {
	rdb        redis.UniversalClient
	maxFlights int
	maxBatch   int

	mu      sync.Mutex
	queue   []*batchCall
	flights int // round trips in flight (a lone command or a flushing goroutine)

	pipelines atomic.Int64 // pipelines sent (of two commands or more), for tests
}

// batchCall is one queued command and the signal that its reply is in.
type batchCall struct {
	ctx  context.Context
	cmd  redis.Cmder
	done chan struct{}
}

// newBatcher returns a batcher on rdb; maxFlights < 1 means 1.
func newBatcher(rdb redis.UniversalClient, maxFlights, maxBatch int) *batcher {
	return &batcher{rdb: rdb, maxFlights: max(maxFlights, 1), maxBatch: max(maxBatch, 1)}
}

// do runs cmd and returns its error (cmd holds the reply), or ctx's error
// if ctx ends first.
func (b *batcher) do(ctx context.Context, cmd redis.Cmder) error {
	if err := markUnavailable(ctx.Err()); err != nil {
		cmd.SetErr(err)
		return err
	}
	b.mu.Lock()
	if b.flights < b.maxFlights && len(b.queue) == 0 {
		b.flights++
		b.mu.Unlock()
		err := b.rdb.Process(ctx, cmd)
		b.land()
		return err
	}
	c := &batchCall{ctx: ctx, cmd: cmd, done: make(chan struct{})}
	b.queue = append(b.queue, c)
	if b.flights < b.maxFlights {
		b.flights++
		go b.flush()
	}
	b.mu.Unlock()
	select {
	case <-c.done:
		return cmd.Err()
	case <-ctx.Done():
		select {
		case <-c.done: // the reply came in at the same moment: use it
			return cmd.Err()
		default:
			// cmd now belongs to the flushing goroutine, which may still
			// write its reply; the caller must not read it. A deadline
			// that passed while Redis had not answered is ErrUnavailable.
			return markUnavailable(ctx.Err())
		}
	}
}

// land ends a lone command's round trip: its slot goes to a flushing
// goroutine if commands were queued meanwhile.
func (b *batcher) land() {
	b.mu.Lock()
	if len(b.queue) > 0 {
		go b.flush() // the slot passes on
	} else {
		b.flights--
	}
	b.mu.Unlock()
}

// flush sends what is queued, one pipeline at a time, until the queue is
// empty, then gives up its slot.
func (b *batcher) flush() {
	for {
		b.mu.Lock()
		if len(b.queue) == 0 {
			b.flights--
			b.mu.Unlock()
			return
		}
		var batch []*batchCall
		if len(b.queue) <= b.maxBatch {
			batch, b.queue = b.queue, nil
		} else {
			batch = append([]*batchCall(nil), b.queue[:b.maxBatch]...)
			b.queue = b.queue[b.maxBatch:]
		}
		b.mu.Unlock()
		b.send(batch)
	}
}

// send runs the batch's live commands as one pipeline and wakes every
// caller in it.
func (b *batcher) send(batch []*batchCall) {
	live := batch[:0]
	var latest time.Time
	bounded := true
	for _, c := range batch {
		if err := markUnavailable(c.ctx.Err()); err != nil {
			c.cmd.SetErr(err) // its caller has gone (or is going): not sent
			close(c.done)
			continue
		}
		live = append(live, c)
		if d, ok := c.ctx.Deadline(); !ok {
			bounded = false
		} else if d.After(latest) {
			latest = d
		}
	}
	if len(live) == 0 {
		return
	}
	ctx := context.Background()
	if bounded {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, latest)
		defer cancel()
	}
	if len(live) == 1 {
		_ = b.rdb.Process(ctx, live[0].cmd) // the error is in the command
	} else {
		b.pipelines.Add(1)
		pipe := b.rdb.Pipeline()
		for _, c := range live {
			_ = pipe.Process(ctx, c.cmd) // queues; cannot fail
		}
		// Exec stamps a connection failure on every command it did not
		// get a reply for, so each caller sees its own outcome.
		_, _ = pipe.Exec(ctx)
	}
	for _, c := range live {
		close(c.done)
	}
}
