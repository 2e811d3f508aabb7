package command

import (
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/game/wide"
)

// startNow is the time the start tests give their commands at.
var startNow = time.Date(2026, 11, 24, 20, 0, 0, 0, time.UTC)

func TestParseStart(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time // zero: refused
	}{
		{"30m", startNow.Add(30 * time.Minute)},
		{"1m", startNow.Add(time.Minute)},
		{"7d", startNow.Add(7 * 24 * time.Hour)},
		{" 1d 12h ", startNow.Add(36 * time.Hour)},
		{"2H", startNow.Add(2 * time.Hour)},
		{"<t:1796148000>", time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)},
		{"<t:1796148000:F>", time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)},
		{"<t:1796148000:R>", time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)},
		{"2026-12-01T18:00Z", time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)},
		{"2026-12-01 19:00+01:00", time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)},
		{"2026-12-01t18:00:30z", time.Date(2026, 12, 1, 18, 0, 30, 0, time.UTC)},
		{"2026-11-24T14:31-05:30", time.Date(2026, 11, 24, 20, 1, 0, 0, time.UTC)},
		{"2026-11-24T20:01Z", startNow.Add(time.Minute)},

		{"", time.Time{}},
		{"soon", time.Time{}},
		{"59s", time.Time{}},                      // under a minute
		{"8d", time.Time{}},                       // over a week
		{"-1h", time.Time{}},                      // a delay is ahead
		{"2026-11-24T20:00Z", time.Time{}},        // now
		{"2026-11-20T18:00Z", time.Time{}},        // past
		{"2026-12-02T20:00:01Z", time.Time{}},     // over a week ahead
		{"2026-12-01T18:00", time.Time{}},         // no zone: whose 18:00?
		{"2026-12-01", time.Time{}},               // no time
		{"2026-13-01T18:00Z", time.Time{}},        // no such month
		{"<t:1796148000", time.Time{}},            // unclosed
		{"<t:+1796148000>", time.Time{}},          // sign
		{"<t:-5>", time.Time{}},                   // before 1970
		{"<t:99999999999999999999>", time.Time{}}, // out of range
		{"<t:1764014400>", time.Time{}},           // a year ago
		{"<t:>", time.Time{}},
		{"<@123>", time.Time{}},
		{"ıı-ıııııı", time.Time{}}, // shorter in upper case: no index past its end
		{"2026-12-01\u0131\u0131:00Z", time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseStart(tt.in, startNow)
			if tt.want.IsZero() {
				if err == nil {
					t.Fatalf("parseStart(%q) = %v; want refused", tt.in, got)
				}
				return
			}
			if err != nil || !got.Equal(tt.want) || got.Location() != time.UTC {
				t.Fatalf("parseStart(%q) = %v, %v; want %v (UTC)", tt.in, got, err, tt.want)
			}
		})
	}
}

// FuzzParseStart: whatever it is given, parseStart accepts only times a
// minute to a week ahead, in UTC, and never panics.
func FuzzParseStart(f *testing.F) {
	for _, s := range []string{"30m", "1d12h", "<t:1796148000:F>", "2026-12-01 19:00+01:00", "2026-12-01T18:00:00Z", "<t:", "2026-", "9999-99-99T99:99Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		at, err := parseStart(s, startNow)
		if err != nil {
			return
		}
		if d := at.Sub(startNow); d < MinTournamentDelay || d > MaxTournamentDelay || at.Location() != time.UTC {
			t.Fatalf("parseStart(%q) = %v, %v from now", s, at, d)
		}
	})
}

// tournamentCmd is /ttt-tournament <sub> with options given as name,
// value pairs.
func tournamentCmd(t *testing.T, sub string, kv ...any) *discordgo.ApplicationCommandInteractionData {
	t.Helper()
	raw := map[string]any{"id": "1", "name": TournamentName, "type": 1, "options": []any{map[string]any{
		"name": sub, "type": discordgo.ApplicationCommandOptionSubCommand, "options": tournamentOpts(kv),
	}}}
	return commandData(t, raw)
}

// oldTournamentCmd is /ttt tournament <sub>, the path before the group
// became /ttt-tournament, as a client with a stale list of commands sends
// it.
func oldTournamentCmd(t *testing.T, sub string, kv ...any) *discordgo.ApplicationCommandInteractionData {
	t.Helper()
	raw := map[string]any{"id": "1", "name": Name, "type": 1, "options": []any{map[string]any{
		"name": SubTournament, "type": discordgo.ApplicationCommandOptionSubCommandGroup,
		"options": []any{map[string]any{"name": sub, "type": discordgo.ApplicationCommandOptionSubCommand, "options": tournamentOpts(kv)}},
	}}}
	return commandData(t, raw)
}

// tournamentOpts are the options of name, value pairs.
func tournamentOpts(kv []any) []any {
	var opts []any
	for i := 0; i+1 < len(kv); i += 2 {
		typ := discordgo.ApplicationCommandOptionString
		switch kv[i+1].(type) {
		case int:
			typ = discordgo.ApplicationCommandOptionInteger
		case bool:
			typ = discordgo.ApplicationCommandOptionBoolean
		}
		opts = append(opts, map[string]any{"name": kv[i], "type": typ, "value": kv[i+1]})
	}
	return opts
}

// TestParseTournament reads each of /ttt-tournament's subcommands, at its
// path, and refuses what does not belong.
func TestParseTournament(t *testing.T) {
	pc := ParseContext{User: "100", Levels: Levels(), Now: startNow}
	unrated := false
	rules, err := game.ParseRules("4x4k3")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		sub  string
		kv   []any
		want TournamentRequest
	}{
		{TournamentCreate, []any{"name", " Friday Cup ", "format", FormatRoundRobin, "board", "4x4k3", "turn-time", "2m", "rated", false, "double", true},
			TournamentRequest{Action: TournamentCreate, Name: "Friday Cup", Format: FormatRoundRobin, Rules: rules,
				TurnTime: 2 * time.Minute, Rated: &unrated, Double: true}},
		{TournamentCreate, []any{"name", "Gomoku", "format", FormatSwiss, "board", "15x15k5"},
			TournamentRequest{Action: TournamentCreate, Name: "Gomoku", Format: FormatSwiss, Wide: wide.Gomoku()}},
		{TournamentCreate, []any{"name", "Default", "format", FormatSwiss},
			TournamentRequest{Action: TournamentCreate, Name: "Default", Format: FormatSwiss, Rules: game.Classic()}},
		{TournamentStart, nil, TournamentRequest{Action: TournamentStart}},
		{TournamentStatus, nil, TournamentRequest{Action: TournamentStatus}},
		{TournamentStandings, []any{"tournament", "Cup"}, TournamentRequest{Action: TournamentStandings, Name: "Cup"}},
		{TournamentLeave, []any{"tournament", "Cup"}, TournamentRequest{Action: TournamentLeave, Name: "Cup"}},
		{TournamentCancel, nil, TournamentRequest{Action: TournamentCancel}},
		{TournamentAddAI, []any{"level", "perfect"}, TournamentRequest{Action: TournamentAddAI, Level: "perfect"}},
	}
	for _, tt := range tests {
		t.Run(tt.sub, func(t *testing.T) {
			path, req, err := Parse(tournamentCmd(t, tt.sub, tt.kv...), pc)
			if err != nil {
				t.Fatal(err)
			}
			if want := TournamentName + "/" + tt.sub; path != want {
				t.Errorf("path %q, want %q", path, want)
			}
			got, ok := req.(TournamentRequest)
			if !ok {
				t.Fatalf("request %#v, want a TournamentRequest", req)
			}
			if !sameRequest(got, tt.want) {
				t.Errorf("request %#v\nwant %#v", got, tt.want)
			}
		})
	}
	for name, data := range map[string]*discordgo.ApplicationCommandInteractionData{
		"option of another sub": tournamentCmd(t, TournamentStatus, "tournament", "Cup"),
		"no format":             tournamentCmd(t, TournamentCreate, "name", "Cup"),
		"unknown sub":           tournamentCmd(t, "dance"),
		"sub of /ttt":           tournamentCmd(t, SubVsAI, "level", "easy"),
	} {
		if _, err := parseCommand(data, pc); errorKey(err) == "" {
			t.Errorf("%s: %v, want a refusal", name, err)
		}
	}
}

// TestParseMoved: the old path of a tournament subcommand, /ttt tournament
// <sub>, which a client with a stale list of commands still sends, is read
// as a MovedRequest to /ttt-tournament <sub>, whatever its options, not
// as an unknown command.
func TestParseMoved(t *testing.T) {
	pc := ParseContext{User: "100", Levels: Levels(), Now: startNow}
	moved := Moved()
	if len(moved) != 7 {
		t.Errorf("%d moved paths, want /ttt tournament's 7: %v", len(moved), moved)
	}
	for _, sub := range []string{TournamentCreate, TournamentStart, TournamentStatus, TournamentStandings, TournamentLeave, TournamentCancel, TournamentAddAI} {
		for _, kv := range [][]any{nil, {"name", "Cup", "format", "no such format"}} {
			path, req, err := Parse(oldTournamentCmd(t, sub, kv...), pc)
			from, to := Path(Name, SubTournament, sub), Path(TournamentName, sub)
			if err != nil || path != from || req != (MovedRequest{From: from, To: to}) {
				t.Errorf("/ttt tournament %s %v: %q, %#v, %v; want %q, a MovedRequest to %q", sub, kv, path, req, err, from, to)
			}
			if moved[from] != to {
				t.Errorf("Moved()[%q] = %q, want %q", from, moved[from], to)
			}
		}
	}
	if _, err := parseCommand(oldTournamentCmd(t, "dance"), pc); errorKey(err) != "error.unknown_command" {
		t.Errorf("/ttt tournament dance: %v, want error.unknown_command", err)
	}
	// Moved returns a copy.
	moved[Path(Name, SubHelp)] = "x"
	if _, ok := Moved()[Path(Name, SubHelp)]; ok {
		t.Error("Moved returned its table, not a copy")
	}
}

// TestParseTournamentStart: the start option of /ttt-tournament create
// is read against the command's time; a bad one is refused with the text
// that lists what it takes.
func TestParseTournamentStart(t *testing.T) {
	pc := ParseContext{User: "100", Levels: Levels(), Now: startNow}
	for in, want := range map[string]time.Time{
		"":                  {},
		"2h":                startNow.Add(2 * time.Hour),
		"<t:1796148000:R>":  time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC),
		"2026-12-01T18:00Z": time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC),
	} {
		kv := []any{"name", "Cup", "format", FormatSwiss}
		if in != "" {
			kv = append(kv, "start", in)
		}
		req, err := parseCommand(tournamentCmd(t, TournamentCreate, kv...), pc)
		if err != nil {
			t.Fatalf("start %q: %v", in, err)
		}
		if got := req.(TournamentRequest).StartAt; !got.Equal(want) {
			t.Fatalf("start %q: StartAt %v; want %v", in, got, want)
		}
	}
	for _, bad := range []string{"tomorrow", "2026-12-01T18:00", "<t:1764014400>", "10d"} {
		_, err := parseCommand(tournamentCmd(t, TournamentCreate, "name", "Cup", "format", FormatSwiss, "start", bad), pc)
		if errorKey(err) != "error.bad_start" {
			t.Fatalf("start %q: %v; want error.bad_start", bad, err)
		}
		if !strings.Contains(err.Error(), "start") {
			t.Fatalf("start %q: the logged error %q does not say what was wrong", bad, err)
		}
	}
}
