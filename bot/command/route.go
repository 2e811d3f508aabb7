package command

import (
	"maps"
	"slices"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/persistence"
)

// A command is known by its path: "ttt/vs-ai", "ttt-admin/set",
// "ttt-tournament/create" (Path). parsers holds each path's parser, which
// reads the command's options into its Request; package bot routes the
// Request by the same path to its handler. A new command is its
// definition (definitions.go), its Request (requests.go) and one row here,
// plus its route in bot. A command that moves keeps its old path in moved,
// so that a client with a stale list of commands is told where it went.

// Input is what a path's parser reads: the subcommand's options, the
// command's resolved users, the caller's context, and the subcommand
// itself (for a group, the inner one).
type Input struct {
	o        *options
	sub      *discordgo.ApplicationCommandInteractionDataOption
	resolved *discordgo.ApplicationCommandInteractionDataResolved
	pc       ParseContext
}

// Path is the path of a command and its subcommand ("ttt/vs-ai"), or of a
// command, group and subcommand (the old "ttt/tournament/create").
func Path(parts ...string) string { return strings.Join(parts, "/") }

// parsers are the commands' parsers by path. A subcommand group's parser
// (a path of three parts) would read in.sub itself; the others get in.o.
var parsers = map[string]func(in Input) (Request, error){
	Path(Name, SubChallenge):   func(in Input) (Request, error) { return parseChallenge(in.o, in.resolved, in.pc) },
	Path(Name, SubVsAI):        func(in Input) (Request, error) { return parseVsAI(in.o, in.pc) },
	Path(Name, SubAIDuel):      func(in Input) (Request, error) { return parseAIDuel(in.o, in.pc) },
	Path(Name, SubResign):      noOptions(ResignRequest{}),
	Path(Name, SubMove):        parseMove,
	Path(Name, SubHelp):        noOptions(HelpRequest{}),
	Path(Name, SubStats):       parseStats,
	Path(Name, SubLeaderboard): parseLeaderboard,
	Path(Name, SubHistory):     func(in Input) (Request, error) { return parseHistory(in.o, in.pc) },
	Path(Name, SubReplay):      parseGameOption(func(g persistence.GameID) Request { return ReplayRequest{Game: g} }),
	Path(Name, SubReview):      parseGameOption(func(g persistence.GameID) Request { return ReviewRequest{Game: g} }),
	Path(Name, SubHint):        noOptions(HintRequest{}),
	Path(Name, SubPuzzle):      parsePuzzle,
	Path(Name, SubPrivacy):     noOptions(PrivacyRequest{}),
	Path(Name, SubForgetMe):    noOptions(ForgetMeRequest{}),
	Path(Name, SubBlock):       parseBlock,
	Path(Name, SubUnblock):     parseBlock,

	Path(TournamentName, TournamentCreate):    parseTournamentSub,
	Path(TournamentName, TournamentStart):     parseTournamentSub,
	Path(TournamentName, TournamentStatus):    parseTournamentSub,
	Path(TournamentName, TournamentStandings): parseTournamentSub,
	Path(TournamentName, TournamentLeave):     parseTournamentSub,
	Path(TournamentName, TournamentCancel):    parseTournamentSub,
	Path(TournamentName, TournamentAddAI):     parseTournamentSub,

	Path(AdminName, SubEndGame):     noOptions(EndGameRequest{}),
	Path(AdminName, SubModel):       parseModel,
	Path(AdminName, SubRetrain):     parseRetrain,
	Path(AdminName, SubSettings):    noOptions(SettingsRequest{}),
	Path(AdminName, SubSet):         parseSet,
	Path(AdminName, SubLog):         noOptions(LogRequest{}),
	Path(AdminName, SubForgetGuild): noOptions(ForgetServerRequest{}),
}

// moved are the new paths of commands that moved, by their old path. A
// client whose list of commands is stale (Discord's clients cache it) can
// still send an old path: Parse reads it as a MovedRequest, options and
// all unread, and package bot answers with the new path. A row stays as
// long as old clients may be about; the old path is no registered command.
var moved = map[string]string{
	Path(Name, SubTournament, TournamentCreate):    Path(TournamentName, TournamentCreate),
	Path(Name, SubTournament, TournamentStart):     Path(TournamentName, TournamentStart),
	Path(Name, SubTournament, TournamentStatus):    Path(TournamentName, TournamentStatus),
	Path(Name, SubTournament, TournamentStandings): Path(TournamentName, TournamentStandings),
	Path(Name, SubTournament, TournamentLeave):     Path(TournamentName, TournamentLeave),
	Path(Name, SubTournament, TournamentCancel):    Path(TournamentName, TournamentCancel),
	Path(Name, SubTournament, TournamentAddAI):     Path(TournamentName, TournamentAddAI),
}

// Paths returns the paths of every command that Parse reads, sorted (the
// old paths of Moved aside).
func Paths() []string {
	out := make([]string, 0, len(parsers))
	for p := range parsers {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// Moved returns the new paths of the commands that moved, by old path.
func Moved() map[string]string { return maps.Clone(moved) }

// noOptions is the parser of a command that takes none: its request is r.
func noOptions(r Request) func(Input) (Request, error) {
	return func(Input) (Request, error) { return r, nil }
}

// parseTournamentSub reads /ttt-tournament's subcommands.
func parseTournamentSub(in Input) (Request, error) { return parseTournament(in.sub.Name, in.o, in.pc) }

// Parse turns the data of a slash-command interaction into its path and
// a typed Request. Bad, missing, duplicated or out-of-range options fail
// with an *i18n.UserError that the bot shows in the user's locale;
// Discord's client checks most of them already, so these mostly catch
// forged requests and combinations the client cannot check (challenging
// yourself or a bot, board and custom size together, a bad position). The
// old path of a command that moved (Moved) is a MovedRequest. It never
// panics, whatever the data.
func Parse(data *discordgo.ApplicationCommandInteractionData, pc ParseContext) (string, Request, error) {
	unknown := i18n.Err("error.unknown_command")
	if data == nil || (data.Name != Name && data.Name != AdminName && data.Name != TournamentName) ||
		len(data.Options) != 1 || data.Options[0] == nil {
		return "", nil, unknown
	}
	sub := data.Options[0]
	path := Path(data.Name, sub.Name)
	switch {
	case sub.Type == discordgo.ApplicationCommandOptionSubCommandGroup:
		if len(sub.Options) != 1 || sub.Options[0] == nil || sub.Options[0].Type != discordgo.ApplicationCommandOptionSubCommand {
			return "", nil, unknown
		}
		sub = sub.Options[0]
		path = Path(path, sub.Name)
	case sub.Type != discordgo.ApplicationCommandOptionSubCommand:
		return "", nil, unknown
	}
	if to, ok := moved[path]; ok {
		return path, MovedRequest{From: path, To: to}, nil
	}
	parse, ok := parsers[path]
	if !ok {
		return "", nil, unknown
	}
	in := Input{sub: sub, resolved: data.Resolved, pc: pc}
	if strings.Count(path, "/") == 1 {
		o, err := collect(sub.Options)
		if err != nil {
			return "", nil, err
		}
		in.o = o
	}
	req, err := parse(in)
	if err != nil {
		return "", nil, err
	}
	if in.o != nil && len(in.o.unused) > 0 {
		return "", nil, optErr(in.o.unusedNames()[0])
	}
	return path, req, nil
}
