package gemm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPackedOperands checks MulPacked and Mul on row bands and column
// ranges against the float64 reference, for every kernel set.
func TestPackedOperands(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, ks := range kernelSets() {
		for _, s := range [][3]int{{1, 1, 1}, {14, 32, 384}, {15, 33, 385}, {64, 49, 1000}, {100, 300, 147}} {
			m, n, k := s[0], s[1], s[2]
			a, b := operand(r, m, k, 'N'), operand(r, k, n, 'N')
			pa := newPackedA(ks, m, k)
			for u := 0; u < pa.Units(); u++ {
				pa.PackUnit(a, u)
			}
			bp := make([]float32, pa.PackedBLen(n))
			for kb := 0; kb < pa.KBlocks(); kb++ {
				pa.PackB(bp, MatrixPacker(b), kb, 0, n)
			}
			want := reference(m, n, k, a, b, make([]float32, m*n), n, false)
			mid := min(m, roundUp(m/2, ks.mr))
			for _, acc := range []bool{false, true} {
				c := randMat(r, m*n)
				start := append([]float32(nil), c...)
				pa.MulPacked(0, mid, bp, n, c, n, acc)
				pa.MulPacked(mid, m, bp, n, c[mid*n:], n, acc)
				check(t, ks, "MulPacked", m, n, k, c, start, want, acc)
				c = randMat(r, m*n)
				start = append([]float32(nil), c...)
				j1 := n / 3
				pa.Mul(0, mid, MatrixPacker(b), 0, j1, c, n, acc)
				pa.Mul(0, mid, MatrixPacker(b), j1, n-j1, c[j1:], n, acc)
				pa.Mul(mid, m, MatrixPacker(b), 0, n, c[mid*n:], n, acc)
				check(t, ks, "Mul", m, n, k, c, start, want, acc)
			}
			pa.Release()
		}
	}
}

func check(t *testing.T, ks *kernelSet, what string, m, n, k int, c, start []float32, want []float64, acc bool) {
	t.Helper()
	for i := range c {
		w := want[i]
		if acc {
			w += float64(start[i])
		}
		if math.Abs(float64(c[i])-w) > 1e-4*math.Sqrt(float64(k)+1)*(1+math.Abs(w)) {
			t.Fatalf("%s %s %dx%dx%d acc=%v: c[%d] = %v, want %v", ks.name, what, m, n, k, acc, i, c[i], w)
		}
	}
}
