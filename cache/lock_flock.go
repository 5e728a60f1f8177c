//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package cache

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock on f, waiting for it.
func lockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }

func unlockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
