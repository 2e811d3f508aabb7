package persistence_test

import (
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

func TestDeadlines(t *testing.T) {
	type step struct {
		advance time.Duration
		play    bool // X or O plays the next free cell first
	}
	tests := []struct {
		name     string
		g        persistence.Session
		steps    []step
		changed  bool
		status   persistence.Status
		result   game.Result
		how      persistence.Ending
		notSoon  time.Duration // before this, a sweep finds nothing
		released bool
	}{
		{"X times out", testClocked(30 * time.Second), []step{{31 * time.Second, false}}, true,
			persistence.StatusFinished, game.OWins, persistence.ByTimeout, 29 * time.Second, true},
		{"O times out after X moved", testClocked(30 * time.Second), []step{{20 * time.Second, true}, {31 * time.Second, false}}, true,
			persistence.StatusFinished, game.XWins, persistence.ByTimeout, 0, true},
		{"a move beats the stale deadline", testClocked(30 * time.Second), []step{{20 * time.Second, true}, {15 * time.Second, false}}, false,
			persistence.StatusActive, game.Ongoing, persistence.NotEnded, 0, false},
		{"challenge expires", persistence.Session{Rules: "3x3k3", Status: persistence.StatusOpen, Challenger: game.X,
			Players: [2]persistence.Seat{{User: "ux"}, {}}}, []step{{5*time.Minute + time.Second, false}}, true,
			persistence.StatusExpired, game.Ongoing, persistence.ByExpiry, 4 * time.Minute, true},
		{"idle game expires", sessHumanGame("ux", "uo"), []step{{24*time.Hour + time.Second, false}}, true,
			persistence.StatusExpired, game.Ongoing, persistence.ByExpiry, 23 * time.Hour, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newSessEnv(t, persistence.Options{})
			ctx := sessCtx(t)
			g, err := e.store.CreateGame(ctx, "c1", tt.g)
			if err != nil {
				t.Fatal(err)
			}
			if tt.notSoon > 0 {
				e.clk.Advance(tt.notSoon)
				if got, err := e.store.Sweep(ctx, 10); err != nil || len(got) != 0 {
					t.Fatalf("early sweep: %v, %v", got, err)
				}
				e.clk.Advance(-tt.notSoon)
			}
			for _, st := range tt.steps {
				e.clk.Advance(st.advance)
				if st.play {
					p, _ := g.Position()
					by := g.Seat(p.ToMove()).User
					if g, err = e.store.Play(ctx, g.ID, g.Version, by, p.Empty().First()); err != nil {
						t.Fatal(err)
					}
				}
			}
			got, err := e.store.Sweep(ctx, 10)
			if err != nil {
				t.Fatal(err)
			}
			if (len(got) == 1) != tt.changed {
				t.Fatalf("sweep changed %d games, want changed=%v", len(got), tt.changed)
			}
			back, err := e.store.Game(ctx, g.ID)
			if err != nil {
				t.Fatal(err)
			}
			if back.Status != tt.status || back.Result != tt.result || back.End != tt.how {
				t.Fatalf("after the sweep: %v %v %v, want %v %v %v", back.Status, back.Result, back.End, tt.status, tt.result, tt.how)
			}
			_, err = e.store.ActiveGame(ctx, "c1", "ux")
			if released := errors.Is(err, persistence.ErrNotFound); released != tt.released {
				t.Errorf("player released = %v (%v), want %v", released, err, tt.released)
			}
			// A stale deadline was put back at the game's real one.
			if !tt.changed {
				due, _ := e.store.ListDue(ctx, back.Deadline, 10)
				if len(due) != 1 || !due[0].At.Equal(back.Deadline) {
					t.Errorf("index after a stale claim: %v, want the game at %v", due, back.Deadline)
				}
			}
			if again, err := e.store.Sweep(ctx, 10); err != nil || len(again) != 0 {
				t.Errorf("second sweep: %v, %v", again, err)
			}
		})
	}
}

func testClocked(d time.Duration) persistence.Session {
	g := sessHumanGame("ux", "uo")
	g.TurnTime = d
	return g
}

// TestTimeoutOnceAcrossSweepers runs many sweepers, on two Stores, over
// 200 games that all ran out of time: each game is lost on time exactly
// once.
func TestTimeoutOnceAcrossSweepers(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	other := persistence.New(redistest.Client(t, e.srv), persistence.Options{Now: e.clk.Now})
	ctx := sessCtx(t)
	const games = 200
	for i := range games {
		g := testClocked(10 * time.Second)
		g.Players = [2]persistence.Seat{{User: "x" + strconv.Itoa(i)}, {User: "o" + strconv.Itoa(i)}}
		if _, err := e.store.CreateGame(ctx, "c"+strconv.Itoa(i%7), g); err != nil {
			t.Fatal(err)
		}
	}
	e.clk.Advance(11 * time.Second)
	var applied atomic.Int64
	var wg sync.WaitGroup
	seen := sync.Map{}
	for w := range 8 {
		s := e.store
		if w%2 == 1 {
			s = other
		}
		wg.Go(func() {
			for {
				got, err := s.Sweep(ctx, 7)
				if err != nil {
					t.Error(err)
					return
				}
				for _, g := range got {
					if _, dup := seen.LoadOrStore(g.ID, true); dup {
						t.Errorf("game %s timed out twice", g.ID)
					}
					applied.Add(1)
				}
				if due, _ := s.ListDue(ctx, e.clk.Now(), 1); len(due) == 0 && len(got) == 0 {
					return
				}
			}
		})
	}
	wg.Wait()
	if n := applied.Load(); n != games {
		t.Fatalf("%d timeouts applied, want %d", n, games)
	}
}

// TestClaimLeaseComesBack: a sweeper that claims and dies does not lose the
// deadline; after the lease the next sweep applies it.
func TestClaimLeaseComesBack(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	g, err := e.store.CreateGame(ctx, "c1", testClocked(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	e.clk.Advance(11 * time.Second)
	due, err := e.store.ClaimDueDeadlines(ctx, e.clk.Now(), 10)
	if err != nil || len(due) != 1 || due[0].Game != g.ID {
		t.Fatalf("claim: %v, %v", due, err)
	}
	// The claimer dies. Within the lease, nobody else gets the entry.
	if again, err := e.store.ClaimDueDeadlines(ctx, e.clk.Now(), 10); err != nil || len(again) != 0 {
		t.Fatalf("claim within the lease: %v, %v", again, err)
	}
	e.clk.Advance(persistence.ClaimLeaseForTest + time.Second)
	got, err := e.store.Sweep(ctx, 10)
	if err != nil || len(got) != 1 || got[0].End != persistence.ByTimeout || got[0].Result != game.OWins {
		t.Fatalf("sweep after the lease: %v, %v", got, err)
	}
	// The dead sweeper's late ApplyDue changes nothing.
	if _, ok, err := e.store.ApplyDue(ctx, due[0]); ok || err != nil {
		t.Fatalf("late ApplyDue: applied=%v, %v", ok, err)
	}
}

// TestStaleIndexEntry: a process that died between a move's
// compare-and-set and its index update leaves the old, earlier deadline in
// the index. Sweeping it changes nothing and re-indexes the real deadline,
// which then applies.
func TestStaleIndexEntry(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	g, err := e.store.CreateGame(ctx, "c1", testClocked(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	old := g.Deadline
	e.clk.Advance(20 * time.Second)
	if g, err = e.store.Play(ctx, g.ID, g.Version, "ux", sessCell(1, 1)); err != nil {
		t.Fatal(err)
	}
	if err := e.rdb.ZAdd(ctx, persistence.DueKeyForTest(e.store), redis.Z{Score: float64(old.UnixMilli()), Member: string(g.ID)}).Err(); err != nil {
		t.Fatal(err)
	}
	e.clk.Advance(15 * time.Second) // past the old deadline, before the new
	if got, err := e.store.Sweep(ctx, 10); err != nil || len(got) != 0 {
		t.Fatalf("sweep of the stale entry: %v, %v", got, err)
	}
	due, err := e.store.ListDue(ctx, g.Deadline, 10)
	if err != nil || len(due) != 1 || !due[0].At.Equal(g.Deadline) {
		t.Fatalf("index after the stale entry: %v, %v; want %v", due, err, g.Deadline)
	}
	e.clk.Advance(16 * time.Second)
	got, err := e.store.Sweep(ctx, 10)
	if err != nil || len(got) != 1 || got[0].Result != game.XWins || got[0].End != persistence.ByTimeout {
		t.Fatalf("sweep at the real deadline: %v, %v", got, err)
	}
}

// TestLateMoveLosesOnTime: a move that arrives after the mover's time ran
// out, before any sweeper acted, is not played: the game is lost on time
// then and there, and the sweeper later finds nothing to do.
func TestLateMoveLosesOnTime(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	g, err := e.store.CreateGame(ctx, "c1", testClocked(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	e.clk.Advance(30 * time.Second)
	got, err := e.store.Play(ctx, g.ID, g.Version, "ux", sessCell(1, 1))
	if !errors.Is(err, persistence.ErrTimedOut) {
		t.Fatalf("late move: %v, want ErrTimedOut", err)
	}
	if got == nil || got.Status != persistence.StatusFinished || got.End != persistence.ByTimeout || got.Result != game.OWins || len(got.Moves) != 0 {
		t.Fatalf("late move returned %+v", got)
	}
	if back, err := e.store.Game(ctx, g.ID); err != nil || back.Version != got.Version || back.End != persistence.ByTimeout {
		t.Fatalf("stored: %+v, %v", back, err)
	}
	if swept, err := e.store.Sweep(ctx, 10); err != nil || len(swept) != 0 {
		t.Fatalf("sweep after: %v, %v", swept, err)
	}
}

// TestClickRacesTimeout races the sweeper (one Store) against the late
// player's own click (another Store) at the deadline, on 200 games: both
// paths end the game on time, and each game is ended exactly once
// (version 2), with no move played.
func TestClickRacesTimeout(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	other := persistence.New(redistest.Client(t, e.srv), persistence.Options{Now: e.clk.Now})
	ctx := sessCtx(t)
	const games = 200
	ids := make([]persistence.GameID, games)
	for i := range ids {
		g := testClocked(10 * time.Second)
		g.Players = [2]persistence.Seat{{User: "x" + strconv.Itoa(i)}, {User: "o" + strconv.Itoa(i)}}
		created, err := e.store.CreateGame(ctx, "c"+strconv.Itoa(i%9), g)
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = created.ID
	}
	e.clk.Advance(10 * time.Second)
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			got, err := other.Sweep(ctx, 5)
			if err != nil {
				t.Error(err)
				return
			}
			if len(got) == 0 {
				if due, _ := other.ListDue(ctx, e.clk.Now(), 1); len(due) == 0 {
					return
				}
			}
		}
	})
	for i := range ids {
		wg.Go(func() {
			_, err := e.store.Play(ctx, ids[i], 1, "x"+strconv.Itoa(i), sessCell(1, 1))
			if err != nil && !errors.Is(err, persistence.ErrTimedOut) && !errors.Is(err, persistence.ErrConflict) {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for i, id := range ids {
		g, err := e.store.Game(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if g.End != persistence.ByTimeout || g.Result != game.OWins || len(g.Moves) != 0 || g.Version != 2 {
			t.Fatalf("game %d: %v %v by %v, moves %v, version %d; want lost on time once, no move", i, g.Status, g.Result, g.End, g.Moves, g.Version)
		}
	}
}

// TestAIReplyOverdue: where the computer is to reply to a person, the
// deadline is AIGrace, not the turn clock; past it Sweep hands the game,
// unchanged and active, to the caller (once per AIGrace), and the
// computer's late move is played, never lost on time. An AI duel keeps
// the usual deadline.
func TestAIReplyOverdue(t *testing.T) {
	const grace = 2 * time.Minute
	e := newSessEnv(t, persistence.Options{AIGrace: grace})
	ctx := sessCtx(t)
	g, err := e.store.CreateGame(ctx, "c1", persistence.Session{Rules: "3x3k3", Status: persistence.StatusActive,
		TurnTime: 30 * time.Second, Players: [2]persistence.Seat{{User: "ux"}, {AI: persistence.AI{Level: "easy"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := e.clk.Now().Add(30 * time.Second); !g.Deadline.Equal(want) {
		t.Fatalf("the person's deadline is %v, want the turn clock %v", g.Deadline, want)
	}
	if g, err = e.store.Play(ctx, g.ID, g.Version, "ux", sessCell(1, 1)); err != nil {
		t.Fatal(err)
	}
	if want := e.clk.Now().Add(grace); !g.Deadline.Equal(want) {
		t.Fatalf("the computer's deadline is %v, want AIGrace later %v", g.Deadline, want)
	}
	e.clk.Advance(grace - time.Second)
	if got, err := e.store.Sweep(ctx, 10); err != nil || len(got) != 0 {
		t.Fatalf("sweep before the grace ended: %v, %v", got, err)
	}
	e.clk.Advance(2 * time.Second)
	got, err := e.store.Sweep(ctx, 10)
	if err != nil || len(got) != 1 || got[0].ID != g.ID || got[0].Status != persistence.StatusActive || got[0].Version != g.Version {
		t.Fatalf("sweep past the grace: %+v, %v; want the game, unchanged and active", got, err)
	}
	if again, err := e.store.Sweep(ctx, 10); err != nil || len(again) != 0 {
		t.Fatalf("a second sweep at once: %v, %v; want nothing until another grace", again, err)
	}
	e.clk.Advance(grace + time.Second)
	if again, err := e.store.Sweep(ctx, 10); err != nil || len(again) != 1 || again[0].Status != persistence.StatusActive {
		t.Fatalf("sweep after another grace: %v, %v; want the game handed over again", again, err)
	}
	// The computer moves late: the move stands, and the person's clock runs.
	next, err := e.store.Play(ctx, g.ID, g.Version, "", sessCell(0, 0))
	if err != nil || next.Status != persistence.StatusActive || len(next.Moves) != 2 {
		t.Fatalf("the computer's late move: %+v, %v; want it played", next, err)
	}
	if want := e.clk.Now().Add(30 * time.Second); !next.Deadline.Equal(want) {
		t.Fatalf("after the computer's move the deadline is %v, want the turn clock %v", next.Deadline, want)
	}
	// The index must hold the person's deadline (the hand-off left a
	// later entry, AIGrace on): their timeout applies on time.
	due, err := e.store.ListDue(ctx, next.Deadline, 10)
	if err != nil || len(due) != 1 || due[0].At.After(next.Deadline) {
		t.Fatalf("index after the late move: %v, %v; want an entry at %v at the latest", due, err, next.Deadline)
	}
	e.clk.Advance(31 * time.Second)
	got, err = e.store.Sweep(ctx, 10)
	if err != nil || len(got) != 1 || got[0].End != persistence.ByTimeout || got[0].Result != game.OWins {
		t.Fatalf("sweep past the person's deadline: %+v, %v; want them lost on time", got, err)
	}

	duel, err := e.store.CreateGame(ctx, "c2", persistence.Session{Rules: "3x3k3", Status: persistence.StatusActive,
		Players: [2]persistence.Seat{{AI: persistence.AI{Level: "easy"}}, {AI: persistence.AI{Level: "random"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := e.clk.Now().Add(24 * time.Hour); !duel.Deadline.Equal(want) {
		t.Fatalf("a duel's deadline is %v, want the idle limit %v", duel.Deadline, want)
	}
}
