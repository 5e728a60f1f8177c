//go:build !amd64 || purego

package gemm

// No tail kernels here: tileMul runs the micro-kernels over the panel.
func dotTail(ks *kernelSet, kb int, apanel []float32, lda int, bpanel []float32, mm, nn int, c []float32, ldc int, first bool) bool {
	return false
}
