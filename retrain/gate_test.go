package retrain

import (
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/tttbot/ttt-bot/ai/train"
)

// match returns a Match with the given totals, split between the colours.
func match(wins, draws, losses int) Match {
	m := Match{AsX: Tally{Wins: wins - wins/2, Draws: draws - draws/2, Losses: losses - losses/2}, AsO: Tally{Wins: wins / 2, Draws: draws / 2, Losses: losses / 2}}
	m.finish()
	return m
}

func TestVerdict(t *testing.T) {
	h2h := func(m Match) *Match { return &m }
	tests := []struct {
		name string
		g    GateReport
		live bool
		want []string // substrings of the failures, in order; none = promote
	}{
		{"equal to live", GateReport{Margin: 0.05, HeadToHead: h2h(match(0, 100, 0)),
			Baselines: []BaselineResult{{Opponent: "random", Candidate: match(90, 10, 0), Reference: match(90, 10, 0)}}}, true, nil},
		{"head to head exactly on the margin", GateReport{Margin: 0.05, HeadToHead: h2h(match(40, 10, 50)),
			Baselines: nil}, true, nil},
		{"loses the head to head", GateReport{Margin: 0.05, HeadToHead: h2h(match(10, 60, 30))}, true,
			[]string{"scored 0.400 against the live model, below 0.450"}},
		{"worse score against a baseline", GateReport{Margin: 0.05, HeadToHead: h2h(match(0, 100, 0)),
			Baselines: []BaselineResult{{Opponent: "easy", Candidate: match(80, 20, 0), Reference: match(95, 5, 0)}}}, true,
			[]string{"against easy it scored 0.900, below the live model's 0.975"}},
		{"more losses against a baseline", GateReport{Margin: 0.05, HeadToHead: h2h(match(0, 100, 0)),
			Baselines: []BaselineResult{{Opponent: "perfect", Candidate: match(0, 90, 10), Reference: match(0, 100, 0)}}}, true,
			[]string{"against perfect it lost 10.0% of games, more than the live model's 0.0%"}},
		{"no live model, beats random", GateReport{Margin: 0.05,
			Baselines: []BaselineResult{{Opponent: "random", Candidate: match(80, 10, 10), Reference: match(45, 10, 45)}}}, false, nil},
		{"no live model, as bad as random", GateReport{Margin: 0.05,
			Baselines: []BaselineResult{{Opponent: "perfect", Candidate: match(0, 5, 95), Reference: match(0, 2, 98)}}}, false, nil},
		{"no live model, worse than random", GateReport{Margin: 0.05,
			Baselines: []BaselineResult{{Opponent: "random", Candidate: match(30, 10, 60), Reference: match(45, 10, 45)}}}, false,
			[]string{"against random it scored 0.350, below a random mover's 0.500 - margin 0.05",
				"against random it lost 60.0% of games, more than a random mover's 45.0% + margin 0.05"}},
		{"no live model, margin -1", GateReport{Margin: -1,
			Baselines: []BaselineResult{{Opponent: "random", Candidate: match(100, 0, 0), Reference: match(45, 10, 45)}}}, false,
			[]string{"against random it scored 1.000, below a random mover's 0.500 - margin -1.00",
				"against random it lost 0.0% of games, more than a random mover's 45.0% + margin -1.00"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := verdict(tt.g, tt.live)
			if len(got) != len(tt.want) {
				t.Fatalf("failures %q; want %d like %q", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("failure %q; want it to say %q", got[i], w)
				}
			}
		})
	}
}

func TestMatchFinish(t *testing.T) {
	m := match(3, 4, 1)
	if m.Games != 8 || m.Score != 5.0/8 || m.LossRate != 1.0/8 {
		t.Fatalf("%+v; want 8 games, score 0.625, loss rate 0.125", m)
	}
	var empty Match
	empty.finish()
	if empty.Score != 0 || empty.Games != 0 {
		t.Fatalf("%+v", empty)
	}
}

func TestStreamAfter(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"1-0", "0", true},
		{"1700000000000-0", "", true},
		{"5-1", "5-0", true},
		{"5-0", "5-0", false},
		{"5-0", "5-1", false},
		{"10-0", "9-99", true},
		{"9-99", "10-0", false},
	}
	for _, tt := range tests {
		if got := streamAfter(tt.a, tt.b); got != tt.want {
			t.Errorf("streamAfter(%q, %q) = %v; want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestWorkers(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	tests := []struct {
		share float64
		want  int
	}{
		{0, max(1, procs/2)}, // the default, 0.5
		{0.5, max(1, procs/2)},
		{1, procs},
		{3, procs},
		{0.01, 1},
	}
	for _, tt := range tests {
		j := New(nil, Config{CPUShare: tt.share})
		if got := j.Workers(); got != tt.want {
			t.Errorf("CPUShare %v on %d procs: %d workers; want %d", tt.share, procs, got, tt.want)
		}
	}
}

func TestHumanGate(t *testing.T) {
	set := func(name string, moves, better, worse int, cand, live float64) train.HoldoutResult {
		return train.HoldoutResult{Name: name, HumanMoves: moves, PlayersBetter: better, PlayersWorse: worse, PlayersCounted: better + worse,
			Net: train.Figures{HumanBalanced: cand}, Reference: &train.Figures{HumanBalanced: live}}
	}
	tests := []struct {
		name     string
		sets     []train.HoldoutResult
		verdicts []string
		fails    int
	}{
		{"both sets as good", []train.HoldoutResult{set(SetHeldOut, 500, 3, 3, 0.75, 0.75), set(SetReference, 2000, 0, 0, 0.758, 0.76)}, []string{"passed", "passed"}, 0},
		{"within the tolerance", []train.HoldoutResult{set(SetHeldOut, 500, 3, 3, 0.7451, 0.75)}, []string{"passed"}, 0},
		{"poison: better on the floods, worse on the reference", []train.HoldoutResult{set(SetHeldOut, 5000, 2, 0, 0.30, 0.10), set(SetReference, 2000, 0, 0, 0.70, 0.757)}, []string{"passed", "failed"}, 1},
		{"a change of style across the server", []train.HoldoutResult{set(SetHeldOut, 5000, 14, 2, 0.80, 0.50), set(SetReference, 2000, 0, 0, 0.70, 0.757)}, []string{"passed", "waived: a change of style across the server"}, 0},
		{"many better by chance, as many not", []train.HoldoutResult{{Name: SetHeldOut, HumanMoves: 5000, PlayersBetter: 8, PlayersWorse: 4, PlayersCounted: 16, Net: train.Figures{HumanBalanced: 0.75}, Reference: &train.Figures{HumanBalanced: 0.75}}, {Name: SetReference, HumanMoves: 2000, Net: train.Figures{HumanBalanced: 0.70}, Reference: &train.Figures{HumanBalanced: 0.757}}}, []string{"passed", "failed"}, 1},
		{"broad but worse on the new games", []train.HoldoutResult{set(SetHeldOut, 5000, 6, 3, 0.60, 0.62), set(SetReference, 2000, 0, 0, 0.70, 0.757)}, []string{"failed", "waived: a change of style across the server"}, 1},
		{"too few moves to judge", []train.HoldoutResult{set(SetHeldOut, 99, 0, 0, 0.1, 0.9), set(SetReference, 0, 0, 0, -1, -1)}, []string{"not judged: 99 human moves, fewer than 100", "not judged: 0 human moves, fewer than 100"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := humanGate(tt.sets, DefaultHumanTolerance)
			if len(h.Failures) != tt.fails || len(h.Sets) != len(tt.verdicts) {
				t.Fatalf("failures %q, sets %+v", h.Failures, h.Sets)
			}
			for i, v := range tt.verdicts {
				if h.Sets[i].Verdict != v {
					t.Errorf("set %s: verdict %q, want %q", h.Sets[i].Name, h.Sets[i].Verdict, v)
				}
			}
			if tt.fails > 0 && !strings.Contains(h.Failures[0], "below the live model's") {
				t.Errorf("failure %q", h.Failures[0])
			}
		})
	}
}

func TestHeldOut(t *testing.T) {
	// One game in ten, by ID, the same every time.
	held := 0
	for i := range 20000 {
		id := "g" + strconv.Itoa(i)
		if HeldOut(id) {
			held++
		}
		if HeldOut(id) != HeldOut(id) {
			t.Fatal("not deterministic")
		}
	}
	if held < 1800 || held > 2200 {
		t.Errorf("%d of 20000 held out, want about 2000", held)
	}
}

func TestVerdictPerfectLosses(t *testing.T) {
	// With a live model, no more losses to perfect than it, whatever the
	// margin; without one, the margin applies as to every baseline.
	b := []BaselineResult{{Opponent: "perfect", Candidate: match(0, 99, 1), Reference: match(0, 100, 0)}}
	if got := verdict(GateReport{Margin: 0.05, Baselines: b}, true); len(got) != 1 || !strings.Contains(got[0], "margin 0.00") {
		t.Errorf("with a live model: %q", got)
	}
	if got := verdict(GateReport{Margin: 0.05, Baselines: b}, false); len(got) != 0 {
		t.Errorf("without: %q", got)
	}
}
