package main

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/bot"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

func TestLoadServeConfig(t *testing.T) {
	good := map[string]string{
		"DISCORD_TOKEN": "tok", "DISCORD_APP_ID": "1", "CUSTOM_ID_KEY": strings.Repeat("k", 32),
		"PSEUDONYM_KEY": strings.Repeat("p", 32), "LOG_LEVEL": "debug", "DEV_GUILD_ID": "42",
	}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range good {
			m[a] = b
		}
		m[k] = v
		return m
	}
	for _, tt := range []struct {
		name string
		env  map[string]string
		want string // a fragment of the error, or "" for success
	}{
		{"complete", good, ""},
		{"no token", with("DISCORD_TOKEN", ""), "DISCORD_TOKEN is not set"},
		{"no app", with("DISCORD_APP_ID", " "), "DISCORD_APP_ID is not set"},
		{"short custom-ID key", with("CUSTOM_ID_KEY", "short"), "CUSTOM_ID_KEY must be at least 16 bytes"},
		{"no pseudonym key", with("PSEUDONYM_KEY", ""), "PSEUDONYM_KEY must be at least 16 bytes"},
		{"bad log level", with("LOG_LEVEL", "loud"), `LOG_LEVEL "loud"`},
		{"nothing", map[string]string{}, "CUSTOM_ID_KEY must"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := loadServeConfig(func(k string) string { return tt.env[k] })
			if tt.want == "" {
				if err != nil || c.token != "tok" || c.devGuild != "42" || c.logLevel.String() != "DEBUG" {
					t.Fatalf("config %+v, %v", c, err)
				}
				return
			}
			var in *inputError
			if !errors.As(err, &in) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want input error mentioning %q", err, tt.want)
			}
		})
	}
}

// TestServe runs the whole serve wiring against a fake Discord and a
// private redis-server: commands are registered, an interaction is
// answered, and cancelling the context shuts down cleanly.
func TestServe(t *testing.T) {
	fake := fakediscord.New(t, fakediscord.Options{})
	rdb := redistest.Start(t)
	cfg := serveConfig{token: fake.Token(), appID: fake.AppID(), devGuild: "42", redisURL: rdb.Addr(),
		customIDKey: []byte(strings.Repeat("k", 32)), pseudonymKey: []byte(strings.Repeat("p", 32))}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, cfg, ai.NewRegistry(), io.Discard, func(token string) (*discordgo.Session, error) {
			s, err := discordgo.New("Bot " + token)
			if err == nil {
				s.Client = fake.Client()
			}
			return s, err
		})
	}()
	wctx, wcancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer wcancel()
	for len(fake.Commands("42")) == 0 {
		select {
		case err := <-done:
			t.Fatalf("serve returned early: %v", err)
		case <-wctx.Done():
			t.Fatal("commands were never registered")
		case <-time.After(10 * time.Millisecond):
		}
	}
	if _, err := fake.WaitGateway(wctx, func(g fakediscord.GatewayState) bool { return g.Connected == 1 && g.ConnHeartbeats > 0 }); err != nil {
		t.Fatal(err)
	}
	d, err := fake.Command(wctx, fakediscord.CommandSpec{Actor: fakediscord.Actor{Guild: "42", Channel: "7"}, Name: bot.CommandName,
		Options: []fakediscord.Option{{Name: bot.SubHelp, Type: discordgo.ApplicationCommandOptionSubCommand}}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := d.Wait(wctx)
	if err != nil || r.Message == nil || !r.Message.Ephemeral || !strings.Contains(r.Message.Content, "/ttt vs-ai") {
		t.Fatalf("/ttt help answered %+v, %v", r, err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-wctx.Done():
		t.Fatal("serve did not shut down")
	}
}
