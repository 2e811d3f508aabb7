package bot

import (
	"context"
	"fmt"

	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/render"
)

// How an interaction finds its handler: a table of routes, not switches.
//
// A slash command is routed by its path: "ttt/vs-ai", "ttt-admin/set",
// "ttt-tournament/create". Package bot/command reads the command's
// options into its typed request (command.Parse), and its route hands the
// request to the handler. A command that moved keeps a route at its old
// path (routeMoved): Discord's clients cache the list of commands, and a
// stale one still sends the old path, which is answered privately with the
// new one rather than "unknown command". A button or menu is routed by its
// custom ID's action. Each feature registers its routes in its own file
// (an init function next to its handlers), so a new command is its
// definition, request and parser in bot/command, one registration here,
// its catalog keys and its goldens.
// Cross-cutting rules that wrap whole routes are middleware: moderatorOnly
// (/ttt-admin), playable (the server's channels, role and games limits,
// for the commands that start a game). The rules every interaction passes
// (a redelivery is ignored, the per-user rate limit) are checked once
// before routing (Bot.handle): they hold for a click on a stale button
// too, and a redelivery must not count against the rate limit.

// handler handles a parsed command.
type handler func(b *Bot, ctx context.Context, c *call, r command.Request) error

// middleware wraps a handler with a rule of its own.
type middleware func(handler) handler

// commandRoute is a command path's handler.
type commandRoute struct {
	handle handler
	// movedTo is, for the old path of a command that moved, its path
	// now; the route only says so.
	movedTo string
}

// componentRoute is a custom-ID action's handler.
type componentRoute struct {
	handle func(b *Bot, ctx context.Context, c *call, id customid.ID) error
	// anywhere says the button works on any message that shows it (a
	// history, a replay may show games of other channels); a game's own
	// buttons work only on its board, in its channel.
	anywhere bool
}

// The route tables, filled by the features' init functions.
var (
	commandRoutes   = map[string]commandRoute{}
	componentRoutes = map[customid.Action]componentRoute{}
)

// routeCommand registers the route of path: handle gets the command's
// request (command.Parse reads it), of type R, wrapped by mw (outermost
// first). A path registered twice is a programming error.
func routeCommand[R command.Request](path string, handle func(b *Bot, ctx context.Context, c *call, r R) error, mw ...middleware) {
	h := func(b *Bot, ctx context.Context, c *call, r command.Request) error {
		req, ok := r.(R)
		if !ok {
			return fmt.Errorf("bot: route %s got a %T", path, r)
		}
		return handle(b, ctx, c, req)
	}
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](h)
	}
	addCommandRoute(path, commandRoute{handle: h})
}

// routeMoved registers the redirect of from, the old path of a command
// that moved (command.Moved says where): its route answers privately with
// the new path. A path that did not move is a programming error.
func routeMoved(from string) {
	to, ok := command.Moved()[from]
	if !ok {
		panic("bot: command " + from + " did not move")
	}
	addCommandRoute(from, commandRoute{movedTo: to, handle: func(b *Bot, ctx context.Context, c *call, _ command.Request) error {
		return b.respond(ctx, c, respMessage, b.render.Moved(c.loc, to))
	}})
}

// addCommandRoute adds a route to the table.
func addCommandRoute(path string, r commandRoute) {
	if _, dup := commandRoutes[path]; dup {
		panic("bot: command route " + path + " registered twice")
	}
	commandRoutes[path] = r
}

// routeComponent registers the handler of the buttons and menus of each
// action; anywhere is componentRoute's.
func routeComponent(anywhere bool, handle func(b *Bot, ctx context.Context, c *call, id customid.ID) error, actions ...customid.Action) {
	for _, a := range actions {
		if _, dup := componentRoutes[a]; dup {
			panic(fmt.Sprintf("bot: component route %s registered twice", a))
		}
		componentRoutes[a] = componentRoute{handle: handle, anywhere: anywhere}
	}
}

// moderatorOnly lets only the server's moderators through (see
// Bot.moderator): /ttt-admin's routes.
func moderatorOnly(next handler) handler {
	return func(b *Bot, ctx context.Context, c *call, r command.Request) error {
		if !b.moderator(ctx, c) {
			return &UserError{Key: KeyNotModerator, Err: fmt.Errorf("bot: %s is not a moderator in guild %s", c.user, c.i.GuildID)}
		}
		return next(b, ctx, c, r)
	}
}

// playable lets a command that starts a game through only where a game
// may start (Bot.mayPlay): in the server's channels, for a member with its
// role, within its games limits. The handler finds the server's settings
// in c.settings.
func playable(next handler) handler {
	return func(b *Bot, ctx context.Context, c *call, r command.Request) error {
		st, err := b.mayPlay(ctx, c)
		if err != nil {
			return err
		}
		c.settings = st
		return next(b, ctx, c, r)
	}
}

// command routes a slash command: parsed by command.Parse, handled by
// its path's route.
func (b *Bot) command(ctx context.Context, c *call) error {
	data := c.i.ApplicationCommandData()
	st, err := b.settings(ctx, c, c.i.GuildID)
	if err != nil {
		return err
	}
	path, req, err := command.Parse(&data, command.ParseContext{User: c.user, Levels: b.levelNames, Board: st.Board, Now: b.now()})
	if err != nil {
		return err
	}
	route, ok := commandRoutes[path]
	if !ok {
		return &UserError{Key: "error.unknown_command", Err: fmt.Errorf("bot: command %s has no route", path)}
	}
	return route.handle(b, ctx, c, req)
}

// component routes a click on one of our buttons or menus by its action.
func (b *Bot) component(ctx context.Context, c *call) error {
	id, err := b.signer.Decode(c.i.MessageComponentData().CustomID)
	if err != nil {
		return err
	}
	route, ok := componentRoutes[id.Action]
	if !ok {
		return userErr(render.KeyUnavailable)
	}
	if !route.anywhere && id.Game.Channel() != c.i.ChannelID {
		// Signed by us, but shown in another channel: not a board we sent here.
		return &UserError{Key: render.KeyInvalidButton, Err: fmt.Errorf("bot: button of game %s clicked in channel %s", id.Game, c.i.ChannelID)}
	}
	return route.handle(b, ctx, c, id)
}

// UserError is an error meant for the user (see i18n.UserError).
type UserError = i18n.UserError

// userErr builds a *UserError.
func userErr(key string, vars ...string) *UserError { return i18n.Err(key, vars...) }
