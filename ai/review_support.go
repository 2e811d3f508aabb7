package ai

import (
	"context"
	"fmt"
	"time"

	"github.com/tttbot/ttt-bot/game"
)

// This file serves the post-game review (package ai/review), which solves
// every position of a game and must fall back to an estimate, rather than
// wait, where that takes too long.

// SolveWithin is Solve under a node budget, for callers that only need
// the plies of the best moves: it reports false, with no error, when
// finding the value of p and of every move in it takes more than maxNodes
// nodes of search (0 or less means no limit). Otherwise it returns what
// Solve returns, except that the plies of won and lost moves are searched
// only for the moves that keep p's value (Best); the others have Plies 0
// unless they end the game. That search has Solve's own bound, outside the
// budget. The search stops once the budget is spent, so a refusal costs a
// little more than maxNodes nodes; what it proved stays in the table.
// Whether p fits the budget depends only on p and on what the table holds
// (see Reset). Analysis.Nodes counts every node of the call. It fails
// with ctx's error if ctx ends the search.
func (s *Solver) SolveWithin(ctx context.Context, p game.Position, maxNodes int64) (Analysis, bool, error) {
	start := s.nodes
	a, ok, err := s.ValuesWithin(ctx, p, maxNodes)
	if !ok || err != nil || p.Over() {
		return a, ok, err
	}
	if a.Value != game.Draw {
		s.stop = newStopper(ctx) // no budget for the plies
		if err := s.keptPlies(ctx, p, &a); err != nil {
			return Analysis{}, false, fmt.Errorf("ai: solving %s: %w", p, err)
		}
		a.Nodes = s.nodes - start
	}
	sortMoves(a.Moves, p.ToMove())
	return a, true, nil
}

// keptPlies searches the plies of the moves of a, the analysis of p (won
// or lost), that keep its value, as Solve does for every move. It fails
// with ctx's cause if ctx ends the search.
func (s *Solver) keptPlies(ctx context.Context, p game.Position, a *Analysis) error {
	g := s.geom
	x, o, xtm := p.X(), p.O(), p.ToMove() == game.X
	dist := s.newDistSearch()
	seen := map[game.Key]int{}
	for i := range a.Moves {
		mv := &a.Moves[i]
		if mv.Value != a.Value || mv.Plies != 0 {
			continue
		}
		nx, no := play(x, o, xtm, mv.Cell)
		k, _ := g.canonical(nx, no)
		if n, ok := seen[k]; ok {
			mv.Plies = n
			continue
		}
		mv.Plies = dist.movePlies(nx, no, xtm, mv.Value == winOf(xtm), p.Empty().Count())
		seen[k] = mv.Plies
	}
	s.nodes += dist.nodes
	if s.stop.stopped {
		return context.Cause(ctx)
	}
	return nil
}

// ValuesWithin is SolveWithin without the plies of won and lost moves,
// which cost a search of their own: the value of p and of every move in
// it, in row-major order, each with Plies 0 unless it ends the game (1)
// or draws (the free cells, as in Solve). Best is set as in Solve.
func (s *Solver) ValuesWithin(ctx context.Context, p game.Position, maxNodes int64) (Analysis, bool, error) {
	if err := s.begin(ctx, p); err != nil {
		return Analysis{}, false, err
	}
	if p.Over() {
		return Analysis{Value: p.Outcome().Result}, true, nil
	}
	if maxNodes > 0 {
		// The stopper reads its clock every 1024 nodes; a clock that ticks
		// once a reading turns its deadline into a node budget. The stop
		// comes only once more than maxNodes nodes are spent, so whether p
		// fits depends on the node count alone, not on where the readings
		// fall.
		base := time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)
		var ticks int64
		s.stop.deadline = base.Add(time.Duration((maxNodes+1023)/1024 + 1))
		s.stop.now = func() time.Time {
			ticks++
			return base.Add(time.Duration(ticks))
		}
	}
	start := s.nodes
	over := func() bool { return s.stop.stopped || maxNodes > 0 && s.nodes-start > maxNodes }
	// The searches are Solve's, in its order, less the plies of won and
	// lost moves and with every move searched, symmetric or not.
	xtm := p.ToMove() == game.X
	root := s.value(p.X(), p.O(), xtm)
	moves := s.moveValues(p, root, false, over)
	if s.stop.stopped && ctx.Err() != nil {
		return Analysis{}, false, fmt.Errorf("ai: solving %s: %w", p, context.Cause(ctx))
	}
	if over() {
		return Analysis{}, false, nil
	}
	a := Analysis{Value: resultOf(root, xtm), Moves: moves, Nodes: s.nodes - start}
	a.Best = bestMoves(a.Moves, a.Value)
	return a, true, nil
}

// Reset empties the table, keeping its memory, so that what the solver
// does next no longer depends on what it solved before: a node budget
// (SolveWithin, ValuesWithin) then cuts at the same place every time.
func (s *Solver) Reset() { clear(s.table.slots) }
