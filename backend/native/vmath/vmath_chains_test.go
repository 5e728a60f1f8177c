package vmath

import (
	"math"
	"math/rand"
	"testing"
)

// forChainRows runs check, for each loop width, on rows of 1 to 40 elements
// cycling through vals from every offset (scaled by 1, 2, 3 in turn), so
// that each value meets every lane position and tail.
func forChainRows(t *testing.T, vals []float32, check func(t *testing.T, x []float32)) {
	forLanes(t, func(t *testing.T) {
		for n := 1; n <= 40; n++ {
			for off := range vals {
				x := make([]float32, n)
				for i := range x {
					x[i] = vals[(off+i)%len(vals)] * float32(1+i%3)
				}
				check(t, x)
			}
		}
	})
}

// TestSiLURowBits compares the one-loop SiLU with its ops run one by one
// (negate, the exp row, add 1, divide) on special and ordinary values,
// at every lane position and tail, for each loop width.
func TestSiLURowBits(t *testing.T) {
	nan := float32(math.NaN())
	vals := []float32{nan, -nan, float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)),
		math.Float32frombits(1), -math.Float32frombits(1), 0x1p-126, 88.7, -88.7, 89, -89, 104, -104, 1, -1, 0.5, -3.25, 20, -20}
	forChainRows(t, vals, func(t *testing.T, x []float32) {
		n := len(x)
		got := make([]float32, n)
		SiLURow(got, x)
		e := make([]float32, n)
		for i, v := range x {
			e[i] = -v
		}
		ExpRow(e, e)
		for i, v := range x {
			want := v / (1 + e[i])
			if math.Float32bits(got[i]) != math.Float32bits(want) && !(got[i] != got[i] && want != want) {
				t.Fatalf("silu(%g) = %g (bits %#x), the ops one by one give %g (%#x)", v, got[i], math.Float32bits(got[i]), want, math.Float32bits(want))
			}
		}
	})
}

// TestGELURowBits compares the one-loop GELU with its ops run one by one
// (multiply, the erf row, add 1, multiply, multiply).
func TestGELURowBits(t *testing.T) {
	nan := float32(math.NaN())
	vals := []float32{nan, -nan, float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)),
		math.Float32frombits(1), -math.Float32frombits(1), 0x1p-126, 1.4, -1.4, 5.6, -5.6, 1, -1, 0.5, -3.25, 20, -20, 3e38, -3e38}
	forChainRows(t, vals, func(t *testing.T, x []float32) {
		n := len(x)
		got := make([]float32, n)
		GELURow(got, x)
		e := make([]float32, n)
		for i, v := range x {
			e[i] = v * vmRsqrt2
		}
		ErfRow(e, e)
		for i, v := range x {
			h, p := v*0.5, 1+e[i]
			want := h * p
			if math.Float32bits(got[i]) != math.Float32bits(want) && !(got[i] != got[i] && want != want) {
				t.Fatalf("gelu(%g) = %g (bits %#x), the ops one by one give %g (%#x)", v, got[i], math.Float32bits(got[i]), want, math.Float32bits(want))
			}
		}
	})
}

// TestHardswishRowBits compares the one-loop hardswish with its ops run
// one by one (add 3, the clamp to [0, 6], multiply, divide by 6).
func TestHardswishRowBits(t *testing.T) {
	nan := float32(math.NaN())
	vals := []float32{nan, -nan, float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)),
		math.Float32frombits(1), -math.Float32frombits(1), 0x1p-126, 3, -3, 2.9999998, -3.0000002, 6, -6, 1, -1, 0.5, -3.25, 20, -20, 3e38, -3e38}
	forChainRows(t, vals, func(t *testing.T, x []float32) {
		n := len(x)
		got := make([]float32, n)
		HardswishRow(got, x)
		for i, v := range x {
			a := v + 3
			if !(a != a) {
				a = float32(math.Max(float64(a), 0))
				a = float32(math.Min(float64(a), 6))
			}
			m := v * a
			want := m / 6
			if math.Float32bits(got[i]) != math.Float32bits(want) && !(got[i] != got[i] && want != want) {
				t.Fatalf("hardswish(%g) = %g (bits %#x), the ops one by one give %g (%#x)", v, got[i], math.Float32bits(got[i]), want, math.Float32bits(want))
			}
		}
	})
}

// TestGELUTanhRowBits compares the one-loop tanh-approximate GELU, whole
// and its inner chain, with its ops run one by one (multiplies, add, the
// tanh row, add 1, multiplies).
func TestGELUTanhRowBits(t *testing.T) {
	nan := float32(math.NaN())
	vals := []float32{nan, -nan, float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)),
		math.Float32frombits(1), -math.Float32frombits(1), 0x1p-126, 0.7, -0.7, 1.1, -1.1, 3.2, -3.2, 6e12, -6e12, 1, -1, 0.5, -3.25, 20, -20, 3e38, -3e38}
	forChainRows(t, vals, func(t *testing.T, x []float32) {
		n := len(x)
		got, in := make([]float32, n), make([]float32, n)
		GELUTanhRow(got, x)
		GELUTanhInRow(in, x)
		e := make([]float32, n)
		for i, v := range x {
			c := v * v
			c *= v
			c *= vmGeluK1
			s := v + c
			e[i] = s * vmGeluK2
		}
		TanhRow(e, e)
		for i, v := range x {
			h, p := v*0.5, e[i]+1
			want := h * p
			if math.Float32bits(got[i]) != math.Float32bits(want) && !(got[i] != got[i] && want != want) {
				t.Fatalf("gelu_tanh(%g) = %g (bits %#x), the ops one by one give %g (%#x)", v, got[i], math.Float32bits(got[i]), want, math.Float32bits(want))
			}
			if math.Float32bits(in[i]) != math.Float32bits(e[i]) && !(in[i] != in[i] && e[i] != e[i]) {
				t.Fatalf("gelu_tanh_in(%g) = %g (bits %#x), the ops one by one give %g (%#x)", v, in[i], math.Float32bits(in[i]), e[i], math.Float32bits(e[i]))
			}
		}
	})
}

// quiet32 is a NaN with its quiet bit set, as an op returns its operand's.
func quiet32(v float32) float32 { return math.Float32frombits(math.Float32bits(v) | 1<<22) }

// x86NaN returns r, the value of an op on a and b, where neither is NaN;
// else the first NaN operand, quieted: what an SSE or AVX multiply, add
// or subtract returns (the first source's NaN of two).
func x86NaN(a, b, r float32) float32 {
	switch {
	case a != a:
		return quiet32(a)
	case b != b:
		return quiet32(b)
	}
	return r
}

// geluTanhBackwardOps is the tanh-approximate GELU's backward of rows g
// and x as its ops compute it one by one (each a float32 row, the
// graph's operand order, NaNs as x86 picks them, the tanh row of
// package vmath), node by node of the decomposition that AOTAutograd
// gives PyTorch.
func geluTanhBackwardOps(g, x []float32) []float32 {
	mul := func(a, b float32) float32 { return x86NaN(a, b, float32(a*b)) }
	add := func(a, b float32) float32 { return x86NaN(a, b, float32(a+b)) }
	sub := func(a, b float32) float32 { return x86NaN(a, b, float32(a-b)) }
	n := len(x)
	t := make([]float32, n)
	for i, v := range x {
		c := mul(mul(v, v), v)
		c = mul(c, vmGeluK1)
		t[i] = mul(add(v, c), vmGeluK2)
	}
	TanhRow(t, t) // %81
	out := make([]float32, n)
	for i, v := range x {
		a71 := mul(g[i], mul(v, 0.5))
		q85 := mul(g[i], add(t[i], 1))
		u89 := sub(1, mul(t[i], t[i]))
		w93 := mul(mul(a71, u89), vmGeluK2)
		r101 := mul(mul(w93, vmGeluK1), mul(mul(v, v), 3))
		out[i] = add(add(w93, r101), mul(q85, 0.5))
	}
	return out
}

// rowOf2 is a float32 function of two rows (gradient g and input x) in
// its three forms: ops, its ops one by one (the reference), row, its one
// loop, and scalar, its element form.
type rowOf2 struct {
	name   string
	ops    func(g, x []float32) []float32
	row    func(d, g, x []float32)
	scalar func(g, x float32) float32
}

// check compares the row form (into a new row and in place over g and
// over x), the scalar form and the ops one by one, bit for bit, NaN
// payloads included.
func (f rowOf2) check(t *testing.T, g, x []float32) {
	t.Helper()
	n := len(x)
	want := f.ops(g, x)
	got := make([]float32, n)
	f.row(got, g, x)
	inG, inX := append([]float32(nil), g...), append([]float32(nil), x...)
	f.row(inG, inG, x)
	f.row(inX, g, inX)
	for i := range x {
		w := math.Float32bits(want[i])
		if s := f.scalar(g[i], x[i]); math.Float32bits(s) != w {
			t.Fatalf("%s(%g (%#x), %g (%#x)) = %g (bits %#x, scalar), the ops one by one give %g (%#x)",
				f.name, g[i], math.Float32bits(g[i]), x[i], math.Float32bits(x[i]), s, math.Float32bits(s), want[i], w)
		}
		for _, r := range []struct {
			name string
			v    float32
		}{{"row", got[i]}, {"in place over g", inG[i]}, {"in place over x", inX[i]}} {
			if math.Float32bits(r.v) != w {
				t.Fatalf("%s(%g (%#x), %g (%#x)) = %g (bits %#x, %s of %d, lane %d, %d lanes), the ops one by one give %g (%#x)",
					f.name, g[i], math.Float32bits(g[i]), x[i], math.Float32bits(x[i]), r.v, math.Float32bits(r.v), r.name, n, i, vmathLanes, want[i], w)
			}
		}
	}
}

// checkPairs runs f.check, for each loop width, on every pair of vals (g
// and x) at every lane position of rows of 0 to 40 elements, and on rows
// of random values from seed: an MLP's activations and gradients, and
// any bit patterns.
func (f rowOf2) checkPairs(t *testing.T, vals []float32, seed int64) {
	forLanes(t, func(t *testing.T) {
		for n := 0; n <= 40; n++ {
			for og := range vals {
				for ox := range vals {
					if n == 0 && (og > 0 || ox > 0) {
						continue
					}
					g, x := make([]float32, n), make([]float32, n)
					for i := range x {
						g[i], x[i] = vals[(og+i)%len(vals)], vals[(ox+i)%len(vals)]
					}
					f.check(t, g, x)
				}
			}
		}
		rng := rand.New(rand.NewSource(seed))
		g, x := make([]float32, 1<<14+13), make([]float32, 1<<14+13)
		for i := range x {
			switch i % 4 {
			case 0: // GPT-2's activations and gradients
				g[i], x[i] = float32(rng.NormFloat64()*1e-3), float32(rng.NormFloat64()*2)
			case 1:
				g[i], x[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64()*6)
			default: // any bit patterns
				g[i], x[i] = math.Float32frombits(rng.Uint32()), math.Float32frombits(rng.Uint32())
			}
		}
		f.check(t, g, x)
	})
}

// TestGELUTanhBackwardRowBits compares the one-loop backward of the
// tanh-approximate GELU with its 21 ops one by one, bit for bit: every
// pair of special and ordinary values (NaNs of several payloads, quiet
// and signaling, in both operands; infinities, signed zeros, subnormals,
// values where tanh saturates and where x·x·x or 3·x·x overflows) at
// every lane position of rows of 0 to 40 elements, and random values, for
// each loop width.
func TestGELUTanhBackwardRowBits(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	vals := []float32{nan, -nan, math.Float32frombits(0x7fc00042), math.Float32frombits(0xffc01234),
		math.Float32frombits(0x7f800001), math.Float32frombits(0xff812345), inf, -inf, 0, float32(math.Copysign(0, -1)),
		math.Float32frombits(1), -math.Float32frombits(1), math.Float32frombits(0x007fffff), 0x1p-126, -0x1p-126,
		1e-20, -1e-20, 0.7, -0.7, 1.1, -1.1, 3.2, -3.2, 5, -5, 9.5, -9.5, 20, -20, 6e12, -6e12, 3e38, -3e38, 1, -1, 0.5, -3.25}
	rowOf2{"gelu_tanh_backward", geluTanhBackwardOps, GELUTanhBackwardRow, GELUTanhBackward}.checkPairs(t, vals, 1)
}

// geluBackwardOps is the exact GELU's backward of rows g and x as its ops
// compute it one by one (each a float32 row, the graph's operand order,
// NaNs as x86 picks them, the erf and exp rows of package vmath), node by
// node of PyTorch's decomposition (and aten's lowering).
func geluBackwardOps(g, x []float32) []float32 {
	mul := func(a, b float32) float32 { return x86NaN(a, b, float32(a*b)) }
	add := func(a, b float32) float32 { return x86NaN(a, b, float32(a+b)) }
	n := len(x)
	e, p := make([]float32, n), make([]float32, n)
	for i, v := range x {
		e[i] = mul(v, vmRsqrt2)
		p[i] = mul(mul(v, v), -0.5)
	}
	ErfRow(e, e)
	ExpRow(p, p)
	out := make([]float32, n)
	for i, v := range x {
		cdf := mul(add(e[i], 1), 0.5)
		pdf := mul(p[i], vmGeluKB)
		out[i] = mul(g[i], add(cdf, mul(v, pdf)))
	}
	return out
}

// TestGELUBackwardRowBits compares the one-loop backward of the exact
// GELU (the row, in place over g and over x, and the scalar form) with
// its ops one by one, bit for bit, NaN payloads included: every pair of
// special and ordinary values at every lane position of rows of 0 to 40
// elements, and random values, for each loop width.
func TestGELUBackwardRowBits(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	vals := []float32{nan, -nan, math.Float32frombits(0x7fc00042), math.Float32frombits(0xffc01234),
		math.Float32frombits(0x7f800001), math.Float32frombits(0xff812345), inf, -inf, 0, float32(math.Copysign(0, -1)),
		math.Float32frombits(1), -math.Float32frombits(1), 0x1p-126, -0x1p-126, 1e-20, -1e-20, 0.7, -0.7, 1.1, -1.1,
		3.2, -3.2, 5, -5, 9.5, -9.5, 13.2, -13.3, 14, -14, 20, -20, 6e12, -6e12, 3e38, -3e38, 1, -1, 0.5, -3.25}
	rowOf2{"gelu_backward", geluBackwardOps, GELUBackwardRow, GELUBackward}.checkPairs(t, vals, 2)
}
