//go:build amd64 && !purego

package native

import "golang.org/x/sys/cpu"

// maxExact8 is d[i] = max(a[i], b[i]) for i < n, n a multiple of 8, in
// fast_window_simd_amd64.s; it reports whether any a[i] or b[i] is NaN
// (then d is not the generic maximum there).
//
//go:noescape
func maxExact8(d, a, b *float32, n int) (nan bool)

// simdPool reports whether maxExact8 runs here (the CPU check of the
// fused loops' kernels: AVX2).
var simdPool = simdRows

// argmax3s2x8 folds groups of 8 adjacent windows 3 columns wide at column
// stride 2 (kh rows, rowStep floats apart) with positions as indices, in
// fast_window_argmax_amd64.s: src is the first tap of the first window,
// pos its position; each group's values go to ov, positions to oi. It
// reads src up to (kh-1)·rowStep + 16·groups + 1 floats on.
//
//go:noescape
func argmax3s2x8(src *float32, rowStep, kh int, ov *float32, oi *int64, pos, groups int)

// colSumsZ writes, for each of planes h×w planes of src (one after
// another), its column sums init + row 0 + row 1 + ... (in that order) to
// w elements of dst, in fast_window_simd_amd64.s. h ≥ 1.
//
//go:noescape
func colSumsZ(src, dst *float32, planes, h, w int, init float32)

// colSumsY is colSumsZ in AVX2, the same bits (fast_window_avx2_amd64.s).
//
//go:noescape
func colSumsY(src, dst *float32, planes, h, w int, init float32)

// colSums is colSumsZ in the widest form the CPU has.
func colSums(src, dst *float32, planes, h, w int, init float32) {
	if simdWindow512 {
		colSumsZ(src, dst, planes, h, w, init)
		return
	}
	colSumsY(src, dst, planes, h, w, init)
}

// simdWindow512 reports whether the AVX-512 window kernels (colSumsZ,
// max3s2x16) run here; simdColSums whether colSums does (AVX2 at least).
// Tests switch simdWindow512 off to run colSumsY too.
var (
	simdWindow512 = cpu.X86.HasAVX512F
	simdColSums   = cpu.X86.HasAVX2
)

// max3s2x16 folds groups of 16 adjacent 3×3 windows at stride 2 of one
// output row (src: the first window's first tap; rowStep floats between
// input rows) into dst, 16 maxima per group, in
// fast_window_simd_amd64.s; it reports whether a tap was NaN (dst is then
// not the generic maximum). It reads 32·groups + 1 columns of 3 rows.
//
//go:noescape
func max3s2x16(src *float32, rowStep int, dst *float32, groups int) (nan bool)

// max3s2x8 is max3s2x16 in AVX2: groups of 8 windows, reading 16·groups
// + 1 columns of 3 rows (fast_window_avx2_amd64.s).
//
//go:noescape
func max3s2x8(src *float32, rowStep int, dst *float32, groups int) (nan bool)
