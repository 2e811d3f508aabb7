// Package review judges the moves of a finished (or stopped) game: for
// each move it gives the value of the position before and after it and a
// verdict, with perfect knowledge wherever the exact solver finishes
// within a budget, and with an estimate elsewhere.
//
// # Exact values
//
// Every position of the game is solved by one ai.Solver, reused for the
// whole review, with a node budget per position (Options.MaxNodes). Where
// it does not finish, the prover's searches may still prove the value of
// every move (ai.Solver.ProveWithin, within Options.ProofNodes: on 6x6k5,
// 7x7k5 or 8x8k4, where the solver's search takes minutes or hours), and
// the position counts as solved, the plies of its won and lost moves
// unknown. A solved position knows the value of every move in it, so the position
// after a move from a solved position has an exact value too. A finished
// position is always exact. A move whose position before was solved is
// judged exactly (Move.Exact):
//
//   - Mistake: it turned a draw into a loss; MissedWin: a win into a
//     draw; Blunder: a win into a loss.
//   - In a won or lost position, a move that keeps the value is Best when
//     it wins fastest or loses slowest (its plies to the end under best
//     play equal the optimum of the value-keeping moves), else Good. When
//     the solver could not measure the plies of some value-keeping move
//     (only on large boards) the optimum is unknown and every
//     value-keeping move is Best.
//   - In a drawn position, the "traps" of a drawing move are the replies
//     that lose the draw for the opponent. A drawing move is an
//     Inaccuracy when another drawing move leaves strictly more traps,
//     else Best. On boards of up to 16 cells the traps are always
//     measured; on larger ones only within a per-position node budget
//     (Options.TrapNodes), and not at all in a position that alone took
//     more than that budget to solve. A move whose alternatives were not
//     all measured is Best unless a measured one already leaves more
//     traps, and Move.Traps is -1 when the move's own traps were not
//     measured.
//     (On 3x3 the centre opening is an Inaccuracy: after a corner 7 of
//     the 8 replies lose, after the centre only 4.)
//   - A move with only one legal choice is Best, exact or not.
//
// Exact values have Result XWins, OWins or Draw, Score exactly 1, 0.5 or
// 0 and Plies the plies to the end under best play (fastest win, slowest
// loss; a draw ends when the board is full, so its plies are the free
// cells; a finished position has 0). Plies is 0 when unknown: the plies
// of wins and losses are searched within a node bound of their own, which
// large boards can exhaust.
//
// # Estimates
//
// A position the solver does not finish within the budget is estimated:
// by Options.Value when it is set and answers, else by Monte Carlo tree
// search (ai.MCTS, seeded from Options.Seed, Options.Iterations
// iterations, never cut by the clock). An estimate has Result
// game.Ongoing, Exact false and Score X's expected score in [0, 1]; its
// best move is the one the search would play, or the move whose position
// the value function rates best. A move whose position before is
// estimated is judged on the drop d of the mover's expected score (before
// minus after):
//
//   - d >= 0.75: Blunder (as win to loss);
//   - d >= 0.25: MissedWin when the mover's score before was at least
//     0.75 (as win to draw), else Mistake (as draw to loss);
//   - d >= 0.1: Inaccuracy;
//   - d <= -0.1, a gain no move can really make: Unjudged, as the
//     estimates disagree by more than the inaccuracy threshold;
//   - otherwise Best when it is the estimate's best move, else Good.
//
// When both values are exact (a position not solved itself whose value the
// position before knew) these thresholds give the exact verdicts: win to
// draw is a MissedWin, draw to loss a Mistake, win to loss a Blunder. A
// review with any estimated value has Exact false; no estimate claims
// exactness. With estimates, TurningPoint rests on the thresholds, and
// Decided on the values that are exact, so a won game may show as decided
// later than it was.
//
// # Cost
//
// A 3x3 review takes about 50 microseconds and a 4x4 one about a
// millisecond. A 25-move 5x5k4 game takes about 0.2 s, but up to about
// 2 s when it opens off the centre: the positions after one or two such
// marks are the dearest of 5x5k4 to solve, about 2 million nodes each
// (see BenchmarkReview).
//
// # Reproducibility
//
// A review depends only on its start, moves and Options: the solver's
// table is emptied at the start of each review, so a budget cuts at the
// same place every time, and the estimates' search is seeded afresh.
package review
