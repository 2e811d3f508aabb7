package render

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/settings"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/game/wide"
	"github.com/tttbot/ttt-bot/persistence"
)

const (
	alice = "111111111111111111"
	bob   = "222222222222222222"
)

func human(id string) persistence.Seat { return persistence.Seat{User: id} }

func bot(level string) persistence.Seat { return persistence.Seat{AI: persistence.AI{Level: level}} }

// boardCase is a session to render as a board, with its cells labelled
// as labels says.
type boardCase struct {
	name    string
	session func(t testing.TB) *persistence.Session
	ratings []PlayerRating
	labels  settings.Labels
}

func boardCases() []boardCase {
	deadline := fixedNow.Add(2 * time.Minute)
	active := func(rules string, x, o persistence.Seat, moves ...string) func(t testing.TB) *persistence.Session {
		return func(t testing.TB) *persistence.Session {
			return &persistence.Session{ID: testGame, Rules: rules, Players: [2]persistence.Seat{x, o},
				Moves: cells(t, rules, moves...), Status: persistence.StatusActive, TurnTime: 2 * time.Minute,
				Deadline: deadline, Version: int64(len(moves) + 1)}
		}
	}
	finished := func(rules string, x, o persistence.Seat, res game.Result, end persistence.Ending, moves ...string) func(t testing.TB) *persistence.Session {
		return func(t testing.TB) *persistence.Session {
			s := active(rules, x, o, moves...)(t)
			s.Status, s.Result, s.End, s.Deadline = persistence.StatusFinished, res, end, time.Time{}
			if end == persistence.ByExpiry {
				s.Status = persistence.StatusExpired
			}
			return s
		}
	}
	return []boardCase{
		{name: "3x3-start", session: active("3x3k3", human(alice), human(bob))},
		{name: "3x3-no-clock", session: func(t testing.TB) *persistence.Session {
			s := active("3x3k3", human(alice), human(bob), "b2")(t)
			s.Deadline, s.TurnTime = time.Time{}, 0
			return s
		}},
		{name: "3x3-vs-ai-human-to-move", session: active("3x3k3", human(alice), bot("minimax"), "b2", "a1")},
		{name: "3x3-vs-ai-thinking", session: active("3x3k3", human(alice), bot("perfect"), "b2")},
		{name: "3x3-x-wins", session: finished("3x3k3", human(alice), human(bob), game.XWins, persistence.ByWin, "a1", "a2", "b1", "b2", "c1"),
			ratings: []PlayerRating{{User: alice, Before: 1200, After: 1216}, {User: bob, Before: 1200, After: 1184}}},
		{name: "3x3-draw", session: finished("3x3k3", human(alice), bot("easy"), game.Draw, persistence.ByDraw,
			"a1", "b2", "c3", "b1", "b3", "a3", "c1", "c2", "a2")},
		{name: "3x3-resign", session: finished("3x3k3", human(alice), human(bob), game.OWins, persistence.ByResign, "b2", "a1")},
		{name: "3x3-timeout", session: finished("3x3k3", human(alice), human(bob), game.XWins, persistence.ByTimeout, "b2")},
		{name: "3x3-moderator", session: finished("3x3k3", human(alice), human(bob), game.Ongoing, persistence.ByModerator, "b2")},
		{name: "3x3-abandoned", session: finished("3x3k3", human(alice), human(bob), game.Ongoing, persistence.ByExpiry, "b2")},
		{name: "4x4k3-mid", session: active("4x4k3", human(alice), human(bob), "b2", "c3", "b3")},
		{name: "5x5k4-mid", session: active("5x5k4", human(alice), bot("mcts"), "c3", "b2", "d4")},
		{name: "5x5k5-x-wins", session: finished("5x5k5", human(alice), human(bob), game.XWins, persistence.ByWin,
			"a1", "a2", "b2", "b1", "c3", "c1", "d4", "d1", "e5")},
		{name: "4x3xox-o-wins", session: finished("4x3xox", human(alice), human(bob), game.OWins, persistence.ByWin, "b1", "a1", "b3", "c1")},
		{name: "ai-duel", session: active("4x4k4", bot("minimax"), bot("random"), "a1")},
		{name: "5x5k4-mid-compact", session: active("5x5k4", human(alice), bot("mcts"), "c3", "b2", "d4"), labels: settings.LabelsCompact},
		{name: "5x5k5-x-wins-compact", labels: settings.LabelsCompact, session: finished("5x5k5", human(alice), human(bob), game.XWins, persistence.ByWin,
			"a1", "a2", "b2", "b1", "c3", "c1", "d4", "d1", "e5")},
	}
}

func TestRenderBoardGolden(t *testing.T) {
	r := testRenderer(t)
	for _, tc := range boardCases() {
		t.Run(tc.name, func(t *testing.T) {
			d, err := r.Board(i18n.DefaultLocale, tc.labels, tc.session(t), tc.ratings)
			if err != nil {
				t.Fatalf("Board: %v", err)
			}
			goldenFile(t, "board-"+tc.name+".json", wireJSON(t, d))
		})
	}
}

// l10nLocales are the locales whose board, challenge, stats, help and
// retrain report are pinned in golden files besides en-US: different
// scripts (Latin, Greek, Cyrillic, CJK, Devanagari, Thai) and plural
// systems (one/other, one/few/many, none).
var l10nLocales = []discordgo.Locale{discordgo.PortugueseBR, discordgo.Greek, discordgo.German, discordgo.Polish,
	discordgo.Russian, discordgo.Japanese, discordgo.ChineseCN, discordgo.Hindi, discordgo.Thai, discordgo.SpanishLATAM}

// TestRenderLocalesGolden pins a finished board, a challenge, the help and
// stats with counts that take every plural form (1, 2, 5, 21, 22, 1500
// games) in l10nLocales.
func TestRenderLocalesGolden(t *testing.T) {
	r := testRenderer(t)
	win := boardCases()[4]
	for _, loc := range l10nLocales {
		t.Run(string(loc), func(t *testing.T) {
			d, err := r.Board(loc, settings.LabelsCoordinates, win.session(t), win.ratings)
			if err != nil {
				t.Fatal(err)
			}
			goldenFile(t, "board-"+win.name+"."+string(loc)+".json", wireJSON(t, d))
			c, err := r.Challenge(loc, challengeDirect(t), "")
			if err != nil {
				t.Fatal(err)
			}
			goldenFile(t, "challenge-direct."+string(loc)+".json", wireJSON(t, c))
			goldenFile(t, "help."+string(loc)+".json", wireJSON(t, r.Help(loc)))
			var stats []string
			for _, n := range []int64{1, 2, 5, 21, 22, 1500} {
				st := persistence.Stats{User: alice, Guild: "42", Games: n, Tally: persistence.Tally{Wins: n - 1, Draws: 1},
					Rating: 1234.6, Rated: n, VsAI: map[string]persistence.Tally{"perfect": {Losses: n}}}
				stats = append(stats, checked(t, r.Stats(loc, st)).Content)
			}
			goldenFile(t, "stats-plurals."+string(loc)+".json", wireJSON(t, stats))
		})
	}
}

func challengeDirect(t testing.TB) *persistence.Session {
	return &persistence.Session{ID: testGame, Rules: "4x4k3", Players: [2]persistence.Seat{human(alice), human(bob)},
		Challenger: game.X, Status: persistence.StatusOpen, Deadline: fixedNow.Add(5 * time.Minute), Version: 1}
}

type challengeCase struct {
	name    string
	session func(t testing.TB) *persistence.Session
	by      string
}

func challengeCases() []challengeCase {
	open := func(t testing.TB) *persistence.Session {
		return &persistence.Session{ID: testGame, Rules: "3x3k3", Players: [2]persistence.Seat{{}, human(alice)},
			Challenger: game.O, Status: persistence.StatusOpen, Deadline: fixedNow.Add(5 * time.Minute), Version: 1}
	}
	ended := func(base func(testing.TB) *persistence.Session, st persistence.Status, end persistence.Ending) func(testing.TB) *persistence.Session {
		return func(t testing.TB) *persistence.Session {
			s := base(t)
			s.Status, s.End, s.Deadline = st, end, time.Time{}
			return s
		}
	}
	return []challengeCase{
		{name: "direct", session: challengeDirect},
		{name: "open", session: open},
		{name: "declined", session: ended(challengeDirect, persistence.StatusExpired, persistence.ByDecline), by: bob},
		{name: "cancelled", session: ended(challengeDirect, persistence.StatusExpired, persistence.ByDecline), by: alice},
		{name: "expired", session: ended(open, persistence.StatusExpired, persistence.ByExpiry)},
	}
}

func TestRenderChallengeGolden(t *testing.T) {
	r := testRenderer(t)
	for _, tc := range challengeCases() {
		t.Run(tc.name, func(t *testing.T) {
			d, err := r.Challenge(i18n.DefaultLocale, tc.session(t), tc.by)
			if err != nil {
				t.Fatalf("Challenge: %v", err)
			}
			goldenFile(t, "challenge-"+tc.name+".json", wireJSON(t, d))
		})
	}
}

// TestRenderStoreUnavailableGolden pins the answer to an interaction that
// failed because the game store could not be reached: it says so, that
// the games are safe and to try again shortly, in each locale, privately,
// without the cause; anything else unexpected stays "Something went
// wrong".
func TestRenderStoreUnavailableGolden(t *testing.T) {
	r := testRenderer(t)
	down := fmt.Errorf("persistence: load game 7.abc: %w",
		fmt.Errorf("%w: dial tcp 127.0.0.1:6379: connect: connection refused", persistence.ErrUnavailable))
	if got := ErrorKey(down); got != KeyStoreUnavailable {
		t.Fatalf("ErrorKey(%v) = %s, want %s", down, got, KeyStoreUnavailable)
	}
	if got := ErrorKey(errors.New("bot: something unforeseen")); got != KeyInternal {
		t.Fatalf("an unexpected error maps to %s, want %s", got, KeyInternal)
	}
	for _, loc := range goldenLocales {
		t.Run(string(loc), func(t *testing.T) {
			d := checked(t, r.Error(loc, down))
			if d.Flags&discordgo.MessageFlagsEphemeral == 0 {
				t.Error("the answer is public")
			}
			if d.Content == r.cat.Text(loc, KeyInternal) || strings.Contains(d.Content, "127.0.0.1") {
				t.Errorf("the answer %q is the generic one, or shows the cause", d.Content)
			}
			goldenFile(t, "reply-store-unavailable."+string(loc)+".json", wireJSON(t, d))
		})
	}
}

func TestRenderRepliesGolden(t *testing.T) {
	r := testRenderer(t)
	goldenFile(t, "reply-not-your-turn.json", wireJSON(t, r.Reply(i18n.DefaultLocale, KeyNotYourTurn)))
	goldenFile(t, "reply-error-forged.json", wireJSON(t, r.Error(i18n.DefaultLocale, customid.ErrForged)))
	goldenFile(t, "help.en-US.json", wireJSON(t, r.Help(i18n.DefaultLocale)))
}

// TestRenderMoved pins the answer to a stale client's old path of a
// command that moved: the new path, the command's name as it is and the
// subcommand's as the reader's client shows it.
func TestRenderMoved(t *testing.T) {
	r := testRenderer(t)
	to := command.Path(command.TournamentName, command.TournamentCreate)
	for loc, want := range map[discordgo.Locale]string{
		i18n.DefaultLocale: "`/ttt-tournament create`",
		discordgo.German:   "`/ttt-tournament erstellen`",
		discordgo.Japanese: "`/ttt-tournament 作成`",
	} {
		d := r.Moved(loc, to)
		if !strings.Contains(d.Content, want) || d.Flags&discordgo.MessageFlagsEphemeral == 0 {
			t.Errorf("%s: %q (flags %d), want an ephemeral answer naming %s", string(loc), d.Content, d.Flags, want)
		}
		goldenFile(t, "reply-command-moved."+string(loc)+".json", wireJSON(t, d))
	}
}

// allMessages renders every case in every locale, plus every reply key.
func allMessages(t *testing.T) map[string]*discordgo.InteractionResponseData {
	r := testRenderer(t)
	out := map[string]*discordgo.InteractionResponseData{}
	for _, loc := range r.Catalog().Locales() {
		for _, tc := range boardCases() {
			d, err := r.Board(loc, tc.labels, tc.session(t), tc.ratings)
			if err != nil {
				t.Fatalf("%s %s: %v", tc.name, string(loc), err)
			}
			out["board "+tc.name+" "+string(loc)] = d
		}
		for _, tc := range challengeCases() {
			d, err := r.Challenge(loc, tc.session(t), tc.by)
			if err != nil {
				t.Fatalf("%s %s: %v", tc.name, string(loc), err)
			}
			out["challenge "+tc.name+" "+string(loc)] = d
		}
		for _, k := range r.Catalog().Keys() {
			if strings.HasPrefix(k, "reply.") {
				out[k+" "+string(loc)] = r.Reply(loc, k)
			}
		}
		out["help "+string(loc)] = r.Help(loc)
	}
	return out
}

// TestRenderLimits checks every rendered message against Discord's limits,
// for buttons a screen reader would read as nothing, and for unfilled
// placeholders or missing texts.
func TestRenderLimits(t *testing.T) {
	for name, d := range allMessages(t) {
		if err := CheckMessage(d); err != nil {
			t.Errorf("%s:\n%v", name, err)
		}
		for i, row := range buttons(d) {
			for j, b := range row {
				if why := unreadable(b); why != "" {
					t.Errorf("%s: button %d.%d is unreadable: %s", name, i, j, why)
				}
			}
		}
		js := string(wireJSON(t, d))
		if strings.Contains(js, "[[") {
			t.Errorf("%s: a text is missing from the catalog:\n%s", name, js)
		}
		for _, p := range []string{"{mark}", "{player}", "{rules}", "{x}", "{o}", "{deadline}", "{winner}", "{loser}"} {
			if strings.Contains(d.Content, p) {
				t.Errorf("%s: unfilled %s in %q", name, p, d.Content)
			}
		}
	}
}

// TestRenderBoardButtons checks the grid against the position: one button
// per cell, signed with the game and move number, labelled with the
// cell's name (a taken cell's only in settings.LabelsCoordinates), marks disabled,
// the last move and the winning line coloured, and all disabled at the
// end.
func TestRenderBoardButtons(t *testing.T) {
	r := testRenderer(t)
	s := testSigner(t)
	for _, tc := range boardCases() {
		t.Run(tc.name, func(t *testing.T) {
			sess := tc.session(t)
			pos, err := sess.Position()
			if err != nil {
				t.Fatal(err)
			}
			d, err := r.Board(i18n.DefaultLocale, tc.labels, sess, tc.ratings)
			if err != nil {
				t.Fatal(err)
			}
			rules := pos.Rules()
			live := sess.Status.Live()
			for row := range rules.Rows() {
				ar, ok := asRow(d.Components[row])
				if !ok || len(ar.Components) != rules.Cols() {
					t.Fatalf("row %d: %#v", row, d.Components[row])
				}
				for col := range rules.Cols() {
					b, _ := asButton(ar.Components[col])
					c := game.NewCell(row, col)
					id, err := s.Decode(b.CustomID)
					if err != nil {
						t.Fatalf("cell %s: %v", c, err)
					}
					if want := (customid.ID{Action: customid.ActionMove, Game: sess.ID, Move: len(sess.Moves), Cell: c}); id != want {
						t.Errorf("cell %s: custom ID %+v, want %+v", c, id, want)
					}
					m := pos.At(c)
					if m != game.Empty && (!b.Disabled || b.Emoji == nil || b.Emoji.Name != markEmoji(m)) {
						t.Errorf("cell %s holds %s but the button is %+v", c, m, b)
					}
					if m == game.Empty && b.Emoji != nil {
						t.Errorf("empty cell %s has the emoji %+v", c, b.Emoji)
					}
					wantLabel := c.String()
					if m != game.Empty && tc.labels == settings.LabelsCompact {
						wantLabel = ""
					}
					if b.Label != wantLabel {
						t.Errorf("cell %s labelled %q, want %q", c, b.Label, wantLabel)
					}
					if !live && !b.Disabled {
						t.Errorf("cell %s enabled after the game", c)
					}
					if m == game.Empty && live && !sess.Seat(pos.ToMove()).IsAI() && b.Disabled {
						t.Errorf("empty cell %s disabled during the game", c)
					}
					wantStyle := discordgo.SecondaryButton
					if pos.Outcome().Cells.Has(c) {
						wantStyle = discordgo.SuccessButton
					} else if len(sess.Moves) > 0 && sess.Moves[len(sess.Moves)-1] == c {
						wantStyle = discordgo.PrimaryButton
					}
					if b.Style != wantStyle {
						t.Errorf("cell %s style %d, want %d", c, b.Style, wantStyle)
					}
				}
			}
			extra := len(d.Components) - rules.Rows()
			if rules.Rows() == command.MaxActionRows && extra != 0 {
				t.Errorf("a %d-row board has %d extra rows", rules.Rows(), extra)
			}
		})
	}
}

func TestRenderBoardErrors(t *testing.T) {
	r := testRenderer(t)
	tests := []struct {
		name string
		s    *persistence.Session
	}{
		{"bad rules", &persistence.Session{ID: testGame, Rules: "nonsense"}},
		{"too big", &persistence.Session{ID: testGame, Rules: "16x16k5"}},
		{"bad wide move", &persistence.Session{ID: testGame, Rules: "15x15k5", WideMoves: []wide.Cell{15}}},
		{"long id on a big board", &persistence.Session{ID: persistence.GameID(strings.Repeat("1", 70) + ".abcdefghijklm"), Rules: "15x15k5", Status: persistence.StatusActive}},
		{"bad move", &persistence.Session{ID: testGame, Rules: "3x3k3", Moves: []game.Cell{0, 0}}},
		{"long id", &persistence.Session{ID: persistence.GameID(strings.Repeat("1", 70) + ".abcdefghijklm"), Rules: "3x3k3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d, err := r.Board(i18n.DefaultLocale, settings.LabelsCoordinates, tt.s, nil); err == nil {
				t.Errorf("Board = %+v, want an error", d)
			}
		})
	}
	if _, err := r.Challenge(i18n.DefaultLocale, &persistence.Session{ID: testGame, Rules: "3x3k3"}, ""); err == nil {
		t.Errorf("Challenge of a session without a challenger: no error")
	}
}

func TestCheckMessageCatches(t *testing.T) {
	btn := func(id string) discordgo.MessageComponent {
		return discordgo.Button{Label: "x", CustomID: id, Style: discordgo.SecondaryButton}
	}
	row := func(n int, prefix string) discordgo.MessageComponent {
		var bs []discordgo.MessageComponent
		for i := range n {
			bs = append(bs, btn(fmt.Sprintf("%s%d", prefix, i)))
		}
		return discordgo.ActionsRow{Components: bs}
	}
	tests := []struct {
		name string
		d    *discordgo.InteractionResponseData
		want string
	}{
		{"nil", nil, "no message"},
		{"content", &discordgo.InteractionResponseData{Content: strings.Repeat("é", 2001)}, "content is 2001"},
		{"six rows", &discordgo.InteractionResponseData{Components: []discordgo.MessageComponent{
			row(1, "a"), row(1, "b"), row(1, "c"), row(1, "d"), row(1, "e"), row(1, "f")}}, "6 action rows"},
		{"six buttons", &discordgo.InteractionResponseData{Components: []discordgo.MessageComponent{row(6, "a")}}, "6 components"},
		{"bare button", &discordgo.InteractionResponseData{Components: []discordgo.MessageComponent{btn("a")}}, "not an action row"},
		{"repeated id", &discordgo.InteractionResponseData{Components: []discordgo.MessageComponent{row(2, "a"), row(2, "a")}}, "repeats custom ID"},
		{"long id", &discordgo.InteractionResponseData{Components: []discordgo.MessageComponent{
			discordgo.ActionsRow{Components: []discordgo.MessageComponent{btn(strings.Repeat("i", 101))}}}}, "custom ID is 101"},
		{"no id", &discordgo.InteractionResponseData{Components: []discordgo.MessageComponent{
			discordgo.ActionsRow{Components: []discordgo.MessageComponent{btn("")}}}}, "no custom ID"},
		{"long label", &discordgo.InteractionResponseData{Components: []discordgo.MessageComponent{
			discordgo.ActionsRow{Components: []discordgo.MessageComponent{discordgo.Button{Label: strings.Repeat("l", 81), CustomID: "a"}}}}}, "label is 81"},
		{"no label", &discordgo.InteractionResponseData{Components: []discordgo.MessageComponent{
			discordgo.ActionsRow{Components: []discordgo.MessageComponent{discordgo.Button{CustomID: "a"}}}}}, "neither label nor emoji"},
		{"embed description", &discordgo.InteractionResponseData{Embeds: []*discordgo.MessageEmbed{{Description: strings.Repeat("d", 4097)}}}, "description is 4097"},
		{"embed total", &discordgo.InteractionResponseData{Embeds: []*discordgo.MessageEmbed{
			{Description: strings.Repeat("d", 4000)}, {Description: strings.Repeat("d", 2001)}}}, "total 6001"},
		{"embed field", &discordgo.InteractionResponseData{Embeds: []*discordgo.MessageEmbed{
			{Fields: []*discordgo.MessageEmbedField{{Name: "n", Value: strings.Repeat("v", 1025)}}}}}, "field value is 1025"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckMessage(tt.d)
			if !errors.Is(err, command.ErrLimit) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("CheckMessage = %v, want command.ErrLimit mentioning %q", err, tt.want)
			}
		})
	}
}

func BenchmarkRenderBoard(b *testing.B) {
	r := testRenderer(b)
	s := boardCases()[11].session(b) // 5x5, mid-game
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Board(i18n.DefaultLocale, settings.LabelsCoordinates, s, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func ExampleRenderer_Board() {
	cat, _ := i18n.NewCatalog()
	signer, _ := customid.NewSigner([]byte("use 32 random bytes from config!"))
	r := NewRenderer(cat, signer)
	s := &persistence.Session{
		ID: "112233445566778899.abcdefghijklm", Rules: "3x3k3",
		Players: [2]persistence.Seat{{User: "1"}, {AI: persistence.AI{Level: "minimax"}}},
		Moves:   []game.Cell{game.NewCell(1, 1), game.NewCell(0, 0)},
		Status:  persistence.StatusActive, Deadline: time.Unix(1700000000, 0),
	}
	d, err := r.Board(discordgo.PortugueseBR, settings.LabelsCoordinates, s, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(d.Content)
	fmt.Println(len(d.Components), "rows", CheckMessage(d))
	// Output:
	// ❌ <@1> vs ⭕ 🤖 Minimax · 3×3, 3 em linha
	// Vez de ❌ <@1>, prazo <t:1700000000:R>
	// 4 rows <nil>
}

func statsMessages(t *testing.T, loc discordgo.Locale) map[string]*discordgo.InteractionResponseData {
	r := testRenderer(t)
	st := persistence.Stats{User: alice, Guild: "42", Games: 12, Tally: persistence.Tally{Wins: 7, Losses: 3, Draws: 2},
		Rating: 1234.6, Rated: 5, VsAI: map[string]persistence.Tally{"minimax": {Losses: 2, Draws: 3}, "easy": {Wins: 4}, "future": {Wins: 1}}}
	var places []persistence.Standing
	for i := range MaxLeaderboardLines + 3 {
		places = append(places, persistence.Standing{Rank: int64(i + 1), User: strings.Repeat(fmt.Sprint(i%10), 19), Rating: 1600 - 10.4*float64(i)})
	}
	return map[string]*discordgo.InteractionResponseData{
		"stats":             r.Stats(loc, st),
		"stats-global":      r.Stats(loc, persistence.Stats{User: bob, Rating: persistence.RatingStart}),
		"stats-none":        r.NoStats(loc, bob),
		"leaderboard":       r.Leaderboard(loc, "42", places),
		"leaderboard-empty": r.Leaderboard(loc, "", nil),
	}
}

func TestRenderStatsGolden(t *testing.T) {
	for name, d := range statsMessages(t, i18n.DefaultLocale) {
		goldenFile(t, name+".json", wireJSON(t, d))
	}
	for name, d := range statsMessages(t, discordgo.Greek) {
		if name == "stats" {
			goldenFile(t, name+".el.json", wireJSON(t, d))
		}
	}
	for _, loc := range testCatalog(t).Locales() {
		for name, d := range statsMessages(t, loc) {
			if err := CheckMessage(d); err != nil {
				t.Errorf("%s %s: %v", name, string(loc), err)
			}
			if strings.Contains(d.Content, "[[") || strings.Contains(d.Content, "{") {
				t.Errorf("%s %s: %q", name, string(loc), d.Content)
			}
		}
	}
	if n := strings.Count(statsMessages(t, i18n.DefaultLocale)["leaderboard"].Content, "\n"); n != MaxLeaderboardLines {
		t.Errorf("leaderboard has %d places, want %d", n, MaxLeaderboardLines)
	}
}

// TestDaysRoundsUp: a retention period is told in whole days, rounded up.
func TestDaysRoundsUp(t *testing.T) {
	if got := days(36 * time.Hour); got != 2 {
		t.Errorf("days(36h) = %d, want 2 (rounded up)", got)
	}
}
