package bot_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/bot"
	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
	"github.com/tttbot/ttt-bot/bot/httpmode"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/bot/settings"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

// The fault matrix of issue 21 ("Every board reaches the player"): each
// scenario runs over both transports on a fake Discord that fails the
// bot's writes, and must end with every game's true final board on
// screen, nobody losing on time a turn they were not shown, and no
// message twice.

// faultScenario is one scenario of the matrix.
type faultScenario struct {
	name string
	// opts are the bot's options (Rand and RetryPause are set for it).
	opts bot.Options
	// timeout bounds the scenario (its context).
	timeout time.Duration
	// faults are injected after the commands are registered (nil: the
	// seeded mix, mixedFaults).
	faults func(srv *fakediscord.Server, seed uint64)
	run    func(t *testing.T, e *e2e)
}

// faultShare is the share of the bot's writes the mixed faults fail.
const faultShare = 0.2

// mixedFaults fails a seeded faultShare of the bot's writes of messages
// (channel edits and posts, edits of an interaction's @original) with a
// mix of 5xx HTML pages, resets before and after the write is applied
// and slow answers, and a few of every REST call (interaction callbacks
// included) with a 429, per route or global, which discordgo waits out.
func mixedFaults(srv *fakediscord.Server, seed uint64) {
	mix := []fakediscord.FaultKind{fakediscord.FaultHTML, fakediscord.FaultResetBefore, fakediscord.FaultResetAfter, fakediscord.FaultSlow}
	for i, r := range []struct{ method, path string }{{"PATCH", "/channels/"}, {"POST", "/channels/"}, {"PATCH", "/webhooks/"}} {
		srv.Fail(fakediscord.Fault{Mix: mix, Method: r.method, Path: r.path, Share: faultShare, Seed: seed + uint64(i),
			Delay: 300 * time.Millisecond})
	}
	srv.Fail(fakediscord.Fault{Kind: fakediscord.FaultRateLimit, Share: 0.04, Seed: seed + 10, RetryAfter: 30 * time.Millisecond})
	srv.Fail(fakediscord.Fault{Kind: fakediscord.FaultRateLimit, Share: 0.02, Seed: seed + 11, RetryAfter: 30 * time.Millisecond, Global: true})
}

// faultsMet counts the faults the bot's requests met, over scenarios
// run in parallel.
type faultsMet struct {
	mu                               sync.Mutex
	scenarios, resets, html, limited int
}

// add counts the faults among calls and logs them for t.
func (f *faultsMet) add(t *testing.T, calls []fakediscord.Call) {
	var resets, html, limited int
	for _, c := range calls {
		switch {
		case c.Status == 0:
			resets++
		case c.Status == http.StatusTooManyRequests:
			limited++
		case c.Status >= http.StatusInternalServerError:
			html++
		}
	}
	t.Logf("%d REST requests: %d resets, %d 5xx HTML pages, %d 429s", len(calls), resets, html, limited)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.scenarios++
	f.resets, f.html, f.limited = f.resets+resets, f.html+html, f.limited+limited
}

// outageLength is how long the outage scenario's Discord is down.
const outageLength = 30 * time.Second

// TestE2EFaultMatrix runs the fault matrix: vs-AI games against heavy
// levels (the thinking board, then an edit) on 3x3 and 4x4 and against
// cheap ones, AI duels, a game between two people that one loses on
// time, and a 4-player tournament of people and a computer on two
// processes, each under a seeded 20% of mixed faults on the bot's writes
// and some 429s; and a 30-second full outage of Discord's REST API in
// the middle of a heavy vs-AI game, a duel and a game on the clock.
// Over both transports, all in parallel.
func TestE2EFaultMatrix(t *testing.T) {
	t.Parallel()
	var met faultsMet
	const scenarioCount = 7 // below
	t.Cleanup(func() {
		// After every scenario: each kind of fault was met somewhere.
		t.Logf("faults met by the bot's requests: %d resets, %d 5xx HTML pages, %d 429s", met.resets, met.html, met.limited)
		if !t.Failed() && met.scenarios == 2*scenarioCount && (met.resets == 0 || met.html == 0 || met.limited == 0) {
			t.Errorf("the matrix did not meet every kind of fault: %d resets, %d 5xx, %d 429s", met.resets, met.html, met.limited)
		}
	})
	scenarios := []faultScenario{
		{name: "vs-ai heavy 3x3", opts: bot.Options{MoveTimeout: 100 * time.Millisecond},
			run: func(t *testing.T, e *e2e) {
				for _, first := range []string{"ai", "me"} {
					e.faultVsAI(alice, fakediscord.Option{Name: "level", Value: "minimax"}, fakediscord.Option{Name: "first", Value: first},
						fakediscord.Option{Name: "time-ms", Value: 300})
				}
			}},
		{name: "vs-ai heavy 4x4", opts: bot.Options{MoveTimeout: 100 * time.Millisecond},
			run: func(t *testing.T, e *e2e) {
				e.faultVsAI(alice, fakediscord.Option{Name: "level", Value: "minimax"}, fakediscord.Option{Name: "first", Value: "ai"},
					fakediscord.Option{Name: "board", Value: "4x4k3"}, fakediscord.Option{Name: "time-ms", Value: 200})
				e.faultVsAI(alice, fakediscord.Option{Name: "level", Value: "mcts"}, fakediscord.Option{Name: "first", Value: "me"},
					fakediscord.Option{Name: "board", Value: "4x4k3"}, fakediscord.Option{Name: "time-ms", Value: 200})
			}},
		{name: "vs-ai cheap", run: func(t *testing.T, e *e2e) {
			for _, level := range []string{"random", "easy", "perfect"} {
				e.faultVsAI(alice, fakediscord.Option{Name: "level", Value: level}, fakediscord.Option{Name: "first", Value: "me"})
			}
		}},
		{name: "ai duels", opts: bot.Options{DuelStep: 20 * time.Millisecond}, run: func(t *testing.T, e *e2e) {
			e.command(alice, command.SubAIDuel, fakediscord.Option{Name: "x", Value: "perfect"}, fakediscord.Option{Name: "o", Value: "perfect"})
			e.command(bob, command.SubAIDuel, fakediscord.Option{Name: "x", Value: "easy"}, fakediscord.Option{Name: "o", Value: "random"},
				fakediscord.Option{Name: "board", Value: "4x4k3"})
			e.waitAllOver(2)
		}},
		{name: "loss on time", opts: bot.Options{TurnTime: 4 * time.Second}, run: func(t *testing.T, e *e2e) {
			msg := e.faultChallenge(alice, bob)
			// Alice moves; bob never does.
			e.faultClick(alice, msg)
			s := e.waitAllOver(1)[0]
			if s.End != persistence.ByTimeout || s.Result != game.XWins {
				t.Fatalf("the game ended %s %s, want bob (O) losing on time", s.End, s.Result)
			}
		}},
		{name: "tournament", opts: bot.Options{ChallengeCooldown: -1}, timeout: 50 * time.Second, run: func(t *testing.T, e *e2e) {
			e.faultReplica()
			e.faultTournament()
		}},
		{name: "outage", opts: bot.Options{MoveTimeout: 100 * time.Millisecond, TurnTime: 8 * time.Second, DuelStep: 300 * time.Millisecond},
			timeout: outageLength + 50*time.Second, faults: func(*fakediscord.Server, uint64) {},
			run: func(t *testing.T, e *e2e) { e.faultOutage() }},
	}
	if len(scenarios) != scenarioCount {
		t.Fatalf("%d scenarios, scenarioCount says %d", len(scenarios), scenarioCount)
	}
	for _, tr := range []string{"gateway", "http"} {
		t.Run(tr, func(t *testing.T) {
			t.Parallel()
			for i, sc := range scenarios {
				t.Run(sc.name, func(t *testing.T) {
					t.Parallel()
					seed := uint64(2100 + 10*i)
					opts := sc.opts
					opts.Rand = rand.New(rand.NewPCG(seed, 21))
					opts.RetryPause = 5 * time.Millisecond
					opts.RateBurst = -1
					timeout, faults := sc.timeout, sc.faults
					if timeout == 0 {
						timeout = 40 * time.Second
					}
					if faults == nil {
						faults = mixedFaults
					}
					e := startFaultBed(t, tr, opts, timeout)
					faults(e.srv, seed)
					sc.run(t, e)
					e.everyBoardTrue()
					if sc.faults == nil {
						// Faults the retries absorb are no errors (an
						// outage fails interactions: those are).
						for _, l := range strings.Split(e.logs.String(), "\n") {
							if strings.Contains(l, "level=ERROR") {
								t.Errorf("logged: %s", l)
							}
						}
					}
					met.add(t, e.srv.Calls())
				})
			}
		})
	}
}

// startFaultBed starts one bot on transport ("gateway" or "http") against
// a fake Discord that keeps the history of every message, with a
// context of timeout (the scenarios outlast newE2E's), and runs its
// sweeper.
func startFaultBed(t *testing.T, transport string, opts bot.Options, timeout time.Duration) *e2e {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	rsrv := redistest.Start(t)
	cat, signer := e2eCatalogSigner(t)
	srv := fakediscord.New(t, fakediscord.Options{History: true})
	logs := &syncBuffer{}
	e := &e2e{t: t, ctx: ctx, srv: srv, cat: cat, signer: signer, logs: logs, redis: rsrv}
	switch transport {
	case "gateway":
		e.openGateway(persistence.New(redistest.Client(t, rsrv), persistence.Options{PseudonymKey: e2ePseudonymKey}), opts, nil)
	default:
		p, store := e.startHTTPProc(0, opts, httpmode.EndpointOptions{})
		e.bot, e.store = p.bot, store
		srv.SetInteractionsURL(p.url)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("bot logs:\n%s", logs.String())
		}
	})
	if err := e.bot.Register(ctx, e2eGuild); err != nil {
		t.Fatalf("Register: %v", err)
	}
	// Every process runs a sweeper: it shows the boards owed.
	e.sweeper(50 * time.Millisecond)
	return e
}

// deadlineOf is when e's scenario must be done.
func (e *e2e) deadlineOf() time.Time {
	d, _ := e.ctx.Deadline()
	return d
}

// boardGame returns the game of board message id (nil while it has no
// move buttons, e.g. a deferred answer not yet filled).
func (e *e2e) boardGame(id string) *persistence.Session {
	e.t.Helper()
	m, ok := e.srv.Message(id)
	if !ok {
		return nil
	}
	for _, b := range m.Buttons() {
		if cid, err := e.signer.Decode(b.CustomID); err == nil && cid.Action == customid.ActionMove {
			s, err := e.store.Game(e.ctx, cid.Game)
			if err != nil {
				e.t.Fatal(err)
			}
			return s
		}
	}
	return nil
}

// liveCell returns a clickable cell of board message m that is current
// (rendered at the game's move count) and user's to play, if any.
func (e *e2e) liveCell(m *fakediscord.Message, s *persistence.Session, user string) (string, bool) {
	if !s.Status.Live() {
		return "", false
	}
	side, err := s.ToMove()
	if err != nil || s.Seat(side).User != user {
		return "", false
	}
	var free []string
	for _, b := range m.Buttons() {
		cid, err := e.signer.Decode(b.CustomID)
		if err != nil || cid.Action != customid.ActionMove || b.Disabled || cid.Move != len(s.Moves) {
			continue
		}
		free = append(free, b.CustomID)
	}
	if len(free) == 0 {
		return "", false
	}
	return free[0], true
}

// faultClick clicks, as user, a cell of board msg once it is theirs to
// play on screen. The click's answer may fail (a callback meeting a
// fault); the board then comes from a sweeper.
func (e *e2e) faultClick(user, msg string) {
	e.t.Helper()
	for {
		if time.Now().After(e.deadlineOf()) {
			m, _ := e.srv.Message(msg)
			e.t.Fatalf("board %s never became %s's to play: %q", msg, user, m.Content)
		}
		m, _ := e.srv.Message(msg)
		s := e.boardGame(msg)
		if s == nil {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		id, ok := e.liveCell(&m, s, user)
		if !ok {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		d, err := e.srv.Click(e.ctx, fakediscord.ClickSpec{Actor: actor(user), MessageID: msg, CustomID: id})
		if errors.Is(err, fakediscord.ErrUnknownComponent) {
			continue // the board changed under the click
		}
		if err != nil {
			e.t.Fatalf("click: %v", err)
		}
		if _, err := d.Wait(e.ctx); err != nil && !errors.Is(err, fakediscord.ErrInteractionFailed) {
			e.t.Fatalf("click on %s: %v", msg, err)
		}
		return
	}
}

// faultVsAI plays /ttt vs-ai with opts to its end as user, clicking the
// first free cell each time the board on screen is theirs to play, and
// returns the finished game.
func (e *e2e) faultVsAI(user string, opts ...fakediscord.Option) *persistence.Session {
	e.t.Helper()
	r, _ := e.command(user, command.SubVsAI, opts...)
	board := r.Message.ID
	for {
		if time.Now().After(e.deadlineOf()) {
			m, _ := e.srv.Message(board)
			e.t.Fatalf("the game of board %s did not end: %q", board, m.Content)
		}
		s := e.boardGame(board)
		if s != nil && !s.Status.Live() {
			return s
		}
		m, _ := e.srv.Message(board)
		if s == nil {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if _, ok := e.liveCell(&m, s, user); !ok {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		e.faultClick(user, board)
	}
}

// faultChallenge has x challenge o with x first and o accept, and
// returns the board's message ID.
func (e *e2e) faultChallenge(x, o string) string {
	e.t.Helper()
	r, _ := e.command(x, command.SubChallenge, opponentOpt(o), fakediscord.Option{Name: "first", Value: "me"})
	msg := r.Message.ID
	e.trackedChallenge(r.Message, customid.ActionAccept)
	_, accept := e.button(r.Message, customid.ActionAccept)
	d, err := e.srv.Click(e.ctx, fakediscord.ClickSpec{Actor: actor(o), MessageID: msg, CustomID: accept.CustomID})
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := d.Wait(e.ctx); err != nil && !errors.Is(err, fakediscord.ErrInteractionFailed) {
		e.t.Fatal(err)
	}
	return msg
}

// gamesShown returns the games whose boards are in the test channel,
// with how many board messages each has.
func (e *e2e) gamesShown() map[persistence.GameID]int {
	out := map[persistence.GameID]int{}
	for _, m := range e.srv.Messages(e2eChannel) {
		if m.Ephemeral {
			continue
		}
		for _, b := range m.Buttons() {
			if cid, err := e.signer.Decode(b.CustomID); err == nil && cid.Action == customid.ActionMove {
				out[cid.Game]++
				break
			}
		}
	}
	return out
}

// waitAllOver waits until the channel shows n games and all of them are
// over in the Store, and returns them.
func (e *e2e) waitAllOver(n int) []*persistence.Session {
	e.t.Helper()
	for {
		var out []*persistence.Session
		for id := range e.gamesShown() {
			s, err := e.store.Game(e.ctx, id)
			if err != nil {
				e.t.Fatal(err)
			}
			if !s.Status.Live() {
				out = append(out, s)
			}
		}
		if len(out) == n {
			return out
		}
		if time.Now().After(e.deadlineOf()) {
			e.t.Fatalf("%d of %d games over", len(out), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// boardDiff says how board message m differs from the board of game s as
// the bot renders it ("" if it shows it): every cell (mark, custom ID,
// whether it can be clicked) and the text (which may go on with the
// rating changes).
func (e *e2e) boardDiff(m fakediscord.Message, s *persistence.Session) string {
	want, err := render.NewRenderer(e.cat, e.signer).Board(i18n.DefaultLocale, settings.LabelsCoordinates, s, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	var cells []discordgo.Button
	for _, row := range want.Components {
		for _, c := range row.(discordgo.ActionsRow).Components {
			if b, ok := c.(discordgo.Button); ok {
				if cid, err := e.signer.Decode(b.CustomID); err == nil && cid.Action == customid.ActionMove {
					cells = append(cells, b)
				}
			}
		}
	}
	var shown []fakediscord.Component
	for _, b := range m.Buttons() {
		if cid, err := e.signer.Decode(b.CustomID); err == nil && cid.Action == customid.ActionMove {
			shown = append(shown, b)
		}
	}
	if len(shown) != len(cells) {
		return fmt.Sprintf("%d cells, want %d", len(shown), len(cells))
	}
	for i, b := range cells {
		emoji := ""
		if b.Emoji != nil {
			emoji = b.Emoji.Name
		}
		if got := shown[i]; got.CustomID != b.CustomID || got.Emoji != emoji || got.Disabled != b.Disabled {
			cid, _ := e.signer.Decode(got.CustomID)
			return fmt.Sprintf("cell %d shows %q (move %d, disabled %v), want %q (move %d, disabled %v)",
				i, got.Emoji, cid.Move, got.Disabled, emoji, len(s.Moves), b.Disabled)
		}
	}
	if !strings.HasPrefix(m.Content, want.Content) {
		return fmt.Sprintf("text %q, want it to start with %q", m.Content, want.Content)
	}
	return ""
}

// everyBoardTrue checks the end of a scenario: every game shown in the
// channel is over and its one board message shows its true final board
// (waiting for owed boards to be shown), nobody lost on time a turn they
// were not shown, no message appears twice, and no nonce posted two
// messages.
func (e *e2e) everyBoardTrue() {
	t := e.t
	t.Helper()
	games := e.gamesShown()
	if len(games) == 0 {
		t.Fatal("no game in the channel")
	}
	// What a game owes is cleared once a board of it is recorded shown;
	// a debt left by a board shown some other way (a click's answer) is
	// cleared by a sweeper showing it again within seconds.
	for id := range games {
		for {
			v, owed, err := e.store.OwedVersion(e.ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if !owed {
				break
			}
			if time.Now().After(e.deadlineOf().Add(-time.Second)) {
				s, _ := e.store.Game(e.ctx, id)
				t.Errorf("game %s (version %d, %s %s) still owes version %d to the screen", id, s.Version, s.Status, s.End, v)
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	for id, n := range games {
		if n != 1 {
			t.Errorf("game %s has %d board messages, want 1", id, n)
		}
		var s *persistence.Session
		var why string
		for {
			var err error
			if s, err = e.store.Game(e.ctx, id); err != nil {
				t.Fatal(err)
			}
			m, ok := e.srv.Message(s.Message)
			switch {
			case s.Status.Live():
				why = fmt.Sprintf("the game is %s", s.Status)
			case !ok:
				why = "its message " + s.Message + " is unknown"
			default:
				why = e.boardDiff(m, s)
			}
			if why == "" {
				break
			}
			if time.Now().After(e.deadlineOf().Add(-time.Second)) {
				t.Fatalf("game %s (%s after %d moves) is not shown as it ended: %s", id, s.End, len(s.Moves), why)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if s.End == persistence.ByTimeout {
			e.turnShown(s)
		}
	}
	seen := map[string]string{}
	nonces := map[string]int{}
	for _, m := range e.srv.Messages(e2eChannel) {
		if m.Ephemeral {
			continue
		}
		key := m.Content + "\x00" + strings.Join(buttonIDs(m), ",")
		for _, em := range m.Embeds {
			key += "\x00" + em.Title + "\x00" + em.Description
		}
		if other, ok := seen[key]; ok {
			t.Errorf("messages %s and %s are the same: %q", other, m.ID, m.Content)
		}
		seen[key] = m.ID
		if m.Nonce != "" {
			nonces[m.Nonce]++
		}
	}
	for n, c := range nonces {
		if c > 1 {
			t.Errorf("nonce %s posted %d messages", n, c)
		}
	}
}

// turnShown checks that the player who lost game s on time was shown
// their turn, with the time to play it: the board message showed the
// position they lost in, clickable, at least the turn time (less the
// late delivery a turn is not restarted for, 2 s) before the game ended.
func (e *e2e) turnShown(s *persistence.Session) {
	e.t.Helper()
	const late = 2 * time.Second
	n := len(s.Moves)
	for _, h := range e.srv.History(s.Message) {
		live := slices.ContainsFunc(h.Buttons(), func(b fakediscord.Component) bool {
			cid, err := e.signer.Decode(b.CustomID)
			return err == nil && cid.Action == customid.ActionMove && cid.Game == s.ID && cid.Move == n && !b.Disabled
		})
		if !live {
			continue
		}
		at := h.Edited
		if at.IsZero() {
			at = h.Created
		}
		if had := s.Updated.Sub(at); had < s.TurnTime-late-100*time.Millisecond {
			e.t.Errorf("game %s: the turn lost on time was shown at %v, %v before the game ended (turn time %v)",
				s.ID, at.Format(time.StampMilli), had, s.TurnTime)
		}
		return
	}
	e.t.Errorf("game %s ended on time at move %d, a turn never shown: the board was %d states", s.ID, n, len(e.srv.History(s.Message)))
}

// faultTournament runs a 4-player Swiss of 2 rounds, three people and a
// computer, to its end: in each game the person to move resigns.
func (e *e2e) faultTournament() {
	t := e.t
	t.Helper()
	users := []string{"4001", "4002", "4003"}
	const mod = alice
	e.tournamentCmd(mod, moderatorPerms, command.TournamentCreate, fakediscord.Option{Name: "name", Value: "Storm"},
		fakediscord.Option{Name: "format", Value: "swiss"}, fakediscord.Option{Name: "rounds", Value: 2})
	m := e.signup("Storm")
	_, join := e.button(&m, customid.ActionTournament)
	for _, u := range users {
		e.click(u, m.ID, join.CustomID)
	}
	e.tournamentCmd(mod, moderatorPerms, command.TournamentAddAI, fakediscord.Option{Name: "level", Value: "random"})
	e.tournamentCmd(mod, moderatorPerms, command.TournamentStart)
	for round := 1; round <= 2; round++ {
		tn := e.roundPosted("Storm", round)
		e.resignRound(tn)
	}
	tn := e.tournamentOf("Storm", "finished", func(t *persistence.Tournament) bool { return t.Status == persistence.TournamentFinished })
	if _, err := e.srv.WaitMessage(e.ctx, e2eChannel, func(m fakediscord.Message) bool {
		return strings.HasPrefix(m.Content, "🏆 **Storm** is over")
	}); err != nil {
		t.Fatalf("no final message: %v", err)
	}
	e.exactlyOnce(tn)
}

// faultOutage runs the outage scenario: a heavy vs-AI game, a duel and a
// game between two people on an 8-second clock are under way when every
// REST call starts failing for outageLength: the person's move in the
// vs-AI game and a move in the people's game are made as it starts (in
// HTTP mode their first answers still reach the screen, over the gateway
// they fail with the rest). Afterwards every board is shown as its game
// is; the person left to move in the people's game never plays, and
// loses on time only after their turn was on screen for its time.
func (e *e2e) faultOutage() {
	t := e.t
	t.Helper()
	const carol, dave = "300", "400"
	people := e.faultChallenge(alice, bob)
	r, _ := e.command(carol, command.SubVsAI, fakediscord.Option{Name: "level", Value: "minimax"},
		fakediscord.Option{Name: "first", Value: "me"}, fakediscord.Option{Name: "time-ms", Value: 300})
	vsAI := r.Message.ID
	e.tracked(r.Message)
	r, _ = e.command(dave, command.SubAIDuel, fakediscord.Option{Name: "x", Value: "perfect"}, fakediscord.Option{Name: "o", Value: "perfect"})
	e.tracked(r.Message) // under way, its board known (see TestE2EFaultUntrackedBoard)

	// Both players' boards are theirs to play before the outage.
	for _, b := range []struct{ user, msg string }{{alice, people}, {carol, vsAI}} {
		waitFor(t, func() bool {
			m, _ := e.srv.Message(b.msg)
			s := e.boardGame(b.msg)
			_, ok := e.liveCell(&m, s, b.user)
			return s != nil && ok
		})
	}
	end := e.srv.Outage(21)
	outageEnds := time.Now().Add(outageLength)
	e.faultClick(alice, people)
	e.faultClick(carol, vsAI)
	time.Sleep(time.Until(outageEnds))
	if s := e.boardGame(people); s.End == persistence.ByTimeout {
		// Over HTTP bob's turn reached the screen before the outage; over
		// the gateway it did not, and he must not have lost it.
		e.turnShown(s)
	}
	end()
	// Carol plays on to the end; bob never moves.
	for {
		s := e.boardGame(vsAI)
		if !s.Status.Live() {
			break
		}
		if time.Now().After(e.deadlineOf()) {
			t.Fatalf("carol's game did not end after the outage")
		}
		m, _ := e.srv.Message(vsAI)
		if _, ok := e.liveCell(&m, s, carol); ok {
			e.faultClick(carol, vsAI)
			continue
		}
		time.Sleep(10 * time.Millisecond)
	}
	over := e.waitAllOver(3)
	for _, s := range over {
		if s.Players[0].User == alice && (s.End != persistence.ByTimeout || s.Result != game.XWins) {
			t.Errorf("the people's game ended %s %s, want bob losing on time", s.End, s.Result)
		}
	}
}

// resignRound ends every game of tn's current round: once its board on
// screen shows the game as it is with a person to move, that person
// resigns (the computer moves first where it is X).
func (e *e2e) resignRound(tn *persistence.Tournament) {
	e.t.Helper()
	for _, p := range tn.Games {
		if p.Round != tn.Round || p.Bye() || p.Result != "" {
			continue
		}
		for {
			if time.Now().After(e.deadlineOf()) {
				e.t.Fatalf("game %s of round %d never became a person's to play on screen", p.Game, p.Round)
			}
			s, err := e.store.Game(e.ctx, p.Game)
			if err != nil {
				e.t.Fatal(err)
			}
			if !s.Status.Live() {
				break
			}
			side, err := s.ToMove()
			m, ok := e.srv.Message(s.Message)
			if err != nil || s.Message == "" || !ok || s.Seat(side).User == "" || e.boardDiff(m, s) != "" {
				time.Sleep(20 * time.Millisecond)
				continue
			}
			_, resign := e.button(&m, customid.ActionResign)
			d, err := e.srv.Click(e.ctx, fakediscord.ClickSpec{Actor: actor(s.Seat(side).User), MessageID: m.ID, CustomID: resign.CustomID})
			if err != nil {
				e.t.Fatal(err)
			}
			if _, err := d.Wait(e.ctx); err != nil && !errors.Is(err, fakediscord.ErrInteractionFailed) {
				e.t.Fatal(err)
			}
		}
	}
}

// faultReplica starts another bot process on its own Store against the
// same redis and fake Discord (REST only, as a production replica's: its
// posts are retried with a nonce), and runs its sweeper.
func (e *e2e) faultReplica() {
	t := e.t
	ses, err := e.srv.Session()
	if err != nil {
		t.Fatal(err)
	}
	store := persistence.New(redistest.Client(t, e.redis), persistence.Options{PseudonymKey: e2ePseudonymKey})
	b, err := bot.New(bot.Deps{Discord: ses, Store: store, Levels: ai.NewRegistry(), Catalog: e.cat, Signer: e.signer,
		Logger: slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})).With("proc", "replica"),
		AppID:  e.srv.AppID()},
		bot.Options{RateBurst: -1, ChallengeCooldown: -1, RetryPause: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.RunSweeper(ctx, 50*time.Millisecond)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// TestE2EFaultUntrackedBoard: over HTTP, the bot learns a new board's
// message by reading the interaction's @original; when Discord fails
// that read, a duel must still reach the screen: the board is owed, and
// a sweeper shows it (a new board, its game's nonce) with the result.
func TestE2EFaultUntrackedBoard(t *testing.T) {
	t.Parallel()
	e := startFaultBed(t, "http", bot.Options{Rand: rand.New(rand.NewPCG(21, 22)), RetryPause: 5 * time.Millisecond,
		RateBurst: -1, DuelStep: 20 * time.Millisecond}, 30*time.Second)
	e.srv.Fail(fakediscord.Fault{Kind: fakediscord.FaultHTML, Method: "GET", Path: "/webhooks/", Times: 1})
	r, _ := e.command(alice, command.SubAIDuel, fakediscord.Option{Name: "x", Value: "perfect"}, fakediscord.Option{Name: "o", Value: "perfect"})
	first := r.Message.ID
	want := e.cat.Text(i18n.DefaultLocale, "result.draw")
	m, err := e.srv.WaitMessage(e.ctx, e2eChannel, func(m fakediscord.Message) bool { return strings.Contains(m.Content, want) })
	if err != nil {
		t.Fatalf("the duel's result never reached the screen: %v", err)
	}
	var s *persistence.Session
	waitFor(t, func() bool { s = e.boardGame(m.ID); return s.Message == m.ID }) // recorded just after the post
	if s.Message != m.ID || s.Status != persistence.StatusFinished || e.boardDiff(m, s) != "" {
		t.Fatalf("the board shown %s (%s) for game %s at message %q: %s", m.ID, m.Content, s.ID, s.Message, e.boardDiff(m, s))
	}
	if m.ID == first || m.Nonce == "" {
		t.Fatalf("the result is on %s (nonce %q), want a new board posted with the game's nonce", m.ID, m.Nonce)
	}
}
