package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tttbot/ttt-bot/bot/metrics"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

func TestRedisErrorsHook(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	reg := metrics.NewRegistry()
	m := metrics.New(reg)

	up := redis.NewClient(&redis.Options{Addr: redistest.Start(t).Addr()})
	t.Cleanup(func() { _ = up.Close() })
	up.AddHook(redisErrors{m})
	if err := up.Get(ctx, "missing").Err(); err != redis.Nil {
		t.Fatalf("GET missing: %v", err)
	}
	_ = up.Do(ctx, "NOSUCHCOMMAND").Err()
	pipe := up.Pipeline()
	pipe.Get(ctx, "missing")
	pipe.Incr(ctx, "n")
	if _, err := pipe.Exec(ctx); err != redis.Nil {
		t.Fatalf("pipeline: %v", err)
	}

	down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: time.Second})
	t.Cleanup(func() { _ = down.Close() })
	down.AddHook(redisErrors{m})
	if err := down.Set(ctx, "k", "v", 0).Err(); err == nil {
		t.Fatal("SET on a closed port succeeded")
	}

	var b strings.Builder
	if _, err := reg.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{`ttt_redis_errors_total{command="nosuchcommand"} 1`,
		`ttt_redis_errors_total{command="set"} 1`, `ttt_redis_errors_total{command="dial"} `} {
		if !strings.Contains(got, want) {
			t.Errorf("metrics lack %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, `command="get"`) || strings.Contains(got, `command="incr"`) || strings.Contains(got, `command="client"`) {
		t.Errorf("a missing key or a good command was counted as an error:\n%s", got)
	}
}
