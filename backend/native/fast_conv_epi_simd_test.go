//go:build amd64 && !purego

package native

import (
	"math"
	"math/rand"
	"testing"
)

// epiCase returns random arguments for the affine kernels: rows of n
// values (value's) ldd apart, per-row operands read with a stride or as
// one, and the rows' own scale and shift of r; d is the rows the kernel
// writes (args.d unset). The kernels advance rc and re in the block: run
// each on a copy of args.
func epiCase(r *rand.Rand, value func() float32, flags, n int) (args epiArgs, d []float32) {
	rows, ldd := 1+r.Intn(5), n+r.Intn(3)
	d = make([]float32, rows*ldd+1)
	res := make([]float32, rows*ldd+1)
	av, bv := make([]float32, 2*rows), make([]float32, 2*rows)
	cv, ev := make([]float32, 2*rows), make([]float32, 2*rows)
	for i := range d {
		d[i], res[i] = value(), value()
	}
	for i := range av {
		av[i], bv[i], cv[i], ev[i] = value(), value(), value(), value()
	}
	args = epiArgs{r: &res[0], a: &av[0], b: &bv[0], n: n, rows: rows, ldd: ldd, ldr: ldd,
		sa: r.Intn(3), sb: r.Intn(3), flags: flags, rc: &cv[0], re: &ev[0], src: r.Intn(3), sre: r.Intn(3)}
	return args, d
}

// runAffine runs kernel on a copy of args over a copy of d and returns
// the copy of d.
func runAffine(kernel func(*epiArgs), args epiArgs, d []float32) []float32 {
	out := append([]float32(nil), d...)
	args.d = &out[0]
	kernel(&args)
	return out
}

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
			args, d := epiCase(r, value, flags, n)
			args.t, args.xs, args.lo, args.hi = 0, 0, 0, 6
			if r.Intn(2) == 0 {
				args.t, args.xs, args.lo, args.hi = value(), value(), -1, 2
			}
			want := runAffine(affineRows32, args, d)
			got := runAffine(affineRows16, args, d)
			rows := args.rows
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("flags %b n %d rows %d: element %d = %v (%#x), AVX2 gives %v (%#x)", flags, n, rows, i,
						got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
				}
			}
		}
	}
}

// TestAffineFastMatchesTwoSided checks the AVX2 epilogue's short select
// and clamp forms (flags bit 7, setFast) against its two-sided ones, bit
// for bit: every flag combination, ReLU thresholds and clamp bounds of
// either zero, row lengths around the four-vector step, on values with
// NaNs, infinities and signed zeros.
func TestAffineFastMatchesTwoSided(t *testing.T) {
	if !simdRows {
		t.Skip("no AVX2 here")
	}
	r := rand.New(rand.NewSource(10))
	negZero := float32(math.Copysign(0, -1))
	special := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, negZero, 6, -3, 1e-40, -1e-40}
	value := func() float32 {
		if r.Intn(5) == 0 {
			return special[r.Intn(len(special))]
		}
		return float32(r.NormFloat64() * 4)
	}
	bounds := [][3]float32{{0, 0, 6}, {negZero, 0, 6}, {0, negZero, 0}, {-1, -1, 1}, {2, 0, negZero}, {0.5, 0.5, 3}}
	fast := 0
	for flags := 0; flags < 128; flags++ {
		for _, n := range []int{1, 7, 8, 9, 31, 32, 33, 63, 64, 65, 100} {
			b := bounds[r.Intn(len(bounds))]
			args, d := epiCase(r, value, flags, n)
			args.t, args.xs, args.lo, args.hi = b[0], b[0], b[1], b[2]
			want := runAffine(affineRows32, args, d)
			fastArgs := args
			fastArgs.setFast()
			if fastArgs.flags&128 == 0 {
				if flags&32 == 0 || math.Float32bits(b[2]) != math.Float32bits(negZero) {
					t.Fatalf("flags %b, bounds %v: no fast form", flags, b)
				}
				continue
			}
			fast++
			got := runAffine(affineRows32, fastArgs, d)
			rows := args.rows
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("flags %b n %d rows %d bounds %v: element %d = %v (%#x), two-sided forms give %v (%#x)", flags, n, rows, b, i,
						got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
				}
			}
		}
	}
	if fast < 128*11/2 {
		t.Fatalf("only %d of %d cases took the fast forms", fast, 128*11)
	}
}
