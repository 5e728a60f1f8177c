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
