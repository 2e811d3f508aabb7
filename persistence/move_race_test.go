package persistence_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

// TestRacingClicks plays 1,000 games in which two clicks race on the same
// board, from many goroutines, through one Store and through two
// independent Stores (two clients, as two bot processes): in every race
// exactly one move is applied and the other click gets ErrConflict, and
// every game reloads intact.
func TestRacingClicks(t *testing.T) {
	const games, workers = 1000, 64
	e := newSessEnv(t, persistence.Options{})
	other := persistence.New(redistest.Client(t, e.srv), persistence.Options{Now: e.clk.Now})
	uncached := persistence.New(e.rdb, persistence.Options{Now: e.clk.Now, SessionCache: -1, MaxPipelines: 1})
	for _, tt := range []struct {
		name string
		a, b *persistence.Store
	}{
		{"one store", e.store, e.store},
		{"two stores", e.store, other},
		{"one store without the session cache", uncached, uncached},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := sessCtx(t)
			ids := make([]persistence.GameID, games)
			for i := range ids {
				g, err := tt.a.CreateGame(ctx, fmt.Sprintf("ch%d", i%50), sessHumanGame(fmt.Sprintf("%sx%d", tt.name, i), fmt.Sprintf("%so%d", tt.name, i)))
				if err != nil {
					t.Fatal(err)
				}
				ids[i] = g.ID
			}
			type outcome struct {
				wins, conflicts int
				cell            game.Cell
				err             error
			}
			results := make([]outcome, games)
			jobs := make(chan int)
			var wg sync.WaitGroup
			for range workers {
				wg.Go(func() {
					for i := range jobs {
						// Two clicks on version 1: different cells, sent together.
						cells := [2]game.Cell{sessCell(1, 1), sessCell(i%3, 0)}
						stores := [2]*persistence.Store{tt.a, tt.b}
						errs := make([]error, 2)
						start := make(chan struct{})
						var race sync.WaitGroup
						for k := range 2 {
							race.Go(func() {
								<-start
								_, errs[k] = stores[k].Play(ctx, ids[i], 1, fmt.Sprintf("%sx%d", tt.name, i), cells[k])
							})
						}
						close(start)
						race.Wait()
						r := &results[i]
						for k, err := range errs {
							switch {
							case err == nil:
								r.wins++
								r.cell = cells[k]
							case errors.Is(err, persistence.ErrConflict):
								r.conflicts++
							default:
								r.err = err
							}
						}
					}
				})
			}
			for i := range games {
				jobs <- i
			}
			close(jobs)
			wg.Wait()

			for i, r := range results {
				if r.err != nil || r.wins != 1 || r.conflicts != 1 {
					t.Fatalf("game %d: %d applied, %d conflicts, error %v; want exactly one of each", i, r.wins, r.conflicts, r.err)
				}
				g, err := tt.a.Game(ctx, ids[i])
				if err != nil {
					t.Fatalf("game %d reload: %v", i, err)
				}
				if g.Version != 2 || len(g.Moves) != 1 || g.Moves[0] != r.cell || g.Status != persistence.StatusActive {
					t.Fatalf("game %d reloaded as version %d, moves %v, status %v; the applied move was %v", i, g.Version, g.Moves, g.Status, r.cell)
				}
			}
		})
	}
}
