package persistence_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// TestMarkAssisted: marking works at any version, once (a second mark is a
// no-op that keeps the version), survives a reload, and is refused for a
// game that is not in play.
func TestMarkAssisted(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	g := persistence.Session{Rules: "3x3k3", Guild: "g1", Puzzle: "2026-11-24",
		Players: [2]persistence.Seat{{User: "u1"}, {AI: persistence.AI{Level: "perfect"}}}}
	s, err := e.store.CreateGame(ctx, "c1", g)
	if err != nil {
		t.Fatal(err)
	}
	if s.Puzzle != "2026-11-24" || s.Assisted != [2]bool{} {
		t.Fatalf("created %+v", s)
	}
	if s, err = e.store.Play(ctx, s.ID, s.Version, "u1", sessCell(0, 0)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		side     game.Mark
		want     [2]bool
		versions int64 // by how much the version moves
		err      error
	}{
		{"mark X", game.X, [2]bool{true, false}, 1, nil},
		{"mark X again", game.X, [2]bool{true, false}, 0, nil},
		{"mark O", game.O, [2]bool{true, true}, 1, nil},
		{"no side", game.Empty, [2]bool{}, 0, persistence.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := s.Version
			got, err := e.store.MarkAssisted(ctx, s.ID, tt.side)
			if !errors.Is(err, tt.err) {
				t.Fatalf("MarkAssisted: %v; want %v", err, tt.err)
			}
			if err != nil {
				return
			}
			if got.Assisted != tt.want || got.Version != before+tt.versions {
				t.Fatalf("assisted %v at version %d; want %v at %d", got.Assisted, got.Version, tt.want, before+tt.versions)
			}
			loaded, err := e.store.Game(ctx, s.ID)
			if err != nil || loaded.Assisted != tt.want || loaded.Puzzle != g.Puzzle || loaded.Version != got.Version {
				t.Fatalf("reloaded %+v, %v", loaded, err)
			}
			s = got
		})
	}
	if _, err := e.store.Resign(ctx, s.ID, 0, "u1"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.MarkAssisted(ctx, s.ID, game.X); !errors.Is(err, persistence.ErrNotLive) {
		t.Fatalf("after the game: %v; want ErrNotLive", err)
	}
	if _, err := e.store.MarkAssisted(ctx, "c1.nosuchgame", game.X); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("unknown game: %v; want ErrNotFound", err)
	}
}

// TestMarkAssistedConcurrent: marks racing moves and each other all land,
// and none fails with ErrConflict.
func TestMarkAssistedConcurrent(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	s, err := e.store.CreateGame(ctx, "c1", sessHumanGame("u1", "u2"))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			side := game.X
			if i%2 == 1 {
				side = game.O
			}
			if _, err := e.store.MarkAssisted(ctx, s.ID, side); err != nil {
				errs <- err
			}
		}()
	}
	wg.Add(1)
	go func() { // a move at the same time (a move is at a version: it may lose and retry)
		defer wg.Done()
		for {
			_, err := e.store.Play(ctx, s.ID, 0, "u1", sessCell(1, 1))
			if !errors.Is(err, persistence.ErrConflict) {
				if err != nil {
					errs <- err
				}
				return
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	got, err := e.store.Game(ctx, s.ID)
	if err != nil || got.Assisted != [2]bool{true, true} || len(got.Moves) != 1 {
		t.Fatalf("after the race: %+v, %v", got, err)
	}
	if got.Version != s.Version+3 {
		t.Errorf("version %d; want %d (one move and two marks)", got.Version, s.Version+3)
	}
}
