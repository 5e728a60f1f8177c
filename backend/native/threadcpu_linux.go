//go:build linux

package native

import (
	"syscall"
	"time"
	"unsafe"
)

// threadCPUTime is the CPU time of the calling thread
// (CLOCK_THREAD_CPUTIME_ID), or 0 where it cannot be read.
func threadCPUTime() time.Duration {
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 3, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}
