package persistence

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/redis/go-redis/v9"
)

// Redis being out of reach is told apart from every other failure here,
// once for all the Store's calls: New installs unavailableHook on its
// client, which marks each failed command whose error says Redis could
// not be reached (see unavailable) as ErrUnavailable. The batcher marks
// the context deadlines it returns itself.

// unavailableError is an error of the Redis client marked as
// ErrUnavailable; it still wraps the client's error.
type unavailableError struct{ err error }

func (e *unavailableError) Error() string { return "persistence: redis unavailable: " + e.err.Error() }

// Unwrap makes the error both ErrUnavailable and the client's error for
// errors.Is and errors.As.
func (e *unavailableError) Unwrap() []error { return []error{ErrUnavailable, e.err} }

// markUnavailable returns err marked as ErrUnavailable when it says that
// Redis could not be reached, and err itself otherwise.
func markUnavailable(err error) error {
	if !unavailable(err) {
		return err
	}
	return &unavailableError{err: err}
}

// unavailableReplies are the prefixes of the replies with which a Redis
// that is up refuses commands for a while: loading its data after a
// restart, a cluster or a failover not settled, a replica taking writes.
var unavailableReplies = []string{"LOADING", "CLUSTERDOWN", "MASTERDOWN", "TRYAGAIN", "READONLY"}

// unavailable reports whether err says that Redis could not be reached or
// did not answer in time: a network error (refused, reset, closed, timed
// out, a name that does not resolve), a connection cut mid-reply, no free
// connection in the pool, a closed client, a context deadline during a
// call, or a reply in unavailableReplies. A reply of Redis (redis.Nil, a
// script's error, a lost WATCH) and a cancelled context are not.
func unavailable(err error) bool {
	if err == nil || errors.Is(err, ErrUnavailable) || errors.Is(err, redis.Nil) || errors.Is(err, redis.TxFailedErr) {
		return false
	}
	for _, target := range []error{context.DeadlineExceeded, redis.ErrPoolTimeout, redis.ErrPoolExhausted, redis.ErrClosed,
		io.EOF, io.ErrUnexpectedEOF, syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.EPIPE} {
		if errors.Is(err, target) {
			return true
		}
	}
	if errors.Is(err, context.Canceled) {
		return false // the caller gave up: not Redis's doing
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	var re redis.Error
	if errors.As(err, &re) {
		msg := strings.TrimPrefix(re.Error(), "ERR ")
		for _, p := range unavailableReplies {
			if strings.HasPrefix(msg, p) {
				return true
			}
		}
	}
	return false
}

// unavailableHook marks the errors of commands and pipelines that say
// Redis could not be reached as ErrUnavailable, on the command (what
// Result and Err return) and as the returned error.
type unavailableHook struct{}

func (unavailableHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (unavailableHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if marked := markUnavailable(err); marked != err {
			cmd.SetErr(marked)
			return marked
		}
		return err
	}
}

func (unavailableHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, cmd := range cmds {
			if cerr := cmd.Err(); cerr != nil {
				if marked := markUnavailable(cerr); marked != cerr {
					cmd.SetErr(marked)
				}
			}
		}
		return markUnavailable(err)
	}
}
