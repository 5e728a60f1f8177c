//go:build amd64 && !purego

package native

import "golang.org/x/sys/cpu"

// The AVX2 sweep kernels (fast_dwsweepy_amd64.s, written by
// internal/dwgen): four output rows of a 3×3 depthwise window at stride
// 1 or 2.
//
//go:noescape
func dwSweepY3s1(p *dwSweepYArgs)

//go:noescape
func dwSweepY3s2(p *dwSweepYArgs)

// dwSweepYOK: the AVX2 sweep kernels run here.
var dwSweepYOK = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// dwFlatY3 is the AVX2 flat kernel (fast_dwflaty_amd64.s, written by
// internal/dwgen): a 3×3 depthwise window at stride 1 along a whole plane.
//
//go:noescape
func dwFlatY3(p *dwFlatArgs)
