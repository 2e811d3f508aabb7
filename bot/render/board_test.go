package render

import (
	"context"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/settings"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// blankRunes are characters that look like text to Discord (so a label of
// them is accepted) but show nothing, and that a screen reader reads as
// nothing: the zero-width space, word joiner and byte order mark, the
// Hangul fillers and the blank Braille pattern.
const blankRunes = "\u200b\u200c\u200d\u2060\ufeff\u115f\u1160\u3164\uffa0\u2800"

// visibleRune reports whether r shows on a button and is read aloud.
func visibleRune(r rune) bool {
	return unicode.IsGraphic(r) && !unicode.IsSpace(r) && !unicode.Is(unicode.Cf, r) && !strings.ContainsRune(blankRunes, r)
}

// unreadable says why a screen reader would announce b as nothing, or ""
// when b has a name: a label with a visible character and no blank ones,
// or no label and an emoji, which the reader names ("cross mark").
func unreadable(b discordgo.Button) string {
	switch {
	case strings.ContainsAny(b.Label, blankRunes):
		return "its label " + strconv.Quote(b.Label) + " holds an invisible character"
	case b.Label != "" && !strings.ContainsFunc(b.Label, visibleRune):
		return "its label " + strconv.Quote(b.Label) + " shows nothing"
	case b.Label == "" && (b.Emoji == nil || b.Emoji.Name == "" && b.Emoji.ID == ""):
		return "it has neither a label nor an emoji"
	}
	return ""
}

// buttons returns the buttons of d, row by row.
func buttons(d *discordgo.InteractionResponseData) [][]discordgo.Button {
	var out [][]discordgo.Button
	for _, c := range d.Components {
		row, _ := asRow(c)
		var bs []discordgo.Button
		for _, c := range row.Components {
			if b, ok := asButton(c); ok {
				bs = append(bs, b)
			}
		}
		out = append(out, bs)
	}
	return out
}

// TestRenderBoardLabelsAreNotation pins the labels of each board's grid,
// row by row from the top: the column letter from a at the left and the
// row number from 1 at the top, as game.Cell.String names cells in hints,
// reviews, puzzles and shared games (and as game.Position.Diagram draws
// them), on the 4-row, 3-column X-O-X board too.
func TestRenderBoardLabelsAreNotation(t *testing.T) {
	r := testRenderer(t)
	tests := []struct {
		rules string
		want  string // the labels, rows separated by "/"
	}{
		{"3x3k3", "a1 b1 c1/a2 b2 c2/a3 b3 c3"},
		{"4x3xox", "a1 b1 c1/a2 b2 c2/a3 b3 c3/a4 b4 c4"},
		{"3x5k3", "a1 b1 c1 d1 e1/a2 b2 c2 d2 e2/a3 b3 c3 d3 e3"},
		{"5x5k4", "a1 b1 c1 d1 e1/a2 b2 c2 d2 e2/a3 b3 c3 d3 e3/a4 b4 c4 d4 e4/a5 b5 c5 d5 e5"},
	}
	for _, tt := range tests {
		t.Run(tt.rules, func(t *testing.T) {
			s := &persistence.Session{ID: testGame, Rules: tt.rules, Players: [2]persistence.Seat{human(alice), human(bob)},
				Status: persistence.StatusActive}
			d, err := r.Board(i18n.DefaultLocale, settings.LabelsCoordinates, s, nil)
			if err != nil {
				t.Fatal(err)
			}
			var rows []string
			for _, row := range buttons(d) {
				var labels []string
				for _, b := range row {
					if id, err := testSigner(t).Decode(b.CustomID); err == nil && id.Action == customid.ActionMove {
						labels = append(labels, b.Label)
					}
				}
				if len(labels) > 0 {
					rows = append(rows, strings.Join(labels, " "))
				}
			}
			if got := strings.Join(rows, "/"); got != tt.want {
				t.Errorf("labels\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestRenderBoardReadable renders every board that fits in buttons (3 to
// 5 rows and columns, and the X-O-X board) at every ply of two games, in
// every state (to move, the computer to move, won or drawn, resigned,
// timed out, ended by a moderator, abandoned) and with both labels. Every
// button has a name a screen reader can read; the button of each cell is
// that cell, labelled with its name (in settings.LabelsCompact only while free) and
// the winning line stays green.
func TestRenderBoardReadable(t *testing.T) {
	r, signer := testRenderer(t), testSigner(t)
	var all []game.Rules
	for rows := 3; rows <= command.MaxActionRows; rows++ {
		for cols := 3; cols <= command.MaxRowButtons; cols++ {
			rules, err := game.NewRules(rows, cols, 3)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, rules)
		}
	}
	xox, err := game.NewXOX(4, 3)
	if err != nil {
		t.Fatal(err)
	}
	all = append(all, xox)
	rng := rand.New(rand.NewPCG(19, 8))
	boards := 0
	for _, rules := range all {
		var order []game.Cell
		for c := rules.Board(); c != 0; c &= c - 1 {
			order = append(order, c.First())
		}
		shuffled := append([]game.Cell(nil), order...)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		for _, moves := range [][]game.Cell{order, shuffled} {
			pos := game.NewPosition(rules)
			for ply := 0; ; ply++ {
				for _, s := range boardStates(rules, pos, moves[:ply]) {
					for _, labels := range []settings.Labels{settings.LabelsCoordinates, settings.LabelsCompact} {
						d, err := r.Board(i18n.DefaultLocale, labels, s, nil)
						if err != nil {
							t.Fatalf("%s %v: %v", rules, moves[:ply], err)
						}
						checkReadableBoard(t, signer, labels, s, pos, d)
						boards++
					}
				}
				if pos.Over() || ply == len(moves) {
					break
				}
				pos = pos.Apply(moves[ply])
			}
		}
	}
	t.Logf("%d boards", boards)
}

// boardStates are the sessions of a game played to pos with moves: still
// going (with a person and with the computer to move) or ended in every
// way a game ends there.
func boardStates(rules game.Rules, pos game.Position, moves []game.Cell) []*persistence.Session {
	base := func(x, o persistence.Seat) *persistence.Session {
		return &persistence.Session{ID: testGame, Rules: rules.String(), Players: [2]persistence.Seat{x, o},
			Moves: moves, Status: persistence.StatusActive, TurnTime: time.Minute, Deadline: fixedNow, Version: int64(len(moves) + 1)}
	}
	ended := func(res game.Result, end persistence.Ending) *persistence.Session {
		s := base(human(alice), human(bob))
		s.Status, s.Result, s.End, s.Deadline = persistence.StatusFinished, res, end, time.Time{}
		if end == persistence.ByExpiry {
			s.Status = persistence.StatusExpired
		}
		return s
	}
	if o := pos.Outcome(); o.Over() {
		end := persistence.ByWin
		if o.Result == game.Draw {
			end = persistence.ByDraw
		}
		return []*persistence.Session{ended(o.Result, end)}
	}
	thinking := base(human(alice), bot("perfect"))
	if pos.ToMove() == game.X {
		thinking = base(bot("perfect"), human(alice))
	}
	return []*persistence.Session{
		base(human(alice), human(bob)), thinking,
		ended(game.OWins, persistence.ByResign), ended(game.XWins, persistence.ByTimeout),
		ended(game.Ongoing, persistence.ByModerator), ended(game.Ongoing, persistence.ByExpiry),
	}
}

// checkReadableBoard checks board d of session s at pos, cells labelled as
// labels says.
func checkReadableBoard(t *testing.T, signer *customid.Signer, labels settings.Labels, s *persistence.Session, pos game.Position, d *discordgo.InteractionResponseData) {
	t.Helper()
	name := s.Rules + " " + pos.String() + " " + s.Status.String() + "/" + s.End.String() + " " + labels.String()
	if err := CheckMessage(d); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	rules := pos.Rules()
	live := s.Status.Live() && !pos.Over()
	for i, row := range buttons(d) {
		for j, b := range row {
			if why := unreadable(b); why != "" {
				t.Fatalf("%s: button %d.%d %+v is unreadable: %s", name, i, j, b, why)
			}
			if i >= rules.Rows() {
				continue
			}
			c := game.NewCell(i, j)
			if id, err := signer.Decode(b.CustomID); err != nil || id.Cell != c {
				t.Fatalf("%s: button %d.%d is %+v (%v), want cell %s", name, i, j, id, err, c)
			}
			m := pos.At(c)
			want := c.String()
			if m != game.Empty && labels == settings.LabelsCompact {
				want = ""
			}
			if b.Label != want {
				t.Fatalf("%s: cell %s labelled %q, want %q", name, c, b.Label, want)
			}
			if b.Label != "" {
				if parsed, err := rules.ParseCell(b.Label); err != nil || parsed != c {
					t.Fatalf("%s: label %q of cell %s reads as %s (%v)", name, b.Label, c, parsed, err)
				}
			}
			if m != game.Empty && (b.Emoji == nil || b.Emoji.Name != markEmoji(m)) {
				t.Fatalf("%s: cell %s holds %s but shows %+v", name, c, m, b.Emoji)
			}
			if !live && !b.Disabled {
				t.Fatalf("%s: cell %s enabled after the game", name, c)
			}
			if pos.Outcome().Cells.Has(c) && b.Style != styleWin {
				t.Fatalf("%s: winning cell %s has style %d", name, c, b.Style)
			}
		}
	}
}

// hintCell matches a cell a hint names: "**c2**".
var hintCell = regexp.MustCompile(`\*\*([a-z][0-9]+)\*\*`)

// TestRenderHintNamesItsButton ties a hint's text to the board: each cell
// the hint names is the label of exactly one button, the button of the
// very cell the hint means, at its place in the grid and free to click.
func TestRenderHintNamesItsButton(t *testing.T) {
	r, signer := testRenderer(t), testSigner(t)
	tests := []struct{ rules, start string }{
		{"3x3k3", "---/---/---"},
		{"3x3k3", "XX-/-O-/---"}, // O must block at c1
		{"3x3k3", "X--/-O-/--X"},
		{"4x3xox", "---/-X-/---/---"},
		{"4x3xox", "X--/-O-/---/--X"},
		{"4x4k3", "XO--/-X--/--O-/----"},
	}
	for _, tt := range tests {
		t.Run(tt.rules+" "+tt.start, func(t *testing.T) {
			rules, err := game.ParseRules(tt.rules)
			if err != nil {
				t.Fatal(err)
			}
			pos, err := game.ParsePosition(rules, tt.start)
			if err != nil {
				t.Fatal(err)
			}
			h, err := bestMoves(pos)
			if err != nil {
				t.Fatal(err)
			}
			hint := r.Hint(i18n.DefaultLocale, pos.ToMove(), h).Content
			names := hintCell.FindAllStringSubmatch(hint, -1)
			if len(names) == 0 || len(names) != len(h.Moves) {
				t.Fatalf("hint %q names %d cells, want the %d best moves %v", hint, len(names), len(h.Moves), h.Moves)
			}
			players := [2]persistence.Seat{human(alice), bot("perfect")}
			if pos.ToMove() == game.O {
				players = [2]persistence.Seat{bot("perfect"), human(alice)}
			}
			s := &persistence.Session{ID: testGame, Rules: tt.rules, Start: tt.start, Players: players, Status: persistence.StatusActive}
			for _, labels := range []settings.Labels{settings.LabelsCoordinates, settings.LabelsCompact} {
				d, err := r.Board(i18n.DefaultLocale, labels, s, nil)
				if err != nil {
					t.Fatal(err)
				}
				for k, n := range names {
					want := h.Moves[k]
					found := 0
					for i, row := range buttons(d)[:rules.Rows()] {
						for j, b := range row {
							if b.Label != n[1] {
								continue
							}
							found++
							id, err := signer.Decode(b.CustomID)
							if err != nil || id.Cell != want || i != want.Row() || j != want.Col() || b.Disabled {
								t.Errorf("%s: the hint names %s, which labels button %d.%d (cell %s, disabled %v), want the free cell %s at %d.%d",
									labels, n[1], i, j, id.Cell, b.Disabled, want, want.Row(), want.Col())
							}
						}
					}
					if found != 1 {
						t.Errorf("%s: the hint names %s, which labels %d buttons, want 1", labels, n[1], found)
					}
				}
			}
		})
	}
}

// bestMoves is the hint of pos as the bot gives it (bot's bestMoves): the
// moves a perfect player keeps, what they keep and in how many plies.
func bestMoves(pos game.Position) (HintResult, error) {
	a, best, err := ai.NewSolver().PerfectChoices(context.Background(), pos, -1)
	if err != nil {
		return HintResult{}, err
	}
	h := HintResult{Moves: best, Value: a.Value}
	for _, mv := range a.Moves {
		if len(best) > 0 && mv.Cell == best[0] {
			h.Plies = mv.Plies
		}
	}
	return h, nil
}
