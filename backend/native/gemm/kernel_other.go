//go:build !amd64 || purego

package gemm

func microKernel(kb int, a, b, c []float32, ldc int) { microGeneric(kb, a, b, c, ldc) }
