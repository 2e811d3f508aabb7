// Package puzzle finds tic-tac-toe puzzles: positions in which the side to
// move has a forced win that is not obvious, drawn first from real games
// (a corpus) and otherwise from varied self-play, one per seed. It checks
// every claim a puzzle makes, and judges the moves of someone playing a
// puzzle out against perfect defence.
//
// A position is a puzzle when the game is still going, the side to move
// can force a win, no move wins at once, and either exactly one move wins
// or the fastest win takes at least Options.MinPlies plies. Generate also
// passes over the positions games start from and those in which every
// move wins.
//
// Values (who wins, and which moves keep the win) come from ai.Solver.
// The length of the fastest win comes from a search of this package's own
// (depth-bounded, within a node budget, so that a position too costly to
// measure is skipped rather than guessed); the tests hold it to the
// solver's measured lengths and to brute force.
//
// Everything is deterministic: the same rules, seed and options give the
// same puzzle. Seed turns a server, a day and a board into a seed, so
// each server gets one puzzle a day per board.
//
// The package imports only ai, game and the standard library.
package puzzle
