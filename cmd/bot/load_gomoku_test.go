package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/ai/gomoku"
	"github.com/tttbot/ttt-bot/bot"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/game/wide"
	"github.com/tttbot/ttt-bot/sched"
)

// The gomoku flood: BenchmarkFloodSpread's surge of people, each playing a
// 15x15 five-in-a-row game against the gomoku player. Those games are not
// on Discord yet, so the flood goes to the AI queue itself: a sched.Pool
// as serve makes it (the defaults: one worker on 2 cores, 5 s, 64 jobs a
// worker), each new game asking Admit and each computer move going
// through Do as bot.thinkAndPlay sends a heavy level's (class
// Interactive, one user a game, the guild's turn, the 250 ms patience), on
// a budget bent by the queue's pressure as the bot's loadOf bends the
// other levels' (whole up to 1 job waiting per worker, the floor from 4).
var (
	loadGomokuMoves  = flag.String("load.gomoku.moves", "", "BenchmarkFloodGomoku: the computer's moves each game brings, uniform over this range (default 5-10; 30-100 with -load.long)")
	loadGomokuBudget = flag.Duration("load.gomoku.budget", gomoku.DefaultBudget, "BenchmarkFloodGomoku: the gomoku player's budget a move with nothing waiting")
	loadGomokuFloor  = flag.Duration("load.gomoku.floor", 100*time.Millisecond, "BenchmarkFloodGomoku: its budget from 4 jobs waiting per worker")
)

// gomokuPatience is the bot's aiPatience: how long a reply waits for a
// worker before the person is answered first (the board with their move,
// the computer thinking).
const gomokuPatience = 250 * time.Millisecond

// The pressures (jobs waiting per worker) at which the budget starts to
// shrink and reaches its floor: bot's shrinkFrom and shrinkFull.
const (
	gomokuShrinkFrom = 1.0
	gomokuShrinkFull = 4.0
)

// gomokuBudget is the budget of a move started at pressure: budget up to
// gomokuShrinkFrom, floor from gomokuShrinkFull, in a straight line
// between (the bot's loadOf, and ai's budgets scaled by Options.Load).
func gomokuBudget(budget, floor time.Duration, pressure float64) time.Duration {
	if floor >= budget {
		return budget
	}
	var load float64
	switch {
	case pressure <= gomokuShrinkFrom:
		return budget
	case pressure >= gomokuShrinkFull:
		load = 1
	default:
		load = (pressure - gomokuShrinkFrom) / (gomokuShrinkFull - gomokuShrinkFrom)
	}
	return budget - time.Duration(float64(budget-floor)*load)
}

// gomokuFlood is the shape of one gomoku flood.
type gomokuFlood struct {
	games              int           // people arriving
	window             time.Duration // they arrive uniformly over it
	thinkMin, thinkMax time.Duration // a person's pause before each move
	movesMin, movesMax int           // the computer's moves a game brings
	budget, floor      time.Duration // the computer's budget a move, whole and at the floor
	seed               uint64
	pool               sched.Options
}

// gomokuResult is what a gomoku flood measured.
type gomokuResult struct {
	mu       sync.Mutex
	arrivals []arrivalOutcome
	told     toldWaits
	// latency is from a move's Do to the computer's move: what the
	// person waits for; waited the time in the queue (Start.Waited),
	// search the Move itself, budgets what each move was given.
	latency, waited, search, budgets []time.Duration
	human                            time.Duration // the people's moves, all told (outside the queue)
	interim                          int           // moves that waited past the patience
	restarts                         int           // games that ended before their moves and began again
	errs                             []string
	elapsed                          time.Duration
}

// runGomokuFlood plays f: every person arrives, asks Admit and, admitted,
// plays until the computer has made its moves (a game that ends first
// begins again from the next opening, as the person's next game).
func runGomokuFlood(ctx context.Context, f gomokuFlood) *gomokuResult {
	pool := sched.New(f.pool)
	r := &gomokuResult{}
	openings := gomoku.Openings(wide.Gomoku(), max(f.games, 1), f.seed)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range f.games {
		rng := rand.New(rand.NewPCG(f.seed, uint64(i)))
		at := time.Duration(rng.Int64N(int64(max(f.window, 1))))
		wg.Go(func() {
			if pause(ctx, at) != nil {
				return
			}
			r.play(ctx, pool, f, i, rng, openings, at)
		})
	}
	wg.Wait()
	r.elapsed = time.Since(start)
	return r
}

// play is person i's game, arrived at at.
func (r *gomokuResult) play(ctx context.Context, pool *sched.Pool, f gomokuFlood, i int, rng *rand.Rand, openings [][]wide.Cell, at time.Duration) {
	user := fmt.Sprintf("gomoku-%d", i)
	err := pool.Admit(sched.Interactive, user)
	r.mu.Lock()
	r.arrivals = append(r.arrivals, arrivalOutcome{at: at, refused: err != nil})
	if err != nil {
		r.told.add(err.Error())
	}
	r.mu.Unlock()
	if err != nil {
		return
	}
	moves := f.movesMin + rng.IntN(f.movesMax-f.movesMin+1)
	person := gomoku.New(gomoku.Options{Budget: time.Hour, MaxDepth: 2})
	next := i
	opening := func() wide.Position {
		p := wide.NewPosition(wide.Gomoku())
		for _, c := range openings[next%len(openings)] {
			p = p.Apply(c)
		}
		next += f.games
		return p
	}
	pos := opening()
	think := func() time.Duration {
		if f.thinkMax <= f.thinkMin {
			return f.thinkMin
		}
		return f.thinkMin + time.Duration(rng.Int64N(int64(f.thinkMax-f.thinkMin)))
	}
	for made := 0; made < moves; {
		if pause(ctx, think()) != nil {
			return
		}
		t0 := time.Now()
		pos = personMove(rng, person, pos)
		r.mu.Lock()
		r.human += time.Since(t0)
		r.mu.Unlock()
		if pos.Over() {
			pos = opening()
			r.mu.Lock()
			r.restarts++
			r.mu.Unlock()
			continue
		}
		// The computer's reply, as bot.thinkAndPlay sends it: Waiting
		// is where the bot answers the person first.
		var (
			cell         wide.Cell
			st           sched.Start
			budget, took time.Duration
			interim      bool
		)
		job := sched.Job{Class: sched.Interactive, Group: fmt.Sprint("guild-", i%loadGuilds), User: user,
			Patience: gomokuPatience, Waiting: func() { interim = true }}
		asked, before := time.Now(), pos
		err := pool.Do(ctx, job, func(ctx context.Context, s sched.Start) error {
			st = s
			budget = gomokuBudget(f.budget, f.floor, s.Pressure)
			timeout := bot.DefaultMoveTimeout // bot.aiTimeout
			if budget > timeout {
				timeout = budget + time.Second/2
			}
			mctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			m0 := time.Now()
			c, err := gomoku.New(gomoku.Options{Budget: budget}).Move(mctx, before)
			took, cell = time.Since(m0), c
			return err
		})
		latency := time.Since(asked)
		if err != nil {
			if ctx.Err() == nil {
				r.mu.Lock()
				r.errs = append(r.errs, fmt.Sprintf("%s: %v", user, err))
				r.mu.Unlock()
			}
			return
		}
		pos = pos.Apply(cell)
		made++
		r.mu.Lock()
		r.latency = append(r.latency, latency)
		r.waited = append(r.waited, st.Waited)
		r.search = append(r.search, took)
		r.budgets = append(r.budgets, budget)
		if interim {
			r.interim++
		}
		if pos.Over() {
			r.restarts++
		}
		r.mu.Unlock()
		if pos.Over() {
			pos = opening()
		}
	}
}

// personMove is a person's move in p: the depth-2 player's, or one time
// in ten a random free cell within two cells of a stone. (The computer
// wins in 10 to 20 of its moves against it; it takes 0.1 ms a move.)
func personMove(rng *rand.Rand, pl *gomoku.Player, p wide.Position) wide.Position {
	if rng.IntN(10) > 0 {
		if c, err := pl.Move(context.Background(), p); err == nil {
			return p.Apply(c)
		}
	}
	r := p.Rules()
	free := p.Moves().Cells()
	var near []wide.Cell
	for _, c := range free {
	search:
		for dr := -2; dr <= 2; dr++ {
			for dc := -2; dc <= 2; dc++ {
				row, col := c.Row()+dr, c.Col()+dc
				if row >= 0 && col >= 0 && row < r.Rows() && col < r.Cols() && p.At(wide.NewCell(row, col)) != game.Empty {
					near = append(near, c)
					break search
				}
			}
		}
	}
	if len(near) == 0 {
		near = free
	}
	return p.Apply(near[rng.IntN(len(near))])
}

// BenchmarkFloodGomoku plays the gomoku flood: people arriving uniformly
// over a window, each thinking 2-8 s a move, each game bringing 5-10
// computer moves (30-100 with -load.long) at a budget of 1 s bent down to
// 100 ms by the pressure. It reports the computer's move latency against
// the budget, the queue's waits, and the refusals overall and per
// 10-second slice of arrivals.
func BenchmarkFloodGomoku(b *testing.B) {
	if testing.Short() {
		b.Skip("load benchmark: skipped with -short")
	}
	users, window, lo, hi := spreadSettings(b, 24, 100)
	moves := "5-10"
	if *loadLong {
		moves = "30-100"
	}
	if *loadGomokuMoves != "" {
		moves = *loadGomokuMoves
	}
	mlo, mhi, err := parseIntRange(moves)
	if err != nil {
		b.Fatalf("-load.gomoku.moves: %v", err)
	}
	f := gomokuFlood{games: users, window: window, thinkMin: lo, thinkMax: hi, movesMin: mlo, movesMax: mhi,
		budget: *loadGomokuBudget, floor: *loadGomokuFloor, seed: loadSeed}
	b.Run(fmt.Sprintf("games=%d/window=%s/moves=%s/budget=%s", users, window, moves, f.budget), func(b *testing.B) {
		load0 := loadavg()
		var all gomokuResult
		for i := range b.N {
			f.seed = loadSeed + uint64(i)
			r := runGomokuFlood(context.Background(), f)
			all.arrivals = append(all.arrivals, r.arrivals...)
			all.told.estimates = append(all.told.estimates, r.told.estimates...)
			all.told.queueFull += r.told.queueFull
			all.told.other += r.told.other
			all.latency = append(all.latency, r.latency...)
			all.waited = append(all.waited, r.waited...)
			all.search = append(all.search, r.search...)
			all.budgets = append(all.budgets, r.budgets...)
			all.human += r.human
			all.interim += r.interim
			all.restarts += r.restarts
			all.errs = append(all.errs, r.errs...)
			all.elapsed += r.elapsed
		}
		reportGomoku(b, f, &all, load0, loadavg())
	})
}

// reportGomoku reports and logs a gomoku flood.
func reportGomoku(b *testing.B, f gomokuFlood, r *gomokuResult, load0, load1 string) {
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	ss := sliceArrivals(r.arrivals, spreadSlice)
	refused, worst := refusals(ss)
	b.ReportMetric(ms(quantile(r.latency, 0.5)), "move-p50-ms")
	b.ReportMetric(ms(quantile(r.latency, 0.99)), "move-p99-ms")
	b.ReportMetric(ms(quantile(r.latency, 1)), "move-max-ms")
	b.ReportMetric(ms(quantile(r.waited, 0.5)), "wait-p50-ms")
	b.ReportMetric(ms(quantile(r.waited, 0.99)), "wait-p99-ms")
	b.ReportMetric(ms(quantile(r.budgets, 0.5)), "budget-p50-ms")
	b.ReportMetric(100*refused, "refused-%")
	b.ReportMetric(100*worst, "refused-max-slice-%")
	b.ReportMetric(float64(len(r.latency)), "moves")
	if len(r.told.estimates) > 0 {
		b.ReportMetric(ms(quantile(r.told.estimates, 0.5)), "told-wait-p50-ms")
	}
	admitted := 0
	for _, a := range r.arrivals {
		if !a.refused {
			admitted++
		}
	}
	interim, floor := 0.0, 0.0
	var searched time.Duration
	for _, d := range r.search {
		searched += d
	}
	for _, d := range r.budgets {
		if d <= f.floor {
			floor++
		}
	}
	if len(r.latency) > 0 {
		interim = 100 * float64(r.interim) / float64(len(r.latency))
		floor = 100 * floor / float64(len(r.budgets))
	}
	mean := time.Duration(0)
	if len(r.search) > 0 {
		mean = searched / time.Duration(len(r.search))
	}
	busy := 0.0
	if r.elapsed > 0 {
		busy = 100 * searched.Seconds() / r.elapsed.Seconds() / float64(sched.DefaultWorkers())
	}
	b.ReportMetric(ms(mean), "search-mean-ms")
	b.ReportMetric(busy, "workers-busy-%")
	b.Logf("games=%d window=%s think=%s-%s moves=%d-%d budget=%s floor=%s, workers %d: %d admitted; %s; %s; "+
		"computer's move p50 %s p99 %s max %s over %d moves (budget given p50 %s, min %s, %.0f%% at the floor; search p50 %s p99 %s mean %s, the workers searching %.0f%% of the time); "+
		"queue wait p50 %s p99 %s max %s; %.0f%% of the moves waited past %s; %d games began again; people's moves %s of CPU; %s; load average %s -> %s",
		f.games, f.window, f.thinkMin, f.thinkMax, f.movesMin, f.movesMax, f.budget, f.floor, sched.DefaultWorkers(), admitted,
		refusalText(ss), r.told,
		round(quantile(r.latency, 0.5)), round(quantile(r.latency, 0.99)), round(quantile(r.latency, 1)), len(r.latency),
		round(quantile(r.budgets, 0.5)), round(quantile(r.budgets, 0)), floor, round(quantile(r.search, 0.5)), round(quantile(r.search, 0.99)), round(mean), busy,
		round(quantile(r.waited, 0.5)), round(quantile(r.waited, 0.99)), round(quantile(r.waited, 1)),
		interim, gomokuPatience, r.restarts, round(r.human), round(r.elapsed), load0, load1)
	for _, l := range sliceLines(ss) {
		fmt.Printf("    gomoku flood: %s\n", l)
	}
	for _, e := range r.errs {
		b.Errorf("gomoku flood: %s", e)
	}
}

func TestGomokuBudget(t *testing.T) {
	ms := time.Millisecond
	for _, tt := range []struct {
		pressure float64
		want     time.Duration
	}{{0, 1000 * ms}, {1, 1000 * ms}, {2.5, 550 * ms}, {4, 100 * ms}, {64, 100 * ms}} {
		if got := gomokuBudget(time.Second, 100*ms, tt.pressure); got != tt.want {
			t.Errorf("gomokuBudget(1s, 100ms, %g) = %s, want %s", tt.pressure, got, tt.want)
		}
	}
	if got := gomokuBudget(50*ms, 100*ms, 64); got != 50*ms {
		t.Errorf("a floor over the budget: %s, want the budget", got)
	}
}

// TestGomokuFloodSmoke runs a tiny gomoku flood in well under a second:
// every person is admitted (the queue is short) and every computer move
// is made and counted.
func TestGomokuFloodSmoke(t *testing.T) {
	f := gomokuFlood{games: 4, window: 20 * time.Millisecond, thinkMin: time.Millisecond, thinkMax: 2 * time.Millisecond,
		movesMin: 2, movesMax: 3, budget: 5 * time.Millisecond, floor: time.Millisecond, seed: 1,
		pool: sched.Options{Workers: 1, MaxWait: time.Hour}}
	r := runGomokuFlood(t.Context(), f)
	if len(r.errs) > 0 {
		t.Fatalf("errors: %v", r.errs)
	}
	if len(r.arrivals) != 4 || len(r.latency) < 8 || len(r.latency) > 12 || len(r.waited) != len(r.latency) {
		t.Fatalf("%d arrivals, %d moves (%d waits), want 4 and 8 to 12", len(r.arrivals), len(r.latency), len(r.waited))
	}
	for _, a := range r.arrivals {
		if a.refused || a.at >= f.window {
			t.Errorf("arrival %+v: want admitted within the window", a)
		}
	}
	for _, b := range r.budgets {
		if b < f.floor || b > f.budget {
			t.Errorf("a move given %s, outside %s-%s", b, f.floor, f.budget)
		}
	}
}
