package native

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/torchtpu/torchtpu/backend/native/gemm"
)

// TestTapRowsMatchesGEMM checks the AVX2 row path (runTapRows) against
// the implicit GEMM bit for bit (the same sums in the same order and k
// blocks): stems at stride 2, 3×3 and 5×5 windows with same and
// asymmetric padding, pointwise layers read in place, batches, output rows
// of one and several 16-column tiles with or without a last 8, depths
// over one k block, and NaN and infinite inputs; and that the path took
// each case.
func TestTapRowsMatchesGEMM(t *testing.T) {
	if !gemm.TapRowsOK() {
		t.Skip("no AVX2 tap kernels here")
	}
	defer func(old bool) { convTapRows = old }(convTapRows)
	r := rand.New(rand.NewPCG(61, 62))
	cases := []convCase{
		{1, 3, 32, 32, 16, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},   // MobileNet's stem, smaller: rows of 16
		{1, 3, 48, 48, 20, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1},   // ResNet's stem: rows of 24
		{2, 4, 14, 16, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // batch 2, rows of 16
		{1, 4, 8, 56, 64, 11, 11, 1, 1, 1, 1, 5, 5, 5, 5, 1},  // 56-wide rows, K 484 (two k blocks)
		{1, 2, 9, 40, 7, 5, 5, 1, 1, 1, 1, 2, 1, 3, 1, 1},     // 5×5, asymmetric padding
		{1, 3, 11, 33, 9, 3, 3, 2, 2, 1, 1, 0, 1, 1, 0, 1},    // stride 2, odd image
		{1, 24, 128, 64, 40, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1}, // pointwise, 8192 positions
		{3, 16, 96, 96, 30, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},  // pointwise, batch 3
		{1, 500, 128, 72, 8, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1}, // pointwise, two k blocks
	}
	for _, cc := range cases {
		op := cc.op(t)
		x := randF32Literal(t, r, int64(cc.b), int64(cc.c), int64(cc.h), int64(cc.w))
		w := randF32Literal(t, r, int64(cc.o), int64(cc.c/cc.g), int64(cc.kh), int64(cc.kw))
		for j := 0; j < 3; j++ {
			x.SetFloat64(r.IntN(x.Len()), []float64{math.NaN(), math.Inf(1), math.Inf(-1)}[j])
		}
		convTapRows = true
		c, ok := fastConvShape(op, []Value{x, w})
		if !ok || !c.useTapRows() {
			t.Fatalf("%+v: the row path does not take it", cc)
		}
		got := runConv(t, op, x, w, true)
		convTapRows = false
		want := runConv(t, op, x, w, true)
		for i := 0; i < want.Len(); i++ {
			g, e := got.Float64(i), want.Float64(i)
			if math.Float64bits(g) != math.Float64bits(e) && !(g != g && e != e) {
				t.Fatalf("%s: element %d = %v, the implicit GEMM gives %v", fmt.Sprintf("%+v", cc), i, g, e)
			}
		}
	}
}
