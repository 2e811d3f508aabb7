package ai

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tttbot/ttt-bot/game"
)

// HoldTables are the positions the hold searches of ProveWith proved from
// one root position, kept so that a long proof (8x8k5) can be stopped and
// resumed from disk. The zero value is ready to use; the first ProveWith
// it is given binds it to that call's position.
type HoldTables struct {
	root   game.Position
	bound  bool
	proved [2]map[game.Key]int8 // by attacker: [0] X, [1] O
	next   [2]int               // by attacker: the depths below this failed in full at the root
}

// index returns the index of the attacker's tables.
func index(atkX bool) int {
	if atkX {
		return 0
	}
	return 1
}

// adopt binds t to the root p, or checks that it is bound to it.
func (t *HoldTables) adopt(p game.Position) error {
	if !t.bound {
		t.root, t.bound = p, true
		return nil
	}
	if !t.root.Rules().Equal(p.Rules()) || t.root.Key() != p.Key() {
		return fmt.Errorf("%w: the saved tables are for %s %s, not %s %s", ErrBadState, t.root.Rules(), t.root, p.Rules(), p)
	}
	return nil
}

// table returns the map of proved positions for the attacker X (atkX) or O.
func (t *HoldTables) table(atkX bool) map[game.Key]int8 {
	i := index(atkX)
	if t.proved[i] == nil {
		t.proved[i] = map[game.Key]int8{}
	}
	return t.proved[i]
}

// Len returns the number of proved positions held.
func (t *HoldTables) Len() int { return len(t.proved[0]) + len(t.proved[1]) }

// ErrBadState is wrapped by ReadHoldTables's errors and by ProveWith's
// when tables belong to another position.
var ErrBadState = errors.New("ai: bad prover state")

// holdMagic starts a file of hold tables.
const holdMagic = "ttt-hold-tables 1\n"

// WriteTo writes the tables: a text header (format, rules, position), then
// for each attacker, X then O, the number of entries and the entries, each
// the X and O bitboards (little-endian uint64) and the move (int8, -1 for
// none).
func (t *HoldTables) WriteTo(w io.Writer) (int64, error) {
	if !t.bound {
		return 0, fmt.Errorf("%w: the tables were never used", ErrBadState)
	}
	bw := bufio.NewWriter(w)
	n, _ := fmt.Fprintf(bw, "%s%s %s %d %d\n", holdMagic, t.root.Rules(), t.root, t.next[0], t.next[1])
	total := int64(n)
	var buf [17]byte
	for _, m := range t.proved {
		binary.LittleEndian.PutUint64(buf[:8], uint64(len(m)))
		bw.Write(buf[:8])
		total += 8
		for k, mv := range m {
			binary.LittleEndian.PutUint64(buf[:8], uint64(k.X))
			binary.LittleEndian.PutUint64(buf[8:16], uint64(k.O))
			buf[16] = byte(mv)
			bw.Write(buf[:])
			total += 17
		}
	}
	return total, bw.Flush()
}

// ReadHoldTables reads tables written by HoldTables.WriteTo.
func ReadHoldTables(r io.Reader) (*HoldTables, error) {
	br := bufio.NewReader(r)
	magic, err := br.ReadString('\n')
	if err != nil || magic != holdMagic {
		return nil, fmt.Errorf("%w: not a file of hold tables (it starts %q)", ErrBadState, strings.TrimSpace(magic))
	}
	head, err := br.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("%w: truncated header", ErrBadState)
	}
	f := strings.Fields(head)
	if len(f) != 4 {
		return nil, fmt.Errorf("%w: bad header %q", ErrBadState, strings.TrimSpace(head))
	}
	var next [2]int
	for i := range next {
		n, err := strconv.Atoi(f[2+i])
		if err != nil || n < 0 || n > 64 {
			return nil, fmt.Errorf("%w: bad depth %q", ErrBadState, f[2+i])
		}
		next[i] = n
	}
	rs, ps := f[0], f[1]
	rules, err := game.ParseRules(rs)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadState, err)
	}
	p, err := game.ParsePosition(rules, ps)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadState, err)
	}
	t := &HoldTables{root: p, bound: true, next: next}
	var buf [17]byte
	for i := range t.proved {
		if _, err := io.ReadFull(br, buf[:8]); err != nil {
			return nil, fmt.Errorf("%w: truncated", ErrBadState)
		}
		n := binary.LittleEndian.Uint64(buf[:8])
		if n > 1<<34 {
			return nil, fmt.Errorf("%w: %d entries is too many", ErrBadState, n)
		}
		m := make(map[game.Key]int8, min(n, 1<<20))
		for range n {
			if _, err := io.ReadFull(br, buf[:]); err != nil {
				return nil, fmt.Errorf("%w: truncated", ErrBadState)
			}
			k := game.Key{X: game.Bitboard(binary.LittleEndian.Uint64(buf[:8])), O: game.Bitboard(binary.LittleEndian.Uint64(buf[8:16]))}
			if (k.X|k.O)&^rules.Board() != 0 || int8(buf[16]) >= 64 {
				return nil, fmt.Errorf("%w: an entry off the %s board", ErrBadState, rules)
			}
			m[k] = int8(buf[16])
		}
		t.proved[i] = m
	}
	return t, nil
}
