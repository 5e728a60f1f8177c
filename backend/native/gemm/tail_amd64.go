//go:build amd64 && !purego

package gemm

// tailArgs are the tail kernels' arguments (the layout tail_avx2_amd64.s
// reads); strides in bytes.
type tailArgs struct {
	a    [6]*float32 // dotTail6: the rows of A from the block's first k step; dotTailP6: a[0], the packed micro-panel
	b    *float32    // B's column, k step 0
	bs   int         // from one k step of b to the next
	kb   int
	c    *float32
	ldc  int
	rows int
	set  int
}

// dotTail6 takes an A read in place, dotTailP6 a packed micro-panel (six
// values per k step).
//
//go:noescape
func dotTail6(p *tailArgs)

//go:noescape
func dotTailP6(p *tailArgs)

// dotTail computes the nn ≤ dotTailCols columns of a last micro-panel
// with the tail kernels and reports whether it did (the AVX2 kernel set;
// A read in place, rows lda apart, or packed, lda 0): C (+)= A·B for mm
// rows, B's columns nr apart in the panel, one column per call.
func dotTail(ks *kernelSet, kb int, apanel []float32, lda int, bpanel []float32, mm, nn int, c []float32, ldc int, first bool) bool {
	if !dotTailOn || ks != avx2 || mm > 6 || lda < 0 {
		return false
	}
	t := tailArgs{bs: 4 * ks.nr, kb: kb, ldc: 4 * ldc, rows: mm, set: b2i(first)}
	if lda > 0 {
		for r := range t.a {
			t.a[r] = &apanel[min(r, mm-1)*lda]
		}
	} else {
		t.a[0] = &apanel[0] // a packed A: its six rows in one vector per k step
	}
	for j := 0; j < nn; j++ {
		t.b, t.c = &bpanel[j], &c[j]
		// direct calls: through a function value the arguments would
		// move to the heap on every call
		if lda > 0 {
			dotTail6(&t)
		} else {
			dotTailP6(&t)
		}
	}
	return true
}
