//go:build amd64 && !purego

package native

import "golang.org/x/sys/cpu"

// transpose8x8F32 writes the transpose of the 8×8 float32 block at src
// (rows lds bytes apart) to dst (rows ldd bytes apart), in AVX
// (movement_transpose_amd64.s).
//
//go:noescape
func transpose8x8F32(dst *byte, ldd int, src *byte, lds int)

// hasTranspose8 reports whether transpose8x8F32 runs here.
var hasTranspose8 = cpu.X86.HasAVX
