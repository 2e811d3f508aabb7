package game

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestTransformMatchesCells checks the bit tricks of Transform against
// moving cells one by one, on every board shape, and that each symmetry's
// Inverse undoes it and that the set is closed under composition.
func TestTransformMatchesCells(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for rows := MinSize; rows <= MaxSize; rows++ {
		for cols := MinSize; cols <= MaxSize; cols++ {
			r, err := NewRules(rows, cols, 3)
			if err != nil {
				t.Fatal(err)
			}
			want := 4
			if rows == cols {
				want = 8
			}
			if len(r.Symmetries()) != want {
				t.Fatalf("%s: %d symmetries, want %d", r, len(r.Symmetries()), want)
			}
			for range 50 {
				b := Bitboard(rng.Uint64()) & r.Board()
				for _, s := range r.Symmetries() {
					var slow Bitboard
					for c := b; c != 0; c &= c - 1 {
						slow = slow.With(r.TransformCell(s, c.First()))
					}
					fast := r.Transform(s, b)
					if fast != slow {
						t.Fatalf("%s sym %d of %x: bits %x, cells %x", r, s, b, fast, slow)
					}
					if fast&^r.Board() != 0 || fast.Count() != b.Count() {
						t.Fatalf("%s sym %d moved cells off the board", r, s)
					}
					if back := r.Transform(s.Inverse(), fast); back != b {
						t.Fatalf("%s sym %d: inverse %d gives %x, want %x", r, s, s.Inverse(), back, b)
					}
				}
			}
		}
	}
}

// TestSymmetryPreservesRules checks that every symmetry maps winning lines
// to winning lines, so symmetric positions really are equivalent.
func TestSymmetryPreservesRules(t *testing.T) {
	for _, rules := range []string{"3x3k3", "4x3xox", "5x4k4", "6x6k4", "8x5k5", "3x8k8"} {
		r := mustRules(t, rules)
		lines := map[Bitboard]bool{}
		for _, l := range r.Lines() {
			lines[l] = true
		}
		for _, s := range r.Symmetries() {
			for _, l := range r.Lines() {
				if !lines[r.Transform(s, l)] {
					t.Fatalf("%s: symmetry %d maps line %v off the set", rules, s, l.Cells())
				}
			}
		}
	}
}

func TestCanonical(t *testing.T) {
	r := Classic()
	// The eight images of a corner opening share one key.
	p := mustPosition(t, "3x3k3", "X--/---/---")
	k, _ := p.Canonical()
	for _, s := range r.Symmetries() {
		q := p.Transform(s)
		kq, sq := q.Canonical()
		if kq != k {
			t.Errorf("image %d (%s) has key %v, want %v", s, q, kq, k)
		}
		if got := q.Transform(sq).Key(); got != kq {
			t.Errorf("image %d: its symmetry gives %v, not its key %v", s, got, kq)
		}
	}
	// Positions that are not symmetric have different keys.
	a, _ := mustPosition(t, "3x3k3", "X--/---/---").Canonical()
	b, _ := mustPosition(t, "3x3k3", "-X-/---/---").Canonical()
	if a == b {
		t.Error("corner and edge openings share a key")
	}
}

func ExamplePosition_Canonical() {
	r, _ := ParseRules("3x3k3")
	a, _ := ParsePosition(r, "X--/---/-O-")
	b, _ := ParsePosition(r, "O--/---/--X")
	c, _ := ParsePosition(r, "--O/---/X--")
	ka, _ := a.Canonical()
	kb, _ := b.Canonical()
	kc, _ := c.Canonical()
	fmt.Println(ka == kb, kb == kc)
	// Output: false true
}

func BenchmarkCanonical(b *testing.B) {
	for _, rules := range []string{"3x3k3", "4x4k4", "8x8k5"} {
		b.Run(rules, func(b *testing.B) {
			r := mustRules(b, rules)
			p := NewPosition(r)
			for m := p.Moves(); m != 0 && p.Ply() < r.Size()/2; m &= m - 1 {
				m &= m - 1 // every other free cell
				if m != 0 && !p.Over() {
					p = p.Apply(m.First())
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				p.Canonical()
			}
		})
	}
}
