package native

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/torchtpu/torchtpu/backend/native/gemm"
)

// TestConvPhasedMatchesGather runs stride-2 convolutions with the im2col
// matrix gathered from phase planes (gemm.ConvGeom.Phased) and from the
// image: the packed values, hence the sums, are the same, so the outputs
// must be bit for bit; on one and three cores, a batch, windows of 3×3,
// 7×7, 1×3 and 5×5 with symmetric and asymmetric padding, channels past a
// k block, NaN and infinities in the image; and the phase planes must be
// taken exactly where phasedGather says.
func TestConvPhasedMatchesGather(t *testing.T) {
	if !gemm.HasConvGather() {
		t.Skip("no gather packer on this CPU")
	}
	defer func(s, tp, st, tr bool) { convStrips, convTaps, convStemTaps, convTapRows = s, tp, st, tr }(convStrips, convTaps, convStemTaps, convTapRows)
	convStrips, convTaps, convStemTaps, convTapRows = false, false, false, false // the implicit GEMM
	defer func(old bool) { convDirectEnabled = old }(convDirectEnabled)
	convDirectEnabled = false
	r := rand.New(rand.NewPCG(61, 62))
	cases := []struct {
		cc     convCase
		phased bool
	}{
		{convCase{1, 64, 56, 56, 128, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1}, true}, // ResNet's downsampling 3×3
		{convCase{2, 16, 20, 18, 24, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1}, true},  // a batch, 10×9 outputs
		{convCase{1, 3, 64, 64, 16, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1}, true},   // a 7×7 stem
		{convCase{1, 32, 24, 32, 40, 1, 3, 2, 2, 1, 1, 0, 0, 1, 1, 1}, true},  // 1×3, rows unpadded
		{convCase{1, 40, 16, 16, 8, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 1}, true},   // 5×5, k = 1000 (k blocks)
		{convCase{1, 32, 28, 28, 32, 3, 3, 2, 2, 1, 1, 0, 1, 0, 1, 1}, true},  // TensorFlow's "same": pad after only
		{convCase{1, 32, 29, 28, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1}, false}, // odd height
		{convCase{1, 32, 28, 28, 32, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 1}, false}, // 13×13 outputs: not halved
		{convCase{1, 32, 28, 28, 32, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 1}, false}, // dilated
		{convCase{1, 32, 28, 28, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 2}, false}, // two groups
	}
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1)}
	for _, procs := range []int{1, 3} {
		old := runtime.GOMAXPROCS(procs)
		for i, tc := range cases {
			cc := tc.cc
			name := fmt.Sprintf("procs=%d %+v", procs, cc)
			op := cc.op(t)
			x := randF32Literal(t, r, int64(cc.b), int64(cc.c), int64(cc.h), int64(cc.w))
			w := randF32Literal(t, r, int64(cc.o), int64(cc.c/cc.g), int64(cc.kh), int64(cc.kw))
			if i%2 == 1 {
				for j := range specials {
					x.SetFloat64(r.IntN(x.Len()), specials[j])
				}
			}
			c, ok := fastConvShape(op, []Value{x, w})
			if !ok || c.direct || c.small || c.subpix {
				t.Fatalf("%s: not on the implicit GEMM", name)
			}
			if got := c.phasedGather(); got != tc.phased {
				t.Fatalf("%s: phase planes %v, want %v", name, got, tc.phased)
			}
			convPhased = true
			got := runConv(t, op, x, w, true)
			convPhased = false
			want := runConv(t, op, x, w, true)
			convPhased = true
			exact := runConv(t, op, x, w, false)
			k := float64(cc.c / cc.g * cc.kh * cc.kw)
			for e := 0; e < want.Len(); e++ {
				g, v, ex := got.Float64(e), want.Float64(e), exact.Float64(e)
				if math.Float64bits(g) != math.Float64bits(v) && !(math.IsNaN(g) && math.IsNaN(v)) {
					t.Fatalf("%s: element %d = %v from phase planes, %v gathered", name, e, g, v)
				}
				if math.IsNaN(g) != math.IsNaN(ex) || !math.IsNaN(ex) && math.Abs(g-ex) > 8e-6*math.Sqrt(k)*(1+math.Abs(ex)) && g != ex {
					t.Fatalf("%s: element %d = %v, exact kernel %v", name, e, g, ex)
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
}
