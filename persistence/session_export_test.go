package persistence

// Test hooks for the external test package (package persistence_test
// cannot reach unexported names, and redistest imports this package, so
// the session tests live outside it).

// GameKeyForTest returns the Redis key of game id.
func GameKeyForTest(s *Store, id GameID) string {
	ch, suf, err := id.split()
	if err != nil {
		panic(err)
	}
	return s.keys.game(ch, suf)
}

// ActiveKeyForTest returns the key of channel's active map.
func ActiveKeyForTest(s *Store, channel string) string { return s.keys.active(channel) }

// DueKeyForTest returns the key of the deadline index.
func DueKeyForTest(s *Store) string { return s.keys.due() }

// ClaimLeaseForTest is the claim lease.
const ClaimLeaseForTest = claimLease

// PipelinesForTest returns how many pipelines of two commands or more the
// Store's game path has sent.
func PipelinesForTest(s *Store) int64 { return s.batch.pipelines.Load() }
