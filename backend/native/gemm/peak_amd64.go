//go:build amd64 && !purego

package gemm

func hasPeakFMA() bool { return avx512 == kernelSets()[0] }
