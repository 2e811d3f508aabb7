package game

import (
	"testing"
)

// walk visits every position reachable from p by legal play, each once,
// calling visit with it. seen is keyed on the position's key.
func walk(p Position, seen map[Key]struct{}, visit func(Position)) {
	if _, ok := seen[p.Key()]; ok {
		return
	}
	seen[p.Key()] = struct{}{}
	visit(p)
	for m := p.Moves(); m != 0; m &= m - 1 {
		walk(p.Apply(m.First()), seen, visit)
	}
}

// games counts complete games (move sequences to the end) from p, by result.
func games(p Position, counts *[4]int) {
	if p.Over() {
		counts[p.Outcome().Result]++
		return
	}
	for m := p.Moves(); m != 0; m &= m - 1 {
		games(p.Apply(m.First()), counts)
	}
}

func TestPerftClassic(t *testing.T) {
	seen := map[Key]struct{}{}
	canon := map[Key]struct{}{}
	terminal := 0
	walk(NewPosition(Classic()), seen, func(p Position) {
		k, _ := p.Canonical()
		canon[k] = struct{}{}
		if p.Over() {
			terminal++
		}
	})
	if got := len(seen); got != 5478 {
		t.Errorf("reachable positions = %d, want 5478", got)
	}
	if got := len(canon); got != 765 {
		t.Errorf("positions up to symmetry = %d, want 765", got)
	}
	if terminal != 958 {
		t.Errorf("terminal positions = %d, want 958", terminal)
	}
	var c [4]int
	games(NewPosition(Classic()), &c)
	total := c[XWins] + c[OWins] + c[Draw]
	if total != 255168 || c[XWins] != 131184 || c[OWins] != 77904 || c[Draw] != 46080 {
		t.Errorf("games = %d (X %d, O %d, draw %d), want 255168 (X 131184, O 77904, draw 46080)",
			total, c[XWins], c[OWins], c[Draw])
	}
}

// set is an open-addressing hash set of non-zero uint64 keys, for counting
// millions of positions without the memory of a map.
type set struct {
	slots []uint64
	n     int
}

func newSet(bits uint) *set { return &set{slots: make([]uint64, 1<<bits)} }

// add inserts k (non-zero) and reports whether it was new.
func (s *set) add(k uint64) bool {
	mask := uint64(len(s.slots) - 1)
	for i := (k * 0x9E3779B97F4A7C15) >> 20 & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case k:
			return false
		case 0:
			s.slots[i] = k
			s.n++
			return true
		}
	}
}

func TestPerft4x4k4(t *testing.T) {
	if testing.Short() {
		t.Skip("9.7 million positions; run without -short")
	}
	r, err := ParseRules("4x4k4")
	if err != nil {
		t.Fatal(err)
	}
	// A 4x4 board uses bits 0..27, so X and O pack into one word; the
	// empty board packs to 0, so keys are offset by one bit.
	pack := func(k Key) uint64 { return uint64(k.X) | uint64(k.O)<<28 | 1<<63 }
	seen, canon := newSet(25), newSet(22)
	var rec func(p Position)
	rec = func(p Position) {
		if !seen.add(pack(p.Key())) {
			return
		}
		k, _ := p.Canonical()
		canon.add(pack(k))
		for m := p.Moves(); m != 0; m &= m - 1 {
			rec(p.Apply(m.First()))
		}
	}
	rec(NewPosition(r))
	if seen.n != 9722011 {
		t.Errorf("reachable positions = %d, want 9722011", seen.n)
	}
	if canon.n != 1217977 {
		t.Errorf("positions up to symmetry = %d, want 1217977", canon.n)
	}
}
