// Package ai holds the computer players: one Player interface and a ladder
// of levels from random to perfect, selectable by name through a Registry.
// Search code lives here too: minimax with alpha-beta, Monte Carlo tree
// search and an exact solver. Players honour their context's deadline.
//
// The package imports only game and the standard library.
package ai
