//go:build amd64 && !purego

package gemm

// TapRowsOK reports whether TapRow runs here: the AVX2 kernel set is the
// active one (its in-place-B kernels, taps6x16 and taps6x8).
func TapRowsOK() bool { return active == avx2 && tapRowsEnabled }

// tapRowsEnabled switches TapRowsOK (tests and benchmarks compare).
var tapRowsEnabled = true

// TapRow computes, for rows [r0, r1) of a row-major A (row stride lda,
// read in place) and n columns (n a multiple of 8),
//
//	c[(i-r0)·ldc + j] (+)= Σ_q A[i][q] · src[base + offs[q]/4 + j]
//
// over q < len(offs) = A's depth: B is read where it lies, k step q's
// row at byte offset offs[q] from src[base] (an implicit convolution's
// image rows: one offset per input channel and tap), nothing packed.
// first overwrites C, else adds to it. Rows go in micro-panels of 6 and
// k blocks of KBlock's depth, each panel's row of 16-column tiles (and a
// last one of 8) in one kernel call per k block, the k blocks outermost.
func TapRow(a []float32, lda, r0, r1 int, src []float32, base int, offs []int, n int, c []float32, ldc int, first bool) {
	k := len(offs)
	if r1 <= r0 || n <= 0 || k == 0 {
		return
	}
	if n%8 != 0 || lda < k || r0 < 0 || (r1-1)*lda+k > len(a) || (r1-r0-1)*ldc+n > len(c) {
		panic("gemm: TapRow's operands do not hold its product")
	}
	lo, hi := offs[0], offs[0]
	for _, o := range offs {
		lo, hi = min(lo, o), max(hi, o)
	}
	if lo%4 != 0 || hi%4 != 0 || base+lo/4 < 0 || base+hi/4+n > len(src) {
		panic("gemm: TapRow's offsets fall outside its source")
	}
	kcb := KBlock(k)
	full, half := n/16, n%16 != 0
	// k blocks outermost: a block's image rows stay in the first-level
	// cache across the micro-panels of A
	for pc := 0; pc < k; pc += kcb {
		kb := min(kcb, k-pc)
		set := b2i(first && pc == 0)
		for i := r0; i < r1; i += 6 {
			rows := min(6, r1-i)
			ci := c[(i-r0)*ldc:]
			ap, op := &a[i*lda+pc], &offs[pc]
			if full > 0 {
				taps6x16[rows][set](kb, ap, lda, &src[base], op, &ci[0], ldc, full)
			}
			if half {
				taps6x8[rows][set](kb, ap, lda, &src[base+16*full], op, &ci[16*full], ldc, 1)
			}
		}
	}
}
