//go:build amd64 && !purego

package native

import "golang.org/x/sys/cpu"

// winoIn8 and winoOut8 are winoIn8Go and winoOut8Go in AVX
// (fast_conv_winograd_amd64.s): the same operations in the same order.
//
//go:noescape
func winoIn8(p *winoInArgs)

//go:noescape
func winoOut8(p *winoOutArgs)

// copyFinite copies n floats from src to dst and reports whether all are
// finite (copyFiniteGo's result).
//
//go:noescape
func copyFinite(dst, src *float32, n int) bool

// winoSIMD: the vector transforms run here (the Winograd path takes
// layers only where they do).
var winoSIMD = cpu.X86.HasAVX2
