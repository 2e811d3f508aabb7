package nn

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/tttbot/ttt-bot/game"
)

func TestSet(t *testing.T) {
	s := NewSet()
	r := game.Classic()
	if s.Net(r) != nil || len(s.Rules()) != 0 {
		t.Fatal("new set is not empty")
	}
	if _, ok := s.Meta(r); ok {
		t.Fatal("new set has metadata")
	}
	a := mustNet(t, "3x3k3", []int{4}, 1)
	b := mustNet(t, "3x3k3", []int{4}, 2)
	x := mustNet(t, "4x3xox", []int{4}, 3)
	s.Put(a, Meta{Version: "a", Rules: "bogus"})
	s.Put(x, Meta{Version: "x"})
	s.Put(nil, Meta{Version: "ignored"})
	if s.Net(r) != a {
		t.Error("Net did not return the network put")
	}
	if m, ok := s.Meta(r); !ok || m.Version != "a" || m.Rules != "3x3k3" || !slices.Equal(m.Arch.Hidden, []int{4}) {
		t.Errorf("Meta = %+v, %v", m, ok)
	}
	s.Put(b, Meta{Version: "b"})
	if s.Net(r) != b {
		t.Error("Put did not replace the network")
	}
	if got := s.Rules(); !slices.Equal(got, []string{"3x3k3", "4x3xox"}) {
		t.Errorf("Rules = %v", got)
	}
	// Equal rules built separately find the same network.
	r2, _ := game.ParseRules(" 3X3K3 ")
	if s.Net(r2) != b {
		t.Error("lookup by equal rules failed")
	}
	if allocs := testing.AllocsPerRun(100, func() { s.Net(r) }); allocs != 0 {
		t.Errorf("Net allocates %g times", allocs)
	}
}

func TestSetConcurrent(t *testing.T) {
	s := NewSet()
	r := game.Classic()
	nets := []*Net{mustNet(t, "3x3k3", []int{8}, 1), mustNet(t, "3x3k3", []int{16, 8}, 2)}
	s.Put(nets[0], Meta{Version: "0"})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 0))
			var out Output
			for range 500 {
				n := s.Net(r)
				p := randomPosition(r, rng)
				n.Evaluate(p, &out)
				if !p.Over() && !p.Moves().Has(n.Best(p)) {
					t.Error("illegal best move")
					return
				}
				s.Meta(r)
				s.Rules()
			}
		})
	}
	wg.Go(func() {
		for i := range 200 {
			s.Put(nets[i%2], Meta{Version: "v"})
		}
	})
	wg.Wait()
}

func TestNilSet(t *testing.T) {
	var s *Set
	if s.Net(game.Classic()) != nil || len(s.Rules()) != 0 {
		t.Error("a nil set has networks")
	}
	if _, ok := s.Meta(game.Classic()); ok {
		t.Error("a nil set has metadata")
	}
}
