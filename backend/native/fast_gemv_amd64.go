//go:build amd64 && !purego

package native

import "golang.org/x/sys/cpu"

// gemvRows4 computes y[r] = Σ_p x[p]·w[r·ldw+p] for r < rows (a multiple
// of 4), k ≥ 1 steps; mask has the low k%16 bits set (fast_gemv_amd64.s).
//
//go:noescape
func gemvRows4(x, w *float32, k, ldw int, y *float32, rows int, mask int)

var gemvSIMDOK = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL

// gemvBlocks16 computes y[16b+i] = Σ_p x[p]·w[(b·k+p)·16+i] for b < blocks,
// k ≥ 0 (fast_gemv_amd64.s): weights packed by packGemv.
//
//go:noescape
func gemvBlocks16(x, w *float32, k int, y *float32, blocks int)
