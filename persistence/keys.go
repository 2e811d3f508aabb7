package persistence

// keys builds every Redis key the Store uses; no key is spelled anywhere
// else. Keys that must change together in one atomic step share a hash tag
// (the part in braces), so they live in one Cluster slot.
type keys struct{ prefix string }

// tag wraps s as a hash tag.
func tag(s string) string { return "{" + s + "}" }

// --- sessions, moves, deadlines, active games, idempotency, locks ---

// --- corpus, ratings and stats, model registry ---
