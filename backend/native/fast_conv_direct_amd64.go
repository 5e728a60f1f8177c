//go:build amd64 && !purego

package native

import (
	"golang.org/x/sys/cpu"

	"github.com/torchtpu/torchtpu/backend/native/gemm"
)

//go:generate go run ./internal/convtilegen

// convTile8x32 computes the first rows (≤ 8) rows of an 8×32 tile of
// C[r][j] = Σ_k a[8k + r] · b[offs[k]/4 + j], rows ldc floats apart
// (fast_conv_direct_amd64.s).
//
//go:noescape
func convTile8x32(kc int, a *float32, offs *int, b *float32, c *float32, ldc int, rows int)

// convTile8x32b is convTile8x32 with A broadcast into registers, not
// inside each FMA.
//
//go:noescape
func convTile8x32b(kc int, a *float32, offs *int, b *float32, c *float32, ldc int, rows int)

// convTileForms are the tile's forms (tests run each).
var convTileForms = []convTileFunc{convTile8x32, convTile8x32b}

// convTile is the form this CPU runs faster (gemm.EmbeddedBroadcasts).
var convTile = func() convTileFunc {
	if gemm.EmbeddedBroadcasts() {
		return convTile8x32
	}
	return convTile8x32b
}()

var convDirectOK = cpu.X86.HasAVX512F
