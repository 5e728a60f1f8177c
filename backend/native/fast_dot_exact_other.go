//go:build !amd64 || purego

package native

// No exact-order SIMD tiles off amd64: exactRows computes every element.

var exactTilesOK = false

func exactTile(rows int, a *float32, lda, lk int, b *float32, ldb int, c *float32, ldc, k int, mask *[16]int32) {
	panic("native: exactTile without SIMD tiles")
}

func packBlock8(src *float32, lds int, dst *float32, ldd int) {
	panic("native: packBlock8 without SIMD tiles")
}

var exactTilesZ = false

func exactTileZ(rows, w int, a *float32, lda, lk int, b *float32, ldb int, c *float32, ldc, k int) {
	panic("native: exactTileZ without SIMD tiles")
}
