//go:build amd64 && !purego

package gemm

import "golang.org/x/sys/cpu"

//go:noescape
func kernel14x32(kc int, a, b, c *float32, ldc int)

var hasAVX512 = cpu.X86.HasAVX512F

func microKernel(kb int, a, b, c []float32, ldc int) {
	if hasAVX512 {
		_ = c[(mr-1)*ldc+nr-1] // bounds: the kernel writes mr rows of nr
		_ = a[mr*kb-1]
		_ = b[nr*kb-1]
		kernel14x32(kb, &a[0], &b[0], &c[0], ldc)
		return
	}
	microGeneric(kb, a, b, c, ldc)
}
