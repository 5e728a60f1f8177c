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

//go:noescape
func exactTileZ4x32(a *float32, lda, lk int, b *float32, ldb int, c *float32, ldc, k int, m1, m2 int)

//go:noescape
func exactTileZ4x16(a *float32, lda, lk int, b *float32, ldb int, c *float32, ldc, k int, m1, m2 int)

//go:noescape
func exactTileZ1x32(a *float32, lda, lk int, b *float32, ldb int, c *float32, ldc, k int, m1, m2 int)

//go:noescape
func exactTileZ1x16(a *float32, lda, lk int, b *float32, ldb int, c *float32, ldc, k int, m1, m2 int)

// exactTilesZ: AVX-512 tiles of up to 32 columns (two vectors, masked by
// K registers).
var exactTilesZ = cpu.X86.HasAVX512F

// exactTileZ computes rows (1 or 4) × w (1..32) columns of C with the
// AVX-512 tiles; the caller has checked every index the tile touches.
func exactTileZ(rows, w int, a *float32, lda, lk int, b *float32, ldb int, c *float32, ldc, k int) {
	m1 := (1 << min(w, 16)) - 1
	m2 := (1 << max(w-16, 0)) - 1
	switch {
	case rows == 4 && w > 16:
		exactTileZ4x32(a, lda, lk, b, ldb, c, ldc, k, m1, m2)
	case rows == 4:
		exactTileZ4x16(a, lda, lk, b, ldb, c, ldc, k, m1, m2)
	case w > 16:
		exactTileZ1x32(a, lda, lk, b, ldb, c, ldc, k, m1, m2)
	default:
		exactTileZ1x16(a, lda, lk, b, ldb, c, ldc, k, m1, m2)
	}
}
