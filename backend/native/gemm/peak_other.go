//go:build !amd64 || purego

package gemm

// peakLoop: no vector FMA loop here.
func peakLoop() (func(n int), float64) { return nil, 0 }
