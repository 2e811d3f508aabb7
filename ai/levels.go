package ai

// builtins lists the levels every Registry starts with, weakest first.
func builtins() []Level {
	return []Level{
		{Name: "random", Summary: "plays a uniformly random legal move", New: func(o Options) (Player, error) { return NewRandom(o), nil }},
		{Name: "easy", Summary: "wins if it can, else blocks, else plays at random", New: func(o Options) (Player, error) { return NewEasy(o), nil }},
		{Name: "minimax", Summary: "alpha-beta search with a time budget and an optional depth limit", New: newMinimaxPlayer},
		{Name: "mcts", Summary: "Monte Carlo tree search that proves forced wins and losses", New: newMCTSPlayer},
		{Name: "perfect", Summary: "exact play from the solver, steering for the opponent's mistakes", New: newPerfectPlayer},
	}
}
