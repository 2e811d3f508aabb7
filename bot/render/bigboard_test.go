package render

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai/gomoku"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/chart"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/game/wide"
	"github.com/tttbot/ttt-bot/internal/golden"
	"github.com/tttbot/ttt-bot/persistence"
)

// bigSession is a game on rules played with moves (row, col), between
// two people or against the computer, live or finished as the moves
// leave it.
func bigSession(t testing.TB, rules string, moves [][2]int, vsAI bool) *persistence.Session {
	t.Helper()
	s := &persistence.Session{ID: testGame, Rules: rules, Players: [2]persistence.Seat{human(alice), human(bob)},
		Status: persistence.StatusActive, TurnTime: time.Minute, Deadline: fixedNow, Version: int64(len(moves) + 1)}
	if vsAI {
		s.Players[1] = persistence.Seat{AI: persistence.AI{Level: "minimax"}}
	}
	br, err := persistence.ParseBoardRules(rules)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range moves {
		if br.IsWide() {
			s.WideMoves = append(s.WideMoves, wide.NewCell(m[0], m[1]))
		} else {
			s.Moves = append(s.Moves, game.NewCell(m[0], m[1]))
		}
	}
	b, err := s.Board()
	if err != nil {
		t.Fatal(err)
	}
	if b.Over() {
		s.Status, s.Result, s.End, s.Deadline = persistence.StatusFinished, b.Result(), persistence.ByWin, time.Time{}
		if b.Result() == game.Draw {
			s.End = persistence.ByDraw
		}
	}
	return s
}

// randomMoves plays seeded random moves on rules until the game ends or n
// moves are played.
func randomMoves(t testing.TB, rules string, seed uint64, n int) [][2]int {
	t.Helper()
	br, err := persistence.ParseBoardRules(rules)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	var out [][2]int
	b := persistence.NewBoard(br)
	for len(out) < n && !b.Over() {
		row, col := rng.IntN(b.Rows()), rng.IntN(b.Cols())
		if b.At(row, col) != game.Empty {
			continue
		}
		out = append(out, [2]int{row, col})
		if b, err = bigSession(t, rules, out, false).Board(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestBigBoardFits: on every size from 6x6 to 15x15 (and oblong ones), in
// every locale, a big board's message, live or over, and the row menu of
// each of its columns pass Discord's message checks; the picture is one
// PNG of the board's size, within 600x600 and 200 KB; the column menu
// offers exactly the columns with a free cell.
func TestBigBoardFits(t *testing.T) {
	r := testRenderer(t)
	var rules []string
	for n := 6; n <= 15; n++ {
		k := min(n, 5)
		if n <= 8 {
			rules = append(rules, fmt.Sprintf("%dx%dk%d", n, n, k))
		} else {
			rules = append(rules, fmt.Sprintf("%dx%dk%d", n, n, k), fmt.Sprintf("%dx%dk%de", n, n, k))
		}
	}
	rules = append(rules, "6x9k4", "15x7k5", "7x15k6", "8x3k3")
	for i, rl := range rules {
		for _, n := range []int{0, 1, 17, 400} {
			moves := randomMoves(t, rl, uint64(i*7+n), n)
			for _, vsAI := range []bool{false, true} {
				s := bigSession(t, rl, moves, vsAI)
				b, _ := s.Board()
				locs := []discordgo.Locale{i18n.DefaultLocale}
				if n == 17 && (rl == "6x6k5" || rl == "15x15k5e" || rl == "7x15k6") {
					// The texts differ by locale, not by size or move: every
					// locale on the smallest, largest and longest-lined boards.
					locs = r.cat.Locales()
				}
				for _, loc := range locs {
					d, err := r.Board(loc, 0, s, nil)
					if err != nil {
						t.Fatalf("%s %d moves %s: %v", rl, len(moves), loc, err)
					}
					if err := CheckMessage(d); err != nil {
						t.Fatalf("%s %d moves %s: %v", rl, len(moves), loc, err)
					}
					if loc != i18n.DefaultLocale {
						continue
					}
					checkPicture(t, rl, b, d)
					checkColumnMenu(t, r, s, b, d)
					ts := *s // the same game in a tournament (no Rematch)
					ts.Tournament = "t1"
					if d, err := r.Board(loc, 0, &ts, nil); err != nil || CheckMessage(d) != nil {
						t.Fatalf("%s %d moves in a tournament: %v %v", rl, len(moves), err, CheckMessage(d))
					}
				}
			}
		}
	}
}

func checkPicture(t *testing.T, rl string, b persistence.Board, d *discordgo.InteractionResponseData) {
	t.Helper()
	if len(d.Files) != 1 || d.Files[0].Name != BoardPictureName || d.Files[0].ContentType != "image/png" {
		t.Fatalf("%s: files %+v, want the one picture", rl, d.Files)
	}
	raw, err := io.ReadAll(d.Files[0].Reader)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	w, h := chart.BoardSize(b.Rows(), b.Cols())
	if err != nil || img.Bounds().Dx() != w || img.Bounds().Dy() != h || w > 600 || h > 600 || len(raw) > 200<<10 {
		t.Fatalf("%s: picture %v, %d bytes, %v; want %dx%d within 600x600 and 200 KB", rl, img.Bounds(), len(raw), err, w, h)
	}
}

func checkColumnMenu(t *testing.T, r *Renderer, s *persistence.Session, b persistence.Board, d *discordgo.InteractionResponseData) {
	t.Helper()
	var menu *discordgo.SelectMenu
	for _, row := range d.Components {
		for _, c := range row.(discordgo.ActionsRow).Components {
			if sm, ok := c.(discordgo.SelectMenu); ok {
				menu = &sm
			}
		}
	}
	live := s.Status.Live()
	if (menu != nil) != live {
		t.Fatalf("%s at %d moves (%s): column menu %v", s.Rules, s.Ply(), s.Status, menu != nil)
	}
	if !live {
		return
	}
	if menu.Disabled != s.Seat(b.ToMove()).IsAI() {
		t.Fatalf("%s: column menu disabled %v with %v to move", s.Rules, menu.Disabled, s.Seat(b.ToMove()))
	}
	var want []string
	for col := range b.Cols() {
		for row := range b.Rows() {
			if b.At(row, col) == game.Empty {
				want = append(want, columnName(col))
				break
			}
		}
	}
	if len(menu.Options) != len(want) {
		t.Fatalf("%s: column menu %v, want columns %v", s.Rules, menu.Options, want)
	}
	for i, o := range menu.Options {
		if o.Value != want[i] {
			t.Fatalf("%s: column menu %v, want columns %v", s.Rules, menu.Options, want)
		}
		locs := []discordgo.Locale{i18n.DefaultLocale}
		if i == 0 {
			locs = r.cat.Locales()
		}
		for _, loc := range locs {
			rm, err := r.RowMenu(loc, s, b, col(o.Value))
			if err != nil {
				t.Fatal(err)
			}
			if err := CheckMessage(rm); err != nil {
				t.Fatalf("%s column %s %s: %v", s.Rules, o.Value, loc, err)
			}
		}
	}
}

// col is the column of a column menu's value.
func col(v string) int { return int(v[0] - 'a') }

// TestBigBoardGolden pins a 15x15 board's message and a row menu.
func TestBigBoardGolden(t *testing.T) {
	r := testRenderer(t)
	moves := [][2]int{{7, 7}, {6, 8}, {7, 8}, {8, 6}, {7, 6}}
	for _, loc := range []discordgo.Locale{i18n.DefaultLocale, discordgo.Greek, discordgo.PortugueseBR} {
		s := bigSession(t, "15x15k5", moves, true)
		// The computer (X) has moved; alice (O) is to move.
		s.Players[0], s.Players[1] = persistence.Seat{AI: persistence.AI{Level: "minimax"}}, human(alice)
		d, err := r.Board(loc, 0, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := s.Board()
		rm, err := r.RowMenu(loc, s, b, 7)
		if err != nil {
			t.Fatal(err)
		}
		d.Files = nil // the picture has its own goldens (chart)
		golden.Equal(t, "bigboard."+string(loc)+".json", golden.JSON(t, []any{d, rm}))
	}
}

// TestFreeCellsOrder: the suggestions start at the last move and go out
// by distance, never by value, and skip marked cells.
func TestFreeCellsOrder(t *testing.T) {
	s := bigSession(t, "15x15k5", [][2]int{{7, 7}, {0, 0}}, false)
	b, _ := s.Board()
	got := FreeCells(s, b, nil)
	if len(got) != 223 || got[0] != "b1" || got[1] != "a2" || got[2] != "b2" {
		t.Fatalf("free cells after h8 a1: %d, starting %v; want 223 starting next to a1", len(got), got[:3])
	}
	empty := bigSession(t, "9x9k5", nil, false)
	b, _ = empty.Board()
	if got := FreeCells(empty, b, nil); got[0] != "e5" {
		t.Fatalf("free cells of the empty 9x9 start at %s, want the centre e5", got[0])
	}
}

// BenchmarkBigBoard renders a 15x15 board's whole message (texts, menus
// and the picture) in the middle of a game: the bar is 20 ms.
func BenchmarkBigBoard(b *testing.B) {
	r := testRenderer(b)
	s := bigSession(b, "15x15k5", randomMoves(b, "15x15k5", 3, 60), false)
	for b.Loop() {
		if _, err := r.Board(i18n.DefaultLocale, 0, s, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSwapBoard: a swap opening's board says who places which stone and
// then who chooses; at the choice it has the Take buttons (disabled for
// the computer) instead of the column menu; in every locale it passes the
// message checks.
func TestSwapBoard(t *testing.T) {
	r := testRenderer(t)
	for _, n := range []int{0, 1, 2, 3, 4} {
		for _, vsAI := range []bool{false, true} {
			moves := [][2]int{{7, 7}, {6, 7}, {6, 8}, {8, 8}}[:n]
			s := bigSession(t, "15x15k5", moves, vsAI)
			s.Swap, s.SwapChosen = true, n > 3
			b, _ := s.Board()
			locs := []discordgo.Locale{i18n.DefaultLocale}
			if n == 1 || n == 3 {
				locs = r.cat.Locales() // the placing and the choosing texts
			}
			for _, loc := range locs {
				d, err := r.Board(loc, 0, s, nil)
				if err != nil {
					t.Fatal(err)
				}
				if err := CheckMessage(d); err != nil {
					t.Fatalf("%d stones, %s: %v", n, loc, err)
				}
				if loc != i18n.DefaultLocale {
					continue
				}
				var takes, menus int
				for _, row := range d.Components {
					for _, c := range row.(discordgo.ActionsRow).Components {
						switch c := c.(type) {
						case discordgo.SelectMenu:
							menus++
						case discordgo.Button:
							if strings.HasPrefix(c.Label, "Take") {
								takes++
								if c.Disabled != vsAI {
									t.Fatalf("%d stones: Take disabled %v against the computer %v", n, c.Disabled, vsAI)
								}
							}
						}
					}
				}
				pending := s.SwapPending(b)
				if pending != (n == 3) || pending && (takes != 2 || menus != 0) || !pending && (takes != 0 || menus != 1) {
					t.Fatalf("%d stones: pending %v, %d Take buttons, %d menus", n, pending, takes, menus)
				}
				switch {
				case n < 3 && !strings.Contains(d.Content, fmt.Sprintf("(stone %d of 3)", n+1)):
					t.Fatalf("%d stones: %q does not say which stone is next", n, d.Content)
				case n == 3 && !strings.Contains(d.Content, "take ❌"):
					t.Fatalf("the choice: %q", d.Content)
				}
			}
		}
	}
	{
		s := bigSession(t, "15x15k5", [][2]int{{7, 7}, {6, 7}, {6, 8}}, false)
		s.Swap = true
		d, err := r.Board(i18n.DefaultLocale, 0, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		d.Files = nil
		golden.Equal(t, "bigboard-swap.en-US.json", golden.JSON(t, d))
	}
}

// TestWideReplay: a replay of a 15x15 game steps through pictures: one
// picture of the board at the ply, the move named, the step buttons and the
// Review button; every locale passes the checks.
func TestWideReplay(t *testing.T) {
	r := testRenderer(t)
	var moves []wide.Cell
	for i := range 5 {
		moves = append(moves, wide.NewCell(7, 7+i))
		if i < 4 {
			moves = append(moves, wide.NewCell(0, i))
		}
	}
	g := &persistence.ArchivedGame{ID: testGame, Rules: "15x15k5", WideMoves: moves,
		Players: [2]persistence.Player{{User: alice}, {AI: "minimax"}}, Result: game.XWins, End: persistence.ByWin, Finished: fixedNow}
	for _, ply := range []int{0, 1, 4, 9, 99} {
		for _, loc := range r.cat.Locales() {
			d, err := r.Replay(loc, g, ply, alice, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := CheckMessage(d); err != nil {
				t.Fatalf("ply %d %s: %v", ply, loc, err)
			}
			if loc != i18n.DefaultLocale {
				continue
			}
			if len(d.Files) != 1 || d.Files[0].Name != BoardPictureName {
				t.Fatalf("ply %d: files %+v", ply, d.Files)
			}
			row := d.Components[0].(discordgo.ActionsRow)
			if len(row.Components) != 5 {
				t.Fatalf("ply %d: %d buttons, want the four steps and Review", ply, len(row.Components))
			}
			if ply == 4 && !strings.Contains(d.Content, "b1") {
				t.Fatalf("ply 4: %q does not name the move b1", d.Content)
			}
		}
	}
	s := sessionOf(g)
	d, err := r.Board(i18n.DefaultLocale, 0, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, row := range d.Components {
		for _, c := range row.(discordgo.ActionsRow).Components {
			if b, ok := c.(discordgo.Button); ok {
				labels = append(labels, b.Label)
			}
		}
	}
	if strings.Join(labels, ",") != "Rematch,Replay,Review" {
		t.Fatalf("a finished 15x15 board's buttons %v, want Rematch, Replay and Review", labels)
	}
}

// TestWideReviewRender: the review of a 15x15 game passes the message
// checks in every locale; its English form is pinned.
func TestWideReviewRender(t *testing.T) {
	r := testRenderer(t)
	rec, err := wide.ParseRecord("15x15k5 h8 a1 i8 a3 j8 a5 k8 a7 l8")
	if err != nil {
		t.Fatal(err)
	}
	g := &persistence.ArchivedGame{ID: testGame, Rules: "15x15k5", WideMoves: rec.Moves,
		Players: [2]persistence.Player{{User: alice}, {User: bob}}, Result: game.XWins, End: persistence.ByWin, Finished: fixedNow}
	rv, err := gomoku.ReviewGame(context.Background(), rec.Rules, rec.Moves, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The estimates depend on the search's timing; pin them for the golden.
	for i := range rv.Moves {
		if sc := rv.Moves[i].Score; sc > 0 && sc < 1 {
			rv.Moves[i].Score = 0.5
		}
	}
	for _, loc := range r.cat.Locales() {
		d, err := r.WideReview(loc, g, rv)
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckMessage(d); err != nil {
			t.Fatalf("%s: %v", loc, err)
		}
		if loc == i18n.DefaultLocale {
			golden.Equal(t, "bigboard-review.en-US.json", golden.JSON(t, d))
		}
	}
}
