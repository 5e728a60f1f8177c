//go:build amd64 && !purego

package gemm

func hasPeakFMA() bool { return isAVX512(kernelSets()[0]) }
