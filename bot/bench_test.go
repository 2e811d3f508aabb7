package bot_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/redis/go-redis/v9"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/bot"
	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/metrics"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

// benchDiscord is the Discord of the handler benchmark: it marshals every
// message to JSON, the bytes Discord would receive, and returns at once.
// The first response of each interaction is kept for the player who sent
// it, who reads the board's buttons from it as a client would.
type benchDiscord struct {
	bytes     atomic.Int64
	responses sync.Map // interaction ID -> *discordgo.InteractionResponse
}

func (d *benchDiscord) send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	d.bytes.Add(int64(len(b)))
}

func (d *benchDiscord) InteractionRespond(i *discordgo.Interaction, resp *discordgo.InteractionResponse, _ ...discordgo.RequestOption) error {
	d.send(resp)
	d.responses.Store(i.ID, resp)
	return nil
}

func (d *benchDiscord) InteractionResponseEdit(i *discordgo.Interaction, e *discordgo.WebhookEdit, _ ...discordgo.RequestOption) (*discordgo.Message, error) {
	d.send(e)
	return &discordgo.Message{ID: "9" + i.ID, ChannelID: i.ChannelID}, nil
}

func (d *benchDiscord) FollowupMessageCreate(i *discordgo.Interaction, _ bool, p *discordgo.WebhookParams, _ ...discordgo.RequestOption) (*discordgo.Message, error) {
	d.send(p)
	return &discordgo.Message{ID: "8" + i.ID, ChannelID: i.ChannelID}, nil
}

func (d *benchDiscord) ApplicationCommandBulkOverwrite(_, _ string, cmds []*discordgo.ApplicationCommand, _ ...discordgo.RequestOption) ([]*discordgo.ApplicationCommand, error) {
	d.send(cmds)
	return cmds, nil
}

func (d *benchDiscord) ChannelMessageEditComplex(m *discordgo.MessageEdit, _ ...discordgo.RequestOption) (*discordgo.Message, error) {
	d.send(m)
	return &discordgo.Message{ID: m.ID, ChannelID: m.Channel}, nil
}

func (d *benchDiscord) ChannelMessageSendComplex(channel string, m *discordgo.MessageSend, _ ...discordgo.RequestOption) (*discordgo.Message, error) {
	d.send(m)
	return &discordgo.Message{ID: "9" + channel, ChannelID: channel}, nil
}

// benchPlayer is one user playing vs-ai games, one at a time, in their own
// channel.
type benchPlayer struct {
	user, channel string
	board         string   // the message ID of the board
	free          []string // custom IDs of the free cells on the board
	rng           *rand.Rand
}

// benchRig is a Bot on a private Redis with a player per game.
type benchRig struct {
	b      *bot.Bot
	store  *persistence.Store
	dc     *benchDiscord
	signer *customid.Signer
	nextID atomic.Int64
	trips  roundTrips
}

// roundTrips counts the round trips to Redis: a command, or a pipeline
// or transaction of them.
type roundTrips struct{ n atomic.Int64 }

func (*roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

func (r *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		r.n.Add(1)
		return next(ctx, cmd)
	}
}

func (r *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		r.n.Add(1)
		return next(ctx, cmds)
	}
}

// newBenchRig builds a Bot with the AI levels of levels and the networks
// of models (nil for none) on a private Redis.
func newBenchRig(b *testing.B, levels *ai.Registry, models *nn.Set) *benchRig {
	b.Helper()
	rdb := redistest.Client(b, redistest.Start(b))
	r := &benchRig{dc: &benchDiscord{}}
	rdb.AddHook(&r.trips)
	store := persistence.New(rdb, persistence.Options{})
	cat, err := i18n.NewCatalog()
	if err != nil {
		b.Fatal(err)
	}
	signer, err := customid.NewSigner([]byte("bench-test-custom-id-key-0123456"))
	if err != nil {
		b.Fatal(err)
	}
	bt, err := bot.New(bot.Deps{Discord: r.dc, Store: store, Levels: levels, Catalog: cat, Signer: signer,
		Logger: slog.New(slog.DiscardHandler), AppID: "1", Models: models},
		// The players click at machine speed: a rate-limit bucket that never
		// runs out keeps its check (and round trip) in what is measured.
		bot.Options{Metrics: metrics.New(metrics.NewRegistry()), RateBurst: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	r.b, r.store, r.signer = bt, store, signer
	r.nextID.Store(1_000_000_000)
	return r
}

func (r *benchRig) id() string { return strconv.FormatInt(r.nextID.Add(1), 10) }

// handle sends one interaction through the whole handler and returns its
// first response.
func (r *benchRig) handle(b *testing.B, i *discordgo.Interaction) *discordgo.InteractionResponse {
	r.b.HandleInteraction(context.Background(), &discordgo.InteractionCreate{Interaction: i})
	resp, ok := r.dc.responses.LoadAndDelete(i.ID)
	if !ok {
		b.Fatalf("interaction %s (%s) was not answered", i.ID, i.Type)
	}
	return resp.(*discordgo.InteractionResponse)
}

// newGame starts /ttt vs-ai level:<level> first:me for p on the default
// board (3x3k3).
func (r *benchRig) newGame(b *testing.B, p *benchPlayer, level string) {
	i := &discordgo.Interaction{
		ID: r.id(), Type: discordgo.InteractionApplicationCommand, ChannelID: p.channel, GuildID: "42",
		Locale: discordgo.EnglishUS, Member: &discordgo.Member{User: &discordgo.User{ID: p.user}},
		Data: discordgo.ApplicationCommandInteractionData{Name: command.Name, Options: []*discordgo.ApplicationCommandInteractionDataOption{{
			Name: command.SubVsAI, Type: discordgo.ApplicationCommandOptionSubCommand,
			Options: []*discordgo.ApplicationCommandInteractionDataOption{
				{Name: "level", Type: discordgo.ApplicationCommandOptionString, Value: level},
				{Name: "first", Type: discordgo.ApplicationCommandOptionString, Value: "me"},
			},
		}}},
	}
	r.read(b, p, r.handle(b, i), "9"+i.ID)
}

// click plays a random free cell of p's board and reports whether the
// game goes on.
func (r *benchRig) click(b *testing.B, p *benchPlayer) bool {
	i := &discordgo.Interaction{
		ID: r.id(), Type: discordgo.InteractionMessageComponent, ChannelID: p.channel, GuildID: "42",
		Locale: discordgo.EnglishUS, Member: &discordgo.Member{User: &discordgo.User{ID: p.user}},
		Message: &discordgo.Message{ID: p.board, ChannelID: p.channel},
		Data: discordgo.MessageComponentInteractionData{
			CustomID: p.free[p.rng.IntN(len(p.free))], ComponentType: discordgo.ButtonComponent,
		},
	}
	return r.read(b, p, r.handle(b, i), p.board)
}

// read takes the free cells from a board response and reports whether
// there are any.
func (r *benchRig) read(b *testing.B, p *benchPlayer, resp *discordgo.InteractionResponse, board string) bool {
	if resp.Data == nil || resp.Data.Flags&discordgo.MessageFlagsEphemeral != 0 {
		b.Fatalf("player %s got a reply instead of a board: %+v", p.user, resp.Data)
	}
	p.board, p.free = board, p.free[:0]
	for _, c := range resp.Data.Components {
		row, ok := c.(discordgo.ActionsRow)
		if !ok {
			continue
		}
		for _, c := range row.Components {
			if bt, ok := c.(discordgo.Button); ok && !bt.Disabled {
				if id, err := r.signer.Decode(bt.CustomID); err == nil && id.Action == customid.ActionMove {
					p.free = append(p.free, bt.CustomID)
				}
			}
		}
	}
	return len(p.free) > 0
}

var benchRun atomic.Int64 // keeps the channels of successive runs apart

// BenchmarkHandleClick measures button clicks through the whole handler:
// a click on a cell of a vs-ai game (level easy) goes in, the Bot loads the
// game from a real Redis, plays the move and the AI's reply, saves, renders
// and answers, and the answer is marshalled to JSON. One goroutine per game
// clicks as fast as its answers come back; a game that ends is replaced by
// a new one (that /ttt vs-ai is timed and counted too). Reported: handled
// interactions per second and the p50 and p99 latency of one interaction.
//
// clients is how many interactions are in flight at once, each in a game
// nobody else is clicking in: with one client per game (a closed loop, every
// user clicking again the moment the board comes back) the latency is
// queueing, games/throughput by Little's law; with fewer clients than games
// it is close to the handler's own time while all the games stay live.
func BenchmarkHandleClick(b *testing.B) {
	rig := newBenchRig(b, ai.NewRegistry(), nil)
	for _, tc := range []struct{ games, clients int }{{1, 1}, {64, 64}, {1000, 1000}, {1000, 8}} {
		b.Run("games="+strconv.Itoa(tc.games)+"/clients="+strconv.Itoa(tc.clients), func(b *testing.B) {
			pool := rig.players(b, tc.games, "easy")
			trips0, bytes0 := rig.trips.n.Load(), rig.dc.bytes.Load()
			all, elapsed := rig.clicks(b, pool, tc.clients, "easy")
			b.ReportMetric(float64(len(all))/elapsed.Seconds(), "interactions/s")
			b.ReportMetric(pct(all, 0.50).Seconds()*1e3, "p50-ms")
			b.ReportMetric(pct(all, 0.99).Seconds()*1e3, "p99-ms")
			b.ReportMetric(float64(rig.trips.n.Load()-trips0)/float64(len(all)), "redis-trips/interaction")
			b.ReportMetric(float64(rig.dc.bytes.Load()-bytes0)/float64(len(all)), "json-B/interaction")
		})
	}
}

// players starts games vs-ai games against level, one player each, and
// returns them in a pool.
func (r *benchRig) players(b *testing.B, games int, level string) chan *benchPlayer {
	run := benchRun.Add(1)
	pool := make(chan *benchPlayer, games)
	for g := range games {
		p := &benchPlayer{
			user:    strconv.Itoa(500_000 + g),
			channel: strconv.FormatInt(run*1_000_000+int64(g), 10),
			rng:     rand.New(rand.NewPCG(uint64(run), uint64(g))),
		}
		r.newGame(b, p, level)
		pool <- p
	}
	return pool
}

// clicks times b.N interactions, clients at a time, each in a game of pool
// nobody else is clicking in right now: a click, and for a game that ends
// the /ttt vs-ai against level that replaces it. It returns their
// latencies, sorted, and the time they took; b's timer runs only meanwhile.
func (r *benchRig) clicks(b *testing.B, pool chan *benchPlayer, clients int, level string) ([]time.Duration, time.Duration) {
	var left atomic.Int64
	left.Store(int64(b.N))
	lat := make([][]time.Duration, clients)
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for w := range clients {
		wg.Go(func() {
			mine := make([]time.Duration, 0, b.N/clients+1)
			for left.Add(-1) >= 0 {
				p := <-pool
				t0 := time.Now()
				live := r.click(b, p)
				mine = append(mine, time.Since(t0))
				if !live { // the game is over: the user starts the next one
					t0 = time.Now()
					r.newGame(b, p, level)
					mine = append(mine, time.Since(t0))
				}
				pool <- p
			}
			lat[w] = mine
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	all := slices.Concat(lat...)
	slices.Sort(all)
	return all, elapsed
}

// pct returns the p-quantile of sorted durations.
func pct(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
}
