package command

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/game/wide"
	"github.com/tttbot/ttt-bot/internal/golden"
	"github.com/tttbot/ttt-bot/persistence"
)

func TestCommandsGolden(t *testing.T) {
	cmds := Commands(testCatalog(t), Levels())
	got := golden.JSON(t, cmds)
	if strings.Contains(string(got), "[[") {
		t.Errorf("a command text is missing from the catalog:\n%s", got)
	}
	golden.Equal(t, "commands.json", got)
}

func TestCommandsLimits(t *testing.T) {
	cat := testCatalog(t)
	if err := CheckCommands(Commands(cat, Levels())); err != nil {
		t.Errorf("CheckCommands:\n%v", err)
	}
	// A level without texts gets its name as the choice name.
	if err := CheckCommands(Commands(cat, []string{"random", "brand-new"})); err != nil {
		t.Errorf("CheckCommands with an unknown level:\n%v", err)
	}
}

func TestCheckCommandsCatches(t *testing.T) {
	cat := testCatalog(t)
	tests := []struct {
		name   string
		mutate func(c []*discordgo.ApplicationCommand)
		want   string
	}{
		{"upper-case name", func(c []*discordgo.ApplicationCommand) { c[0].Options[0].Name = "Challenge" }, `name "Challenge"`},
		{"latin mark in name", func(c []*discordgo.ApplicationCommand) { c[0].Options[0].Name = "cha\u0301llenge" }, "name \"cha\u0301llenge\""},
		{"too big", func(c []*discordgo.ApplicationCommand) {
			for _, o := range c[0].Options {
				o.DescriptionLocalizations[discordgo.Thai] = strings.Repeat("ด", 100)
				for _, p := range o.Options {
					p.DescriptionLocalizations[discordgo.Thai] = strings.Repeat("ด", 100)
					for _, ch := range p.Choices {
						ch.NameLocalizations[discordgo.Thai] = strings.Repeat("ด", 100)
					}
				}
			}
		}, "characters counting each text's longest localisation, limit 8000"},
		{"space in localised name", func(c []*discordgo.ApplicationCommand) { c[0].Options[0].NameLocalizations[discordgo.Greek] = "α β" }, `name "α β"`},
		{"long description", func(c []*discordgo.ApplicationCommand) { c[0].Description = strings.Repeat("d", 101) }, "description is 101"},
		{"empty description", func(c []*discordgo.ApplicationCommand) { c[0].Options[1].Options[0].Description = "" }, "description is 0"},
		{"duplicate localised name", func(c []*discordgo.ApplicationCommand) {
			c[0].Options[1].Options[1].NameLocalizations[discordgo.PortugueseBR] = c[0].Options[1].Options[0].NameLocalizations[discordgo.PortugueseBR]
		}, "repeated"},
		{"required after optional", func(c []*discordgo.ApplicationCommand) { c[0].Options[1].Options[3].Required = true }, "required option after"},
		{"too many choices", func(c []*discordgo.ApplicationCommand) {
			o := c[0].Options[1].Options[0]
			for len(o.Choices) <= MaxOptionChoices {
				o.Choices = append(o.Choices, &discordgo.ApplicationCommandOptionChoice{Name: "n", Value: "v"})
			}
		}, "26 choices"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Commands(cat, Levels())
			tt.mutate(c)
			err := CheckCommands(c)
			if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("CheckCommands = %v, want ErrLimit mentioning %q", err, tt.want)
			}
		})
	}
}

// TestCommandNamesCanonical checks that the English names in the catalog
// are the canonical names the parser reads, so the catalog cannot drift.
func TestCommandNamesCanonical(t *testing.T) {
	cat := testCatalog(t)
	var walk func(prefix string, opts []*discordgo.ApplicationCommandOption)
	walk = func(prefix string, opts []*discordgo.ApplicationCommandOption) {
		for _, o := range opts {
			key := "opt." + o.Name + ".name"
			if o.Type == discordgo.ApplicationCommandOptionSubCommand || o.Type == discordgo.ApplicationCommandOptionSubCommandGroup {
				key = "cmd." + o.Name + ".name"
			}
			if got := cat.Text(i18n.DefaultLocale, key); got != o.Name {
				t.Errorf("%s %s: %s is %q", prefix, o.Name, key, got)
			}
			// A locale whose text is the default's is left out; Discord
			// then shows the default.
			for _, loc := range cat.Locales()[1:] {
				name, desc := o.NameLocalizations[loc], o.DescriptionLocalizations[loc]
				if name == "" {
					name = o.Name
				}
				if desc == "" {
					desc = o.Description
				}
				if want := cat.Text(loc, key); name != want {
					t.Errorf("%s %s: %s name %q, want %q", prefix, o.Name, string(loc), name, want)
				}
				if want := cat.Text(loc, strings.TrimSuffix(key, ".name")+".desc"); desc != want {
					t.Errorf("%s %s: %s description %q, want %q", prefix, o.Name, string(loc), desc, want)
				}
			}
			walk(prefix+" "+o.Name, o.Options)
		}
	}
	cmds := Commands(cat, Levels())
	for _, c := range cmds {
		walk("/"+c.Name, c.Options)
	}
	admin := cmds[1]
	if admin.Name != AdminName || admin.DefaultMemberPermissions == nil || *admin.DefaultMemberPermissions != discordgo.PermissionManageGuild {
		t.Errorf("/%s: default member permissions %v, want Manage Server", admin.Name, admin.DefaultMemberPermissions)
	}
	// /ttt-tournament is offered where /ttt is, to everyone, as its group
	// was: the bot itself says in a DM that tournaments live in servers.
	tourney := cmds[2]
	if tourney.Name != TournamentName || tourney.DefaultMemberPermissions != nil || tourney.Contexts != nil || cmds[0].Contexts != nil {
		t.Errorf("/%s: default member permissions %v, contexts %v; want none, like /%s", tourney.Name, tourney.DefaultMemberPermissions, tourney.Contexts, Name)
	}
	for _, c := range cmds {
		if c.NameLocalizations != nil {
			t.Errorf("/%s has localised names: a command's name is never translated", c.Name)
		}
		if got, want := c.Description, cat.Text(i18n.DefaultLocale, "cmd."+c.Name+".desc"); got != want {
			t.Errorf("/%s: description %q, want %q", c.Name, got, want)
		}
	}
	for _, o := range cmds[0].Options {
		if o.Name == SubTournament {
			t.Errorf("/%s still has the %s group: it is /%s now", Name, SubTournament, TournamentName)
		}
	}
}

// cmd builds slash-command data as Discord sends it, going through JSON so
// numbers arrive as float64.
func cmd(t testing.TB, name, sub string, opts ...any) *discordgo.ApplicationCommandInteractionData {
	t.Helper()
	type opt struct {
		Name  string                                 `json:"name"`
		Type  discordgo.ApplicationCommandOptionType `json:"type"`
		Value any                                    `json:"value"`
	}
	var list []opt
	for i := 0; i+1 < len(opts); i += 2 {
		n := opts[i].(string)
		v := opts[i+1]
		o := opt{Name: n, Value: v, Type: discordgo.ApplicationCommandOptionString}
		switch v.(type) {
		case int, float64:
			o.Type = discordgo.ApplicationCommandOptionInteger
		case bool:
			o.Type = discordgo.ApplicationCommandOptionBoolean
		case user:
			o.Type, o.Value = discordgo.ApplicationCommandOptionUser, string(v.(user))
		}
		list = append(list, o)
	}
	raw := map[string]any{
		"id": "1", "name": name, "type": 1,
		"options":  []any{map[string]any{"name": sub, "type": 1, "options": list}},
		"resolved": map[string]any{"users": map[string]any{"999": map[string]any{"id": "999", "username": "robot", "bot": true}}},
	}
	return commandData(t, raw)
}

// commandData decodes a command's data as Discord sends it.
func commandData(t testing.TB, raw map[string]any) *discordgo.ApplicationCommandInteractionData {
	t.Helper()
	b, err := json.Marshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	var d discordgo.ApplicationCommandInteractionData
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return &d
}

// user marks a user-typed option value in cmd.
type user string

func TestParseCommand(t *testing.T) {
	pc := ParseContext{User: "100", Levels: Levels()}
	r := func(s string) game.Rules {
		r, err := game.ParseRules(s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	tests := []struct {
		name string
		data *discordgo.ApplicationCommandInteractionData
		want Request
	}{
		{"challenge open", cmd(t, "ttt", "challenge"), ChallengeRequest{Rules: game.Classic()}},
		{"challenge user", cmd(t, "ttt", "challenge", "opponent", user("200"), "board", "4x3xox", "first", "opponent"),
			ChallengeRequest{Opponent: "200", Rules: r("4x3xox"), First: FirstOther}},
		{"challenge custom", cmd(t, "ttt", "challenge", "rows", 4, "cols", 5, "first", "me"),
			ChallengeRequest{Rules: r("4x5k4"), First: FirstMe}},
		{"challenge custom k", cmd(t, "ttt", "challenge", "rows", 5, "k", 3), ChallengeRequest{Rules: r("5x5k3")}},
		{"challenge custom cols only", cmd(t, "ttt", "challenge", "cols", 3, "k", 3), ChallengeRequest{Rules: r("3x3k3")}},
		{"challenge 6x6", cmd(t, "ttt", "challenge", "rows", 6), ChallengeRequest{Rules: r("6x6k5")}},
		{"challenge 8x8k8", cmd(t, "ttt", "challenge", "rows", 8, "k", 8), ChallengeRequest{Rules: r("8x8k8")}},
		{"challenge gomoku", cmd(t, "ttt", "challenge", "board", "15x15k5"), ChallengeRequest{Wide: wide.Gomoku()}},
		{"challenge standard gomoku", cmd(t, "ttt", "challenge", "board", "15x15k5e"), ChallengeRequest{Wide: wide.StandardGomoku()}},
		{"challenge 7x7 preset", cmd(t, "ttt", "challenge", "board", "7x7k5"), ChallengeRequest{Rules: r("7x7k5")}},
		{"challenge custom wide", cmd(t, "ttt", "challenge", "rows", 15, "cols", 9), ChallengeRequest{Wide: wideRules(t, "15x9k5")}},
		{"vs-ai shared 6x6 game", cmd(t, "ttt", "vs-ai", "level", "easy", "position", "6x6k4 a1"),
			VsAIRequest{AI: persistence.AI{Level: "easy"}, Rules: r("6x6k4"), Start: "X-----/------/------/------/------/------"}},
		{"move", cmd(t, "ttt", "move", "cell", " h8 "), MoveRequest{Cell: "h8"}},
		{"vs-ai minimal", cmd(t, "ttt", "vs-ai", "level", "easy"), VsAIRequest{AI: persistence.AI{Level: "easy"}, Rules: game.Classic()}},
		{"vs-ai full", cmd(t, "ttt", "vs-ai", "level", "mcts", "board", "5x5k4", "first", "ai", "seed", 42,
			"position", "x----/-o---/-----/-----/-----", "depth", 4, "iterations", 5000, "time-ms", 250),
			VsAIRequest{AI: persistence.AI{Level: "mcts", Seed: 42, Depth: 4, Iterations: 5000, Budget: 250 * time.Millisecond},
				SeedSet: true, Rules: r("5x5k4"), First: FirstOther, Start: "X----/-O---/-----/-----/-----"}},
		{"vs-ai max seed", cmd(t, "ttt", "vs-ai", "level", "random", "seed", float64(MaxSeed)),
			VsAIRequest{AI: persistence.AI{Level: "random", Seed: MaxSeed}, SeedSet: true, Rules: game.Classic()}},
		{"ai-duel", cmd(t, "ttt", "ai-duel", "x", "perfect", "o", "minimax", "board", "4x4k3", "seed", 7),
			AIDuelRequest{X: persistence.AI{Level: "perfect", Seed: 7}, O: persistence.AI{Level: "minimax", Seed: 7}, SeedSet: true, Rules: r("4x4k3")}},
		{"resign", cmd(t, "ttt", "resign"), ResignRequest{}},
		{"stats self", cmd(t, "ttt", "stats"), StatsRequest{User: "100"}},
		{"stats other", cmd(t, "ttt", "stats", "user", user("300")), StatsRequest{User: "300"}},
		{"leaderboard", cmd(t, "ttt", "leaderboard"), LeaderboardRequest{Scope: ScopeServer, Kind: BoardRating}},
		{"leaderboard global", cmd(t, "ttt", "leaderboard", "scope", "global"), LeaderboardRequest{Scope: ScopeGlobal, Kind: BoardRating}},
		{"leaderboard puzzles", cmd(t, "ttt", "leaderboard", "kind", "puzzles"), LeaderboardRequest{Scope: ScopeServer, Kind: BoardPuzzles}},
		{"vs-ai shared game", cmd(t, "ttt", "vs-ai", "level", "perfect", "position", "4x4k3 b2 a1"),
			VsAIRequest{AI: persistence.AI{Level: "perfect"}, Rules: r("4x4k3"), Start: "O---/-X--/----/----"}},
		{"vs-ai shared game and its board", cmd(t, "ttt", "vs-ai", "level", "perfect", "board", "4x3xox", "position", "4x3xox X--/---/---/--- b2"),
			VsAIRequest{AI: persistence.AI{Level: "perfect"}, Rules: r("4x3xox"), Start: "X--/-O-/---/---"}},
		{"history self", cmd(t, "ttt", "history"), HistoryRequest{User: "100"}},
		{"history other board", cmd(t, "ttt", "history", "user", user("300"), "board", "5x5k4"), HistoryRequest{User: "300", Rules: "5x5k4"}},
		{"replay", cmd(t, "ttt", "replay", "game", "112233445566778899.abcdefghijklm"), ReplayRequest{Game: "112233445566778899.abcdefghijklm"}},
		{"review pasted with backticks", cmd(t, "ttt", "review", "game", " `112233445566778899.abcdefghijklm` "), ReviewRequest{Game: "112233445566778899.abcdefghijklm"}},
		{"hint", cmd(t, "ttt", "hint"), HintRequest{}},
		{"puzzle", cmd(t, "ttt", "puzzle"), PuzzleRequest{Rules: game.Classic()}},
		{"puzzle board", cmd(t, "ttt", "puzzle", "board", "5x5k4"), PuzzleRequest{Rules: r("5x5k4")}},
		{"help", cmd(t, "ttt", "help"), HelpRequest{}},
		{"retrain", cmd(t, "ttt-admin", "retrain", "board", "5x5k5"), RetrainRequest{Rules: r("5x5k5")}},
		{"retrain forced", cmd(t, "ttt-admin", "retrain", "force", true), RetrainRequest{Rules: game.Classic(), Force: true}},
		{"model", cmd(t, "ttt-admin", "model"), ModelRequest{Rules: game.Classic()}},
		{"model rollback", cmd(t, "ttt-admin", "model", "board", "4x4k4", "rollback", true), ModelRequest{Rules: r("4x4k4"), Rollback: true}},
		{"end-game", cmd(t, "ttt-admin", "end-game"), EndGameRequest{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseCommand(tt.data, pc)
			if err != nil {
				t.Fatalf("ParseCommand: %v", err)
			}
			if !sameRequest(got, tt.want) {
				t.Errorf("ParseCommand = %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

// sameRequest compares requests: type, fields (Rules marshal as {}) and
// rules by notation.
func sameRequest(a, b Request) bool { return describe(a) == describe(b) }

func describe(r Request) string {
	var rules game.Rules
	switch v := r.(type) {
	case ChallengeRequest:
		rules = v.Rules
	case VsAIRequest:
		rules = v.Rules
	case AIDuelRequest:
		rules = v.Rules
	case RetrainRequest:
		rules = v.Rules
	case ModelRequest:
		rules = v.Rules
	case PuzzleRequest:
		rules = v.Rules
	}
	j, _ := json.Marshal(r)
	return fmt.Sprintf("%T|%s|%s", r, rules, j)
}

func TestParseCommandErrors(t *testing.T) {
	pc := ParseContext{User: "100", Levels: []string{"random", "easy", "minimax", "mcts", "perfect"}}
	cat := testCatalog(t)
	tests := []struct {
		name string
		data *discordgo.ApplicationCommandInteractionData
		key  string
		text string // the English message, when worth pinning
	}{
		{"nil", nil, "error.unknown_command", ""},
		{"other command", cmd(t, "chess", "help"), "error.unknown_command", ""},
		{"unknown sub", cmd(t, "ttt", "dance"), "error.unknown_command", ""},
		{"admin sub on ttt", cmd(t, "ttt", "retrain"), "error.unknown_command", ""},
		{"self", cmd(t, "ttt", "challenge", "opponent", user("100")), "error.self_challenge", "You can't challenge yourself."},
		{"bot", cmd(t, "ttt", "challenge", "opponent", user("999")), "error.bot_challenge", ""},
		{"bad user id", cmd(t, "ttt", "challenge", "opponent", user("abc")), "error.bad_option", "The option opponent has a value I can't read."},
		{"too big", cmd(t, "ttt", "challenge", "rows", 16, "cols", 16), "error.board_too_big",
			"A 16×16 board is too big here; boards can be at most 15×15."},
		{"too wide", cmd(t, "ttt", "challenge", "cols", 16), "error.board_too_big", ""},
		{"wide k", cmd(t, "ttt", "vs-ai", "level", "easy", "rows", 9, "k", 7), "error.bad_k", "On a 9×9 board, k must be from 3 to 6."},
		{"start on gomoku", cmd(t, "ttt", "vs-ai", "level", "easy", "board", "15x15k5", "position", "X--/---/---"), "error.start_wide", ""},
		{"too small", cmd(t, "ttt", "challenge", "rows", 2), "error.board_too_small", ""},
		{"bad k", cmd(t, "ttt", "challenge", "rows", 3, "k", 4), "error.bad_k", "On a 3×3 board, k must be from 3 to 3."},
		{"conflict", cmd(t, "ttt", "challenge", "board", "4x4k3", "k", 3), "error.board_conflict", ""},
		{"unknown board", cmd(t, "ttt", "challenge", "board", "8x8k5"), "error.bad_option", ""},
		{"bad first", cmd(t, "ttt", "challenge", "first", "ai"), "error.bad_option", "The option first has a value I can't read."},
		{"option of another sub", cmd(t, "ttt", "challenge", "level", "easy"), "error.bad_option", ""},
		{"wrong type", cmd(t, "ttt", "challenge", "rows", "5"), "error.bad_option", ""},
		{"fraction", cmd(t, "ttt", "challenge", "rows", 3.5), "error.bad_option", ""},
		{"no level", cmd(t, "ttt", "vs-ai"), "error.bad_option", ""},
		{"unknown level", cmd(t, "ttt", "vs-ai", "level", "neural"), "error.unknown_level",
			"There is no computer level called neural. The levels are: random, easy, minimax, mcts, perfect."},
		{"depth range", cmd(t, "ttt", "vs-ai", "level", "minimax", "depth", 0), "error.out_of_range", "depth must be from 1 to 64."},
		{"time range", cmd(t, "ttt", "vs-ai", "level", "mcts", "time-ms", 60000), "error.out_of_range", ""},
		{"seed range", cmd(t, "ttt", "vs-ai", "level", "easy", "seed", -1), "error.out_of_range", ""},
		{"position garbage", cmd(t, "ttt", "vs-ai", "level", "easy", "position", "hello"), "error.bad_position",
			"That position doesn't fit a 3x3k3 board: write its 3 rows of X, O and - separated by /, like X--/---/---, with X having the same number of marks as O or one more, and the game not yet over."},
		{"position over", cmd(t, "ttt", "vs-ai", "level", "easy", "position", "XXX/OO-/---"), "error.bad_position", ""},
		{"position counts", cmd(t, "ttt", "vs-ai", "level", "easy", "position", "XX-/---/---"), "error.bad_position", ""},
		{"position wrong board", cmd(t, "ttt", "vs-ai", "level", "easy", "board", "4x4k3", "position", "X--/---/---"), "error.bad_position", ""},
		{"duel missing o", cmd(t, "ttt", "ai-duel", "x", "easy"), "error.bad_option", ""},
		{"bad scope", cmd(t, "ttt", "leaderboard", "scope", "galaxy"), "error.bad_option", ""},
		{"retrain too big", cmd(t, "ttt-admin", "retrain", "rows", 8), "error.board_too_big", ""},
		{"rollback not a bool", cmd(t, "ttt-admin", "model", "rollback", "yes"), "error.bad_option", ""},
		{"rollback on retrain", cmd(t, "ttt-admin", "retrain", "rollback", true), "error.bad_option", ""},
		{"force on model", cmd(t, "ttt-admin", "model", "force", true), "error.bad_option", ""},
		{"shared game garbage", cmd(t, "ttt", "vs-ai", "level", "easy", "position", "3x3k3 b2 zz"), "error.bad_game_line",
			"That shared game doesn't read: write the board, an optional start position and the moves as cell names, like 3x3k3 b2 a1 c3."},
		{"shared game other board", cmd(t, "ttt", "vs-ai", "level", "easy", "board", "4x4k4", "position", "3x3k3 b2"), "error.game_line_rules",
			"That shared game is played on 3x3k3, but the board option says 4x4k4; leave the board out, or give the same one."},
		{"shared game over", cmd(t, "ttt", "vs-ai", "level", "easy", "position", "3x3k3 a1 b1 a2 b2 a3"), "error.game_line_over", ""},
		{"retrain gomoku", cmd(t, "ttt-admin", "retrain", "board", "15x15k5"), "error.bad_option", ""},
		{"game not an ID", cmd(t, "ttt", "replay", "game", "my last game"), "reply.bad_game_id", ""},
		{"game without channel", cmd(t, "ttt", "review", "game", ".abc"), "reply.bad_game_id", ""},
		{"game channel not an ID", cmd(t, "ttt", "review", "game", "general.abc"), "reply.bad_game_id", ""},
		{"game missing", cmd(t, "ttt", "review"), "reply.bad_game_id", ""},
		{"history unknown board", cmd(t, "ttt", "history", "board", "9x9k9"), "error.bad_option", ""},
		{"bad kind", cmd(t, "ttt", "leaderboard", "kind", "elo"), "error.bad_option", ""},
		{"puzzle custom size", cmd(t, "ttt", "puzzle", "rows", 4), "error.bad_option", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseCommand(tt.data, pc)
			var ue *i18n.UserError
			if !errors.As(err, &ue) {
				t.Fatalf("ParseCommand = %#v, %v; want a *i18n.UserError", got, err)
			}
			if ue.Key != tt.key {
				t.Errorf("key %q, want %q (%v)", ue.Key, tt.key, err)
			}
			msg := errorText(cat, i18n.DefaultLocale, err)
			if tt.text != "" && msg != tt.text {
				t.Errorf("message %q, want %q", msg, tt.text)
			}
			for _, loc := range cat.Locales() {
				if m := errorText(cat, loc, err); strings.Contains(m, "{") || strings.Contains(m, "[[") {
					t.Errorf("%s message has an unfilled placeholder: %q", string(loc), m)
				}
			}
		})
	}
}

func TestParseCommandDuplicateOption(t *testing.T) {
	d := cmd(t, "ttt", "challenge", "rows", 4, "rows", 5)
	if _, err := parseCommand(d, ParseContext{User: "1", Levels: Levels()}); errorKey(err) != "error.bad_option" {
		t.Errorf("duplicate option: %v", err)
	}
}

// FuzzParseCommand feeds arbitrary JSON as slash-command data: ParseCommand
// must not panic, must fail only with a *i18n.UserError whose message fills in
// every placeholder, and any board it accepts must fit in buttons.
func FuzzParseCommand(f *testing.F) {
	cat := testCatalog(f)
	seeds := []*discordgo.ApplicationCommandInteractionData{
		cmd(f, "ttt", "challenge", "opponent", user("200"), "board", "4x3xox", "first", "me"),
		cmd(f, "ttt", "challenge", "rows", 5, "cols", 4, "k", 4),
		cmd(f, "ttt", "vs-ai", "level", "mcts", "seed", 42, "position", "X--/-O-/---", "depth", 3, "time-ms", 100),
		cmd(f, "ttt", "ai-duel", "x", "easy", "o", "random"),
		cmd(f, "ttt", "leaderboard", "scope", "global"),
		cmd(f, "ttt-admin", "retrain", "board", "5x5k4", "force", true),
		cmd(f, "ttt-tournament", "create", "name", "Cup", "format", "swiss", "rounds", 3, "start", "2h"),
		cmd(f, "ttt-tournament", "add-ai", "level", "easy", "tournament", "Cup"),
	}
	for _, d := range seeds {
		b, err := json.Marshal(d)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add(`{"name":"ttt","options":[{"name":"vs-ai","type":1,"options":[{"name":"seed","type":4,"value":1e300}]}]}`)
	f.Add(`{"name":"ttt","options":[null]}`)
	f.Add(`{"name":"ttt","options":[{"name":"tournament","type":2,"options":[{"name":"create","type":1,"options":[{"name":"name","type":3,"value":"Cup"}]}]}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		var d discordgo.ApplicationCommandInteractionData
		if json.Unmarshal([]byte(in), &d) != nil {
			return
		}
		req, err := parseCommand(&d, ParseContext{User: "100", Levels: Levels()})
		if err != nil {
			var ue *i18n.UserError
			if !errors.As(err, &ue) || !cat.Has(ue.Key) {
				t.Fatalf("parseCommand(%s): %v is not a known *i18n.UserError", in, err)
			}
			if m := errorText(cat, i18n.DefaultLocale, err); strings.Contains(m, "{") {
				t.Fatalf("parseCommand(%s): message %q has an unfilled placeholder", in, m)
			}
			return
		}
		var rules game.Rules
		switch r := req.(type) {
		case ChallengeRequest:
			rules = r.Rules
		case VsAIRequest:
			rules = r.Rules
			if r.Start != "" {
				if _, err := game.ParsePosition(rules, r.Start); err != nil {
					t.Fatalf("accepted start %q: %v", r.Start, err)
				}
			}
		case AIDuelRequest:
			rules = r.Rules
		case RetrainRequest:
			rules = r.Rules
		case ModelRequest:
			rules = r.Rules
		default:
			return
		}
		if !FitsButtons(rules) {
			t.Fatalf("parseCommand(%s) accepted rules %s that do not fit in buttons", in, rules)
		}
	})
}

func ExampleParse() {
	data := &discordgo.ApplicationCommandInteractionData{
		Name: "ttt",
		Options: []*discordgo.ApplicationCommandInteractionDataOption{{
			Name: "challenge", Type: discordgo.ApplicationCommandOptionSubCommand,
			Options: []*discordgo.ApplicationCommandInteractionDataOption{
				{Name: "rows", Type: discordgo.ApplicationCommandOptionInteger, Value: float64(17)},
			},
		}},
	}
	cat, _ := i18n.NewCatalog()
	_, _, err := Parse(data, ParseContext{User: "100", Levels: Levels()})
	var ue *i18n.UserError
	if errors.As(err, &ue) {
		fmt.Println(cat.UserText(discordgo.PortugueseBR, ue))
	}
	// Output:
	// Um tabuleiro 17×17 é grande demais aqui; o máximo é 15×15.
}

func ExampleCommands() {
	cat, _ := i18n.NewCatalog()
	for _, c := range Commands(cat, Levels()) {
		var subs []string
		for _, o := range c.Options {
			subs = append(subs, o.Name+"/"+o.NameLocalizations[discordgo.Greek])
		}
		fmt.Println(c.Name, subs)
	}
	// Output:
	// ttt [challenge/πρόκληση vs-ai/με-υπολογιστή ai-duel/μονομαχία-υπολογιστών move/κίνηση resign/παραίτηση stats/στατιστικά leaderboard/κατάταξη history/ιστορικό replay/επανάληψη review/ανάλυση hint/υπόδειξη puzzle/γρίφος block/αποκλεισμός unblock/άρση-αποκλεισμού privacy/απόρρητο forget-me/ξέχασέ-με help/βοήθεια]
	// ttt-admin [retrain/επανεκπαίδευση model/μοντέλο end-game/τερματισμός-παρτίδας settings/ρυθμίσεις set/ορισμός log/αρχείο forget-server/ξέχασε-διακομιστή]
	// ttt-tournament [create/δημιουργία start/έναρξη status/κατάσταση standings/πίνακας leave/αποχώρηση cancel/ακύρωση add-ai/προσθήκη-υπολογιστή]
}

// TestCommandSizes logs the size of each of the three commands as
// Discord counts it (go test ./bot/command/ -run TestCommandSizes -v),
// and fails a command within 10% of Discord's limit: a new family of
// subcommands then gets its own top-level command, as tournaments did.
func TestCommandSizes(t *testing.T) {
	cat := testCatalog(t)
	cmds := Commands(cat, Levels())
	var names []string
	for _, c := range cmds {
		names = append(names, c.Name)
		n := commandSize(c)
		t.Logf("/%s: %d characters counting each text's longest localisation (limit %d)", c.Name, n, MaxCommandTotalSize)
		if n > MaxCommandTotalSize*9/10 {
			t.Errorf("/%s is %d characters, within 10%% of Discord's %d: shorten descriptions, or give the new subcommands a command of their own", c.Name, n, MaxCommandTotalSize)
		}
	}
	if want := []string{Name, AdminName, TournamentName}; !slices.Equal(names, want) {
		t.Errorf("commands %v, want %v", names, want)
	}
}

// wideRules parses wide rules notation.
func wideRules(t *testing.T, s string) wide.Rules {
	t.Helper()
	r, err := wide.ParseRules(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestParseSwap(t *testing.T) {
	pc := ParseContext{User: "100", Levels: Levels()}
	got, err := parseCommand(cmd(t, "ttt", "challenge", "board", "15x15k5e", "swap", true), pc)
	if err != nil || got != (ChallengeRequest{Wide: wide.StandardGomoku(), Swap: true}) {
		t.Fatalf("challenge with a swap on standard gomoku: %#v, %v", got, err)
	}
	_, err = parseCommand(cmd(t, "ttt", "challenge", "board", "7x7k5", "swap", true), pc)
	var ue *i18n.UserError
	if !errors.As(err, &ue) || ue.Key != "error.swap_board" {
		t.Fatalf("a swap on 7x7: %v, want error.swap_board", err)
	}
}
