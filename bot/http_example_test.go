package bot_test

import (
	"context"
	"crypto/ed25519"
	"log/slog"
	"net/http"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/bot"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/httpmode"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/metrics"
	"github.com/tttbot/ttt-bot/persistence"
)

// ExampleNewEndpoint wires a Bot for HTTP interactions mode: the
// InlineDiscord goes in the Bot's Deps, the Endpoint serves Discord's
// requests, and shutdown stops the listener first, then lets the
// interactions in flight finish.
func ExampleNewEndpoint() {
	serve := func(ctx context.Context, ses *discordgo.Session, store *persistence.Store, cat *i18n.Catalog,
		signer *customid.Signer, pub ed25519.PublicKey, log *slog.Logger) error {
		metrics := metrics.New(metrics.NewRegistry())
		b, err := bot.New(bot.Deps{Discord: httpmode.NewInlineDiscord(ses), Store: store, Levels: ai.NewRegistry(),
			Catalog: cat, Signer: signer, Logger: log, AppID: "123"}, bot.Options{Metrics: metrics})
		if err != nil {
			return err
		}
		ep, err := httpmode.NewEndpoint(b, b.Inline(), pub, httpmode.EndpointOptions{Metrics: metrics})
		if err != nil {
			return err
		}
		srv := &http.Server{Addr: ":8080", Handler: ep, ReadHeaderTimeout: 5 * time.Second}
		go func() { _ = srv.ListenAndServe() }()
		<-ctx.Done()
		drain, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(drain)
		return ep.Shutdown(drain)
	}
	_ = serve
}
