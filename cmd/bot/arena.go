package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/game"
)

// arenaCommand is "bot arena": a match between two levels.
func arenaCommand() *command {
	return &command{
		name:     "arena",
		synopsis: "-x L -o L [-rules R] [-games N] [-seed S] [-workers W] [-opening] [level options] [-x-OPTION V] [-o-OPTION V]",
		summary:  "play many games between two AI levels and tally the results",
		about: `Arena plays -games games between level -x (X, moving first) and level -o,
on -workers goroutines at once, and prints each side's wins, draws and
losses and its average and longest move time. The level options without a
prefix (-depth, ...) apply to both sides; -x-depth, -o-depth and so on set
one side's and take precedence. Each game's seeds are derived from -seed
and the game's number, so a match replays exactly whatever the number of
workers (unless a level is limited by a time budget). Besides the levels
of "bot levels", the arena plays "uct": plain textbook UCT (random
playouts, UCB1 with c = sqrt 2, no solver), the yardstick for mcts; give
both the same -iterations.`,
		run: runArena,
	}
}

// runArena parses arena's flags, plays the match and prints the tally.
func runArena(ctx context.Context, e *env, cmd *command, args []string) error {
	fs := newFlagSet(cmd)
	xLevel := fs.String("x", "", "the `level` playing X, who moves first (see \"bot levels\"); required")
	oLevel := fs.String("o", "", "the `level` playing O (see \"bot levels\"); required")
	rules := fs.String("rules", "3x3k3", rulesHelp)
	games := 100
	fs.Func("games", "`number` of games to play (default 100)", func(s string) error {
		v, err := parseCount(s, "number of games")
		games = v
		return err
	})
	workers := e.workers
	fs.Func("workers", fmt.Sprintf("`number` of games played at once (default %d, one per core)", e.workers), func(s string) error {
		v, err := parseCount(s, "number of workers")
		workers = v
		return err
	})
	opening := fs.Bool("opening", false, "start every game from a random X-O-X opening (X-O-X rules only)")
	var seed seedFlag
	seed.register(fs, "`seed` of the match; each game's seeds derive from it (default a random seed, printed)")
	var shared, xf, of levelFlags
	shared.register(fs, "", "both sides")
	xf.register(fs, "x-", "X")
	of.register(fs, "o-", "O")
	if err := e.parseFlags(cmd, fs, args); err != nil {
		return err
	}
	r, err := game.ParseRules(*rules)
	if err != nil {
		return badInput("-rules: %s", explain(err))
	}
	if *opening && len(r.Openings()) == 0 {
		return badInput("-opening: %s has no random opening; only the X-O-X variant (like 4x3xox) has one", r)
	}
	// The arena also plays "uct", plain UCT, the yardstick mcts is
	// measured against; it is registered here only, so serve never
	// offers it.
	e.levels.Register(ai.UCTLevel())
	if err := e.loadLevelVersions(ctx, r, levelSpec{"-x", *xLevel}, levelSpec{"-o", *oLevel}); err != nil {
		return err
	}
	for _, side := range []struct{ flag, level string }{{"-x", *xLevel}, {"-o", *oLevel}} {
		if err := e.checkNetwork(side.flag, side.level, r); err != nil {
			return err
		}
	}
	xOpts, oOpts := xf.over(shared), of.over(shared)
	xFactory, err := e.factory("-x", *xLevel, xOpts)
	if err != nil {
		return err
	}
	oFactory, err := e.factory("-o", *oLevel, oOpts)
	if err != nil {
		return err
	}
	s := seed.resolve(e)
	xName := levelName(strings.ToLower(strings.TrimSpace(*xLevel)), xOpts)
	oName := levelName(strings.ToLower(strings.TrimSpace(*oLevel)), oOpts)
	w := min(workers, games)
	fmt.Fprintf(e.stdout, "%s: X %s vs O %s, %d %s, seed %d, %d %s\n",
		r, xName, oName, games, plural(games, "game", "games"), s, w, plural(w, "worker", "workers"))

	res, err := ai.Arena(ctx, ai.ArenaConfig{
		Rules: r, X: xFactory, O: oFactory, Games: games, Seed: s,
		Workers: workers, RandomOpening: *opening, Now: e.now,
	})
	if err != nil && ctx.Err() == nil {
		return err
	}
	printArena(e, xName, oName, res)
	if err != nil {
		return fmt.Errorf("interrupted after %d of %d games", res.Games, games)
	}
	return nil
}

// factory returns a player factory for a level, reporting an unknown level
// or bad options as input errors that name flag.
func (e *env) factory(flag, level string, lf levelFlags) (ai.Factory, error) {
	if strings.TrimSpace(level) == "" {
		return nil, badInput("%s: no level given; the levels are %s", flag, strings.Join(e.levels.Names(), ", "))
	}
	f, err := ai.LevelFactory(e.levels, level, lf.options(0))
	if err != nil {
		return nil, playerError(flag, err)
	}
	return f, nil
}

// printArena writes the tally of a match as a table: text columns to the
// left, numbers to the right.
func printArena(e *env, xName, oName string, res ai.ArenaResult) {
	pct := func(n int) string {
		if res.Games == 0 {
			return strconv.Itoa(n)
		}
		return fmt.Sprintf("%d (%.1f%%)", n, 100*float64(n)/float64(res.Games))
	}
	rows := [][]string{
		{"side", "level", "wins", "draws", "losses", "avg move", "max move"},
		{"X", xName, pct(res.XWins), pct(res.Draws), pct(res.OWins), shortDuration(res.X.Mean()), shortDuration(res.X.Max)},
		{"O", oName, pct(res.OWins), pct(res.Draws), pct(res.XWins), shortDuration(res.O.Mean()), shortDuration(res.O.Max)},
	}
	width := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, cell := range row {
			width[i] = max(width[i], utf8.RuneCountInString(cell))
		}
	}
	for _, row := range rows {
		var b strings.Builder
		for i, cell := range row {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(cell))
			switch {
			case i < 2 && i == len(row)-1:
				b.WriteString(cell)
			case i < 2:
				b.WriteString(cell + pad + "  ")
			default:
				b.WriteString("  " + pad + cell)
			}
		}
		fmt.Fprintln(e.stdout, strings.TrimRight(b.String(), " "))
	}
	fmt.Fprintf(e.stdout, "%d games in %s, %.0f games/s\n", res.Games, shortDuration(res.Elapsed), res.GamesPerSecond())
}

// parseCount reads a whole number of at least 1; what names it in the
// message.
func parseCount(s, what string) (int, error) {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || v < 1 {
		return 0, fmt.Errorf("the %s is a whole number, 1 or more", what)
	}
	return v, nil
}

// shortDuration rounds d to three significant digits, as in "1.23ms".
func shortDuration(d time.Duration) string {
	for unit := time.Duration(1); unit < time.Second; unit *= 10 {
		if d < 1000*unit {
			return d.Round(unit).String()
		}
	}
	return d.Round(time.Second).String()
}
