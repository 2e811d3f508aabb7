package gomoku

import (
	"math/rand/v2"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/game/wide"
)

// side indexes the two sides: 0 is X, 1 is O.
type side int

func sideOf(m game.Mark) side {
	if m == game.O {
		return 1
	}
	return 0
}

// board is the engine's working position: marks by wide.Cell, the windows
// of k cells (every place a line could be made) with each side's count of
// marks in them, and the evaluation kept up to date move by move.
type board struct {
	rules   wide.Rules
	k       int
	cells   [256]int8 // -1 empty, 0 X, 1 O; off the board stays -1 and is never a candidate
	on      [256]bool
	windows [][]wide.Cell
	through [256][]int32 // the windows holding each cell
	count   [][2]uint8   // per window, the marks of X and of O
	score   [2]int64     // per side, the sum of its windows' weights
	fours   [2]int       // per side, the windows one mark short of k with none of the other side
	hash    uint64
	ply     int
	weight  []int64 // by marks in a window open to one side
	zob     *[256][2]uint64
}

// zobrist keys, fixed so that a search is deterministic.
var zobrist = func() *[256][2]uint64 {
	var z [256][2]uint64
	rng := rand.New(rand.NewPCG(0x5eed, 0x90b0))
	for i := range z {
		z[i] = [2]uint64{rng.Uint64(), rng.Uint64()}
	}
	return &z
}()

// newBoard sets up the board of p.
func newBoard(p wide.Position) *board {
	r := p.Rules()
	b := &board{rules: r, k: r.K(), zob: zobrist}
	for i := range b.cells {
		b.cells[i] = -1
	}
	for _, c := range r.Cells() {
		b.on[c] = true
	}
	dirs := [4][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}}
	for row := range r.Rows() {
		for col := range r.Cols() {
			for _, d := range dirs {
				er, ec := row+(b.k-1)*d[0], col+(b.k-1)*d[1]
				if er < 0 || er >= r.Rows() || ec < 0 || ec >= r.Cols() {
					continue
				}
				w := make([]wide.Cell, b.k)
				for i := range b.k {
					w[i] = wide.NewCell(row+i*d[0], col+i*d[1])
				}
				id := int32(len(b.windows))
				b.windows = append(b.windows, w)
				for _, c := range w {
					b.through[c] = append(b.through[c], id)
				}
			}
		}
	}
	b.count = make([][2]uint8, len(b.windows))
	// A window's weight grows fourfold with each mark. Measured against
	// Carbon (bot gomocup, 40 games at 200 ms a move, two seeds): 4 scored
	// 35-37.5%, 3 17.5%, 5 27.5%, 6 20-22.5%, 10 17.5%.
	b.weight = make([]int64, b.k+1)
	b.weight[0] = 0
	w := int64(1)
	for n := 1; n <= b.k; n++ {
		b.weight[n] = w
		w *= 4
	}
	for _, c := range r.Cells() {
		if m := p.At(c); m != game.Empty {
			b.place(c, sideOf(m))
		}
	}
	return b
}

// place puts s's mark on the empty cell c.
func (b *board) place(c wide.Cell, s side) {
	o := 1 - s
	for _, w := range b.through[c] {
		n := &b.count[w]
		if n[o] == 0 {
			b.score[s] += b.weight[n[s]+1] - b.weight[n[s]]
			if int(n[s]) == b.k-2 {
				b.fours[s]++
			} else if int(n[s]) == b.k-1 {
				b.fours[s]--
			}
		}
		if n[s] == 0 && n[o] > 0 {
			// The window was the other side's: it is nobody's now.
			b.score[o] -= b.weight[n[o]]
			if int(n[o]) == b.k-1 {
				b.fours[o]--
			}
		}
		n[s]++
	}
	b.cells[c] = int8(s)
	b.hash ^= b.zob[c][s]
	b.ply++
}

// remove takes s's mark off c, undoing place.
func (b *board) remove(c wide.Cell, s side) {
	o := 1 - s
	for _, w := range b.through[c] {
		n := &b.count[w]
		n[s]--
		if n[o] == 0 {
			b.score[s] -= b.weight[n[s]+1] - b.weight[n[s]]
			if int(n[s]) == b.k-2 {
				b.fours[s]--
			} else if int(n[s]) == b.k-1 {
				b.fours[s]++
			}
		}
		if n[s] == 0 && n[o] > 0 {
			b.score[o] += b.weight[n[o]]
			if int(n[o]) == b.k-1 {
				b.fours[o]++
			}
		}
	}
	b.cells[c] = -1
	b.hash ^= b.zob[c][s]
	b.ply--
}

// wins reports whether s's mark on c (placed) makes a winning run: k or
// more in a row, or exactly k under the exact rule.
func (b *board) wins(c wide.Cell, s side) bool {
	for _, d := range [4][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}} {
		n := 1 + b.run(c, s, d[0], d[1]) + b.run(c, s, -d[0], -d[1])
		if n == b.k || n > b.k && !b.rules.Exact() {
			return true
		}
	}
	return false
}

func (b *board) run(c wide.Cell, s side, dr, dc int) int {
	n := 0
	r, col := c.Row()+dr, c.Col()+dc
	for r >= 0 && col >= 0 && r < b.rules.Rows() && col < b.rules.Cols() && b.cells[wide.NewCell(r, col)] == int8(s) {
		n++
		r, col = r+dr, col+dc
	}
	return n
}

// winCells appends to buf the free cells where s would win at once.
func (b *board) winCells(s side, buf []wide.Cell) []wide.Cell {
	buf = buf[:0]
	if b.fours[s] == 0 {
		return buf
	}
	o := 1 - s
	for w, n := range b.count {
		if int(n[s]) != b.k-1 || n[o] != 0 {
			continue
		}
		for _, c := range b.windows[w] {
			if b.cells[c] < 0 && !contains(buf, c) && b.winsIfPlaced(c, s) {
				buf = append(buf, c)
			}
		}
	}
	return buf
}

// winsIfPlaced reports whether s wins by marking the free cell c.
func (b *board) winsIfPlaced(c wide.Cell, s side) bool {
	b.cells[c] = int8(s)
	ok := b.wins(c, s)
	b.cells[c] = -1
	return ok
}

func contains(cs []wide.Cell, c wide.Cell) bool {
	for _, x := range cs {
		if x == c {
			return true
		}
	}
	return false
}

// gain is how much marking the free cell c adds to s's score and takes
// from the other side's: the ordering of candidate moves.
func (b *board) gain(c wide.Cell, s side) int64 {
	o := 1 - s
	var g int64
	for _, w := range b.through[c] {
		n := b.count[w]
		switch {
		case n[o] == 0:
			g += b.weight[n[s]+1] - b.weight[n[s]]
			if n[s] == 0 {
				continue
			}
		case n[s] == 0:
			// Blocking: the other side's window is lost to it, counted at
			// one and a half times its worth. Measured against Carbon (40
			// games at 200 ms, seeds 7 and 8): 3/2 scored 52.5% and 37.5%,
			// 2 41.2% and 45%, 9/8 42.5% and 27.5%, 7/8 37.5% and 35%.
			g += b.weight[n[o]] * 3 / 2
		}
	}
	return g
}

// candidates appends the free cells within two of a mark (the centre on
// an empty board).
func (b *board) candidates(buf []wide.Cell) []wide.Cell {
	buf = buf[:0]
	if b.ply == 0 {
		return append(buf, b.rules.Center())
	}
	rows, cols := b.rules.Rows(), b.rules.Cols()
	var near [256]bool
	for r := range rows {
		for c := range cols {
			if b.cells[wide.NewCell(r, c)] < 0 {
				continue
			}
			for dr := -2; dr <= 2; dr++ {
				for dc := -2; dc <= 2; dc++ {
					rr, cc := r+dr, c+dc
					if rr >= 0 && cc >= 0 && rr < rows && cc < cols {
						near[wide.NewCell(rr, cc)] = true
					}
				}
			}
		}
	}
	for r := range rows {
		for c := range cols {
			if cell := wide.NewCell(r, c); near[cell] && b.cells[cell] < 0 {
				buf = append(buf, cell)
			}
		}
	}
	return buf
}

// full reports whether no cell is free.
func (b *board) full() bool { return b.ply == b.rules.Size() }
