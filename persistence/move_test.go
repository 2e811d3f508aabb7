package persistence_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

func TestCreateGame(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	ai := persistence.Seat{AI: persistence.AI{Level: "perfect", Seed: 3}}
	tests := []struct {
		name    string
		channel string
		g       persistence.Session
		want    error
		status  persistence.Status
	}{
		{"active between users", "c1", sessHumanGame("u1", "u2"), nil, persistence.StatusActive},
		{"ai game from a position", "c2", persistence.Session{Rules: "3x3k3", Start: "X--/-O-/---",
			Players: [2]persistence.Seat{{User: "u1"}, ai}}, nil, persistence.StatusActive},
		{"xox opening", "c3", persistence.Session{Rules: "4x3xox", Start: "---/-X-/---/---",
			Players: [2]persistence.Seat{ai, {User: "u1"}}}, nil, persistence.StatusActive},
		{"challenge to anyone", "c4", persistence.Session{Rules: "5x5k4", Status: persistence.StatusOpen,
			Challenger: game.O, Players: [2]persistence.Seat{{}, {User: "u1"}}}, nil, persistence.StatusOpen},
		{"bad channel", "c{1}", sessHumanGame("u1", "u2"), persistence.ErrInvalid, 0},
		{"bad rules", "c5", persistence.Session{Rules: "3x3k9", Players: [2]persistence.Seat{{User: "a"}, {User: "b"}}}, persistence.ErrInvalid, 0},
		{"decided start", "c5", persistence.Session{Rules: "3x3k3", Start: "XXX/OO-/---", Players: [2]persistence.Seat{{User: "a"}, ai}}, persistence.ErrInvalid, 0},
		{"empty seat in active game", "c5", persistence.Session{Rules: "3x3k3", Players: [2]persistence.Seat{{User: "a"}, {}}}, persistence.ErrInvalid, 0},
		{"same user twice", "c5", sessHumanGame("a", "a"), persistence.ErrInvalid, 0},
		{"challenge without challenger", "c5", persistence.Session{Rules: "3x3k3", Status: persistence.StatusOpen,
			Players: [2]persistence.Seat{{User: "a"}, {}}}, persistence.ErrInvalid, 0},
		{"user already playing", "c1", sessHumanGame("u1", "u3"), persistence.ErrBusy, 0},
	}
	var first persistence.GameID // u1's game in c1
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := e.store.CreateGame(ctx, tt.channel, tt.g)
			if !errors.Is(err, tt.want) || (err != nil) != (tt.want != nil) {
				t.Fatalf("CreateGame: %v, want %v", err, tt.want)
			}
			var busy *persistence.BusyError
			if errors.Is(err, persistence.ErrBusy) && (!errors.As(err, &busy) || busy.User != "u1" || busy.Game != first) {
				t.Fatalf("CreateGame: %v; want a BusyError naming u1 and game %s", err, first)
			}
			if err != nil {
				return
			}
			if first == "" {
				first = g.ID
			}
			if g.Version != 1 || g.Status != tt.status || g.Channel() != tt.channel || !g.Created.Equal(e.clk.Now()) {
				t.Errorf("created %+v", g)
			}
			back, err := e.store.Game(ctx, g.ID)
			if err != nil {
				t.Fatal(err)
			}
			if back.ID != g.ID || back.Version != 1 || back.Rules != tt.g.Rules || back.Start != tt.g.Start || back.Players != g.Players {
				t.Errorf("loaded %+v, created %+v", back, g)
			}
		})
	}
}

func TestPlayToAWin(t *testing.T) {
	e := newSessEnv(t, persistence.Options{FinishedTTL: time.Hour})
	ctx := sessCtx(t)
	g, err := e.store.CreateGame(ctx, "c1", sessHumanGame("ux", "uo"))
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		by   string
		c    game.Cell
		want error
	}{
		{"uo", sessCell(0, 0), persistence.ErrNotYourTurn},
		{"", sessCell(0, 0), persistence.ErrNotYourTurn},
		{"ux", sessCell(0, 3), persistence.ErrInvalid},
		{"ux", sessCell(0, 0), nil},
		{"uo", sessCell(0, 0), persistence.ErrInvalid},
		{"uo", sessCell(1, 0), nil},
		{"ux", sessCell(0, 1), nil},
		{"uo", sessCell(1, 1), nil},
		{"ux", sessCell(0, 2), nil}, // X wins on the top row
		{"uo", sessCell(2, 2), persistence.ErrNotLive},
	}
	for i, st := range steps {
		e.clk.Advance(time.Second)
		next, err := e.store.Play(ctx, g.ID, g.Version, st.by, st.c)
		if !errors.Is(err, st.want) || (err != nil) != (st.want != nil) {
			t.Fatalf("step %d: Play(%s, %s): %v, want %v", i, st.by, st.c, err, st.want)
		}
		if err == nil {
			if next.Version != g.Version+1 || !next.Updated.Equal(e.clk.Now()) {
				t.Fatalf("step %d: version %d after %d, updated %v", i, next.Version, g.Version, next.Updated)
			}
			g = next
		}
	}
	if g.Status != persistence.StatusFinished || g.Result != game.XWins || g.End != persistence.ByWin || !g.Deadline.IsZero() {
		t.Fatalf("after the win: %+v", g)
	}
	back, err := e.store.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	p, err := back.Position()
	if err != nil || p.String() != "XXX/OO-/---" || !p.Over() {
		t.Fatalf("position %v, %v", p, err)
	}
	ttl := e.rdb.PTTL(ctx, persistence.GameKeyForTest(e.store, g.ID)).Val()
	if ttl <= 59*time.Minute || ttl > time.Hour {
		t.Errorf("finished game TTL %v, want about FinishedTTL (1h)", ttl)
	}
	// Both players are free again, and the deadline index forgot the game.
	if _, err := e.store.ActiveGame(ctx, "c1", "ux"); !errors.Is(err, persistence.ErrNotFound) {
		t.Errorf("ActiveGame after the end: %v", err)
	}
	if n := e.rdb.ZCard(ctx, persistence.DueKeyForTest(e.store)).Val(); n != 0 {
		t.Errorf("deadline index holds %d entries", n)
	}
	if _, err := e.store.CreateGame(ctx, "c1", sessHumanGame("uo", "ux")); err != nil {
		t.Errorf("a new game after the end: %v", err)
	}
}

func TestStaleVersionConflicts(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	g, err := e.store.CreateGame(ctx, "c1", sessHumanGame("ux", "uo"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Play(ctx, g.ID, g.Version, "ux", sessCell(1, 1)); err != nil {
		t.Fatal(err)
	}
	// A second click on the board the first one changed.
	if _, err := e.store.Play(ctx, g.ID, g.Version, "ux", sessCell(0, 0)); !errors.Is(err, persistence.ErrConflict) {
		t.Fatalf("stale click: %v, want ErrConflict", err)
	}
	if _, err := e.store.Play(ctx, "c1.nosuchgame", 1, "ux", sessCell(0, 0)); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("unknown game: %v, want ErrNotFound", err)
	}
	if _, err := e.store.Game(ctx, "garbage"); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("malformed ID: %v, want ErrNotFound", err)
	}
}

func TestAIMoves(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	g, err := e.store.CreateGame(ctx, "c1", persistence.Session{Rules: "3x3k3",
		Players: [2]persistence.Seat{{User: "u"}, {AI: persistence.AI{Level: "easy"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if g, err = e.store.Play(ctx, g.ID, g.Version, "u", sessCell(1, 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Play(ctx, g.ID, g.Version, "u", sessCell(0, 0)); !errors.Is(err, persistence.ErrNotYourTurn) {
		t.Fatalf("user playing the AI's move: %v", err)
	}
	if g, err = e.store.Play(ctx, g.ID, g.Version, "", sessCell(0, 0)); err != nil {
		t.Fatal(err)
	}
	if m, _ := g.ToMove(); m != game.X || len(g.Moves) != 2 {
		t.Fatalf("after the AI: to move %v, moves %v", m, g.Moves)
	}
}

func TestChallengeLifecycle(t *testing.T) {
	tests := []struct {
		name     string
		invitee  string // "" challenges anyone
		acceptor string
		want     error
	}{
		{"anyone accepts", "", "u2", nil},
		{"invitee accepts", "u2", "u2", nil},
		{"someone else", "u2", "u3", persistence.ErrNotYourTurn},
		{"own challenge", "", "u1", persistence.ErrNotYourTurn},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newSessEnv(t, persistence.Options{})
			ctx := sessCtx(t)
			g, err := e.store.CreateGame(ctx, "c1", persistence.Session{Rules: "3x3k3", Status: persistence.StatusOpen,
				Challenger: game.X, Players: [2]persistence.Seat{{User: "u1"}, {User: tt.invitee}}, TurnTime: 30 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if !g.Deadline.Equal(e.clk.Now().Add(5 * time.Minute)) {
				t.Errorf("challenge deadline %v, want ChallengeTTL after creation", g.Deadline)
			}
			// The invitee is not held by a challenge they have not accepted.
			if tt.invitee != "" {
				if _, err := e.store.ActiveGame(ctx, "c1", tt.invitee); !errors.Is(err, persistence.ErrNotFound) {
					t.Errorf("invitee held before accepting: %v", err)
				}
			}
			if _, err := e.store.Play(ctx, g.ID, g.Version, "u1", sessCell(0, 0)); !errors.Is(err, persistence.ErrNotLive) {
				t.Errorf("move before acceptance: %v", err)
			}
			e.clk.Advance(time.Minute)
			a, err := e.store.Accept(ctx, g.ID, g.Version, tt.acceptor)
			if !errors.Is(err, tt.want) || (err != nil) != (tt.want != nil) {
				t.Fatalf("Accept: %v, want %v", err, tt.want)
			}
			if err != nil {
				return
			}
			if a.Status != persistence.StatusActive || a.Players[1].User != tt.acceptor || !a.Deadline.Equal(e.clk.Now().Add(30*time.Second)) {
				t.Fatalf("accepted: %+v", a)
			}
			for _, u := range []string{"u1", tt.acceptor} {
				if id, err := e.store.ActiveGame(ctx, "c1", u); err != nil || id != g.ID {
					t.Errorf("ActiveGame(%s) = %v, %v", u, id, err)
				}
			}
			if _, err := e.store.Accept(ctx, g.ID, a.Version, "u9"); !errors.Is(err, persistence.ErrNotLive) {
				t.Errorf("second acceptance: %v", err)
			}
		})
	}
}

func TestEndings(t *testing.T) {
	tests := []struct {
		name   string
		end    func(ctx context.Context, e *sessEnv, g *persistence.Session) (*persistence.Session, error)
		status persistence.Status
		result game.Result
		how    persistence.Ending
	}{
		{"X resigns", func(ctx context.Context, e *sessEnv, g *persistence.Session) (*persistence.Session, error) {
			return e.store.Resign(ctx, g.ID, g.Version, "ux")
		}, persistence.StatusFinished, game.OWins, persistence.ByResign},
		{"O resigns", func(ctx context.Context, e *sessEnv, g *persistence.Session) (*persistence.Session, error) {
			return e.store.Resign(ctx, g.ID, g.Version, "uo")
		}, persistence.StatusFinished, game.XWins, persistence.ByResign},
		{"moderator", func(ctx context.Context, e *sessEnv, g *persistence.Session) (*persistence.Session, error) {
			return e.store.EndByModerator(ctx, g.ID, 0)
		}, persistence.StatusFinished, game.Ongoing, persistence.ByModerator},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newSessEnv(t, persistence.Options{})
			ctx := sessCtx(t)
			g, err := e.store.CreateGame(ctx, "c1", sessHumanGame("ux", "uo"))
			if err != nil {
				t.Fatal(err)
			}
			end, err := tt.end(ctx, e, g)
			if err != nil {
				t.Fatal(err)
			}
			if end.Status != tt.status || end.Result != tt.result || end.End != tt.how {
				t.Fatalf("ended %v %v %v, want %v %v %v", end.Status, end.Result, end.End, tt.status, tt.result, tt.how)
			}
			if _, err := e.store.Resign(ctx, g.ID, 0, "ux"); !errors.Is(err, persistence.ErrNotLive) {
				t.Errorf("resigning an ended game: %v", err)
			}
			if _, err := e.store.ActiveGame(ctx, "c1", "uo"); !errors.Is(err, persistence.ErrNotFound) {
				t.Errorf("player still held: %v", err)
			}
		})
	}
}

func TestSetMessageKeepsClock(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	g0 := sessHumanGame("ux", "uo")
	g0.TurnTime = time.Minute
	g, err := e.store.CreateGame(ctx, "c1", g0)
	if err != nil {
		t.Fatal(err)
	}
	e.clk.Advance(10 * time.Second)
	m, err := e.store.SetMessage(ctx, g.ID, g.Version, "msg9")
	if err != nil {
		t.Fatal(err)
	}
	if m.Message != "msg9" || m.Version != 2 || !m.Deadline.Equal(g.Deadline) {
		t.Fatalf("after SetMessage: %+v (deadline was %v)", m, g.Deadline)
	}
}

func TestOneGamePerChannel(t *testing.T) {
	tests := []struct {
		name      string
		many      bool
		channel   string // of the second game
		x, o      string // its players
		challenge bool
		want      error
	}{
		{"same player, same channel", false, "c1", "u1", "u3", false, persistence.ErrBusy},
		{"opponent busy", false, "c1", "u3", "u2", false, persistence.ErrBusy},
		{"challenge while playing", false, "c1", "u1", "", true, persistence.ErrBusy},
		{"other channel", false, "c2", "u1", "u2", false, nil},
		{"other players", false, "c1", "u3", "u4", false, nil},
		{"AllowManyGames", true, "c1", "u1", "u2", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newSessEnv(t, persistence.Options{AllowManyGames: tt.many})
			ctx := sessCtx(t)
			if _, err := e.store.CreateGame(ctx, "c1", sessHumanGame("u1", "u2")); err != nil {
				t.Fatal(err)
			}
			g := sessHumanGame(tt.x, tt.o)
			if tt.challenge {
				g.Status, g.Challenger = persistence.StatusOpen, game.X
			}
			_, err := e.store.CreateGame(ctx, tt.channel, g)
			if !errors.Is(err, tt.want) || (err != nil) != (tt.want != nil) {
				t.Fatalf("second game: %v, want %v", err, tt.want)
			}
		})
	}
}

func TestAcceptWhileBusy(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	if _, err := e.store.CreateGame(ctx, "c1", sessHumanGame("u2", "u3")); err != nil {
		t.Fatal(err)
	}
	ch, err := e.store.CreateGame(ctx, "c1", persistence.Session{Rules: "3x3k3", Status: persistence.StatusOpen,
		Challenger: game.X, Players: [2]persistence.Seat{{User: "u1"}, {}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Accept(ctx, ch.ID, ch.Version, "u2"); !errors.Is(err, persistence.ErrBusy) {
		t.Fatalf("busy player accepting: %v, want ErrBusy", err)
	}
	// The failed acceptance changed nothing.
	if g, err := e.store.Game(ctx, ch.ID); err != nil || g.Version != 1 || g.Status != persistence.StatusOpen {
		t.Fatalf("challenge after the refusal: %+v, %v", g, err)
	}
	d, err := e.store.Decline(ctx, ch.ID, ch.Version, "u1")
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != persistence.StatusFinished || d.End != persistence.ByDecline {
		t.Fatalf("withdrawn: %v %v", d.Status, d.End)
	}
	if _, err := e.store.ActiveGame(ctx, "c1", "u1"); !errors.Is(err, persistence.ErrNotFound) {
		t.Errorf("challenger still held: %v", err)
	}
}
