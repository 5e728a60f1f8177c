package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// reference computes A·B in float64.
func reference(m, n, k int, a, b Matrix) []float64 {
	out := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for p := 0; p < k; p++ {
				s += float64(a.Data[a.Off+i*a.RowStride+p*a.ColStride]) * float64(b.Data[b.Off+p*b.RowStride+j*b.ColStride])
			}
			out[i*n+j] = s
		}
	}
	return out
}

func randMat(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(r.NormFloat64())
	}
	return s
}

func TestSgemmShapesAndLayouts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	shapes := [][3]int{{1, 1, 1}, {3, 5, 7}, {14, 32, 1}, {14, 32, 384}, {15, 33, 385}, {100, 70, 50}, {200, 300, 500}, {169, 2049, 17}, {64, 64, 800}}
	for _, s := range shapes {
		m, n, k := s[0], s[1], s[2]
		for _, layout := range []string{"NN", "TN", "NT", "TT"} {
			a := RowMajor(randMat(r, m*k), k)
			if layout[0] == 'T' {
				a = RowMajor(randMat(r, m*k), m).Transposed()
			}
			b := RowMajor(randMat(r, k*n), n)
			if layout[1] == 'T' {
				b = RowMajor(randMat(r, k*n), k).Transposed()
			}
			want := reference(m, n, k, a, b)
			for _, acc := range []bool{false, true} {
				c := make([]float32, m*n)
				if acc {
					for i := range c {
						c[i] = 1
					}
				}
				Sgemm(m, n, k, a, b, c, n, acc, 2)
				for i := range c {
					w := want[i]
					if acc {
						w++
					}
					tol := 1e-4 * math.Sqrt(float64(k)) * (1 + math.Abs(w))
					if math.Abs(float64(c[i])-w) > tol {
						t.Fatalf("%dx%dx%d %s acc=%v: c[%d] = %v, want %v", m, n, k, layout, acc, i, c[i], w)
					}
				}
			}
		}
	}
}

func TestGenericMatchesKernel(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	kb := 77
	a, b := randMat(r, mr*kb), randMat(r, nr*kb)
	c1, c2 := make([]float32, mr*nr), make([]float32, mr*nr)
	microKernel(kb, a, b, c1, nr)
	microGeneric(kb, a, b, c2, nr)
	for i := range c1 {
		if math.Abs(float64(c1[i]-c2[i])) > 1e-4*(1+math.Abs(float64(c2[i]))) {
			t.Fatalf("tile[%d]: kernel %v, generic %v", i, c1[i], c2[i])
		}
	}
}

func BenchmarkSgemm(b *testing.B) {
	for _, n := range []int{256, 1024, 2048} {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("%d/threads=%d", n, threads), func(b *testing.B) {
				r := rand.New(rand.NewPCG(1, 2))
				a, bb, c := randMat(r, n*n), randMat(r, n*n), make([]float32, n*n)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					Sgemm(n, n, n, RowMajor(a, n), RowMajor(bb, n), c, n, false, threads)
				}
				b.ReportMetric(2*float64(n)*float64(n)*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
