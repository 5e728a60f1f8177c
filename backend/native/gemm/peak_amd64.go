//go:build amd64 && !purego

package gemm

import "golang.org/x/sys/cpu"

// peakLoop returns the register-only FMA loop of the widest vectors this
// CPU runs and the float32 FLOP of one iteration (nil where there is
// none).
func peakLoop() (func(n int), float64) {
	switch {
	case isAVX512(kernelSets()[0]):
		return peakFMA512, 2 * 16 * 24
	case cpu.X86.HasAVX2 && cpu.X86.HasFMA:
		return peakFMA256, 2 * 8 * 12
	}
	return nil, 0
}
