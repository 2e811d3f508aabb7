package persistence

import "context"

// Test hooks for the corpus, ratings and model tests in package
// persistence_test.

// CorpusStreamKeyForTest returns the key of the rules' corpus stream.
func CorpusStreamKeyForTest(s *Store, rules string) string { return s.keys.corpusStream(rules) }

// ModelBlobKeyForTest returns the key of a model version's blob.
func ModelBlobKeyForTest(s *Store, rules string, v int64) string { return s.keys.modelBlob(rules, v) }

// ModelMetaKeyForTest returns the key of a model version's metadata.
func ModelMetaKeyForTest(s *Store, rules string, v int64) string { return s.keys.modelMeta(rules, v) }

// RatingBoardKeyForTest returns the key of a scope's leaderboard.
func RatingBoardKeyForTest(s *Store, guild string) string { return s.keys.ratingBoard(guild) }

// RecordGuildOnlyForTest counts a human-vs-human game in its guild scope
// only, as a RecordResult cut short by a timeout after the first script
// would have.
func RecordGuildOnlyForTest(ctx context.Context, s *Store, g FinishedGame) error {
	res := map[bool]string{true: "w", false: "l"}[g.Result == 1]
	return ratingScript.Run(ctx, s.rdb,
		[]string{s.keys.ratingApplied(g.Guild, g.ID), s.keys.ratingBoard(g.Guild), s.keys.ratingStats(g.Guild, g.X.User), s.keys.ratingStats(g.Guild, g.O.User)},
		int64(ratingMarkerTTL.Seconds()), "hh", res, g.X.User, g.O.User, "", RatingK, RatingStart, g.Guild).Err()
}
