package gomoku

import (
	"context"
	"math"
	"time"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/game/wide"
)

// MaxFoursDepth is how many of the attacker's fours WinByFours looks
// through: a win by fours longer than that is not found (never claimed).
const MaxFoursDepth = 12

// WinByFours looks for a forced win by continuous fours (VCF) for the
// side to move in p: each of its moves makes a four (or wins), so each of
// the opponent's replies is forced, until a move wins or makes two fours.
// It returns the line, the attacker's moves and the forced blocks in turn,
// ending with the winning move or the double four. It is sound: a line
// it returns wins against any defence (a block that makes a four for the
// defender ends a line unproved). It looks through at most depth of the
// attacker's moves (at most MaxFoursDepth).
func WinByFours(p wide.Position, depth int) ([]wide.Cell, bool) {
	if p.Over() || depth <= 0 {
		return nil, false
	}
	depth = min(depth, MaxFoursDepth)
	b := newBoard(p)
	s := &search{b: b, vcfFail: map[uint64]struct{}{}}
	me := sideOf(p.ToMove())
	var line []wide.Cell
	var wbuf [256]wide.Cell
	for d := depth; d > 0; d-- {
		if now := b.winCells(me, wbuf[:0]); len(now) > 0 {
			return append(line, now[0]), true // a win at once
		}
		c, ok := s.vcf(me, d)
		if !ok {
			return nil, false // cannot happen after the first step: vcf is deterministic
		}
		line = append(line, c)
		b.place(c, me)
		if b.wins(c, me) {
			return line, true
		}
		wins := b.winCells(me, wbuf[:0])
		if len(wins) >= 2 {
			return line, true // a double four: one is blocked, the other wins
		}
		block := wins[0]
		line = append(line, block)
		b.place(block, 1-me)
	}
	return nil, false
}

// Verdict is a review's judgement of a move on a wide board. Only wins
// by fours are proved; everything else is the search's estimate.
type Verdict uint8

// The verdicts.
const (
	// Estimated: nothing proved about the move; see its Score.
	Estimated Verdict = iota
	// Winning: the move wins, or keeps a win by fours the mover had.
	Winning
	// MissedWin: the mover had a win by fours and the move lets it go.
	MissedWin
	// Losing: after the move the opponent has a win by fours it did not
	// have the move before (the mover had none).
	Losing
)

// String returns the verdict's name.
func (v Verdict) String() string {
	switch v {
	case Winning:
		return "winning"
	case MissedWin:
		return "missed_win"
	case Losing:
		return "losing"
	}
	return "estimated"
}

// ReviewMove is one move of a reviewed game.
type ReviewMove struct {
	// Ply is the move's 1-based number.
	Ply int
	// Cell is the move and Mover who played it.
	Cell  wide.Cell
	Mover game.Mark
	// Verdict judges it.
	Verdict Verdict
	// Line is the proof behind a verdict: the mover's win by fours before
	// the move (Winning, MissedWin), or the opponent's after it (Losing).
	Line []wide.Cell
	// Score is X's expected score after the move, in [0, 1], from the
	// search's evaluation (1 or 0 once a side has a win by fours).
	Score float64
}

// Review is the review of a game on a wide board.
type Review struct {
	Rules wide.Rules
	Moves []ReviewMove
	// Decided is the index of the first move after which the winner had a
	// win by fours that they kept to the end, or -1.
	Decided int
}

// ReviewGame reviews moves played from the empty board of rules: every
// position is searched for a win by fours for the side to move (exact),
// and, where there is none, valued by the search within budget per move
// (an estimate).
func ReviewGame(ctx context.Context, rules wide.Rules, moves []wide.Cell, budget time.Duration) (*Review, error) {
	rec, err := wide.NewRecord(wide.NewPosition(rules), moves)
	if err != nil {
		return nil, err
	}
	rv := &Review{Rules: rules, Decided: -1}
	p := rec.Start
	// wins[i] is the side to move's win by fours at ply i, if any.
	wins := make([][]wide.Cell, len(moves)+1)
	q := p
	for i := range len(moves) + 1 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if line, ok := WinByFours(q, MaxFoursDepth); ok {
			wins[i] = line
		}
		if i < len(moves) {
			q = q.Apply(moves[i])
		}
	}
	for i, c := range moves {
		m := ReviewMove{Ply: i + 1, Cell: c, Mover: p.ToMove()}
		after := p.Apply(c)
		switch {
		case after.Over() && after.Outcome().Result != game.Draw:
			m.Verdict, m.Line = Winning, []wide.Cell{c}
		case wins[i] != nil:
			if kept, ok := keepsFours(p, c, wins[i]); ok {
				m.Verdict, m.Line = Winning, kept
				break
			}
			m.Verdict, m.Line = MissedWin, wins[i]
		case wins[i+1] != nil && !(i > 0 && rv.Moves[i-1].Verdict == Winning):
			// Not when the opponent's last move already held a win by
			// fours: the game was lost before this move.
			m.Verdict, m.Line = Losing, wins[i+1]
		}
		switch {
		case m.Verdict == Winning:
			m.Score = winScoreFor(m.Mover)
		case wins[i+1] != nil:
			m.Score = winScoreFor(m.Mover.Other())
		default:
			m.Score = scoreOf(ctx, after, budget)
		}
		rv.Moves = append(rv.Moves, m)
		p = after
	}
	// The game was decided where the winner's win by fours began: walk
	// back over the winner's moves that kept one, and take the loser's
	// move before them if it let that win in.
	if res := p.Outcome().Result; (res == game.XWins || res == game.OWins) && len(rv.Moves) > 0 {
		i := len(rv.Moves) - 1
		for i >= 2 && rv.Moves[i-2].Verdict == Winning {
			i -= 2
		}
		if i >= 1 && rv.Moves[i-1].Verdict == Losing {
			i--
		}
		if rv.Moves[i].Verdict == Winning || rv.Moves[i].Verdict == Losing {
			rv.Decided = i
		}
	}
	return rv, nil
}

// keepsFours reports whether move c, in p where the side to move has the
// win by fours line, keeps a forced win by fours, and returns the line it
// plays: c wins, or it makes a four whose one forced block (not a win or
// a four for the defender) leaves the mover another win by fours, or it
// makes two fours (c need not be the line's own first move).
func keepsFours(p wide.Position, c wide.Cell, line []wide.Cell) ([]wide.Cell, bool) {
	if c == line[0] {
		return line, true
	}
	after := p.Apply(c)
	if after.Over() {
		return []wide.Cell{c}, after.Outcome().Result != game.Draw
	}
	me := sideOf(p.ToMove())
	var buf [256]wide.Cell
	fours := newBoard(after).winCells(me, buf[:0])
	switch len(fours) {
	case 0:
		return nil, false
	case 1:
		blocked := after.Apply(fours[0])
		if blocked.Over() {
			return nil, false
		}
		var obuf [256]wide.Cell
		if len(newBoard(blocked).winCells(1-me, obuf[:0])) > 0 {
			return nil, false // the block makes a four: not proved here
		}
		rest, ok := WinByFours(blocked, MaxFoursDepth)
		return append([]wide.Cell{c, fours[0]}, rest...), ok
	}
	return []wide.Cell{c}, true // two fours: the defender blocks one, the other wins
}

// winScoreFor is X's score when m wins.
func winScoreFor(m game.Mark) float64 {
	if m == game.X {
		return 1
	}
	return 0
}

// scoreOf is X's expected score in the position after a move: exact when
// it is over, else the search's evaluation for the side to move, squashed
// into [0, 1].
func scoreOf(ctx context.Context, p wide.Position, budget time.Duration) float64 {
	xScore := func(forMover float64) float64 {
		if p.ToMove() == game.X {
			return forMover
		}
		return 1 - forMover
	}
	switch {
	case p.Over():
		switch p.Outcome().Result {
		case game.XWins:
			return 1
		case game.OWins:
			return 0
		}
		return 0.5
	}
	pl := New(Options{Budget: budget, MaxDepth: 4})
	if _, err := pl.Move(ctx, p); err != nil {
		return 0.5
	}
	return xScore(1 / (1 + math.Exp(-float64(pl.Stats().Score)/evalScale)))
}

// evalScale turns an evaluation into odds: a score of evalScale is about
// 73% for the side to move.
const evalScale = 2000
