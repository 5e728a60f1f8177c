//go:build linux

package native

import (
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// benchCPU is the process's CPU time (CLOCK_PROCESS_CPUTIME_ID), or 0
// where the clock cannot be read: on a loaded machine, CPU time per
// operation says more about a kernel than the wall clock does.
func benchCPU() time.Duration {
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 2, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}

// reportCPU adds cpu-ns/op, the CPU time since t0 per iteration.
func reportCPU(b *testing.B, t0 time.Duration) {
	if t := benchCPU(); t0 > 0 && t > 0 && b.N > 0 {
		b.ReportMetric(float64(t-t0)/float64(b.N), "cpu-ns/op")
	}
}
