package bot_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
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
	"github.com/tttbot/ttt-bot/bot/metrics/metricstest"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

// scenarioRules are the rules of the scenarios' games.
const scenarioRules = "3x3k3"

// carol is a stranger to alice's and bob's games.
const carol = "300"

// scenarioBed is one transport's end-to-end harness for a scenario: the
// e2e to act through, and how to restart the bot process in the middle.
type scenarioBed struct {
	*e2e
	// restart stops the bot (its session or its endpoint, after what is in
	// flight) and starts a new one on a new Store against the same redis.
	restart func()
}

// transport is one way Discord reaches the bot: startStore starts a bot
// on it with Store options (a clock), start with none.
type transport struct {
	name       string
	startStore func(t *testing.T, opts bot.Options, popts persistence.Options) *scenarioBed
}

func (tr transport) start(t *testing.T, opts bot.Options) *scenarioBed {
	t.Helper()
	return tr.startStore(t, opts, persistence.Options{})
}

// transports are the two ways Discord reaches the bot.
var transports = []transport{
	{"gateway", func(t *testing.T, opts bot.Options, popts persistence.Options) *scenarioBed {
		e := newE2EStore(t, opts, popts)
		return &scenarioBed{e2e: e, restart: func() {
			t.Helper()
			if _, err := e.srv.WaitGateway(e.ctx, func(g fakediscord.GatewayState) bool { return g.ConnHeartbeats > 0 }); err != nil {
				t.Fatal(err)
			}
			if err := e.ses.Close(); err != nil {
				t.Fatalf("closing the first session: %v", err)
			}
			popts := e.popts
			popts.PseudonymKey = e2ePseudonymKey
			store := persistence.New(redistest.Client(t, e.redis), popts)
			e.openGateway(store, opts, nil)
			if g := e.srv.GatewayState(); g.Identifies != 2 {
				t.Fatalf("%d IDENTIFYs after the restart, want 2 (a new process, not a resume)", g.Identifies)
			}
		}}
	}},
	{"http", func(t *testing.T, opts bot.Options, popts persistence.Options) *scenarioBed {
		e, procs := newHTTPE2EStore(t, 1, opts, popts, httpmode.EndpointOptions{})
		wantCommands(t, e)
		cur := procs[0]
		return &scenarioBed{e2e: e, restart: func() {
			t.Helper()
			if err := cur.endpoint.Shutdown(e.ctx); err != nil {
				t.Fatal(err)
			}
			p, store := e.startHTTPProc(1, opts, httpmode.EndpointOptions{})
			e.srv.SetInteractionsURL(p.url)
			e.bot, e.store, cur = p.bot, store, p
		}}
	}},
}

// wantCommands checks that /ttt, /ttt-admin and /ttt-tournament were
// registered.
func wantCommands(t *testing.T, e *e2e) {
	t.Helper()
	var names []string
	for _, c := range e.srv.Commands(e2eGuild) {
		names = append(names, c.Name)
	}
	if strings.Join(names, ",") != "ttt,ttt-admin,ttt-tournament" {
		t.Fatalf("registered commands %v, want ttt, ttt-admin and ttt-tournament", names)
	}
}

// TestE2EScenarios runs the scenario matrix over both transports:
// games between people to a win, a draw and a resignation, racing clicks,
// a stranger's clicks, a game against each AI level and a bot restart in
// the middle of a game. Every finished game must be counted once in the
// stats and the corpus, and no interaction may fail.
func TestE2EScenarios(t *testing.T) {
	t.Parallel()
	scenarios := []scenario{
		{"x wins", func(t *testing.T, b *scenarioBed) {
			// X takes the left column while O plays the middle one.
			msg, cur := startChallenge(b.e2e)
			cur = playScript(b.e2e, msg, cur, []move{{alice, 0, 0}, {bob, 0, 1}, {alice, 1, 0}, {bob, 1, 1}, {alice, 2, 0}})
			end := b.game(cur)
			wantFinished(b.e2e, end, game.XWins, persistence.ByWin)
			b.noLiveCells(*cur)
			wantCounted(b.e2e, end, map[string]persistence.Tally{alice: {Wins: 1}, bob: {Losses: 1}})
		}},
		{"draw", func(t *testing.T, b *scenarioBed) {
			msg, cur := startChallenge(b.e2e)
			cur = playScript(b.e2e, msg, cur, []move{
				{alice, 0, 0}, {bob, 1, 1}, {alice, 2, 2}, {bob, 0, 1}, {alice, 2, 1},
				{bob, 2, 0}, {alice, 0, 2}, {bob, 1, 2}, {alice, 1, 0},
			})
			end := b.game(cur)
			wantFinished(b.e2e, end, game.Draw, persistence.ByDraw)
			wantCounted(b.e2e, end, map[string]persistence.Tally{alice: {Draws: 1}, bob: {Draws: 1}})
		}},
		{"resignation", func(t *testing.T, b *scenarioBed) {
			msg, cur := startChallenge(b.e2e)
			cur = playScript(b.e2e, msg, cur, []move{{alice, 1, 1}, {bob, 0, 0}, {alice, 0, 2}})
			_, resign := b.button(cur, customid.ActionResign)
			r, _ := b.click(bob, msg, resign.CustomID)
			if r.Type != int(discordgo.InteractionResponseUpdateMessage) || r.Message.ID != msg {
				t.Fatalf("resign answered type %d on %s, want 7 on the board %s", r.Type, r.Message.ID, msg)
			}
			end := b.game(r.Message)
			wantFinished(b.e2e, end, game.XWins, persistence.ByResign)
			b.noLiveCells(*r.Message)
			wantCounted(b.e2e, end, map[string]persistence.Tally{alice: {Wins: 1}, bob: {Losses: 1}})
		}},
		{"racing clicks", func(t *testing.T, b *scenarioBed) {
			msg, cur := startChallenge(b.e2e)
			for round := 0; ; round++ {
				if round > 9 {
					t.Fatal("game did not end")
				}
				s := b.game(cur)
				if s.Status != persistence.StatusActive {
					break
				}
				free := freeCells(b.e2e, cur)
				mover, other := alice, bob
				if s.SideOf(bob) == mustToMove(t, s) {
					mover, other = bob, alice
				}
				// Odd rounds: both players click at once. Even rounds: the
				// player to move double-clicks two cells.
				second := other
				if round%2 == 0 && len(free) > 1 {
					second = mover
				}
				cur = race(b.e2e, msg, s, [2]move{{mover, free[0].Row(), free[0].Col()}, {second, free[len(free)-1].Row(), free[len(free)-1].Col()}})
			}
			end := b.game(cur)
			if end.Status != persistence.StatusFinished {
				t.Fatalf("game is %s, want finished", end.Status)
			}
			want := map[string]persistence.Tally{}
			switch end.Result {
			case game.XWins:
				want[alice], want[bob] = persistence.Tally{Wins: 1}, persistence.Tally{Losses: 1}
			case game.OWins:
				want[alice], want[bob] = persistence.Tally{Losses: 1}, persistence.Tally{Wins: 1}
			default:
				want[alice], want[bob] = persistence.Tally{Draws: 1}, persistence.Tally{Draws: 1}
			}
			wantCounted(b.e2e, end, want)
		}},
		{"stranger's click", func(t *testing.T, b *scenarioBed) {
			msg, cur := startChallenge(b.e2e)
			cur = playScript(b.e2e, msg, cur, []move{{alice, 1, 1}})
			before := b.game(cur)
			shown, _ := b.srv.Message(msg)
			_, resign := b.button(cur, customid.ActionResign)
			for _, id := range []string{b.cells(cur)[game.NewCell(0, 0)].CustomID, resign.CustomID} {
				r, _ := b.click(carol, msg, id)
				b.wantReply(r, render.KeyNotYourGame)
				if r.Message.VisibleTo != carol {
					t.Fatalf("refusal visible to %q, want only carol", r.Message.VisibleTo)
				}
			}
			if now := b.game(cur); now.Version != before.Version || len(now.Moves) != 1 {
				t.Fatalf("a stranger's clicks changed the game: version %d with %d moves, was %d", now.Version, len(now.Moves), before.Version)
			}
			if now, _ := b.srv.Message(msg); now.Content != shown.Content || !slices.Equal(buttonIDs(now), buttonIDs(shown)) {
				t.Fatalf("a stranger's clicks changed the board: %q, was %q", now.Content, shown.Content)
			}
			if _, err := b.store.Stats(b.ctx, e2eGuild, carol); err == nil {
				t.Fatal("the stranger has stats")
			}
		}},
		{"each AI level", func(t *testing.T, b *scenarioBed) {
			levels := ai.NewRegistry().Names()
			for _, want := range []string{"random", "easy", "minimax", "mcts", "perfect"} {
				if !slices.Contains(levels, want) {
					t.Fatalf("levels %v lack %s", levels, want)
				}
			}
			var games []*persistence.Session
			for _, level := range levels {
				var extra []fakediscord.Option
				if level == "mcts" {
					extra = append(extra, fakediscord.Option{Name: "iterations", Value: 300})
				}
				end := playVsAI(b.e2e, level, func() {}, extra...)
				if end.Status != persistence.StatusFinished || end.Players[1].AI.Level != level {
					t.Fatalf("game against %s is %s against %+v, want finished against %s", level, end.Status, end.Players[1], level)
				}
				if level == "perfect" && end.Result == game.XWins {
					t.Fatalf("alice beat perfect playing the first free cell")
				}
				games = append(games, end)
			}
			for _, g := range games {
				wantInCorpusOnce(b.e2e, g)
			}
			for _, guild := range []string{e2eGuild, ""} {
				st, err := b.store.Stats(b.ctx, guild, alice)
				if err != nil || st.Games != int64(len(levels)) {
					t.Fatalf("stats in %q: %+v %v, want %d games", guild, st, err, len(levels))
				}
				for _, level := range levels {
					if n := st.VsAI[level]; n.Wins+n.Losses+n.Draws != 1 {
						t.Fatalf("stats in %q against %s: %+v, want one game", guild, level, n)
					}
				}
			}
		}},
		{"restart mid-game", func(t *testing.T, b *scenarioBed) {
			msg, cur := startChallenge(b.e2e)
			cur = playScript(b.e2e, msg, cur, []move{{alice, 0, 2}, {bob, 0, 0}, {alice, 1, 1}})
			mid := b.game(cur)
			b.restart()
			// The old board's buttons, from before the restart, still play.
			cur = playScript(b.e2e, msg, cur, []move{{bob, 1, 0}, {alice, 2, 0}})
			end := b.game(cur)
			if end.ID != mid.ID {
				t.Fatalf("after the restart game %s, want %s", end.ID, mid.ID)
			}
			wantFinished(b.e2e, end, game.XWins, persistence.ByWin)
			wantCounted(b.e2e, end, map[string]persistence.Tally{alice: {Wins: 1}, bob: {Losses: 1}})
		}},
	}
	// The scenarios click at machine speed: no rate limit.
	runScenarios(t, 21, bot.Options{RateBurst: -1}, nil, scenarios)
}

// scenario is one end-to-end scenario, run over both transports.
type scenario struct {
	name string
	run  func(t *testing.T, b *scenarioBed)
}

// runScenarios runs each scenario over both transports, all in parallel,
// each on a bot of its own started with opts (its Rand seeded from seed
// and the scenario's number) and prepared by setup (nil for nothing),
// and checks that no interaction failed.
func runScenarios(t *testing.T, seed uint64, opts bot.Options, setup func(*scenarioBed), scenarios []scenario) {
	t.Helper()
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			for i, sc := range scenarios {
				t.Run(sc.name, func(t *testing.T) {
					t.Parallel()
					o := opts
					o.Rand = rand.New(rand.NewPCG(seed, uint64(i)))
					b := tr.start(t, o)
					if setup != nil {
						setup(b)
					}
					sc.run(t, b)
					b.noFailures()
				})
			}
		})
	}
}

// move is a click of user on the cell at row, col.
type move struct {
	user     string
	row, col int
}

// startChallenge has alice challenge bob with alice first and bob accept,
// and returns the board's message ID and the board.
func startChallenge(e *e2e) (string, *fakediscord.Message) {
	e.t.Helper()
	r, _ := e.command(alice, command.SubChallenge, opponentOpt(bob), fakediscord.Option{Name: "first", Value: "me"})
	if r.Type != int(discordgo.InteractionResponseChannelMessageWithSource) || r.Message.Ephemeral {
		e.t.Fatalf("/ttt challenge answered type %d ephemeral %v, want a public challenge", r.Type, r.Message.Ephemeral)
	}
	msg := r.Message.ID
	e.trackedChallenge(r.Message, customid.ActionAccept)
	_, accept := e.button(r.Message, customid.ActionAccept)
	r, _ = e.click(bob, msg, accept.CustomID)
	if r.Type != int(discordgo.InteractionResponseUpdateMessage) || r.Message.ID != msg || len(e.cells(r.Message)) != 9 {
		e.t.Fatalf("accepting answered type %d on %s, want the board (7) on %s", r.Type, r.Message.ID, msg)
	}
	if s := e.game(r.Message); s.Status != persistence.StatusActive || s.Players[0].User != alice || s.Players[1].User != bob {
		e.t.Fatalf("game %+v, want alice (X) against bob (O), active", s)
	}
	return msg, r.Message
}

// playScript plays moves on the board message msg, whose last state is
// cur, each answered by the updated board, and returns the last board.
func playScript(e *e2e, msg string, cur *fakediscord.Message, moves []move) *fakediscord.Message {
	e.t.Helper()
	for i, mv := range moves {
		b, ok := e.cells(cur)[game.NewCell(mv.row, mv.col)]
		if !ok || b.Disabled {
			e.t.Fatalf("move %d: cell %d,%d is not playable on %q", i, mv.row, mv.col, cur.Content)
		}
		before := e.game(cur)
		r, _ := e.click(mv.user, msg, b.CustomID)
		if r.Type != int(discordgo.InteractionResponseUpdateMessage) || r.Message.ID != msg {
			e.t.Fatalf("move %d answered type %d on %s, want 7 on the board %s", i, r.Type, r.Message.ID, msg)
		}
		cur = r.Message
		after := e.game(cur)
		if len(after.Moves) != len(before.Moves)+1 {
			e.t.Fatalf("move %d: %d moves, want %d", i, len(after.Moves), len(before.Moves)+1)
		}
		if i < len(moves)-1 && after.Status != persistence.StatusActive {
			e.t.Fatalf("game %s after move %d of %d", after.Status, i+1, len(moves))
		}
	}
	return cur
}

// race clicks both moves at once on the board msg of game s and checks
// that exactly one was played, answered with the board, while the other
// was refused as out of turn or on a changed board. It returns the board.
func race(e *e2e, msg string, s *persistence.Session, mvs [2]move) *fakediscord.Message {
	e.t.Helper()
	cur, _ := e.srv.Message(msg)
	var ds [2]*fakediscord.Delivery
	var errs [2]error
	var wg sync.WaitGroup
	for i, mv := range mvs {
		id := e.cells(&cur)[game.NewCell(mv.row, mv.col)].CustomID
		wg.Add(1)
		go func() {
			defer wg.Done()
			ds[i], errs[i] = e.srv.Click(e.ctx, fakediscord.ClickSpec{Actor: actor(mv.user), MessageID: msg, CustomID: id})
		}()
	}
	wg.Wait()
	var board *fakediscord.Message
	overRefused := false
	// The refused click may be handled before the other is played, or
	// after it (when it may have ended the game).
	refusals := []string{e.cat.Text(i18n.DefaultLocale, render.KeyNotYourTurn), e.cat.Text(i18n.DefaultLocale, render.KeyBoardChanged),
		e.cat.Text(i18n.DefaultLocale, render.KeyGameOver)}
	gameOver := refusals[2]
	for i, d := range ds {
		if errors.Is(errs[i], fakediscord.ErrUnknownComponent) {
			// The other click was answered before this one reached Discord,
			// which then refuses a button the message no longer has.
			continue
		}
		if errs[i] != nil {
			e.t.Fatalf("click %d: %v", i, errs[i])
		}
		r := e.wait(d)
		switch {
		case r.Type == int(discordgo.InteractionResponseUpdateMessage) && r.Message.ID == msg:
			if board != nil {
				e.t.Fatal("both racing clicks were played")
			}
			board = r.Message
		case r.Type == int(discordgo.InteractionResponseChannelMessageWithSource) && r.Message.Ephemeral &&
			slices.Contains(refusals, r.Message.Content):
			overRefused = overRefused || r.Message.Content == gameOver
		default:
			e.t.Fatalf("racing click %d (%s) answered type %d %q, want the board or %q", i, mvs[i].user, r.Type, r.Message.Content, refusals)
		}
	}
	if board == nil {
		e.t.Fatal("neither racing click was played")
	}
	after := e.game(board)
	if len(after.Moves) != len(s.Moves)+1 {
		e.t.Fatalf("after racing clicks %d moves, want %d", len(after.Moves), len(s.Moves)+1)
	}
	if overRefused && after.Status != persistence.StatusFinished {
		e.t.Fatalf("a racing click was refused as on a finished game, but the game is %s", after.Status)
	}
	return board
}

// freeCells returns the enabled cells of board m in cell order.
func freeCells(e *e2e, m *fakediscord.Message) []game.Cell {
	e.t.Helper()
	var out []game.Cell
	for c, b := range e.cells(m) {
		if !b.Disabled {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// mustToMove is the side to move in s.
func mustToMove(t *testing.T, s *persistence.Session) game.Mark {
	t.Helper()
	m, err := s.ToMove()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// buttonIDs are the custom IDs and states of m's buttons.
func buttonIDs(m fakediscord.Message) []string {
	var out []string
	for _, b := range m.Buttons() {
		id := b.CustomID
		if b.Disabled {
			id += " (disabled)"
		}
		out = append(out, id)
	}
	return out
}

// wantFinished checks how game s ended.
func wantFinished(e *e2e, s *persistence.Session, result game.Result, end persistence.Ending) {
	e.t.Helper()
	if s.Status != persistence.StatusFinished || s.Result != result || s.End != end {
		e.t.Fatalf("game %s %s %s, want finished %s %s", s.Status, s.Result, s.End, result, end)
	}
}

// wantCounted checks that the finished game s is in the corpus once and
// that each user's stats, in the guild and globally, count it once with
// the given result.
func wantCounted(e *e2e, s *persistence.Session, tallies map[string]persistence.Tally) {
	e.t.Helper()
	wantInCorpusOnce(e, s)
	for user, want := range tallies {
		for _, guild := range []string{e2eGuild, ""} {
			st, err := e.store.Stats(e.ctx, guild, user)
			if err != nil || st.Games != 1 || st.Tally != want {
				e.t.Fatalf("stats of %s in %q: %+v %v, want one game %+v", user, guild, st, err, want)
			}
		}
	}
}

// wantInCorpusOnce checks that the corpus holds game s exactly once, with
// its moves and result.
func wantInCorpusOnce(e *e2e, s *persistence.Session) {
	e.t.Helper()
	batch, err := e.store.ReadCorpus(e.ctx, scenarioRules, "", 0)
	if err != nil || len(batch.Corrupt) != 0 {
		e.t.Fatalf("ReadCorpus: %v, %d corrupt", err, len(batch.Corrupt))
	}
	n := 0
	for _, r := range batch.Records {
		if r.Record.Game != string(s.ID) {
			continue
		}
		n++
		if len(r.Record.Moves) != len(s.Moves) || r.Record.Result != s.Result.String() {
			e.t.Fatalf("corpus record %+v of game %s: want %d moves and %q", r.Record, s.ID, len(s.Moves), s.Result)
		}
	}
	if n != 1 {
		e.t.Fatalf("corpus holds game %s %d times, want once", s.ID, n)
	}
	cs, err := e.store.CorpusStats(e.ctx, scenarioRules)
	if err != nil || cs.Count != int64(len(batch.Records)) {
		e.t.Fatalf("CorpusStats %+v %v, want %d records", cs, err, len(batch.Records))
	}
}

// TestHTTPRejectedClicks sends real clicks on a live board whose requests
// are forged, stale or oversized on the way to the endpoint: each is
// refused (the user sees the interaction fail), and neither the game nor
// the board changes; the same click sent untouched is then played.
func TestHTTPRejectedClicks(t *testing.T) {
	t.Parallel()
	var skew atomic.Int64 // of the endpoint's clock, in nanoseconds
	now := func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	e, procs := newHTTPE2E(t, 1, bot.Options{Rand: rand.New(rand.NewPCG(31, 32))}, httpmode.EndpointOptions{Now: now})

	// A proxy between the fake and the endpoint tampers with requests.
	var tamper atomic.Pointer[func(*http.Request, []byte) []byte]
	target, client := procs[0].url, &http.Client{Timeout: e2eTimeout}
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		if f := tamper.Load(); f != nil {
			body = (*f)(r, body)
		}
		req, err := http.NewRequestWithContext(r.Context(), r.Method, target, bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		req.Header = r.Header.Clone()
		resp, err := client.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	t.Cleanup(proxy.Close)
	e.srv.SetInteractionsURL(proxy.URL)

	msg, cur := startChallenge(e)
	cur = playScript(e, msg, cur, []move{{alice, 1, 1}})
	before := e.game(cur)
	shown, _ := e.srv.Message(msg)
	click := e.cells(cur)[game.NewCell(0, 0)].CustomID // bob's move

	for _, tc := range []struct {
		name   string
		tamper func(*http.Request, []byte) []byte
		skew   time.Duration
		status string
	}{
		{"forged signature", func(r *http.Request, body []byte) []byte {
			sig, _ := hex.DecodeString(r.Header.Get(httpmode.HeaderSignature))
			if len(sig) > 0 {
				sig[0] ^= 0xff
			}
			r.Header.Set(httpmode.HeaderSignature, hex.EncodeToString(sig))
			return body
		}, 0, "401"},
		{"body changed after signing", func(_ *http.Request, body []byte) []byte {
			return bytes.Replace(body, []byte(bob), []byte(alice), 1)
		}, 0, "401"},
		{"stale timestamp", nil, 10 * time.Minute, "401"},
		{"timestamp from the future", nil, -10 * time.Minute, "401"},
		{"oversized body", func(_ *http.Request, body []byte) []byte {
			return append(body, bytes.Repeat([]byte(" "), httpmode.DefaultMaxBody)...)
		}, 0, "413"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.tamper != nil {
				tamper.Store(&tc.tamper)
				defer tamper.Store(nil)
			}
			skew.Store(int64(tc.skew))
			defer skew.Store(0)
			d, err := e.srv.Click(e.ctx, fakediscord.ClickSpec{Actor: actor(bob), MessageID: msg, CustomID: click})
			if err != nil {
				t.Fatal(err)
			}
			r, err := d.Wait(e.ctx)
			if err == nil || r.Kind != fakediscord.KindFailed || !strings.Contains(r.Error, tc.status) {
				t.Fatalf("tampered click: %+v, %v; want it failed with %s", r, err, tc.status)
			}
			if now := e.game(cur); now.Version != before.Version || len(now.Moves) != len(before.Moves) {
				t.Fatalf("a refused request changed the game: version %d, was %d", now.Version, before.Version)
			}
			if now, _ := e.srv.Message(msg); now.Content != shown.Content || !slices.Equal(buttonIDs(now), buttonIDs(shown)) {
				t.Fatalf("a refused request changed the board: %q, was %q", now.Content, shown.Content)
			}
		})
	}
	// The same click, untouched, is played.
	cur = playScript(e, msg, cur, []move{{bob, 0, 0}})
	if s := e.game(cur); s.Version == before.Version || s.Moves[len(s.Moves)-1] != game.NewCell(0, 0) {
		t.Fatalf("the untouched click was not played: %+v", s)
	}
	drain(t, e, procs)
	e.noFailures()
	for _, want := range []string{"401", "413"} {
		if n, ok := metricstest.Find(scrape(t, procs[0]), "ttt_http_interactions_total", "status", want); !ok || n == 0 {
			t.Errorf("no refusal counted with status %s", want)
		}
	}
}
