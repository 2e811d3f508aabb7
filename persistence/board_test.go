package persistence_test

import (
	"errors"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/game/wide"
	"github.com/tttbot/ttt-bot/persistence"
)

// TestWideGame plays a 15x15 game (gomoku, past game's 8x8) through the
// store to a win of five: moves by row and column on either engine, turns
// and occupied cells refused, the game reloaded from Redis equal to the
// one played, and its clock lost on time like a small board's.
func TestWideGame(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	g, err := e.store.CreateGame(ctx, "500", persistence.Session{Rules: "15x15k5", Players: [2]persistence.Seat{{User: "x"}, {User: "o"}}, Guild: "g1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Position(); !errors.Is(err, persistence.ErrInvalid) {
		t.Errorf("Position of a wide game: err = %v, want ErrInvalid", err)
	}
	// X plays h8..l8 (row 7, columns 7-11); O plays row 0.
	for i := range 5 {
		if g, err = e.store.PlayAt(ctx, g, "x", 7, 7+i); err != nil {
			t.Fatalf("X's move %d: %v", i+1, err)
		}
		if i == 4 {
			break
		}
		if _, err := e.store.PlayAt(ctx, g, "x", 0, i); !errors.Is(err, persistence.ErrNotYourTurn) {
			t.Fatalf("X out of turn: err = %v, want ErrNotYourTurn", err)
		}
		if _, err := e.store.PlayAt(ctx, g, "o", 7, 7); !errors.Is(err, game.ErrCellTaken) || !errors.Is(err, persistence.ErrInvalid) {
			t.Fatalf("O on X's cell: err = %v, want ErrInvalid and game.ErrCellTaken", err)
		}
		if _, err := e.store.PlayAt(ctx, g, "o", 15, 0); !errors.Is(err, game.ErrBadCell) {
			t.Fatalf("O off the board: err = %v, want game.ErrBadCell", err)
		}
		if g, err = e.store.PlayAt(ctx, g, "o", 0, i); err != nil {
			t.Fatalf("O's move %d: %v", i+1, err)
		}
	}
	if g.Status != persistence.StatusFinished || g.Result != game.XWins || g.End != persistence.ByWin {
		t.Fatalf("after five in a row: status %v result %v end %v, want finished, X wins by a line", g.Status, g.Result, g.End)
	}
	if len(g.Moves) != 0 || len(g.WideMoves) != 9 || g.Ply() != 9 {
		t.Errorf("moves %v, wide moves %v, ply %d; want 9 wide moves", g.Moves, g.WideMoves, g.Ply())
	}
	loaded, err := e.store.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	b, err := loaded.Board()
	if err != nil {
		t.Fatal(err)
	}
	if !b.IsWide() || b.Rows() != 15 || b.At(7, 11) != game.X || b.At(0, 3) != game.O || b.Result() != game.XWins || len(b.WinCells()) != 5 {
		t.Errorf("reloaded board: wide %v, %dx%d, l8 %v, d1 %v, result %v, win %v", b.IsWide(), b.Rows(), b.Cols(), b.At(7, 11), b.At(0, 3), b.Result(), b.WinCells())
	}
	if loaded.Version != g.Version || len(loaded.WideMoves) != 9 {
		t.Errorf("reloaded version %d moves %v, want %d and 9 moves", loaded.Version, loaded.WideMoves, g.Version)
	}

	// A clock on a wide board: the side to move loses on time.
	c, err := e.store.CreateGame(ctx, "501", persistence.Session{Rules: "9x9k5e", Players: [2]persistence.Seat{{User: "x"}, {User: "o"}}, TurnTime: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if c, err = e.store.PlayAt(ctx, c, "x", 4, 4); err != nil {
		t.Fatal(err)
	}
	e.clk.Advance(2 * time.Minute)
	if _, err = e.store.PlayAt(ctx, c, "o", 3, 3); !errors.Is(err, persistence.ErrTimedOut) {
		t.Fatalf("O's move after the deadline: err = %v, want ErrTimedOut", err)
	}
	if c, err = e.store.Game(ctx, c.ID); err != nil || c.Result != game.XWins || c.End != persistence.ByTimeout {
		t.Fatalf("after the deadline: %+v, %v; want X wins on time", c, err)
	}
}

// TestSwapOpening: in a swap opening X's player places X, O and X, then
// O's player chooses a side (taking X swaps the seats) and O moves; moves
// out of that order, a choice by the wrong player or at the wrong time are
// refused, and a clock runs against whoever is to act.
func TestSwapOpening(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	if _, err := e.store.CreateGame(ctx, "600", persistence.Session{Rules: "7x7k5", Players: [2]persistence.Seat{{User: "x"}, {User: "o"}}, Swap: true}); !errors.Is(err, persistence.ErrInvalid) {
		t.Fatalf("a swap opening on a small board: %v, want ErrInvalid", err)
	}
	g, err := e.store.CreateGame(ctx, "601", persistence.Session{Rules: "15x15k5", Players: [2]persistence.Seat{{User: "alice"}, {User: "bob"}},
		Swap: true, TurnTime: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	for i, rc := range [][2]int{{7, 7}, {6, 7}, {6, 8}} {
		if _, err := e.store.PlayAt(ctx, g, "bob", 0, i); !errors.Is(err, persistence.ErrNotYourTurn) {
			t.Fatalf("bob during the opening: %v, want ErrNotYourTurn", err)
		}
		if _, err := e.store.ChooseSide(ctx, g.ID, 0, "bob", game.X); !errors.Is(err, persistence.ErrNotYourTurn) {
			t.Fatalf("bob choosing at stone %d: %v, want ErrNotYourTurn", i, err)
		}
		if g, err = e.store.PlayAt(ctx, g, "alice", rc[0], rc[1]); err != nil {
			t.Fatalf("alice's opening stone %d: %v", i+1, err)
		}
	}
	b, _ := g.Board()
	if b.At(6, 7) != game.O || !g.SwapPending(b) || g.Acting(b) != game.O {
		t.Fatalf("after the opening: h7 %v, pending %v, acting %v; want O's stone, a choice for O's player", b.At(6, 7), g.SwapPending(b), g.Acting(b))
	}
	for _, by := range []string{"alice", "bob"} {
		if _, err := e.store.PlayAt(ctx, g, by, 0, 0); !errors.Is(err, persistence.ErrNotYourTurn) {
			t.Fatalf("%s moving before the choice: %v, want ErrNotYourTurn", by, err)
		}
	}
	if _, err := e.store.ChooseSide(ctx, g.ID, 0, "alice", game.O); !errors.Is(err, persistence.ErrNotYourTurn) {
		t.Fatalf("alice choosing: %v, want ErrNotYourTurn", err)
	}
	if g, err = e.store.ChooseSide(ctx, g.ID, 0, "bob", game.X); err != nil {
		t.Fatal(err)
	}
	if g.Players[0].User != "bob" || g.Players[1].User != "alice" || !g.SwapChosen {
		t.Fatalf("bob took X: players %+v, chosen %v", g.Players, g.SwapChosen)
	}
	if _, err := e.store.ChooseSide(ctx, g.ID, 0, "alice", game.X); !errors.Is(err, persistence.ErrNotYourTurn) {
		t.Fatalf("a second choice: %v, want ErrNotYourTurn", err)
	}
	if g, err = e.store.PlayAt(ctx, g, "alice", 8, 8); err != nil {
		t.Fatalf("alice, now O, to move: %v", err)
	}
	if m, _ := g.ToMove(); m != game.X {
		t.Fatalf("after O's move %v is to act, want X (bob)", m)
	}
	// A clock runs against whoever acts: the chooser loses on time.
	c, err := e.store.CreateGame(ctx, "602", persistence.Session{Rules: "15x15k5e", Players: [2]persistence.Seat{{User: "alice"}, {User: "bob"}},
		Swap: true, TurnTime: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	for _, rc := range [][2]int{{7, 7}, {6, 7}, {6, 8}} {
		if c, err = e.store.PlayAt(ctx, c, "alice", rc[0], rc[1]); err != nil {
			t.Fatal(err)
		}
	}
	e.clk.Advance(2 * time.Minute)
	if _, err := e.store.Sweep(ctx, 10); err != nil {
		t.Fatal(err)
	}
	if c, err = e.store.Game(ctx, c.ID); err != nil || c.Result != game.XWins || c.End != persistence.ByTimeout {
		t.Fatalf("the chooser out of time: %+v, %v; want X (alice) to win on time", c, err)
	}
}

// TestArchiveWideGame keeps a finished 15x15 game for replays and reviews
// and in its players' histories: read back equal, its record replays, and
// damaged or inconsistent ones are refused.
func TestArchiveWideGame(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	var moves []wide.Cell
	for i := range 5 { // X: h8..l8, O: a1..d1
		moves = append(moves, wide.NewCell(7, 7+i))
		if i < 4 {
			moves = append(moves, wide.NewCell(0, i))
		}
	}
	g := persistence.ArchivedGame{ID: "700.abc", Guild: "g1", Rules: "15x15k5", WideMoves: moves,
		Players: [2]persistence.Player{{User: "100"}, {AI: "minimax"}}, Result: game.XWins, Finished: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)}
	if err := e.store.ArchiveGame(ctx, g); err != nil {
		t.Fatal(err)
	}
	got, err := e.store.ArchivedGame(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !got.IsWide() || len(got.WideMoves) != 9 || len(got.Moves) != 0 || got.End != persistence.ByWin {
		t.Fatalf("read back %+v", got)
	}
	rec, err := got.WideRecord()
	if err != nil || rec.Position().Outcome().Result != game.XWins || rec.String() != "15x15k5 h8 a1 i8 b1 j8 c1 k8 d1 l8" {
		t.Fatalf("record %q, %v", rec.String(), err)
	}
	if _, err := got.Record(); !errors.Is(err, persistence.ErrInvalid) {
		t.Fatalf("game.Record of a wide game: %v, want ErrInvalid", err)
	}
	h, n, err := e.store.History(ctx, "100", "", "", 0, 10)
	if err != nil || n != 1 || h[0].Moves != 9 || h[0].Rules != "15x15k5" {
		t.Fatalf("history %+v %d %v", h, n, err)
	}
	for name, bad := range map[string]persistence.ArchivedGame{
		"wrong result":   {ID: "701.abc", Rules: "15x15k5", WideMoves: moves, Result: game.OWins},
		"not over":       {ID: "702.abc", Rules: "15x15k5", WideMoves: moves[:8], Result: game.XWins, End: persistence.ByWin},
		"start position": {ID: "703.abc", Rules: "15x15k5", Start: "X", WideMoves: moves, Result: game.XWins},
		"off the board":  {ID: "704.abc", Rules: "9x9k5", WideMoves: []wide.Cell{wide.NewCell(9, 0)}, Result: game.XWins, End: persistence.ByResign},
	} {
		if err := e.store.ArchiveGame(ctx, bad); !errors.Is(err, persistence.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
}

// TestGameTime: a game with a whole time (GameTime) ends without a result
// once it runs out, even while each move is in time; without one it goes
// on.
func TestGameTime(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	g, err := e.store.CreateGame(ctx, "800", persistence.Session{Rules: "15x15k5", Players: [2]persistence.Seat{{User: "x"}, {User: "o"}},
		TurnTime: 10 * time.Minute, GameTime: 30 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	free, err := e.store.CreateGame(ctx, "801", persistence.Session{Rules: "15x15k5", Players: [2]persistence.Seat{{User: "x"}, {User: "o"}},
		TurnTime: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 { // a move every 7 minutes: each in time
		e.clk.Advance(7 * time.Minute)
		for _, s := range []**persistence.Session{&g, &free} {
			by := "x"
			if i%2 == 1 {
				by = "o"
			}
			if (*s).Status.Live() {
				if next, err := e.store.PlayAt(ctx, *s, by, 7, i); err == nil {
					*s = next
				}
			}
		}
		if _, err := e.store.Sweep(ctx, 10); err != nil {
			t.Fatal(err)
		}
		if g, err = e.store.Game(ctx, g.ID); err != nil {
			t.Fatal(err)
		}
		if d := g.Deadline; g.Status.Live() && d.After(g.GameEnd()) {
			t.Fatalf("deadline %v past the game's end %v", d, g.GameEnd())
		}
	}
	if g.Status != persistence.StatusExpired || g.End != persistence.ByExpiry || g.Result != game.Ongoing {
		t.Fatalf("after 35 minutes of a 30-minute game: %v %v %v, want expired without a result", g.Status, g.End, g.Result)
	}
	if free, err = e.store.Game(ctx, free.ID); err != nil || !free.Status.Live() {
		t.Fatalf("the game without a whole time: %+v %v, want it live", free, err)
	}
}

// TestBoardParseCell reads cells with each engine's own parser: names and
// 0-based "row col", refusing what is off the board or unreadable.
func TestBoardParseCell(t *testing.T) {
	for _, tt := range []struct {
		rules, cell string
		row, col    int
		ok          bool
	}{
		{"3x3k3", "b2", 1, 1, true}, {"3x3k3", "C3", 2, 2, true}, {"3x3k3", "2 0", 2, 0, true},
		{"3x3k3", "d1", 0, 0, false}, {"3x3k3", "a0", 0, 0, false}, {"3x3k3", "", 0, 0, false},
		{"15x15k5", "o15", 14, 14, true}, {"15x15k5", "h8", 7, 7, true}, {"15x15k5", "7,7", 7, 7, true},
		{"15x15k5", "p3", 0, 0, false}, {"15x15k5", "a16", 0, 0, false}, {"15x15k5", "h", 0, 0, false},
	} {
		br, err := persistence.ParseBoardRules(tt.rules)
		if err != nil {
			t.Fatal(err)
		}
		row, col, err := persistence.NewBoard(br).ParseCell(tt.cell)
		if ok := err == nil; ok != tt.ok || ok && (row != tt.row || col != tt.col) {
			t.Errorf("%s %q: %d,%d %v; want %d,%d ok %v", tt.rules, tt.cell, row, col, err, tt.row, tt.col, tt.ok)
		}
		if err != nil && !errors.Is(err, game.ErrBadCell) {
			t.Errorf("%s %q: %v, want game.ErrBadCell", tt.rules, tt.cell, err)
		}
	}
}
