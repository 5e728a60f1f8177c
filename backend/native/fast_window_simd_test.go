package native

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMaxRowsMatchesGeneric checks the vector maximum against the generic
// one (maxF32) element by element where no operand is NaN, and that it
// reports every NaN.
func TestMaxRowsMatchesGeneric(t *testing.T) {
	if !simdPool {
		t.Skip("no vector loops on this machine")
	}
	r := rand.New(rand.NewPCG(41, 42))
	for _, n := range []int{1, 7, 8, 9, 16, 23, 113} {
		for rep := 0; rep < 200; rep++ {
			a, b := simdTestRow(r, n), simdTestRow(r, n)
			if rep%3 == 0 { // only zeros, equal values and infinities
				for i := range a {
					a[i] = []float32{0, float32(math.Copysign(0, -1)), 1, float32(math.Inf(-1))}[r.IntN(4)]
					b[i] = []float32{0, float32(math.Copysign(0, -1)), 1, float32(math.Inf(-1))}[r.IntN(4)]
				}
			}
			hasNaN := false
			for i := range a {
				hasNaN = hasNaN || a[i] != a[i] || b[i] != b[i]
			}
			d := make([]float32, n)
			if nan := maxRows(d, a, b); nan != hasNaN {
				t.Fatalf("n=%d: reported NaN %v, operands hold one: %v", n, nan, hasNaN)
			}
			for i := range d {
				if a[i] != a[i] || b[i] != b[i] {
					continue
				}
				if want := maxF32(a[i], b[i]); math.Float32bits(d[i]) != math.Float32bits(want) {
					t.Fatalf("n=%d: max(%v, %v) = %v (%#x), generic %v (%#x)", n, a[i], b[i], d[i], math.Float32bits(d[i]), want, math.Float32bits(want))
				}
			}
		}
	}
}
