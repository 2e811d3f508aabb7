package gomoku

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/game/wide"
)

// Engine is a Gomocup engine driven over its protocol: the manager's side
// of what Brain answers. It is how the player is measured against other
// engines.
type Engine struct {
	in    io.Writer
	lines chan string
	errc  chan error
	close func() error
	About string // the engine's ABOUT line, once asked
}

// StartEngine runs the engine program at path (a Gomocup "pbrain"
// executable, or any program speaking the protocol on stdin and stdout).
func StartEngine(ctx context.Context, path string, args ...string) (*Engine, error) {
	cmd := exec.CommandContext(ctx, path, args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("gomoku: engine %s: %w", path, err)
	}
	e := NewEngine(in, out)
	e.close = func() error {
		fmt.Fprint(in, "END\r\n")
		in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			return err
		case <-time.After(2 * time.Second):
			cmd.Process.Kill()
			return <-done
		}
	}
	return e, nil
}

// NewEngine drives an engine through its input and output streams (for an
// engine in the same process, over io.Pipe).
func NewEngine(in io.Writer, out io.Reader) *Engine {
	e := &Engine{in: in, lines: make(chan string, 16), errc: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			e.lines <- strings.TrimSpace(sc.Text())
		}
		err := sc.Err()
		if err == nil {
			err = io.EOF
		}
		e.errc <- err
		close(e.lines)
	}()
	return e
}

// Close ends the engine (END, then a kill if it does not exit).
func (e *Engine) Close() error {
	if e.close == nil {
		fmt.Fprint(e.in, "END\r\n")
		return nil
	}
	return e.close()
}

func (e *Engine) send(format string, a ...any) error {
	_, err := fmt.Fprintf(e.in, format+"\r\n", a...)
	return err
}

// answer waits up to wait for the engine's next answer line, skipping the
// MESSAGE, DEBUG and SUGGEST lines the protocol allows.
func (e *Engine) answer(wait time.Duration) (string, error) {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		select {
		case line, ok := <-e.lines:
			if !ok {
				return "", fmt.Errorf("engine closed its output: %v", <-e.errc)
			}
			if line == "" {
				continue
			}
			switch strings.ToUpper(strings.Fields(line)[0]) {
			case "MESSAGE", "DEBUG", "SUGGEST":
				continue
			}
			return line, nil
		case <-timer.C:
			return "", fmt.Errorf("no answer in %s", wait)
		}
	}
}

// MatchOptions are the settings of a match against an engine.
type MatchOptions struct {
	Rules wide.Rules    // square boards only (START takes one size); exact k=5 is INFO rule 1
	Games int           // games in all; each opening is played twice, colours swapped
	Turn  time.Duration // time per move, both sides
	Seed  uint64        // chooses the openings
	// Progress, if set, is called after each game.
	Progress func(GameResult)
}

// GameResult is one game of a match.
type GameResult struct {
	Game    int
	Us      game.Mark // our side
	Record  wide.Record
	Result  game.Result
	Forfeit string // why the engine lost by forfeit (a bad move, no answer), or ""
}

// MatchResult sums up a match: by our side, our wins, draws and losses.
type MatchResult struct {
	Wins, Draws, Losses [2]int // [0] as X (first), [1] as O
	Forfeits            int
	Games               []GameResult
	OurMoveTime         time.Duration // the longest of our moves
}

// Score is our score: a win 1, a draw a half, over every game.
func (m MatchResult) Score() float64 {
	n := m.Wins[0] + m.Wins[1] + m.Draws[0] + m.Draws[1] + m.Losses[0] + m.Losses[1]
	if n == 0 {
		return 0
	}
	return (float64(m.Wins[0]+m.Wins[1]) + float64(m.Draws[0]+m.Draws[1])/2) / float64(n)
}

// Openings returns n balanced-ish openings of three stones near the centre
// (X, O, X; O to move), different from each other, chosen by seed: the
// first at the centre, the second next to it, the third within two of it.
// A match plays each with both colours, which balances what an opening
// gives the first player.
func Openings(r wide.Rules, n int, seed uint64) [][]wide.Cell {
	rng := rand.New(rand.NewPCG(seed, 0x0be))
	c := r.Center()
	seen := map[[3]wide.Cell]bool{}
	var out [][]wide.Cell
	for tries := 0; len(out) < n && tries < 100*n; tries++ {
		near := func(d int) wide.Cell {
			return wide.NewCell(c.Row()+rng.IntN(2*d+1)-d, c.Col()+rng.IntN(2*d+1)-d)
		}
		o, x2 := near(1), near(2)
		if o == c || x2 == c || x2 == o || !r.Contains(o) || !r.Contains(x2) {
			continue
		}
		k := [3]wide.Cell{c, o, x2}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, k[:])
	}
	return out
}

// PlayMatch plays opts.Games games between pl and the engine, the openings
// from Openings, each with both colours. The engine loses a game by
// forfeit when it answers with a bad move or not within three times the
// turn time and a second.
func PlayMatch(ctx context.Context, e *Engine, pl *Player, opts MatchOptions) (MatchResult, error) {
	var res MatchResult
	if opts.Rules.Rows() != opts.Rules.Cols() {
		return res, errors.New("gomoku: a match needs a square board (the protocol's START takes one size)")
	}
	openings := Openings(opts.Rules, (opts.Games+1)/2, opts.Seed)
	if len(openings)*2 < opts.Games {
		return res, fmt.Errorf("gomoku: only %d distinct openings for %d games", len(openings), opts.Games)
	}
	wait := 3*opts.Turn + time.Second
	rule := 0
	if opts.Rules.Exact() {
		rule = 1
	}
	for i, line := range []string{
		fmt.Sprintf("INFO timeout_turn %d", opts.Turn.Milliseconds()),
		"INFO timeout_match 0",
		fmt.Sprintf("INFO rule %d", rule),
		fmt.Sprintf("START %d", opts.Rules.Rows()),
	} {
		if err := e.send("%s", line); err != nil {
			return res, err
		}
		if i == 3 {
			if a, err := e.answer(10 * time.Second); err != nil || a != "OK" {
				return res, fmt.Errorf("gomoku: engine answered START with %q (%v)", a, err)
			}
		}
	}
	if err := e.send("ABOUT"); err == nil {
		e.About, _ = e.answer(5 * time.Second)
	}
	pl.opts.Budget = opts.Turn
	for g := range opts.Games {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if g > 0 {
			e.send("RESTART")
			if a, err := e.answer(10 * time.Second); err != nil || a != "OK" {
				return res, fmt.Errorf("gomoku: engine answered RESTART with %q (%v)", a, err)
			}
		}
		us := game.X
		if g%2 == 1 {
			us = game.O
		}
		gr, err := playGame(ctx, e, pl, opts.Rules, openings[g/2], us, wait, &res)
		if err != nil {
			return res, err
		}
		gr.Game = g + 1
		i := 0
		if us == game.O {
			i = 1
		}
		switch gr.Result {
		case game.Draw:
			res.Draws[i]++
		case winOfMark(us):
			res.Wins[i]++
		default:
			res.Losses[i]++
		}
		if gr.Forfeit != "" {
			res.Forfeits++
		}
		res.Games = append(res.Games, gr)
		if opts.Progress != nil {
			opts.Progress(gr)
		}
	}
	return res, nil
}

func winOfMark(m game.Mark) game.Result {
	if m == game.X {
		return game.XWins
	}
	return game.OWins
}

// playGame plays one game from the opening, us playing side us.
func playGame(ctx context.Context, e *Engine, pl *Player, r wide.Rules, opening []wide.Cell, us game.Mark, wait time.Duration, res *MatchResult) (GameResult, error) {
	p := wide.NewPosition(r)
	rec := wide.Record{Rules: r, Start: p, Moves: append([]wide.Cell(nil), opening...)}
	for _, c := range opening {
		p = p.Apply(c)
	}
	gr := GameResult{Us: us}
	sentBoard := false
	var ours wide.Cell
	for !p.Over() {
		if p.ToMove() == us {
			start := time.Now()
			c, err := pl.Move(ctx, p)
			if err != nil {
				return gr, err
			}
			res.OurMoveTime = max(res.OurMoveTime, time.Since(start))
			p, ours = p.Apply(c), c
			rec.Moves = append(rec.Moves, c)
			continue
		}
		var err error
		if !sentBoard {
			err = sendBoard(e, p, us)
			sentBoard = true
		} else {
			err = e.send("TURN %d,%d", ours.Col(), ours.Row())
		}
		if err != nil {
			return gr, err
		}
		a, err := e.answer(wait)
		if err != nil {
			gr.Forfeit = err.Error()
			gr.Result = winOfMark(us)
			break
		}
		c, ok := parseMove(a, r)
		next, perr := p.Play(c)
		if !ok || perr != nil {
			gr.Forfeit = fmt.Sprintf("bad move %q", a)
			gr.Result = winOfMark(us)
			break
		}
		p = next
		rec.Moves = append(rec.Moves, c)
	}
	if gr.Forfeit == "" {
		gr.Result = p.Outcome().Result
	}
	gr.Record = rec
	return gr, nil
}

// sendBoard sends the whole position with BOARD, the engine's stones 1 and
// ours 2.
func sendBoard(e *Engine, p wide.Position, us game.Mark) error {
	var b strings.Builder
	b.WriteString("BOARD\r\n")
	r := p.Rules()
	for _, c := range r.Cells() {
		m := p.At(c)
		if m == game.Empty {
			continue
		}
		field := 1
		if m == us {
			field = 2
		}
		fmt.Fprintf(&b, "%d,%d,%d\r\n", c.Col(), c.Row(), field)
	}
	b.WriteString("DONE")
	return e.send("%s", b.String())
}

// parseMove reads an engine's "x,y" answer.
func parseMove(s string, r wide.Rules) (wide.Cell, bool) {
	a, b, ok := strings.Cut(s, ",")
	x, err1 := strconv.Atoi(strings.TrimSpace(a))
	y, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || x < 0 || y < 0 || x >= r.Cols() || y >= r.Rows() {
		return 0, false
	}
	return wide.NewCell(y, x), true
}
