//go:build amd64 && !purego

package native

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// dwc16Z is the channel-vector depthwise kernel in AVX-512
// (fast_dwc16_amd64.s).
//
//go:noescape
func dwc16Z(p *dwcArgs)

// dwc16Y is the same in AVX2, the same bits (fast_dwc16_avx2_amd64.s).
//
//go:noescape
func dwc16Y(p *dwcArgs)

// transpose16Z writes dst[j][i] = src[i][j] for i < rows, j < cols (≤ 16;
// strides in bytes), source rows past rows read as zeros; destination row
// j gets its first rows lanes. With dst2 set, the even rows j go to dst at
// (j/2)·dstStride and the odd ones to dst2 (fast_dwc16_amd64.s).
//
//go:noescape
func transpose16Z(dst *float32, dstStride int, src *float32, srcStride int, rows, cols int, dst2 *float32)

// tr8x8 is an 8×8 block of transpose16 in AVX2 (fast_dwc16_avx2_amd64.s):
// dst row j, lanes i = src[i][j] for i < rows, j < cols (at most 8 each),
// row j at dstE + (j/2)·stride2 for even j and dstO + (j/2)·stride2 for
// odd j.
//
//go:noescape
func tr8x8(dstE, dstO *float32, stride2 int, src *float32, srcStride int, rows, cols int)

// dwc512 picks the AVX-512 forms (the wide-row depthwise kernels need
// it); dwc16OK says the channel-vector kernel and transpose16 run here, in
// AVX-512 or AVX2 (tests switch dwc512 off to run the AVX2 forms too).
var (
	dwc512  = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL
	dwc16OK = dwc512 || cpu.X86.HasAVX2 && cpu.X86.HasFMA
)

// dwc16 is the channel-vector depthwise kernel in the widest form the CPU
// has.
func dwc16(p *dwcArgs) {
	if dwc512 {
		dwc16Z(p)
		return
	}
	dwc16Y(p)
}

// transpose16 writes dst[j][i] = src[i][j] for i < rows, j < cols (≤ 16;
// strides in bytes), as transpose16Z describes, in the widest form the CPU
// has: in AVX2, 8×8 blocks.
func transpose16(dst *float32, dstStride int, src *float32, srcStride int, rows, cols int, dst2 *float32) {
	if dwc512 {
		transpose16Z(dst, dstStride, src, srcStride, rows, cols, dst2)
		return
	}
	for bj := 0; bj < cols; bj += 8 { // destination rows bj to bj+7
		e, o, s2 := unsafe.Add(unsafe.Pointer(dst), bj*dstStride), unsafe.Add(unsafe.Pointer(dst), (bj+1)*dstStride), 2*dstStride
		if dst2 != nil { // even rows to dst, odd ones to dst2, (j/2)·dstStride on
			e, o, s2 = unsafe.Add(unsafe.Pointer(dst), bj/2*dstStride), unsafe.Add(unsafe.Pointer(dst2), bj/2*dstStride), dstStride
		}
		for bi := 0; bi < rows; bi += 8 { // their lanes bi to bi+7
			tr8x8((*float32)(unsafe.Add(e, 4*bi)), (*float32)(unsafe.Add(o, 4*bi)), s2,
				(*float32)(unsafe.Add(unsafe.Pointer(src), bi*srcStride+4*bj)), srcStride, rows-bi, cols-bj)
		}
	}
}
