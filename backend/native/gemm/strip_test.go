package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestStripMul checks StripA.Mul against the band GEMM over packed B
// (PackedA.Mul, k in one block: the same bits) and a float64 sum, over strip ranges, partial last
// vectors, row strides wider than n, a transposed A, NaN and Inf, and
// that nothing outside the rows and columns asked for is written.
func TestStripMul(t *testing.T) {
	if !hasStrips {
		t.Skip("no strip kernels on this CPU")
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, m := range []int{8, 16, 24, 40, 72} {
		for _, k := range []int{8, 16, 24, 64, 136} {
			for _, n := range []int{1, 15, 16, 17, 33, 100} {
				a, b := randMat(r, m*k), randMat(r, k*(n+5))
				if (m+k+n)%3 == 0 { // specials: a NaN row of A, an Inf column of B
					a[k*(m/2)+k/2] = float32(math.NaN())
					b[(k-1)*(n+5)+n-1] = float32(math.Inf(1))
				}
				am := RowMajor(a, k)
				if n%2 == 1 { // A given transposed (column stride k·…): the pack's strided reads
					at := make([]float32, k*m)
					for i := 0; i < m; i++ {
						for q := 0; q < k; q++ {
							at[q*m+i] = a[i*k+q]
						}
					}
					am = RowMajor(at, m).Transposed()
				}
				want := make([]float32, m*n)
				NewBandA(m, k, RowMajor(a, k)).Mul(0, m, MatrixPacker(RowMajor(b, n+5)), 0, n, Out{Data: want, Ldc: n}, false)
				for _, s := range [][2]int{{0, (m + 15) / 16}, {(m + 15) / 16 / 2, (m + 15) / 16}} {
					if s[0] >= s[1] {
						continue
					}
					name := fmt.Sprintf("%dx%dx%d/strips%d-%d", m, k, n, s[0], s[1])
					sa := NewStripA(m, k, am)
					ldc := n + 3
					c := make([]float32, m*ldc)
					for i := range c {
						c[i] = -7
					}
					sa.Mul(s[0], s[1], b, n+5, c, ldc, n)
					sa.Release()
					r0, r1 := s[0]*StripRows, min(s[1]*StripRows, m)
					for i := 0; i < m; i++ {
						for j := 0; j < ldc; j++ {
							got := c[i*ldc+j]
							if i < r0 || i >= r1 || j >= n {
								if got != -7 {
									t.Fatalf("%s: C[%d][%d] = %v written, outside the rows and columns", name, i, j, got)
								}
								continue
							}
							w := want[i*n+j]
							if math.Float32bits(got) != math.Float32bits(w) && !(math.IsNaN(float64(got)) && math.IsNaN(float64(w))) {
								t.Fatalf("%s: C[%d][%d] = %v, the band GEMM %v", name, i, j, got, w)
							}
							var ref float64
							for q := 0; q < k; q++ {
								ref += float64(a[i*k+q]) * float64(b[q*(n+5)+j])
							}
							if d := math.Abs(float64(got) - ref); !(d <= 1e-4*(1+math.Abs(ref))) && !(math.IsNaN(ref) && math.IsNaN(float64(got))) && !(math.IsInf(ref, 0) && float64(got) == ref) {
								t.Fatalf("%s: C[%d][%d] = %v, float64 sum %v", name, i, j, got, ref)
							}
						}
					}
				}
			}
		}
	}
}

func TestStripsOK(t *testing.T) {
	for _, c := range []struct {
		m, k int
		ok   bool
	}{{16, 16, true}, {8, 8, true}, {24, 144, true}, {12, 16, false}, {16, 12, false}, {0, 8, false}, {8, 0, false}} {
		if got := StripsOK(c.m, c.k); got != (c.ok && hasStrips) {
			t.Errorf("StripsOK(%d, %d) = %v", c.m, c.k, got)
		}
	}
}

// BenchmarkStrips runs StripA.Mul against the band GEMM over B packed by
// copying (MatrixPacker) on pointwise-convolution shapes (m×k×n), one
// core, in chunks of 256 columns as a convolution's work items.
func BenchmarkStrips(b *testing.B) {
	if !hasStrips {
		b.Skip("no strip kernels")
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, s := range [][3]int{{64, 16, 4096}, {16, 32, 12544}, {96, 16, 12544}, {144, 24, 3136}, {192, 32, 784}, {64, 64, 4096}, {256, 1024, 196}, {960, 160, 16}} {
		m, k, n := s[0], s[1], s[2]
		a, bm := randMat(r, m*k), randMat(r, k*n)
		cs := make([][]float32, 4) // outputs cycled, as a model's come from its arena
		for i := range cs {
			cs[i] = make([]float32, m*n)
		}
		for _, strips := range []bool{false, true} {
			b.Run(fmt.Sprintf("%dx%dx%d/strips=%v", m, k, n, strips), func(b *testing.B) {
				pa := NewBandA(m, k, RowMajor(a, k))
				sa := PackStripA(m, k, RowMajor(a, k))
				cpu0 := processCPU()
				for i := 0; i < b.N; i++ {
					c := cs[i%len(cs)]
					for j0 := 0; j0 < n; j0 += 256 {
						nb := min(256, n-j0)
						if strips {
							sa.Mul(0, sa.Strips(), bm[j0:], n, c[j0:], n, nb)
						} else {
							pa.Mul(0, m, MatrixPacker(RowMajor(bm, n)), j0, nb, Out{Data: c, Ldc: n}, false)
						}
					}
				}
				reportFlops(b, 2*float64(m*k*n)*float64(b.N), processCPU()-cpu0, 1)
			})
		}
	}
}
