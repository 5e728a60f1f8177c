package gemm

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
)

// TestEpilogueOncePerElementWhenFinal: SgemmEpi and SgemmPackedBEpi hand
// every element of C to the epilogue exactly once, after its last k
// block (the product is final when handed over), on every path: tiny
// products, A read in place row- or column-major, A packed (a row
// stride of 4 KB, or a transposed A of many rows), B shared or packed per
// column chunk, several k blocks, one to three threads.
func TestEpilogueOncePerElementWhenFinal(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, s := range []struct {
		m, n, k int
		layout  string
	}{
		{3, 5, 4, "NN"}, {37, 45, 29, "NN"}, {128, 96, 64, "TN"}, {100, 600, 70, "NT"},
		{33, 70, 1024, "NN"}, {60, 1100, 40, "NN"}, {29, 64, 700, "TT"},
		// packed A past colMajorDirect's rows (register-broadcast
		// kernels), with two k blocks; and per column chunk
		{300, 200, 500, "TN"}, {300, 900, 40, "TN"},
	} {
		for threads := 1; threads <= 3; threads++ {
			for _, prepacked := range []bool{false, true} {
				t.Run(fmt.Sprintf("%dx%dx%d/%s/t=%d/pb=%v", s.m, s.n, s.k, s.layout, threads, prepacked), func(t *testing.T) {
					a := operand(r, s.m, s.k, s.layout[0])
					b := operand(r, s.k, s.n, s.layout[1])
					ldc := s.n + 3
					c := randMat(r, s.m*ldc)
					want := reference(s.m, s.n, s.k, a, b, c, ldc, false)
					seen := make([]atomic.Int32, s.m*ldc)
					var early atomic.Int64
					epi := func(r0, r1, j0, j1 int) {
						if r0 < 0 || r1 > s.m || j0 < 0 || j1 > s.n || r0 >= r1 || j0 >= j1 {
							t.Errorf("epilogue over rows [%d, %d), columns [%d, %d) of %d×%d", r0, r1, j0, j1, s.m, s.n)
							return
						}
						for i := r0; i < r1; i++ {
							for j := j0; j < j1; j++ {
								x := i*ldc + j
								seen[x].Add(1)
								if d := float64(c[x]) - want[x]; d > 1e-3 || d < -1e-3 {
									early.Add(1)
								}
							}
						}
					}
					if prepacked {
						SgemmPackedBEpi(s.m, a, PackB(s.k, s.n, b), c, ldc, threads, epi)
					} else {
						SgemmEpi(s.m, s.n, s.k, a, b, c, ldc, threads, epi)
					}
					for i := 0; i < s.m; i++ {
						for j := 0; j < ldc; j++ {
							want := int32(1)
							if j >= s.n {
								want = 0
							}
							if got := seen[i*ldc+j].Load(); got != want {
								t.Fatalf("element (%d, %d) handed over %d times, want %d", i, j, got, want)
							}
						}
					}
					if n := early.Load(); n > 0 {
						t.Fatalf("%d elements handed over before they were final", n)
					}
				})
			}
		}
	}
}
