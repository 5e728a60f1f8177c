package native

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/torchtpu/torchtpu/backend/native/gemm"
)

// TestConvStripsMatchGEMM runs pointwise convolutions on the strip path
// and on the implicit GEMM (convStrips off): the same bits where the GEMM
// takes k in one block, and within the exact kernel's tolerance past it;
// on one and three cores (column chunks, then row bands for few
// columns), with frozen weights (packed once, kept) and not, two groups,
// positions not a multiple of 16, and a NaN and an infinity in the image.
func TestConvStripsMatchGEMM(t *testing.T) {
	if !gemm.StripsOK(16, 16) {
		t.Skip("no strip kernels on this CPU")
	}
	defer func(old bool) { convStrips = old }(convStrips)
	convStrips = true // where the CPU prefers the GEMM too
	r := rand.New(rand.NewPCG(41, 42))
	cases := []convCase{
		{1, 16, 64, 64, 64, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},  // a mobile network's expansion
		{1, 32, 30, 31, 16, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},  // projection to 16 channels, 930 positions
		{1, 24, 17, 17, 144, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1}, // a last strip of 8 rows (144 = 9·16)
		{1, 160, 4, 4, 960, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},  // few positions, many strips: bands
		{1, 48, 9, 9, 40, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2},    // two groups of 20 rows: not strips (20 % 8 ≠ 0)
		{1, 64, 24, 24, 32, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2},  // two groups, 16 rows each
		{1, 512, 7, 7, 128, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},  // k past one GEMM block
	}
	runs := 0
	for _, procs := range []int{1, 3} {
		old := runtime.GOMAXPROCS(procs)
		for _, frozen := range []bool{false, true} {
			for _, cc := range cases {
				name := fmt.Sprintf("%+v/procs=%d/frozen=%v", cc, procs, frozen)
				op := cc.op(t)
				x := randF32Literal(t, r, int64(cc.b), int64(cc.c), int64(cc.h), int64(cc.w))
				w := randF32Literal(t, r, int64(cc.o), int64(cc.c/cc.g), int64(cc.kh), int64(cc.kw))
				x.SetFloat64(5, math.NaN())
				x.SetFloat64(x.Len()-3, math.Inf(-1))
				w.Frozen = frozen
				ocPer, k := cc.o/cc.g, cc.c/cc.g
				before := convStripRuns.Load()
				got := runConv(t, op, x, w, true)
				ran := convStripRuns.Load() > before
				if ran != gemm.StripsOK(ocPer, k) {
					t.Fatalf("%s: strip path ran %v, want %v", name, ran, !ran)
				}
				if ran {
					runs++
				}
				convStrips = false
				want := runConv(t, op, x, w, true)
				convStrips = true
				exact := k <= gemm.KBlock(k) && k <= 256
				for i := 0; i < want.Len(); i++ {
					g, e := got.Float64(i), want.Float64(i)
					if math.IsNaN(g) != math.IsNaN(e) || !math.IsNaN(e) && (exact && g != e || math.Abs(g-e) > 1e-5*math.Sqrt(float64(k))*(1+math.Abs(e))) {
						t.Fatalf("%s: element %d = %v on the strips, %v on the GEMM", name, i, g, e)
					}
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
	if runs == 0 {
		t.Fatal("the strip path never ran")
	}
}
