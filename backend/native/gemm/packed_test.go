package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestPackedOperands checks MulBlock and Mul on row bands and column
// ranges against the float64 reference, for every kernel set, with A read
// in place and packed, rows back to back and apart, and C as one matrix
// and as images side by side (Out.Cols) of several widths; and that
// Out.Done shows each element once, final, a micro-panel of rows at a time.
func TestPackedOperands(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, ks := range kernelSets() {
		for _, s := range [][3]int{{1, 1, 1}, {14, 32, 384}, {15, 33, 385}, {64, 49, 1000}, {100, 300, 147}, {29, 392, 60}, {20, 48, 100}} {
			m, n, k := s[0], s[1], s[2]
			b := operand(r, k, n, 'N')
			for _, v := range []struct {
				direct bool
				pad    int  // floats between the rows of A
				pre    bool // packed up front (PackA)
			}{{true, 0, false}, {true, 5, false}, {false, 0, false}, {false, 5, false}, {false, 0, true}, {false, 5, true}} {
				directA = v.direct // read in place, or packed band by band
				a := Matrix{Data: randMat(r, m*(k+v.pad)+3), Off: 3, RowStride: k + v.pad, ColStride: 1}
				pa := newBandA(ks, m, k, a)
				if v.pre {
					pa = packA(ks, m, k, a)
				}
				directA = true
				if (pa.lda > 0) != (v.direct && ks.direct != nil && !v.pre) {
					t.Fatalf("%s: direct %v, lda %d", ks.name, v.direct, pa.lda)
				}
				blocks := make([][]float32, pa.KBlocks())
				for kb := range blocks {
					blocks[kb] = make([]float32, pa.BlockLen(n))
					pa.PackBlock(blocks[kb], MatrixPacker(b), kb, 0, n)
				}
				want := reference(m, n, k, a, b, make([]float32, m*n), n, false)
				mid := min(m, roundUp(m/2, ks.mr))
				for _, cols := range []int{0, 1, 5, 17, 49} {
					if cols > n {
						continue
					}
					name := fmt.Sprintf("%s %dx%dx%d cols=%d direct=%v pad=%d pre=%v", ks.name, m, n, k, cols, v.direct, v.pad, v.pre)
					for _, acc := range []bool{false, true} {
						out, get := newOut(r, m, n, cols)
						done := watchDone(&out, ks.mr)
						start := get()
						for kb, bp := range blocks {
							pa.MulBlock(mid, m, bp, kb, 0, n, out, acc)
						}
						for kb, bp := range blocks {
							pa.MulBlock(0, mid, bp, kb, 0, n, out, acc)
						}
						c := get()
						check(t, name+" MulBlock", k, c, start, want, acc)
						done(t, name+" MulBlock", c)
						out, get = newOut(r, m, n, cols)
						done = watchDone(&out, ks.mr)
						start = get()
						j1 := n / 3
						pa.Mul(0, mid, MatrixPacker(b), 0, j1, out, acc)
						pa.Mul(0, mid, MatrixPacker(b), j1, n-j1, out, acc)
						pa.Mul(mid, m, MatrixPacker(b), 0, n, out, acc)
						c = get()
						check(t, name+" Mul", k, c, start, want, acc)
						done(t, name+" Mul", c)
					}
				}
			}
		}
	}
}

// newOut returns a random C for m×n with images of cols columns (0: one
// image), gaps between the images, and a function reading it back as a
// row-major m×n matrix (checking that the gaps are untouched).
func newOut(r *rand.Rand, m, n, cols int) (Out, func() []float32) {
	if cols == 0 {
		out := Out{Data: randMat(r, m*n), Ldc: n}
		return out, func() []float32 { return append([]float32(nil), out.Data...) }
	}
	imgs := (n + cols - 1) / cols
	stride := m*cols + 7
	out := Out{Data: randMat(r, imgs*stride), Ldc: cols, Cols: cols, ImgStride: stride}
	gaps := append([]float32(nil), out.Data...)
	return out, func() []float32 {
		c := make([]float32, m*n)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				c[i*n+j] = out.Data[j/cols*stride+i*cols+j%cols]
			}
		}
		for img := 0; img < imgs; img++ {
			for x := img*stride + m*cols; x < (img+1)*stride; x++ {
				if out.Data[x] != gaps[x] {
					panic("gap between images written")
				}
			}
		}
		return c
	}
}

// watchDone sets out.Done to record what it is shown: the returned check
// fails unless every element of C was shown exactly once, in a call for
// at most mr rows, holding its final value (c, read back row-major).
func watchDone(out *Out, mr int) func(t *testing.T, what string, c []float32) {
	o := *out
	var seen []float32
	var count []int
	var bad string
	out.Done = func(r0, r1, j0, j1 int) {
		if seen == nil {
			seen, count = make([]float32, len(o.Data)), make([]int, len(o.Data))
		}
		if r1-r0 > mr || r1 <= r0 || j1 <= j0 {
			bad = fmt.Sprintf("Done(%d, %d, %d, %d)", r0, r1, j0, j1)
		}
		for i := r0; i < r1; i++ {
			for j := j0; j < j1; j++ {
				x := i*o.Ldc + j
				if o.Cols > 0 {
					x = j/o.Cols*o.ImgStride + i*o.Ldc + j%o.Cols
				}
				seen[x], count[x] = o.Data[x], count[x]+1
			}
		}
	}
	return func(t *testing.T, what string, c []float32) {
		t.Helper()
		if bad != "" {
			t.Fatalf("%s: %s", what, bad)
		}
		idx := 0
		for x := range o.Data {
			if count == nil || count[x] == 0 {
				continue
			}
			idx++
			if count[x] != 1 {
				t.Fatalf("%s: element at %d shown %d times", what, x, count[x])
			}
			if seen[x] != o.Data[x] {
				t.Fatalf("%s: element at %d shown as %v, final %v", what, x, seen[x], o.Data[x])
			}
		}
		if idx != len(c) {
			t.Fatalf("%s: %d of %d elements shown", what, idx, len(c))
		}
	}
}

func check(t *testing.T, what string, k int, c, start []float32, want []float64, acc bool) {
	t.Helper()
	for i := range c {
		w := want[i]
		if acc {
			w += float64(start[i])
		}
		if math.Abs(float64(c[i])-w) > 1e-4*math.Sqrt(float64(k)+1)*(1+math.Abs(w)) {
			t.Fatalf("%s acc=%v: c[%d] = %v, want %v", what, acc, i, c[i], w)
		}
	}
}

// TestDirectKernels checks every direct kernel (each row count, acc and
// set, odd and even depths; the half kernels too) against the float64
// product, and that it writes only its rows and columns of C.
func TestDirectKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, ks := range kernelSets() {
		for _, set := range []struct {
			name    string
			kernels [][2]directKernel
			cols    int
		}{{"direct", ks.direct, ks.nr}, {"half", ks.half, ks.nr / 2}, {"colmajor", ks.directT, ks.nr}} {
			// A(i, q) = a[at(i, q)]: row-major, or column-major (k steps lda apart)
			colMajor := set.name == "colmajor"
			for rows := 1; rows < len(set.kernels); rows++ {
				for _, kb := range []int{1, 2, 7, 64} {
					lda, ldc := kb+7, ks.nr+3
					at := func(i, q int) int { return i*lda + q }
					size := (rows-1)*lda + kb
					if colMajor {
						lda = rows + 5
						at = func(i, q int) int { return q*lda + i }
						size = (kb-1)*lda + rows
					}
					a, b := randMat(r, size), randMat(r, ks.nr*kb)
					for v, first := range []bool{false, true} {
						c := randMat(r, ks.mr*ldc)
						start := append([]float32(nil), c...)
						set.kernels[rows][v](kb, a, lda, b, c, ldc)
						for i := 0; i < ks.mr; i++ {
							for j := 0; j < ldc; j++ {
								x := i*ldc + j
								if i >= rows || j >= set.cols {
									if c[x] != start[x] {
										t.Fatalf("%s %s rows=%d kb=%d set=%v: c[%d][%d] written", ks.name, set.name, rows, kb, first, i, j)
									}
									continue
								}
								var want float64
								if !first {
									want = float64(start[x])
								}
								for q := 0; q < kb; q++ {
									want += float64(a[at(i, q)]) * float64(b[q*ks.nr+j])
								}
								if math.Abs(float64(c[x])-want) > 1e-5*float64(kb+1)*(1+math.Abs(want)) {
									t.Fatalf("%s %s rows=%d kb=%d set=%v: c[%d][%d] = %v, want %v", ks.name, set.name, rows, kb, first, i, j, c[x], want)
								}
							}
						}
					}
				}
			}
		}
	}
}
