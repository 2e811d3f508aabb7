package bot_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/ai/puzzle"
	"github.com/tttbot/ttt-bot/bot"
	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

// TestE2EHistory runs the history, replay, review, hint and puzzle
// scenarios over both transports: every command and button end to end,
// the refusals of each, and a restart between a replay's steps.
func TestE2EHistory(t *testing.T) {
	t.Parallel()
	scenarios := []scenario{
		{"replay and review", replayAndReview},
		{"history", historyScenario},
		{"hint", hintScenario},
		{"puzzle", puzzleScenario},
		{"refusals", historyRefusals},
	}
	// The scenarios click at machine speed: no rate limit.
	runScenarios(t, 31, bot.Options{RateBurst: -1}, nil, scenarios)
}

// swingGame plays a 3x3 game between alice (X) and bob (O) in which bob
// throws the draw away at move 4 (a corner instead of an edge) and alice
// wins at move 7, and returns
// the final board and the game.
func swingGame(b *scenarioBed) (*fakediscord.Message, *persistence.Session) {
	msg, cur := startChallenge(b.e2e)
	cur = playScript(b.e2e, msg, cur, []move{{alice, 0, 0}, {bob, 1, 1}, {alice, 2, 2}, {bob, 0, 2}, {alice, 2, 0}, {bob, 1, 0}, {alice, 2, 1}})
	end := b.game(cur)
	wantFinished(b.e2e, end, game.XWins, persistence.ByWin)
	return cur, end
}

func replayAndReview(t *testing.T, b *scenarioBed) {
	board, end := swingGame(b)
	_, replayBtn := b.button(board, customid.ActionReplay)
	_, reviewBtn := b.button(board, customid.ActionReview)

	// Anyone opens a replay of their own, at the start.
	r, _ := b.click(carol, board.ID, replayBtn.CustomID)
	if r.Type != int(discordgo.InteractionResponseChannelMessageWithSource) || r.Message.Ephemeral || r.Message.ID == board.ID {
		t.Fatalf("Replay answered type %d ephemeral %v on %s, want a new public message", r.Type, r.Message.Ephemeral, r.Message.ID)
	}
	replay := r.Message
	if !strings.Contains(replay.Content, "Start position (7 moves to come)") {
		t.Fatalf("replay opens with %q", replay.Content)
	}
	_, next := b.button(replay, customid.ActionNext)
	// Only its opener may step it.
	r, _ = b.click(alice, replay.ID, next.CustomID)
	b.wantReply(r, bot.KeyNotYourReplay)
	r, _ = b.click(carol, replay.ID, next.CustomID)
	if r.Type != int(discordgo.InteractionResponseUpdateMessage) || r.Message.ID != replay.ID || !strings.Contains(r.Message.Content, "Move 1 of 7: ❌ a1") {
		t.Fatalf("Next answered type %d %q", r.Type, r.Message.Content)
	}
	_, last := b.button(r.Message, customid.ActionLast)
	r, _ = b.click(carol, replay.ID, last.CustomID)
	if !strings.Contains(r.Message.Content, "Move 7 of 7: ❌ b3") {
		t.Fatalf("Last shows %q", r.Message.Content)
	}
	if _, n := b.button(r.Message, customid.ActionNext); !n.Disabled {
		t.Fatal("Next is live at the end")
	}
	// The replay's state is in its buttons: a new process steps it on.
	b.restart()
	_, back := b.button(r.Message, customid.ActionBack)
	r, _ = b.click(carol, replay.ID, back.CustomID)
	if !strings.Contains(r.Message.Content, "Move 6 of 7: ⭕ a2") || !strings.Contains(r.Message.Content, "`3x3k3 a1 b2 c3 c1 a3 a2`") {
		t.Fatalf("Back after a restart shows %q", r.Message.Content)
	}

	// The review answers at once and then shows the verdicts and chart.
	r, _ = b.click(bob, board.ID, reviewBtn.CustomID)
	if r.Type != int(discordgo.InteractionResponseDeferredChannelMessageWithSource) {
		t.Fatalf("Review answered type %d, want a deferral (5)", r.Type)
	}
	rev, err := b.srv.WaitMessage(b.ctx, e2eChannel, func(m fakediscord.Message) bool { return m.ID == r.Message.ID && len(m.Embeds) > 0 })
	if err != nil {
		t.Fatal(err)
	}
	e := rev.Embeds[0]
	if e.Title != "🔍 Game review" || !strings.Contains(e.Description, "`4.` ⭕ **c1** ❓ mistake · draw → loss in 3 · best: ") ||
		e.Image == nil || e.Image.URL != "attachment://"+render.ReviewChartName {
		t.Fatalf("review embed %q / %q, image %+v", e.Title, e.Description, e.Image)
	}
	if len(rev.Attachments) != 1 || rev.Attachments[0].Filename != render.ReviewChartName || !strings.HasPrefix(string(rev.Attachments[0].Data), "\x89PNG") {
		t.Fatalf("review attachments %+v, want the chart", rev.Attachments)
	}
	// A replay opened now shows the verdicts.
	r, _ = b.click(alice, board.ID, replayBtn.CustomID)
	_, next = b.button(r.Message, customid.ActionNext)
	for range 4 {
		r, _ = b.click(alice, r.Message.ID, next.CustomID)
		_, next = b.button(r.Message, customid.ActionNext)
	}
	if !strings.Contains(r.Message.Content, "Move 4 of 7: ⭕ c1 · ❓ mistake · best: ") {
		t.Fatalf("reviewed replay shows %q", r.Message.Content)
	}
	// /ttt review and /ttt replay by ID do the same.
	r, _ = b.command(carol, command.SubReplay, fakediscord.Option{Name: "game", Value: string(end.ID)})
	if !strings.Contains(r.Message.Content, "Replay") {
		t.Fatalf("/ttt replay shows %q", r.Message.Content)
	}
	r, _ = b.command(carol, command.SubReview, fakediscord.Option{Name: "game", Value: string(end.ID)})
	if r.Type != int(discordgo.InteractionResponseDeferredChannelMessageWithSource) {
		t.Fatalf("/ttt review answered type %d, want 5", r.Type)
	}
	if _, err := b.srv.WaitMessage(b.ctx, e2eChannel, func(m fakediscord.Message) bool { return m.ID == r.Message.ID && len(m.Embeds) > 0 }); err != nil {
		t.Fatal(err)
	}
}

func historyScenario(t *testing.T, b *scenarioBed) {
	_, end := swingGame(b)
	vsAI := playVsAI(b.e2e, "easy", func() {})
	for _, asker := range []string{alice, carol} {
		r, _ := b.command(asker, command.SubHistory, fakediscord.Option{Name: "user", Value: alice, Type: discordgo.ApplicationCommandOptionUser})
		if !r.Message.Ephemeral || r.Message.VisibleTo != asker {
			t.Fatalf("history for %s: ephemeral %v to %q", asker, r.Message.Ephemeral, r.Message.VisibleTo)
		}
		c := r.Message.Content
		if !strings.Contains(c, "Games 1–2 of 2") || !strings.Contains(c, string(end.ID)) || !strings.Contains(c, string(vsAI.ID)) ||
			strings.Index(c, string(vsAI.ID)) > strings.Index(c, string(end.ID)) {
			t.Fatalf("history of alice for %s:\n%s", asker, c)
		}
		if !strings.Contains(c, "**Won** against <@"+bob+">") || !strings.Contains(c, "rating +16") {
			t.Fatalf("history line of the rated win:\n%s", c)
		}
	}
	// A corrupt entry is skipped; the others are still shown.
	rc := redistest.Client(t, b.redis)
	if err := rc.LPush(b.ctx, "ttt:history:{u:"+alice+"}", "{not json").Err(); err != nil {
		t.Fatal(err)
	}
	r, _ := b.command(alice, command.SubHistory)
	if !strings.Contains(r.Message.Content, "Games 1–2 of 2") {
		t.Fatalf("history with a corrupt entry:\n%s", r.Message.Content)
	}
	r, _ = b.command(bob, command.SubHistory, fakediscord.Option{Name: "board", Value: "4x4k4"})
	if !strings.Contains(r.Message.Content, "No games yet.") {
		t.Fatalf("bob's 4x4 history:\n%s", r.Message.Content)
	}
	// Pages: twelve more games against the computer make two pages.
	for range 11 {
		playVsAI(b.e2e, "random", func() {})
	}
	r, _ = b.command(alice, command.SubHistory)
	if !strings.Contains(r.Message.Content, "Games 1–10 of 13") {
		t.Fatalf("first page:\n%s", r.Message.Content)
	}
	id, older := b.button(r.Message, customid.ActionHistory)
	if id.Move != 0 || !older.Disabled {
		// The first button is Newer, disabled on the first page.
		t.Fatalf("first history button %+v disabled %v", id, older.Disabled)
	}
	var olderID string
	for _, btn := range r.Message.Buttons() {
		if !btn.Disabled {
			olderID = btn.CustomID
		}
	}
	r2, _ := b.click(alice, r.Message.ID, olderID)
	if r2.Type != int(discordgo.InteractionResponseUpdateMessage) || !strings.Contains(r2.Message.Content, "Games 11–13 of 13") ||
		!strings.Contains(r2.Message.Content, string(end.ID)) {
		t.Fatalf("second page: type %d\n%s", r2.Type, r2.Message.Content)
	}
}

func hintScenario(t *testing.T, b *scenarioBed) {
	r, _ := b.command(alice, command.SubHint)
	b.wantReply(r, render.KeyNoGame)
	calls := 0
	assisted := playVsAI(b.e2e, "perfect", func() {
		if calls++; calls == 1 {
			return // before the game starts
		}
		r, _ := b.command(alice, command.SubHint)
		if r.Type != int(discordgo.InteractionResponseDeferredChannelMessageWithSource) || !r.Message.Ephemeral {
			t.Fatalf("hint answered type %d ephemeral %v, want a private deferral", r.Type, r.Message.Ephemeral)
		}
		r.Message = settled(b, r)
		if !r.Message.Ephemeral || !strings.Contains(r.Message.Content, "💡 Best move") {
			t.Fatalf("hint answered %q (ephemeral %v)", r.Message.Content, r.Message.Ephemeral)
		}
	})
	if !assisted.Assisted[0] || assisted.Assisted[1] {
		t.Fatalf("assisted %v, want X only", assisted.Assisted)
	}
	batch, err := b.store.ReadCorpus(b.ctx, scenarioRules, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range batch.Records {
		if e.Record.Game == string(assisted.ID) {
			found = slices.Equal(e.Record.Assisted, []string{"x"})
		}
	}
	if !found {
		t.Fatalf("the corpus does not mark game %s as assisted for X", assisted.ID)
	}
	r, _ = b.command(alice, command.SubHistory)
	if !strings.Contains(r.Message.Content, "💡 hints used") {
		t.Fatalf("history does not show the hints:\n%s", r.Message.Content)
	}
	// Never in a game between people.
	startChallenge(b.e2e)
	r, _ = b.command(alice, command.SubHint)
	b.wantReply(r, bot.KeyHintRated)
}

// settled waits for a deferred answer to be edited into its message.
func settled(b *scenarioBed, r fakediscord.Response) *fakediscord.Message {
	b.t.Helper()
	if r.Type != int(discordgo.InteractionResponseDeferredChannelMessageWithSource) {
		return r.Message
	}
	m, err := b.srv.WaitMessage(b.ctx, e2eChannel, func(m fakediscord.Message) bool { return m.ID == r.Message.ID && !m.Loading })
	if err != nil {
		b.t.Fatal(err)
	}
	return &m
}

func puzzleScenario(t *testing.T, b *scenarioBed) {
	r, _ := b.command(alice, command.SubPuzzle)
	// The day's first request draws the puzzle: a deferral, then the board.
	if r.Type != int(discordgo.InteractionResponseDeferredChannelMessageWithSource) {
		t.Fatalf("first /ttt puzzle of the day answered type %d, want a deferral (5)", r.Type)
	}
	r.Message = settled(b, r)
	if r.Message.Ephemeral || !strings.Contains(r.Message.Content, "🧩 **Puzzle of <t:"+strconv.FormatInt(time.Now().UTC().Truncate(24*time.Hour).Add(12*time.Hour).Unix(), 10)+":D>**") {
		t.Fatalf("/ttt puzzle answered %q", r.Message.Content)
	}
	b.tracked(r.Message)
	start := b.game(r.Message)
	if start.Puzzle == "" || start.SideOf(alice) != mustToMove(t, start) {
		t.Fatalf("puzzle session %+v: alice is not to move", start)
	}
	r2, _ := b.command(alice, command.SubHint)
	b.wantReply(r2, bot.KeyHintPuzzle)
	// alice solves it with the solver's fastest wins.
	board, cur := r.Message.ID, r.Message
	solver := ai.NewSolver()
	for range 10 {
		s := b.game(cur)
		if s.Status != persistence.StatusActive {
			break
		}
		pos, err := s.Position()
		if err != nil {
			t.Fatal(err)
		}
		_, best, err := solver.PerfectChoices(context.Background(), pos, -1)
		if err != nil {
			t.Fatal(err)
		}
		r, _ = b.click(alice, board, b.cells(cur)[best[0]].CustomID)
		cur = r.Message
	}
	if !strings.Contains(cur.Content, "solved** by <@"+alice+">") {
		t.Fatalf("solved puzzle shows %q", cur.Content)
	}
	st, err := b.store.PuzzleStatsOf(b.ctx, e2eGuild, alice)
	if err != nil || st.Solved != 1 || st.Streak != 1 {
		t.Fatalf("alice's puzzle stats %+v %v, want one solved, streak 1", st, err)
	}
	// bob gets the same position, at once, and gives the win away.
	r, _ = b.command(bob, command.SubPuzzle)
	if r.Type != int(discordgo.InteractionResponseChannelMessageWithSource) {
		t.Fatalf("second /ttt puzzle of the day answered type %d, want the board (4)", r.Type)
	}
	b.tracked(r.Message)
	bs := b.game(r.Message)
	if bs.Start != start.Start {
		t.Fatalf("bob's puzzle starts at %s, alice's at %s", bs.Start, start.Start)
	}
	pos, err := bs.Position()
	if err != nil {
		t.Fatal(err)
	}
	a, err := solver.Solve(context.Background(), pos)
	if err != nil {
		t.Fatal(err)
	}
	var losing game.Cell
	for _, mv := range a.Moves {
		if mv.Value != a.Value {
			losing = mv.Cell
		}
	}
	if st, _ := puzzle.Judge(context.Background(), solver, pos.ToMove(), pos.Apply(losing)); st != puzzle.Failed {
		t.Fatalf("test setup: %s is not a failing move", losing)
	}
	r, _ = b.click(bob, r.Message.ID, b.cells(r.Message)[losing].CustomID)
	if !strings.Contains(r.Message.Content, "failed**") || b.game(r.Message).Status != persistence.StatusFinished {
		t.Fatalf("failed puzzle shows %q", r.Message.Content)
	}
	if st, err := b.store.PuzzleStatsOf(b.ctx, e2eGuild, bob); err != nil || st.Failed != 1 || st.Solved != 0 {
		t.Fatalf("bob's puzzle stats %+v %v, want one failed", st, err)
	}
	r, _ = b.command(carol, command.SubLeaderboard, fakediscord.Option{Name: "kind", Value: "puzzles"})
	if !strings.Contains(r.Message.Content, "1. <@"+alice+"> · solved 1 · streak 1") {
		t.Fatalf("puzzle leaderboard:\n%s", r.Message.Content)
	}
	// Puzzles are not games: nothing in the stats or the history.
	if _, err := b.store.Stats(b.ctx, e2eGuild, alice); err == nil {
		t.Fatal("a puzzle counted in the stats")
	}
}

func historyRefusals(t *testing.T, b *scenarioBed) {
	r, _ := b.command(alice, command.SubReplay, fakediscord.Option{Name: "game", Value: "my last game"})
	b.wantReply(r, command.KeyBadGameID)
	r, _ = b.command(alice, command.SubReview, fakediscord.Option{Name: "game", Value: e2eChannel + ".zzzzzzzzzzzzz"})
	b.wantReply(r, bot.KeyUnknownGame)
	msg, cur := startChallenge(b.e2e)
	live := b.game(cur)
	for _, sub := range []string{command.SubReplay, command.SubReview} {
		r, _ = b.command(carol, sub, fakediscord.Option{Name: "game", Value: string(live.ID)})
		b.wantReply(r, bot.KeyGameInProgress)
	}
	_ = msg
	// In a direct message only one's own history: the others' would list
	// their games in every server. (Direct messages use the global
	// commands.)
	if err := b.bot.Register(b.ctx, ""); err != nil {
		t.Fatal(err)
	}
	dm := func(opts ...fakediscord.Option) fakediscord.Response {
		d, err := b.srv.Command(b.ctx, fakediscord.CommandSpec{Actor: fakediscord.Actor{Channel: "70", User: fakediscord.User{ID: alice}},
			Name: command.Name, Options: []fakediscord.Option{{Name: command.SubHistory, Type: discordgo.ApplicationCommandOptionSubCommand, Options: opts}}})
		if err != nil {
			t.Fatal(err)
		}
		return b.wait(d)
	}
	b.wantReply(dm(fakediscord.Option{Name: "user", Value: bob, Type: discordgo.ApplicationCommandOptionUser}), bot.KeyHistoryDM)
	if r := dm(); !r.Message.Ephemeral || !strings.Contains(r.Message.Content, "Games of <@"+alice+">") {
		t.Fatalf("own history in a DM: %q", r.Message.Content)
	}
}
