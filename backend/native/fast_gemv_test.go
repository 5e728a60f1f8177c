package native

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGemv checks the matrix-vector rows against float64 sums for odd k
// and n, a row stride past k, and NaN and Inf in w.
func TestGemv(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, s := range [][3]int{{1, 1, 1}, {5, 3, 5}, {16, 4, 16}, {17, 9, 20}, {33, 13, 33}, {100, 31, 107}, {1280, 1000, 1280}, {47, 8, 64}} {
		k, n, ldw := s[0], s[1], s[2]
		x := make([]float32, k)
		w := make([]float32, (n-1)*ldw+k)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		for i := range w {
			w[i] = float32(r.NormFloat64())
		}
		if n > 2 && k > 3 {
			w[ldw+k-1] = float32(math.NaN()) // row 1, last step (masked tail)
			w[2*ldw] = float32(math.Inf(1))  // row 2
		}
		y := make([]float32, n)
		gemv(x, w, ldw, y)
		for j := 0; j < n; j++ {
			var want float64
			for p := 0; p < k; p++ {
				want += float64(x[p]) * float64(w[j*ldw+p])
			}
			g := float64(y[j])
			switch {
			case math.IsNaN(want):
				if !math.IsNaN(g) {
					t.Fatalf("k=%d n=%d: y[%d] = %v, want NaN", k, n, j, g)
				}
			case math.IsInf(want, 0):
				if g != want {
					t.Fatalf("k=%d n=%d: y[%d] = %v, want %v", k, n, j, g, want)
				}
			case math.Abs(g-want) > 1e-5*math.Sqrt(float64(k))*(1+math.Abs(want)):
				t.Fatalf("k=%d n=%d: y[%d] = %v, want %v", k, n, j, g, want)
			}
		}
	}
}
