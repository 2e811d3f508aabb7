package bot_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai/gomoku"
	"github.com/tttbot/ttt-bot/bot"
	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/chart"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// TestE2EGomoku plays 15x15 five in a row on Discord over both transports:
// a game between two people to a win and one against the computer to its
// end, each moved both ways (the column menu then the row menu sent to the
// player alone, and /ttt move with its suggestions), with the bot
// restarted in the middle; every board message carries the picture, and
// the bad inputs are refused privately: a stranger's pick, a move out of
// turn, an occupied cell, a cell off the board, a row menu gone stale.
func TestE2EGomoku(t *testing.T) {
	t.Parallel()
	for _, tr := range transports {
		t.Run(tr.name+"/people", func(t *testing.T) {
			t.Parallel()
			b := tr.start(t, bot.Options{RateBurst: -1, ChallengeCooldown: -1})
			e := b.e2e
			r, _ := e.command(alice, command.SubChallenge, opponentOpt(bob), fakediscord.Option{Name: "first", Value: "me"},
				fakediscord.Option{Name: "board", Value: "15x15k5"})
			board := r.Message.ID
			_, accept := e.button(r.Message, customid.ActionAccept)
			r, _ = e.click(bob, board, accept.CustomID)
			if r.Type != int(discordgo.InteractionResponseUpdateMessage) || r.Message.ID != board {
				t.Fatalf("accepting answered type %d on %s, want the board on %s", r.Type, r.Message.ID, board)
			}
			e.wantBigBoard(board, 0)

			// Bob picks a column on Alice's turn; Carol, who does not play.
			_, menu := e.columnMenu(e.bigBoardAt(board, 0))
			e.wantText(e.pick(bob, board, menu.CustomID, "h"), render.KeyNotYourTurn)
			e.wantText(e.pick(carol, board, menu.CustomID, "h"), render.KeyNotYourGame)

			// X: h8 i8 j8 k8 l8 (row 8); O: a1.. on row 1. Alice by menus,
			// Bob by /ttt move.
			xs := []string{"h8", "i8", "j8", "k8", "l8"}
			os := []string{"a1", "b1", "c1", "d1"}
			for i := range xs {
				e.menuMove(alice, board, 2*i, xs[i])
				if i == 2 {
					b.restart()
				}
				if i == len(os) {
					break
				}
				if i == 0 {
					e.wantText(e.typed(bob, "h8"), render.KeyCellTaken)
					e.wantText(e.typed(bob, "p3"), "error.bad_cell", "cell", "p3", "cols", "a–o", "rows", "1–15", "last", "o15")
					e.wantText(e.typed(alice, "a2"), render.KeyNotYourTurn)
					// Bob's suggestions start with the cells nearest the
					// last move (h8), and narrow to what he typed.
					if got := e.suggest(bob, ""); len(got) != 25 || !slices.Contains(got[:8], "g7") || slices.Contains(got, "h8") {
						t.Fatalf("suggestions after h8: %v, want 25 starting with h8's neighbours, not h8", got)
					}
					if got := e.suggest(bob, "a1"); !slices.Equal(got, []string{"a1", "a10", "a11", "a12", "a13", "a14", "a15"}) {
						t.Fatalf("suggestions for a1: %v", got)
					}
				}
				if i == 1 {
					// A row menu opened before the board changed is refused.
					_, menu := e.columnMenu(e.bigBoardAt(board, 3))
					rm := e.pick(bob, board, menu.CustomID, "e")
					e.typedMove(bob, board, 3, os[i])
					var rows fakediscord.Component
					for _, c := range rm.Message.Buttons() {
						rows = c
					}
					e.wantText(e.pick(bob, rm.Message.ID, rows.CustomID, "e5"), render.KeyBoardChanged)
					continue
				}
				e.typedMove(bob, board, 2*i+1, os[i])
			}
			end := e.waitGame(e.gameOfBoard(board), "won", func(s *persistence.Session) bool { return !s.Status.Live() })
			wantFinished(e, end, game.XWins, persistence.ByWin)
			m := e.finalBigBoard(board)
			if !strings.Contains(m.Content, e.cat.Text(i18n.DefaultLocale, "result.win", "mark", render.EmojiX, "player", "<@"+alice+">")) {
				t.Fatalf("final board %q does not name the winner", m.Content)
			}
			// Counted once in the stats and ratings (the rating lines on
			// the board), in the server and globally.
			for user, want := range map[string]persistence.Tally{alice: {Wins: 1}, bob: {Losses: 1}} {
				for _, guild := range []string{e2eGuild, ""} {
					if st, err := e.store.Stats(e.ctx, guild, user); err != nil || st.Games != 1 || st.Tally != want || st.Rated != 1 {
						t.Fatalf("stats of %s in %q: %+v %v, want one rated game %+v", user, guild, st, err, want)
					}
				}
			}
			if !strings.Contains(m.Content, "<@"+bob+">") || strings.Count(m.Content, "\n") < 3 {
				t.Fatalf("final board %q has no rating lines", m.Content)
			}
			// The game is archived: Replay steps through pictures; a
			// review is refused with why.
			_, replay := e.button(&m, customid.ActionReplay)
			r, _ = e.click(carol, board, replay.CustomID)
			e.wantPicture(*r.Message)
			_, next := e.button(r.Message, customid.ActionNext)
			r, _ = e.click(carol, r.Message.ID, next.CustomID)
			if r.Type != int(discordgo.InteractionResponseUpdateMessage) || !strings.Contains(r.Message.Content, "h8") {
				t.Fatalf("replay step: type %d %q", r.Type, r.Message.Content)
			}
			e.wantPicture(*r.Message)
			// The review proves the win by fours alice played and
			// estimates the rest.
			_, review := e.button(&m, customid.ActionReview)
			r, _ = e.click(bob, board, review.CustomID)
			if r.Type != int(discordgo.InteractionResponseDeferredChannelMessageWithSource) {
				t.Fatalf("Review answered type %d, want a deferral (5)", r.Type)
			}
			rev, err := e.srv.WaitMessage(e.ctx, e2eChannel, func(m fakediscord.Message) bool { return m.ID == r.Message.ID && len(m.Embeds) > 0 })
			if err != nil {
				t.Fatal(err)
			}
			em := rev.Embeds[0]
			won := e.cat.Text(i18n.DefaultLocale, "review.fours_won", "moves", "l8")
			if !strings.Contains(em.Description, "`9.` ❌ **l8** · ≈ 100%") || !strings.Contains(em.Description, won) || len(em.Fields) != 1 {
				t.Fatalf("review %q / %+v", em.Description, em.Fields)
			}
			e.noFailures()
		})
		t.Run(tr.name+"/computer", func(t *testing.T) {
			t.Parallel()
			b := tr.start(t, bot.Options{RateBurst: -1, Rand: rand.New(rand.NewPCG(5, 6))})
			e := b.e2e
			// perfect has no 15x15 player: refused with the levels that do.
			r, _ := e.command(alice, command.SubVsAI, fakediscord.Option{Name: "level", Value: "perfect"},
				fakediscord.Option{Name: "board", Value: "15x15k5e"})
			e.wantText(r, "error.level_wide", "level", e.cat.Text(i18n.DefaultLocale, "level.perfect"),
				"rules", e.cat.Text(i18n.DefaultLocale, "rules.exact", "rows", "15", "cols", "15", "k", "5"),
				"levels", strings.Join([]string{e.cat.Text(i18n.DefaultLocale, "level.random"), e.cat.Text(i18n.DefaultLocale, "level.easy"),
					e.cat.Text(i18n.DefaultLocale, "level.minimax")}, ", "))
			r, _ = e.command(alice, command.SubVsAI, fakediscord.Option{Name: "level", Value: "minimax"},
				fakediscord.Option{Name: "board", Value: "15x15k5e"}, fakediscord.Option{Name: "first", Value: "me"},
				fakediscord.Option{Name: "time-ms", Value: 30})
			board := r.Message.ID
			e.wantBigBoard(board, 0)
			for ply := 0; ; ply += 2 {
				s := e.waitGame(e.gameOfBoard(board), "at alice's turn", func(s *persistence.Session) bool {
					return !s.Status.Live() || s.Ply() == ply
				})
				if !s.Status.Live() {
					break
				}
				e.wantBigBoard(board, ply)
				if ply == 6 {
					b.restart()
				}
				// Alice plays the first suggestion: the free cell nearest
				// the computer's last move.
				cell := e.suggest(alice, "")[0]
				if ply%4 == 0 {
					e.typedMove(alice, board, ply, cell)
				} else {
					e.menuMove(alice, board, ply, cell)
				}
			}
			end := e.waitGame(e.gameOfBoard(board), "over", func(s *persistence.Session) bool { return !s.Status.Live() })
			if end.Status != persistence.StatusFinished || end.Result != game.OWins && end.Result != game.XWins {
				t.Fatalf("game against minimax ended %s %s, want a win", end.Status, end.Result)
			}
			e.finalBigBoard(board)
			e.noFailures()
		})
	}
}

// gameOfBoard is the game a big board's message shows (read from its
// column menu or, once over, from the store's record of the channel).
func (e *e2e) gameOfBoard(board string) persistence.GameID {
	e.t.Helper()
	m, _ := e.srv.Message(board)
	for _, c := range m.Buttons() {
		if id, err := e.signer.Decode(c.CustomID); err == nil && id.Game != "" {
			return id.Game
		}
	}
	e.t.Fatalf("board %s has no component naming its game: %q", board, m.Content)
	return ""
}

// columnMenu returns the column menu of a big board and its ID.
func (e *e2e) columnMenu(m fakediscord.Message) (customid.ID, fakediscord.Component) {
	e.t.Helper()
	for _, c := range m.Buttons() {
		if id, err := e.signer.Decode(c.CustomID); err == nil && id.Action == customid.ActionColumn {
			return id, c
		}
	}
	e.t.Fatalf("no column menu on %q", m.Content)
	return customid.ID{}, fakediscord.Component{}
}

// bigBoardAt waits until the board message shows the game at ply (its
// column menu's move number) and returns it.
func (e *e2e) bigBoardAt(board string, ply int) fakediscord.Message {
	e.t.Helper()
	m, err := e.srv.WaitMessage(e.ctx, e2eChannel, func(m fakediscord.Message) bool {
		if m.ID != board {
			return false
		}
		for _, c := range m.Buttons() {
			if id, err := e.signer.Decode(c.CustomID); err == nil && id.Action == customid.ActionColumn {
				return id.Move == ply && !c.Disabled
			}
		}
		return false
	})
	if err != nil {
		cur, _ := e.srv.Message(board)
		e.t.Fatalf("board %s never showed move %d to play: %v; it shows %q", board, ply, err, cur.Content)
	}
	return m
}

// wantBigBoard checks the board message at ply: the picture of a 15x15
// board attached, the column menu with every column that has a free cell,
// the Resign button, and the way to move said.
func (e *e2e) wantBigBoard(board string, ply int) {
	e.t.Helper()
	m := e.bigBoardAt(board, ply)
	e.wantPicture(m)
	_, menu := e.columnMenu(m)
	if len(menu.Options) != 15 || menu.Options[0].Value != "a" || menu.Options[14].Value != "o" {
		e.t.Fatalf("column menu %+v, want columns a to o", menu.Options)
	}
	if !strings.Contains(m.Content, e.cat.Text(i18n.DefaultLocale, "board.how_to_move")) {
		e.t.Fatalf("board %q does not say how to move", m.Content)
	}
	e.button(&m, customid.ActionResign)
}

// wantPicture checks that m carries one picture: the board's PNG, the
// size chart.BoardSize gives 15x15.
func (e *e2e) wantPicture(m fakediscord.Message) {
	e.t.Helper()
	if len(m.Attachments) != 1 {
		e.t.Fatalf("board %s has %d attachments, want the picture alone", m.ID, len(m.Attachments))
	}
	a, ok := m.Attachment(render.BoardPictureName)
	if !ok {
		e.t.Fatalf("board %s has no %s", m.ID, render.BoardPictureName)
	}
	img, err := png.Decode(bytes.NewReader(a.Data))
	w, h := chart.BoardSize(15, 15)
	if err != nil || img.Bounds().Dx() != w || img.Bounds().Dy() != h {
		e.t.Fatalf("board picture: %v, %v; want a %dx%d PNG", img, err, w, h)
	}
}

// finalBigBoard waits for the board of a finished game: the result, the
// picture, no menu.
func (e *e2e) finalBigBoard(board string) fakediscord.Message {
	e.t.Helper()
	m, err := e.srv.WaitMessage(e.ctx, e2eChannel, func(m fakediscord.Message) bool {
		if m.ID != board {
			return false
		}
		for _, c := range m.Buttons() {
			if c.Type == 3 {
				return false
			}
		}
		return true
	})
	if err != nil {
		e.t.Fatalf("board %s never showed the end: %v", board, err)
	}
	e.wantPicture(m)
	return m
}

// pick picks value in the select menu customID of message msg.
func (e *e2e) pick(user, msg, customID, value string) fakediscord.Response {
	e.t.Helper()
	d, err := e.srv.Click(e.ctx, fakediscord.ClickSpec{Actor: actor(user), MessageID: msg, CustomID: customID, Values: []string{value}})
	if err != nil {
		e.t.Fatalf("pick %s: %v", value, err)
	}
	return e.wait(d)
}

// menuMove plays cell by the menus: its column in the board's menu, then
// its row in the menu sent to the player alone, on the board at ply.
func (e *e2e) menuMove(user, board string, ply int, cell string) {
	e.t.Helper()
	_, menu := e.columnMenu(e.bigBoardAt(board, ply))
	r := e.pick(user, board, menu.CustomID, cell[:1])
	if r.Type != int(discordgo.InteractionResponseChannelMessageWithSource) || !r.Message.Ephemeral {
		e.t.Fatalf("column %s answered type %d ephemeral %v %q, want the row menu for %s alone", cell[:1], r.Type, r.Message.Ephemeral, r.Message.Content, user)
	}
	var rows fakediscord.Component
	for _, c := range r.Message.Buttons() {
		if id, err := e.signer.Decode(c.CustomID); err == nil && id.Action == customid.ActionPlace && id.Move == ply {
			rows = c
		}
	}
	if !slices.ContainsFunc(rows.Options, func(o fakediscord.SelectOption) bool { return o.Value == cell }) {
		e.t.Fatalf("row menu of column %s offers %+v, not %s", cell[:1], rows.Options, cell)
	}
	r = e.pick(user, r.Message.ID, rows.CustomID, cell)
	if r.Type != int(discordgo.InteractionResponseUpdateMessage) || r.Message.Content != e.cat.Text(i18n.DefaultLocale, "board.played", "cell", cell) {
		e.t.Fatalf("picking %s answered type %d %q, want the row menu replaced by the move", cell, r.Type, r.Message.Content)
	}
}

// typed runs /ttt move cell:… and returns the first response.
func (e *e2e) typed(user, cell string) fakediscord.Response {
	e.t.Helper()
	r, _ := e.command(user, command.SubMove, fakediscord.Option{Name: "cell", Value: cell})
	return r
}

// typedMove plays cell with /ttt move on the board at ply.
func (e *e2e) typedMove(user, board string, ply int, cell string) {
	e.t.Helper()
	if m, _ := e.srv.Message(board); len(m.Attachments) > 0 {
		e.bigBoardAt(board, ply)
	}
	r := e.typed(user, cell)
	if !r.Message.Ephemeral || r.Message.Content != e.cat.Text(i18n.DefaultLocale, "board.played", "cell", cell) {
		e.t.Fatalf("/ttt move cell:%s answered %q, want the move confirmed privately", cell, r.Message.Content)
	}
}

// suggest returns /ttt move's suggestions for what user has typed.
func (e *e2e) suggest(user, typed string) []string {
	e.t.Helper()
	d, err := e.srv.Autocomplete(e.ctx, fakediscord.CommandSpec{Actor: actor(user), Name: command.Name,
		Options: []fakediscord.Option{{Name: command.SubMove, Type: discordgo.ApplicationCommandOptionSubCommand,
			Options: []fakediscord.Option{{Name: "cell", Value: typed, Focused: true}}}}})
	if err != nil {
		e.t.Fatal(err)
	}
	r, err := d.Wait(e.ctx)
	if err != nil || r.Kind != fakediscord.KindCallback || r.Type != int(discordgo.InteractionApplicationCommandAutocompleteResult) {
		e.t.Fatalf("autocomplete answered %+v, %v", r, err)
	}
	var data struct {
		Choices []struct{ Name, Value string } `json:"choices"`
	}
	if err := json.Unmarshal(r.Data, &data); err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, c := range data.Choices {
		if c.Name != c.Value {
			e.t.Fatalf("choice %+v names another cell than its value", c)
		}
		out = append(out, c.Value)
	}
	return out
}

// TestE2EMoveCommandButtons: /ttt move plays on a board of buttons too,
// and the board's message shows the move and the computer's reply.
func TestE2EMoveCommandButtons(t *testing.T) {
	t.Parallel()
	e := newE2E(t, bot.Options{RateBurst: -1})
	r, _ := e.command(alice, command.SubVsAI, fakediscord.Option{Name: "level", Value: "random"}, fakediscord.Option{Name: "first", Value: "me"})
	board := r.Message.ID
	if got := e.suggest(alice, ""); len(got) != 9 || got[0] != "b2" {
		t.Fatalf("suggestions on the empty 3x3: %v, want the 9 cells from the centre", got)
	}
	e.typedMove(alice, board, 0, "b2")
	m, err := e.srv.WaitMessage(e.ctx, e2eChannel, func(m fakediscord.Message) bool {
		if m.ID != board {
			return false
		}
		marks := 0
		for _, b := range m.Buttons() {
			if b.Emoji != "" {
				marks++
			}
		}
		return marks == 2
	})
	if err != nil {
		t.Fatalf("the board never showed the move and the reply: %v", err)
	}
	if b := e.cells(&m)[game.NewCell(1, 1)]; b.Emoji != render.EmojiX || !b.Disabled {
		t.Fatalf("b2 on the board after /ttt move: %+v", b)
	}
	e.wantText(e.typed(alice, "b2"), render.KeyCellTaken)
	e.wantText(e.typed(alice, "d1"), "error.bad_cell", "cell", "d1", "cols", "a–c", "rows", "1–3", "last", "c3")
	e.noFailures()
}

// TestE2EGomokuTournament runs a 4-player gomoku Swiss of two rounds
// (three people and the minimax computer) whose games open with a swap:
// X's player places three stones by the menus, O's player takes a side
// by its button (the computer does both on its own), and the player then
// to move resigns. Every game must pass through the swap and end.
func TestE2EGomokuTournament(t *testing.T) {
	t.Parallel()
	e := newE2E(t, bot.Options{RateBurst: -1, ChallengeCooldown: -1})
	e.sweeper(50 * time.Millisecond)
	const mod = alice
	e.tournamentCmd(mod, moderatorPerms, command.TournamentCreate, fakediscord.Option{Name: "name", Value: "Gomoku Cup"},
		fakediscord.Option{Name: "format", Value: "swiss"}, fakediscord.Option{Name: "rounds", Value: 2},
		fakediscord.Option{Name: "board", Value: "15x15k5"})
	m := e.signup("Gomoku Cup")
	if !strings.Contains(m.Content, e.cat.Text(i18n.DefaultLocale, "choice.board.15x15k5")) &&
		!strings.Contains(m.Content, e.cat.Text(i18n.DefaultLocale, "rules.kinarow", "rows", "15", "cols", "15", "k", "5")) {
		t.Fatalf("the sign-up %q does not name the board", m.Content)
	}
	_, join := e.button(&m, customid.ActionTournament)
	for _, u := range []string{alice, bob, carol} {
		e.click(u, m.ID, join.CustomID)
	}
	e.wantUserText(e.tournamentCmd(mod, moderatorPerms, command.TournamentAddAI, fakediscord.Option{Name: "level", Value: "perfect"}),
		"error.level_wide", "level", e.cat.Text(i18n.DefaultLocale, "level.perfect"),
		"rules", e.cat.Text(i18n.DefaultLocale, "rules.kinarow", "rows", "15", "cols", "15", "k", "5"),
		"levels", strings.Join([]string{e.cat.Text(i18n.DefaultLocale, "level.random"), e.cat.Text(i18n.DefaultLocale, "level.easy"),
			e.cat.Text(i18n.DefaultLocale, "level.minimax")}, ", "))
	e.tournamentCmd(mod, moderatorPerms, command.TournamentAddAI, fakediscord.Option{Name: "level", Value: "minimax"})
	e.tournamentCmd(mod, moderatorPerms, command.TournamentStart)
	swaps := 0
	for round := 1; round <= 2; round++ {
		tn := e.roundPosted("Gomoku Cup", round)
		for _, p := range tn.Games {
			if p.Round == round && !p.Bye() {
				swaps += e.swapAndResign(p.Game)
			}
		}
	}
	e.tournamentOf("Gomoku Cup", "finished", func(t *persistence.Tournament) bool { return t.Status == persistence.TournamentFinished })
	if swaps != 4 {
		t.Fatalf("%d games went through the swap opening, want all 4", swaps)
	}
	e.noFailures()
}

// swapAndResign plays game id's swap opening (the people's parts: three
// stones by the menus, Take ⭕) and has the person then to move resign. It
// returns 1 if the game went through the swap to a chosen side.
func (e *e2e) swapAndResign(id persistence.GameID) int {
	e.t.Helper()
	opening := []string{"h8", "h7", "i7"}
	for {
		s := e.waitGame(id, "a person to act", func(s *persistence.Session) bool {
			if !s.Status.Live() {
				return true
			}
			m, err := s.ToMove()
			return err == nil && s.Message != "" && s.Seat(m).User != ""
		})
		if !s.Swap {
			e.t.Fatalf("tournament game %s on %s has no swap opening", id, s.Rules)
		}
		if !s.Status.Live() {
			return b2i(s.SwapChosen)
		}
		b, _ := s.Board()
		user := s.Seat(s.Acting(b)).User
		switch {
		case !s.SwapChosen && b.Ply() < 3:
			e.menuMove(user, s.Message, b.Ply(), opening[b.Ply()])
		case s.SwapPending(b):
			m, err := e.srv.WaitMessage(e.ctx, e2eChannel, func(m fakediscord.Message) bool {
				if m.ID != s.Message {
					return false
				}
				for _, c := range m.Buttons() {
					if id, err := e.signer.Decode(c.CustomID); err == nil && id.Action == customid.ActionTakeO && id.Move == 3 && !c.Disabled {
						return true
					}
				}
				return false
			})
			if err != nil {
				e.t.Fatalf("game %s: no Take buttons: %v", id, err)
			}
			want := e.cat.Text(i18n.DefaultLocale, "board.swap_choose", "player", "<@"+user+">", "xmark", render.EmojiX, "omark", render.EmojiO)
			if !strings.Contains(m.Content, want) {
				e.t.Fatalf("board %q does not ask %s to choose", m.Content, user)
			}
			_, take := e.button(&m, customid.ActionTakeO)
			if r, _ := e.click(user, m.ID, take.CustomID); r.Type != int(discordgo.InteractionResponseUpdateMessage) {
				e.t.Fatalf("Take ⭕ answered type %d %q", r.Type, r.Message.Content)
			}
		default:
			m := e.bigBoardAt(s.Message, b.Ply())
			_, resign := e.button(&m, customid.ActionResign)
			e.click(user, m.ID, resign.CustomID)
			return b2i(s.SwapChosen)
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestE2EGomokuPuzzle: /ttt puzzle on gomoku draws the day's win by fours
// (once, then the same for everyone), states its length, and is solved by
// playing fours to the end against minimax's blocks; a move that lets the
// win go fails the attempt at once.
func TestE2EGomokuPuzzle(t *testing.T) {
	t.Parallel()
	e := newE2E(t, bot.Options{RateBurst: -1})
	r, _ := e.command(alice, command.SubPuzzle, fakediscord.Option{Name: "board", Value: "15x15k5"})
	board := r.Message.ID
	var gid persistence.GameID
	m, err := e.srv.WaitMessage(e.ctx, e2eChannel, func(m fakediscord.Message) bool {
		if m.ID != board || len(m.Attachments) == 0 {
			return false
		}
		id, _ := e.columnMenu(m)
		gid = id.Game
		return true
	})
	if err != nil {
		t.Fatalf("no puzzle board: %v", err)
	}
	s, err := e.store.Game(e.ctx, gid)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.Board()
	fours := gomoku.FoursToWin(b.Wide())
	if fours < gomoku.MinPuzzleFours || !strings.Contains(m.Content, e.cat.Text(i18n.DefaultLocale, "puzzle.fours", "n", fmt.Sprint(fours))) {
		t.Fatalf("puzzle of %d fours: %q", fours, m.Content)
	}
	for moves := 0; ; moves++ {
		s = e.waitGame(gid, "alice to move", func(s *persistence.Session) bool {
			m, err := s.ToMove()
			return !s.Status.Live() || err == nil && s.Seat(m).User == alice
		})
		if !s.Status.Live() {
			break
		}
		if moves > fours+1 { // a double four takes one more move to win
			t.Fatalf("not solved in %d fours", fours)
		}
		b, _ := s.Board()
		line, ok := gomoku.WinByFours(b.Wide(), gomoku.MaxFoursDepth)
		if !ok {
			t.Fatalf("no win by fours left at ply %d", s.Ply())
		}
		e.typedMove(alice, board, s.Ply(), line[0].String())
	}
	if side := s.SideOf(alice); !render.PuzzleSolved(s, side) {
		t.Fatalf("puzzle ended %s %s for alice (%s)", s.Result, s.End, side)
	}
	m = e.finalBigBoard(board)
	if !strings.Contains(m.Content, "Puzzle of") || !strings.Contains(m.Content, "solved") {
		t.Fatalf("the solved puzzle's board: %q", m.Content)
	}
	// Bob gets the same position, and a stray move fails it.
	r, _ = e.command(bob, command.SubPuzzle, fakediscord.Option{Name: "board", Value: "15x15k5"})
	board = r.Message.ID
	id, _ := e.columnMenu(e.bigBoardAt(board, 0))
	s2, err := e.store.Game(e.ctx, id.Game)
	if err != nil || s2.Start != s.Start {
		t.Fatalf("bob's puzzle %v starts %q, want alice's %q", err, s2.Start, s.Start)
	}
	b2, _ := s2.Board()
	var stray string
	for _, c := range b2.Wide().Moves().Cells() {
		if keeps, known := gomoku.KeepsWinByFours(b2.Wide(), c); known && !keeps && !b2.Wide().Apply(c).Over() {
			stray = c.String()
			break
		}
	}
	e.typedMove(bob, board, 0, stray)
	end := e.waitGame(id.Game, "failed", func(s *persistence.Session) bool { return !s.Status.Live() })
	if end.End != persistence.ByResign || render.PuzzleSolved(end, end.SideOf(bob)) {
		t.Fatalf("bob's stray move %s: %s %s", stray, end.Result, end.End)
	}
	e.noFailures()
}

// TestE2EWideDuel: two computer levels play a 9x9 five-in-a-row duel to
// its end, its board a picture edited move by move.
func TestE2EWideDuel(t *testing.T) {
	t.Parallel()
	e := newE2E(t, bot.Options{RateBurst: -1, DuelStep: 5 * time.Millisecond})
	e.sweeper(20 * time.Millisecond)
	r, _ := e.command(alice, command.SubAIDuel, fakediscord.Option{Name: "x", Value: "easy"}, fakediscord.Option{Name: "o", Value: "random"},
		fakediscord.Option{Name: "board", Value: "9x9k5"})
	board := r.Message.ID
	m, err := e.srv.WaitMessage(e.ctx, e2eChannel, func(m fakediscord.Message) bool {
		if m.ID != board {
			return false
		}
		for _, c := range m.Buttons() {
			if id, err := e.signer.Decode(c.CustomID); err == nil && id.Action == customid.ActionRematch {
				return true // finished
			}
		}
		return false
	})
	if err != nil {
		cur, _ := e.srv.Message(board)
		t.Fatalf("the duel never finished: %v; its board: %q", err, cur.Content)
	}
	if len(m.Attachments) != 1 {
		t.Fatalf("the duel's final board has %d attachments", len(m.Attachments))
	}
	id, _ := e.button(&m, customid.ActionRematch)
	s, err := e.store.Game(e.ctx, id.Game)
	if err != nil || s.Status.Live() || s.Ply() < 9 || s.Rules != "9x9k5" {
		t.Fatalf("duel %+v, %v", s, err)
	}
	e.noFailures()
}
