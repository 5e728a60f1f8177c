//go:build !amd64 || purego

package native

// No vector maximum here: pooling uses its Go loops; never called.
var simdPool = false

func maxExact8(d, a, b *float32, n int) bool { panic("no vector loops") }

func argmax3s2x8(src *float32, rowStep, kh int, ov *float32, oi *int64, pos, groups int) {
	panic("no vector loops")
}

// No vector window kernels here: never called.
const simdColSums = false

// simdWindow512 is the AVX-512 switch of fast_window_simd_amd64.go (never
// on here).
var simdWindow512 = false

func colSums(src, dst *float32, planes, h, w int, init float32) { panic("no vector loops") }

func max3s2x16(src *float32, rowStep int, dst *float32, groups int) bool { panic("no vector loops") }

func max3s2x8(src *float32, rowStep int, dst *float32, groups int) bool { panic("no vector loops") }
