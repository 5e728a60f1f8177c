//go:build amd64 && !purego

package gemm

import "golang.org/x/sys/cpu"

//go:noescape
func k14x32acc(kc int, a, b, c *float32, ldc int)

//go:noescape
func k14x32set(kc int, a, b, c *float32, ldc int)

//go:noescape
func k6x16acc(kc int, a, b, c *float32, ldc int)

//go:noescape
func k6x16set(kc int, a, b, c *float32, ldc int)

// asmKernel wraps an assembly kernel with the bounds checks it relies on.
func asmKernel(mr, nr int, f func(kc int, a, b, c *float32, ldc int)) func(kb int, a, b, c []float32, ldc int) {
	return func(kb int, a, b, c []float32, ldc int) {
		_ = a[mr*kb-1]
		_ = b[nr*kb-1]
		_ = c[(mr-1)*ldc+nr-1]
		f(kb, &a[0], &b[0], &c[0], ldc)
	}
}

var avx512 = &kernelSet{name: "avx512-14x32", mr: 14, nr: 32,
	acc: asmKernel(14, 32, k14x32acc), set: asmKernel(14, 32, k14x32set), packA: packA14}

var avx2 = &kernelSet{name: "avx2-6x16", mr: 6, nr: 16,
	acc: asmKernel(6, 16, k6x16acc), set: asmKernel(6, 16, k6x16set), packA: packA6}

// kernelSets lists the sets this CPU runs, fastest first.
func kernelSets() []*kernelSet {
	var s []*kernelSet
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL {
		s = append(s, avx512)
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		s = append(s, avx2)
	}
	return append(s, generic)
}

var active = kernelSets()[0]
