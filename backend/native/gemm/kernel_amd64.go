//go:build amd64 && !purego

package gemm

import "golang.org/x/sys/cpu"

//go:noescape
func k14x32acc(kc int, a, b, c *float32, ldc int)

//go:noescape
func k14x32set(kc int, a, b, c *float32, ldc int)

//go:noescape
func k14x32eacc(kc int, a, b, c *float32, ldc int)

//go:noescape
func k14x32eset(kc int, a, b, c *float32, ldc int)

//go:noescape
func cpuidVendor() (ebx, ecx, edx uint32)

//go:noescape
func k6x16acc(kc int, a, b, c *float32, ldc int)

//go:noescape
func k6x16set(kc int, a, b, c *float32, ldc int)

//go:noescape
func transposeA14(p, src *float32, lda, n16 int)

//go:noescape
func copyB32(dst, src *float32, ldb, kb, np int)

//go:noescape
func copyB32Part(dst, src *float32, ldb, kb int, mask uint32)

//go:noescape
func transposeB16(dst, src *float32, ldb, n16 int)

//go:noescape
func copyA14T(p, src *float32, lda, kb int)

//go:noescape
func peakFMA512(n int)

//go:noescape
func peakFMA256(n int)

//go:noescape
func gatherConv32(dst, img *float32, cols, taps *int32, kb int, hw *int32)

//go:noescape
func gatherConv16(dst, img *float32, cols, taps *int32, kb int, hw *int32, contig int, masks *int32, period, ahead int)

//go:noescape
func copyB16(dst, src *float32, ldb, kb, np int)

//go:noescape
func copyB16Part(dst, src *float32, ldb, kb, nn int)

//go:noescape
func transposeB8(dst, src *float32, ldb, n8 int)

//go:noescape
func copyA6T(p, src *float32, lda, kb int)

//go:noescape
func transposeA6(p, src *float32, lda, n8 int)

// packA6Fast packs 6 rows of A like packA6, 8 k steps at a time
// transposed in AVX2 registers, the last kb%8 steps in Go.
func packA6Fast(p, src []float32, lda, kb int) {
	n8 := kb / 8
	if n8 == 0 || !hasPack16 {
		packA6(p, src, lda, kb)
		return
	}
	_ = src[5*lda+8*n8-1]
	_ = p[6*8*n8-1]
	transposeA6(&p[0], &src[0], lda, n8)
	if t := 8 * n8; t < kb {
		packA6(p[6*t:], src[t:], lda, kb-t)
	}
}

//go:noescape
func copyA6T4(p, src *float32, lda, kb int)

// hasPack16: the AVX2 packing routines of pack_avx2_amd64.s (copyB16,
// copyB16Part, transposeB8, copyA6T, copyA6T4, transposeA6, for the 6×16
// kernel's panels; tests switch it off to compare them with the Go loops).
var hasPack16 = cpu.X86.HasAVX2

// PackConv gathers panels of 32 columns with AVX-512 (gatherConv32, where
// the 14×32 kernel runs) and panels of 16 with AVX2 (gatherConv16, the
// 6×16 kernel's); hasConvGather says it does for the active kernel's.
var (
	convGather32  = isAVX512(active)
	convGather16  = cpu.X86.HasAVX2
	hasConvGather = convGather32 || convGather16 && active == avx2
)

// packA14Fast packs 14 rows of A like packA14, 16 k steps at a time
// transposed in AVX-512 registers, the last kb%16 steps in Go.
func packA14Fast(p, src []float32, lda, kb int) {
	n16 := kb / 16
	if n16 > 0 {
		_ = src[13*lda+16*n16-1]
		_ = p[14*16*n16-1]
		transposeA14(&p[0], &src[0], lda, n16)
	}
	if t := 16 * n16; t < kb {
		packA14(p[14*t:], src[t:], lda, kb-t)
	}
}

// hasPackAsm: the AVX-512 packing routines (copyB32, transposeB16,
// copyA14T) run where the 14×32 kernel does.
var hasPackAsm = isAVX512(active)

// asmKernel wraps an assembly kernel with the bounds checks it relies on.
func asmKernel(mr, nr int, f func(kc int, a, b, c *float32, ldc int)) func(kb int, a, b, c []float32, ldc int) {
	return func(kb int, a, b, c []float32, ldc int) {
		_ = a[mr*kb-1]
		_ = b[nr*kb-1]
		_ = c[(mr-1)*ldc+nr-1]
		f(kb, &a[0], &b[0], &c[0], ldc)
	}
}

// partKernel wraps a kernel for the first rows < mr of a panel (whose A
// still holds mr values per k step) with the bounds checks it relies on.
func partKernel(rows, mr, nr int, f func(kc int, a, b, c *float32, ldc int)) func(kb int, a, b, c []float32, ldc int) {
	return func(kb int, a, b, c []float32, ldc int) {
		_ = a[mr*kb-1]
		_ = b[nr*kb-1]
		_ = c[(rows-1)*ldc+nr-1]
		f(kb, &a[0], &b[0], &c[0], ldc)
	}
}

func partKernels(mr, nr int, fs [][2]func(kc int, a, b, c *float32, ldc int)) [][2]func(kb int, a, b, c []float32, ldc int) {
	part := make([][2]func(kb int, a, b, c []float32, ldc int), mr)
	for r := 1; r < mr; r++ {
		part[r] = [2]func(kb int, a, b, c []float32, ldc int){partKernel(r, mr, nr, fs[r][0]), partKernel(r, mr, nr, fs[r][1])}
	}
	return part
}

// directKernels wraps the kernels reading r ≤ mr rows of A in place
// ([r] = {acc, set}) with the bounds checks they rely on: they read the
// first cols columns of B panels nr wide, and write cols columns of C.
func directKernels(nr, cols int, fs [][2]func(kc int, a *float32, lda int, b, c *float32, ldc int)) [][2]directKernel {
	return wrapDirect(nr, cols, fs, false)
}

// directKernelsN wraps the kernels reading r ≤ mr rows of A in place over
// a row of B panels nr wide ([r] = {acc, set}) with the bounds checks
// they rely on.
func directKernelsN(nr int, fs [][2]func(kc int, a *float32, lda int, b, c *float32, ldc, panels int)) [][2]directKernelN {
	return wrapDirectN(nr, fs, false)
}

// wrapDirect wraps direct kernels with their bounds checks, A read
// row-major or column-major.
func wrapDirect(nr, cols int, fs [][2]func(kc int, a *float32, lda int, b, c *float32, ldc int), colMajor bool) [][2]directKernel {
	d := make([][2]directKernel, len(fs))
	for r := 1; r < len(fs); r++ {
		for v, f := range fs[r] {
			d[r][v] = func(kb int, a []float32, lda int, b, c []float32, ldc int) {
				_ = a[aEnd(r, kb, lda, colMajor)]
				_ = b[nr*(kb-1)+cols-1]
				_ = c[(r-1)*ldc+cols-1]
				f(kb, &a[0], lda, &b[0], &c[0], ldc)
			}
		}
	}
	return d
}

// wrapDirectN is wrapDirect for kernels over a row of B panels.
func wrapDirectN(nr int, fs [][2]func(kc int, a *float32, lda int, b, c *float32, ldc, panels int), colMajor bool) [][2]directKernelN {
	d := make([][2]directKernelN, len(fs))
	for r := 1; r < len(fs); r++ {
		for v, f := range fs[r] {
			d[r][v] = func(kb int, a []float32, lda int, b, c []float32, ldc, panels int) {
				if panels < 1 || kb < 1 {
					panic("gemm: a row of panels needs one panel and one k step at least")
				}
				_ = a[aEnd(r, kb, lda, colMajor)]
				_ = b[nr*kb*panels-1]
				_ = c[(r-1)*ldc+nr*panels-1]
				f(kb, &a[0], lda, &b[0], &c[0], ldc, panels)
			}
		}
	}
	return d
}

// avx512 and avx512e are the AVX-512 sets: the same direct kernels, and
// packed kernels that broadcast A with a VBROADCASTSS per element
// (avx512) or inside each FMA (avx512e, embedded broadcast). Which runs
// faster depends on the core: embedded broadcasts ran ~6% faster on Zen
// 4 and at half the speed on Ice Lake (gen/main.go), so kernelSets puts
// avx512e first on AMD's CPUs and avx512 first on the others.
var avx512 = &kernelSet{name: "avx512-14x32", mr: 14, nr: 32,
	acc: asmKernel(14, 32, k14x32acc), set: asmKernel(14, 32, k14x32set), packA: packA14Fast,
	part: partKernels(14, 32, partial14x32[:]), direct: directKernels(32, 32, direct14x32[:]),
	half: directKernels(32, 16, half14x32[:]), phalf: halfKernels(14, 32, packedHalf14x32[:]),
	directN: directKernelsN(32, direct14x32N[:]),
	directT: directTKernels(32, directT14x32[:]), directTN: directTKernelsN(32, directT14x32N[:])}

var avx512e = func() *kernelSet {
	e := *avx512
	e.name, e.bcst = "avx512-14x32e", true
	e.acc, e.set = asmKernel(14, 32, k14x32eacc), asmKernel(14, 32, k14x32eset)
	e.part, e.phalf = partKernels(14, 32, partial14x32e[:]), halfKernels(14, 32, packedHalf14x32e[:])
	return &e
}()

// isAVX512 reports whether ks is one of the AVX-512 sets (the 32-column
// panels that the packing routines and gathers are written for).
func isAVX512(ks *kernelSet) bool { return ks == avx512 || ks == avx512e }

// isAMD reports whether CPUID names AMD as the vendor ("AuthenticAMD").
func isAMD() bool {
	ebx, ecx, edx := cpuidVendor()
	return ebx == 0x68747541 && edx == 0x69746e65 && ecx == 0x444d4163
}

// directTKernels and directTKernelsN wrap the kernels reading r ≤ mr rows
// of a column-major A in place (k steps lda apart) as directKernels and
// directKernelsN do a row-major A's.
func directTKernels(nr int, fs [][2]func(kc int, a *float32, lda int, b, c *float32, ldc int)) [][2]directKernel {
	return wrapDirect(nr, nr, fs, true)
}

func directTKernelsN(nr int, fs [][2]func(kc int, a *float32, lda int, b, c *float32, ldc, panels int)) [][2]directKernelN {
	return wrapDirectN(nr, fs, true)
}

// aEnd is the last index of A a direct kernel reads for r rows kb deep.
func aEnd(r, kb, lda int, colMajor bool) int {
	if colMajor {
		return (kb-1)*lda + r - 1
	}
	return (r-1)*lda + kb - 1
}

// halfKernels wraps the packed kernels for r ≤ mr rows and the first nr/2
// columns of a B panel nr wide with the bounds checks they rely on.
func halfKernels(mr, nr int, fs [][2]func(kc int, a, b, c *float32, ldc int)) [][2]func(kb int, a, b, c []float32, ldc int) {
	h := make([][2]func(kb int, a, b, c []float32, ldc int), len(fs))
	for r := 1; r < len(fs); r++ {
		for v, f := range fs[r] {
			h[r][v] = func(kb int, a, b, c []float32, ldc int) {
				_ = a[mr*kb-1]
				_ = b[nr*(kb-1)+nr/2-1]
				_ = c[(r-1)*ldc+nr/2-1]
				f(kb, &a[0], &b[0], &c[0], ldc)
			}
		}
	}
	return h
}

var avx2 = &kernelSet{name: "avx2-6x16", mr: 6, nr: 16,
	acc: asmKernel(6, 16, k6x16acc), set: asmKernel(6, 16, k6x16set), packA: packA6Fast,
	part: partKernels(6, 16, partial6x16[:]), direct: directKernels(16, 16, direct6x16[:]),
	directN: directKernelsN(16, direct6x16N[:])}

// kernelSets lists the sets this CPU runs, fastest first.
func kernelSets() []*kernelSet {
	var s []*kernelSet
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL {
		if isAMD() {
			s = append(s, avx512e, avx512)
		} else {
			s = append(s, avx512, avx512e)
		}
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		s = append(s, avx2)
	}
	return append(s, generic)
}

var active = kernelSets()[0]

// hasStrips: the strip kernels (StripA) need AVX-512.
var hasStrips = isAVX512(active)
