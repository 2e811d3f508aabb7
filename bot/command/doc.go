// Package command is the bot's slash commands as data: their definitions
// as Discord registers them (Commands, in 32 languages), Discord's limits
// on them (CheckCommands), and the reading of an interaction's options
// into a typed Request (Parse), by the command's path ("ttt/vs-ai",
// "ttt-tournament/create"). It does no I/O and knows nothing of the bot:
// package bot routes each Request by the same path to its handler.
//
// A new command is its definition (definitions.go), its Request
// (requests.go) and its parser (one row of parsers in route.go), plus its
// route and handler in package bot and its catalog keys.
package command
