package bot

import (
	"slices"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
)

// TestRoutesCoverCommands checks the route table and command.Parse's
// parsers against the commands the bot registers with Discord: every
// subcommand (and every subcommand of a group) has a route and a parser,
// and every route and parser is a registered subcommand, but for the
// redirects of commands that moved: each old path of command.Moved has a
// redirect to its registered new path, and is itself no longer registered.
func TestRoutesCoverCommands(t *testing.T) {
	var paths []string
	for _, cmd := range command.Commands(testCatalog(t), []string{"random", "easy", "minimax", "mcts", "perfect"}) {
		for _, sub := range cmd.Options {
			switch sub.Type {
			case discordgo.ApplicationCommandOptionSubCommand:
				paths = append(paths, command.Path(cmd.Name, sub.Name))
			case discordgo.ApplicationCommandOptionSubCommandGroup:
				for _, inner := range sub.Options {
					paths = append(paths, command.Path(cmd.Name, sub.Name, inner.Name))
				}
			}
		}
	}
	for _, p := range paths {
		if _, ok := commandRoutes[p]; !ok {
			t.Errorf("command %s has no route", p)
		}
	}
	moved := command.Moved()
	for p, r := range commandRoutes {
		switch {
		case r.movedTo != "":
			if slices.Contains(paths, p) {
				t.Errorf("route %s redirects to %s, but %s is still a registered command", p, r.movedTo, p)
			}
			if !slices.Contains(paths, r.movedTo) {
				t.Errorf("route %s redirects to %s, which is no registered command", p, r.movedTo)
			}
			if moved[p] != r.movedTo {
				t.Errorf("route %s redirects to %s; command.Moved says %q", p, r.movedTo, moved[p])
			}
		case !slices.Contains(paths, p):
			t.Errorf("route %s is no registered command", p)
		}
	}
	for from, to := range moved {
		if r, ok := commandRoutes[from]; !ok || r.movedTo != to {
			t.Errorf("command %s moved to %s, but has no redirect", from, to)
		}
	}
	// Every command Discord sends has a parser, and every parser a command.
	if parsed := command.Paths(); !slices.Equal(parsed, slices.Sorted(slices.Values(paths))) {
		t.Errorf("command.Parse reads %v; the registered commands are %v", parsed, paths)
	}
	if len(paths) < 25 {
		t.Errorf("only %d command paths; is the walk stale?", len(paths))
	}
}

// TestRoutesCoverActions checks that every custom-ID action has a route,
// and that the buttons of a game's own board are the ones that work only
// in its channel.
func TestRoutesCoverActions(t *testing.T) {
	boardOnly := []customid.Action{customid.ActionMove, customid.ActionResign, customid.ActionAccept, customid.ActionJoin,
		customid.ActionDecline, customid.ActionCancel, customid.ActionRematch}
	for a := customid.ActionMove; a <= customid.ActionTournament; a++ {
		r, ok := componentRoutes[a]
		if !ok {
			t.Errorf("action %s has no route", a)
			continue
		}
		if want := !slices.Contains(boardOnly, a); r.anywhere != want {
			t.Errorf("action %s works anywhere: %v, want %v", a, r.anywhere, want)
		}
	}
}
