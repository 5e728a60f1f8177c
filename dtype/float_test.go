package dtype

import (
	"math"
	"testing"
)

// Every encoding of every narrow format decodes and re-encodes to itself
// (NaNs to the canonical NaN).
func TestMiniFloatRoundTrip(t *testing.T) {
	for d, f := range miniFormats {
		n := 1 << (f.ebits + f.mbits + 1)
		if f.unsigned {
			n >>= 1
		}
		for b := 0; b < n; b++ {
			v := f.decode(uint32(b))
			got := f.encode(v)
			if math.IsNaN(v) {
				if !math.IsNaN(f.decode(got)) {
					t.Errorf("%v: NaN %#x re-encodes to non-NaN %#x", d, b, got)
				}
				continue
			}
			if f.fnuz && v == 0 {
				continue
			}
			if got != uint32(b) {
				t.Errorf("%v: %#x -> %v -> %#x", d, b, v, got)
			}
		}
	}
}

func TestF16Rounding(t *testing.T) {
	cases := []struct {
		in   float64
		want uint16
	}{
		{1, 0x3C00}, {65504, 0x7BFF}, {65520, 0x7C00}, {65519.99, 0x7BFF},
		{math.Ldexp(1, -24), 0x0001}, {math.Ldexp(1, -25), 0}, {math.Ldexp(1.5, -25), 1},
		{math.Copysign(0, -1), 0x8000}, {math.Inf(-1), 0xFC00},
		{1 + math.Ldexp(1, -11), 0x3C00}, // tie to even
		{1 + 3*math.Ldexp(1, -11), 0x3C02},
	}
	for _, c := range cases {
		if got := Float64ToF16(c.in); got != c.want {
			t.Errorf("F16(%v) = %#x, want %#x", c.in, got, c.want)
		}
	}
}

func TestBF16MatchesF32Path(t *testing.T) {
	for _, v := range []float32{1, 1.00390625, 3.14159, -2.5e-39, 1e38, 3.4e38} {
		if a, b := Float32ToBF16(v), Float64ToBF16(float64(v)); a != b {
			t.Errorf("bf16(%v): f32 path %#x, f64 path %#x", v, a, b)
		}
	}
}
