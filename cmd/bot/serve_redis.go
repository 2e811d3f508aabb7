package main

import (
	"context"
	"errors"
	"net"
	"strings"

	"github.com/redis/go-redis/v9"
	"github.com/tttbot/ttt-bot/bot/metrics"
)

// redisErrors is a go-redis hook that counts failed commands in the bot's
// metrics; a missing key (redis.Nil), a failed WATCH transaction and the
// optional CLIENT commands of the connection handshake are not errors.
type redisErrors struct{ m *metrics.Metrics }

var _ redis.Hook = redisErrors{}

// DialHook counts failed connection attempts (each retry too) as command
// "dial".
func (h redisErrors) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := next(ctx, network, addr)
		if err != nil {
			h.m.RedisError("dial")
		}
		return c, err
	}
}

// ProcessHook counts a failed command.
func (h redisErrors) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		h.count(cmd, err)
		return err
	}
}

// ProcessPipelineHook counts the failed commands of a pipeline.
func (h redisErrors) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, c := range cmds {
			h.count(c, c.Err())
		}
		return err
	}
}

// count records err of cmd if it is a failure.
func (h redisErrors) count(cmd redis.Cmder, err error) {
	if err == nil || errors.Is(err, redis.Nil) || errors.Is(err, redis.TxFailedErr) || isHandshake(cmd) {
		return
	}
	h.m.RedisError(strings.ToLower(cmd.Name()))
}

// isHandshake reports whether cmd is a CLIENT command: go-redis sends
// CLIENT SETINFO and CLIENT MAINT_NOTIFICATIONS when it connects and
// ignores their failure on servers that lack them (before Redis 7.2); the
// bot sends no CLIENT command of its own.
func isHandshake(cmd redis.Cmder) bool {
	return strings.EqualFold(cmd.Name(), "client")
}
