//go:build !amd64 || purego

package gemm

// TapRowsOK reports false: no in-place-B kernels here.
func TapRowsOK() bool { return false }

// TapRow is never called where TapRowsOK is false.
func TapRow(a []float32, lda, r0, r1 int, src []float32, base int, offs []int, n int, c []float32, ldc int, first bool) {
	panic("gemm: no TapRow kernels")
}
