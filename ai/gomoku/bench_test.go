package gomoku

import (
	"context"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game/wide"
)

// BenchmarkMove is the time of one move in a 15x15 middle game at a
// fixed depth, and the nodes it searched: the first position from ply 16
// of self-play at depth 2 (from the first balanced opening) in which
// neither side has a four or a win by fours.
func BenchmarkMove(b *testing.B) {
	p := middleGame(b, 16)
	for _, depth := range []int{2, 4, 6} {
		b.Run("depth="+string(rune('0'+depth)), func(b *testing.B) {
			pl := New(Options{Budget: time.Hour, MaxDepth: depth})
			var nodes int64
			for b.Loop() {
				if _, err := pl.Move(context.Background(), p); err != nil {
					b.Fatal(err)
				}
				nodes = pl.Stats().Nodes
			}
			b.ReportMetric(float64(nodes), "nodes")
		})
	}
}

// middleGame plays depth-2 self-play from Openings' first opening on
// 15x15 up to the first position from ply n with no four on the board and
// no win by fours for the side to move.
func middleGame(tb testing.TB, n int) wide.Position {
	tb.Helper()
	p := wide.NewPosition(wide.Gomoku())
	for _, c := range Openings(wide.Gomoku(), 1, 1)[0] {
		p = p.Apply(c)
	}
	pl := New(Options{Budget: time.Hour, MaxDepth: 2})
	for !p.Over() {
		if p.Ply() >= n {
			b := newBoard(p)
			s := &search{b: b, vcfFail: map[uint64]struct{}{}}
			if _, vcf := s.vcf(sideOf(p.ToMove()), 24); b.fours == [2]int{} && !vcf {
				return p
			}
		}
		c, err := pl.Move(context.Background(), p)
		if err != nil {
			tb.Fatal(err)
		}
		p = p.Apply(c)
	}
	tb.Fatalf("the game ended at ply %d", p.Ply())
	return p
}
