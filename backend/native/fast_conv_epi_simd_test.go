//go:build amd64 && !purego

package native

import (
	"math"
	"math/rand"
	"testing"
)

// TestAffineRows16MatchesAVX2 checks the AVX-512 affine epilogue against
// the AVX2 one, bit for bit, for every flag combination, row lengths
// around the vector widths, rows apart and per-row values read with a
// stride or as one, on values with NaNs, infinities and signed zeros.
func TestAffineRows16MatchesAVX2(t *testing.T) {
	if !affine512 {
		t.Skip("no AVX-512 here")
	}
	r := rand.New(rand.NewSource(9))
	special := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)), 6, -3, 1e-40}
	value := func() float32 {
		if r.Intn(6) == 0 {
			return special[r.Intn(len(special))]
		}
		return float32(r.NormFloat64() * 4)
	}
	for flags := 0; flags < 128; flags++ {
		for _, n := range []int{1, 7, 8, 15, 16, 17, 31, 32, 33, 49, 64} {
			rows, ldd := 1+r.Intn(5), n+r.Intn(3)
			d := make([]float32, rows*ldd+1)
			res := make([]float32, rows*ldd+1)
			av, bv := make([]float32, 2*rows), make([]float32, 2*rows)
			cv, ev := make([]float32, 2*rows), make([]float32, 2*rows)
			for i := range d {
				d[i], res[i] = value(), value()
			}
			for i := range av {
				av[i], bv[i], cv[i], ev[i] = value(), value(), value(), value()
			}
			sa, sb := r.Intn(3), r.Intn(3)
			args := epiArgs{r: &res[0], a: &av[0], b: &bv[0], t: 0, xs: 0, n: n, rows: rows, ldd: ldd, ldr: ldd,
				sa: sa, sb: sb, flags: flags, lo: 0, hi: 6, rc: &cv[0], re: &ev[0], src: r.Intn(3), sre: r.Intn(3)}
			if r.Intn(2) == 0 {
				args.t, args.xs, args.lo, args.hi = value(), value(), -1, 2
			}
			want, got := append([]float32(nil), d...), append([]float32(nil), d...)
			a := args
			a.d = &want[0]
			affineRows32(&a)
			a = args // the kernels advance rc and re in the block
			a.d = &got[0]
			affineRows16(&a)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("flags %b n %d rows %d: element %d = %v (%#x), AVX2 gives %v (%#x)", flags, n, rows, i,
						got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
				}
			}
		}
	}
}
