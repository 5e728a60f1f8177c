//go:build amd64 && !purego

package native

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// fma32 is a float32 fused multiply-add, a·b + c rounded once: through
// float64 where that is exact (a·b always is; the sum's one rounding to
// float64 cannot then make a float32 tie), else through big.Float.
func fma32(a, b, c float32) float32 {
	r := math.FMA(float64(a), float64(b), float64(c))
	if math.IsInf(r, 0) || math.IsNaN(r) || r == 0 {
		return float32(r)
	}
	// a float32 tie in float64 bits: the 29 bits below a normal float32's
	// mantissa are 1 followed by zeros (subnormal float32 results go the
	// exact way too)
	if bits := math.Float64bits(r); bits&(1<<29-1) != 1<<28 && math.Abs(r) >= 0x1p-126 {
		return float32(r)
	}
	x := new(big.Float).SetPrec(200).SetFloat64(float64(a))
	x.Mul(x, new(big.Float).SetPrec(200).SetFloat64(float64(b)))
	x.Add(x, new(big.Float).SetPrec(200).SetFloat64(float64(c)))
	f, _ := x.Float32()
	return f
}

// TestDWRowsExact checks the AVX2 row kernel (every row group of three,
// two and one, every block width, the masked tail) against its sums
// written out: per output, the taps in order, each a float32 fused
// multiply-add from zero, bit for bit, on values with infinities, NaNs
// and signed zeros, and that nothing outside the rows' n columns is
// written.
func TestDWRowsExact(t *testing.T) {
	if !dwSIMDOK {
		t.Skip("no AVX2 here")
	}
	r := rand.New(rand.NewPCG(1, 2))
	special := []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), float32(math.Copysign(0, -1))}
	for it := 0; it < 600; it++ {
		n := 1 + r.IntN(130)
		rows := 1 + r.IntN(8)
		taps := 1 + r.IntN(12)
		srcStride := (n + r.IntN(9)) * (1 + r.IntN(2))
		src := make([]float32, rows*srcStride+4*n+64)
		for i := range src {
			src[i] = float32(r.NormFloat64())
			if r.IntN(200) == 0 {
				src[i] = special[r.IntN(len(special))]
			}
		}
		offs := make([]int, taps)
		w := make([]float32, taps)
		for i := range offs {
			offs[i] = 4 * r.IntN(len(src)-(rows-1)*srcStride-n+1)
			w[i] = float32(r.NormFloat64())
		}
		dstStride := n + r.IntN(3)
		got := make([]float32, rows*dstStride+8)
		for i := range got {
			got[i] = float32(-i)
		}
		want := append([]float32(nil), got...)
		for row := 0; row < rows; row++ {
			for x := 0; x < n; x++ {
				var s float32
				for k, o := range offs {
					s = fma32(w[k], src[o/4+row*srcStride+x], s)
				}
				want[row*dstStride+x] = s
			}
		}
		dwRows(&dwArgs{dst: &got[0], src: &src[0], offs: &offs[0], w: &w[0], taps: taps, n: n, rows: rows,
			dstStride: 4 * dstStride, srcStride: 4 * srcStride})
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
				t.Fatalf("n %d rows %d taps %d: element %d (row %d) = %v, want %v", n, rows, taps, i, i/dstStride, got[i], want[i])
			}
		}
	}
}
