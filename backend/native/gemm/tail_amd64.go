//go:build amd64 && !purego

package gemm

// tailArgs are dotTail6's arguments (the layout tail_avx2_amd64.s reads);
// strides in bytes.
type tailArgs struct {
	a    [6]*float32 // the rows of A, from column 0 of the block
	b    *float32    // B's column, k step 0
	bs   int         // from one k step of b to the next
	kb   int
	c    *float32
	ldc  int
	rows int
	set  int
}

//go:noescape
func dotTail6(p *tailArgs)

// tailPArgs are dotTailP6's arguments; strides in bytes.
type tailPArgs struct {
	a    *float32 // the packed micro-panel: six values per k step
	b    *float32
	bs   int
	kb   int
	c    *float32
	ldc  int
	rows int
	set  int
}

//go:noescape
func dotTailP6(p *tailPArgs)

// hasDotTail: the tail-column kernel runs here (the AVX2 kernel set).
var hasDotTail = active == avx2

// dotTailCols is the most columns of a last micro-panel tileMul takes
// with dotTail6, one column at a time (Zen 2: each column about a
// twelfth of the 16-column kernel's time over the panel).
var dotTailCols = 2

// dotTail computes the nn ≤ dotTailCols columns of a last micro-panel
// with the tail kernels and reports whether it did (the AVX2 kernel set;
// A read in place, rows lda apart, or packed, lda 0): C (+)= A·B for mm
// rows, B's columns nr apart in the panel.
func dotTail(ks *kernelSet, kb int, apanel []float32, lda int, bpanel []float32, mm, nn int, c []float32, ldc int, first bool) bool {
	if !hasDotTail || !dotTailOn || ks != avx2 || mm > 6 || lda < 0 {
		return false
	}
	if lda > 0 {
		var t tailArgs
		for r := range t.a {
			t.a[r] = &apanel[min(r, mm-1)*lda]
		}
		t.bs, t.kb, t.ldc, t.rows, t.set = 4*ks.nr, kb, 4*ldc, mm, b2i(first)
		for j := 0; j < nn; j++ {
			t.b, t.c = &bpanel[j], &c[j]
			dotTail6(&t)
		}
		return true
	}
	// a packed A: its six rows in one vector per k step
	t := tailPArgs{a: &apanel[0], bs: 4 * ks.nr, kb: kb, ldc: 4 * ldc, rows: mm, set: b2i(first)}
	for j := 0; j < nn; j++ {
		t.b, t.c = &bpanel[j], &c[j]
		dotTailP6(&t)
	}
	return true
}
