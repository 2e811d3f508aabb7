//go:build !unix

package persistence

// lockDataDir does nothing where flock is not available; one process per
// data directory is then the operator's job.
func lockDataDir(string) (func() error, error) { return func() error { return nil }, nil }
