package vmath

import (
	"math"
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
