package gemm

import (
	"runtime"
	"time"
)

// PeakFMA measures one core's float32 peak in GFLOP/s: register-only
// AVX-512 fused multiply-adds (peakFMA512: 24 independent chains, no
// memory operands), the best of repeated windows of about 10 ms over at
// least total. It reports false where there is no such loop (no AVX-512,
// or the purego build).
func PeakFMA(total time.Duration) (float64, bool) {
	if !hasPeakFMA() {
		return 0, false
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const flopPerIter = 2 * 16 * 24
	iters := 1 << 12
	for {
		t := time.Now()
		peakFMA512(iters)
		if time.Since(t) >= 10*time.Millisecond {
			break
		}
		iters *= 2
	}
	best := 0.0
	for start := time.Now(); time.Since(start) < total || best == 0; {
		t := time.Now()
		peakFMA512(iters)
		if g := flopPerIter * float64(iters) / time.Since(t).Seconds() / 1e9; g > best {
			best = g
		}
	}
	return best, true
}
