package gomoku

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tttbot/ttt-bot/game/wide"
)

// Brain speaks the Gomocup engine protocol ("pbrain") on a line stream: the
// manager's commands in, the brain's answers out, so that the player can be
// measured against any Gomocup engine. It understands START, RECTSTART,
// RESTART, BEGIN, TURN, BOARD ... DONE, TAKEBACK, INFO (timeout_turn,
// timeout_match, time_left, max_memory, rule, game_type and the rest),
// ABOUT and END. Coordinates are "x,y": the 0-based column, then the row,
// from the top-left corner. Boards run up to 15x15; five in a row wins,
// exactly five when INFO rule has bit 1. A bad line gets "ERROR" with what
// was wrong and what is allowed, an unknown command "UNKNOWN", and the
// game goes on.
type Brain struct {
	// About is the ABOUT answer's fields, as key="value" pairs.
	About string
	// Budget is the time per move until INFO timeout_turn says otherwise.
	Budget time.Duration
	// Now is the clock (time.Now if nil).
	Now func() time.Time

	out      io.Writer
	rows     int
	cols     int
	exact    bool
	pos      wide.Position
	history  []wide.Position // the positions before each move since the last START or BOARD
	started  bool
	turn     time.Duration // INFO timeout_turn, 0 if not given
	timeLeft time.Duration // INFO time_left, -1 if not given
	player   *Player
}

// Run reads commands from in until END or the end of input and writes the
// answers to out.
func (br *Brain) Run(ctx context.Context, in io.Reader, out io.Writer) error {
	br.out = out
	br.timeLeft = -1
	if br.Budget == 0 {
		br.Budget = DefaultBudget
	}
	if br.Now == nil {
		br.Now = time.Now
	}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		cmd, args, _ := strings.Cut(line, " ")
		switch strings.ToUpper(cmd) {
		case "END":
			return nil
		case "BOARD":
			if err := br.board(ctx, sc); err != nil {
				return err
			}
		default:
			if err := br.command(ctx, strings.ToUpper(cmd), strings.TrimSpace(args)); err != nil {
				return err
			}
		}
	}
	return sc.Err()
}

// say writes one answer line.
func (br *Brain) say(format string, a ...any) error {
	_, err := fmt.Fprintf(br.out, format+"\r\n", a...)
	return err
}

// command handles every command but BOARD and END.
func (br *Brain) command(ctx context.Context, cmd, args string) error {
	switch cmd {
	case "START":
		n, err := strconv.Atoi(args)
		if err != nil {
			return br.say("ERROR START takes the board size, a whole number from %d to %d, like START 15", wide.MinSize, wide.MaxSize)
		}
		return br.start(n, n)
	case "RECTSTART":
		w, h, ok := pair(args)
		if !ok {
			return br.say("ERROR RECTSTART takes width,height, like RECTSTART 15,10")
		}
		return br.start(h, w)
	case "RESTART":
		if !br.started {
			return br.say("ERROR RESTART before START; send START size first")
		}
		return br.start(br.rows, br.cols)
	case "BEGIN":
		if !br.started {
			return br.say("ERROR BEGIN before START; send START size first")
		}
		if br.pos.Ply() != 0 {
			return br.say("ERROR BEGIN on a board with marks; BEGIN starts a game, TURN x,y answers a move")
		}
		return br.play(ctx)
	case "TURN":
		if !br.started {
			return br.say("ERROR TURN before START; send START size first")
		}
		x, y, ok := pair(args)
		if !ok {
			return br.say("ERROR TURN takes the opponent's move as x,y (0-based column and row), like TURN 7,7")
		}
		if x < 0 || y < 0 || x >= br.cols || y >= br.rows {
			return br.say("ERROR TURN %d,%d: off the %dx%d board; x runs from 0 to %d and y from 0 to %d", x, y, br.cols, br.rows, br.cols-1, br.rows-1)
		}
		next, err := br.pos.Play(wide.NewCell(y, x))
		if err != nil {
			return br.say("ERROR TURN %d,%d: %s", x, y, explain(err))
		}
		br.history = append(br.history, br.pos)
		br.pos = next
		return br.play(ctx)
	case "TAKEBACK":
		x, y, ok := pair(args)
		if !ok || !br.started || x < 0 || y < 0 || x >= br.cols || y >= br.rows {
			return br.say("ERROR TAKEBACK takes the move to take back as x,y on the board, after START")
		}
		return br.takeback(x, y)
	case "INFO":
		br.info(args)
		return nil
	case "ABOUT":
		return br.say("%s", br.About)
	}
	return br.say("UNKNOWN %s; this brain knows START, RECTSTART, RESTART, BEGIN, TURN, BOARD, TAKEBACK, INFO, ABOUT and END", cmd)
}

// start sets up an empty board and says OK.
func (br *Brain) start(rows, cols int) error {
	r, err := br.rules(rows, cols)
	if err != nil {
		return br.say("ERROR unsupported board %dx%d: boards from %dx%d to %dx%d", cols, rows, wide.MinSize, wide.MinSize, wide.MaxSize, wide.MaxSize)
	}
	br.rows, br.cols, br.started = rows, cols, true
	br.pos, br.history = wide.NewPosition(r), nil
	br.player = New(Options{Budget: br.Budget})
	return br.say("OK")
}

// rules returns the rules of a rows x cols board: five in a row (k or
// more, or exactly five under INFO rule 1), shorter on boards under 5.
func (br *Brain) rules(rows, cols int) (wide.Rules, error) {
	return wide.NewRules(rows, cols, min(5, max(rows, cols)), br.exact)
}

// board reads the lines of a BOARD command up to DONE and moves.
func (br *Brain) board(ctx context.Context, sc *bufio.Scanner) error {
	if !br.started {
		// Read to DONE anyway so the stream stays in step.
		for sc.Scan() && !strings.EqualFold(strings.TrimSpace(sc.Text()), "DONE") {
		}
		return br.say("ERROR BOARD before START; send START size first")
	}
	var own, opp []wide.Cell
	var bad string
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.EqualFold(line, "DONE") {
			break
		}
		f := strings.Split(line, ",")
		var v [3]int
		ok := len(f) == 3
		for i := 0; ok && i < 3; i++ {
			n, err := strconv.Atoi(strings.TrimSpace(f[i]))
			v[i], ok = n, err == nil
		}
		switch {
		case !ok:
			bad = fmt.Sprintf("%q is not x,y,field (three whole numbers)", line)
		case v[0] < 0 || v[1] < 0 || v[0] >= br.cols || v[1] >= br.rows:
			bad = fmt.Sprintf("%d,%d is off the %dx%d board", v[0], v[1], br.cols, br.rows)
		case v[2] == 1:
			own = append(own, wide.NewCell(v[1], v[0]))
		case v[2] == 2:
			opp = append(opp, wide.NewCell(v[1], v[0]))
		default:
			bad = fmt.Sprintf("field %d in %q: 1 is the brain's stone, 2 the opponent's", v[2], line)
		}
	}
	if bad != "" {
		return br.say("ERROR BOARD: %s", bad)
	}
	// The brain moves now: it is X if the counts are level.
	x, o := own, opp
	if len(opp) == len(own)+1 {
		x, o = opp, own
	} else if len(opp) != len(own) {
		return br.say("ERROR BOARD: %d stones of the brain and %d of the opponent; the brain is to move, so it has as many as the opponent or one fewer", len(own), len(opp))
	}
	cells := make([][]byte, br.rows)
	for i := range cells {
		cells[i] = []byte(strings.Repeat("-", br.cols))
	}
	for _, c := range x {
		cells[c.Row()][c.Col()] = 'X'
	}
	for _, c := range o {
		cells[c.Row()][c.Col()] = 'O'
	}
	rows := make([]string, br.rows)
	for i, r := range cells {
		rows[i] = string(r)
	}
	p, err := wide.ParsePosition(br.pos.Rules(), strings.Join(rows, "/"))
	if err != nil {
		return br.say("ERROR BOARD: %s", strings.TrimPrefix(err.Error(), "game: bad position: "))
	}
	if p.Ply() != len(x)+len(o) {
		return br.say("ERROR BOARD: two stones on one cell")
	}
	br.pos, br.history = p, nil
	return br.play(ctx)
}

// play chooses the brain's move, plays it and writes it.
func (br *Brain) play(ctx context.Context) error {
	if br.pos.Over() {
		return br.say("ERROR the game is over (%s); send RESTART or START", br.pos.Outcome().Result)
	}
	budget := br.Budget
	if br.turn > 0 {
		budget = br.turn - br.turn/10 - 30*time.Millisecond
	}
	if br.timeLeft >= 0 {
		budget = min(budget, br.timeLeft/15)
	}
	budget = max(budget, 10*time.Millisecond)
	br.player.opts.Budget = budget
	c, err := br.player.Move(ctx, br.pos)
	if err != nil {
		return br.say("ERROR %v", err)
	}
	br.history = append(br.history, br.pos)
	br.pos = br.pos.Apply(c)
	return br.say("%d,%d", c.Col(), c.Row())
}

// takeback removes the stone at x,y, which must be the last one placed
// since START or BOARD.
func (br *Brain) takeback(x, y int) error {
	last, ok := br.pos.Last()
	if n := len(br.history); !ok || n == 0 || last != wide.NewCell(y, x) {
		return br.say("ERROR TAKEBACK %d,%d: only the last move played since START or BOARD can be taken back", x, y)
	}
	br.pos = br.history[len(br.history)-1]
	br.history = br.history[:len(br.history)-1]
	return br.say("OK")
}

// info applies an INFO line; unknown keys are ignored, as the protocol
// asks.
func (br *Brain) info(args string) {
	key, val, _ := strings.Cut(args, " ")
	n, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
	if err != nil {
		return
	}
	switch strings.ToLower(key) {
	case "timeout_turn":
		if n > 0 {
			br.turn = time.Duration(n) * time.Millisecond
		}
	case "time_left":
		br.timeLeft = time.Duration(n) * time.Millisecond
	case "rule":
		br.exact = n&1 != 0
		if !br.started {
			return
		}
		// The game so far under the new rule (INFO gets no answer).
		r, err := br.rules(br.rows, br.cols)
		if err != nil {
			return
		}
		if p, err := wide.ParsePosition(r, br.pos.String()); err == nil {
			br.pos, br.history = p, nil
		}
	}
}

// pair reads "a,b" as two whole numbers.
func pair(s string) (int, int, bool) {
	a, b, ok := strings.Cut(s, ",")
	x, err1 := strconv.Atoi(strings.TrimSpace(a))
	y, err2 := strconv.Atoi(strings.TrimSpace(b))
	return x, y, ok && err1 == nil && err2 == nil
}

// explain says why a move was refused, without the error's package
// prefix.
func explain(err error) string {
	msg := err.Error()
	for _, p := range []string{"game: bad cell: ", "game: cell taken: ", "game: game over: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return msg
}
