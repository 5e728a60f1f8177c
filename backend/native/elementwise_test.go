package native

import (
	"math"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Spec-level properties of the elementwise helpers (no XLA outputs).

func TestFloatToIntSaturates(t *testing.T) {
	cases := []struct {
		v    float64
		to   dtype.DType
		want int64
	}{
		{math.NaN(), dtype.I32, 0},
		{1e10, dtype.I32, math.MaxInt32},
		{-1e10, dtype.I32, math.MinInt32},
		{-3.7, dtype.I8, -3},
		{300, dtype.U8, 255},
		{-5, dtype.U8, 0},
		{math.Inf(1), dtype.I64, math.MaxInt64},
		{1e300, dtype.U64, -1}, // all bits set
	}
	for _, c := range cases {
		if got := floatToInt(c.v, c.to); got != c.want {
			t.Errorf("floatToInt(%v, %v) = %d, want %d", c.v, c.to, got, c.want)
		}
	}
}

func TestShiftsOutOfRange(t *testing.T) {
	if got := shl(1, 8, dtype.I8); got != 0 {
		t.Errorf("1 << 8 in i8 = %d, want 0", got)
	}
	if got := shrl(0xff, 3, dtype.U8); got != 0x1f {
		t.Errorf("0xff >> 3 = %#x", got)
	}
	if got := clz(1, dtype.I16); got != 15 {
		t.Errorf("clz(1) in i16 = %d", got)
	}
	if got := clz(0, dtype.U4); got != 4 {
		t.Errorf("clz(0) in ui4 = %d", got)
	}
}

func TestULPDistance(t *testing.T) {
	l, _ := literal.New(dtype.F32, []int64{4})
	l.SetFloat64(0, 1)
	l.SetFloat64(1, float64(math.Nextafter32(1, 2)))
	l.SetFloat64(2, math.Copysign(0, -1))
	l.SetFloat64(3, 0)
	a, s := floatBits(l, 0)
	b, _ := floatBits(l, 1)
	if d := ulpDiff(a, b, s, l.Float64(0), l.Float64(1)); d != 1 {
		t.Errorf("ULP(1, next(1)) = %d", d)
	}
	z0, _ := floatBits(l, 2)
	z1, _ := floatBits(l, 3)
	if d := ulpDiff(z0, z1, s, l.Float64(2), l.Float64(3)); d != 0 {
		t.Errorf("ULP(-0, +0) = %d", d)
	}
	nan := math.Float64bits(math.NaN())
	if d := ulpDiff(nan, nan^1, 1<<63, math.NaN(), math.NaN()); d != 0 {
		t.Errorf("ULP(NaN, NaN') = %d", d)
	}
	if d := ulpDiff(a, math.Float64bits(math.Inf(1)), s, 1, math.Inf(1)); d != math.MaxUint64 {
		t.Errorf("ULP(1, inf) = %d", d)
	}
}

func TestTotalOrderKey(t *testing.T) {
	l, _ := literal.New(dtype.F16, []int64{5})
	vals := []float64{math.Inf(-1), -1, math.Copysign(0, -1), 0, math.Inf(1)}
	for i, v := range vals {
		l.SetFloat64(i, v)
	}
	for i := 1; i < len(vals); i++ {
		if totalKey(l, i-1) >= totalKey(l, i) {
			t.Errorf("total order: %v not below %v", vals[i-1], vals[i])
		}
	}
}

// The fast paths must agree with the generic loops.
func TestFastPathsMatchGeneric(t *testing.T) {
	for _, d := range []dtype.DType{dtype.F32, dtype.F64, dtype.I32, dtype.I64} {
		x, _ := literal.New(d, []int64{64})
		y, _ := literal.New(d, []int64{64})
		for i := 0; i < 64; i++ {
			x.SetFloat64(i, float64(i*37%23)-11.25)
			y.SetFloat64(i, float64(i*13%17)-8.5)
		}
		if !d.IsFloat() { // results that wrap around
			x.SetInt64(1, math.MaxInt64)
			x.SetInt64(2, math.MinInt64)
			y.SetInt64(3, math.MaxInt64/3)
			x.SetInt64(3, 7)
		}
		for _, name := range []string{"stablehlo.add", "stablehlo.subtract", "stablehlo.multiply", "stablehlo.divide", "stablehlo.remainder", "stablehlo.maximum"} {
			fns := binaryTable[name]
			fast, _ := literal.New(d, x.Shape)
			slow, _ := literal.New(d, x.Shape)
			if !fastBinary(fns, x, y, fast) {
				t.Fatalf("%s on %v has no fast path", name, d)
			}
			// The generic path, forced by a copy of fns the fast path
			// does not know: call it element by element.
			for i := 0; i < 64; i++ {
				if d.IsFloat() {
					slow.SetFloat64(i, fns.f(x.Float64(i), y.Float64(i)))
				} else {
					slow.SetInt64(i, fns.s(x.Int64(i), y.Int64(i), d))
				}
			}
			if string(fast.Data) != string(slow.Data) {
				t.Errorf("%s on %v: fast and generic paths differ", name, d)
			}
		}
	}
}

func BenchmarkAddF32(b *testing.B) {
	x, _ := literal.New(dtype.F32, []int64{1 << 20})
	k := kernels["stablehlo.add"]
	op := &stablehlo.Op{Name: "stablehlo.add"}
	b.SetBytes(int64(len(x.Data)))
	for i := 0; i < b.N; i++ {
		if _, err := k(nil, op, []Value{x, x}); err != nil {
			b.Fatal(err)
		}
	}
}

// log(z) for |z| = 1 + tiny keeps the tiny real part: for z = e^(iθ)(1+ε)
// the real part is log(1+ε) ≈ ε.
func TestComplexLogNearUnitCircle(t *testing.T) {
	eps := 1e-12
	theta := 0.3
	z := complex((1+eps)*math.Cos(theta), (1+eps)*math.Sin(theta))
	got := real(clog(z))
	if math.Abs(got-eps)/eps > 1e-3 {
		t.Errorf("real(log(z)) = %g, want about %g", got, eps)
	}
}

// tanh of a complex number with a large real part tends to ±1.
func TestComplexTanhLargeReal(t *testing.T) {
	for _, x := range []float64{400, -400} {
		got := ctanh(complex(x, 0.7))
		if real(got) != math.Copysign(1, x) || imag(got) != 0 {
			t.Errorf("tanh(%v+0.7i) = %v", x, got)
		}
	}
}
