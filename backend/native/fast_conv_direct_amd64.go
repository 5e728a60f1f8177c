//go:build amd64 && !purego

package native

import "golang.org/x/sys/cpu"

// convTile8x32 computes the first rows (≤ 8) rows of an 8×32 tile of
// C[r][j] = Σ_k a[8k + r] · b[offs[k]/4 + j], rows ldc floats apart
// (fast_conv_direct_amd64.s).
//
//go:noescape
func convTile8x32(kc int, a *float32, offs *int, b *float32, c *float32, ldc int, rows int)

var convDirectOK = cpu.X86.HasAVX512F
