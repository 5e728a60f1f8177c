package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestSgemmPackedB checks products on a prepacked B against float64, for
// every kernel set, layout of B, odd shapes and thread counts, with A
// packed (run) and read in place (runDirectA), and that a NaN or an
// infinity in B reaches the elements it should.
func TestSgemmPackedB(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	shapes := [][3]int{{1, 1, 1}, {3, 5, 7}, {17, 33, 385}, {14, 600, 481}, {64, 1000, 256}, {129, 70, 800}}
	for _, ks := range kernelSets() {
		for _, s := range shapes {
			m, n, k := s[0], s[1], s[2]
			for _, layouts := range [][2]byte{{'N', 'N'}, {'N', 'T'}, {'T', 'N'}} {
				alay, layout := layouts[0], layouts[1]
				a := operand(r, m, k, alay)
				b := operand(r, k, n, layout)
				pb := packB(ks, k, n, b)
				for _, v := range []struct {
					acc, direct bool
				}{{false, false}, {true, false}, {false, true}, {true, true}} {
					acc := v.acc
					if v.direct && (ks.direct == nil || alay == 'T' && !colMajorDirect(ks, m, a)) {
						continue
					}
					ldc := n + 3
					c := randMat(r, m*ldc)
					want := reference(m, n, k, a, b, c, ldc, acc)
					pad := append([]float32(nil), c...)
					if v.direct { // A read in place (runDirectA), row- or column-major
						runDirectA(ks, m, a, pb, c, ldc, acc, 1+r.IntN(3), r.IntN(2) == 0, nil)
					} else {
						run(ks, m, n, k, a, Matrix{}, pb, c, ldc, acc, 1+r.IntN(3), nil)
					}
					for i := 0; i < m; i++ {
						for j := 0; j < ldc; j++ {
							x := i*ldc + j
							if j >= n {
								if c[x] != pad[x] {
									t.Fatalf("%s %dx%dx%d %c: padding changed", ks.name, m, n, k, layout)
								}
								continue
							}
							tol := 1e-4 * math.Sqrt(float64(k)+1) * (1 + math.Abs(want[x]))
							if math.Abs(float64(c[x])-want[x]) > tol {
								t.Fatalf("%s %dx%dx%d A %c B %c acc=%v direct=%v: c[%d][%d] = %v, want %v", ks.name, m, n, k, alay, layout, acc, v.direct, i, j, c[x], want[x])
							}
						}
					}
				}
			}
		}
	}
	// NaN and Inf in B: column 5 gets NaN, column 6 +Inf (A positive)
	m, n, k := 20, 40, 50
	a := RowMajor(make([]float32, m*k), k)
	for i := range a.Data {
		a.Data[i] = 1
	}
	bd := randMat(r, k*n)
	bd[3*n+5] = float32(math.NaN())
	bd[7*n+6] = float32(math.Inf(1))
	c := make([]float32, m*n)
	SgemmPackedB(m, a, PackB(k, n, RowMajor(bd, n)), c, n, false, 2)
	for i := 0; i < m; i++ {
		if !math.IsNaN(float64(c[i*n+5])) || !math.IsInf(float64(c[i*n+6]), 1) || math.IsNaN(float64(c[i*n+7])) {
			t.Fatalf("row %d: %v %v %v, want NaN +Inf finite", i, c[i*n+5], c[i*n+6], c[i*n+7])
		}
	}
}

// BenchmarkWeightsCold times linear layers (x·Wᵀ, W [n, k]) whose weights
// come from memory, as in a model's run: the product cycles over enough
// copies of W to leave the caches, with B packed per call (Sgemm) or once
// (SgemmPackedB).
func BenchmarkWeightsCold(b *testing.B) {
	for _, s := range [][3]int{{17, 3072, 768}, {17, 768, 3072}, {64, 1024, 256}, {64, 256, 1024}, {128, 768, 768}} {
		m, n, k := s[0], s[1], s[2]
		copies := max(2, (64<<20)/(4*n*k))
		r := rand.New(rand.NewPCG(1, 2))
		ws := make([][]float32, copies)
		pbs := make([]*PackedB, copies)
		for i := range ws {
			ws[i] = randMat(r, n*k)
			pbs[i] = PackB(k, n, RowMajor(ws[i], k).Transposed())
		}
		a, c := randMat(r, m*k), make([]float32, m*n)
		for _, pre := range []bool{false, true} {
			b.Run(fmt.Sprintf("%dx%dx%d/prepacked=%v", m, n, k, pre), func(b *testing.B) {
				cpu0 := processCPU()
				for i := 0; i < b.N; i++ {
					w := i % copies
					if pre {
						SgemmPackedB(m, RowMajor(a, k), pbs[w], c, n, false, 1)
					} else {
						Sgemm(m, n, k, RowMajor(a, k), RowMajor(ws[w], k).Transposed(), c, n, false, 1)
					}
				}
				reportFlops(b, 2*float64(m*n*k)*float64(b.N), processCPU()-cpu0, 1)
			})
		}
	}
}
