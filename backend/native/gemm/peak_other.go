//go:build !amd64 || purego

package gemm

func hasPeakFMA() bool { return false }

func peakFMA512(int) {}
