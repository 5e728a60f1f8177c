package native

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
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
			checkGemvRow(t, k, n, j, float64(y[j]), want)
		}
	}
}

// checkGemvRow checks output j of a k-step matrix-vector product against
// its float64 sum: NaN for NaN, an infinity exactly, else within the
// rounding of k float32 steps.
func checkGemvRow(t *testing.T, k, n, j int, g, want float64) {
	t.Helper()
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

// BenchmarkGemv runs mobilenet_v3's and a classifier's matrix-vector
// shapes on weights fresh from memory: each call takes the next of enough
// copies to exceed the last-level cache, as a model's run meets its
// weights. Reports the weights' bytes read per second.
func BenchmarkGemv(b *testing.B) {
	for _, s := range [][2]int{{240, 960}, {960, 240}, {960, 1280}, {1280, 1000}, {4096, 1024}} {
		k, n := s[0], s[1]
		b.Run(fmt.Sprintf("k%d_n%d", k, n), func(b *testing.B) {
			copies := max(2, (64<<20)/(4*k*n))
			w := make([]float32, copies*k*n)
			for i := range w {
				w[i] = float32(i%7) - 3
			}
			x := make([]float32, k)
			for i := range x {
				x[i] = 1
			}
			y := make([]float32, n)
			b.SetBytes(int64(4 * k * n))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c := i % copies
				gemv(x, w[c*k*n:(c+1)*k*n], k, y)
			}
		})
	}
}

// TestGemvPacked checks the blocked matrix-vector product (a frozen
// weight's packed copy) against float64 sums for n around the 16-row
// blocks, k around the four-step groups (0 included), a row stride past
// k, NaN and Inf, and that three threads give the bits of one, in each
// vector form the CPU has (AVX-512, AVX2), and that the forms agree bit
// for bit.
func TestGemvPacked(t *testing.T) {
	if !gemvPackedOK {
		t.Skip("no vector loops on this CPU")
	}
	first := map[[2]int][]float32{} // the first form's results per shape
	eachForm(t, &gemv512, func(t *testing.T) { testGemvPacked(t, first) })
}

func testGemvPacked(t *testing.T, first map[[2]int][]float32) {
	r := rand.New(rand.NewPCG(33, 34))
	for _, s := range [][3]int{{1, 1, 1}, {0, 5, 3}, {5, 15, 7}, {4, 16, 4}, {7, 17, 9}, {240, 960, 240}, {245, 487, 250}, {1280, 1000, 1280}} {
		k, n, ldw := s[0], s[1], s[2]
		x := make([]float32, k+3)
		w := make([]float32, n*ldw)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		for i := range w {
			w[i] = float32(r.NormFloat64())
		}
		if n > 2 && k > 3 {
			w[ldw+k-1] = float32(math.NaN())
			w[2*ldw] = float32(math.Inf(1))
		}
		g := packGemv(w, ldw, n, k)
		y := make([]float32, n+2)
		y[n], y[n+1] = 7, 7
		old := runtime.GOMAXPROCS(1)
		g.run(x, y)
		runtime.GOMAXPROCS(3)
		y3 := make([]float32, n)
		g.run(x, y3)
		runtime.GOMAXPROCS(old)
		if y[n] != 7 || y[n+1] != 7 {
			t.Fatalf("k=%d n=%d: written past y[n]", k, n)
		}
		for j := 0; j < n; j++ {
			var want float64
			for p := 0; p < k; p++ {
				want += float64(x[p]) * float64(w[j*ldw+p])
			}
			if math.Float32bits(y[j]) != math.Float32bits(y3[j]) {
				t.Fatalf("k=%d n=%d: y[%d] = %v on one thread, %v on three", k, n, j, y[j], y3[j])
			}
			checkGemvRow(t, k, n, j, float64(y[j]), want)
		}
		key := [2]int{k, n}
		if prev, ok := first[key]; ok {
			for j := range prev {
				if math.Float32bits(prev[j]) != math.Float32bits(y[j]) {
					t.Fatalf("k=%d n=%d: y[%d] = %v in AVX2, %v in AVX-512", k, n, j, y[j], prev[j])
				}
			}
		} else {
			first[key] = y[:n]
		}
	}
}

// BenchmarkGemvPacked runs BenchmarkGemv's shapes on weights packed in
// blocks of 16 rows (gemvPacked), from enough copies to exceed the
// last-level cache (and, as "l3", from copies filling 24 MB, a mobile
// network's weights), beside the rows read in place (gemv).
func BenchmarkGemvPacked(b *testing.B) {
	if !gemvPackedOK {
		b.Skip("no vector loops on this CPU")
	}
	for _, s := range [][2]int{{240, 960}, {960, 240}, {960, 1280}, {1280, 1000}} {
		k, n := s[0], s[1]
		for _, mb := range []int{64, 24} {
			copies := max(2, (mb<<20)/(4*k*n))
			w := make([]float32, copies*k*n)
			for i := range w {
				w[i] = float32(i%7) - 3
			}
			packs := make([]*gemvPacked, copies)
			for c := range packs {
				packs[c] = packGemv(w[c*k*n:], k, n, k)
			}
			x, y := make([]float32, k), make([]float32, n)
			for _, packed := range []bool{false, true} {
				b.Run(fmt.Sprintf("k%d_n%d/%dMB/packed=%v", k, n, mb, packed), func(b *testing.B) {
					b.SetBytes(int64(4 * k * n))
					for i := 0; i < b.N; i++ {
						c := i % copies
						if packed {
							packs[c].mul(x, y, 0, (n+15)/16)
						} else {
							gemv(x, w[c*k*n:(c+1)*k*n], k, y)
						}
					}
				})
			}
		}
	}
}
