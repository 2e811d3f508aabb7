package bot_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot"
	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
	"github.com/tttbot/ttt-bot/bot/metrics"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/sched"
)

// TestE2EOverload fills the AI queue's one worker and checks, over both
// transports, what each kind of work gets: a new game against a slow
// level (a duel, a hint) is refused privately with the busy answer
// and counted; a game against easy on 3x3 is answered at once; a move in
// a running heavy game is never refused: the user sees their move at
// once, the AI thinking, and the board is edited with the AI's move once
// a worker is free, on a budget shrunk by the queue's pressure.
func TestE2EOverload(t *testing.T) {
	t.Parallel()
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			pool := sched.New(sched.Options{Workers: 1, MaxWait: time.Millisecond})
			reg := metrics.NewRegistry()
			b := tr.start(t, bot.Options{Pool: pool, Metrics: metrics.New(reg), RateBurst: -1, ChallengeCooldown: -1})

			// Before the queue fills, alice's 4x4 game against minimax starts.
			r := b.commandIn("71", alice, command.SubVsAI, fakediscord.Option{Name: "level", Value: "minimax"},
				fakediscord.Option{Name: "board", Value: "4x4k3"}, fakediscord.Option{Name: "first", Value: "me"})
			if r.Message.Ephemeral || len(b.cells(r.Message)) != 16 {
				t.Fatalf("alice's /ttt vs-ai answered %q, want a 4x4 board", r.Message.Content)
			}
			aliceBoard := b.tracked(r.Message)

			// Something takes the only worker.
			release, held := make(chan struct{}), make(chan struct{})
			blocked := make(chan error, 1)
			go func() {
				blocked <- pool.Do(context.Background(), sched.Job{User: "blocker"}, func(context.Context, sched.Start) error {
					close(held)
					<-release
					return nil
				})
			}()
			<-held
			defer func() {
				select {
				case <-release:
				default:
					close(release)
				}
			}()

			// New heavy work is refused privately, and counted.
			r = b.commandIn("72", bob, command.SubVsAI, fakediscord.Option{Name: "level", Value: "perfect"},
				fakediscord.Option{Name: "board", Value: "5x5k4"})
			b.wantText(r, bot.KeyOverloaded)
			r = b.commandIn("72", bob, command.SubAIDuel, fakediscord.Option{Name: "x", Value: "mcts"},
				fakediscord.Option{Name: "o", Value: "easy"}, fakediscord.Option{Name: "board", Value: "4x4k4"})
			b.wantText(r, bot.KeyOverloaded)

			r = b.commandIn("71", alice, command.SubHint)
			b.wantText(r, bot.KeyOverloaded)

			const carol = "300"
			// A 3x3 game against easy is answered at once, AI reply included.
			board := vsAIIn(b, "73", carol)
			cells := b.cells(board)
			r = b.clickIn("73", carol, board.ID, cells[0].CustomID)
			if s := b.game(r.Message); r.Type != int(discordgo.InteractionResponseUpdateMessage) || len(s.Moves) != 2 {
				t.Fatalf("carol's click against easy answered type %d with %d moves, want the board with the AI's reply",
					r.Type, len(s.Moves))
			}

			// Alice's move in her running game: answered first, never shed.
			var cell fakediscord.Component
			for _, c := range b.cells(r0(b, aliceBoard.Message)) {
				cell = c
			}
			d, err := b.srv.Click(b.ctx, fakediscord.ClickSpec{
				Actor:     fakediscord.Actor{Guild: e2eGuild, Channel: "71", User: fakediscord.User{ID: alice}},
				MessageID: aliceBoard.Message, CustomID: cell.CustomID})
			if err != nil {
				t.Fatal(err)
			}
			first := b.wait(d)
			if first.Type != int(discordgo.InteractionResponseUpdateMessage) {
				t.Fatalf("alice's move answered type %d, want the board (7)", first.Type)
			}
			if s := b.game(first.Message); len(s.Moves) != 1 {
				t.Fatalf("the first answer shows %d moves, want alice's alone", len(s.Moves))
			}
			for _, c := range b.cells(first.Message) {
				if !c.Disabled {
					t.Fatal("the board is clickable while the AI waits for a worker")
				}
			}
			if n := len(d.Responses()); n != 1 {
				t.Fatalf("%d responses before the worker is free, want the first answer alone", n)
			}
			close(release)
			if err := <-blocked; err != nil {
				t.Fatal(err)
			}
			ed, err := d.Wait(b.ctx)
			if err != nil || ed.Kind != fakediscord.KindEditOriginal {
				t.Fatalf("after the worker was freed: %+v %v, want the board edited", ed, err)
			}
			if s := b.game(ed.Message); len(s.Moves) != 2 {
				t.Fatalf("the edited board has %d moves, want alice's and the AI's", len(s.Moves))
			}
			if enabled := clickable(b.e2e, ed.Message); enabled != 14 {
				t.Fatalf("%d cells clickable after the AI's move, want 14", enabled)
			}

			var sb strings.Builder
			if _, err := reg.WriteTo(&sb); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{
				`ttt_ai_shed_total{kind="game"} 1`,
				`ttt_ai_shed_total{kind="duel"} 1`,
				`ttt_ai_shed_total{kind="hint"} 1`,
				`ttt_ai_queue_wait_seconds_count{class="interactive"} 1`,
				`ttt_ai_workers 1`,
			} {
				if !strings.Contains(sb.String(), want) {
					t.Errorf("metrics lack %q:\n%s", want, sb.String())
				}
			}
			if st := pool.Stats(); st.Running != 0 || st.Waiting() != 0 {
				t.Fatalf("pool after the test: %+v, want idle", st)
			}
		})
	}
}

// r0 returns the message id as the fake holds it now.
func r0(b *scenarioBed, id string) *fakediscord.Message {
	b.t.Helper()
	m, ok := b.srv.Message(id)
	if !ok {
		b.t.Fatalf("message %s is gone", id)
	}
	return &m
}

// TestE2EOverdueAIReply: a process stops just after recording a person's
// move, before the computer replied (its reply was queued): past the
// store's AIGrace a sweeper plays the reply and edits the board, and the
// game goes on; the person never loses on the computer's time.
func TestE2EOverdueAIReply(t *testing.T) {
	t.Parallel()
	e := newE2EStore(t, bot.Options{RateBurst: -1}, persistence.Options{AIGrace: 300 * time.Millisecond})
	r, _ := e.command(alice, command.SubVsAI, fakediscord.Option{Name: "level", Value: "perfect"},
		fakediscord.Option{Name: "first", Value: "me"})
	s := e.tracked(r.Message)
	if s.TurnTime <= 0 {
		t.Fatalf("the game has no turn clock (%v); the test needs one", s.TurnTime)
	}
	// The move is recorded, and the process stops before the reply.
	s, err := e.store.Play(e.ctx, s.ID, s.Version, alice, game.Cell(0))
	if err != nil {
		t.Fatal(err)
	}
	e.sweeper(50 * time.Millisecond)
	m := waitClickable(e, r.Message.ID, 7)
	g := e.game(&m)
	if g.Status != persistence.StatusActive || len(g.Moves) != 2 {
		t.Fatalf("after the sweeper: %s with %d moves, want the game going on after the reply", g.Status, len(g.Moves))
	}
	for !strings.Contains(e.logs.String(), "overdue AI reply played by the sweeper") { // logged just after the edit
		select {
		case <-e.ctx.Done():
			t.Fatal("the sweeper did not log the overdue reply")
		case <-time.After(5 * time.Millisecond):
		}
	}
	e.noFailures()
}

// TestE2EOverdueFirstMove: a new game where the computer moves first is
// answered with the board while the AI queue is full, and the handler
// gives up waiting; the board was recorded, so the sweeper's overdue
// reply edits it and the person can play.
func TestE2EOverdueFirstMove(t *testing.T) {
	t.Parallel()
	pool := sched.New(sched.Options{Workers: 1, MaxWait: time.Hour})
	e := newE2EStore(t, bot.Options{RateBurst: -1, Pool: pool, HandlerTimeout: 700 * time.Millisecond},
		persistence.Options{AIGrace: 1500 * time.Millisecond})
	release, held := make(chan struct{}), make(chan struct{})
	go func() {
		_ = pool.Do(context.Background(), sched.Job{User: "blocker"}, func(context.Context, sched.Start) error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	r, _ := e.command(alice, command.SubVsAI, fakediscord.Option{Name: "level", Value: "perfect"},
		fakediscord.Option{Name: "board", Value: "4x4k3"}, fakediscord.Option{Name: "first", Value: "ai"})
	if r.Message.Ephemeral || len(e.cells(r.Message)) != 16 {
		t.Fatalf("/ttt vs-ai answered %q, want the board with the computer thinking", r.Message.Content)
	}
	s := e.tracked(r.Message) // recorded at once, though the computer has not moved
	if len(s.Moves) != 0 {
		t.Fatalf("the game has %d moves before the worker is free", len(s.Moves))
	}
	// The handler gives up waiting for the worker (HandlerTimeout) and says
	// so; only then is the worker free, so the reply is the sweeper's.
	waitFor(t, func() bool { return strings.Contains(e.logs.String(), `msg="bot: interaction failed"`) })
	close(release)
	e.sweeper(50 * time.Millisecond)
	m := waitClickable(e, r.Message.ID, 15)
	if g := e.game(&m); g.Status != persistence.StatusActive || len(g.Moves) != 1 {
		t.Fatalf("after the sweeper: %s with %d moves, want the game going on", g.Status, len(g.Moves))
	}
}

// clickable counts the enabled cell buttons of board m.
func clickable(e *e2e, m *fakediscord.Message) int {
	e.t.Helper()
	n := 0
	for _, c := range e.cells(m) {
		if !c.Disabled {
			n++
		}
	}
	return n
}

// waitClickable waits until board message id, in the test channel, has n
// enabled cells: the computer has moved and it is the person's turn.
func waitClickable(e *e2e, id string, n int) fakediscord.Message {
	e.t.Helper()
	m, err := e.srv.WaitMessage(e.ctx, e2eChannel, func(m fakediscord.Message) bool {
		return m.ID == id && clickable(e, &m) == n
	})
	if err != nil {
		e.t.Fatalf("board %s never had %d cells to click: %v", id, n, err)
	}
	return m
}
