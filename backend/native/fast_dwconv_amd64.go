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

// evens8 is d[j] = s[2j] for j < n, n a multiple of 8, reading s[0, 2n)
// (fast_dwconv_amd64.s): the stride-2 deinterleave of fillPhase.
//
//go:noescape
func evens8(d, s *float32, n int)
