//go:build unix

package main

import (
	"syscall"
	"time"
)

// benchCPUTime is the process's user+system CPU time (0 where unavailable).
func benchCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
