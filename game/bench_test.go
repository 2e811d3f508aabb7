package game

import "testing"

// BenchmarkPlayout plays whole games by always taking the first free cell:
// the cost of Apply with its incremental outcome check.
func BenchmarkPlayout(b *testing.B) {
	for _, rules := range []string{"3x3k3", "4x3xox", "5x5k4", "8x8k5"} {
		b.Run(rules, func(b *testing.B) {
			start := NewPosition(mustRules(b, rules))
			b.ReportAllocs()
			for b.Loop() {
				p := start
				for !p.Over() {
					p = p.Apply(p.Moves().First())
				}
			}
		})
	}
}

func BenchmarkThreats(b *testing.B) {
	for _, tt := range []struct{ rules, pos string }{
		{"3x3k3", "X-O/-X-/---"},
		{"5x5k4", "X---O/-X---/--X--/-O---/O----"},
		{"4x3xox", "X--/-O-/---/---"},
	} {
		b.Run(tt.rules, func(b *testing.B) {
			p := mustPosition(b, tt.rules, tt.pos)
			b.ReportAllocs()
			for b.Loop() {
				p.Threats(X)
			}
		})
	}
}
