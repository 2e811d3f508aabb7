package persistence

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestUnavailable tells the errors that say Redis could not be reached
// from the others, wrapped as the Store wraps them, and checks that a
// marked error is still the client's error.
func TestUnavailable(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"connection refused", refused, true},
		{"connection reset", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, true},
		{"broken pipe", fmt.Errorf("write: %w", syscall.EPIPE), true},
		{"i/o timeout", &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}, true},
		{"unknown host", &net.DNSError{Err: "no such host", Name: "redis", IsNotFound: true}, true},
		{"closed connection", net.ErrClosed, true},
		{"cut mid-reply", io.EOF, true},
		{"short reply", io.ErrUnexpectedEOF, true},
		{"pool timeout", redis.ErrPoolTimeout, true},
		{"pool exhausted", redis.ErrPoolExhausted, true},
		{"closed client", redis.ErrClosed, true},
		{"context deadline", context.DeadlineExceeded, true},
		{"loading", redisReply("LOADING Redis is loading the dataset in memory"), true},
		{"cluster down", redisReply("CLUSTERDOWN The cluster is down"), true},
		{"master down", redisReply("MASTERDOWN Link with MASTER is down"), true},
		{"try again", redisReply("TRYAGAIN Multiple keys request during rehashing of slot"), true},
		{"read-only replica", redisReply("READONLY You can't write against a read only replica."), true},
		{"wrapped twice", fmt.Errorf("persistence: load game: %w", fmt.Errorf("deadline index: %w", refused)), true},
		{"nil reply", redis.Nil, false},
		{"lost watch", redis.TxFailedErr, false},
		{"script error", redisReply("ERR Error running script: bad move"), false},
		{"wrong type", redisReply("WRONGTYPE Operation against a key holding the wrong kind of value"), false},
		{"cancelled", context.Canceled, false},
		{"not found", ErrNotFound, false},
		{"conflict", ErrConflict, false},
		{"corrupt", fmt.Errorf("%w: bad json", ErrCorrupt), false},
		{"nil", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := unavailable(tt.err); got != tt.want {
				t.Fatalf("unavailable(%v) = %v, want %v", tt.err, got, tt.want)
			}
			marked := markUnavailable(tt.err)
			if got := errors.Is(marked, ErrUnavailable); got != tt.want {
				t.Fatalf("markUnavailable(%v) is ErrUnavailable: %v, want %v", tt.err, got, tt.want)
			}
			if tt.err != nil && !errors.Is(marked, tt.err) {
				t.Fatalf("markUnavailable(%v) = %v, no longer the client's error", tt.err, marked)
			}
			if again := markUnavailable(marked); again != marked {
				t.Fatalf("marked twice: %v", again)
			}
		})
	}
}

// redisReply is an error reply of Redis, as go-redis returns it.
type redisReply string

func (e redisReply) Error() string { return string(e) }
func (redisReply) RedisError()     {}
