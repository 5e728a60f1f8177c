//go:build amd64 && !purego

package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestTapRow checks TapRow against sums in float64: rows in full and
// partial micro-panels (r0 on any row), depths over one and several k
// blocks, rows of whole 16-column tiles with or without a last one of 8,
// offsets anywhere in the source (repeated, descending), overwriting and
// accumulating, and that nothing outside the rows' n columns of C is
// written.
func TestTapRow(t *testing.T) {
	if !TapRowsOK() {
		t.Skip("no AVX2 tap kernels here")
	}
	r := rand.New(rand.NewPCG(5, 6))
	for it := 0; it < 200; it++ {
		m := 1 + r.IntN(20)
		k := []int{1, 3, 27, 147, 500, 900}[r.IntN(6)]
		n := 8 * (1 + r.IntN(14))
		lda := k + r.IntN(3)
		r0 := r.IntN(m)
		r1 := r0 + 1 + r.IntN(m-r0)
		ldc := n + r.IntN(5)
		a := randMat(r, m*lda)
		src := randMat(r, 3000)
		base := r.IntN(200)
		offs := make([]int, k)
		for q := range offs {
			offs[q] = 4 * (r.IntN(len(src)-base-n+1) - r.IntN(base+1))
			if q > 0 && r.IntN(8) == 0 {
				offs[q] = offs[q-1]
			}
		}
		first := r.IntN(2) == 0
		c := randMat(r, (r1-r0)*ldc+7)
		want := make([]float64, len(c))
		for i := range c {
			want[i] = float64(c[i])
		}
		bound := make([]float64, len(c))
		for i := r0; i < r1; i++ {
			for j := 0; j < n; j++ {
				x := (i-r0)*ldc + j
				if first {
					want[x] = 0
				}
				for q := 0; q < k; q++ {
					p := float64(a[i*lda+q]) * float64(src[base+offs[q]/4+j])
					want[x] += p
					bound[x] += math.Abs(p)
				}
			}
		}
		TapRow(a, lda, r0, r1, src, base, offs, n, c, ldc, first)
		name := fmt.Sprintf("m=%d k=%d n=%d rows [%d, %d) first=%v", m, k, n, r0, r1, first)
		for x := range c {
			tol := float64(k+2) * 0x1p-23 * (bound[x] + math.Abs(want[x]))
			if d := math.Abs(float64(c[x]) - want[x]); d > tol {
				t.Fatalf("%s: C[%d] = %v, want %v", name, x, c[x], want[x])
			}
		}
	}
}

// TestTapRowBounds: operands too small for the product panic with a
// message instead of reading or writing outside them.
func TestTapRowBounds(t *testing.T) {
	if !TapRowsOK() {
		t.Skip("no AVX2 tap kernels here")
	}
	a, src, c := make([]float32, 6*10), make([]float32, 100), make([]float32, 6*16)
	offs := make([]int, 10)
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"A", func() { TapRow(a, 10, 0, 7, src, 0, offs, 16, make([]float32, 7*16), 16, true) }},
		{"C", func() { TapRow(a, 10, 0, 6, src, 0, offs, 16, c[:80], 16, true) }},
		{"offset", func() {
			o := append([]int(nil), offs...)
			o[3] = 4 * 90
			TapRow(a, 10, 0, 6, src, 0, o, 16, c, 16, true)
		}},
		{"n", func() { TapRow(a, 10, 0, 6, src, 0, offs, 12, c, 16, true) }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tc.name)
				}
			}()
			tc.f()
		}()
	}
}
