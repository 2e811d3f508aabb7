package persistence

import "context"

// Test hooks for the history and puzzle tests in package persistence_test.

// HistoryKeyForTest returns the key of a user's history.
func HistoryKeyForTest(s *Store, user string) string { return s.keys.history(user) }

// ArchiveKeyForTest returns the key of game id's archive.
func ArchiveKeyForTest(s *Store, id GameID) string {
	ch, suf, err := id.split()
	if err != nil {
		panic(err)
	}
	return s.keys.archive(ch, suf)
}

// ReviewKeyForTest returns the key of game id's cached review.
func ReviewKeyForTest(s *Store, id GameID) string {
	ch, suf, err := id.split()
	if err != nil {
		panic(err)
	}
	return s.keys.review(ch, suf)
}

// PuzzleDailyKeyForTest returns the key of a day's puzzle.
func PuzzleDailyKeyForTest(s *Store, guild, day, rules string) string {
	return s.keys.puzzleDaily(guild, day, rules)
}

// PuzzleStatsKeyForTest returns the key of a user's puzzle stats.
func PuzzleStatsKeyForTest(s *Store, guild, user string) string {
	return s.keys.puzzleStats(guild, user)
}

// ArchivePartlyForTest is ArchiveGame cut short, as by a crash, after the
// archive and the first users history entries.
func ArchivePartlyForTest(ctx context.Context, s *Store, g ArchivedGame, users int) error {
	return s.archiveGame(ctx, g, users)
}
