package train

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/game"
)

// gamesBy returns n games of two moves each, X by x and O by o, both
// human, replayed under 3x3k3.
func gamesBy(t *testing.T, n int, x, o string) []replayed {
	t.Helper()
	r := mustRules(t, "3x3k3")
	var gs []Game
	for range n {
		gs = append(gs, Game{Moves: []game.Cell{game.NewCell(1, 1), game.NewCell(0, 0)}, Human: [2]bool{true, true}, Players: [2]string{x, o}})
	}
	return replay(r, gs)
}

func TestPlayerFactors(t *testing.T) {
	one := func(Game) float64 { return 1 }
	tests := []struct {
		name     string
		share    float64
		games    [][]replayed
		bounded  int
		maxShare float64 // the largest share after the factors
	}{
		{"many even players: nobody bounded", 0.05, func() [][]replayed {
			var out [][]replayed
			for i := range 30 {
				out = append(out, gamesBy(t, 10, string(rune('a'+i)), string(rune('A'+i))))
			}
			return out
		}(), 0, 1.0 / 60},
		{"two floods among 40 players", 0.05, func() [][]replayed {
			out := [][]replayed{gamesBy(t, 3000, "troll1", "troll2")}
			for i := range 20 {
				out = append(out, gamesBy(t, 10, string(rune('a'+i)), string(rune('A'+i))))
			}
			return out
		}(), 2, 0.05},
		{"small server: at most 2/n each", 0.05, [][]replayed{gamesBy(t, 100, "big", "small"), gamesBy(t, 10, "small", "other"), gamesBy(t, 10, "d", "e")}, 2, 0.4},
		{"small server, one flood", 0.05, [][]replayed{gamesBy(t, 1000, "big", "x"), gamesBy(t, 10, "a", "b"), gamesBy(t, 10, "c", "d"), gamesBy(t, 10, "e", "f"), gamesBy(t, 10, "g", "h"), gamesBy(t, 10, "i", "j")}, 2, 2.0 / 12},
		{"no bound", -1, [][]replayed{gamesBy(t, 1000, "big", "small")}, 0, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var corpus []replayed
			for _, g := range tt.games {
				corpus = append(corpus, g...)
			}
			f, rep := playerFactors(Config{MaxPlayerShare: tt.share}, corpus, one, nil)
			if rep.Bounded != tt.bounded {
				t.Errorf("bounded %d, want %d (%+v)", rep.Bounded, tt.bounded, rep)
			}
			w := map[string]float64{}
			var total float64
			for _, g := range corpus {
				for i := range g.positions {
					name := g.Players[i%2]
					w[name] += f[name]
					total += f[name]
				}
			}
			most := 0.0
			for _, v := range w {
				most = max(most, v/total)
			}
			if most > tt.maxShare+1e-6 {
				t.Errorf("a player carries %.4f of the weight, want at most %.4f", most, tt.maxShare)
			}
		})
	}
}

func TestPlayerFactorsFarWorse(t *testing.T) {
	// A saboteur who always picks a losing move when there is one is
	// down-weighted; a random mover and a good player are not.
	r := mustRules(t, "3x3k3")
	t0 := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	players := []Player{{Name: "worst", Style: Style{Worst: true}}, {Name: "random", Style: Style{Blunder: 1}}, {Name: "good", Style: Style{Blunder: 0.1}}}
	corpus := replay(r, SimulatePlayers(r, 600, players, t0, 3))
	cfg, err := Config{Rules: r}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	tc := newTargetCache(cfg)
	set := newPositionSet()
	for _, g := range corpus {
		for _, p := range g.positions {
			set.add(p)
		}
	}
	if _, err := tc.targetsFor(t.Context(), cfg, set.list); err != nil {
		t.Fatal(err)
	}
	f, rep := playerFactors(cfg, corpus, func(Game) float64 { return 1 }, tc.bestOf())
	if rep.FarWorse != 1 || f["worst"] > FarWorseFactor+1e-9 {
		t.Errorf("far worse %d, factors %v", rep.FarWorse, f)
	}
	if rep.Players != 3 || rep.FarWorseMoves == 0 {
		t.Errorf("report %+v", rep)
	}
}

func TestSimulatePlayers(t *testing.T) {
	r := mustRules(t, "3x3k3")
	t0 := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	players := []Player{{Name: "a", Style: Style{Opening: game.NewCell(0, 0)}}, {Name: "b", Style: Style{Opening: game.NewCell(1, 1)}}, {Name: "w", Style: Style{Worst: true}}}
	gs := SimulatePlayers(r, 200, players, t0, 9)
	again := SimulatePlayers(r, 200, players, t0, 9)
	opened := map[string]map[game.Cell]int{}
	for i, g := range gs {
		if len(g.Moves) != len(again[i].Moves) || g.Players != again[i].Players {
			t.Fatalf("game %d differs between two runs with one seed", i)
		}
		if g.Players[0] == g.Players[1] || !g.Human[0] || !g.Human[1] || !g.Time.Equal(t0.Add(time.Duration(i)*time.Minute)) {
			t.Fatalf("game %d: %+v", i, g)
		}
		if opened[g.Players[0]] == nil {
			opened[g.Players[0]] = map[game.Cell]int{}
		}
		opened[g.Players[0]][g.Moves[0]]++
		if p := replay(r, []Game{g}); len(p) != 1 {
			t.Fatalf("game %d does not replay", i)
		}
	}
	if len(opened["a"]) != 1 || opened["a"][game.NewCell(0, 0)] == 0 || len(opened["b"]) != 1 {
		t.Errorf("openings %v", opened)
	}
	// The saboteur never wins: it always gives the game away when it can.
	for _, g := range replay(r, gs) {
		p := g.positions[len(g.positions)-1].Apply(g.Moves[len(g.Moves)-1])
		w := p.Outcome().Winner()
		if (w == game.X && g.Players[0] == "w") || (w == game.O && g.Players[1] == "w") {
			t.Fatalf("the saboteur won %v", g.Moves)
		}
	}
	if got := SimulatePlayers(r, 5, players[:1], t0, 1); len(got) != 0 {
		t.Errorf("one player made %d games", len(got))
	}
}

func TestMeasureHoldoutBalanced(t *testing.T) {
	// The balanced figure is the mean of the players' shares, each player
	// counting once, the small ones pooled; HumanTop1 counts every move.
	r := mustRules(t, "3x3k3")
	net, err := nn.New(nn.DefaultArch(r), rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	players := []Player{{Name: "a", Style: Style{Blunder: 0.3}}, {Name: "b", Style: Style{Opening: game.NewCell(1, 1), Blunder: 0.1}}}
	games := replay(r, SimulatePlayers(r, 300, players, t0, 5))
	games = append(games, replay(r, []Game{{Moves: []game.Cell{game.NewCell(0, 0)}, Human: [2]bool{true, false}, Players: [2]string{"tiny", ""}}})...)
	res := measureHoldout(Config{Rules: r}, "held-out", games, net, nil, func(game.Position) (game.Bitboard, bool) { return 0, false })
	var out nn.Output
	type tally struct{ n, hit int }
	per := map[string]*tally{}
	for _, g := range games {
		for i, p := range g.positions {
			if !g.Human[sideOf(p)] {
				continue
			}
			name := g.Players[sideOf(p)]
			if per[name] == nil {
				per[name] = &tally{}
			}
			per[name].n++
			if humanTop1(net, p, g.Moves[i], &out) {
				per[name].hit++
			}
		}
	}
	share := func(t *tally) float64 { return float64(t.hit) / float64(t.n) }
	want := (share(per["a"]) + share(per["b"]) + share(per["tiny"])) / 3
	if d := res.Net.HumanBalanced - want; d > 1e-9 || d < -1e-9 {
		t.Errorf("balanced %.6f, want %.6f", res.Net.HumanBalanced, want)
	}
	if res.Net.HumanTop1.Den != per["a"].n+per["b"].n+per["tiny"].n || res.Players != 3 || res.PlayersCounted != 2 || res.Reference != nil {
		t.Errorf("result %+v", res)
	}
}
