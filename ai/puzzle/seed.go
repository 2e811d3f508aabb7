package puzzle

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/tttbot/ttt-bot/game"
)

// Seed returns the puzzle seed of a server (guild), a day (as
// "2026-11-24") and a board: the first 8 bytes of a SHA-256 hash of the
// three, big-endian. It is stable across releases and machines, so a
// server sees one puzzle per day per board, and different servers, days
// or boards get unrelated seeds.
func Seed(guild, day string, rules game.Rules) uint64 {
	h := sha256.New()
	// Each field is length-prefixed, so no two inputs share a hash input.
	for _, f := range []string{"ttt-bot puzzle v1", guild, day, rules.String()} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(f)))
		h.Write(n[:])
		h.Write([]byte(f))
	}
	return binary.BigEndian.Uint64(h.Sum(nil)[:8])
}
