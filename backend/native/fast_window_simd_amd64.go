//go:build amd64 && !purego

package native

// maxExact8 is d[i] = max(a[i], b[i]) for i < n, n a multiple of 8, in
// fast_window_simd_amd64.s; it reports whether any a[i] or b[i] is NaN
// (then d is not the generic maximum there).
//
//go:noescape
func maxExact8(d, a, b *float32, n int) (nan bool)

// simdPool reports whether maxExact8 runs here (the CPU check of the
// fused loops' kernels: AVX2).
var simdPool = simdRows
