// Package retrain is the retrain job: it trains a new network for one
// rules key on the games people played, checks it against the live model
// and the fixed baselines, and publishes it to the model registry only if
// it is no worse. The moderator command (/ttt-admin retrain), the periodic
// trigger of the serve command and "bot retrain" all run it.
//
// # One job at a time
//
// A run holds the Redis lock "retrain" (persistence.AcquireLock) for its
// whole length, renewing its lease in the background; a second run,
// from this process or any other, fails at once with ErrRunning, which
// names the holder. If a renewal finds the lock lost (the lease ran out,
// say because Redis was unreachable for longer than the lease), the run
// is cancelled and publishes nothing. If the process dies, the lease runs
// out and the next run takes the lock.
//
// # Steps
//
//  1. Read the whole corpus of the rules (persistence.ScanCorpus). Corrupt
//     records are counted, reported and skipped. Games after the
//     checkpoint of the consumer "retrain" are the new games; with fewer
//     than Config.MinNewGames of them the run is refused
//     (ErrTooFewGames) unless the request sets Force. One game in ten
//     (HeldOut, by a hash of the game's ID, the same in every run) is
//     held out of training: the new ones make the "held-out" set, those
//     of earlier runs the fixed "reference" set.
//  2. Load the live model: the registry's current version, else the
//     shipped default weights (Config.Defaults), else none. A blob that
//     does not load (checksum, format, other rules) is reported and the
//     job falls back to the next source instead of failing.
//  3. Train with package train on a bounded share of the CPU
//     (Config.CPUShare), warm-starting from the live network when its
//     architecture is the one being trained. Training bounds each
//     player's share of the human-move head's signal and down-weights
//     players far worse than chance (train.Config.MaxPlayerShare,
//     train.FarWorseZ), and measures the candidate and the live model on
//     both held-out sets (human top-1, best-move agreement with the
//     solver), also after every epoch (the chart's held-out lines).
//  4. Gate the candidate (below).
//  5. Promoted: check the lock, then publish (persistence.PublishModel,
//     the single atomic step that changes what the bots play). Rejected:
//     keep the candidate with the report (persistence.SaveCandidate).
//  6. Advance the checkpoint to the last record read, and release the
//     lock.
//
// The whole run is bounded by Config.TimeLimit: past it the job stops and
// publishes nothing. A crash at any point leaves the registry either as it
// was or with the new version fully published (the publish is one Lua
// script); the checkpoint only moves after that, so at worst the next run
// trains on the same games again.
//
// # The gating rule
//
// The candidate C plays Gate.Games games (half as X, half as O) against
// each opponent; a match's score is (wins + draws/2) / games and its loss
// rate losses / games, from C's side. Margin is Gate.Margin (default
// DefaultMargin, 0.05).
//
// With a live model L, the live model plays the same baseline matches
// with the same seeds (so both meet the same random choices), and C is
// promoted if and only if
//
//   - head to head, C scores at least 0.5 - Margin against L (the first
//     move of each side is random, so that two deterministic networks play
//     many different games; each opening is played with both colour
//     assignments), and
//   - against every baseline B, C scores at least L's score against B
//     minus Margin, and C's loss rate is at most L's loss rate plus
//     Margin.
//
// With no live model the reference is a random mover, and the same
// baseline conditions apply (without the head-to-head): C must score at
// least the random mover's score minus Margin, and lose at most its loss
// rate plus Margin, against every baseline, with the same seeds. That
// stops a broken network (one that plays worse than chance), while any
// network that plays goes live, since having one beats having none.
//
// Against perfect (a baseline on boards of up to 12 cells) the loss margin
// is 0 when there is a live model: the candidate may not lose more games
// to perfect than the live model does.
//
// # The human-move head's rule
//
// The matches test the best-move head only. With a live model, the
// candidate must also predict people as well: on each held-out set with
// at least MinHeldOutMoves human moves, its human head's player-balanced
// top-1 (train.Figures.HumanBalanced: the mean over the set's players of
// the share of each one's moves it ranks first, each player counting
// once, a player far worse than chance a tenth) is at least the live
// model's minus Gate.HumanTolerance (default DefaultHumanTolerance, half
// a point). The reference set's test is waived when the new held-out
// games show a change of style across the server: at least
// BroadPlayers players, and two thirds of those with
// train.MinPlayerMoves held-out moves or more, whose new held-out moves
// the candidate predicts better than the live model, and at most half
// as many predicted worse.
// A flood of games from a few accounts cannot show that (it has too few
// players), while a server whose people really changed their habits
// does; either way the held-out set's own test still applies.
//
// Why half a point: the comparison is paired (both models predict the
// same moves), and retraining on the same players' games moves the
// figure by a few tenths of a point, while a candidate that learnt from
// a flood loses points on the regulars (in cmd/bot's TestRetrainPoison,
// trained without the per-player bound, it predicts 4.7 points fewer of
// their moves, and the gate refuses it). The report names the rule that decided
// (GateReport.Decided).
//
// Margin is always how much worse than the reference the candidate may
// do: a larger margin is more lenient, a negative one asks for a
// candidate better than the reference by that much (-1 rejects every
// candidate, which tests use).
//
// Why 0.05: over 200 games the standard error of a score is at most
// 0.5/sqrt(200) = 0.035, and much less in practice because most games
// between good players are draws and the baseline comparisons are paired
// (same seeds). A margin of 0.05 (1.4 standard errors in the worst case)
// lets a candidate as strong as the live model through at least about 92%
// of the time, while a regression of 0.1 (10 points of score: one game in
// five lost instead of drawn, or one in ten lost instead of won) is caught
// at least about 92% of the time. Loss rates get the same margin: losing
// is what players notice.
//
// The default baselines are train.DefaultOpponents: random, easy and
// perfect on boards of up to 12 cells, random, easy and mcts@1000 (MCTS
// with 1,000 iterations a move, deterministic for a seed) on the others.
package retrain
