//go:build unix

package persistence

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockDataDir takes an exclusive lock on dir (a lock file in it), so two
// processes never run private servers on one append-only file. The lock
// goes when the returned function is called or the process dies.
func lockDataDir(dir string) (unlock func() error, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("%w: data directory: %v", ErrNoServer, err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "bot.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("%w: data directory lock: %v", ErrNoServer, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: data directory %s is in use by another bot process; "+
				"to run several processes, give them all the same Redis URL", ErrNoServer, dir)
		}
		return nil, fmt.Errorf("%w: data directory lock: %v", ErrNoServer, err)
	}
	return f.Close, nil
}
