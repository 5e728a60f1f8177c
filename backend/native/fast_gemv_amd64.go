//go:build amd64 && !purego

package native

import "golang.org/x/sys/cpu"

// gemvRows4 computes y[r] = Σ_p x[p]·w[r·ldw+p] for r < rows (a multiple
// of 4), k ≥ 1 steps; mask has the low k%16 bits set (fast_gemv_amd64.s).
//
//go:noescape
func gemvRows4(x, w *float32, k, ldw int, y *float32, rows int, mask int)

// gemvSIMDOK: gemvRows4 runs here (AVX-512). gemvPackedOK: gemvBlocks16
// does, in AVX-512 (gemv512) or AVX2 (the same bits; tests switch gemv512
// off to run the AVX2 form too).
var (
	gemvSIMDOK   = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL
	gemvPackedOK = gemvSIMDOK || cpu.X86.HasAVX2 && cpu.X86.HasFMA
	gemv512      = gemvSIMDOK
)

// gemvBlocks16 computes y[16b+i] = Σ_p x[p]·w[(b·k+p)·16+i] for b < blocks,
// k ≥ 0: weights packed by packGemv, in the widest form the CPU has.
func gemvBlocks16(x, w *float32, k int, y *float32, blocks int) {
	if gemv512 {
		gemvBlocks16Z(x, w, k, y, blocks)
		return
	}
	gemvBlocks16Y(x, w, k, y, blocks)
}

// gemvBlocks16Z is gemvBlocks16 in AVX-512 (fast_gemv_amd64.s).
//
//go:noescape
func gemvBlocks16Z(x, w *float32, k int, y *float32, blocks int)

// gemvBlocks16Y is gemvBlocks16 in AVX2 (fast_gemv_avx2_amd64.s).
//
//go:noescape
func gemvBlocks16Y(x, w *float32, k int, y *float32, blocks int)
