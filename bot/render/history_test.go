package render

import (
	"bytes"
	"context"
	"image/png"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai/review"
	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/settings"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// goldenLocales are the locales every new message is pinned in.
var goldenLocales = []discordgo.Locale{discordgo.EnglishUS, discordgo.PortugueseBR, discordgo.Greek}

// archivedGame is a finished game as the archive keeps it.
func archivedGame(t testing.TB, rules string, x, o persistence.Player, res game.Result, end persistence.Ending, moves ...string) *persistence.ArchivedGame {
	return &persistence.ArchivedGame{
		ID: testGame, Guild: "900", Rules: rules, Moves: cells(t, rules, moves...), Players: [2]persistence.Player{x, o},
		Result: res, End: end, Finished: fixedNow,
	}
}

// blunderGame is a 3x3 game with every kind of move: X's opposite corner
// is an inaccuracy, O throws the draw away at move 6, X wins slower than
// it could at move 7 (good, not best) and wins at move 9.
func blunderGame(t testing.TB) *persistence.ArchivedGame {
	return archivedGame(t, "3x3k3", persistence.Player{User: alice}, persistence.Player{User: bob}, game.XWins, persistence.ByWin,
		"a1", "b2", "c3", "b1", "b3", "a2", "c2", "c1", "a3")
}

// reviewOf reviews g as the bot does.
func reviewOf(t testing.TB, g *persistence.ArchivedGame) *review.Review {
	t.Helper()
	rec, err := g.Record()
	if err != nil {
		t.Fatal(err)
	}
	rv, err := review.New(review.Options{Seed: 1}).Review(context.Background(), rec.Start, rec.Moves)
	if err != nil {
		t.Fatalf("Review: %v", err)
	}
	return rv
}

// checked fails t when d breaks Discord's limits.
func checked(t *testing.T, d *discordgo.InteractionResponseData) *discordgo.InteractionResponseData {
	t.Helper()
	if err := CheckMessage(d); err != nil {
		t.Errorf("CheckMessage:\n%v", err)
	}
	return d
}

func TestRenderHistoryGolden(t *testing.T) {
	r := testRenderer(t)
	entry := func(i int) persistence.HistoryEntry {
		e := persistence.HistoryEntry{
			Game: persistence.GameID("112233445566778899.game" + strconv.Itoa(100+i)), Guild: "900", Rules: "3x3k3",
			Side: game.X, Opponent: persistence.Player{User: bob}, Result: game.XWins, End: persistence.ByWin,
			Moves: 5 + i%5, Finished: fixedNow.Add(-time.Duration(i) * time.Hour),
			Rating: persistence.RatingChange{Rated: true, Before: 1200, After: 1216},
		}
		switch i % 3 {
		case 1:
			e.Opponent, e.Result, e.Side, e.Rating = persistence.Player{AI: "perfect"}, game.Draw, game.O, persistence.RatingChange{}
			e.Rules, e.Assisted = "5x5k4", true
		case 2:
			e.Result, e.Rating.After = game.OWins, 1184
		}
		return e
	}
	page := func(p, total int) HistoryView {
		v := HistoryView{Ref: customid.HistoryRef{User: alice}, Owner: alice, Page: p, Total: total}
		for i := p * HistoryPage; i < min(total, (p+1)*HistoryPage); i++ {
			v.Entries = append(v.Entries, entry(i))
		}
		return v
	}
	cases := []struct {
		name string
		view HistoryView
	}{
		{"first", page(0, 23)},
		{"last", page(2, 23)},
		{"one-page", page(0, 3)},
		{"empty", HistoryView{Ref: customid.HistoryRef{User: bob, Rules: "4x3xox"}, Owner: alice}},
	}
	for _, loc := range goldenLocales {
		for _, tc := range cases {
			t.Run(string(loc)+"/"+tc.name, func(t *testing.T) {
				d, err := r.History(loc, tc.view)
				if err != nil {
					t.Fatal(err)
				}
				checked(t, d)
				if d.Flags&discordgo.MessageFlagsEphemeral == 0 {
					t.Error("a history is not private")
				}
				goldenFile(t, "history-"+tc.name+"."+string(loc)+".json", wireJSON(t, d))
			})
		}
	}
}

// TestRenderHistoryLongest: a full page of the longest lines (20-digit
// IDs, 5x5 boards, three-digit move counts) stays within the limits in
// every locale.
func TestRenderHistoryLongest(t *testing.T) {
	r := testRenderer(t)
	long := strings.Repeat("9", 20)
	v := HistoryView{Ref: customid.HistoryRef{User: long, Rules: "5x5k4"}, Owner: long, Page: 19, Total: 200}
	for i := range HistoryPage {
		v.Entries = append(v.Entries, persistence.HistoryEntry{
			Game: persistence.GameID(long + "." + strings.Repeat("z", 13)), Rules: "5x5k4", Side: game.O,
			Opponent: persistence.Player{AI: "humanlike"}, Result: game.Draw, Moves: 25, Finished: fixedNow.Add(time.Duration(i)),
			Rating: persistence.RatingChange{Rated: true, Before: 2999, After: 1000}, Assisted: true,
		})
	}
	for _, loc := range testCatalog(t).Locales() {
		d, err := r.History(loc, v)
		if err != nil {
			t.Fatal(err)
		}
		checked(t, d)
	}
}

func TestRenderReplayGolden(t *testing.T) {
	r := testRenderer(t)
	g := blunderGame(t)
	notes := NotesOf(reviewOf(t, g))
	cases := []struct {
		name  string
		ply   int
		notes *ReviewNotes
	}{
		{"start", 0, nil},
		{"mid", 4, nil},
		{"mid-reviewed", 4, &notes},
		{"end-reviewed", len(g.Moves), &notes},
	}
	for _, loc := range goldenLocales {
		for _, tc := range cases {
			t.Run(string(loc)+"/"+tc.name, func(t *testing.T) {
				d, err := r.Replay(loc, g, tc.ply, carolID, tc.notes)
				if err != nil {
					t.Fatal(err)
				}
				goldenFile(t, "replay-"+tc.name+"."+string(loc)+".json", wireJSON(t, checked(t, d)))
			})
		}
	}
}

// carolID owns the replays of the golden tests.
const carolID = "333333333333333333"

func TestRenderReviewGolden(t *testing.T) {
	r := testRenderer(t)
	games := []struct {
		name string
		g    *persistence.ArchivedGame
	}{
		{"3x3-swings", blunderGame(t)},
		{"3x3-perfect-draw", archivedGame(t, "3x3k3", persistence.Player{User: alice}, persistence.Player{AI: "perfect"}, game.Draw, persistence.ByDraw,
			"a1", "b2", "c3", "b1", "b3", "a3", "c1", "c2", "a2")},
		{"4x3xox", archivedGame(t, "4x3xox", persistence.Player{User: alice}, persistence.Player{User: bob}, game.OWins, persistence.ByWin, "b1", "a1", "b3", "c1")},
	}
	for _, gc := range games {
		rv := reviewOf(t, gc.g)
		for _, loc := range goldenLocales {
			t.Run(gc.name+"/"+string(loc), func(t *testing.T) {
				d, err := r.Review(loc, gc.g, rv)
				if err != nil {
					t.Fatal(err)
				}
				checked(t, d)
				if len(d.Files) != 1 || d.Files[0].Name != ReviewChartName {
					t.Fatalf("files %+v, want the chart", d.Files)
				}
				raw, err := io.ReadAll(d.Files[0].Reader)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := png.Decode(bytes.NewReader(raw)); err != nil {
					t.Errorf("the chart is not a PNG: %v", err)
				}
				goldenFile(t, "review-"+gc.name+"."+string(loc)+".json", wireJSON(t, d.Embeds))
			})
		}
	}
}

// TestRenderReviewLongest: the longest reviews (a full 5x5 game, with the
// longest names of every verdict and value) fit Discord's embed limits in
// every locale.
func TestRenderReviewLongest(t *testing.T) {
	r := testRenderer(t)
	rng := rand.New(rand.NewPCG(5, 5))
	for _, rules := range []string{"5x5k4", "5x5k5", "4x4k4"} {
		rr, err := game.ParseRules(rules)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			p := game.NewPosition(rr)
			var moves []string
			for !p.Over() {
				free := p.Moves().Cells()
				c := free[rng.IntN(len(free))]
				moves = append(moves, c.String())
				p = p.Apply(c)
			}
			g := archivedGame(t, rules, persistence.Player{User: strings.Repeat("9", 20)}, persistence.Player{AI: "humanlike"},
				p.Outcome().Result, persistence.ByWin, moves...)
			rv := reviewOf(t, g)
			for _, loc := range testCatalog(t).Locales() {
				d, err := r.Review(loc, g, rv)
				if err != nil {
					t.Fatal(err)
				}
				checked(t, d)
			}
		}
	}
}

func TestRenderHintGolden(t *testing.T) {
	r := testRenderer(t)
	pos, err := game.ParsePosition(game.Classic(), "X--/-O-/---")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		h    HintResult
	}{
		{"draw-many", HintResult{Moves: cells(t, "3x3k3", "b1", "c1"), Value: game.Draw, Plies: 7}},
		{"win", HintResult{Moves: cells(t, "3x3k3", "c3"), Value: game.XWins, Plies: 3}},
		{"estimate", HintResult{Moves: cells(t, "3x3k3", "c3"), Value: game.Ongoing}},
	}
	for _, loc := range goldenLocales {
		for _, tc := range cases {
			t.Run(string(loc)+"/"+tc.name, func(t *testing.T) {
				d := checked(t, r.Hint(loc, pos.ToMove(), tc.h))
				goldenFile(t, "hint-"+tc.name+"."+string(loc)+".json", wireJSON(t, d))
			})
		}
	}
}

func TestRenderPuzzleGolden(t *testing.T) {
	r := testRenderer(t)
	puzzle := func(status persistence.Status, res game.Result, end persistence.Ending, moves ...string) *persistence.Session {
		return &persistence.Session{ID: testGame, Rules: "3x3k3", Start: "X--/-O-/--X",
			Players: [2]persistence.Seat{bot("perfect"), human(alice)}, Moves: cells(t, "3x3k3", moves...),
			Status: status, Result: res, End: end, Puzzle: "2026-11-24", Version: 3, TurnTime: time.Minute, Deadline: fixedNow.Add(time.Minute)}
	}
	cases := []struct {
		name string
		s    *persistence.Session
	}{
		{"live", puzzle(persistence.StatusActive, game.Ongoing, persistence.NotEnded)},
		{"failed", puzzle(persistence.StatusFinished, game.XWins, persistence.ByResign, "a3")}, // the judge resigns for the user
		{"timeout", puzzle(persistence.StatusFinished, game.XWins, persistence.ByTimeout)},
		{"solved", puzzle(persistence.StatusFinished, game.OWins, persistence.ByWin, "b1", "b3", "a3", "a2", "c1")},
		{"computer-timeout", puzzle(persistence.StatusFinished, game.OWins, persistence.ByTimeout, "a3")},
		{"moderator", puzzle(persistence.StatusFinished, game.Ongoing, persistence.ByModerator)},
	}
	for _, loc := range goldenLocales {
		for _, tc := range cases {
			t.Run(string(loc)+"/"+tc.name, func(t *testing.T) {
				if tc.s.Status == persistence.StatusFinished {
					tc.s.Deadline = time.Time{}
				}
				d, err := r.Board(loc, settings.LabelsCoordinates, tc.s, nil)
				if err != nil {
					t.Fatal(err)
				}
				goldenFile(t, "puzzle-"+tc.name+"."+string(loc)+".json", wireJSON(t, checked(t, d)))
			})
		}
		t.Run(string(loc)+"/leaderboard", func(t *testing.T) {
			d := r.PuzzleLeaderboard(loc, []persistence.PuzzleStanding{{User: alice, Solved: 12, Streak: 4}, {User: bob, Solved: 3}})
			goldenFile(t, "puzzle-leaderboard."+string(loc)+".json", wireJSON(t, checked(t, d)))
			goldenFile(t, "puzzle-leaderboard-empty."+string(loc)+".json", wireJSON(t, checked(t, r.PuzzleLeaderboard(loc, nil))))
		})
	}
}

// TestRenderFinishedBoardLinks: a finished board offers Replay and Review
// as buttons where a row is free, and as commands in its text on 5x5
// boards, whose rows are all cells; puzzles and abandoned games offer
// neither.
func TestRenderFinishedBoardLinks(t *testing.T) {
	r := testRenderer(t)
	for _, tc := range boardCases() {
		s := tc.session(t)
		d, err := r.Board(i18n.DefaultLocale, settings.LabelsCoordinates, s, tc.ratings)
		if err != nil {
			t.Fatal(err)
		}
		var actions []customid.Action
		for _, row := range d.Components {
			rw, _ := asRow(row)
			for _, c := range rw.Components {
				b, _ := asButton(c)
				id, err := testSigner(t).Decode(b.CustomID)
				if err != nil {
					t.Fatal(err)
				}
				if id.Action != customid.ActionMove {
					actions = append(actions, id.Action)
				}
			}
		}
		keep := archived(s)
		hasButtons := strings.Contains(" "+actionsString(actions)+" ", " replay review ")
		hasLinks := strings.Contains(d.Content, "/ttt review game:"+string(s.ID))
		switch {
		case keep && len(d.Components) < command.MaxActionRows+1 && !hasButtons && !hasLinks:
			t.Errorf("%s: a finished game without Replay and Review (buttons %v)", tc.name, actions)
		case !keep && (hasButtons || hasLinks):
			t.Errorf("%s: Replay or Review on a game that is not archived", tc.name)
		case hasButtons && hasLinks:
			t.Errorf("%s: both buttons and links", tc.name)
		}
	}
}

func actionsString(a []customid.Action) string {
	s := make([]string, len(a))
	for i, x := range a {
		s[i] = x.String()
	}
	return strings.Join(s, " ")
}
