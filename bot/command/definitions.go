package command

import (
	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/settings"
	"github.com/tttbot/ttt-bot/persistence"
)

// Command names, as Discord sends them in interactions whatever the user's
// locale.
const (
	// Name is the player command, /ttt.
	Name = "ttt"
	// AdminName is the moderator command, /ttt-admin.
	AdminName = "ttt-admin"
	// TournamentName is the tournament command, /ttt-tournament. Its
	// subcommands were /ttt's tournament group, whose old paths answer
	// with a redirect (Moved).
	TournamentName = "ttt-tournament"
)

// Subcommand names of /ttt and /ttt-admin.
const (
	SubChallenge   = "challenge"
	SubVsAI        = "vs-ai"
	SubAIDuel      = "ai-duel"
	SubResign      = "resign"
	SubStats       = "stats"
	SubLeaderboard = "leaderboard"
	SubHelp        = "help"
	SubRetrain     = "retrain"
	SubModel       = "model"
	SubEndGame     = "end-game"
	SubHistory     = "history"
	SubReplay      = "replay"
	SubReview      = "review"
	SubHint        = "hint"
	SubPuzzle      = "puzzle"
	SubPrivacy     = "privacy"
	SubForgetMe    = "forget-me"
	SubBlock       = "block"
	SubUnblock     = "unblock"
	SubSettings    = "settings"
	SubSet         = "set"
	SubLog         = "log"
	SubForgetGuild = "forget-server"
	SubMove        = "move"
	// SubTournament was /ttt's group of tournament subcommands, now
	// /ttt-tournament: only its old paths use it (Moved).
	SubTournament = "tournament"
)

// The subcommands of /ttt-tournament.
const (
	TournamentCreate    = "create"
	TournamentStart     = "start"
	TournamentStatus    = "status"
	TournamentStandings = "standings"
	TournamentLeave     = "leave"
	TournamentCancel    = "cancel"
	TournamentAddAI     = "add-ai"
)

// Option names and bounds.
const (
	optOpponent   = "opponent"
	optBoard      = "board"
	optFirst      = "first"
	optLevel      = "level"
	optSeed       = "seed"
	optPosition   = "position"
	optDepth      = "depth"
	optIterations = "iterations"
	optTimeMS     = "time-ms"
	optRows       = "rows"
	optCols       = "cols"
	optK          = "k"
	optX          = "x"
	optO          = "o"
	optUser       = "user"
	optScope      = "scope"
	optRollback   = "rollback"
	optForce      = "force"
	optGame       = "game"
	optKind       = "kind"
	optSetting    = "setting"
	optValue      = "value"
	optName       = "name"
	optFormat     = "format"
	optRounds     = "rounds"
	optStart      = "start"
	optTurnTime   = "turn-time"
	optRated      = "rated"
	optTournament = "tournament"
	optDouble     = "double"
	optCell       = "cell"
	optSwap       = "swap"

	// MaxSeed is the largest seed option: Discord integers are limited to
	// the doubles' exact range, 2^53 - 1.
	MaxSeed = 1<<53 - 1
	// MaxDepth is the largest minimax depth option, in plies.
	MaxDepth = 64
	// MaxIterations is the largest MCTS iterations option.
	MaxIterations = 1_000_000
	// MinTimeMS and MaxTimeMS bound the thinking-time option, in ms.
	MinTimeMS, MaxTimeMS = 10, 10_000
	// maxPositionLen bounds the position option: a position (5x5 with
	// slashes is 29 characters) or a shared game line (a full 5x5 game
	// from a start position is about 110).
	maxPositionLen = 200
	// maxCellLen bounds the cell option: a cell name ("o15") or a
	// 0-based "row col" ("14 14").
	maxCellLen = 5
	// MaxBoardSize is the most rows or columns of a custom board: 3 to 5
	// are buttons, 6 to 15 a picture.
	MaxBoardSize = 15
	// maxCustomK is the longest line a custom board asks for: game's
	// boards go to 8x8 with k up to 8 (wide ones to k 6).
	maxCustomK = 8
	// maxGameIDLen bounds the game option: a game ID is a channel ID, a
	// dot and a random suffix (about 34 characters).
	maxGameIDLen = 80
	// maxSettingValueLen bounds the value option of /ttt-admin set: a
	// list of channel or role mentions.
	maxSettingValueLen = 1000
)

// AdminPermissions is the default member permission of /ttt-admin: Manage
// Server.
const AdminPermissions int64 = discordgo.PermissionManageGuild

// Levels returns the AI level names offered by the level, x and o options
// when the caller has no registry at hand: the seven levels.
func Levels() []string {
	return []string{"random", "easy", "minimax", "mcts", "perfect", "neural", "humanlike"}
}

// Commands returns the application-command definitions to register: /ttt
// with its subcommands, /ttt-tournament, and /ttt-admin, restricted by
// default to members who can manage the server and to servers. Names,
// descriptions and choice names carry the catalog's localisations. levels
// are the AI level names to offer (at most 25; pass ai.Registry.Names() or
// Levels()).
//
// Each command is held to Discord's 8,000 characters (CheckCommands), so
// a new family of subcommands gets its own top-level command, as
// tournaments did, rather than shorter descriptions everywhere.
func Commands(cat *i18n.Catalog, levels []string) []*discordgo.ApplicationCommand {
	b := cmdBuilder{cat: cat, levels: levels}
	return []*discordgo.ApplicationCommand{b.playerCommand(), b.adminCommand(), b.tournamentCommand()}
}

// playerCommand builds /ttt: the games, the statistics and the privacy
// commands.
func (b cmdBuilder) playerCommand() *discordgo.ApplicationCommand {
	return &discordgo.ApplicationCommand{
		Type:                     discordgo.ChatApplicationCommand,
		Name:                     Name,
		Description:              b.cat.Text(i18n.DefaultLocale, "cmd.ttt.desc"),
		DescriptionLocalizations: ptr(b.cat.Localizations("cmd.ttt.desc")),
		Options: []*discordgo.ApplicationCommandOption{
			b.sub(SubChallenge, append([]*discordgo.ApplicationCommandOption{
				b.option(discordgo.ApplicationCommandOptionUser, optOpponent, false),
				b.playBoardOption(),
				b.firstOption("opponent"),
				b.option(discordgo.ApplicationCommandOptionBoolean, optSwap, false),
			}, b.customOptions()...)...),
			b.sub(SubVsAI, append([]*discordgo.ApplicationCommandOption{
				b.levelOption(optLevel),
				b.playBoardOption(),
				b.firstOption("ai"),
				b.seedOption(),
				b.positionOption(),
				b.intOption(optDepth, 1, MaxDepth),
				b.intOption(optIterations, 1, MaxIterations),
				b.intOption(optTimeMS, MinTimeMS, MaxTimeMS),
			}, b.customOptions()...)...),
			b.sub(SubAIDuel, append([]*discordgo.ApplicationCommandOption{
				b.levelOption(optX),
				b.levelOption(optO),
				b.playBoardOption(),
				b.seedOption(),
			}, b.customOptions()...)...),
			b.sub(SubMove, b.cellOption()),
			b.sub(SubResign),
			b.sub(SubStats, b.option(discordgo.ApplicationCommandOptionUser, optUser, false)),
			b.sub(SubLeaderboard, b.scopeOption(), b.kindOption()),
			b.sub(SubHistory, b.option(discordgo.ApplicationCommandOptionUser, optUser, false), b.boardOption()),
			b.sub(SubReplay, b.gameOption()),
			b.sub(SubReview, b.gameOption()),
			b.sub(SubHint),
			b.sub(SubPuzzle, b.puzzleBoardOption()),
			b.sub(SubBlock, b.option(discordgo.ApplicationCommandOptionUser, optUser, true)),
			b.sub(SubUnblock, b.option(discordgo.ApplicationCommandOptionUser, optUser, true)),
			b.sub(SubPrivacy),
			b.sub(SubForgetMe),
			b.sub(SubHelp),
		},
	}
}

// tournamentCommand builds /ttt-tournament and its subcommands. Like /ttt
// it sets no contexts: it is offered where /ttt is, and the bot answers in
// a DM that tournaments live in servers.
func (b cmdBuilder) tournamentCommand() *discordgo.ApplicationCommand {
	return &discordgo.ApplicationCommand{
		Type:                     discordgo.ChatApplicationCommand,
		Name:                     TournamentName,
		Description:              b.cat.Text(i18n.DefaultLocale, "cmd.ttt-tournament.desc"),
		DescriptionLocalizations: ptr(b.cat.Localizations("cmd.ttt-tournament.desc")),
		Options: []*discordgo.ApplicationCommandOption{
			b.sub(TournamentCreate, append([]*discordgo.ApplicationCommandOption{tournamentName(b, optName, true), b.formatOption()},
				b.playBoardOption(), b.intOption(optRounds, 1, MaxSwissRounds), b.text(optStart, maxDelayLen), b.text(optTurnTime, maxDelayLen),
				b.option(discordgo.ApplicationCommandOptionBoolean, optRated, false),
				b.option(discordgo.ApplicationCommandOptionBoolean, optDouble, false))...),
			b.sub(TournamentStart, tournamentName(b, optTournament, false)),
			b.sub(TournamentStatus),
			b.sub(TournamentStandings, tournamentName(b, optTournament, false)),
			b.sub(TournamentLeave, tournamentName(b, optTournament, false)),
			b.sub(TournamentCancel, tournamentName(b, optTournament, false)),
			b.sub(TournamentAddAI, b.levelOption(optLevel), tournamentName(b, optTournament, false)),
		},
	}
}

// adminCommand builds /ttt-admin, restricted by default to members who can
// manage the server and to servers.
func (b cmdBuilder) adminCommand() *discordgo.ApplicationCommand {
	perms := AdminPermissions
	return &discordgo.ApplicationCommand{
		Type:                     discordgo.ChatApplicationCommand,
		Name:                     AdminName,
		Description:              b.cat.Text(i18n.DefaultLocale, "cmd.ttt-admin.desc"),
		DescriptionLocalizations: ptr(b.cat.Localizations("cmd.ttt-admin.desc")),
		DefaultMemberPermissions: &perms,
		Contexts:                 &[]discordgo.InteractionContextType{discordgo.InteractionContextGuild},
		Options: []*discordgo.ApplicationCommandOption{
			b.sub(SubRetrain, b.boardOption(), b.option(discordgo.ApplicationCommandOptionBoolean, optForce, false)),
			b.sub(SubModel, b.boardOption(), b.option(discordgo.ApplicationCommandOptionBoolean, optRollback, false)),
			b.sub(SubEndGame),
			b.sub(SubSettings),
			b.sub(SubSet, b.settingOption(), b.valueOption()),
			b.sub(SubLog),
			b.sub(SubForgetGuild),
		},
	}
}

// customOptions returns the rows, cols and k options of a custom board:
// up to 5x5 as buttons, up to 15x15 as a picture.
func (b cmdBuilder) customOptions() []*discordgo.ApplicationCommandOption {
	return []*discordgo.ApplicationCommandOption{
		b.intOption(optRows, 3, MaxBoardSize),
		b.intOption(optCols, 3, MaxBoardSize),
		b.intOption(optK, 3, maxCustomK),
	}
}

// cellOption is /ttt move's required cell option, with suggestions of
// the free cells (autocomplete).
func (b cmdBuilder) cellOption() *discordgo.ApplicationCommandOption {
	o := b.option(discordgo.ApplicationCommandOptionString, optCell, true)
	lo := 2
	o.MinLength, o.MaxLength = &lo, maxCellLen
	o.Autocomplete = true
	return o
}

// puzzleBoardOption is /ttt puzzle's board option: the presets of the
// buttons, then the big boards past 8x8 (wins by fours; the solver's
// puzzles stop at the buttons' boards).
func (b cmdBuilder) puzzleBoardOption() *discordgo.ApplicationCommandOption {
	o := b.boardOption()
	for _, k := range settings.BigPresetKeys() {
		if persistence.IsWideRules(k) {
			o.Choices = append(o.Choices, b.choice("choice.board."+k, k))
		}
	}
	return o
}

// playBoardOption is the board option of the commands that start a game:
// the presets of the buttons, then the big boards (pictures).
func (b cmdBuilder) playBoardOption() *discordgo.ApplicationCommandOption {
	o := b.boardOption()
	for _, k := range settings.BigPresetKeys() {
		o.Choices = append(o.Choices, b.choice("choice.board."+k, k))
	}
	return o
}

// seedOption returns the seed option, from 0 to MaxSeed.
func (b cmdBuilder) seedOption() *discordgo.ApplicationCommandOption {
	return b.intOption(optSeed, 0, MaxSeed)
}

// levelOption returns a required option named name whose choices are the
// builder's AI levels.
func (b cmdBuilder) levelOption(name string) *discordgo.ApplicationCommandOption {
	o := b.option(discordgo.ApplicationCommandOptionString, name, true)
	for _, l := range b.levels {
		o.Choices = append(o.Choices, b.choice("level."+l, l))
	}
	return o
}

// firstOption returns the first option: me, other (the opponent or the
// AI) or random.
func (b cmdBuilder) firstOption(other string) *discordgo.ApplicationCommandOption {
	o := b.option(discordgo.ApplicationCommandOptionString, optFirst, false)
	o.Choices = []*discordgo.ApplicationCommandOptionChoice{
		b.choice("choice.first.me", FirstMe.value(other)),
		b.choice("choice.first."+other, other),
		b.choice("choice.first.random", FirstRandom.value(other)),
	}
	return o
}

// positionOption returns the position option: a position or a shared game
// line of at most maxPositionLen characters.
func (b cmdBuilder) positionOption() *discordgo.ApplicationCommandOption {
	o := b.option(discordgo.ApplicationCommandOptionString, optPosition, false)
	minLen := 1
	o.MinLength, o.MaxLength = &minLen, maxPositionLen
	return o
}

// scopeOption returns the leaderboard's scope option: this server or
// global.
func (b cmdBuilder) scopeOption() *discordgo.ApplicationCommandOption {
	o := b.option(discordgo.ApplicationCommandOptionString, optScope, false)
	o.Choices = []*discordgo.ApplicationCommandOptionChoice{
		b.choice("choice.scope.server", string(ScopeServer)),
		b.choice("choice.scope.global", string(ScopeGlobal)),
	}
	return o
}

// kindOption returns the leaderboard's kind option: ratings or puzzles.
func (b cmdBuilder) kindOption() *discordgo.ApplicationCommandOption {
	o := b.option(discordgo.ApplicationCommandOptionString, optKind, false)
	o.Choices = []*discordgo.ApplicationCommandOptionChoice{
		b.choice("choice.kind.rating", string(BoardRating)),
		b.choice("choice.kind.puzzles", string(BoardPuzzles)),
	}
	return o
}

// settingOption returns /ttt-admin set's required setting option, one
// choice per setting name.
func (b cmdBuilder) settingOption() *discordgo.ApplicationCommandOption {
	o := b.option(discordgo.ApplicationCommandOptionString, optSetting, true)
	for _, name := range settings.Names() {
		o.Choices = append(o.Choices, b.choice("setting."+name, name))
	}
	return o
}

// valueOption returns /ttt-admin set's required value option, of at most
// maxSettingValueLen characters.
func (b cmdBuilder) valueOption() *discordgo.ApplicationCommandOption {
	o := b.option(discordgo.ApplicationCommandOptionString, optValue, true)
	o.MaxLength = maxSettingValueLen
	return o
}

// formatOption returns a tournament's required format option: Swiss,
// single elimination or round robin.
func (b cmdBuilder) formatOption() *discordgo.ApplicationCommandOption {
	o := b.option(discordgo.ApplicationCommandOptionString, optFormat, true)
	for _, f := range []string{FormatSwiss, FormatElimination, FormatRoundRobin} {
		o.Choices = append(o.Choices, b.choice("choice.format."+f, f))
	}
	return o
}

// gameOption returns the required game option, a game ID of 3 to
// maxGameIDLen characters.
func (b cmdBuilder) gameOption() *discordgo.ApplicationCommandOption {
	o := b.option(discordgo.ApplicationCommandOptionString, optGame, true)
	lo := 3
	o.MinLength, o.MaxLength = &lo, maxGameIDLen
	return o
}

func ptr[T any](v T) *T { return &v }

// cmdBuilder builds localised options from catalog keys: "cmd.<sub>.name"
// and ".desc" for subcommands, "opt.<name>.name" and ".desc" for options.
// levels are the AI level names the level, x and o options offer.
type cmdBuilder struct {
	cat    *i18n.Catalog
	levels []string
}

func (b cmdBuilder) sub(name string, opts ...*discordgo.ApplicationCommandOption) *discordgo.ApplicationCommandOption {
	return &discordgo.ApplicationCommandOption{
		Type:                     discordgo.ApplicationCommandOptionSubCommand,
		Name:                     name,
		NameLocalizations:        b.cat.Localizations("cmd." + name + ".name"),
		Description:              b.cat.Text(i18n.DefaultLocale, "cmd."+name+".desc"),
		DescriptionLocalizations: b.cat.Localizations("cmd." + name + ".desc"),
		Options:                  opts,
	}
}

// text is an optional string option of at most max characters.
func (b cmdBuilder) text(name string, max int) *discordgo.ApplicationCommandOption {
	o := b.option(discordgo.ApplicationCommandOptionString, name, false)
	lo := 1
	o.MinLength, o.MaxLength = &lo, max
	return o
}

// tournamentName is a tournament's name option.
func tournamentName(b cmdBuilder, name string, required bool) *discordgo.ApplicationCommandOption {
	o := b.text(name, MaxTournamentName)
	o.Required = required
	return o
}

// maxDelayLen bounds a delay option ("30m", "1h30m").
const maxDelayLen = 12

func (b cmdBuilder) option(t discordgo.ApplicationCommandOptionType, name string, required bool) *discordgo.ApplicationCommandOption {
	return &discordgo.ApplicationCommandOption{
		Type:                     t,
		Name:                     name,
		NameLocalizations:        b.cat.Localizations("opt." + name + ".name"),
		Description:              b.cat.Text(i18n.DefaultLocale, "opt."+name+".desc"),
		DescriptionLocalizations: b.cat.Localizations("opt." + name + ".desc"),
		Required:                 required,
	}
}

func (b cmdBuilder) intOption(name string, lo, hi float64) *discordgo.ApplicationCommandOption {
	o := b.option(discordgo.ApplicationCommandOptionInteger, name, false)
	o.MinValue, o.MaxValue = &lo, hi
	return o
}

func (b cmdBuilder) boardOption() *discordgo.ApplicationCommandOption {
	o := b.option(discordgo.ApplicationCommandOptionString, optBoard, false)
	for _, p := range settings.Presets() {
		o.Choices = append(o.Choices, b.choice("choice.board."+p.Key, p.Key))
	}
	return o
}

// choice returns a choice named by key's text, or by value when the
// catalog has no such key (a level added without texts).
func (b cmdBuilder) choice(key, value string) *discordgo.ApplicationCommandOptionChoice {
	if !b.cat.Has(key) {
		return &discordgo.ApplicationCommandOptionChoice{Name: value, Value: value}
	}
	return &discordgo.ApplicationCommandOptionChoice{
		Name:              b.cat.Text(i18n.DefaultLocale, key),
		NameLocalizations: b.cat.Localizations(key),
		Value:             value,
	}
}
