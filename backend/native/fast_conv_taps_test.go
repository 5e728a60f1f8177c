package native

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/torchtpu/torchtpu/backend/native/gemm"
)

// TestConvTapsMatchGEMM runs stride-1 convolutions with output rows as
// wide as the image's, and stride-2 ones (from phase planes), on the tap
// path and on the implicit GEMM (convTaps off), within the tolerance of
// two summation orders: 3×3 and 5×5 windows, a 1×3 one, a 1×1
// downsample, dilation, fewer output rows than the image's,
// batches, two groups, frozen weights (packed once) and not, one and
// three cores (bands of strips), NaN and Inf in the image; and that the
// path ran where it should and not where it should not (weights packed
// per call only for tapsMinPacked positions and more).
func TestConvTapsMatchGEMM(t *testing.T) {
	if !gemm.StripsOK(16, 16) {
		t.Skip("no strip kernels on this CPU")
	}
	r := rand.New(rand.NewPCG(51, 52))
	cases := []struct {
		cc   convCase
		taps bool
	}{
		{convCase{1, 64, 20, 20, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, true},  // ResNet's 3×3
		{convCase{1, 16, 48, 48, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, false}, // k 144: the direct path
		{convCase{2, 32, 36, 32, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, true},  // batch 2, a last strip of 8, 2304 positions
		{convCase{1, 16, 18, 12, 32, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 1}, true},  // 5×5
		{convCase{1, 64, 48, 48, 48, 1, 3, 1, 1, 1, 1, 0, 0, 1, 1, 1}, true},  // 1×3
		{convCase{1, 32, 16, 16, 32, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1}, true},  // dilation 2
		{convCase{1, 32, 20, 16, 48, 3, 3, 1, 1, 1, 1, 0, 0, 1, 1, 1}, true},  // 18 output rows of 20
		{convCase{2, 64, 16, 16, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2}, true},  // two groups of 32
		{convCase{1, 64, 7, 7, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, false},   // 49 positions: the GEMM
		{convCase{1, 3, 64, 64, 16, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1}, true},   // a mobile stem: 3 channels, stride 2
		{convCase{2, 3, 64, 48, 64, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1}, true},   // ResNet's stem, batch 2 (1536 positions)
		{convCase{1, 3, 64, 64, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, true},   // 3 channels, stride 1
		{convCase{1, 20, 16, 16, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, false}, // 20 channels: the GEMM
		{convCase{1, 32, 16, 16, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1}, true},  // stride 2: phase planes
		{convCase{2, 32, 64, 64, 40, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1}, true},  // stride 2, 2048 positions
		{convCase{1, 64, 28, 28, 48, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1}, true},  // a 1×1 stride-2 downsample
		{convCase{1, 32, 17, 16, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1}, false}, // stride 2, odd height: the GEMM
		{convCase{1, 64, 16, 16, 64, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 2}, false}, // stride 2, two groups: the GEMM
	}
	defer func(old bool) { convTaps = old }(convTaps)
	for _, procs := range []int{1, 3} {
		old := runtime.GOMAXPROCS(procs)
		for _, frozen := range []bool{false, true} {
			for _, tc := range cases {
				cc := tc.cc
				name := fmt.Sprintf("%+v/procs=%d/frozen=%v", cc, procs, frozen)
				e := compileModule(t, cc.module(t))
				x := randF32Literal(t, r, int64(cc.b), int64(cc.c), int64(cc.h), int64(cc.w))
				w := randF32Literal(t, r, int64(cc.o), int64(cc.c/cc.g), int64(cc.kh), int64(cc.kw))
				x.SetFloat64(9, math.NaN())
				x.SetFloat64(x.Len()-20, math.Inf(1))
				w.Frozen = frozen // as an archive's weights: packed once
				oh, ow := cc.outHW()
				expect := tc.taps && (frozen || cc.b*oh*ow >= tapsMinPacked)
				convTaps = true
				before := convTapsRuns.Load()
				got := runExe(t, e, x, w)[0]
				if ran := convTapsRuns.Load() > before; ran != expect {
					t.Fatalf("%s: tap path ran %v, want %v", name, ran, expect)
				}
				convTaps = false
				want := runExe(t, e, x, w)[0]
				k := float64(cc.c / cc.g * cc.kh * cc.kw)
				for i := 0; i < want.Len(); i++ {
					g, e := got.Float64(i), want.Float64(i)
					if math.IsNaN(g) != math.IsNaN(e) || !math.IsNaN(e) && g != e && math.Abs(g-e) > 4e-7*k*(1+math.Abs(e)) {
						t.Fatalf("%s: element %d = %v on the taps, %v on the GEMM", name, i, g, e)
					}
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
}
