package ai

// builtins lists the levels every Registry starts with, weakest first.
func builtins() []Level {
	return []Level{
		{
			Name:    "random",
			Summary: "plays a uniformly random legal move",
			Floor:   "unchanged: it ignores load",
			New:     func(o Options) (Player, error) { return NewRandom(o), nil },
		},
		{
			Name:    "easy",
			Summary: "wins if it can, else blocks, else plays at random",
			Floor:   "unchanged: it ignores load",
			New:     func(o Options) (Player, error) { return NewEasy(o), nil },
		},
		{
			Name:    "minimax",
			Summary: "alpha-beta search with a time budget and an optional depth limit",
			Floor:   "a quarter of its budget; always searches at least 2 plies, so it takes wins in one and blocks",
			New:     newMinimaxPlayer,
		},
		{
			Name:    "mcts",
			Summary: "Monte Carlo tree search that proves forced wins and losses",
			Floor:   "a quarter of its budget and iterations; still takes wins in one and blocks",
			New:     newMCTSPlayer,
		},
		{
			Name:    "perfect",
			Summary: "exact play from the solver, steering for the opponent's mistakes",
			Floor:   "keeps the game-theoretic value (skips the opponent model under load)",
			New:     newPerfectPlayer,
		},
	}
}
