package native

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPrepackedWeights runs a linear layer (x·Wᵀ, W an argument) on the
// same weight literal again and again (packed once, then hits), on a new
// weight literal (packed again), and with NaN and Inf in the weight,
// against the product without prepacking, for odd shapes.
func TestPrepackedWeights(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	none := []int64{}
	for _, dc := range []dotCase{
		{[]int64{17, 333}, []int64{129, 333}, none, none, []int64{1}, []int64{1}, true},     // Wᵀ
		{[]int64{1, 70, 96}, []int64{300, 96}, none, none, []int64{2}, []int64{1}, true},    // merged rows
		{[]int64{65, 96}, []int64{96, 77}, none, none, []int64{1}, []int64{0}, true},        // W row-major
		{[]int64{40, 3, 50}, []int64{50, 3, 41}, none, none, []int64{2}, []int64{0}, false}, // strided rows: not merged
		{[]int64{3, 2, 64}, []int64{99, 64}, none, none, []int64{2}, []int64{1}, true},      // small m
	} {
		op := dc.op(t)
		w := randF32Literal(t, r, dc.rhs...)
		hits0, packs0 := prepackStats.hits.Load(), prepackStats.packs.Load()
		for it := 0; it < 4; it++ {
			x := randF32Literal(t, r, dc.lhs...)
			if it == 2 {
				w = randF32Literal(t, r, dc.rhs...) // a new weight: packed again
				w.SetFloat64(3, math.NaN())
				w.SetFloat64(w.Len()-1, math.Inf(-1))
			}
			got := runDot(t, op, x, w, true)
			prepackEnabled = false
			want := runDot(t, op, x, w, true)
			prepackEnabled = true
			for i := 0; i < want.Len(); i++ {
				g, e := got.Float64(i), want.Float64(i)
				if math.IsNaN(e) != math.IsNaN(g) || (!math.IsNaN(e) && math.Abs(g-e) > 1e-5*(1+math.Abs(e))) {
					t.Fatalf("%v x %v run %d: element %d = %v, want %v", dc.lhs, dc.rhs, it, i, g, e)
				}
			}
		}
		hits, packs := prepackStats.hits.Load()-hits0, prepackStats.packs.Load()-packs0
		m := int64(1)
		for i, d := range dc.lhs {
			if i != int(dc.lc[0]) {
				m *= d
			}
		}
		k := dc.lhs[dc.lc[0]]
		if dc.fast && m*k*(int64(w.Len())/k) >= fastGemmMinFlops && (packs != 2 || hits != 2) {
			t.Errorf("%v x %v: %d packs and %d hits, want 2 and 2", dc.lhs, dc.rhs, packs, hits)
		}
	}
}
