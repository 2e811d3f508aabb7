//go:build unix

package ai

import "syscall"

// cpuTime returns the process's user and system CPU time in nanoseconds,
// so benchmarks can report their cost on a loaded machine, where wall
// time overstates it.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
