package vmath

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
)

// vmathCase is one function of vmath.go with its float64 reference and
// the error bound of its doc, in ulps of the result.
type vmathCase struct {
	name   string
	row    func(d, x []float32)
	scalar func(float32) float32
	ref    func(float64) float64
	bound  float64
}

var vmathCases = []vmathCase{
	{"exp", ExpRow, Exp, math.Exp, 1},
	{"logistic", LogisticRow, Logistic, logistic, 2.5},
	{"tanh", TanhRow, Tanh, math.Tanh, 1.1},
	{"erf", ErfRow, Erf, math.Erf, 2.5},
}

// logistic is the float64 reference of Logistic (package native's float64
// form of stablehlo.logistic).
func logistic(x float64) float64 {
	if x < 0 {
		e := math.Exp(x)
		return e / (1 + e)
	}
	return 1 / (1 + math.Exp(-x))
}

// ulpErr is |y - t| in units of the last place of float32 at t (the
// subnormal spacing below the normal range); 0 for NaN against NaN and
// for matching infinities.
func ulpErr(y float32, t float64) float64 {
	switch {
	case math.IsNaN(t) || y != y:
		if math.IsNaN(t) && y != y {
			return 0
		}
		return math.Inf(1)
	case math.Abs(t) > math.MaxFloat32 || math.IsInf(float64(y), 0):
		// beyond the largest float32: only the infinity of t's sign is right
		if math.IsInf(float64(y), 0) && math.Signbit(float64(y)) == math.Signbit(t) && math.Abs(t) >= math.MaxFloat32*(1+0x1p-25) {
			return 0
		}
		if math.IsInf(float64(y), 0) {
			return math.Inf(1)
		}
	}
	e := math.Ilogb(math.Abs(t))
	if t == 0 || e < -126 {
		e = -126
	}
	return math.Abs(float64(y)-t) / math.Ldexp(1, e-23)
}

// forLanes runs f once per loop width this CPU has (and once with the
// scalar forms alone), with vmathLanes set to it.
func forLanes(t *testing.T, f func(t *testing.T)) {
	saved := vmathLanes
	defer func() { vmathLanes = saved }()
	for _, l := range append(vmathLaneCounts(), 0) {
		vmathLanes = l
		t.Run(fmt.Sprintf("lanes%d", l), f)
	}
}

// vmathRow runs the row function of c over x.
func vmathRow(t *testing.T, c vmathCase, x []float32) []float32 {
	d := make([]float32, len(x))
	c.row(d, x)
	return d
}

// TestVmathAccuracy measures every function, vector loops and scalar
// form, over every 997th float32 bit pattern against its float64
// reference and checks the doc's bounds.
func TestVmathAccuracy(t *testing.T) {
	const stride = 997
	xs := make([]float32, 0, 1<<32/stride+1)
	for b := uint64(0); b < 1<<32; b += stride {
		xs = append(xs, math.Float32frombits(uint32(b)))
	}
	forLanes(t, func(t *testing.T) {
		for _, c := range vmathCases {
			t.Run(c.name, func(t *testing.T) {
				vec := vmathRow(t, c, xs)
				worstV, worstS := 0.0, 0.0
				for i, x := range xs {
					want := c.ref(float64(x))
					if e := ulpErr(vec[i], want); e > worstV {
						worstV = e
						if e > c.bound {
							t.Errorf("%s(%g) = %g (row), want %g: %.2f ulp, bound %g", c.name, x, vec[i], want, e, c.bound)
						}
					}
					if e := ulpErr(c.scalar(x), want); e > worstS {
						worstS = e
						if e > c.bound {
							t.Errorf("%s(%g) = %g (scalar), want %g: %.2f ulp, bound %g", c.name, x, c.scalar(x), want, e, c.bound)
						}
					}
				}
				t.Logf("%s: max error %.3f ulp (rows, %d lanes), %.3f ulp (scalar form), over %d values", c.name, worstV, vmathLanes, worstS, len(xs))
			})
		}
	})
}

// TestVmathSpecial checks NaN, infinities, signed zeros, subnormals and
// the overflow and underflow edges, bit for bit where the result is
// exact and within the bound elsewhere, on every lane position and tail.
func TestVmathSpecial(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	special := []float32{nan, -nan, inf, -inf, 0, float32(math.Copysign(0, -1)),
		math.Float32frombits(1), -math.Float32frombits(1), math.Float32frombits(0x007fffff), 0x1p-126, -0x1p-126,
		math.MaxFloat32, -math.MaxFloat32, 88.72283, 88.72284, 88.7229, 89, 89.5, -87.33654, -87.3366, -103.27893,
		-103.97, -104, -105, -150, 1e-20, -1e-20, 0.875, -0.875, 0.87499994, 1, -1, 0.99999994, 4, -4, 3.9, 9, -9, 10, 20}
	forLanes(t, func(t *testing.T) {
		for _, c := range vmathCases {
			for n := 1; n <= 40; n++ {
				// every special value at every position of a row of n
				for off := 0; off < len(special); off++ {
					x := make([]float32, n)
					for i := range x {
						x[i] = special[(off+i)%len(special)]
					}
					d := vmathRow(t, c, x)
					for i, v := range x {
						want := c.ref(float64(v))
						if e := ulpErr(d[i], want); e > c.bound {
							t.Fatalf("%s(%g) = %g (row of %d, lane %d), want %g: %.2f ulp", c.name, v, d[i], n, i, want, e)
						}
						if w := float32(want); (w == 0 || math.IsInf(float64(w), 0)) && !math.IsNaN(want) &&
							math.Float32bits(d[i]) != math.Float32bits(w) && !(w == 0 && d[i] != 0 && ulpErr(d[i], want) <= 1) {
							t.Fatalf("%s(%g) = %g (bits %#x), want %g (bits %#x)", c.name, v, d[i], math.Float32bits(d[i]), w, math.Float32bits(w))
						}
					}
				}
			}
		}
	})
}

// TestVmathInPlace runs each row function with d and x the same row.
func TestVmathInPlace(t *testing.T) {
	for _, c := range vmathCases {
		x := make([]float32, 37)
		for i := range x {
			x[i] = float32(i-18) * 0.37
		}
		want := vmathRow(t, c, x)
		c.row(x, x)
		for i := range x {
			if math.Float32bits(x[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%s in place: element %d = %g, want %g", c.name, i, x[i], want[i])
			}
		}
	}
}

// TestSqrtRows: the float32 rows of sqrt and rsqrt give the bits of their
// float64 forms rounded (what the element kernel computes without them),
// over every 997th bit pattern and the special values, in place too, in
// each vector width.
func TestSqrtRows(t *testing.T) { forLanes(t, testSqrtRows) }

func testSqrtRows(t *testing.T) {
	xs := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)),
		math.Float32frombits(1), math.MaxFloat32, -1, 4}
	for b := uint64(0); b < 1<<32; b += 997 {
		xs = append(xs, math.Float32frombits(uint32(b)))
	}
	for _, c := range []struct {
		op     string
		row    func(d, x []float32)
		scalar func(float32) float32
		ref    func(float64) float64
	}{{"sqrt", SqrtRow, Sqrt, math.Sqrt}, {"rsqrt", RsqrtRow, Rsqrt, func(x float64) float64 { return 1 / math.Sqrt(x) }}} {
		d := make([]float32, len(xs))
		c.row(d, xs)
		in := append([]float32(nil), xs...)
		c.row(in, in)
		for i, x := range xs {
			want := math.Float32bits(float32(c.ref(float64(x))))
			if math.Float32bits(d[i]) != want || math.Float32bits(c.scalar(x)) != want || math.Float32bits(in[i]) != want {
				t.Fatalf("%s(%g): row %g, scalar %g, in place %g, want the float64 form rounded %g",
					c.op, x, d[i], c.scalar(x), in[i], math.Float32frombits(want))
			}
		}
	}
}

// TestExpRowUnderflowBits runs exp on rows mixing lanes whose results
// underflow (below ExpLo: +0; -Inf) with lanes whose results are
// subnormal, normal, NaN: the vector loops take a shortcut for vectors
// whose only small lanes round to +0 and the full path where a lane's
// result is subnormal; each element must have the scalar Exp's bits
// either way.
func TestExpRowUnderflowBits(t *testing.T) {
	pool := []float32{float32(math.Inf(-1)), -1e30, -200, -104.5, -104.00001, -104, -103.99, -103.27893, -95,
		-87.5, -87.33654, -87.00001, -87, -86.99999, -50, 0, 3, 88.7, float32(math.NaN())}
	r := rand.New(rand.NewSource(3))
	forLanes(t, func(t *testing.T) {
		for trial := 0; trial < 2000; trial++ {
			n := 1 + r.Intn(48)
			x := make([]float32, n)
			// mostly underflowing lanes, a few others
			for i := range x {
				if r.Intn(4) == 0 {
					x[i] = pool[r.Intn(len(pool))]
				} else {
					x[i] = pool[r.Intn(4)]
				}
			}
			d := make([]float32, n)
			ExpRow(d, x)
			for i, v := range x {
				want := Exp(v)
				if math.Float32bits(d[i]) != math.Float32bits(want) && !(want != want && d[i] != d[i]) {
					t.Fatalf("exp(%g) = %g (bits %#x) in a row of %d, lane %d; scalar %g (bits %#x)", v, d[i], math.Float32bits(d[i]), n, i, want, math.Float32bits(want))
				}
			}
		}
	})
}
