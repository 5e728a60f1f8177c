//go:build amd64 && !purego

package native

import "golang.org/x/sys/cpu"

// The exact-order tiles in fast_dot_exact_amd64.s: AVX2 without FMA.

//go:noescape
func exactTile4x16(a *float32, lda, lk int, b *float32, ldb int, c *float32, ldc, k int, mask *[16]int32)

//go:noescape
func exactTile1x16(a *float32, lda, lk int, b *float32, ldb int, c *float32, ldc, k int, mask *[16]int32)

var exactTilesOK = cpu.X86.HasAVX2

// exactTile computes rows (1 or 4) × up to 16 columns of C; the caller
// has checked every index the tile touches.
func exactTile(rows int, a *float32, lda, lk int, b *float32, ldb int, c *float32, ldc, k int, mask *[16]int32) {
	if rows == 4 {
		exactTile4x16(a, lda, lk, b, ldb, c, ldc, k, mask)
	} else {
		exactTile1x16(a, lda, lk, b, ldb, c, ldc, k, mask)
	}
}

//go:noescape
func exactPack8x8(src *float32, lds int, dst *float32, ldd int)

// packBlock8 transposes an 8×8 block into a panel; the caller has checked
// the indices.
func packBlock8(src *float32, lds int, dst *float32, ldd int) { exactPack8x8(src, lds, dst, ldd) }
