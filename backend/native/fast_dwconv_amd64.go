//go:build amd64 && !purego

package native

import "golang.org/x/sys/cpu"

// dwRows is the AVX2/FMA row kernel of the direct depthwise convolution
// (fast_dwconv_amd64.s): dwRowsGo's sums over dwArgs, in the same tap
// order, each a fused multiply-add.
//
//go:noescape
func dwRows(p *dwArgs)

var dwSIMDOK = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// dwRows512 is dwRows in AVX-512, sixteen columns per vector.
//
//go:noescape
func dwRows512(p *dwArgs)

// dw512OK: the AVX-512 row kernel runs here.
var dw512OK = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && cpu.X86.HasBMI2

// evensRows is, per row of rows, d[j] = s[2j] for j < n (reading s[0,
// 2n-1) only), d and s then moving on by dStride and sStride floats
// (fast_dwconv_amd64.s): the stride-2 deinterleave of fillPhase.
//
//go:noescape
func evensRows(d, s *float32, n, rows, dStride, sStride int)
