package gemm

import (
	"runtime"
	"time"
)

// PeakFMA measures one core's float32 peak in GFLOP/s: register-only
// fused multiply-adds of the widest vectors the CPU has (peakFMA512: 24
// independent chains of AVX-512; peakFMA256: 12 of AVX2; no memory
// operands), the best of repeated windows of about 10 ms over at least
// total. It reports false where there is no such loop (no AVX2, or the
// purego build).
func PeakFMA(total time.Duration) (float64, bool) {
	loop, flopPerIter := peakLoop()
	if loop == nil {
		return 0, false
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	iters := 1 << 12
	for {
		t := time.Now()
		loop(iters)
		if time.Since(t) >= 10*time.Millisecond {
			break
		}
		iters *= 2
	}
	best := 0.0
	for start := time.Now(); time.Since(start) < total || best == 0; {
		t := time.Now()
		loop(iters)
		if g := flopPerIter * float64(iters) / time.Since(t).Seconds() / 1e9; g > best {
			best = g
		}
	}
	return best, true
}

// hasPeakFMA reports whether PeakFMA has a loop on this CPU.
func hasPeakFMA() bool {
	loop, _ := peakLoop()
	return loop != nil
}
