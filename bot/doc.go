// Package bot is the Discord adapter of ttt-bot: it receives interactions
// (from the gateway or the HTTP endpoint), routes each to its feature's
// handler, and answers through Discord's REST API.
//
// What it stands on does no I/O of its own and lives in packages of its
// own: bot/command (the slash commands' definitions and the reading of
// their options into typed requests), bot/settings (a server's settings as
// data), bot/render (every message, built from data and a locale),
// bot/tourney (a tournament's steps), bot/customid (signed button IDs),
// bot/i18n (the catalogs), bot/metrics and bot/rest (the retried writes to
// Discord).
//
// Here are only what needs a Bot: the route table (routes.go) and one
// file per feature, each registering its routes next to its handlers
// (handlers.go for games, challenge.go, duel.go, hint.go, history.go,
// puzzle.go, privacy.go, abuse.go, admin.go, admin_retrain.go, settings.go,
// tourney_*.go); the life of a game on the screen (lifecycle.go,
// delivery.go, sweeper.go: turn deadlines, boards owed to the screen,
// duels, tournaments and retrains advanced by the RunSweeper loop); and the
// AI work queue's use (aiwork.go). The networks the neural and humanlike
// levels play are kept current by retrain's ModelWatcher; /ttt-admin
// retrain runs the retrain job in the RunSweeper loop.
package bot
